"""``kafka-topics --describe``: topic and partition states, the Apache report filters and
layout, and KIP-1327 partition creation times. Pure code: the command gathers the states."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kafka_groups.core.javaorder import hashmap_order, string_hash
from kafka_groups.core.times import iso_utc_ms
from kafka_groups.errors import TopicCommandError

NO_LEADER = -1
MIN_ISR = "min.insync.replicas"


@dataclass(frozen=True)
class Reassignment:
    replicas: tuple[int, ...]
    adding: tuple[int, ...]
    removing: tuple[int, ...]


@dataclass(frozen=True)
class PartitionState:
    partition: int
    leader: int  # NO_LEADER when there is none or it is not a live broker (as the Admin client maps it)
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    elr: tuple[int, ...] | None = None  # None: the broker did not send ELR (shown as N/A)
    last_known_elr: tuple[int, ...] | None = None
    # KIP-1327: None when the broker does not send the field (DescribeTopicPartitions v0);
    # -1 when it sends "unknown".
    creation_time_ms: int | None = None

    def replication_factor(self, reassignment: Reassignment | None) -> int:
        """The replication factor, not counting replicas a reassignment is adding."""
        if reassignment is not None and set(self.replicas) & (
            set(reassignment.adding) | set(reassignment.removing)
        ):
            return len(reassignment.replicas) - len(reassignment.adding)
        return len(self.replicas)


@dataclass(frozen=True)
class ConfigValue:
    name: str
    value: str | None
    is_default: bool  # the value comes from the default, not from a topic or broker override


@dataclass(frozen=True)
class TopicState:
    name: str
    topic_id: str  # the zero UUID when the broker has none
    partitions: tuple[PartitionState, ...]  # sorted by partition
    configs: tuple[ConfigValue, ...] = ()  # in DescribeConfigs order

    @property
    def overrides(self) -> list[ConfigValue]:
        return [c for c in self.configs if not c.is_default]

    def min_isr(self) -> int:
        for config in self.configs:
            if config.name == MIN_ISR and config.value is not None:
                return int(config.value)
        return 1


@dataclass(frozen=True)
class DescribeFilters:
    under_replicated: bool = False
    under_min_isr: bool = False
    at_min_isr: bool = False
    unavailable: bool = False
    with_overrides: bool = False  # --topics-with-overrides

    @property
    def reports(self) -> bool:
        """Any of the four partition reports (which leave out the topic lines)."""
        return self.under_replicated or self.under_min_isr or self.at_min_isr or self.unavailable


ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA"  # Kafka's Uuid.ZERO_UUID as it prints it


def kafka_uuid(raw: uuid.UUID | str | None) -> str:
    """A topic id as Kafka prints it: URL-safe base64 of its 16 bytes, without padding."""
    if raw is None:
        return ZERO_UUID
    value = raw if isinstance(raw, uuid.UUID) else uuid.UUID(str(raw))
    return base64.urlsafe_b64encode(value.bytes).decode().rstrip("=")


@dataclass(frozen=True)
class TopicDescribeResult:
    topics: tuple[TopicState, ...]  # in the Apache output order
    filters: DescribeFilters = DescribeFilters()
    live_brokers: frozenset[int] = frozenset()
    reassignments: Mapping[tuple[str, int], Reassignment] = field(default_factory=dict)

    def reassignment(self, topic: str, partition: int) -> Reassignment | None:
        return self.reassignments.get((topic, partition))

    def topic_line_shown(self, topic: TopicState) -> bool:
        if self.filters.reports:
            return False
        return not self.filters.with_overrides or bool(topic.overrides)

    def partition_shown(self, topic: TopicState, p: PartitionState) -> bool:
        f = self.filters
        if f.with_overrides:
            return False
        if not f.reports:
            return True
        has_leader = p.leader != NO_LEADER
        isr = len(p.isr)
        return (
            (
                f.under_replicated
                and p.replication_factor(self.reassignment(topic.name, p.partition)) - isr > 0
            )
            or (f.unavailable and (p.leader == NO_LEADER or p.leader not in self.live_brokers))
            or (f.under_min_isr and (not has_leader or isr < topic.min_isr()))
            or (f.at_min_isr and isr == topic.min_isr())
        )

    def shown(self) -> Iterable[tuple[TopicState, bool, list[PartitionState]]]:
        """Each topic with whether its topic line shows and the partition lines that show."""
        for topic in self.topics:
            yield (
                topic,
                self.topic_line_shown(topic),
                [p for p in topic.partitions if self.partition_shown(topic, p)],
            )


def without_elr(topic: TopicState) -> TopicState:
    """The topic as the Metadata API reports it: no ELR lists."""
    return dataclasses.replace(
        topic,
        partitions=tuple(dataclasses.replace(p, elr=None, last_known_elr=None) for p in topic.partitions),
    )


def _ids(ids: Iterable[int]) -> str:
    return ",".join(str(i) for i in ids)


def topic_line(result: TopicDescribeResult, topic: TopicState) -> str:
    first = topic.partitions[0] if topic.partitions else None
    rf = first.replication_factor(result.reassignment(topic.name, first.partition)) if first else 0
    configs = ",".join(f"{c.name}={c.value}" for c in topic.overrides)
    topic_id = "" if topic.topic_id == ZERO_UUID else f"\tTopicId: {topic.topic_id}"
    return (
        f"Topic: {topic.name}{topic_id}\tPartitionCount: {len(topic.partitions)}"
        f"\tReplicationFactor: {rf}\tConfigs: {configs}"
    )


def partition_line(result: TopicDescribeResult, topic: TopicState, p: PartitionState) -> str:
    leader = str(p.leader) if p.leader != NO_LEADER else "none"
    line = (
        f"\tTopic: {topic.name}\tPartition: {p.partition}\tLeader: {leader}"
        f"\tReplicas: {_ids(p.replicas)}\tIsr: {_ids(p.isr)}"
    )
    moving = result.reassignment(topic.name, p.partition)
    if moving is not None:
        line += f"\tAdding Replicas: {_ids(moving.adding)}\tRemoving Replicas: {_ids(moving.removing)}"
    line += f"\tElr: {'N/A' if p.elr is None else _ids(p.elr)}"
    line += f"\tLastKnownElr: {'N/A' if p.last_known_elr is None else _ids(p.last_known_elr)}"
    if p.creation_time_ms is not None:  # KIP-1327: only when the broker sends the field
        line += f"\tCreationTimeMs: {iso_utc_ms(p.creation_time_ms)}"
    return line


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
    return kafka_uuid(uuid.UUID(bytes=decoded))
