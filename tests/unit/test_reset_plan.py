"""plan_reset(request, snapshot) with plain data: the whole reset planned without a cluster."""

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.core.reset import ResetSpec, Scenario
from kafka_groups.core.reset_plan import (
    GroupFacts,
    ResetRequest,
    ResetResult,
    Snapshot,
    plan_reset,
    reset_failure,
)
from kafka_groups.errors import CliError, ClusterError, ExitCode, UsageError

# -- a cluster as plain data ------------------------------------------------------------
TOPICS = ("orders", "payments")


@st.composite
def snapshots(draw, groups=("g1", "g2", "g3")):
    """Groups with committed offsets on some partitions of two topics, and the log bounds of
    every partition (a committed offset may lie outside them: data deleted or truncated)."""
    partitions = {t: {p: 1 for p in range(draw(st.integers(1, 4)))} for t in TOPICS}
    every = [(t, p) for t in TOPICS for p in partitions[t]]
    starts, ends = {}, {}
    for tp in every:
        starts[tp] = draw(st.integers(0, 1_000))
        ends[tp] = starts[tp] + draw(st.integers(0, 1_000))
    committed = {g: {tp: draw(st.integers(0, 2_500)) for tp in every if draw(st.booleans())} for g in groups}
    states = {g: draw(st.sampled_from(["Empty", "Dead", "Stable"])) for g in groups}
    return Snapshot(
        ids=tuple(groups),
        facts={g: GroupFacts(s) for g, s in states.items() if s != "Dead"},  # Dead: not described
        committed=committed,
        partitions=partitions,
        starts=starts,
        ends=ends,
    )


SPECS = st.one_of(
    st.just(ResetSpec(Scenario.TO_EARLIEST)),
    st.just(ResetSpec(Scenario.TO_LATEST)),
    st.just(ResetSpec(Scenario.TO_NEAREST)),
    st.integers(-(2**40), 2**40).map(lambda n: ResetSpec(Scenario.TO_OFFSET, offset=n)),
)
SCOPES = st.sampled_from([((), True), (("orders",), False), (("orders", "payments"), False)])


def _within_bounds(plan, snapshot):
    return [
        (group.group, tp, offset)
        for group in plan.groups
        for tp, offset in group.offsets.items()
        if not snapshot.starts[tp] <= offset <= snapshot.ends[tp]
    ]


@given(snapshots(), SPECS, SCOPES)
def test_every_planned_offset_lies_within_the_log(snapshot, spec, scope):
    topics, all_topics = scope
    plan = plan_reset(ResetRequest(spec, topics=topics, all_topics=all_topics), snapshot)
    assert _within_bounds(plan, snapshot) == []


@given(snapshots(), st.integers(-3_000, 3_000), SCOPES)
def test_shift_by_stays_within_the_log_or_is_refused(snapshot, shift, scope):
    topics, all_topics = scope
    request = ResetRequest(ResetSpec(Scenario.SHIFT_BY, shift=shift), topics=topics, all_topics=all_topics)
    try:
        plan = plan_reset(request, snapshot)
    except UsageError as exc:  # a partition in scope without a committed offset
        assert "there is no current committed offset" in exc.message
        return
    assert _within_bounds(plan, snapshot) == []
    for group in plan.groups:
        for tp, offset in group.offsets.items():
            wanted = snapshot.committed[group.group][tp] + shift
            assert offset == min(max(wanted, snapshot.starts[tp]), snapshot.ends[tp])


@given(snapshots(), SPECS, SCOPES)
def test_a_dry_run_and_an_execution_plan_the_same(snapshot, spec, scope):
    topics, all_topics = scope
    dry = ResetRequest(spec, topics=topics, all_topics=all_topics)
    execute = ResetRequest(spec, topics=topics, all_topics=all_topics, execute=True)
    assert plan_reset(dry, snapshot) == plan_reset(execute, snapshot)


@given(snapshots(), SPECS, SCOPES)
def test_planning_reads_the_snapshot_and_changes_nothing(snapshot, spec, scope):
    topics, all_topics = scope
    before = copy.deepcopy(snapshot)
    request = ResetRequest(spec, topics=topics, all_topics=all_topics)
    first = plan_reset(request, snapshot)
    assert snapshot == before
    assert plan_reset(request, snapshot) == first


