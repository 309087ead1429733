"""One reset, planned: :func:`plan_reset` turns what was asked (:class:`ResetRequest`) and what
the cluster said (:class:`Snapshot`) into a :class:`Plan`, without contacting anything.

Consumer groups and streams groups share it. The command gathers the snapshot (asking the
helpers below what it needs to read next), plans, prints the plan and, with ``--execute``,
commits exactly that plan: a dry run and an execution show the same :class:`Plan` value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.plan_file import few
from kafka_groups.core.reset import (
    ALLOWED_STATES,
    BY_TIME,
    COMPACT_ABOVE,
    GroupPlan,
    PartitionOffsets,
    ResetSpec,
    Scenario,
    order_groups,
    plan_group,
    start_timestamp,
)
from kafka_groups.core.reset_args import parse_topic_arg
from kafka_groups.errors import CliError, ClusterError, PartialFailure, UsageError

if TYPE_CHECKING:  # a streams reset's topology: core.streams loads only for one
    from kafka_groups.core.streams import StreamsGroup

Offsets = Mapping[TopicPartition, int]


@dataclass(frozen=True)
class ResetRequest:
    """What the user asked for, as far as planning goes (validated, nothing to parse)."""

    spec: ResetSpec
    topics: tuple[str, ...] = ()  # --topic / --input-topic: ``topic`` or ``topic:0,1``
    all_topics: bool = False
    streams: bool = False  # kafka-streams-groups
    execute: bool = False  # --execute (internal topics are chosen only then)
    delete_internal_topics: tuple[str, ...] = ()
    delete_all_internal_topics: bool = False
    skip_active: bool = False  # --skip-active: active groups are skipped, not a failure


@dataclass(frozen=True)
class GroupFacts:
    """What a reset needs to know about a group before planning."""

    state: str
    creation_time_ms: int | None = None  # KIP-1282
    streams_group: StreamsGroup | None = None  # kafka-streams-groups: its topology
    # --to-start-time: the broker's creation time, or else the start our helpers recorded.
    start_ms: int | None = None


@dataclass(frozen=True)
class Snapshot:
    """What the cluster said, read before planning. A group missing from ``facts`` is Dead."""

    ids: tuple[str, ...]  # the groups to reset, as asked (or listed, with --all-groups)
    facts: Mapping[str, GroupFacts] = field(default_factory=dict)
    committed: Mapping[str, Offsets] = field(default_factory=dict)
    partitions: Mapping[str, Mapping[int, int]] = field(default_factory=dict)  # topic -> partition -> leader
    starts: Offsets = field(default_factory=dict)
    ends: Offsets = field(default_factory=dict)
    by_time: Mapping[int, Mapping[TopicPartition, int | None]] = field(default_factory=dict)  # per stamp
    source: Offsets = field(default_factory=dict)  # --to-group: the source group's committed offsets
    notices: tuple[str, ...] = ()  # what the reading found worth saying (where the starts came from)


@dataclass(frozen=True)
class Plan:
    """The new offsets of every group being reset, and why the others are not."""

    groups: tuple[GroupPlan, ...]  # planned groups, in the Apache order
    refused: tuple[tuple[str, str], ...] = ()  # (group, state) of active groups
    current: Mapping[str, Offsets] = field(default_factory=dict)  # committed before the reset
    starts: Offsets = field(default_factory=dict)
    ends: Offsets = field(default_factory=dict)
    outside: tuple[str, ...] = ()  # streams: groups whose named --input-topic is not theirs
    messages: tuple[str, ...] = ()  # streams: the Apache "Error: ..." lines, in order
    internal_topics: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # deleted after each
    skipped: tuple[tuple[str, str], ...] = ()  # --skip-active: (group, state) of the active groups
    source: str | None = None  # --to-group: the group copied from
    # --execute: the groups being reset that do not exist yet (the reset creates them).
    absent: tuple[str, ...] = ()

    @property
    def targets(self) -> dict[str, Offsets]:
        """The offsets to commit, per group with any (the plan's own, not copies: a plan of
        100,000 partitions is held once)."""
        return {p.group: p.offsets for p in self.groups if p.offsets}


# -- the steps, each pure; the gathering calls them to know what to read next -------------
def split_refused(snapshot: Snapshot) -> tuple[tuple[tuple[str, str], ...], list[str]]:
    """The active groups (refused, with their state) and the groups that may be reset."""
    facts = snapshot.facts
    refused = tuple(
        (g, facts[g].state) for g in snapshot.ids if g in facts and facts[g].state not in ALLOWED_STATES
    )
    names = dict(refused)
    return refused, [g for g in snapshot.ids if g not in names]


def check_file_groups(spec: ResetSpec, ids: tuple[str, ...]) -> None:
    if spec.plan is not None:
        unknown = sorted(set(spec.plan) - set(ids))
        if unknown:
            raise UsageError(f"--from-file names group '{unknown[0]}', which is not being reset")


def check_source(spec: ResetSpec, ids: tuple[str, ...], source: Offsets | None) -> None:
    """``--to-group``: the source may not be a group being reset, and must have committed
    offsets (``source`` None: not read yet). Refused with one line, nothing written."""
    if spec.scenario is not Scenario.TO_GROUP:
        return
    if spec.source in ids:
        raise UsageError(
            f"--to-group '{spec.source}' is also a group being reset: copy from another group "
            "(or leave it out with --exclude-group)"
        )
    if source is not None and not source:
        raise UsageError(
            f"--to-group '{spec.source}' has no committed offsets (no such group, or it never "
            "committed): there is nothing to copy"
        )


def whole_topics(request: ResetRequest) -> list[str]:
    """The ``--topic`` values without partitions: every partition of each is in scope."""
    if request.spec.scenario is Scenario.FROM_FILE or request.all_topics:
        return []
    return [t for t, partitions in map(parse_topic_arg, request.topics) if partitions is None]


def scopes(request: ResetRequest, snapshot: Snapshot, groups: list[str]) -> dict[str, list[TopicPartition]]:
    """The partitions each group's reset touches, in scope order."""
    if request.spec.scenario is Scenario.FROM_FILE:
        plan = request.spec.plan or {}
        return {g: list(plan.get(g, {})) for g in groups}
    committed = snapshot.committed
    # --to-group: every partition either group committed (a new group can be seeded, and
    # the target's partitions the source lacks are named).
    copied = list(snapshot.source) if request.spec.scenario is Scenario.TO_GROUP else []
    if request.all_topics and request.streams:  # the committed partitions of the source topics
        return {
            g: _source_partitions(snapshot.facts[g], dict.fromkeys([*committed.get(g, {}), *copied]))
            for g in groups
        }
    if request.all_topics:
        return {g: list(dict.fromkeys([*committed.get(g, {}), *copied])) for g in groups}
    explicit: list[TopicPartition] = []
    for arg in request.topics:
        topic, partitions = parse_topic_arg(arg)
        if partitions is not None:
            explicit.extend((topic, p) for p in partitions)
    whole = whole_topics(request)
    absent = [t for t in whole if t not in snapshot.partitions]
    if absent:
        raise CliError(f"Topic '{absent[0]}' does not exist")
    explicit.extend((t, p) for t in whole for p in sorted(snapshot.partitions[t]))
    return {g: list(explicit) for g in groups}


