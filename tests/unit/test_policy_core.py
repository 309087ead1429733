"""The offset-reset policy decisions, on plain data."""

from __future__ import annotations

import pytest

from kafka_groups.core.policy import (
    AtTime,
    GroupCreationTimeNotAvailable,
    Invalid,
    NoOffsetError,
    Offset,
    OffsetOutOfRange,
    PartitionFacts,
    Policy,
    Resolver,
    Start,
)
from kafka_groups.errors import UsageError

TP = ("t", 0)
NOW = 1_000_000_000
MINUTE = 60_000


def target(policy: Policy, facts: PartitionFacts, start_ms: int | None = None, now: int = NOW):
    return Resolver(policy, "g", start_ms).target(TP, facts, now)


def no_offset(created_ms: int | None = None) -> PartitionFacts:
    return PartitionFacts(None, 5, 50, created_ms)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("earliest", Offset(5, "no committed offset; earliest")),
        ("latest", Offset(50, "no committed offset; latest")),
        ("earliest_on_start", Offset(5, "no committed offset; earliest")),
        ("latest_on_start", Offset(50, "no committed offset; latest")),
    ],
)
def test_start_strategies_without_a_committed_offset(text, expected):
    assert target(Policy.parse(text), no_offset()) == expected


def test_a_valid_committed_offset_is_kept_by_every_policy():
    for start in ("earliest", "latest", "to_start_time", "by_duration:PT1H", "none", "latest_on_start"):
        for facts in (PartitionFacts(5, 5, 50), PartitionFacts(50, 5, 50), PartitionFacts(20, 5, 50)):
            assert target(Policy.parse(start), facts) == Offset(facts.committed, "committed")


def test_none_fails_without_a_committed_offset():
    with pytest.raises(NoOffsetError, match="t-0"):
        target(Policy.parse("none"), no_offset())


def test_max_age_starts_young_partitions_at_their_first_record():
    policy = Policy.parse("latest", max_age="PT10M")
    young = target(policy, no_offset(created_ms=NOW - 9 * MINUTE))
    old = target(policy, no_offset(created_ms=NOW - 11 * MINUTE))
    assert isinstance(young, Offset) and young.value == 5 and "under the max age" in young.reason
    assert isinstance(old, Offset) and old.value == 50


def test_max_age_with_an_unknown_age_is_plain_latest():
    """KIP-1327: a partition of unknown age gets the plain latest offset."""
    result = target(Policy.parse("latest", max_age="PT10M"), no_offset(created_ms=None))
    assert result == Offset(50, "no committed offset; latest (partition age unknown)")


def test_to_start_time_looks_up_the_group_start():
    assert target(Policy.parse("to_start_time"), no_offset(), start_ms=123) == AtTime(
        123, "no committed offset; to_start_time"
    )


def test_to_start_time_without_an_anchor_raises():
    with pytest.raises(GroupCreationTimeNotAvailable, match="group 'g'"):
        target(Policy.parse("to_start_time"), no_offset(), start_ms=None)


def test_by_duration_instant_is_computed_once_per_partition():
    """KAFKA-19236: a retried lookup must ask for the same instant, not a later one."""
    resolver = Resolver(Policy.parse("by_duration:PT1H"), "g")
    first = resolver.target(TP, no_offset(), NOW)
    retried = resolver.target(TP, no_offset(), NOW + 5 * MINUTE)
    other = resolver.target(("t", 1), no_offset(), NOW + 5 * MINUTE)
    assert first == retried == AtTime(NOW - 60 * MINUTE, "no committed offset; by_duration")
    assert isinstance(other, AtTime) and other.timestamp_ms == NOW - 55 * MINUTE
    resolver.forget(TP)
    again = resolver.target(TP, no_offset(), NOW + 5 * MINUTE)
    assert isinstance(again, AtTime) and again.timestamp_ms == NOW - 55 * MINUTE


