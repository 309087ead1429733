"""kafka-topics: drop-in replacement for Apache Kafka's kafka-topics.sh."""
