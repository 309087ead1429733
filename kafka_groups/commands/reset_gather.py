"""``--reset-offsets``, step one: read from the cluster what the planner needs (a
:class:`~kafka_groups.core.reset_plan.Snapshot`), and no more than it needs: the pure steps of
:mod:`kafka_groups.core.reset_plan` say which partitions come next. Refusals that make further
reads pointless (a group that is not a streams group, a partition that does not exist) are
raised here, before offsets are listed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

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
from kafka_groups.errors import NotFoundError

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.core.describe import TopicPartition

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
    access: KafkaAccess, request: ResetRequest, selection: GroupSelection, offsets_next: bool = False
) -> Snapshot:
    """The groups to reset and what the planner needs to know about each. ``offsets_next``: the
    committed offsets are read next (the protocol layer starts while the groups are described)."""
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
    # KIP-1282: the broker's creation times where it has them (else the recorded starts).
    supported = detailed and access.supports_group_creation_time()
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
    ``export``: the plan is printed as CSV (--export)."""
    spec = request.spec
    to_group = spec.scenario is Scenario.TO_GROUP
    # Committed offsets serve the all-topics scope, shift/current/nearest, --to-group, backups
    # and the richer outputs; a plain dry run of the other scenarios does without them.
    wanted = request.all_topics or request.execute or detail or spec.scenario in NEEDS_COMMITTED
    wanted = wanted or (request.streams and bool(request.topics))  # the topics must be the group's
    snapshot = gather_groups(access, request, selection, offsets_next=wanted or to_group)
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
    whole = whole_topics(request)
    # A topic named whole may have any number of partitions: where the protocol layer is in use
    # anyway (or --export asks for a plan to keep), it reads them compactly; a plain dry run
    # keeps to the AdminClient, which answers a small topic sooner.
    lean = wanted or to_group or export
    if whole:
        read = access.partition_leaders if lean else access.topic_partitions
        snapshot = replace(snapshot, partitions=read(set(whole)))
    scope = scopes(request, snapshot, allowed)
    every = {tp for s in scope.values() for tp in s}
    if wanted and not (request.all_topics or to_group):
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
    # Only the offsets the scenario (or a richer output) needs: thousands of partitions
    # make every ListOffsets round count.
    earliest = detail or spec.scenario in NEEDS_START
    latest = detail or spec.scenario is not Scenario.TO_EARLIEST
    if bulk:
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