def _source_partitions(facts: GroupFacts, committed: Mapping[TopicPartition, object]) -> list[TopicPartition]:
    from kafka_groups.core.streams import input_partitions  # a streams reset's only

    assert facts.streams_group is not None
    return input_partitions(facts.streams_group, dict(committed))


def check_partitions(partitions: set[TopicPartition], known: Mapping[str, Mapping[int, int]]) -> None:
    """Every partition exists and has a leader, or the reset is refused."""
    from kafka_groups.core.offset_table import LeaderTable

    by_topic: dict[str, list[int]] = {}
    for topic, partition in partitions:
        by_topic.setdefault(topic, []).append(partition)
    absent: list[TopicPartition] = []
    leaderless: list[TopicPartition] = []
    for topic, numbers in by_topic.items():
        table = known.get(topic, {})
        if isinstance(table, LeaderTable):  # a topic's leaders in one array: looked up in one pass
            missing, without = table.absent_and_leaderless(numbers)
        else:
            missing = [p for p in numbers if p not in table]
            without = [p for p in numbers if p in table and table[p] < 0]
        absent += [(topic, p) for p in missing]
        leaderless += [(topic, p) for p in without]
    absent.sort()
    leaderless.sort()
    if absent:
        raise CliError(f'The partitions "{few([f"{t}-{p}" for t, p in absent])}" do not exist')
    if leaderless:
        names = ",".join(f"{t}-{p}" for t, p in leaderless)
        raise ClusterError(f'The partitions "{names}" have no leader')


