"""The reset planner with plain data: scenarios, clamping, parsing, the plan file, export."""

import datetime as dt
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.core.reset import (
    START_TIME_UNSUPPORTED,
    PartitionOffsets,
    ResetSpec,
    Scenario,
    backup_csv,
    export_csv,
    order_groups,
    parse_datetime,
    parse_duration_ms,
    parse_plan_csv,
    parse_topic_arg,
    plan_group,
    start_time_unavailable,
    start_timestamp,
)
from kafka_groups.errors import CliError, UsageError

TP0, TP1, TP2 = ("t", 0), ("t", 1), ("t", 2)
DATA = PartitionOffsets(
    committed={TP0: 50, TP1: 5},
    starts={TP0: 10, TP1: 10, TP2: 0},
    ends={TP0: 100, TP1: 100, TP2: 7},
    by_time={TP0: 42, TP1: None, TP2: 3},
)


def _plan(spec, scope=(TP0, TP1, TP2), data=DATA):
    return plan_group("g", spec, list(scope), data)


def _utc(*args):
    return int(dt.datetime(*args, tzinfo=dt.timezone.utc).timestamp() * 1000)


# -- scenarios --------------------------------------------------------------------------
def test_to_offset_is_clamped_with_the_apache_warnings():
    plan = _plan(ResetSpec(Scenario.TO_OFFSET, offset=60))
    assert dict(plan.offsets) == {TP0: 60, TP1: 60, TP2: 7}
    assert plan.warnings == (
        "New offset (60) is higher than latest offset for topic partition t-2. Value will be set to 7",
    )
    low = _plan(ResetSpec(Scenario.TO_OFFSET, offset=-5), scope=[TP0])
    assert dict(low.offsets) == {TP0: 10}
    assert "is lower than earliest offset for topic partition t-0. Value will be set to 10" in low.warnings[0]


def test_earliest_latest_and_current_are_not_clamped():
    assert dict(_plan(ResetSpec(Scenario.TO_EARLIEST)).offsets) == {TP0: 10, TP1: 10, TP2: 0}
    assert dict(_plan(ResetSpec(Scenario.TO_LATEST)).offsets) == {TP0: 100, TP1: 100, TP2: 7}
    # to-current keeps even an out-of-range committed offset; no commit -> log end
    assert dict(_plan(ResetSpec(Scenario.TO_CURRENT)).offsets) == {TP0: 50, TP1: 5, TP2: 7}


def test_shift_by_needs_a_committed_offset():
    assert dict(_plan(ResetSpec(Scenario.SHIFT_BY, shift=-45), scope=[TP0, TP1]).offsets) == {
        TP0: 10,
        TP1: 10,
    }
    with pytest.raises(UsageError) as info:
        _plan(ResetSpec(Scenario.SHIFT_BY, shift=1))
    assert (
        info.value.message
        == "Cannot shift offset for partition t-2 since there is no current committed offset"
    )


def test_timestamp_scenarios_fall_back_to_the_log_end():
    for scenario in (Scenario.TO_DATETIME, Scenario.BY_DURATION, Scenario.TO_START_TIME):
        plan = _plan(ResetSpec(scenario, timestamp_ms=1))
        assert dict(plan.offsets) == {TP0: 42, TP1: 100, TP2: 3}
        assert plan.fallbacks == (TP1,)
        assert plan.warnings == ()


def test_to_nearest_moves_only_out_of_range_committed_offsets():
    data = PartitionOffsets(committed={TP0: 50, TP1: 5, TP2: 9}, starts=DATA.starts, ends=DATA.ends)
    plan = _plan(ResetSpec(Scenario.TO_NEAREST), data=data)
    assert dict(plan.offsets) == {TP1: 10, TP2: 7}  # t-0 is in range and keeps its offset


def test_from_file_is_clamped_and_per_group():
    spec = ResetSpec(Scenario.FROM_FILE, plan={"g": {TP0: 1000, TP2: 3}, "other": {TP1: 0}})
    plan = _plan(spec, scope=[])
    assert dict(plan.offsets) == {TP0: 100, TP2: 3}
    assert len(plan.warnings) == 1


