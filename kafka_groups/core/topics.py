"""Topics as the tools see them, shared by ``kafka-topics`` and the groups tools: the
``--describe`` result with the Apache line layouts, and the results of ``--create``, ``--alter``
and ``--delete``. The states they are made of, and ``--list``'s result, are topic_states.py's.
Pure data and text; the commands gather the states, the renderers print the results."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.times import iso_utc_ms
from kafka_groups.core.topic_states import NO_LEADER, ZERO_UUID, PartitionState, Reassignment, TopicState
from kafka_groups.settings import ConnectionArgs

EMPTY_STATES = frozenset({"Empty"})  # groups whose offsets a reset may change


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
    return ",".join(map(str, ids))


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


@dataclass(frozen=True)
class CreateResult:
    topic: str
    created: bool  # False: it existed and --if-not-exists said that is fine


@dataclass(frozen=True)
class DeleteResult:
    topics: tuple[str, ...]


@dataclass(frozen=True)
class ExpansionGroup:
    """A group with committed offsets on a topic whose partitions grow."""

    group: str
    state: str
    topics: tuple[str, ...]
    new_from_start: bool = False  # its recorded policy starts new partitions at their beginning
    recorded_policy: str | None = None  # that policy, when the policy library recorded it

    @property
    def resettable(self) -> bool:
        return self.state in EMPTY_STATES and not self.new_from_start


def expansion_groups(
    offsets: Mapping[str, tuple[str, Iterable[TopicPartition]]],
    changes: Mapping[str, tuple[int, int]],
    new_from_start: frozenset[str] = frozenset(),
    recorded_policies: Mapping[str, str] | None = None,
) -> list[ExpansionGroup]:
    """The groups (id -> state and committed partitions) with offsets on the topics that grow;
    ``new_from_start``: the groups whose commits (kafka-to-parquet's) record a policy that lands
    new partitions from their start; ``recorded_policies``: group -> such a policy, as the
    policy library recorded it (PolicyConsumer)."""
    policies = recorded_policies or {}
    found = []
    for group in sorted(offsets):
        state, partitions = offsets[group]
        topics = sorted({t for t, _ in partitions if t in changes and changes[t][1] > changes[t][0]})
        if topics:
            safe = group in new_from_start or group in policies
            recorded = None if group in new_from_start else policies.get(group)
            found.append(ExpansionGroup(group, state, tuple(topics), safe, recorded))
    return found


@dataclass(frozen=True)
class AlterResult:
    changes: tuple[tuple[str, int, int], ...]  # (topic, partitions before, partitions after)
    groups: tuple[ExpansionGroup, ...]
    dry_run: bool = False

    def new_partitions(self, topic: str) -> list[int]:
        for name, before, after in self.changes:
            if name == topic:
                return list(range(before, after))
        return []

    def reset_command(self, connection: ConnectionArgs) -> str | None:
        """The command that starts the empty groups at the beginning of the new partitions."""
        empty = [g for g in self.groups if g.resettable]
        if not empty:
            return None
        flags = ""
        if connection.bootstrap_server:
            flags += f" --bootstrap-server {connection.bootstrap_server}"
        if connection.command_config:
            flags += f" --command-config {connection.command_config}"
        groups = " ".join(f"--group {g.group}" for g in empty)
        topics = sorted({t for g in empty for t in g.topics})
        scope = " ".join(
            f"--topic {t}:{','.join(str(p) for p in self.new_partitions(t))}"
            for t in topics
            if self.new_partitions(t)
        )
        return f"kafka-consumer-groups{flags} {groups} --reset-offsets {scope} --to-earliest --execute"

    def guard_lines(self, connection: ConnectionArgs) -> list[str]:
        """The partition-expansion guard, for stderr."""
        if not self.groups:
            return []
        verb = "would get" if self.dry_run else "got"
        grown = ", ".join(f"{t} {verb} partitions {b}-{a - 1}" for t, b, a in self.changes if a > b)
        at_risk = [g for g in self.groups if not g.new_from_start]
        lines = []
        if at_risk:
            lines.append(
                f"Warning: {grown}. "
                "These consumer groups have committed offsets on it: "
                + ", ".join(f"{g.group} ({g.state})" for g in at_risk)
                + ". Consumers using auto.offset.reset=latest skip every record written to a new partition "
                "before they discover it."
            )
        safe = [g.group for g in self.groups if g.new_from_start and g.recorded_policy is None]
        for g in self.groups:
            if g.recorded_policy is not None:
                lines.append(
                    f"No reset needed for {g.group}: its kafka-group-tools consumer last started with the "
                    f"policy {g.recorded_policy}, which starts new partitions at their beginning."
                )
        if safe:
            lines.append(
                f"No reset needed for {', '.join(safe)}: kafka-to-parquet recorded a policy that lands new "
                "partitions from their beginning."
            )
        command = self.reset_command(connection)
        if command:
            lines.append(f"To read the new partitions from their start, run: {command}")
        busy = [g.group for g in at_risk if not g.resettable]
        if busy:
            lines.append(
                f"Groups with active members ({', '.join(busy)}) cannot be reset now; stop them first, "
                "or give their consumers a policy that starts new partitions at the beginning."
            )
        return lines
