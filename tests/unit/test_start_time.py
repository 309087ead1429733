"""Where --to-start-time and the state view take a group's start from: the broker's creation
time (KIP-1282) first, else the start kafka-group-tools recorded, else the KIP's error."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.core.reset import START_TIME_UNSUPPORTED, start_time_unavailable
from kafka_groups.core.start_time import (
    BROKER,
    RECORDED,
    START_TIME_HINT,
    GroupStart,
    choose_start,
    source_notice,
    start_time_refusal,
)

MS = st.integers(min_value=0, max_value=4_102_444_800_000)


@given(MS, st.none() | MS)
def test_the_brokers_creation_time_wins(broker_ms: int, recorded_ms: int | None) -> None:
    assert choose_start(broker_ms, recorded_ms) == GroupStart(broker_ms, BROKER)


@given(st.none() | st.just(-1), MS)
def test_the_recorded_start_serves_when_the_broker_has_none(broker_ms: int | None, recorded_ms: int) -> None:
    # None: the broker cannot tell (no ConsumerGroupDescribe v2); -1: it says unknown.
    assert choose_start(broker_ms, recorded_ms) == GroupStart(recorded_ms, RECORDED)


def test_neither_means_no_start() -> None:
    assert choose_start(None, None) is None and choose_start(-1, None) is None


def test_the_refusal_is_the_kip_text_with_the_hint_on_a_second_line() -> None:
    unsupported = start_time_refusal("g", broker_supports=False)
    assert (unsupported.message, unsupported.detail) == (START_TIME_UNSUPPORTED, START_TIME_HINT)
    unknown = start_time_refusal("g", broker_supports=True)
    assert (unknown.message, unknown.detail) == (start_time_unavailable("g"), START_TIME_HINT)
    assert "\n" not in START_TIME_HINT and "PolicyConsumer" in START_TIME_HINT


def test_one_group_notice_names_the_source_and_the_time() -> None:
    recorded = source_notice({"g": GroupStart(1_767_225_600_123, RECORDED)})
    assert recorded == (
        "Notice: --to-start-time for group 'g' uses the start kafka-group-tools recorded for it "
        "(_kgt_group_start_times), 2026-01-01T00:00:00.123Z; the broker reports no creation time."
    )
    broker = source_notice({"g": GroupStart(1_767_225_600_123, BROKER)})
    assert (
        broker
        == "Notice: --to-start-time for group 'g' uses the broker's creation time, 2026-01-01T00:00:00.123Z."
    )


@given(
    st.dictionaries(
        st.text(min_size=1, max_size=8),
        st.builds(GroupStart, MS, st.sampled_from([BROKER, RECORDED])),
        min_size=2,
        max_size=8,
    )
)
def test_many_groups_get_one_line_counting_each_source(starts: dict[str, GroupStart]) -> None:
    line = source_notice(starts)
    assert line.startswith("Notice: --to-start-time uses ")
    brokers = sum(s.source == BROKER for s in starts.values())
    recorded = len(starts) - brokers
    assert (f"the broker's creation time for {brokers} group(s)" in line) == (brokers > 0)
    assert (f"recorded (_kgt_group_start_times) for {recorded} group(s)" in line) == (recorded > 0)