def leave_outside(
    request: ResetRequest, snapshot: Snapshot, groups: list[str], scope: dict[str, list[TopicPartition]]
) -> tuple[list[str], list[str]]:
    """Streams with ``--input-topic``: a group some of whose named topics are not its own is
    not reset (its scope emptied here). Returns those groups and the Apache messages."""
    outside: list[str] = []
    messages: list[str] = []
    if request.streams and request.topics:
        for group in groups:
            if any(tp not in snapshot.committed.get(group, {}) for tp in scope[group]):
                messages.append(f"One or more topics are not part of the group '{group}'.")
                scope[group] = []
                outside.append(group)
    return outside, messages


def stamps(request: ResetRequest, snapshot: Snapshot, groups: list[str]) -> dict[str, int]:
    """Per group, the instant its offsets are looked up at (the timestamp scenarios)."""
    spec = request.spec
    if spec.scenario not in BY_TIME:
        return {}
    if spec.scenario is Scenario.TO_START_TIME:
        facts = snapshot.facts
        return {g: start_timestamp(g, facts[g].start_ms if g in facts else None) for g in groups}
    assert spec.timestamp_ms is not None
    return dict.fromkeys(groups, spec.timestamp_ms)


def chosen_internal_topics(
    request: ResetRequest, snapshot: Snapshot, groups: list[str]
) -> dict[str, tuple[str, ...]]:
    """Per streams group, the internal topics ``--execute`` deletes after its reset: all of
    the group's own (``--delete-all-internal-topics``) or the named ones it owns. A named
    topic no group being reset owns is refused before anything changes (the Apache tool
    deletes whatever topic it is given)."""
    if not request.execute or not (request.delete_all_internal_topics or request.delete_internal_topics):
        return {}
    from kafka_groups.core.streams import internal_topics  # a streams reset's only

    facts = snapshot.facts
    own = {g: internal_topics(d).deletable for g in groups if (d := facts[g].streams_group) is not None}
    if request.delete_all_internal_topics:
        return {g: topics for g, topics in own.items() if topics}
    named = list(dict.fromkeys(request.delete_internal_topics))
    strangers = [t for t in named if not any(t in topics for topics in own.values())]
    if strangers:
        names = ", ".join(f"'{g}'" for g in groups)
        raise CliError(
            f"--delete-internal-topic {strangers[0]} is not an internal topic of the streams group "
            f"{names}; nothing was reset or deleted"
        )
    chosen = {g: tuple(t for t in named if t in topics) for g, topics in own.items()}
    return {g: topics for g, topics in chosen.items() if topics}


