"""Watch mode's arithmetic (pure): the refresh interval a user gives, and, from one refresh to
the next, each partition's lag delta, consume and produce rates and time to catch up.

Rates are smoothed over a sliding window: the rate at a refresh is the change of the offset
between the oldest of the (up to) ``RATE_WINDOW`` refreshes before it that the partition was
seen in and this one, divided by the time between them. A window rather than an exponential average, so a
reader of the JSON Lines stream can recompute every rate from the offsets and ``elapsed_s`` of
the documents. A partition's window starts again when an offset goes back (a reset, a
truncated or re-created log), and a partition that was not in the previous refresh has no
rates yet.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from kafka_groups.core.groups import GroupListing
from kafka_groups.errors import UsageError

DEFAULT_INTERVAL_S = 2.0
MIN_INTERVAL_S = 0.5
MAX_INTERVAL_S = 86_400.0
# The rates span at most this many intervals (RATE_WINDOW + 1 refreshes).
RATE_WINDOW = 5

_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?|\.[0-9]+")

PartitionKey = tuple[str, str, int]  # group, topic, partition


def parse_interval(raw: str | None) -> float:
    """``--watch [SECONDS]``: None (the flag alone) is the default; otherwise a plain decimal
    number of seconds, fractions allowed, from MIN_INTERVAL_S to MAX_INTERVAL_S. Blanks, zero,
    negatives, exponents, ``inf`` and ``nan`` are refused."""
    if raw is None:
        return DEFAULT_INTERVAL_S
    text = raw.strip()
    if not _DECIMAL.fullmatch(text):
        shown = raw if raw.strip() else "(blank)"
        raise UsageError(f"Invalid --watch interval '{shown}': give a number of seconds, such as 2 or 0.5")
    seconds = float(text)
    if not MIN_INTERVAL_S <= seconds <= MAX_INTERVAL_S:
        raise UsageError(
            f"Invalid --watch interval '{raw}': give {MIN_INTERVAL_S:g} to {MAX_INTERVAL_S:g} seconds"
        )
    return seconds


@dataclass(frozen=True)
class PartitionSample:
    """One partition of one group as one refresh read it."""

    group: str
    topic: str
    partition: int
    current_offset: int | None  # the committed offset; None when the group has none
    log_end_offset: int | None  # None when the partition has no leader
    lag: int | None

    @property
    def key(self) -> PartitionKey:
        return (self.group, self.topic, self.partition)


class CatchUp(str, enum.Enum):
    CAUGHT_UP = "caught-up"  # no lag
    CATCHING_UP = "catching-up"  # consuming faster than records arrive: see catch_up_s
    NOT_CATCHING_UP = "not-catching-up"  # lag, and records arrive as fast or faster
    UNKNOWN = "unknown"  # no lag or no rates yet


@dataclass(frozen=True)
class PartitionWatch:
    """A sample with what changed since the refreshes before it."""

    sample: PartitionSample
    lag_delta: int | None  # lag now minus lag at the previous refresh
    consume_rate: float | None  # records/s, over rate_window_s
    produce_rate: float | None  # records/s, over rate_window_s
    rate_window_s: float | None
    catch_up: CatchUp
    catch_up_s: float | None  # seconds, when catching up
    # Lag in time (issue 22, item 2), filled in where it is measured; None otherwise.
    lag_time_ms: int | None = None


class _Seen(NamedTuple):
    """A partition as one refresh saw it (a named tuple: a watch keeps a few per partition of
    every group it follows)."""

    at_s: float
    current_offset: int | None
    log_end_offset: int | None
    lag: int | None


def _rate(history: Iterable[_Seen], now: _Seen, offset_of: str) -> tuple[float | None, float | None]:
    """(records/s, seconds spanned) from the oldest sample in ``history`` that still has the
    offset and none after it going back; (None, None) when there is none or no time passed."""
    value = getattr(now, offset_of)
    if value is None:
        return None, None
    start: _Seen | None = None
    later = value
    for seen in reversed(list(history)):
        old = getattr(seen, offset_of)
        if old is None or old > later:
            break
        start, later = seen, old
    if start is None or now.at_s <= start.at_s:
        return None, None
    span = now.at_s - start.at_s
    return (value - getattr(start, offset_of)) / span, span


def catch_up(lag: int | None, consume: float | None, produce: float | None) -> tuple[CatchUp, float | None]:
    """Lag / (consume rate - produce rate) seconds when that is positive, else not catching up."""
    if lag is not None and lag <= 0:
        return CatchUp.CAUGHT_UP, 0.0
    if lag is None or consume is None or produce is None:
        return CatchUp.UNKNOWN, None
    net = consume - produce
    if net <= 0 or not math.isfinite(lag / net):
        return CatchUp.NOT_CATCHING_UP, None
    return CatchUp.CATCHING_UP, lag / net


@dataclass
class RateTracker:
    """What a watch remembers between refreshes: each partition's last few samples. Feed it each
    good refresh with :meth:`update`; a partition missing from a refresh is forgotten."""

    window: int = RATE_WINDOW
    # The last samples of each partition, oldest first: tuples, not deques, as a deque costs
    # about ten times a short tuple and a watch of many groups keeps one per partition.
    _history: dict[PartitionKey, tuple[_Seen, ...]] = field(default_factory=dict)

    def update(self, at_s: float, samples: Iterable[PartitionSample]) -> list[PartitionWatch]:
        """The watched partitions of a refresh taken at ``at_s`` (a monotonic clock, seconds), in
        the order given."""
        out: list[PartitionWatch] = []
        history: dict[PartitionKey, tuple[_Seen, ...]] = {}
        for sample in samples:
            now = _Seen(at_s, sample.current_offset, sample.log_end_offset, sample.lag)
            past = self._history.get(sample.key, ())
            previous = past[-1] if past and past[-1].at_s < at_s else None
            delta = None
            if previous is not None and previous.lag is not None and sample.lag is not None:
                delta = sample.lag - previous.lag
            usable = [s for s in past if s.at_s < at_s]
            consume, span_c = _rate(usable, now, "current_offset")
            produce, span_p = _rate(usable, now, "log_end_offset")
            state, seconds = catch_up(sample.lag, consume, produce)
            spans = [s for s in (span_c, span_p) if s is not None]
            out.append(
                PartitionWatch(
                    sample=sample,
                    lag_delta=delta,
                    consume_rate=consume,
                    produce_rate=produce,
                    rate_window_s=max(spans) if spans else None,
                    catch_up=state,
                    catch_up_s=seconds,
                )
            )
            history[sample.key] = (*usable, now)[-self.window :]
        self._history = history
        return out


@dataclass(frozen=True)
class GroupTotals:
    lag: int | None
    lag_delta: int | None
    consume_rate: float | None
    produce_rate: float | None
    catch_up: CatchUp
    catch_up_s: float | None


def _sum_known(values: Iterable[float | int | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def totals(partitions: Iterable[PartitionWatch]) -> GroupTotals:
    """Sums over a group's partitions (unknown values left out); its catch-up from the sums."""
    rows = list(partitions)
    lag = _sum_known(r.sample.lag for r in rows)
    delta = _sum_known(r.lag_delta for r in rows)
    consume = _sum_known(r.consume_rate for r in rows)
    produce = _sum_known(r.produce_rate for r in rows)
    lag_int = int(lag) if lag is not None else None
    state, seconds = catch_up(lag_int, consume, produce)
    return GroupTotals(lag_int, int(delta) if delta is not None else None, consume, produce, state, seconds)