def test_plan_order_is_the_apache_hashmap_order():
    data = PartitionOffsets(
        committed={}, starts={("foo", p): 0 for p in range(10)}, ends={("foo", p): 5 for p in range(10)}
    )
    plan = plan_group("g", ResetSpec(Scenario.TO_EARLIEST), [("foo", p) for p in range(10)], data)
    assert [p for _, p in plan.offsets] == [6, 7, 4, 5, 2, 3, 0, 1, 8, 9]


# -- properties -------------------------------------------------------------------------
bounds = st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)).map(sorted)


@given(bounds, st.integers(-(10**7), 10**7))
def test_clamped_targets_always_land_in_range(b, target):
    start, end = b
    data = PartitionOffsets(committed={}, starts={TP0: start}, ends={TP0: end})
    (offset,) = _plan(ResetSpec(Scenario.TO_OFFSET, offset=target), scope=[TP0], data=data).offsets.values()
    assert start <= offset <= end
    assert offset == min(max(target, start), end)


@given(bounds, st.integers(0, 10**6), st.integers(-(10**6), 10**6))
def test_shift_is_committed_plus_n_clamped(b, committed, shift):
    start, end = b
    data = PartitionOffsets(committed={TP0: committed}, starts={TP0: start}, ends={TP0: end})
    (offset,) = _plan(ResetSpec(Scenario.SHIFT_BY, shift=shift), scope=[TP0], data=data).offsets.values()
    assert offset == min(max(committed + shift, start), end)


@given(st.dictionaries(st.integers(0, 50), st.integers(0, 10**6), min_size=1))
def test_to_current_is_idempotent(committed_by_partition):
    committed = {("t", p): o for p, o in committed_by_partition.items()}
    scope = [*committed, ("t", 99)]
    data = PartitionOffsets(
        committed=committed, starts=dict.fromkeys(scope, 0), ends=dict.fromkeys(scope, 10**7)
    )
    first = _plan(ResetSpec(Scenario.TO_CURRENT), scope=scope, data=data).offsets
    again = PartitionOffsets(committed=dict(first), starts=data.starts, ends=data.ends)
    assert dict(_plan(ResetSpec(Scenario.TO_CURRENT), scope=scope, data=again).offsets) == dict(first)
    assert all(first[tp] == o for tp, o in committed.items())


# -- parsing ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2019-01-01T00:00:00.000", _utc(2019, 1, 1)),
        ("2019-01-01T00:00:00.000Z", _utc(2019, 1, 1)),
        ("2019-01-01T00:00:00.000+00:00", _utc(2019, 1, 1)),
        ("2019-01-01T00:00:00.000+00", _utc(2019, 1, 1)),
        ("2019-01-01T05:30:00.000+05:30", _utc(2019, 1, 1)),
        ("2019-01-01T05:00:00.000+0530", _utc(2019, 1, 1)),  # minutes dropped, as Java does
        ("2019-01-01T00:00:00.000-0530", _utc(2019, 1, 1, 5)),
        ("2019-01-01T05:00:00.000+05", _utc(2019, 1, 1)),
        ("2019-01-01T00:00:00.5", _utc(2019, 1, 1) + 5),  # the fraction counts milliseconds
        ("2019-01-01T00:00:00.0001", _utc(2019, 1, 1) + 1),
        ("2019-1-1T0:0:0.0", _utc(2019, 1, 1)),
        ("2019-01-01T00:00:00.000Zgarbage", _utc(2019, 1, 1)),
        ("2019-01-01T00:00:00.000 +05:00", _utc(2018, 12, 31, 19)),
    ],
)
def test_datetimes_the_apache_tool_accepts_give_the_same_instant(text, expected):
    assert parse_datetime(text) == expected


@pytest.mark.parametrize(
    "text",
    ["2019-01-01T00:00:00", "2019-01-01T00:00:00Z", "2019-01-01T00:00:00.123456+01:00"],
)
def test_iso_forms_the_apache_tool_refuses_are_refused(text):
    # The Apache tool fails with "Unparseable date"; reading them anyway would reset offsets
    # with --execute where the Apache tool changes nothing.
    with pytest.raises(UsageError, match="Unparseable date"):
        parse_datetime(text)


