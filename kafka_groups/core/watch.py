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
from array import array
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


@dataclass(frozen=True, slots=True)  # one per partition of every group watched
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


@dataclass(frozen=True, slots=True)  # one per partition of every group watched
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


# A value the history stores for "unknown" (None): no offset or lag takes it.
_NONE = -(2**63)


def _stored(value: int | None) -> int:
    return _NONE if value is None else value


def _read(value: int) -> int | None:
    return None if value == _NONE else value


class _GroupHistory(NamedTuple):
    """The last samples of one group's partitions: ``keys`` the (topic, partition) of each row
    (the tuple shared by every group of the same rows), ``times`` the refreshes they were taken
    at, oldest first, and ``values`` one array per refresh of (current offset, log end offset,
    lag) for each row, in the order of ``keys``. An array equal to the one before it is that
    same object: an idle group keeps one array, whatever the window."""

    keys: tuple[tuple[str, int], ...]
    times: tuple[float, ...]
    values: tuple[array[int], ...]


@dataclass
class RateTracker:
    """What a watch remembers between refreshes: each partition's last few samples. Feed it each
    good refresh with :meth:`update`, or in parts (:meth:`begin`, :meth:`feed` for each part,
    :meth:`end`); a partition missing from a refresh is forgotten.

    The history is kept per group in arrays of machine integers (``_GroupHistory``), not as an
    object per partition and sample: a watch of 50,000 groups of 10 partitions follows 500,000
    partitions."""

    window: int = RATE_WINDOW
    _history: dict[str, _GroupHistory] = field(default_factory=dict)
    _next: dict[str, _GroupHistory] | None = None
    _at_s: float = 0.0
    # Shared tuples of one refresh (row keys, refresh times), so groups alike share them.
    _shared: dict[tuple[object, ...], tuple[object, ...]] = field(default_factory=dict)

    def update(self, at_s: float, samples: Iterable[PartitionSample]) -> list[PartitionWatch]:
        """The watched partitions of a refresh taken at ``at_s`` (a monotonic clock, seconds), in
        the order given."""
        self.begin(at_s)
        out = self.feed(samples)
        self.end()
        return out

    def begin(self, at_s: float) -> None:
        """A refresh taken at ``at_s`` starts; until :meth:`end` the history is unchanged (a
        refresh that fails half way leaves it as it was)."""
        self._next, self._at_s, self._shared = {}, at_s, {}

    def end(self) -> None:
        """The refresh is complete: what it fed is the history, the rest is forgotten."""
        if self._next is not None:
            self._history, self._next, self._shared = self._next, None, {}

    def _share(self, value: tuple[object, ...]) -> tuple[object, ...]:
        return self._shared.setdefault(value, value)

    def feed(self, samples: Iterable[PartitionSample]) -> list[PartitionWatch]:
        """The watched partitions of one part of the refresh (whole groups), in the order given."""
        assert self._next is not None, "feed() before begin()"
        at_s = self._at_s
        by_group: dict[str, list[int]] = {}
        given = list(samples)
        for index, sample in enumerate(given):
            by_group.setdefault(sample.group, []).append(index)
        out: list[PartitionWatch | None] = [None] * len(given)
        for group, indexes in by_group.items():
            rows = [given[i] for i in indexes]
            watched = self._group(group, rows, at_s)
            for i, w in zip(indexes, watched, strict=True):
                out[i] = w
        return [w for w in out if w is not None]

    def _group(self, group: str, rows: list[PartitionSample], at_s: float) -> list[PartitionWatch]:
        assert self._next is not None
        keys = tuple((s.topic, s.partition) for s in rows)
        now = array("q")
        for s in rows:
            now.extend((_stored(s.current_offset), _stored(s.log_end_offset), _stored(s.lag)))
        old = self._history.get(group)
        usable = [i for i, t in enumerate(old.times) if t < at_s] if old is not None else []
        if old is None or not usable:
            where: dict[tuple[str, int], int] = {}
        elif old.keys is keys or old.keys == keys:
            where = {k: i for i, k in enumerate(keys)}  # (the last of a key named twice)
        else:
            where = {k: i for i, k in enumerate(old.keys)}
        out: list[PartitionWatch] = []
        past_times = [old.times[i] for i in usable] if old is not None else []
        past_values = [old.values[i] for i in usable] if old is not None else []
        # The sample before this refresh counts for the lag delta only when it is the latest kept.
        whole = old is not None and len(usable) == len(old.times)
        for sample, key in zip(rows, keys, strict=True):
            seen_now = _Seen(at_s, sample.current_offset, sample.log_end_offset, sample.lag)
            at = where.get(key)
            history: list[_Seen] = []
            if at is not None:
                base = 3 * at
                history = [
                    _Seen(t, _read(v[base]), _read(v[base + 1]), _read(v[base + 2]))
                    for t, v in zip(past_times, past_values, strict=True)
                ]
            out.append(_watch(sample, seen_now, history, whole))
        # Rows kept in the old order (a rebalance reorders them): the history is remapped to them.
        if old is not None and usable and not (old.keys is keys or old.keys == keys):
            remapped = []
            for v in past_values:
                moved = array("q")
                for key in keys:
                    at = where.get(key)
                    moved.extend(v[3 * at : 3 * at + 3] if at is not None else (_NONE, _NONE, _NONE))
                remapped.append(moved)
            past_values = remapped
            # A partition new to the group has no history: its gaps are None, which no rate
            # starts from (_rate stops at the first unknown value, going back).
        values = [*past_values, now]
        earlier = self._next.get(group)
        if earlier is not None:  # the group's rows came in two parts: one history for both
            keys = earlier.keys + keys
            values = [a + b for a, b in zip(earlier.values, values[-len(earlier.values) :], strict=True)]
        if len(values) > 1 and values[-2] == values[-1]:
            values[-1] = values[-2]
        times = self._share((*past_times, at_s)[-self.window :])
        self._next[group] = _GroupHistory(
            self._share(keys),  # type: ignore[arg-type]
            times,  # type: ignore[arg-type]
            tuple(values[-self.window :]),
        )
        return out


def _watch(sample: PartitionSample, now: _Seen, usable: list[_Seen], latest: bool) -> PartitionWatch:
    previous = usable[-1] if usable and latest else None
    delta = None
    if previous is not None and previous.lag is not None and sample.lag is not None:
        delta = sample.lag - previous.lag
    consume, span_c = _rate(usable, now, "current_offset")
    produce, span_p = _rate(usable, now, "log_end_offset")
    state, seconds = catch_up(sample.lag, consume, produce)
    spans = [s for s in (span_c, span_p) if s is not None]
    return PartitionWatch(
        sample=sample,
        lag_delta=delta,
        consume_rate=consume,
        produce_rate=produce,
        rate_window_s=max(spans) if spans else None,
        catch_up=state,
        catch_up_s=seconds,
    )


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
