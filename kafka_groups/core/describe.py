"""``--describe``: the data of a group and the rows of each view, computed the way the pinned
Apache tool computes them (pure; the access layer gathers the inputs)."""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import groupby, repeat
from operator import itemgetter
from typing import Any, NamedTuple

TopicPartition = tuple[str, int]

MISSING = "-"
REBALANCING_STATES = frozenset({"PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling"})


class View(str, enum.Enum):
    OFFSETS = "offsets"
    MEMBERS = "members"
    STATE = "state"


@dataclass(frozen=True)
class Coordinator:
    host: str
    port: int
    node_id: int

    @property
    def label(self) -> str:
        """As the Apache tool prints it: ``host:port  (id)`` with two spaces."""
        return f"{self.host}:{self.port}  ({self.node_id})"


@dataclass(frozen=True)
class Member:
    member_id: str
    client_id: str
    host: str
    instance_id: str | None
    assignment: tuple[TopicPartition, ...]
    target_assignment: tuple[TopicPartition, ...] = ()
    member_epoch: int | None = None  # consumer protocol only
    upgraded: bool | None = None  # consumer protocol: False for a classic member in a consumer group


@dataclass(frozen=True)
class GroupDescription:
    group_id: str
    state: str
    type: str  # Classic or Consumer
    coordinator: Coordinator
    assignor: str
    members: tuple[Member, ...]
    group_epoch: int | None = None
    target_assignment_epoch: int | None = None
    # KIP-1282: None when the broker cannot tell (no ConsumerGroupDescribe v2), -1 when it says unknown.
    creation_time_ms: int | None = None


# Committed and OffsetRow are named tuples, not dataclasses: a describe of many groups makes
# one of each per partition (10,000 groups of 10 partitions: 100,000), and a frozen
# dataclass's field-by-field construction cost more than reading and printing them.
class Committed(NamedTuple):
    offset: int
    leader_epoch: int | None = None


class OffsetRow(NamedTuple):
    group: str
    topic: str
    partition: int
    leader_epoch: int | None
    current_offset: int | None
    log_end_offset: int | None
    consumer_id: str | None
    host: str | None
    client_id: str | None
    log_start_offset: int | None = None

    @property
    def lag(self) -> int | None:
        if not _is_offset(self.current_offset) or not _is_offset(self.log_end_offset):
            return None
        assert self.current_offset is not None and self.log_end_offset is not None
        return self.log_end_offset - self.current_offset

    @property
    def out_of_range(self) -> bool:
        """The committed offset lies outside [log start, log end]: a consumer resuming from it
        will fall back to its auto.offset.reset policy."""
        if self.current_offset is None:
            return False
        if self.log_end_offset is not None and self.current_offset > self.log_end_offset:
            return True
        return self.log_start_offset is not None and self.current_offset < self.log_start_offset


@dataclass(frozen=True)
class DescribedGroup:
    description: GroupDescription
    rows: tuple[OffsetRow, ...] = ()  # the offsets view only
    # The start kafka-group-tools recorded for the group (_kgt_group_start_times), read for the
    # richer state views when the broker reports no creation time.
    recorded_start_ms: int | None = None
    # The loss radar's word on rows of the offsets view, by (topic, partition), for the Rich view
    # on a terminal: "lost ..." or "at risk ..." (commands/health.risk_marks).
    risks: Mapping[tuple[str, int], str] = field(default_factory=dict)

    @property
    def group_id(self) -> str:
        return self.description.group_id


@dataclass(frozen=True)
class LagTimes:
    """``--lag-time``: the timestamp of the next record each group will read, by (group,
    topic, partition), for the partitions with lag; the lag in time is ``now_ms`` minus it."""

    now_ms: int
    timestamps: Mapping[tuple[str, str, int], int]


@dataclass(frozen=True)
class DescribeResult:
    view: View
    verbose: bool
    groups: tuple[DescribedGroup, ...]
    missing: tuple[str, ...] = ()
    lag_times: LagTimes | None = None  # only when --lag-time asked for them


def _is_offset(value: int | None) -> bool:
    """An offset, not a sentinel: -1001 (OFFSET_INVALID), -1 / -2 (latest / earliest specs) and
    every other negative value mean "unknown" and are never shown or computed with."""
    return value is not None and value >= 0


def _known(value: int | None) -> int | None:
    return value if _is_offset(value) else None


def java_sorted(group_ids: Iterable[str]) -> list[str]:
    """Sorted as Java's ``String.compareTo`` sorts (UTF-16 code units), as a TreeMap iterates.
    Ids of ASCII alone (nearly always) sort the same by code point, without encoding each."""
    unique = set(group_ids)
    if all(map(str.isascii, unique)):
        return sorted(unique)
    return sorted(unique, key=lambda g: g.encode("utf-16-be"))


