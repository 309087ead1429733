"""Offset-reset policies that lose nothing when partitions are added (the public API).

    from kafka_groups.policy import Policy, PolicyConsumer

    policy = Policy.parse("to_start_time", invalid="nearest")
    consumer = PolicyConsumer({"bootstrap.servers": "localhost:9092", "group.id": "orders"}, policy)
    consumer.subscribe(["orders"])
    while True:
        message = consumer.poll(1.0)

See docs/policies.md for every strategy, what each one reads from Kafka, and the durable records
that stand in for the group and partition creation times today's brokers do not keep.
"""

from kafka_groups.access.policy_consumer import Decision, PolicyConsumer
from kafka_groups.access.registry import GROUP_START_TOPIC, PARTITION_CREATION_TOPIC, CreationRegistry
from kafka_groups.core.policy import (
    AtTime,
    GroupCreationTimeNotAvailable,
    Invalid,
    NoOffsetError,
    Offset,
    OffsetOutOfRange,
    PartitionFacts,
    Policy,
    PolicyError,
    Resolver,
    Start,
)

__all__ = [
    "GROUP_START_TOPIC",
    "PARTITION_CREATION_TOPIC",
    "AtTime",
    "CreationRegistry",
    "Decision",
    "GroupCreationTimeNotAvailable",
    "Invalid",
    "NoOffsetError",
    "Offset",
    "OffsetOutOfRange",
    "PartitionFacts",
    "Policy",
    "PolicyConsumer",
    "PolicyError",
    "Resolver",
    "Start",
]
