"""``kafka-topics --describe``: topic and partition states, the Apache report filters and
layout, and KIP-1327 partition creation times. Pure code: the command gathers the states."""

from __future__ import annotations

import base64
import binascii

from kafka_groups.core.javaorder import hashmap_order, string_hash
from kafka_groups.core.topic_states import (
    MIN_ISR,
    NO_LEADER,
    ZERO_UUID,
    ConfigValue,
    PartitionState,
    Reassignment,
    TopicState,
    kafka_uuid,
)
from kafka_groups.core.topics import (
    DescribeFilters,
    TopicDescribeResult,
    partition_line,
    topic_line,
    without_elr,
)
from kafka_groups.errors import TopicCommandError

# The names other modules import from here (several now live in kafka_groups.core).
__all__ = [
    "MIN_ISR",
    "NO_LEADER",
    "ZERO_UUID",
    "ConfigValue",
    "DescribeFilters",
    "PartitionState",
    "Reassignment",
    "TopicDescribeResult",
    "TopicState",
    "apache_topic_order",
    "kafka_uuid",
    "parse_topic_id",
    "partition_line",
    "topic_line",
    "without_elr",
]


def _table_size_for(n: int) -> int:
    """Java ``HashMap.tableSizeFor``: the power of two at or above ``n`` (at least 1)."""
    size = 1
    while size < n:
        size *= 2
    return size


def apache_topic_order(sorted_names: list[str]) -> list[str]:
    """The order the Apache tool prints described topics in.

    The names (sorted) pass through three HashMaps in the Admin client: ``new HashMap<>(n)``,
    a copy of it (``new HashMap<>(map)``), and ``new HashMap<>(n)`` filled from the copy; the
    output follows the last one's iteration order."""
    n = len(sorted_names)
    first = hashmap_order(sorted_names, string_hash, _table_size_for(n))
    copy = hashmap_order(first, string_hash, _table_size_for(int(n / 0.75 + 1.0)))
    return hashmap_order(copy, string_hash, _table_size_for(n))


def parse_topic_id(raw: str) -> str:
    """``--topic-id`` as Kafka's ``Uuid.fromString`` reads it (URL-safe base64, 22 characters),
    with its messages; returns the id in its canonical form."""
    if len(raw) > 22:
        raise TopicCommandError(
            f"Input string with prefix `{raw[:24]}` is too long to be decoded as a base64 UUID"
        )
    try:
        decoded = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4))
    except (ValueError, binascii.Error):
        decoded = b""
    if len(decoded) != 16:
        raise TopicCommandError(
            f"Input string `{raw}` decoded as {len(decoded)} bytes, which is not equal to the expected "
            "16 bytes of a base64-encoded UUID"
        )
    import uuid  # only for --topic-id

    return kafka_uuid(uuid.UUID(bytes=decoded))
