"""``--describe --health``: the loss radar of consumer and streams groups. Gathers the facts
(committed offsets, log bounds, the next records' timestamps, retention settings, partition
creation times, the groups' recorded policies and starts) in batches, then classifies them
(kafka_groups/core/health.py) and renders them (kafka_groups/render/health.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from kafka_groups.core.describe import (
    Committed,
    DescribedGroup,
    LagTimes,
    OffsetRow,
    TopicPartition,
    java_sorted,
)
from kafka_groups.core.health import (
    GroupHealth,
    GroupPolicy,
    HealthResult,
    PartitionFacts,
    Severity,
    Status,
    classify,
    group_health,
    summary,
)
from kafka_groups.errors import CliError, ExitCode, HealthAlert
from kafka_groups.escape import escape_controls

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.access.retention import Retention
    from kafka_groups.core.start_time import GroupStart
    from kafka_groups.render.outcome import Outcome

T = TypeVar("T")


def _best_effort(what: str, read: Callable[[], T], empty: T, notes: list[str]) -> T:
    """A read the radar can do without: its failure is a note (a warning of the outcome), not
    a failure."""
    try:
        return read()
    except CliError as exc:
        notes.append(f"Note: {what} could not be read ({exc.message})")
        return empty


def gather_health(
    access: KafkaAccess,
    states: Mapping[str, str],
    kind: str,
    owners: Mapping[str, Mapping[TopicPartition, str]],
    creation_times: Mapping[str, int | None],
    now_ms: int,
    notes: list[str],
    committed: Mapping[str, Mapping[TopicPartition, Committed]] | None = None,
) -> list[GroupHealth]:
    """The radar of the described groups: ``states`` (group -> state, in output order),
    ``owners`` (group -> partition -> the member assigned it), ``creation_times`` (group -> the
    broker's creation time, KIP-1282, where known); what it could do without and could not
    read goes to ``notes``; ``committed``: the groups' committed offsets, when read already."""
    from kafka_groups.access.policy_io import group_starts, partition_ages
    from kafka_groups.access.registry import CreationRegistry
    from kafka_groups.access.retention import partition_sizes, retention_of

    groups = list(states)
    if committed is None:
        committed = access.committed_offsets(groups)
    # Thousands of partitions: their leaders and log offsets are read through the protocol layer
    # into compact tables (access/partition_reads.py); librdkafka's metadata and ListOffsets of
    # them would take about 2 KB a partition.
    from kafka_groups.access.partition_reads import BULK_OFFSETS_ABOVE

    named = {tp for g in groups for tp in committed.get(g, {})} | {
        tp for g in groups for tp in owners.get(g, {})
    }
    topics = {t for t, _ in named}
    bulk = len(named) > BULK_OFFSETS_ABOVE
    read_layout = access.partition_leaders if bulk else access.topic_partitions
    layout: Mapping[str, Mapping[int, int]] = read_layout(topics)
    every: dict[str, set[TopicPartition]] = {
        g: {
            (t, p)
            for t in {t for t, _ in committed.get(g, {})} | {t for t, _ in owners.get(g, {})}
            for p in layout.get(t, {})
        }
        | set(committed.get(g, {}))
        for g in groups
    }
    partitions = {tp for tps in every.values() for tp in tps}
    ends, starts = access.log_offsets_bulk(partitions, earliest=True, leaders=layout)
    # The next record of every committed partition with lag.
    reading: dict[TopicPartition, set[int]] = {}
    for g in groups:
        for tp, done in committed.get(g, {}).items():
            start, end = starts.get(tp), ends.get(tp)
            if start is not None and end is not None and start <= done.offset < end:
                reading.setdefault(tp, set()).add(done.offset)
    timestamps = next_timestamps(access, reading, layout if bulk else None)
    retention: dict[str, Retention] = _best_effort(
        "the topics' retention settings", lambda: retention_of(access, topics), {}, notes
    )
    by_bytes = {t for t, r in retention.items() if r.bytes is not None and r.bytes > 0}
    leaders = {(t, p): leader for t in by_bytes for p, leader in layout.get(t, {}).items() if leader >= 0}
    sizes = partition_sizes(access, leaders) if leaders else {}
    registry = CreationRegistry(access.settings)
    uncommitted_topics = {tp[0] for g in groups for tp in every[g] if tp not in committed.get(g, {})}
    created: dict[TopicPartition, int] = (
        _best_effort(
            "the partitions' creation times",
            lambda: partition_ages(access, registry, uncommitted_topics),
            {},
            notes,
        )
        if uncommitted_topics
        else {}
    )
    policies: dict[str, tuple[str, bool]] = _best_effort(
        "the groups' recorded policies", lambda: registry.recorded_policies(groups), {}, notes
    )
    recorded_starts: dict[str, GroupStart] = _best_effort(
        "the groups' recorded starts",
        lambda: group_starts(access.settings, groups, creation_times),
        {},
        notes,
    )
    result = []
    for g in groups:
        policy = GroupPolicy(*policies[g]) if g in policies else None
        held = committed.get(g, {})
        facts = []
        for tp in every[g]:
            c = held.get(tp)
            r = retention.get(tp[0])
            facts.append(
                PartitionFacts(
                    topic=tp[0],
                    partition=tp[1],
                    committed=c.offset if c is not None else None,
                    log_start=starts.get(tp),
                    log_end=ends.get(tp),
                    next_timestamp_ms=timestamps.get((tp, c.offset)) if c is not None else None,
                    retention_ms=r.ms if r else None,
                    retention_bytes=r.bytes if r else None,
                    size_bytes=sizes.get(tp),
                    created_ms=created.get(tp),
                    protected_by=policy.policy
                    if policy is not None and policy.new_partitions_from_start
                    else None,
                    member_id=owners.get(g, {}).get(tp),
                )
            )
        began = recorded_starts.get(g)
        result.append(
            group_health(
                g, states[g], kind, facts, now_ms, policy, (began.time_ms, began.source) if began else None
            )
        )
    return result


def next_timestamps(
    access: KafkaAccess,
    reading: Mapping[TopicPartition, set[int]],
    layout: Mapping[str, Mapping[int, int]] | None = None,
) -> dict[tuple[TopicPartition, int], int]:
    """The timestamp of the record at (or next after) each offset: one Fetch per leader per
    round, the lowest offset of each partition first (groups on one partition rarely differ,
    so most runs take one round); ``layout``: the partitions' leaders, when read already."""
    from kafka_groups.access.lagtime import next_record_timestamps

    left = {tp: set(offsets) for tp, offsets in reading.items() if offsets}
    found: dict[tuple[TopicPartition, int], int] = {}
    while left:
        batch = {tp: min(offsets) for tp, offsets in left.items()}
        records = next_record_timestamps(access, batch, layout)
        for tp, offset in batch.items():
            record = records.get(tp)
            if record is not None:
                found[(tp, offset)] = record.timestamp_ms
            left[tp].discard(offset)
        left = {tp: offsets for tp, offsets in left.items() if offsets}
    return found


def lag_times(access: KafkaAccess, described: Sequence[DescribedGroup]) -> LagTimes:
    """``--describe --lag-time``: the next record's timestamp of every row with lag."""
    from kafka_groups.access.policy_io import now_ms

    reading: dict[TopicPartition, set[int]] = {}
    for group in described:
        for r in group.rows:
            if r.current_offset is not None and (r.lag or 0) > 0:
                reading.setdefault((r.topic, r.partition), set()).add(r.current_offset)
    found = next_timestamps(access, reading)
    stamps = {
        (r.group, r.topic, r.partition): found[key]
        for group in described
        for r in group.rows
        if r.current_offset is not None
        and (key := ((r.topic, r.partition), r.current_offset)) in found
        and (r.lag or 0) > 0
    }
    return LagTimes(now_ms(), stamps)


def health_outcome(result: HealthResult, output: Any) -> Outcome:
    """The radar's outcome: its rows, then on stderr a note on partitions it could not check and
    the missing groups, and its exit status: LOST or AT_RISK (the summary line), else PARTIAL /
    NOT FOUND for groups that do not exist, else 0."""
    from kafka_groups.errors import NotFoundError, PartialFailure
    from kafka_groups.render.outcome import Outcome

    notices: list[str] = []
    unknown = sum(g.count(Status.UNKNOWN) for g in result.groups)
    if unknown:
        notices.append(
            f"Note: {unknown} partition{'s' if unknown != 1 else ''} could not be checked (status unknown)"
        )
    severity = result.severity
    missing_message = result.missing_note
    failure: CliError | None = None
    if severity is not Severity.HEALTHY:
        if missing_message:
            notices.append(escape_controls(f"Error: {missing_message}"))
        code = ExitCode.LOST if severity is Severity.LOST else ExitCode.AT_RISK
        failure = HealthAlert(summary(result), code)
    elif missing_message:
        failure = PartialFailure(missing_message) if result.groups else NotFoundError(missing_message)
    return Outcome(result, output, warnings=result.notes, notices=tuple(notices), failure=failure)


def _now() -> int:
    from kafka_groups.access.policy_io import now_ms

    return now_ms()


def consumer_health(
    access: KafkaAccess, ids: list[str], missing_note: Callable[[list[str]], str | None]
) -> HealthResult:
    """The radar of consumer groups (``--describe --health``), in the describe order."""
    (result,) = _consumer_health_parts(access, ids, missing_note, None)
    return result


def split_by_rows(ids: list[str], sizes: list[int], rows: int | None) -> list[list[str]]:
    """``ids`` in runs of consecutive ids whose ``sizes`` add up to at most ``rows`` (one larger
    than that alone); None: one run. Never an empty run, but for no ids at all."""
    parts: list[list[str]] = [[]]
    held = 0
    for g, size in zip(ids, sizes, strict=True):
        if rows is not None and parts[-1] and held + size > rows:
            parts.append([])
            held = 0
        parts[-1].append(g)
        held += size
    return parts


def _consumer_health_parts(
    access: KafkaAccess, ids: list[str], missing_note: Callable[[list[str]], str | None], rows: int | None
) -> Iterator[HealthResult]:
    """The radar of ``ids`` in the describe order, as results of consecutive groups holding about
    ``rows`` partitions each (a group larger than that alone; None: one result). The missing
    groups and the notes come with the first; the groups are described and their offsets read
    once for all of them."""
    found, missing = access.describe_groups(ids, detailed=access.supports_group_creation_time())
    ordered = java_sorted(found)
    committed = access.committed_offsets(ordered)
    sizes = [
        len(committed.get(g, {}).keys() | {tp for m in found[g].members for tp in m.assignment})
        for g in ordered
    ]
    for index, part in enumerate(split_by_rows(ordered, sizes, rows)):
        owners = {g: {tp: m.member_id for m in found[g].members for tp in m.assignment} for g in part}
        states = {g: found[g].state for g in part}
        times = {g: found[g].creation_time_ms for g in part}
        now = _now()
        notes: list[str] = []
        held_offsets = {g: committed[g] for g in part if g in committed}
        groups = gather_health(access, states, "consumer", owners, times, now, notes, held_offsets)
        gone = missing if index == 0 else []
        yield HealthResult(tuple(groups), now, tuple(gone), missing_note(gone), tuple(notes))


def streamed_consumer_health(
    access: KafkaAccess,
    ids: list[str],
    missing_note: Callable[[list[str]], str | None],
    shown: Callable[[HealthResult], None],
    chunk: int,
    listed: list[str] | None = None,
) -> HealthResult:
    """The radar of many consumer groups, ``chunk`` groups at a time in the describe order (the
    sorted ids), each chunk's result handed to ``shown`` as it is made. Returns what the
    outcome needs, and no more: the groups with a partition lost, at risk or unknown, each with
    those partitions only (the exit status, the summary line and the count of partitions not
    checked come from them), the missing groups and the notes; ``listed``: the listing ``ids``
    were chosen from, in the brokers' order (commands/select.unordered_consumer_group_ids)."""
    from dataclasses import replace

    from kafka_groups.commands.select import as_given

    ordered = java_sorted(ids)
    if len(ordered) > chunk:
        access.locate_coordinators(ordered)
    kept: list[GroupHealth] = []
    missing: list[str] = []
    notes: dict[str, None] = {}
    now = _now()
    for start in range(0, len(ordered), chunk):
        part = ordered[start : start + chunk]
        for result in _consumer_health_parts(access, part, lambda _gone: None, STREAM_ROWS):
            now = result.now_ms
            missing.extend(result.missing)
            notes.update(dict.fromkeys(result.notes))
            shown(result)
            for group in result.groups:
                flagged = tuple(p for p in group.partitions if p.status in _FLAGGED)
                if flagged:
                    kept.append(replace(group, partitions=flagged))
    as_given(missing, ids, listed or [])
    return HealthResult(tuple(kept), now, tuple(missing), missing_note(missing), tuple(notes))


# A streamed radar's chunk of groups is checked and printed in parts of about this many
# partitions (a group larger than that alone): 1,000 groups of 10 partitions are one part, and
# a group of 10,000 partitions among them is not checked together with the other 999.
STREAM_ROWS = 10_000

# What the outcome of a streamed radar keeps of each group (streamed_consumer_health).
_FLAGGED = frozenset({Status.LOST, Status.AT_RISK, Status.UNKNOWN})


def streams_health(access: KafkaAccess, ids: list[str]) -> HealthResult:
    """The radar of streams groups, in the order given; the missing ones with their messages."""
    found, missing = access.describe_streams_groups(ids)
    ordered = list(dict.fromkeys(g for g in ids if g in found))
    states = {g: found[g].state for g in ordered}
    times = {g: found[g].creation_time_ms for g in ordered}
    now = _now()
    notes: list[str] = []
    groups = gather_health(access, states, "streams", {}, times, now, notes)
    note = "; ".join(missing.values()) or None
    return HealthResult(tuple(groups), now, tuple(missing), note, tuple(notes))


def risk_marks(
    access: KafkaAccess, described: Sequence[DescribedGroup], notes: list[str]
) -> tuple[list[DescribedGroup], LagTimes | None]:
    """The default describe on a terminal: the radar's rule (core/health.classify) on the rows
    already read, so lost and at-risk rows are marked in the Rich table. Costs one Fetch per
    leader and one DescribeConfigs, only when some row has lag; any failure marks nothing and
    is a note."""
    from dataclasses import replace

    from kafka_groups.access.policy_io import now_ms
    from kafka_groups.access.retention import retention_of

    def behind(r: OffsetRow) -> bool:
        return r.current_offset is not None and ((r.lag or 0) > 0 or r.out_of_range)

    lagging = [r for g in described for r in g.rows if behind(r)]
    if not lagging:
        return list(described), None
    times = _best_effort("the next records' timestamps", lambda: lag_times(access, described), None, notes)
    topics = {r.topic for r in lagging}
    retention: dict[str, Retention] = _best_effort(
        "the topics' retention settings", lambda: retention_of(access, topics), {}, notes
    )
    now = times.now_ms if times is not None else now_ms()
    marked = []
    for g in described:
        risks: dict[tuple[str, int], str] = {}
        for r in g.rows:
            if not behind(r):
                continue
            kept = retention.get(r.topic)
            verdict = classify(
                PartitionFacts(
                    topic=r.topic,
                    partition=r.partition,
                    committed=r.current_offset,
                    log_start=r.log_start_offset,
                    log_end=r.log_end_offset,
                    next_timestamp_ms=times.timestamps.get((r.group, r.topic, r.partition))
                    if times is not None
                    else None,
                    retention_ms=kept.ms if kept else None,
                ),
                now,
            )
            if verdict.status in (Status.LOST, Status.AT_RISK):
                risks[(r.topic, r.partition)] = f"{verdict.status.value}: {verdict.detail}"
        marked.append(replace(g, risks=risks) if risks else g)
    return marked, times  # the timestamps read, for --lag-time to reuse
