"""--to-group SOURCE and --skip-active planned with plain data: the plan is a hand-computed
copy of the source's committed offsets (scoped, clamped, uncommitted partitions named)."""

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
    uncopied_line,
)
from kafka_groups.errors import UsageError

TOPICS = ("orders", "payments")
COPY = ResetSpec(Scenario.TO_GROUP, source="src")


@st.composite
def clusters(draw):
    partitions = {t: {p: 1 for p in range(draw(st.integers(1, 4)))} for t in TOPICS}
    every = [(t, p) for t in TOPICS for p in partitions[t]]
    starts = {tp: draw(st.integers(0, 100)) for tp in every}
    ends = {tp: starts[tp] + draw(st.integers(0, 100)) for tp in every}
    offsets = st.integers(0, 300)  # some below the log start, some past the end
    source = {tp: draw(offsets) for tp in every if draw(st.booleans())}
    target = {tp: draw(offsets) for tp in every if draw(st.booleans())}
    source = source or {every[0]: draw(offsets)}  # a source with nothing committed is refused
    return Snapshot(
        ids=("g",),
        facts={"g": GroupFacts("Empty")},
        committed={"g": target},
        partitions=partitions,
        starts=starts,
        ends=ends,
        source=source,
    )


def _by_hand(snapshot, scope):
    copied, left_out = {}, []
    for tp in scope:
        if tp not in snapshot.source:
            left_out.append(tp)
            continue
        copied[tp] = min(max(snapshot.source[tp], snapshot.starts[tp]), snapshot.ends[tp])
    return copied, sorted(left_out)


@given(clusters(), st.sampled_from([("orders",), ("payments",), ("orders", "payments")]))
def test_a_topic_scope_copies_the_source_clamped_and_names_the_rest(snapshot, topics):
    plan = plan_reset(ResetRequest(COPY, topics=topics), snapshot)
    scope = [(t, p) for t in topics for p in sorted(snapshot.partitions[t])]
    copied, left_out = _by_hand(snapshot, scope)
    (group,) = plan.groups
    assert dict(group.offsets) == copied
    assert list(group.uncopied) == left_out


@given(clusters())
def test_all_topics_is_every_partition_either_group_committed(snapshot):
    plan = plan_reset(ResetRequest(COPY, all_topics=True), snapshot)
    scope = list(dict.fromkeys([*snapshot.committed["g"], *snapshot.source]))
    copied, left_out = _by_hand(snapshot, scope)
    (group,) = plan.groups
    assert dict(group.offsets) == copied
    assert list(group.uncopied) == left_out
    assert set(copied) == set(snapshot.source)  # a new group is seeded with all of the source


def test_one_notice_names_the_partitions_the_source_has_not_committed():
    snapshot = Snapshot(
        ids=("g",),
        partitions={"orders": {0: 1, 1: 1, 2: 1}},
        starts={("orders", p): 10 for p in range(3)},
        ends={("orders", p): 50 for p in range(3)},
        source={("orders", 0): 5, ("orders", 1): 70},
    )
    plan = plan_reset(ResetRequest(COPY, topics=("orders",)), snapshot)
    (group,) = plan.groups
    assert dict(group.offsets) == {("orders", 0): 10, ("orders", 1): 50}
    assert len(group.warnings) == 2  # clamped, as --to-offset warns
    assert uncopied_line(plan) == (
        "Notice: --to-group 'src' has no committed offset for 1 partition(s) in scope; left out: orders-2"
    )


def test_a_source_that_is_also_a_target_or_has_nothing_is_refused():
    base = Snapshot(ids=("g", "src"), partitions={"orders": {0: 1}}, source={("orders", 0): 1})
    with pytest.raises(UsageError, match="--to-group 'src' is also a group being reset"):
        plan_reset(ResetRequest(COPY, topics=("orders",)), base)
    empty = Snapshot(ids=("g",), partitions={"orders": {0: 1}})
    with pytest.raises(UsageError, match="--to-group 'src' has no committed offsets"):
        plan_reset(ResetRequest(COPY, topics=("orders",)), empty)


def test_skip_active_plans_the_inactive_groups_and_fails_nothing():
    snapshot = Snapshot(
        ids=("busy", "idle", "gone"),
        facts={"busy": GroupFacts("Stable"), "idle": GroupFacts("Empty")},
        partitions={"orders": {0: 1}},
        starts={("orders", 0): 0},
        ends={("orders", 0): 9},
    )
    spec = ResetSpec(Scenario.TO_LATEST)
    plain = plan_reset(ResetRequest(spec, topics=("orders",)), snapshot)
    skipping = plan_reset(ResetRequest(spec, topics=("orders",), skip_active=True), snapshot)
    assert plain.groups == skipping.groups
    assert {p.group for p in skipping.groups} == {"idle", "gone"}
    assert plain.refused == (("busy", "Stable"),) and skipping.refused == ()
    assert skipping.skipped == (("busy", "Stable"),)
    assert reset_failure(ResetResult(plain)) is not None
    assert reset_failure(ResetResult(skipping)) is None


def test_skip_active_drops_the_streams_tools_refusal_lines():
    snapshot = Snapshot(ids=("busy",), facts={"busy": GroupFacts("Stable")})
    spec = ResetSpec(Scenario.TO_LATEST)
    plain = plan_reset(ResetRequest(spec, all_topics=True, streams=True), snapshot)
    skipping = plan_reset(ResetRequest(spec, all_topics=True, streams=True, skip_active=True), snapshot)
    assert plain.messages == (
        "Assignments can only be reset if the group 'busy' is inactive, but the current state is Stable.",
    )
    assert skipping.messages == () and skipping.skipped == (("busy", "Stable"),)
