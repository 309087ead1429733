"""``--reset-offsets``, step one: read from the cluster what the planner needs (a
:class:`~kafka_groups.core.reset_plan.Snapshot`), and no more than it needs: the pure steps of
:mod:`kafka_groups.core.reset_plan` say which partitions come next. Refusals that make further
reads pointless (a group that is not a streams group, a partition that does not exist) are
raised here, before offsets are listed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from kafka_groups.commands.reset_lanes import Ahead, chain, lanes_for
from kafka_groups.commands.select import consumer_group_ids, streams_group_ids
from kafka_groups.core.group_select import GroupSelection
from kafka_groups.core.reset import Scenario
from kafka_groups.core.reset_plan import (
    GroupFacts,
    ResetRequest,
    Snapshot,
    check_file_groups,
    check_partitions,
    check_source,
    chosen_internal_topics,
    leave_outside,
    scopes,
    split_refused,
    stamps,
    whole_topics,
)
from kafka_groups.errors import CliError, NotFoundError

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.core.describe import TopicPartition
    from kafka_groups.core.offset_table import LeaderTable, OffsetTable

# Above this many partitions a reset reads leaders and log offsets through the protocol layer,
# into compact tables (where the protocol layer is in use anyway).
BULK_READS_ABOVE = 2000
# Scenarios that read the committed offsets.
NEEDS_COMMITTED = frozenset({Scenario.SHIFT_BY, Scenario.TO_CURRENT, Scenario.TO_NEAREST})
# Scenarios that read log start offsets (to plan or to clamp).
NEEDS_START = frozenset(
    {
        Scenario.TO_EARLIEST,
        Scenario.TO_OFFSET,
        Scenario.SHIFT_BY,
        Scenario.FROM_FILE,
        Scenario.TO_NEAREST,
        Scenario.TO_GROUP,
    }
)


def gather_groups(
    access: KafkaAccess,
    request: ResetRequest,
    selection: GroupSelection,
    offsets_next: bool = False,
    ahead: ReadsAhead | None = None,
) -> Snapshot:
    """The groups to reset and what the planner needs to know about each. ``offsets_next``: the
    committed offsets are read next (the protocol layer starts while the groups are described).
    ``ahead``: the committed offsets of a few groups are read on a lane of their own while the
    groups are described (:class:`ReadsAhead`)."""
    detailed = request.spec.scenario is Scenario.TO_START_TIME
    if request.streams:
        ids = list(dict.fromkeys(streams_group_ids(access, selection)))
        described, missing = access.describe_streams_groups(ids)
        if missing:
            # Committing offsets for a group no broker knows as a streams group would
            # make a group of another kind: refused before anything is written.
            raise NotFoundError("; ".join(missing[g] for g in ids if g in missing))
        facts = {g: GroupFacts(d.state, d.creation_time_ms, d) for g, d in described.items()}
        supported = all(d.creation_time_ms is not None for d in described.values())
        return _with_starts(access, request, Snapshot(tuple(ids), facts), supported)
    ids = list(dict.fromkeys(consumer_group_ids(access, selection)))
    if ahead is not None:
        ahead.read_committed(ids)
    # KIP-1282: the broker's creation times where it has them (else the recorded starts).
    supported = detailed and access.supports_group_creation_time()
    # With reads ahead, those already start the protocol layer.
    offsets_next = offsets_next and ahead is None
    found, _missing = access.describe_groups(ids, detailed=supported, offsets_next=offsets_next)
    # A group that does not exist is Dead, which may be reset (it is created).
    facts = {g: GroupFacts(d.state, d.creation_time_ms) for g, d in found.items()}
    return _with_starts(access, request, Snapshot(tuple(ids), facts), supported)


def _with_starts(access: KafkaAccess, request: ResetRequest, snapshot: Snapshot, supported: bool) -> Snapshot:
    """--to-start-time: each group's start, the broker's creation time or else the start our
    consumer helper or pipeline recorded; one notice of the snapshot names the source. ``supported``:
    the broker can report creation times (which decides the KIP's refusal text)."""
    if request.spec.scenario is not Scenario.TO_START_TIME:
        return snapshot
    from kafka_groups.access.policy_io import group_starts
    from kafka_groups.core.start_time import source_notice, start_time_refusal

    facts = snapshot.facts
    broker = {g: facts[g].creation_time_ms if g in facts else None for g in snapshot.ids}
    starts = group_starts(access.settings, list(snapshot.ids), broker)
    lacking = [g for g in snapshot.ids if g not in starts]
    if lacking:
        raise start_time_refusal(lacking[0], supported)
    notices = (source_notice(starts),) if starts else ()
    dead = GroupFacts("Dead")
    started = {g: replace(facts.get(g, dead), start_ms=s.time_ms) for g, s in starts.items()}
    return replace(snapshot, facts={**facts, **started}, notices=snapshot.notices + notices)


def gather(
    access: KafkaAccess,
    request: ResetRequest,
    selection: GroupSelection,
    detail: bool,
    export: bool = False,
) -> Snapshot:
    """Everything :func:`~kafka_groups.core.reset_plan.plan_reset` reads. ``detail``: the
    output shows current offsets and log bounds (a richer format than the Apache text);
    ``export``: the plan is printed as CSV (--export).

    Where the protocol layer reads them (a consumer group's reset of whole topics, the
    committed offsets wanted), the topics' leaders, then their log offsets, and the groups'
    committed offsets are read on lanes of their own while the groups are described
    (:class:`ReadsAhead`); each is taken where the steps below need it, so the refusals and their
    order are those of the steps one after another."""
    spec = request.spec
    to_group = spec.scenario is Scenario.TO_GROUP
    # Committed offsets serve the all-topics scope, shift/current/nearest, --to-group, backups
    # and the richer outputs; a plain dry run of the other scenarios does without them.
    wanted = request.all_topics or request.execute or detail or spec.scenario in NEEDS_COMMITTED
    wanted = wanted or (request.streams and bool(request.topics))  # the topics must be the group's
    # A topic named whole may have any number of partitions: where the protocol layer is in use
    # anyway (or --export asks for a plan to keep), it reads them compactly; a plain dry run
    # keeps to the AdminClient, which answers a small topic sooner.
    lean = wanted or to_group or export
    whole = whole_topics(request)
    # Only the offsets the scenario (or a richer output) needs: thousands of partitions
    # make every ListOffsets round count.
    earliest = detail or spec.scenario in NEEDS_START
    latest = detail or spec.scenario is not Scenario.TO_EARLIEST
    ahead = ReadsAhead.begin(access, request, whole, lean, wanted and not to_group, (earliest, latest))
    snapshot = gather_groups(access, request, selection, offsets_next=wanted or to_group, ahead=ahead)
    _refused, allowed = split_refused(snapshot)
    check_file_groups(spec, snapshot.ids)
    check_source(spec, snapshot.ids, None)
    if request.all_topics or to_group:  # the scope is the committed offsets: size unknown until read
        # --to-group: the source's offsets come with the same read as the targets'.
        source = [spec.source] if to_group and spec.source is not None else []
        fetched = access.committed_positions([*allowed, *source])
        copied = fetched.get(source[0], {}) if source else {}
        snapshot = replace(snapshot, committed={g: fetched.get(g, {}) for g in allowed}, source=copied)
        check_source(spec, snapshot.ids, snapshot.source)
    if whole:
        if ahead is not None and ahead.leaders is not None:
            snapshot = replace(snapshot, partitions=ahead.take_leaders())
        else:
            read = access.partition_leaders if lean else access.topic_partitions
            snapshot = replace(snapshot, partitions=read(set(whole)))
    scope = scopes(request, snapshot, allowed)
    every = {tp for s in scope.values() for tp in s}
    if wanted and not (request.all_topics or to_group):
        if ahead is not None and ahead.has_committed(allowed):
            snapshot = replace(snapshot, committed=ahead.take_committed(allowed))
        else:
            snapshot = replace(snapshot, committed=access.committed_positions(allowed))
    # Thousands of partitions are read through the protocol layer into compact tables
    # (access/partition_reads.py): librdkafka's metadata of them alone would take 2 KB each.
    bulk = len(every) > BULK_READS_ABOVE
    if every:
        topics = {t for t, _ in every} - (set(snapshot.partitions) if bulk else set())
        known = (access.partition_leaders if bulk else access.topic_partitions)(topics)
        snapshot = replace(snapshot, partitions={**snapshot.partitions, **known})
        check_partitions(every, snapshot.partitions)
    chosen_internal_topics(request, snapshot, allowed)  # a named topic no group owns: refused now
    leave_outside(request, snapshot, allowed, scope)
    every = {tp for s in scope.values() for tp in s}
    if bulk:
        read_ahead = ahead.take_log_offsets(every) if ahead is not None else None
        if read_ahead is not None:
            ends_table, starts_table = read_ahead
        else:
            ends_table, starts_table = access.log_offsets_of(
                every, snapshot.partitions, earliest=earliest, latest=latest
            )
        snapshot = replace(snapshot, ends=ends_table, starts=starts_table)
    else:
        ends, starts = access.log_offsets(every, earliest=earliest, latest=latest)
        snapshot = replace(
            snapshot,
            ends={tp: o for tp, o in ends.items() if o is not None},
            starts={tp: o for tp, o in starts.items() if o is not None},
        )
    # One ListOffsets-by-time per distinct timestamp (every group shares --to-datetime's),
    # over all the partitions of the groups that use it.
    instants = stamps(request, snapshot, allowed)
    by_time: dict[int, Mapping[TopicPartition, int | None]] = {}
    for stamp in set(instants.values()):
        partitions = {tp for g in allowed if instants[g] == stamp for tp in scope[g]}
        if bulk:
            by_time[stamp] = access.offsets_for_time_of(partitions, snapshot.partitions, stamp)
        else:
            by_time[stamp] = access.offsets_for_time(partitions, stamp)
    return replace(snapshot, by_time=by_time)


# Up to this many groups, their committed offsets are read ahead, while they are described
# (the few whose reset is refused, an active group, are read for nothing).
COMMITTED_AHEAD_GROUPS = 20


@dataclass
class ReadsAhead:
    """The reads of a consumer group's reset that wait for nothing but the command line, started
    on lanes (commands/reset_lanes.py) before the groups are described: the leaders of the topics
    named whole, then, where those hold more than ``BULK_READS_ABOVE`` partitions, their log
    offsets; and the committed offsets of the groups. Each is taken only where the sequential
    steps would read the same: the leaders where the whole topics are read, the committed
    offsets where the groups allowed are among those read, the log offsets where the scope is
    exactly the whole topics' partitions."""

    access: KafkaAccess
    kinds: tuple[bool, bool]  # (earliest, latest): the log offsets the scenario reads
    committed_wanted: bool
    leaders: Ahead[tuple[dict[str, LeaderTable], Ahead[Any] | None]] | None = None
    committed: Ahead[dict[str, Mapping[TopicPartition, int]]] | None = None
    committed_of: frozenset[str] = frozenset()
    read_leaders: dict[str, LeaderTable] | None = None  # the leaders taken
    offsets: Ahead[Any] | None = None  # the log offsets of every partition of read_leaders

    @classmethod
    def begin(
        cls,
        access: KafkaAccess,
        request: ResetRequest,
        whole: list[str],
        lean: bool,
        committed_wanted: bool,
        kinds: tuple[bool, bool],
    ) -> ReadsAhead | None:
        """Start the leaders' lane, or None where nothing is read ahead (a streams reset, whose
        scope depends on each group's description; a plain dry run, read by the AdminClient;
        --all-topics, --from-file and --to-group, whose scope is read first)."""
        if request.streams or not lean or request.all_topics:
            return None
        if request.spec.scenario in (Scenario.FROM_FILE, Scenario.TO_GROUP):
            return None
        lanes_for(access)
        ahead = cls(access, kinds, committed_wanted)
        if whole:
            names = set(whole)
            every_whole = len(whole) == len(request.topics)  # no topic:partitions named
            ahead.leaders = Ahead(
                chain(lambda: access.partition_leaders(names), ahead._offsets_of if every_whole else _nothing)
            )
        return ahead

    def read_committed(self, ids: list[str]) -> None:
        if self.committed_wanted and ids and len(ids) <= COMMITTED_AHEAD_GROUPS:
            self.committed_of = frozenset(ids)
            self.committed = Ahead(self.access.committed_positions, list(ids))

    def has_committed(self, groups: list[str]) -> bool:
        return self.committed is not None and set(groups) <= self.committed_of

    def take_committed(self, groups: list[str]) -> dict[str, Mapping[TopicPartition, int]]:
        assert self.committed is not None
        if not groups:
            return {}  # read for nothing: the steps one after another would not ask
        fetched = self.committed.take()
        wanted = set(groups)
        return {g: held for g, held in fetched.items() if g in wanted}

    def take_leaders(self) -> dict[str, LeaderTable]:
        assert self.leaders is not None
        self.read_leaders, self.offsets = self.leaders.take()
        return self.read_leaders

    def take_log_offsets(self, every: set[TopicPartition]) -> tuple[OffsetTable, OffsetTable] | None:
        """The log offsets read ahead, when they are those of exactly ``every`` (else None, and
        the read ahead is left unused)."""
        if self.offsets is None or self.read_leaders is None or every != _every_partition(self.read_leaders):
            return None
        found: tuple[OffsetTable, OffsetTable] | None = self.offsets.take()
        return found

    def _offsets_of(self, leaders: dict[str, LeaderTable]) -> tuple[OffsetTable, OffsetTable] | None:
        """On a lane after the leaders': the log offsets of every partition of the whole topics,
        when they are many and each exists with a leader (else None: the steps refuse, or read
        them themselves)."""
        every = _every_partition(leaders)
        if len(every) <= BULK_READS_ABOVE:
            return None
        try:
            check_partitions(every, leaders)
        except CliError:
            return None
        earliest, latest = self.kinds
        return self.access.log_offsets_of(every, leaders, earliest=earliest, latest=latest)


def _every_partition(leaders: Mapping[str, Mapping[int, int]]) -> set[TopicPartition]:
    return {(t, p) for t, table in leaders.items() for p in table}


def _nothing(_leaders: object) -> None:
    return None
