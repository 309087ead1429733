"""Watch mode from plain data: the interval a user gives, the rate window, lag deltas, catch-up,
what changes between list refreshes, the JSON Lines documents and the flag forms."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.cli.consumer_groups_flags import translate
from kafka_groups.cli.watch_arg import with_watch_default
from kafka_groups.core.groups import GroupListing
from kafka_groups.core.watch import (
    DEFAULT_INTERVAL_S,
    RATE_WINDOW,
    CatchUp,
    DescribeFrame,
    ListFrame,
    PartitionSample,
    RateTracker,
    WatchedGroup,
    catch_up,
    list_changes,
    parse_interval,
    totals,
)
from kafka_groups.errors import UsageError
from kafka_groups.render.watch import describe_json, describe_rows, json_line, list_json, separator

B = ["--bootstrap-server", "b:9092"]


def sample(current, end, group="g", topic="t", partition=0):
    lag = end - current if current is not None and end is not None else None
    return PartitionSample(group, topic, partition, current, end, lag)


# --- the interval -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "seconds"), [(None, 2.0), ("2", 2.0), ("0.5", 0.5), (" 10 ", 10.0), (".75", 0.75)]
)
def test_intervals_accepted(raw, seconds):
    assert parse_interval(raw) == seconds


@pytest.mark.parametrize(
    "raw", ["0", "0.0", "-1", "", "  ", "abc", "1e3", "inf", "nan", "0.4", "86401", "1_000", "2s", "+2"]
)
def test_intervals_refused_with_one_line(raw):
    with pytest.raises(UsageError) as err:
        parse_interval(raw)
    assert "--watch interval" in err.value.message and "\n" not in err.value.message


@given(st.floats(min_value=0.5, max_value=86_400, allow_nan=False).map(lambda x: round(x, 3)))
def test_any_plain_number_in_range_reads_back(seconds):
    assert parse_interval(f"{seconds:.3f}") == pytest.approx(seconds)


# --- rates, deltas, catch-up -------------------------------------------------------------

steps = st.lists(
    st.tuples(st.integers(0, 1000), st.integers(0, 1000), st.floats(0.5, 10, allow_nan=False)),
    min_size=1,
    max_size=12,
)


@given(steps)
def test_rates_are_offset_change_over_the_window_and_deltas_follow_the_lag(moves):
    """Offsets that only go forward: each rate is (offset now - offset at the window's start) /
    (time between them), the window being the last RATE_WINDOW intervals."""
    tracker = RateTracker()
    t, current, end = 0.0, 0, 0
    seen: list[tuple[float, int, int]] = []
    for consumed, produced, dt in moves:
        end += produced
        current = min(end, current + consumed)
        (w,) = tracker.update(t, [sample(current, end)])
        if not seen:
            assert (w.consume_rate, w.produce_rate, w.lag_delta) == (None, None, None)
        else:
            t0, c0, e0 = seen[-RATE_WINDOW:][0]
            assert w.consume_rate == pytest.approx((current - c0) / (t - t0))
            assert w.produce_rate == pytest.approx((end - e0) / (t - t0))
            assert w.rate_window_s == pytest.approx(t - t0)
            assert w.lag_delta == (end - current) - (seen[-1][2] - seen[-1][1])
            assert w.consume_rate >= 0 and w.produce_rate >= 0
        seen.append((t, current, end))
        t += dt


def test_an_offset_going_back_restarts_the_window():
    tracker = RateTracker()
    tracker.update(0.0, [sample(100, 200)])
    tracker.update(1.0, [sample(150, 220)])
    (w,) = tracker.update(2.0, [sample(10, 240)])  # reset to an earlier offset
    assert w.consume_rate is None and w.produce_rate == pytest.approx(20.0)
    (w,) = tracker.update(3.0, [sample(30, 250)])
    assert w.consume_rate == pytest.approx(20.0)


def test_partitions_that_appear_have_no_rates_and_gone_ones_are_forgotten():
    tracker = RateTracker()
    tracker.update(0.0, [sample(0, 10, partition=0)])
    a, b = tracker.update(1.0, [sample(5, 10, partition=0), sample(0, 4, partition=1)])
    assert a.consume_rate == pytest.approx(5.0) and b.consume_rate is None and b.lag_delta is None
    (b,) = tracker.update(2.0, [sample(2, 4, partition=1)])  # partition 0 went (a rebalance)
    assert b.consume_rate == pytest.approx(2.0)
    (a,) = tracker.update(3.0, [sample(9, 10, partition=0)])  # and came back: a fresh start
    assert a.consume_rate is None and a.lag_delta is None


def test_a_group_without_a_commit_has_no_consume_rate():
    tracker = RateTracker()
    tracker.update(0.0, [sample(None, 5)])
    (w,) = tracker.update(1.0, [sample(None, 9)])
    assert w.consume_rate is None and w.produce_rate == pytest.approx(4.0)
    assert w.catch_up is CatchUp.UNKNOWN


@given(st.integers(1, 10**9), st.floats(0, 1e6), st.floats(0, 1e6))
def test_catch_up_is_lag_over_the_net_rate_when_positive(lag, consume, produce):
    state, seconds = catch_up(lag, consume, produce)
    if consume - produce > 0 and math.isfinite(lag / (consume - produce)):
        assert state is CatchUp.CATCHING_UP and seconds == pytest.approx(lag / (consume - produce))
    else:
        assert state is CatchUp.NOT_CATCHING_UP and seconds is None


def test_catch_up_without_lag_or_rates():
    assert catch_up(0, None, None) == (CatchUp.CAUGHT_UP, 0.0)
    assert catch_up(5, None, 1.0) == (CatchUp.UNKNOWN, None)
    assert catch_up(None, 1.0, 0.0) == (CatchUp.UNKNOWN, None)


def test_group_totals_add_the_known_values():
    tracker = RateTracker()
    tracker.update(0.0, [sample(0, 100, partition=0), sample(0, 100, partition=1)])
    rows = tracker.update(2.0, [sample(40, 110, partition=0), sample(20, 100, partition=1)])
    t = totals(rows)
    assert (t.lag, t.lag_delta) == (150, -50)
    assert t.consume_rate == pytest.approx(30.0) and t.produce_rate == pytest.approx(5.0)
    assert t.catch_up is CatchUp.CATCHING_UP and t.catch_up_s == pytest.approx(150 / 25)


@given(
    st.dictionaries(st.sampled_from("abcdef"), st.sampled_from(["Stable", "Empty"])),
    st.dictionaries(st.sampled_from("abcdef"), st.sampled_from(["Stable", "Empty"])),
)
def test_list_changes_partition_the_groups(before, now):
    appeared, gone, changed = list_changes(before, now)
    assert set(appeared) == now.keys() - before.keys()
    assert set(gone) == before.keys() - now.keys()
    assert set(changed) == {g for g in now.keys() & before.keys() if now[g] != before[g]}
    assert list_changes(None, now) == ([], [], [])


# --- the documents -------------------------------------------------------------------------


def _frame(**kw):
    tracker = RateTracker()
    tracker.update(0.0, [sample(0, 10)])
    rows = tuple(tracker.update(2.0, [sample(6, 12)]))
    base = {"timestamp_ms": 1_700_000_000_123, "elapsed_s": 2.0, "interval_s": 2.0}
    return DescribeFrame(**base, groups=(WatchedGroup("g", "Stable", rows),), **kw)


def test_a_document_is_one_line_with_the_numbers_of_each_partition():
    line = json_line(describe_json(_frame(missing=("gone",))))
    assert line.endswith("\n") and "\n" not in line[:-1]
    doc = json.loads(line)
    assert doc["schema"] == "kafka-group-tools/group-watch/v1"
    assert doc["timestamp"] == "2023-11-14T22:13:20.123Z" and doc["interval_s"] == 2.0
    (group,) = doc["groups"]
    (p,) = group["partitions"]
    assert (p["current_offset"], p["log_end_offset"], p["lag"], p["lag_delta"]) == (6, 12, 6, -4)
    assert (p["consume_rate"], p["produce_rate"], p["rate_window_s"]) == (3.0, 1.0, 2.0)
    assert (p["catch_up"], p["catch_up_s"], p["lag_time_ms"]) == ("catching-up", 3.0, None)
    assert (group["lag"], group["catch_up_s"]) == (6, 3.0)
    assert doc["missing_groups"] == ["gone"] and doc["error"] is None


def test_a_failed_refresh_is_a_document_with_its_error_and_no_data():
    doc = describe_json(_frame(error="broker gone"))
    assert doc["error"] == "broker gone" and doc["groups"] is None and doc["missing_groups"] is None
    assert separator(_frame(error="x\x1b[2J")).startswith(
        "Every 2s: 2023-11-14T22:13:20.123Z: refresh failed"
    )
    assert "\x1b" not in separator(_frame(error="x\x1b[2J"))


def test_the_live_table_adds_a_lag_time_column_only_when_measured():
    columns, rows, _ = describe_rows(_frame())
    assert "LAG-TIME" not in columns and rows[0][6:] == ["-4", "3.0/s", "1.0/s", "3s"]


def test_list_document_names_what_changed():
    frame = ListFrame(1, 0.5, 1.0, (GroupListing("a", "Consumer", "Stable", "consumer"),), ("a",), ("b",), ())
    doc = list_json(frame)
    assert doc["groups"] == [{"group": "a", "type": "Consumer", "state": "Stable"}]
    assert (doc["appeared"], doc["disappeared"], doc["changed"]) == (["a"], ["b"], [])


# --- the command lines ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "interval"),
    [
        ([*B, "--describe", "--group", "g", "--watch"], DEFAULT_INTERVAL_S),
        ([*B, "--describe", "--watch", "--group", "g"], DEFAULT_INTERVAL_S),
        ([*B, "--describe", "--group", "g", "--watch", "5"], 5.0),
        ([*B, "--describe", "--group", "g", "--watch=0.5"], 0.5),
        ([*B, "--list", "--watch", "3"], 3.0),
        ([*B, "--describe", "--group", "g"], None),
    ],
)
def test_flag_form_reads_the_interval(argv, interval):
    assert translate(argv).watch == interval


@pytest.mark.parametrize("value", ["--watch=0", "--watch=", "--watch=-1", "--watch=soon"])
def test_flag_form_refuses_bad_intervals(value):
    with pytest.raises(UsageError):
        translate([*B, "--describe", "--group", "g", value])


def test_watch_is_only_for_describe_and_list():
    with pytest.raises(UsageError, match="unavailable"):
        translate([*B, "--delete", "--group", "g", "--watch"])


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["describe", "--watch"], ["describe", "--watch", "2"]),
        (["describe", "--watch", "--group", "g"], ["describe", "--watch", "2", "--group", "g"]),
        (["describe", "--watch", "5"], ["describe", "--watch", "5"]),
        (["list", "--watch", "-", "x"], ["list", "--watch", "-", "x"]),
        (["list", "--", "--watch"], ["list", "--", "--watch"]),
        (["--describe", "--watch"], ["--describe", "--watch"]),  # the flag form reads it itself
        (["reset-offsets", "--watch"], ["reset-offsets", "--watch"]),
        (["describe", "--watch", "-1", "--group", "g"], ["describe", "--watch=-1", "--group", "g"]),
        (["--describe", "--watch", "-0.5"], ["--describe", "--watch=-0.5"]),
    ],
)
def test_subcommand_form_gets_the_default_interval_written_in(argv, expected):
    assert with_watch_default(argv) == expected


def _offers(prog, line):
    from kafka_groups.cli import complete
    from kafka_groups.cli.complete import split_line

    words, incomplete = split_line(line)
    return [v for v, _ in complete.complete(prog, words, incomplete).candidates if v.startswith(incomplete)]


@pytest.mark.parametrize("prog", ["kafka-consumer-groups", "kafka-streams-groups"])
def test_completion_offers_intervals_after_watch_and_options_after_a_dash(prog):
    assert "2" in _offers(prog, f"{prog} --describe --group g --watch ")
    assert "2" in _offers(prog, f"{prog} --list --watch ")
    assert "--bootstrap-server" in _offers(prog, f"{prog} --describe --watch -")
    assert "--watch" in _offers(prog, f"{prog} --describe --group g --")
    assert "--watch" not in _offers(prog, f"{prog} --reset-offsets --group g --")
    # --describe --state still takes no value
    assert "Stable" not in _offers(prog, f"{prog} --describe --group g --state ")


# --- the compact history against the plain one -------------------------------------------


class _PlainTracker:
    """The rate window kept as one tuple of samples per (group, topic, partition): the model the
    compact history (RateTracker) must agree with."""

    def __init__(self) -> None:
        self.history: dict[
            tuple[str, str, int], tuple[tuple[float, int | None, int | None, int | None], ...]
        ] = {}

    def update(self, at_s, samples):
        from kafka_groups.core.watch import _rate, _Seen

        out, history = [], {}
        for s in samples:
            now = _Seen(at_s, s.current_offset, s.log_end_offset, s.lag)
            past = self.history.get(s.key, ())
            previous = past[-1] if past and past[-1].at_s < at_s else None
            delta = None
            if previous is not None and previous.lag is not None and s.lag is not None:
                delta = s.lag - previous.lag
            usable = [p for p in past if p.at_s < at_s]
            consume, span_c = _rate(usable, now, "current_offset")
            produce, span_p = _rate(usable, now, "log_end_offset")
            state, seconds = catch_up(s.lag, consume, produce)
            spans = [x for x in (span_c, span_p) if x is not None]
            out.append((s, delta, consume, produce, max(spans) if spans else None, state, seconds))
            history[s.key] = (*usable, now)[-RATE_WINDOW:]
        self.history = history
        return out


_offset = st.one_of(st.none(), st.integers(0, 50), st.integers(2**40, 2**40 + 3))
_row = st.tuples(
    st.sampled_from(["g1", "g2", "g3"]), st.sampled_from(["t", "u"]), st.integers(0, 3), _offset, _offset
)
_refresh = st.tuples(st.sampled_from([0.0, 0.5, 1.0, 2.5]), st.lists(_row, max_size=10), st.integers(1, 3))


@given(st.lists(_refresh, min_size=1, max_size=10))
def test_the_compact_history_gives_what_a_sample_per_partition_gives(refreshes):
    """Groups that come and go, partitions that move between members (rows reordered), appear and
    disappear, offsets that go back or are unknown, a refresh at the same time as the last, a
    partition named twice, a refresh fed in parts: every delta and rate as the plain model's."""
    compact, plain = RateTracker(), _PlainTracker()
    t = 0.0
    for step, rows, parts in refreshes:
        t += step
        samples = [
            PartitionSample(g, tp, p, c, e, e - c if c is not None and e is not None else None)
            for g, tp, p, c, e in sorted(rows, key=lambda r: r[0])
        ]
        expected = plain.update(t, samples)
        groups = list(dict.fromkeys(s.group for s in samples))
        compact.begin(t)
        got = []
        for i in range(parts):  # whole groups in each part
            chosen = set(groups[i::parts])
            got += compact.feed([s for s in samples if s.group in chosen])
        compact.end()
        order = {g: i for i, g in enumerate(groups)}
        expected.sort(key=lambda e: (order[e[0].group] % parts, order[e[0].group]))
        assert [
            (w.sample, w.lag_delta, w.consume_rate, w.produce_rate, w.rate_window_s, w.catch_up, w.catch_up_s)
            for w in got
        ] == expected


def test_an_idle_group_keeps_one_array_of_offsets_whatever_the_window():
    tracker = RateTracker()
    rows = [sample(5, 9, partition=p) for p in range(10)]
    for t in range(RATE_WINDOW + 3):
        tracker.update(float(t), rows)
    kept = tracker._history["g"]
    assert len(kept.values) == RATE_WINDOW and len({id(v) for v in kept.values}) == 1
    tracker.update(99.0, [sample(6, 9, partition=p) for p in range(10)])
    assert len({id(v) for v in tracker._history["g"].values}) == 2


@given(st.lists(st.integers(0, 4), max_size=6), st.lists(st.sampled_from(["gone", "né", 'q"x']), max_size=3))
def test_a_refresh_written_in_parts_is_the_line_of_the_whole_document(sizes, missing):
    """JSON Lines of a watch of many groups are written part by part (render/watch_sinks.Parts):
    the line is the same characters as the whole document's, whatever the parts (empty ones too)."""
    import io

    from kafka_groups.render.watch_sinks import JsonLines

    tracker = RateTracker()
    groups, parts = [], []
    for i, size in enumerate(sizes):
        part = []
        for j in range(size):
            name = f"g{i}-{j}é"
            part.append(WatchedGroup(name, "Empty", tuple(tracker.update(1.0, [sample(1, 3, group=name)]))))
        parts.append(part)
        groups += part
    base = {"timestamp_ms": 1_700_000_000_123, "elapsed_s": 2.5, "interval_s": 2.0}
    whole = json_line(describe_json(DescribeFrame(**base, groups=tuple(groups), missing=tuple(missing))))
    out = io.StringIO()
    written = JsonLines(out).parts(DescribeFrame(**base))
    assert written is not None
    for part in parts:
        written.add(part, None)
        assert out.getvalue() == ""  # nothing reaches the stream before the refresh is complete
    written.end(missing)
    assert out.getvalue() == whole


def test_a_refresh_that_fails_half_way_writes_nothing_of_it():
    import io

    from kafka_groups.render.watch_sinks import JsonLines

    out = io.StringIO()
    written = JsonLines(out).parts(_frame())
    assert written is not None
    written.add(_frame().groups, None)
    written.close()  # the refresh failed: its failure is shown instead
    assert out.getvalue() == ""
