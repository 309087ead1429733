"""Streams groups (KIP-1071): what StreamsGroupDescribe says about a group, and the rows of
``kafka-streams-groups --describe``, computed the way the pinned Apache tool computes them
(pure; the access layer gathers the inputs)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kafka_groups.core.describe import Committed, Coordinator, TopicPartition
from kafka_groups.core.javaorder import hashmap_order, topic_partition_hash


@dataclass(frozen=True)
class Subtopology:
    subtopology_id: str
    source_topics: tuple[str, ...]
    repartition_sink_topics: tuple[str, ...] = ()
    changelog_topics: tuple[str, ...] = ()
    repartition_source_topics: tuple[str, ...] = ()


@dataclass(frozen=True)
class Tasks:
    """One kind of task of an assignment: (subtopology id, partitions) in the broker's order."""

    entries: tuple[tuple[str, tuple[int, ...]], ...] = ()


@dataclass(frozen=True)
class Assignment:
    active: Tasks = Tasks()
    standby: Tasks = Tasks()
    warmup: Tasks = Tasks()


@dataclass(frozen=True)
class StreamsMember:
    member_id: str
    member_epoch: int
    client_id: str
    client_host: str
    process_id: str
    topology_epoch: int
    assignment: Assignment
    target_assignment: Assignment
    is_classic: bool = False
    instance_id: str | None = None


@dataclass(frozen=True)
class StreamsGroup:
    group_id: str
    state: str
    group_epoch: int
    target_assignment_epoch: int
    topology_epoch: int
    subtopologies: tuple[Subtopology, ...]
    members: tuple[StreamsMember, ...]
    coordinator: Coordinator
    # KIP-1282: None when the broker's answer has no creation time at all (no released
    # StreamsGroupDescribe carries one); -1 when the broker says it does not know.
    creation_time_ms: int | None = None

    @property
    def coordinator_label(self) -> str:
        """As the streams tool prints it: ``host:port (id)``."""
        c = self.coordinator
        return f"{c.host}:{c.port} ({c.node_id})"

    def source_topics(self) -> set[str]:
        """The topics the application reads from outside (``--all-input-topics``)."""
        return {t for s in self.subtopologies for t in s.source_topics}

    def offset_topics(self) -> set[str]:
        """Topics whose committed offsets ``--describe`` shows: source and repartition-source."""
        return self.source_topics() | {t for s in self.subtopologies for t in s.repartition_source_topics}


@dataclass(frozen=True)
class StreamsOffsetRow:
    topic: str
    partition: int
    current_offset: int | None
    leader_epoch: int | None
    log_end_offset: int | None
    lag: int | None
    log_start_offset: int | None = None


class UnknownSubtopology(ValueError):
    pass


def active_partitions(group: StreamsGroup) -> list[TopicPartition]:
    """The partitions the members' active tasks read: every source and repartition-source
    topic of the task's subtopology, at the task's partitions. In member order, then task
    order: the order the Apache tool first collects them in, which decides the order of
    partitions that share a bucket of its HashMap."""
    topics = {s.subtopology_id: [*s.source_topics, *s.repartition_source_topics] for s in group.subtopologies}
    found: dict[TopicPartition, None] = {}
    for member in group.members:
        for subtopology, partitions in member.assignment.active.entries:
            if subtopology not in topics:
                raise UnknownSubtopology(f"Subtopology {subtopology} not found in group description!")
            found.update(dict.fromkeys((t, p) for t in topics[subtopology] for p in partitions))
    return list(found)


