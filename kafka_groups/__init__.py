"""Drop-in replacements for Apache Kafka's group and topic administration tools."""

__version__ = "0.1.0"
