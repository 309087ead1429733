"""Offset-reset policies: where a consumer starts on a partition that has no committed offset,
or whose committed offset is out of range. Pure decisions on plain data; the Kafka reads they
need (committed offsets, log bounds, timestamp lookups, creation times) happen at the edge
(``kafka_groups.access.policy_io``).

A policy has two strategies, as KIP-842 proposes:

- ``start`` for a partition with no committed offset: ``earliest``, ``latest`` (optionally with
  a ``max_age``, KIP-1327), ``to_start_time`` (KIP-1282), ``by_duration`` (KIP-1106),
  ``earliest_on_start``, ``latest_on_start`` (KIP-842) or ``none``;
- ``invalid`` for a committed offset outside the log: ``same`` (the start strategy applies, as
  with Kafka's ``auto.offset.reset``; the ``*_on_start`` strategies fail instead, as KIP-842
  says), ``nearest`` (the log start when below it, the log end when above), ``earliest``,
  ``latest`` or ``none``.

Timestamp strategies produce an :class:`AtTime` target that the edge turns into an offset with
ListOffsets; :meth:`Resolver.settle` then places it inside the log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from kafka_groups.core.describe import TopicPartition
from kafka_groups.errors import UsageError


class PolicyError(Exception):
    """A policy cannot choose an offset; the consumer must not guess."""


class GroupCreationTimeNotAvailable(PolicyError):
    """``to_start_time`` without an anchor: the broker does not record the group's creation
    time and no durable anchor was recorded when the group was created."""


class NoOffsetError(PolicyError):
    """The ``none`` strategy met a partition without a committed offset."""


class OffsetOutOfRange(PolicyError):
    """The invalid-offset strategy is ``none`` (or a ``*_on_start`` start strategy)."""


class Start(Enum):
    EARLIEST = "earliest"
    LATEST = "latest"
    TO_START_TIME = "to_start_time"
    BY_DURATION = "by_duration"
    EARLIEST_ON_START = "earliest_on_start"
    LATEST_ON_START = "latest_on_start"
    NONE = "none"


class Invalid(Enum):
    SAME = "same"
    NEAREST = "nearest"
    EARLIEST = "earliest"
    LATEST = "latest"
    NONE = "none"


_ON_START = frozenset({Start.EARLIEST_ON_START, Start.LATEST_ON_START})


def parse_duration(text: str, what: str) -> int:
    """An ISO-8601 duration (``PT10M``, ``P1D``) in milliseconds; it must be positive."""
    from kafka_groups.core.reset_args import parse_duration_ms

    try:
        ms = parse_duration_ms(text)
    except UsageError:
        raise UsageError(f"Invalid {what} '{text}': expected an ISO-8601 duration such as PT10M") from None
    if ms <= 0:
        raise UsageError(f"Invalid {what} '{text}': it must be longer than zero")
    return ms


@dataclass(frozen=True)
class Policy:
    """What to do without a committed offset (``start``) and with an invalid one (``invalid``)."""

    start: Start
    invalid: Invalid = Invalid.SAME
    max_age_ms: int | None = None  # latest only: younger partitions start at the earliest offset
    duration_ms: int | None = None  # by_duration only

    def __post_init__(self) -> None:
        if self.max_age_ms is not None and self.start is not Start.LATEST:
            raise UsageError(f"a max age applies to the latest policy only, not to {self.start.value}")
        if (self.duration_ms is None) != (self.start is not Start.BY_DURATION):
            raise UsageError("by_duration needs a duration, and only by_duration takes one")

    @classmethod
    def parse(cls, start: str, invalid: str = "same", max_age: str | None = None) -> Policy:
        """``start``: a strategy name, or ``by_duration:PT1H`` as in Kafka's ``auto.offset.reset``;
        ``invalid``: an invalid-offset strategy name; ``max_age``: an ISO-8601 duration."""
        name, _, argument = start.strip().partition(":")
        try:
            strategy = Start(name.strip().lower())
        except ValueError:
            names = ", ".join(s.value for s in Start)
            raise UsageError(f"Unknown offset reset policy '{start}' (expected one of: {names})") from None
        try:
            on_invalid = Invalid(invalid.strip().lower())
        except ValueError:
            names = ", ".join(s.value for s in Invalid)
            raise UsageError(
                f"Unknown invalid-offset policy '{invalid}' (expected one of: {names})"
            ) from None
        duration = None
        if strategy is Start.BY_DURATION:
            if not argument:
                raise UsageError("by_duration needs a duration, e.g. by_duration:PT1H")
            duration = parse_duration(argument, "by_duration")
        elif argument:
            raise UsageError(f"The policy {strategy.value} takes no argument, got '{start}'")
        age = parse_duration(max_age, "max age") if max_age is not None else None
        return cls(strategy, on_invalid, age, duration)

    @property
    def needs_group_start(self) -> bool:
        return self.start is Start.TO_START_TIME

    @property
    def needs_partition_age(self) -> bool:
        return self.max_age_ms is not None

    def __str__(self) -> str:
        text = self.start.value
        if self.duration_ms is not None:
            text += f":PT{self.duration_ms / 1000:g}S"
        if self.max_age_ms is not None:
            text += f" (max age {self.max_age_ms / 1000:g}s)"
        if self.invalid is not Invalid.SAME:
            text += f", invalid offsets: {self.invalid.value}"
        return text


@dataclass(frozen=True)
class PartitionFacts:
    """What the edge read for one partition."""

    committed: int | None
    log_start: int
    log_end: int
    created_ms: int | None = None  # the partition's creation time, when known (KIP-1327)

    @property
    def out_of_range(self) -> bool:
        return self.committed is not None and not self.log_start <= self.committed <= self.log_end


@dataclass(frozen=True)
class Offset:
    """Start at this offset."""

    value: int
    reason: str


@dataclass(frozen=True)
class AtTime:
    """Start at the first record at or after ``timestamp_ms`` (the log end when none is)."""

    timestamp_ms: int
    reason: str


Target = Offset | AtTime


@dataclass
class Resolver:
    """Applies one policy to the partitions of one group.

    ``group_start_ms`` is the group's creation time (from the broker, or the durable anchor);
    it is only needed by ``to_start_time``. A ``by_duration`` timestamp is computed once per
    partition and reused until :meth:`forget` (a retried lookup asks for the same instant
    instead of drifting with the clock, the KAFKA-19236 defect)."""

    policy: Policy
    group: str
    group_start_ms: int | None = None
    _duration_targets: dict[TopicPartition, int] = field(default_factory=dict)

    def target(self, tp: TopicPartition, facts: PartitionFacts, now_ms: int) -> Target:
        if facts.committed is not None and not facts.out_of_range:
            return Offset(facts.committed, "committed")
        if facts.committed is None:
            return self._start(tp, facts, now_ms, "no committed offset")
        return self._invalid(tp, facts, now_ms)

    def _invalid(self, tp: TopicPartition, facts: PartitionFacts, now_ms: int) -> Target:
        committed = facts.committed
        assert committed is not None
        where = f"committed offset {committed} is outside the log [{facts.log_start}, {facts.log_end}]"
        strategy = self.policy.invalid
        if strategy is Invalid.SAME:
            if self.policy.start in _ON_START or self.policy.start is Start.NONE:
                raise OffsetOutOfRange(f"{tp[0]}-{tp[1]}: {where} (policy {self.policy.start.value})")
            return self._start(tp, facts, now_ms, where)
        if strategy is Invalid.NEAREST:
            below = committed < facts.log_start
            return Offset(facts.log_start if below else facts.log_end, f"{where}; nearest")
        if strategy is Invalid.EARLIEST:
            return Offset(facts.log_start, f"{where}; earliest")
        if strategy is Invalid.LATEST:
            return Offset(facts.log_end, f"{where}; latest")
        raise OffsetOutOfRange(f"{tp[0]}-{tp[1]}: {where}")

    def _start(self, tp: TopicPartition, facts: PartitionFacts, now_ms: int, why: str) -> Target:
        start = self.policy.start
        if start in (Start.EARLIEST, Start.EARLIEST_ON_START):
            return Offset(facts.log_start, f"{why}; earliest")
        if start is Start.LATEST_ON_START:
            return Offset(facts.log_end, f"{why}; latest")
        if start is Start.LATEST:
            return self._latest(facts, now_ms, why)
        if start is Start.TO_START_TIME:
            if self.group_start_ms is None:
                raise GroupCreationTimeNotAvailable(
                    f"Cannot use to_start_time for group '{self.group}': the broker does not record group "
                    "creation times and no start time was recorded when the group was created."
                )
            return AtTime(self.group_start_ms, f"{why}; to_start_time")
        if start is Start.BY_DURATION:
            assert self.policy.duration_ms is not None
            at = self._duration_targets.setdefault(tp, now_ms - self.policy.duration_ms)
            return AtTime(at, f"{why}; by_duration")
        raise NoOffsetError(f"{tp[0]}-{tp[1]}: {why} and the policy is none")

    def _latest(self, facts: PartitionFacts, now_ms: int, why: str) -> Offset:
        max_age = self.policy.max_age_ms
        if max_age is None:
            return Offset(facts.log_end, f"{why}; latest")
        if facts.created_ms is None:  # KIP-1327: unknown age is plain latest
            return Offset(facts.log_end, f"{why}; latest (partition age unknown)")
        age = now_ms - facts.created_ms
        if age < max_age:
            return Offset(
                facts.log_start, f"{why}; earliest (partition {age / 1000:.0f}s old, under the max age)"
            )
        return Offset(facts.log_end, f"{why}; latest (partition {age / 1000:.0f}s old)")

    def settle(self, target: Target, found: int | None, facts: PartitionFacts) -> int:
        """The offset to start at: ``found`` is the timestamp lookup's answer for an
        :class:`AtTime` target (None: no record that late, so the log end)."""
        if isinstance(target, Offset):
            return target.value
        offset = facts.log_end if found is None else found
        return min(max(offset, facts.log_start), facts.log_end)

    def forget(self, tp: TopicPartition) -> None:
        """The partition is positioned: a later reset computes its by_duration instant anew."""
        self._duration_targets.pop(tp, None)