@pytest.mark.parametrize(
    "text", ["2019-01-01", "2019-01-01T", "2019-02-30T00:00:00.000", "yesterday", "2019-13-01T00:00"]
)
def test_invalid_datetimes(text):
    with pytest.raises(UsageError):
        parse_datetime(text)


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("PT1M", 60_000),
        ("PT0.1S", 100),
        ("P1DT2H", 93_600_000),
        ("-PT1M", -60_000),
        ("+PT1H", 3_600_000),
        ("pt1s", 1000),
    ],
)
def test_durations(text, ms):
    assert parse_duration_ms(text) == ms


@pytest.mark.parametrize("text", ["P1W", "P1M", "PT1.5H", "PT", "P", "1H", ""])
def test_invalid_durations(text):
    with pytest.raises(UsageError, match="Invalid --by-duration"):
        parse_duration_ms(text)


@pytest.mark.parametrize(
    ("arg", "expected"),
    [("t", ("t", None)), ("t:0,2", ("t", [0, 2])), ("t:1:", ("t", [1]))],
)
def test_topic_args(arg, expected):
    assert parse_topic_arg(arg) == expected


@pytest.mark.parametrize(
    ("arg", "message"),
    [
        ("t:0:1", "Invalid topic arg 't:0:1', expected topic name and partitions"),
        ("t:x", "Invalid partition 'x' specified in topic arg 't:x''"),
        ("t:,0", "Invalid partition '' specified in topic arg 't:,0''"),
        ("t: 1", "Invalid partition ' 1' specified in topic arg 't: 1''"),
    ],
)
def test_bad_topic_args(arg, message):
    with pytest.raises(UsageError) as info:
        parse_topic_arg(arg)
    assert info.value.message == message


# -- the plan file ----------------------------------------------------------------------
def test_three_and_four_column_files():
    assert parse_plan_csv("t,0,5\nt,1,6\n", ["g"], "f") == {"g": {TP0: 5, TP1: 6}}
    four = "g,t,0,5\nh,t,1,6\n"
    assert parse_plan_csv(four, ["g", "h"], "f") == {"g": {TP0: 5}, "h": {TP1: 6}}
    assert parse_plan_csv("g,t,0,5\r\n", ["g"], "f") == {"g": {TP0: 5}}  # a 4-column file with one --group


@pytest.mark.parametrize(
    ("text", "groups", "message"),
    [
        ("", ["g"], "--from-file f is empty"),
        ("t,0\n", ["g"], "line 1: expected 4 columns"),
        ("t,0,5\nt,1\n", ["g"], "line 2: expected 3 columns"),
        ("t,0,5\n\nt,1,5\n", ["g"], "line 2: expected 3 columns"),
        ("t,x,5\n", ["g"], "line 1: expected 4 columns"),
        ("g,t,0,five\n", ["g"], "partition and offset must be whole numbers"),
        ("t,0,5\nt,0,6\n", ["g"], "t-0 of group 'g' appears twice"),
        ("h,t,0,5\nh,t,1,5\n", ["g"], "group 'h' is not one of the groups being reset"),
    ],
)
def test_bad_plan_files(text, groups, message):
    with pytest.raises(UsageError, match=message):
        parse_plan_csv(text, groups, "f")


def test_export_formats_round_trip():
    plans = order_groups([plan_group("g", ResetSpec(Scenario.TO_LATEST), [TP0, TP1], DATA)])
    single = export_csv(plans, single_group=True)
    # Rows in the Apache order (HashMap of partitions: t-1 before t-0), a blank line at the end.
    assert single == "t,1,100\nt,0,100\n\n"
    assert export_csv(plans, single_group=False) == "g,t,1,100\ng,t,0,100\n\n"
    assert parse_plan_csv(single, ["g"], "x") == {"g": {TP0: 100, TP1: 100}}
    assert export_csv([], single_group=True) == "\n"


