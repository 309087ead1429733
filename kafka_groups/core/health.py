"""The loss radar (``--describe --health``): where a group has lost records or is about to
(pure: classification and severity on plain data; the command gathers the facts).

Per partition of every topic the group commits on:

- **lost**: the committed offset is below the log start (retention or ``delete-records``
  removed ``log start - committed`` records the group never read), or above the log end (the
  log was truncated or the topic recreated: the group's position is meaningless);
- **at-risk**: the next record the group will read may be deleted by time retention soon:
  its timestamp plus the topic's ``retention.ms`` is less than :func:`soon_ms` away (or
  already past); or, where ``retention.bytes`` is set and the partition's size is known, the
  bytes after that record already come to 90 % of ``retention.bytes``;
  or the partition has no committed offset yet holds records and no recorded policy of the
  group starts new partitions at their beginning (a consumer with
  ``auto.offset.reset=latest`` skips them);
- **unconsumed**: no committed offset, and either no records or a recorded policy that
  starts the partition at its beginning (shown, not alarming);
- **unknown**: the partition's log offsets could not be read (no leader), or it has lag under
  a time retention and the next record's timestamp could not be read: the radar cannot tell;
- **ok**: everything else.

Severity: healthy < at risk < lost; a group's is its worst partition's, a run's its worst
group's, and the exit status follows it (``kafka_groups.errors.ExitCode``).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from kafka_groups.core.lagtime import human_duration, lag_time_ms

HOUR_MS = 3_600_000
SOON_DIVISOR = 10  # "soon": within 10 % of retention.ms, or within an hour, whichever is larger
BYTES_FRACTION = 0.90  # retention.bytes: at risk once the bytes after the next record reach 90 %


class Severity(enum.IntEnum):
    HEALTHY = 0
    AT_RISK = 1
    LOST = 2

    @property
    def label(self) -> str:
        return {0: "healthy", 1: "at-risk", 2: "lost"}[self.value]


class Status(str, enum.Enum):
    OK = "ok"
    LOST = "lost"
    AT_RISK = "at-risk"
    UNCONSUMED = "unconsumed"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class PartitionFacts:
    """What the radar knows of one partition of a group."""

    topic: str
    partition: int
    committed: int | None  # None: the group has no committed offset here
    log_start: int | None  # None: unknown (no leader)
    log_end: int | None
    next_timestamp_ms: int | None = None  # the record at the committed offset (lag-time fetch)
    retention_ms: int | None = None  # None: unknown; negative: unlimited
    retention_bytes: int | None = None  # None: unknown; negative: unlimited
    size_bytes: int | None = None  # the partition's size on its leader, where read
    created_ms: int | None = None  # KIP-1327 or _kgt_partition_creation_times
    protected_by: str | None = (
        None  # the group's recorded policy, when it starts new partitions at the beginning
    )
    member_id: str | None = None


@dataclass(frozen=True)
class PartitionHealth:
    facts: PartitionFacts
    status: Status
    severity: Severity
    lag: int | None = None
    lag_ms: int | None = None
    lost_records: int | None = None  # committed below the log start: how many were deleted unread
    records: int | None = None  # no committed offset: how many records the partition holds now
    deleted_in_ms: int | None = None  # time retention: until the next record may go (negative: overdue)
    detail: str = ""

    @property
    def topic(self) -> str:
        return self.facts.topic

    @property
    def partition(self) -> int:
        return self.facts.partition


def soon_ms(retention_ms: int) -> int:
    """How close to deletion counts as at risk: 10 % of retention.ms, at least an hour."""
    return max(retention_ms // SOON_DIVISOR, HOUR_MS)


def _minutes(ms: int) -> str:
    return human_duration(max(ms, 0))


def classify(f: PartitionFacts, now_ms: int) -> PartitionHealth:
    """The status of one partition."""
    start, end, committed = f.log_start, f.log_end, f.committed
    if start is None or end is None:
        return PartitionHealth(f, Status.UNKNOWN, Severity.HEALTHY, detail="log offsets unknown (no leader?)")
    if committed is None:
        records = max(end - start, 0)
        if f.protected_by is not None:
            detail = (
                f"no committed offset; {records} records; protected: "
                f"policy {f.protected_by} starts it at its beginning"
            )
            return PartitionHealth(f, Status.UNCONSUMED, Severity.HEALTHY, records=records, detail=detail)
        if records == 0:
            return PartitionHealth(
                f,
                Status.UNCONSUMED,
                Severity.HEALTHY,
                records=0,
                detail="no committed offset; no records yet",
            )
        detail = f"no committed offset; {records} records a consumer with auto.offset.reset=latest skips"
        return PartitionHealth(f, Status.AT_RISK, Severity.AT_RISK, records=records, detail=detail)
    if committed < start:
        lost = start - committed
        detail = (
            f"{lost} records deleted before the group read them (committed {committed} < log start {start})"
        )
        return PartitionHealth(
            f, Status.LOST, Severity.LOST, lag=end - committed, lost_records=lost, detail=detail
        )
    if committed > end:
        detail = f"committed {committed} is beyond the log end {end} (log truncated or topic recreated)"
        return PartitionHealth(f, Status.LOST, Severity.LOST, detail=detail)
    lag = end - committed
    if lag == 0:
        return PartitionHealth(f, Status.OK, Severity.HEALTHY, lag=0)
    lag_ms = lag_time_ms(f.next_timestamp_ms, now_ms)
    deleted_in = None
    reasons = []
    if (
        f.retention_ms is not None
        and f.retention_ms >= 0
        and f.next_timestamp_ms is not None
        and f.next_timestamp_ms >= 0
    ):
        deleted_in = f.next_timestamp_ms + f.retention_ms - now_ms
        if deleted_in <= 0:
            reasons.append(
                f"the next record is past retention.ms by ~{_minutes(-deleted_in)}: due for deletion"
            )
        elif deleted_in <= soon_ms(f.retention_ms):
            reasons.append(f"will be deleted in ~{_minutes(deleted_in)} at this lag (retention.ms)")
    if f.retention_bytes is not None and f.retention_bytes > 0 and f.size_bytes is not None and end > start:
        after = f.size_bytes * (end - committed) // (end - start)
        if after >= f.retention_bytes * BYTES_FRACTION:
            reasons.append(
                f"~{after} bytes after the next record, near retention.bytes {f.retention_bytes}: "
                "it goes when the log grows past it"
            )
    timed = f.next_timestamp_ms is not None and f.next_timestamp_ms >= 0
    if not reasons and not timed and f.retention_ms is not None and f.retention_ms >= 0:
        detail = "the next record's timestamp could not be read: its retention risk is unknown"
        return PartitionHealth(f, Status.UNKNOWN, Severity.HEALTHY, lag=lag, detail=detail)
    if reasons:
        return PartitionHealth(
            f,
            Status.AT_RISK,
            Severity.AT_RISK,
            lag=lag,
            lag_ms=lag_ms,
            deleted_in_ms=deleted_in,
            detail="; ".join(reasons),
        )
    return PartitionHealth(f, Status.OK, Severity.HEALTHY, lag=lag, lag_ms=lag_ms, deleted_in_ms=deleted_in)


@dataclass(frozen=True)
class GroupPolicy:
    """The policy the group's consumer helper or pipeline last recorded (_kgt_group_policies)."""

    policy: str
    new_partitions_from_start: bool


