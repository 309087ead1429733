"""The rows of --describe, computed from plain data."""

from kafka_groups.core.describe import (
    Committed,
    Coordinator,
    GroupDescription,
    Member,
    assignment_string,
    java_sorted,
    offset_rows,
    partitions_to_look_up,
    state_notice,
)

COORD = Coordinator("broker-1", 9092, 1)


def _group(members=(), state="Stable"):
    return GroupDescription("g", state, "Classic", COORD, "range", tuple(members))


def test_members_with_more_partitions_come_first_and_ties_keep_broker_order():
    small = Member("m-small", "c1", "/h1", None, (("t", 5),))
    big = Member("m-big", "c2", "/h2", None, (("t", 3), ("t", 1), ("u", 0)))
    tie = Member("m-tie", "c3", "/h3", None, (("t", 9),))
    idle = Member("m-idle", "c4", "/h4", None, ())
    rows = offset_rows(_group([small, big, tie, idle]), {}, {})
    assert [(r.consumer_id, r.topic, r.partition) for r in rows] == [
        ("m-big", "t", 1),
        ("m-big", "t", 3),
        ("m-big", "u", 0),
        ("m-small", "t", 5),
        ("m-tie", "t", 9),
    ]


def test_unassigned_committed_partitions_follow_sorted_without_member():
    member = Member("m", "c", "/h", None, (("b", 0),))
    committed = {
        ("b", 0): Committed(4),
        ("a", 2): Committed(1),
        ("a", 10): Committed(2),
        ("a", 9): Committed(3),
    }
    rows = offset_rows(_group([member]), committed, {("b", 0): 10, ("a", 2): 1, ("a", 9): 3, ("a", 10): 7})
    assert [(r.topic, r.partition, r.consumer_id) for r in rows] == [
        ("b", 0, "m"),
        ("a", 2, None),
        ("a", 9, None),
        ("a", 10, None),
    ]
    assert [r.lag for r in rows] == [6, 0, 0, 5]


def test_lag_needs_both_offsets():
    member = Member("m", "c", "/h", None, (("t", 0), ("t", 1), ("t", 2)))
    committed = {("t", 0): Committed(3, leader_epoch=7), ("t", 2): Committed(9)}
    rows = offset_rows(_group([member]), committed, {("t", 0): 5, ("t", 1): 8, ("t", 2): None})
    assert [(r.current_offset, r.log_end_offset, r.lag, r.leader_epoch) for r in rows] == [
        (3, 5, 2, 7),
        (None, 8, None, None),  # nothing committed
        (9, None, None, None),  # no leader: no log end offset
    ]


def test_out_of_range_needs_the_log_bounds():
    committed = {("t", 0): Committed(2), ("t", 1): Committed(50), ("t", 2): Committed(5)}
    ends = {("t", 0): 10, ("t", 1): 10, ("t", 2): 10}
    starts = {("t", 0): 4, ("t", 1): 0, ("t", 2): 0}
    rows = offset_rows(_group(), committed, ends, starts)
    assert [r.out_of_range for r in rows] == [True, True, False]
    assert rows[1].lag == -40  # negative lag is shown, as the Apache tool does


def test_partitions_to_look_up_cover_assigned_and_committed():
    g = _group([Member("m", "c", "/h", None, (("t", 0),))])
    assert partitions_to_look_up([g], {"g": {("u", 1): Committed(0)}}) == {("t", 0), ("u", 1)}


def test_assignment_string():
    assert assignment_string([("t2", 0), ("t1", 10), ("t1", 2), ("t1", 1)]) == "t1:1,2,10;t2:0"
    assert assignment_string([]) == "-"


def test_groups_sort_like_java_strings():
    assert java_sorted(["b", "B", "a", "a"]) == ["B", "a", "b"]


def test_state_notices():
    assert state_notice("g", "Empty") == "Consumer group 'g' has no active members."
    for state in ("PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling"):
        assert state_notice("g", state) == "Warning: Consumer group 'g' is rebalancing."
    assert state_notice("g", "Stable") is None
