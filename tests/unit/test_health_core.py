"""The loss radar's classification and the lag in time (pure), and the reading of the next
record from Fetch bytes, on plain data and record batches built here."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st
from kafka.record.memory_records import MemoryRecordsBuilder

from kafka_groups.access.lagtime import Cut, next_record_in
from kafka_groups.core.health import (
    HOUR_MS,
    HealthResult,
    PartitionFacts,
    Severity,
    Status,
    classify,
    group_health,
    soon_ms,
    summary,
)
from kafka_groups.core.lagtime import NextRecord, lag_time_ms, lag_times

NOW = 1_800_000_000_000
offsets = st.integers(min_value=0, max_value=10**9)


@st.composite
def log_ranges(draw):
    start = draw(offsets)
    return start, start + draw(st.integers(min_value=0, max_value=10**6))


@given(log_ranges(), st.integers(min_value=1, max_value=10**6))
def test_committed_below_the_log_start_is_lost_with_the_deleted_count(bounds, behind):
    start, end = bounds
    committed = max(start - behind, 0)
    health = classify(PartitionFacts("t", 0, committed, start, end), NOW)
    if committed < start:
        assert (health.status, health.severity) == (Status.LOST, Severity.LOST)
        assert health.lost_records == start - committed
        assert f"{start - committed} records deleted" in health.detail
    else:
        assert health.severity is not Severity.LOST


@given(log_ranges(), st.integers(min_value=1, max_value=10**6))
def test_committed_beyond_the_log_end_is_lost(bounds, ahead):
    start, end = bounds
    health = classify(PartitionFacts("t", 0, end + ahead, start, end), NOW)
    assert (health.status, health.severity, health.lost_records) == (Status.LOST, Severity.LOST, None)


@given(log_ranges(), st.data())
def test_inside_the_log_without_timestamps_or_retention_is_healthy(bounds, data):
    start, end = bounds
    committed = data.draw(st.integers(min_value=start, max_value=end))
    health = classify(PartitionFacts("t", 0, committed, start, end), NOW)
    assert (health.status, health.severity, health.lag) == (Status.OK, Severity.HEALTHY, end - committed)


@given(
    st.integers(min_value=1, max_value=30 * 86_400_000),  # retention.ms
    st.integers(min_value=0, max_value=60 * 86_400_000),  # the next record's age
)
def test_at_risk_exactly_when_the_next_record_is_due_within_the_margin(retention, age):
    facts = PartitionFacts("t", 0, 5, 0, 10, next_timestamp_ms=NOW - age, retention_ms=retention)
    health = classify(facts, NOW)
    left = retention - age
    assert health.deleted_in_ms == left
    assert health.lag_ms == age
    due = left <= max(retention // 10, HOUR_MS)
    assert (health.status is Status.AT_RISK) == due
    assert health.severity is (Severity.AT_RISK if due else Severity.HEALTHY)
    if due and left > 0:
        assert "will be deleted in ~" in health.detail


@given(st.integers(min_value=0, max_value=10**9))
def test_unlimited_retention_never_puts_a_record_at_risk(age):
    facts = PartitionFacts("t", 0, 5, 0, 10, next_timestamp_ms=NOW - age, retention_ms=-1)
    assert classify(facts, NOW).status is Status.OK


def test_soon_is_ten_percent_of_retention_or_an_hour():
    assert soon_ms(7 * 86_400_000) == 7 * 8_640_000
    assert soon_ms(2 * HOUR_MS) == HOUR_MS


@given(log_ranges(), st.booleans())
def test_a_partition_without_a_committed_offset(bounds, protected):
    start, end = bounds
    policy = "to_start_time" if protected else None
    health = classify(PartitionFacts("t", 3, None, start, end, protected_by=policy), NOW)
    assert health.records == end - start
    if protected or end == start:
        assert (health.status, health.severity) == (Status.UNCONSUMED, Severity.HEALTHY)
    else:
        assert (health.status, health.severity) == (Status.AT_RISK, Severity.AT_RISK)
    assert ("protected" in health.detail) == protected


def test_retention_bytes_puts_the_next_record_at_risk_when_the_bytes_after_it_near_the_limit():
    base = PartitionFacts("t", 0, 10, 0, 100, retention_bytes=1000, size_bytes=1000)
    assert classify(base, NOW).status is Status.AT_RISK  # 90 % of the log lies after it
    late = PartitionFacts("t", 0, 90, 0, 100, retention_bytes=1000, size_bytes=1000)
    assert classify(late, NOW).status is Status.OK


def test_unknown_log_offsets_are_unknown_not_alarming():
    health = classify(PartitionFacts("t", 0, 5, None, None), NOW)
    assert (health.status, health.severity) == (Status.UNKNOWN, Severity.HEALTHY)


def test_lag_under_time_retention_without_the_next_records_timestamp_is_unknown_not_healthy():
    blind = classify(PartitionFacts("t", 0, 5, 0, 10, retention_ms=86_400_000), NOW)
    assert (blind.status, blind.severity) == (Status.UNKNOWN, Severity.HEALTHY)
    assert "could not be read" in blind.detail
    caught_up = classify(PartitionFacts("t", 0, 10, 0, 10, retention_ms=86_400_000), NOW)
    assert caught_up.status is Status.OK


severities = st.sampled_from(
    [
        PartitionFacts("t", 0, 5, 0, 10),  # healthy
        PartitionFacts("t", 1, 1, 3, 10),  # lost
        PartitionFacts("t", 2, None, 0, 4),  # at risk
    ]
)


@given(st.lists(st.lists(severities, max_size=3), max_size=4))
def test_the_worst_partition_decides_the_group_and_the_worst_group_the_run(groups):
    healths = [group_health(f"g{i}", "Empty", "consumer", facts, NOW) for i, facts in enumerate(groups)]
    result = HealthResult(tuple(healths), NOW)
    for g, facts in zip(healths, groups, strict=True):
        lost = any(f.committed is not None and f.committed < (f.log_start or 0) for f in facts)
        risky = any(f.committed is None for f in facts)
        assert g.severity is (Severity.LOST if lost else Severity.AT_RISK if risky else Severity.HEALTHY)
    assert result.severity == max((g.severity for g in healths), default=Severity.HEALTHY)
    line = summary(result)
    assert ("lost records" in line) == any(g.severity is Severity.LOST for g in healths)
    assert ("at risk" in line) == any(g.severity is Severity.AT_RISK for g in healths)


@given(st.integers(min_value=0, max_value=NOW), st.integers(min_value=0, max_value=10**7))
def test_lag_time_is_now_minus_the_timestamp_and_never_negative(stamp, skew):
    assert lag_time_ms(stamp, NOW) == NOW - stamp
    assert lag_time_ms(NOW + skew, NOW) == 0  # a producer clock ahead of ours
    assert lag_time_ms(-1, NOW) is None
    assert lag_times({("t", 0): NextRecord(3, stamp), ("t", 1): None}, NOW) == {("t", 0): NOW - stamp}


def _batch(base: int, stamps: list[int], gaps: dict[int, int] | None = None) -> bytes:
    builder = MemoryRecordsBuilder(magic=2, compression_type=0, batch_size=1 << 20, offset=base)
    for i, stamp in enumerate(stamps):
        builder.skip((gaps or {}).get(i, 0))
        builder.append(stamp, None, b"value-%d" % i)
    builder.close()
    return bytes(builder.buffer())


@given(
    st.integers(min_value=0, max_value=10**6),
    st.lists(st.integers(min_value=0, max_value=NOW), min_size=1, max_size=20),
    st.data(),
)
def test_the_next_record_is_the_one_at_the_offset_in_its_batch(base, stamps, data):
    two = _batch(base, stamps) + _batch(base + len(stamps), [s + 1 for s in stamps])
    i = data.draw(st.integers(min_value=0, max_value=2 * len(stamps) - 1))
    expected = stamps[i] if i < len(stamps) else stamps[i - len(stamps)] + 1
    assert next_record_in(two, base + i) == NextRecord(base + i, expected)


def test_a_compacted_offset_takes_the_next_record_and_past_the_end_there_is_none():
    data = _batch(100, [1000, 2000, 3000], gaps={1: 5})  # offsets 100, 106, 107
    assert next_record_in(data, 101) == NextRecord(106, 2000)
    assert next_record_in(data, 108) is None
    assert next_record_in(b"", 5) is None


def test_a_batch_cut_short_asks_for_its_whole_size_and_offers_its_first_timestamp():
    data = _batch(50, [7000 + i for i in range(40)])
    cut = next_record_in(data[:100], 60)
    assert isinstance(cut, Cut)
    assert cut.size == len(data)
    assert cut.fallback == NextRecord(60, 7000)


def _result() -> HealthResult:
    facts = [
        PartitionFacts("orders", 0, 2, 7, 20),  # lost
        PartitionFacts("orders", 1, 5, 0, 9, next_timestamp_ms=NOW - 2 * HOUR_MS, retention_ms=-1),
        PartitionFacts("orders", 2, None, 0, 4, created_ms=NOW - HOUR_MS, protected_by="to_start_time"),
    ]
    groups = (group_health("billing", "Empty", "consumer", facts, NOW, start=(NOW - 86_400_000, "recorded")),)
    return HealthResult(groups, NOW)


def test_the_piped_table_splits_on_blanks_into_its_columns_and_ends_with_a_summary():
    from kafka_groups.render.health import COLUMNS, text

    lines = text(_result()).splitlines()
    assert lines[0] == ""
    assert lines[1].split() == list(COLUMNS)
    rows = [line.split(maxsplit=len(COLUMNS) - 1) for line in lines[2:5]]
    assert [(r[2], r[3], r[9]) for r in rows] == [
        ("0", "lost", "5"),
        ("1", "ok", "-"),
        ("2", "unconsumed", "-"),
    ]
    assert rows[1][8] == str(2 * HOUR_MS)
    assert rows[2][7] == "4"  # without a committed offset, LAG is the records the partition holds
    assert lines[5].startswith("SUMMARY group=billing kind=consumer state=Empty severity=lost partitions=3 ")
    assert lines[5].endswith(" policy=-")


def test_the_json_document_has_the_documented_keys():
    from kafka_groups.render.health import json

    doc = json(_result())
    assert set(doc) == {"schema", "now_ms", "severity", "groups", "missing_groups"}
    (group,) = doc["groups"]
    assert set(group) == {"group", "kind", "state", "severity", "policy", "start", "summary", "partitions"}
    assert group["start"] == {"time_ms": NOW - 86_400_000, "source": "recorded"}
    assert group["summary"]["lost_records"] == 5
    assert group["summary"]["uncommitted_records"] == 4
    keys = {
        "topic", "partition", "status", "severity", "current_offset", "log_start_offset", "log_end_offset",
        "lag", "records", "lag_ms", "next_record_timestamp_ms", "lost_records", "retention_ms",
        "retention_bytes", "size_bytes", "deleted_in_ms", "created_ms", "protected_by", "member_id", "detail",
    }  # fmt: skip
    assert all(set(p) == keys for p in group["partitions"])


def test_a_read_the_radar_does_without_is_a_warning_of_its_outcome(capsys):
    """Retention settings, creation times, policies and starts that cannot be read are notes
    on the outcome (stderr before the rows, one renderer), never printed by the command; a
    live --watch view is never written over."""
    from kafka_groups.commands.health import _best_effort, health_outcome
    from kafka_groups.errors import ClusterError
    from kafka_groups.render import OutputFormat

    notes: list[str] = []

    def refused() -> dict[str, int]:
        raise ClusterError("describing configs failed: not authorized")

    assert _best_effort("the topics' retention settings", refused, {}, notes) == {}
    assert _best_effort("the groups' recorded policies", lambda: {"g": 1}, {}, notes) == {"g": 1}
    assert capsys.readouterr() == ("", "")
    assert notes == [
        "Note: the topics' retention settings could not be read (describing configs failed: not authorized)"
    ]
    outcome = health_outcome(HealthResult((), NOW, notes=tuple(notes)), OutputFormat.TEXT)
    assert outcome.warnings == tuple(notes)


@given(st.lists(st.integers(0, 30), max_size=40), st.integers(1, 40))
def test_a_streamed_radar_checks_its_groups_in_parts_of_bounded_rows(sizes, rows):
    """commands/health.split_by_rows: every group once, in order, in runs of at most ``rows``
    partitions, a larger group alone; runs are never needlessly cut (the next group would not
    have fitted)."""
    from kafka_groups.commands.health import split_by_rows

    ids = [f"g{i:02d}" for i in range(len(sizes))]
    size = dict(zip(ids, sizes, strict=True))
    parts = split_by_rows(ids, sizes, rows)
    assert [g for part in parts for g in part] == ids
    assert all(part for part in parts) or parts == [[]]
    for part, following in pairwise(parts):
        total = sum(size[g] for g in part)
        assert total <= rows or len(part) == 1
        assert total + size[following[0]] > rows
    assert split_by_rows(ids, sizes, None) == [ids]