@dataclass(frozen=True)
class GroupHealth:
    group_id: str
    state: str
    kind: str  # "consumer" or "streams"
    partitions: tuple[PartitionHealth, ...]
    policy: GroupPolicy | None = None
    start_ms: int | None = None
    start_source: str | None = None  # "broker" or "recorded"

    @property
    def severity(self) -> Severity:
        return worst(p.severity for p in self.partitions)

    def count(self, status: Status) -> int:
        return sum(1 for p in self.partitions if p.status is status)

    @property
    def lost_records(self) -> int:
        return sum(p.lost_records or 0 for p in self.partitions)

    @property
    def unconsumed_records(self) -> int:
        return sum(p.records or 0 for p in self.partitions if p.facts.committed is None)

    @property
    def max_lag_ms(self) -> int | None:
        known = [p.lag_ms for p in self.partitions if p.lag_ms is not None]
        return max(known) if known else None

    @property
    def uncommitted(self) -> int:
        return sum(1 for p in self.partitions if p.facts.committed is None)


@dataclass(frozen=True)
class HealthResult:
    groups: tuple[GroupHealth, ...]
    now_ms: int
    missing: tuple[str, ...] = ()
    missing_note: str | None = None  # the line that names the missing groups, as describe words it
    notes: tuple[str, ...] = ()  # what the radar could do without and could not read

    @property
    def severity(self) -> Severity:
        return worst(g.severity for g in self.groups)


def worst(severities: Iterable[Severity]) -> Severity:
    return max(severities, default=Severity.HEALTHY)


def group_health(
    group_id: str,
    state: str,
    kind: str,
    facts: Iterable[PartitionFacts],
    now_ms: int,
    policy: GroupPolicy | None = None,
    start: tuple[int, str] | None = None,
) -> GroupHealth:
    rows = tuple(classify(f, now_ms) for f in sorted(facts, key=lambda f: (f.topic, f.partition)))
    return GroupHealth(
        group_id,
        state,
        kind,
        rows,
        policy,
        start[0] if start else None,
        start[1] if start else None,
    )


def summary(result: HealthResult) -> str:
    """The closing line on stderr when something is lost or at risk."""
    lost = [g.group_id for g in result.groups if g.severity is Severity.LOST]
    risky = [g.group_id for g in result.groups if g.severity is Severity.AT_RISK]
    parts = []
    if lost:
        parts.append(f"{len(lost)} group{'s' if len(lost) != 1 else ''} lost records ({_names(lost)})")
    if risky:
        parts.append(f"{len(risky)} group{'s' if len(risky) != 1 else ''} at risk ({_names(risky)})")
    return "loss radar: " + "; ".join(parts) if parts else "loss radar: healthy"


def _names(groups: list[str], limit: int = 3) -> str:
    shown = ", ".join(f"'{g}'" for g in groups[:limit])
    return shown + (f" and {len(groups) - limit} more" if len(groups) > limit else "")