# -- the planner ------------------------------------------------------------------------
def plan_reset(request: ResetRequest, snapshot: Snapshot) -> Plan:
    """The plan of one reset, from the request and the snapshot alone."""
    refused, allowed = split_refused(snapshot)
    skipped: tuple[tuple[str, str], ...] = ()
    if request.skip_active:
        refused, skipped = (), refused
    check_file_groups(request.spec, snapshot.ids)
    check_source(request.spec, snapshot.ids, snapshot.source)
    scope = scopes(request, snapshot, allowed)
    every = {tp for s in scope.values() for tp in s}
    if every:
        check_partitions(every, snapshot.partitions)
    internal = chosen_internal_topics(request, snapshot, allowed)
    messages = [
        f"Assignments can only be reset if the group '{g}' is inactive, but the current state is {s}."
        for g, s in (refused if request.streams else ())
    ]
    outside, more = leave_outside(request, snapshot, allowed, scope)
    instants = stamps(request, snapshot, allowed)
    compact = len(every) > COMPACT_ABOVE  # a large plan, however many groups share it
    plans = []
    for group in allowed:
        spec = request.spec
        by_time: Mapping[TopicPartition, int | None] = {}
        if group in instants:
            spec = ResetSpec(spec.scenario, timestamp_ms=instants[group])
            by_time = snapshot.by_time.get(instants[group], {})
        committed = snapshot.committed.get(group, {})
        data = PartitionOffsets(committed, snapshot.starts, snapshot.ends, by_time, snapshot.source)
        plans.append(plan_group(group, spec, scope[group], data, compact))
    return Plan(
        groups=tuple(order_groups(plans)),
        refused=refused,
        current={g: snapshot.committed.get(g, {}) for g in allowed},
        starts=snapshot.starts,
        ends=snapshot.ends,
        outside=tuple(outside),
        messages=tuple(messages + more),
        internal_topics=internal,
        skipped=skipped,
        source=request.spec.source,
        absent=tuple(g for g in allowed if _absent(snapshot, g)),
    )


def _absent(snapshot: Snapshot, group: str) -> bool:
    """The group does not exist (it is described as Dead, or not at all) and holds no offset."""
    facts = snapshot.facts.get(group)
    return (facts is None or facts.state == "Dead") and not snapshot.committed.get(group)


def skipped_line(skipped: Sequence[tuple[str, str]]) -> str | None:
    """``--skip-active``: the one summary line naming the active groups not reset, grouped
    by state (``Skipped 3 active groups: a, b (Stable); c (PreparingRebalance)``)."""
    if not skipped:
        return None
    by_state: dict[str, list[str]] = {}
    for group, state in skipped:
        by_state.setdefault(state, []).append(group)
    noun = "group" if len(skipped) == 1 else "groups"
    parts = "; ".join(f"{', '.join(groups)} ({state})" for state, groups in by_state.items())
    return f"Skipped {len(skipped)} active {noun}: {parts}"


def uncopied_line(plan: Plan) -> str | None:
    """``--to-group``: the one notice naming the partitions in scope the source has not
    committed (left out of the plan)."""
    missing = sorted({tp for p in plan.groups for tp in p.uncopied})
    if not missing:
        return None
    names = few([f"{t}-{p}" for t, p in missing])
    return (
        f"Notice: --to-group '{plan.source}' has no committed offset for {len(missing)} partition(s) "
        f"in scope; left out: {names}"
    )


@dataclass(frozen=True)
class ResetResult:
    """What a reset command returns: its plan, how to show it and, after ``--execute``, what
    happened. ``error`` is the failure the command ends with (its exit status), if any."""

    plan: Plan
    export: bool = False
    single_group: bool = False
    streams: bool = False  # kafka-streams-groups: its layout, and its errors on stdout
    executed: bool = False
    backup: str | None = None
    failed: tuple[tuple[str, str], ...] = ()  # (group, what did not take)
    messages: tuple[str, ...] = ()  # streams: the Apache "Error: ..." lines, in order
    notes: tuple[str, ...] = ()  # after the commit: what the read-back said (stderr)
    error: CliError | None = field(default=None, compare=False)

    @property
    def exit_code(self) -> int:
        return 0 if self.error is None else int(self.error.exit_code)


def reset_failure(result: ResetResult) -> CliError | None:
    """The failure a reset ends with when some groups were refused, not reset or not
    committed (exit 3 when others were reset, 1 when none was)."""
    plan = result.plan
    if not result.failed and not plan.refused and not plan.outside:
        return None
    if result.failed:
        message = "some offsets did not take: " + "; ".join(f"group '{g}': {w}" for g, w in result.failed)
    elif plan.refused:
        message = "active groups were not reset: " + ", ".join(f"'{g}' ({s})" for g, s in plan.refused)
    else:  # a script asked for topics the group does not read: nothing was reset for it
        names = ", ".join(f"'{g}'" for g in plan.outside)
        message = f"not reset: the --input-topic topics are not all part of the group {names}"
    done = [p for p in plan.groups if p.offsets and p.group not in dict(result.failed)]
    return PartialFailure(message) if done else CliError(message)