def offset_rows(
    group: StreamsGroup,
    committed: Mapping[TopicPartition, Committed],
    ends: Mapping[TopicPartition, int | None],
    starts: Mapping[TopicPartition, int | None],
) -> list[StreamsOffsetRow]:
    """The ``--describe --offsets`` rows, in the Apache tool's order (a HashMap keyed by
    partition). Lag is log end minus the committed offset, or minus the log start offset
    when nothing is committed. Only committed offsets on the group's offset topics count."""
    topics = group.offset_topics()
    partitions = hashmap_order(active_partitions(group), lambda tp: topic_partition_hash(*tp))
    rows = []
    for tp in partitions:
        held = committed.get(tp) if tp[0] in topics else None
        end, start = ends.get(tp), starts.get(tp)
        base = held.offset if held is not None else start
        rows.append(
            StreamsOffsetRow(
                topic=tp[0],
                partition=tp[1],
                current_offset=held.offset if held is not None else None,
                leader_epoch=held.leader_epoch if held is not None else None,
                log_end_offset=end,
                lag=end - base if end is not None and base is not None else None,
                log_start_offset=start,
            )
        )
    return rows


def shows_rows(group: StreamsGroup) -> bool:
    """The offsets and members views print a group only when it is alive and has members."""
    return group.state != "Dead" and len(group.members) > 0


def state_notice(group: StreamsGroup) -> str | None:
    if group.state == "Dead":
        return f"Streams group '{group.group_id}' does not exist."
    if group.state == "Empty":
        return f"Streams group '{group.group_id}' has no active members."
    return None


def _tasks_text(tasks: Tasks, label: str) -> str:
    if not tasks.entries:
        return ""
    return f"{label}: " + "".join(f"{s}:[{','.join(map(str, ps))}]; " for s, ps in tasks.entries)


def assignment_text(current: Assignment, target: Assignment | None = None) -> str:
    """``ACTIVE: 0:[0,1]; STANDBY: ...; WARMUP: ...;`` and, for ``--verbose``, the target's."""
    text = (
        _tasks_text(current.active, "ACTIVE")
        + _tasks_text(current.standby, "STANDBY")
        + _tasks_text(current.warmup, "WARMUP")
    )
    if target is not None:
        text += (
            _tasks_text(target.active, "TARGET-ACTIVE")
            + _tasks_text(target.standby, "TARGET-STANDBY")
            + _tasks_text(target.warmup, "TARGET-WARMUP")
        )
    return text


# -- internal topics ----------------------------------------------------------------------
_FK_JOIN = re.compile(r".+-KTABLE-FK-JOIN-SUBSCRIPTION-(REGISTRATION|RESPONSE)-\d+-topic")
_INTERNAL_SUFFIXES = (
    "-changelog",
    "-repartition",
    "-subscription-registration-topic",
    "-subscription-response-topic",
)


def is_internal_topic(topic: str, application_id: str) -> bool:
    """Kafka Streams' naming of the topics it creates for an application."""
    return topic.startswith(application_id + "-") and (
        topic.endswith(_INTERNAL_SUFFIXES) or _FK_JOIN.fullmatch(topic) is not None
    )


@dataclass(frozen=True)
class InternalTopics:
    deletable: tuple[str, ...]  # repartition and changelog topics named as the group's own
    not_inferred: tuple[str, ...]  # internal to the topology, but not named after the group


def internal_topics(group: StreamsGroup) -> InternalTopics:
    """The group's repartition and changelog topics that are not also source topics."""
    sources = group.source_topics()
    candidates: list[str] = []
    for s in group.subtopologies:
        candidates += [t for t in (*s.repartition_source_topics, *s.changelog_topics) if t not in sources]
    unique = list(dict.fromkeys(candidates))
    return InternalTopics(
        tuple(t for t in unique if is_internal_topic(t, group.group_id)),
        tuple(t for t in unique if not is_internal_topic(t, group.group_id)),
    )


def input_partitions(group: StreamsGroup, committed: Iterable[TopicPartition]) -> list[TopicPartition]:
    """``--all-input-topics``: the committed partitions of the group's source topics."""
    sources = group.source_topics()
    return [tp for tp in committed if tp[0] in sources]


@dataclass(frozen=True)
class DescribedStreamsGroup:
    group: StreamsGroup
    rows: tuple[StreamsOffsetRow, ...] = ()  # the offsets view only


@dataclass(frozen=True)
class StreamsDescribeResult:
    view: str  # "offsets", "members" or "state"
    verbose: bool
    groups: tuple[DescribedStreamsGroup, ...]
    missing: tuple[str, ...] = ()
