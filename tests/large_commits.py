"""Test helpers for writes larger than one batch of __consumer_offsets: the offsets topic's
max.message.bytes lowered (so a few hundred partitions are beyond one batch and the tests stay
small), offsets committed in slices that each fit, and reads as a stable consumer reads."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException, TopicPartition
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    ResourceType,
)

from tests.kafka_helpers import commit_offsets, committed, create_topic

LIMIT = 20_000  # bytes: one batch holds about 240 offsets of the tests' names, 600 tombstones
SLICE = 100  # offsets per commit made by the helpers: far within LIMIT


def set_offsets_limit(bootstrap: str, value: int | None) -> None:
    """max.message.bytes of __consumer_offsets: ``value``, or the broker's default (None)."""
    client = AdminClient({"bootstrap.servers": bootstrap})
    entry = (
        ConfigEntry("max.message.bytes", str(value), incremental_operation=AlterConfigOpType.SET)
        if value is not None
        else ConfigEntry("max.message.bytes", None, incremental_operation=AlterConfigOpType.DELETE)
    )
    resource = ConfigResource(ResourceType.TOPIC, "__consumer_offsets", incremental_configs=[entry])
    for future in client.incremental_alter_configs([resource]).values():
        future.result(timeout=30)


def refused_whole(bootstrap: str, probe_topic: str, partitions: int) -> bool:
    """Whether one AdminClient commit of ``partitions`` offsets is refused (UNKNOWN_SERVER_ERROR
    for every partition): what a plain client meets beyond one batch."""
    client = AdminClient({"bootstrap.servers": bootstrap})
    group = f"probe-{time.monotonic_ns()}"
    request = ConsumerGroupTopicPartitions(
        group, [TopicPartition(probe_topic, p, 1) for p in range(partitions)]
    )
    try:
        result = client.alter_consumer_group_offsets([request], request_timeout=30)[group].result(timeout=30)
    except KafkaException:
        return True
    return any(tp.error is not None for tp in result.topic_partitions)


def offsets_limit_set(bootstrap: str) -> int | None:
    """The max.message.bytes set on __consumer_offsets (None: the broker's default applies)."""
    client = AdminClient({"bootstrap.servers": bootstrap})
    resource = ConfigResource(ResourceType.TOPIC, "__consumer_offsets")
    entries = next(iter(client.describe_configs([resource]).values())).result(timeout=30)
    entry = entries["max.message.bytes"]
    return int(entry.value) if entry.source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value else None


@contextmanager
def offsets_limit(bootstrap: str, value: int | None = LIMIT, probe: int = 600) -> Iterator[str]:
    """__consumer_offsets limited to ``value`` bytes (None: the broker's default) while the block
    runs, and as it was after; each time once the group coordinator applies it: a commit of
    ``probe`` offsets is refused whole (or taken, at the default). Yields the probe topic
    (``probe`` partitions, no records)."""
    topic = create_topic(bootstrap, f"probe-{time.monotonic_ns()}", partitions=probe)
    commit_offsets(bootstrap, f"probe-{time.monotonic_ns()}", {(topic, 0): 0})  # the offsets topic exists
    before = offsets_limit_set(bootstrap)
    _apply(bootstrap, value, topic, probe)
    try:
        yield topic
    finally:
        _apply(bootstrap, before, topic, probe)


def _apply(bootstrap: str, value: int | None, topic: str, probe: int) -> None:
    set_offsets_limit(bootstrap, value)
    deadline = time.monotonic() + 60
    while refused_whole(bootstrap, topic, probe) != (value is not None):
        assert time.monotonic() < deadline, f"max.message.bytes {value} never applied"
        time.sleep(0.5)


def commit_in_slices(bootstrap: str, group: str, offsets: dict[tuple[str, int], int]) -> None:
    """Commit ``offsets`` in commits of SLICE partitions (not atomic: setup only)."""
    items = list(offsets.items())
    for start in range(0, len(items), SLICE):
        commit_offsets(bootstrap, group, dict(items[start : start + SLICE]))
    held = committed(bootstrap, group)
    assert all(held.get(tp) == o for tp, o in offsets.items())


def stable(bootstrap: str, group: str, partitions: list[tuple[str, int]], timeout_ms: int = 3000) -> object:
    """The group's offsets as a consumer that waits for transactions reads them: a dict, or the
    error text while a transaction holds them (UNSTABLE_OFFSET_COMMIT until ``timeout_ms``)."""
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.errors import ClusterError
    from kafka_groups.settings import ConnectionArgs

    access = KafkaAccess(ConnectionArgs(bootstrap_server=bootstrap, timeout_ms=timeout_ms).resolve())
    try:
        return access.committed_stable({group: partitions})[group]
    except ClusterError as exc:
        return exc.message
    finally:
        access.close()