@given(snapshots(), SPECS)
def test_active_groups_are_refused_and_the_others_planned(snapshot, spec):
    plan = plan_reset(ResetRequest(spec, all_topics=True), snapshot)
    active = {g for g, facts in snapshot.facts.items() if facts.state == "Stable"}
    assert {g for g, _ in plan.refused} == active
    assert {p.group for p in plan.groups} == set(snapshot.ids) - active
    assert set(plan.current) == set(snapshot.ids) - active
    failure = reset_failure(ResetResult(plan))
    if not active:
        assert failure is None
    elif any(p.offsets for p in plan.groups):
        assert failure is not None and failure.exit_code == ExitCode.PARTIAL
    else:
        assert failure is not None and failure.exit_code == ExitCode.ERROR


# -- refusals ---------------------------------------------------------------------------
BASE = Snapshot(
    ids=("g",),
    facts={"g": GroupFacts("Empty")},
    committed={"g": {("orders", 0): 5}},
    partitions={"orders": {0: 1, 1: -1}},
    starts={("orders", 0): 0, ("orders", 1): 0},
    ends={("orders", 0): 9, ("orders", 1): 9},
)


def test_a_whole_topic_that_does_not_exist_is_refused():
    with pytest.raises(CliError, match="Topic 'absent' does not exist"):
        plan_reset(ResetRequest(ResetSpec(Scenario.TO_LATEST), topics=("absent",)), BASE)


def test_partitions_that_do_not_exist_or_have_no_leader_are_refused():
    with pytest.raises(CliError, match='The partitions "orders-7" do not exist'):
        plan_reset(ResetRequest(ResetSpec(Scenario.TO_LATEST), topics=("orders:0,7",)), BASE)
    with pytest.raises(ClusterError, match='The partitions "orders-1" have no leader'):
        plan_reset(ResetRequest(ResetSpec(Scenario.TO_LATEST), topics=("orders:1",)), BASE)


def test_a_plan_file_naming_another_group_is_refused():
    spec = ResetSpec(Scenario.FROM_FILE, plan={"other": {("orders", 0): 1}})
    with pytest.raises(UsageError, match="--from-file names group 'other', which is not being reset"):
        plan_reset(ResetRequest(spec), BASE)


def test_by_time_takes_the_lookup_of_its_instant_and_falls_back_to_the_end():
    snapshot = Snapshot(
        ids=("g",),
        partitions={"orders": {0: 1, 1: 1}},
        ends={("orders", 0): 9, ("orders", 1): 4},
        by_time={1_000: {("orders", 0): 3, ("orders", 1): None}},
    )
    spec = ResetSpec(Scenario.TO_DATETIME, timestamp_ms=1_000)
    (group,) = plan_reset(ResetRequest(spec, topics=("orders",)), snapshot).groups
    assert dict(group.offsets) == {("orders", 0): 3, ("orders", 1): 4}
    assert group.fallbacks == (("orders", 1),)


def test_streams_groups_whose_named_topics_are_not_theirs_are_left_out():
    snapshot = Snapshot(
        ids=("a", "b", "busy"),
        facts={"a": GroupFacts("Empty"), "b": GroupFacts("Empty"), "busy": GroupFacts("Stable")},
        committed={"a": {("orders", 0): 1}, "b": {}},
        partitions={"orders": {0: 1}},
        starts={("orders", 0): 0},
        ends={("orders", 0): 9},
    )
    request = ResetRequest(ResetSpec(Scenario.TO_LATEST), topics=("orders",), streams=True)
    plan = plan_reset(request, snapshot)
    assert {p.group: dict(p.offsets) for p in plan.groups} == {"a": {("orders", 0): 9}, "b": {}}
    assert plan.outside == ("b",)
    assert plan.messages == (
        "Assignments can only be reset if the group 'busy' is inactive, but the current state is Stable.",
        "One or more topics are not part of the group 'b'.",
    )
    assert plan.targets == {"a": {("orders", 0): 9}}