@pytest.mark.parametrize(
    ("committed", "invalid", "expected"),
    [
        (2, "nearest", 5),
        (70, "nearest", 50),
        (2, "earliest", 5),
        (70, "earliest", 5),
        (2, "latest", 50),
        (70, "latest", 50),
    ],
)
def test_invalid_offset_strategies(committed, invalid, expected):
    result = target(Policy.parse("to_start_time", invalid=invalid), PartitionFacts(committed, 5, 50))
    assert isinstance(result, Offset) and result.value == expected
    assert f"committed offset {committed} is outside the log [5, 50]" in result.reason


def test_same_applies_the_start_strategy_to_an_invalid_offset():
    facts = PartitionFacts(2, 5, 50)
    assert target(Policy.parse("latest"), facts).value == 50  # type: ignore[union-attr]
    assert target(Policy.parse("earliest"), facts).value == 5  # type: ignore[union-attr]
    assert isinstance(target(Policy.parse("to_start_time"), facts, start_ms=7), AtTime)


@pytest.mark.parametrize("start", ["latest_on_start", "earliest_on_start", "none"])
def test_on_start_strategies_refuse_an_invalid_offset(start):
    """KIP-842: the *_on_start strategies choose a first position only."""
    with pytest.raises(OffsetOutOfRange, match="outside the log"):
        target(Policy.parse(start), PartitionFacts(2, 5, 50))
    assert target(Policy.parse(start, invalid="nearest"), PartitionFacts(2, 5, 50)).value == 5  # type: ignore[union-attr]


def test_invalid_none_refuses():
    with pytest.raises(OffsetOutOfRange):
        target(Policy.parse("earliest", invalid="none"), PartitionFacts(60, 5, 50))


def test_settle_places_a_timestamp_answer_inside_the_log():
    resolver = Resolver(Policy.parse("to_start_time"), "g", 1)
    facts = PartitionFacts(None, 5, 50)
    at = AtTime(1, "x")
    assert resolver.settle(at, 17, facts) == 17
    assert resolver.settle(at, None, facts) == 50  # no record that late: the log end
    assert resolver.settle(at, 2, facts) == 5
    assert resolver.settle(Offset(9, "x"), None, facts) == 9


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("sometimes",), "Unknown offset reset policy 'sometimes'"),
        (("latest", "closest"), "Unknown invalid-offset policy 'closest'"),
        (("by_duration",), "by_duration needs a duration"),
        (("by_duration:1h",), "Invalid by_duration '1h'"),
        (("earliest:PT1H",), "takes no argument"),
        (("earliest", "same", "PT1H"), "a max age applies to the latest policy only"),
        (("latest", "same", "PT0S"), "must be longer than zero"),
    ],
)
def test_bad_policy_text(args, message):
    with pytest.raises(UsageError, match=message):
        Policy.parse(*args)


def test_policy_text_round_trip():
    policy = Policy.parse(" By_Duration:PT1H30M ", invalid="NEAREST")
    assert policy == Policy(Start.BY_DURATION, Invalid.NEAREST, None, 90 * MINUTE)
    assert str(policy) == "by_duration:PT5400S, invalid offsets: nearest"
    assert str(Policy.parse("latest", max_age="PT10M")) == "latest (max age 600s)"
    assert Policy.parse("to_start_time").needs_group_start and not Policy.parse("latest").needs_group_start


def test_the_first_record_of_a_group_start_wins():
    from kafka_groups.access.registry import _first_start, _Record

    records = [
        _Record("other", {"group": "other"}, 5, 0),
        _Record("g", {"group": "g"}, 10, 1),
        _Record("g", {"group": "g"}, 12, 2),
        _Record("g", {"group": "g", "start_time_ms": 10}, 13, 3),
    ]
    assert _first_start(records, "g") == 10
    assert _first_start(records[3:], "g") == 10  # after compaction only the confirmation is left
    assert _first_start(records[:1], "g") is None