def list_changes(
    before: Mapping[str, str] | None, now: Mapping[str, str]
) -> tuple[list[str], list[str], list[str]]:
    """``--list --watch``: the groups that appeared, disappeared and changed state since the
    previous refresh (group id -> state maps); nothing appeared on the first refresh."""
    if before is None:
        return [], [], []
    appeared = sorted(g for g in now if g not in before)
    gone = sorted(g for g in before if g not in now)
    changed = sorted(g for g in now if g in before and before[g] != now[g])
    return appeared, gone, changed


@dataclass(frozen=True)
class WatchedGroup:
    group: str
    state: str
    partitions: tuple[PartitionWatch, ...]

    @property
    def totals(self) -> GroupTotals:
        return totals(self.partitions)


@dataclass(frozen=True)
class DescribeFrame:
    """One refresh of ``--describe --watch``. When it failed, ``error`` says why and ``groups``
    are those of the last good refresh, read at ``data_timestamp_ms`` (none before the first)."""

    timestamp_ms: int  # wall clock, when this refresh began
    elapsed_s: float  # since the watch started (monotonic): the clock the rates use
    interval_s: float
    groups: tuple[WatchedGroup, ...] = ()
    missing: tuple[str, ...] = ()  # requested groups that do not exist (now)
    error: str | None = None
    data_timestamp_ms: int | None = None


@dataclass(frozen=True)
class ListFrame:
    """One refresh of ``--list --watch``; ``error`` and the data as for :class:`DescribeFrame`."""

    timestamp_ms: int
    elapsed_s: float
    interval_s: float
    groups: tuple[GroupListing, ...] = ()
    appeared: tuple[str, ...] = ()
    disappeared: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    error: str | None = None
    data_timestamp_ms: int | None = None