def test_backup_is_a_four_column_plan_file():
    text = backup_csv({"b": {TP1: 3}, "a g": {TP0: 1}})
    assert text == '"a g",t,0,1\nb,t,1,3\n'
    assert parse_plan_csv(text, ["a g", "b"], "backup") == {"a g": {TP0: 1}, "b": {TP1: 3}}


_NAMES = st.text(st.characters(exclude_characters="\r\n", exclude_categories=("Cs",)), min_size=1, max_size=8)


@given(
    st.dictionaries(
        _NAMES,
        st.dictionaries(
            st.tuples(_NAMES, st.integers(0, 2**31 - 1)), st.integers(0, 2**63 - 1), min_size=1, max_size=4
        ),
        min_size=1,
        max_size=3,
    )
)
def test_a_backup_reads_back_as_the_offsets_it_holds(current):
    """Whatever the group and topic names (commas, quotes, spaces, control characters), the
    backup file is read back by --from-file as exactly the offsets it saved."""
    assert parse_plan_csv(backup_csv(current), list(current), "backup") == current


def test_start_time_uses_the_creation_time_or_fails_with_the_kip_message():
    assert start_timestamp("g", 1_767_225_600_123) == 1_767_225_600_123
    for unknown in (-1, None):
        with pytest.raises(CliError) as info:
            start_timestamp("g", unknown)
        assert info.value.message == start_time_unavailable("g")
        assert "for group 'g'." in info.value.message


KIP_1282 = Path(__file__).resolve().parents[3] / "shared" / "kips" / "KIP-1282-group-creation-time.txt"


@pytest.mark.skipif(not KIP_1282.exists(), reason="the KIP texts live in ../shared beside the checkout")
def test_to_start_time_errors_are_the_kip_texts_word_for_word():
    kip = KIP_1282.read_text()
    said = set(re.findall(r"Error: (Cannot reset offsets using --to-start-time\. .+?Please [a-z ]+\.)", kip))
    assert len(said) == 2, said  # the two cases the KIP distinguishes
    assert said == {START_TIME_UNSUPPORTED, start_time_unavailable("<group>")}


def test_a_two_group_plan_replayed_for_one_group_takes_its_rows_and_counts_the_rest():
    """The Apache tool's testResetOffsetsExportImportPlan: a two-group export imported with each
    --group alone resets that group from its own rows."""
    two = "g,t,0,5\nh,t,0,7\ng,t,1,6\nh,t,1,8\n"
    for group, offsets, other in (("g", {TP0: 5, TP1: 6}, "h"), ("h", {TP0: 7, TP1: 8}, "g")):
        skipped: dict[str, int] = {}
        assert parse_plan_csv(two, [group], "f", skipped) == {group: offsets}
        assert skipped == {other: 2}


def test_all_groups_with_a_plan_file_means_the_groups_of_the_file(tmp_path):
    """--reset-offsets --from-file FILE --all-groups: every group the file names, existing or not
    (the undo of a --delete of many groups); --exclude-group still narrows it."""
    from kafka_groups.commands.reset_offsets import ResetOffsetsRequest
    from kafka_groups.settings import ConnectionArgs

    plan = tmp_path / "plan.csv"
    plan.write_text('b,t,0,1\n"a\nb",t,1,2\nc,t,0,3\n')
    request = ResetOffsetsRequest(
        ConnectionArgs("b:9092"), all_groups=True, scenarios=((Scenario.FROM_FILE, str(plan)),)
    )
    selection = request.selection_for(request.spec())
    assert selection.pick() == ["b", "a\nb", "c"] and not selection.lists
    excluding = ResetOffsetsRequest(
        ConnectionArgs("b:9092"),
        all_groups=True,
        exclude_groups=("c",),
        scenarios=((Scenario.FROM_FILE, str(plan)),),
    )
    assert excluding.selection_for(excluding.spec()).pick() == ["b", "a\nb"]
    other = ResetOffsetsRequest(ConnectionArgs("b:9092"), all_groups=True)
    assert other.selection_for(ResetSpec(Scenario.TO_EARLIEST)).lists  # the cluster's groups