def offset_rows(
    group: GroupDescription,
    committed: Mapping[TopicPartition, Committed],
    log_end: Mapping[TopicPartition, int | None],
    log_start: Mapping[TopicPartition, int | None] | None = None,
) -> tuple[OffsetRow, ...]:
    """The rows of ``--describe --offsets``.

    Members with an assignment come first, largest assignment first (ties keep the
    broker's member order); each member's partitions, then the committed partitions no
    member owns, sorted by topic and partition. A partition without a leader has no log end
    offset, hence no lag; a negative value given as an offset (a sentinel) is unknown alike.
    """
    starts = log_start or {}
    if hasattr(committed, "columns"):  # one large group's compact table (core/describe_committed.py)
        return _table_rows(group, committed, log_end, starts)
    group_id = group.group_id
    # The tuple made directly: a named tuple's own constructor costs about three times as much,
    # once per row of every group.
    new_row = tuple.__new__
    get_committed, get_end, get_start = committed.get, log_end.get, starts.get

    def rows_of(
        partitions: Iterable[TopicPartition], who: tuple[str | None, str | None, str | None]
    ) -> list[OffsetRow]:
        # One pass per member, with the lookups inlined: a describe of many groups makes a row
        # per partition of every group.
        consumer, host, client = who
        rows = []
        for tp in partitions:
            done = get_committed(tp)
            end = get_end(tp)
            if done is None:
                epoch = offset = None
            else:
                offset, epoch = done
                if offset < 0:
                    offset = None
            if end is not None and end < 0:
                end = None
            start = get_start(tp) if starts else None
            if start is not None and start < 0:
                start = None
            row = (group_id, tp[0], tp[1], epoch, offset, end, consumer, host, client, start)
            rows.append(new_row(OffsetRow, row))
        return rows

    busy = [m for m in group.members if m.assignment]
    if not busy:  # no member owns a partition (an idle group): the committed ones, sorted
        return tuple(rows_of(sorted(committed), _NO_MEMBER))
    rows: list[OffsetRow] = []
    assigned: set[TopicPartition] = set()
    for member in sorted(busy, key=lambda m: -len(set(m.assignment))):
        partitions = sorted(set(member.assignment))
        assigned.update(partitions)
        rows.extend(rows_of(partitions, (member.member_id, member.host, member.client_id)))
    rows.extend(rows_of(sorted(tp for tp in committed if tp not in assigned), _NO_MEMBER))
    return tuple(rows)


_NO_MEMBER: tuple[str | None, str | None, str | None] = (None, None, None)


def _column(
    offsets: Mapping[TopicPartition, int | None], topic: str, partitions: list[int]
) -> list[int | None]:
    """The values of ``topic``'s ``partitions`` in ``offsets`` (None where absent or below 0):
    a compact table's run at once (core/offset_table.py), else one lookup each."""
    column = getattr(offsets, "column", None)
    found: list[int | None]
    if column is not None:
        found = column(topic, partitions)
    else:
        get = offsets.get
        found = [get((topic, p)) for p in partitions]
    known = [v for v in found if v is not None]
    if known and min(known) < 0:  # a sentinel is unknown, as offset_rows has it
        found = [v if v is not None and v >= 0 else None for v in found]
    return found


def _table_rows(
    group: GroupDescription,
    committed: Any,
    log_end: Mapping[TopicPartition, int | None],
    starts: Mapping[TopicPartition, int | None],
) -> tuple[OffsetRow, ...]:
    """:func:`offset_rows` of a group whose committed offsets are a ``CommittedTable``: the same
    rows in the same order, made a run of one topic's partitions at a time from the tables'
    columns instead of a lookup per partition in each mapping (100,000 partitions: the
    lookups took longer than reading them from the cluster)."""
    group_id = group.group_id
    new_row = tuple.__new__
    rows: list[OffsetRow] = []

    def rows_of(topic: str, partitions: list[int], who: tuple[str | None, str | None, str | None]) -> None:
        consumer, host, client = who
        offsets, epochs = committed.columns(topic, partitions)
        ends = _column(log_end, topic, partitions)
        begins = _column(starts, topic, partitions) if starts else [None] * len(partitions)
        for partition, offset, epoch, end, start in zip(
            partitions, offsets, epochs, ends, begins, strict=True
        ):
            row = (group_id, topic, partition, epoch, offset, end, consumer, host, client, start)
            rows.append(new_row(OffsetRow, row))

    assigned: dict[str, set[int]] = defaultdict(set)
    busy = [m for m in group.members if m.assignment]
    for member in sorted(busy, key=lambda m: -len(set(m.assignment))):
        who = (member.member_id, member.host, member.client_id)
        for topic, run in groupby(sorted(set(member.assignment)), key=itemgetter(0)):
            partitions = [p for _, p in run]
            assigned[topic].update(partitions)
            rows_of(topic, partitions, who)
    for topic in sorted(committed.topics()):
        partitions = committed.partitions_of(topic)
        taken = assigned.get(topic)
        if taken:
            partitions = [p for p in partitions if p not in taken]
        if partitions:
            rows_of(topic, partitions, _NO_MEMBER)
    return tuple(rows)


def partitions_to_look_up(
    groups: Iterable[GroupDescription], committed: Mapping[str, Mapping[TopicPartition, Committed]]
) -> set[TopicPartition]:
    """Every partition an offsets view needs log offsets for: assigned or committed."""
    needed: set[TopicPartition] = set()
    for group in groups:
        for member in group.members:
            needed.update(member.assignment)
        held: Any = committed.get(group.group_id, {})
        if hasattr(held, "partitions_of"):  # a compact table: its keys made a topic at a time, in C
            for topic in held.topics():
                needed.update(zip(repeat(topic), held.partitions_of(topic)))
        else:
            needed.update(held)
    return needed


def assignment_string(assignment: Iterable[TopicPartition]) -> str:
    """``topic:0,1;other:2``: topics sorted, partitions sorted as numbers; ``-`` when empty."""
    by_topic: dict[str, set[int]] = defaultdict(set)
    for topic, partition in assignment:
        by_topic[topic].add(partition)
    if not by_topic:
        return MISSING
    return ";".join(sorted(f"{t}:{','.join(str(p) for p in sorted(ps))}" for t, ps in by_topic.items()))


def state_notice(group_id: str, state: str) -> str | None:
    """What the Apache tool prints on stderr before a group's table, if anything."""
    if state == "Empty":
        return f"Consumer group '{group_id}' has no active members."
    if state in REBALANCING_STATES:
        return f"Warning: Consumer group '{group_id}' is rebalancing."
    return None
