"""The compact offset tables (core/offset_table.py) behave as the dicts they replace, and a plan
of more than COMPACT_ABOVE partitions held in them is the plan a dict would hold, in the same
(Apache) order."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_groups.core import reset
from kafka_groups.core.javaorder import hashmap_order, string_hash, topic_partition_hash
from kafka_groups.core.offset_table import LeaderTable, OffsetTable, OrderedOffsets, apache_order, subset
from kafka_groups.core.reset import PartitionOffsets, ResetSpec, Scenario, plan_group

topics = st.sampled_from(["a", "orders", "ü-topic", "t" * 40])
entries = st.lists(
    st.tuples(st.tuples(topics, st.integers(0, 3000)), st.integers(-(2**63), 2**63 - 1)), max_size=200
)


@given(entries)
def test_a_table_is_the_dict_it_replaces(items):
    expected = dict(items)
    table = OffsetTable(items)
    assert table == expected and expected == table
    assert len(table) == len(expected)
    assert dict(table.items()) == expected and set(table) == set(expected)
    assert sorted(table.values()) == sorted(expected.values())
    for tp in [*expected, ("a", 3001), ("nope", 0), ("a", -1)]:
        assert (tp in table) == (tp in expected)
        assert table.get(tp) == expected.get(tp)
    # Iterated topic by topic, each in partition order.
    assert list(table) == sorted(expected, key=lambda tp: ([t for t, _ in expected].index(tp[0]), tp[1]))


@given(entries)
def test_an_ordered_table_keeps_its_order(items):
    expected = dict(items)
    order = list(reversed(expected))
    ordered = OrderedOffsets(OffsetTable(items), order)
    assert list(ordered) == order
    assert list(ordered.items()) == [(tp, expected[tp]) for tp in order]
    assert ordered == expected and len(ordered) == len(expected)


def test_tables_differ_where_the_dicts_do():
    assert OffsetTable([(("a", 0), 1)]) != {("a", 0): 2}
    assert OffsetTable([(("a", 0), 1)]) != OffsetTable([(("a", 1), 1)])
    assert OffsetTable([(("a", 0), 1)]) != {("a", 0): 1, ("a", 1): 1}
    assert OffsetTable() == {}


@given(st.lists(st.tuples(topics, st.integers(0, 100_000)), max_size=3000, unique=True))
def test_the_packed_apache_order_is_the_hashmap_order(keys):
    assert apache_order(keys, string_hash) == hashmap_order(keys, lambda tp: topic_partition_hash(*tp))


def test_leaders_and_subsets():
    leaders = LeaderTable([2, -1, 0])
    assert dict(leaders) == {0: 2, 1: -1, 2: 0} and 3 not in leaders
    leaders.set(5, 1)
    assert dict(leaders) == {0: 2, 1: -1, 2: 0, 3: -1, 4: -1, 5: 1}
    big = {("t", p): p for p in range(3000)}
    keys = {("t", p): 0 for p in range(0, 3000, 2)}
    picked = subset(big, keys)
    assert isinstance(picked, OffsetTable) and picked == {tp: o for tp, o in big.items() if tp in keys}
    assert subset({("t", 1): 1}, {("t", 1): 0}) == {("t", 1): 1}


@settings(max_examples=15, deadline=None)
@given(
    st.sampled_from([Scenario.TO_EARLIEST, Scenario.TO_LATEST, Scenario.TO_OFFSET, Scenario.FROM_FILE]),
    st.integers(reset.COMPACT_ABOVE - 5, reset.COMPACT_ABOVE + 300),
    st.integers(0, 2**32),
)
def test_a_large_plan_is_the_plan_a_dict_holds(scenario, count, seed):
    rng = random.Random(seed)
    scope = [(t, p) for t in ("x", "y") for p in range(count // 2)]
    rng.shuffle(scope)
    starts = {tp: rng.randrange(0, 50) for tp in scope}
    ends = {tp: starts[tp] + rng.randrange(0, 50) for tp in scope}
    data = PartitionOffsets({}, starts, ends)
    spec = ResetSpec(scenario, offset=25) if scenario is Scenario.TO_OFFSET else ResetSpec(scenario)
    if scenario is Scenario.FROM_FILE:
        spec = ResetSpec(scenario, plan={"g": {tp: rng.randrange(-5, 120) for tp in scope}})
    compact = plan_group("g", spec, scope, data)
    saved = reset.COMPACT_ABOVE
    reset.COMPACT_ABOVE = 10**9
    try:
        plain = plan_group("g", spec, scope, data)
    finally:
        reset.COMPACT_ABOVE = saved
    assert isinstance(plain.offsets, dict)
    assert isinstance(compact.offsets, OrderedOffsets) == (len(scope) > saved)
    assert list(compact.offsets.items()) == list(plain.offsets.items())
    assert compact.warnings == plain.warnings


@given(st.lists(st.tuples(st.tuples(topics, st.integers(0, 2**31 - 1)), st.integers(0, 10)), max_size=60))
def test_a_stray_partition_number_does_not_grow_the_arrays(items):
    table = OffsetTable(items)
    expected = dict(items)
    assert table == expected and len(table) == len(expected)
    assert all(len(values) <= 1.5 * (2 * len(expected) + 4096) + 16 for values in table._offsets.values())
    for tp in expected:
        assert tp in table and table[tp] == expected[tp]
    by_topic = [t for t, _ in dict.fromkeys((t, None) for (t, _p) in expected)]
    assert list(table) == sorted(expected, key=lambda tp: (by_topic.index(tp[0]), tp[1]))


def test_a_plan_file_in_hash_order_stays_exact():
    rng = random.Random(7)
    partitions = list(range(20_000))
    rng.shuffle(partitions)
    table = OffsetTable()
    for p in partitions:
        table.put(("t", p), p * 3)
    table.put(("t", 5), 1)  # again: replaced wherever it is held
    assert len(table) == 20_000 and table[("t", 5)] == 1
    assert list(table.items()) == [(("t", p), 1 if p == 5 else p * 3) for p in range(20_000)]


@given(
    st.lists(st.tuples(st.tuples(topics, st.integers(0, 9000)), st.integers(0, 10)), max_size=300),
    st.lists(st.tuples(topics, st.integers(0, 9000)), max_size=300),
)
def test_a_compact_subset_is_the_filtered_dict(items, keys):
    source = OffsetTable(items)
    mask = OffsetTable((tp, 0) for tp in keys)
    expected = {tp: o for tp, o in dict(items).items() if tp in set(keys)}
    picked = subset(source, mask, compact=True)
    assert picked == expected and expected == picked and len(picked) == len(expected)
    assert list(picked) == [tp for tp in source if tp in expected]
    assert OffsetTable(expected.items()) == picked
    assert (picked == OffsetTable(items)) == (expected == dict(items))


@given(
    st.lists(st.tuples(topics, st.integers(0, 2**31 - 1)), max_size=3, unique=True),
    st.lists(st.tuples(st.integers(0, 9000), st.integers(-1, 2**40)), max_size=300),
    st.sampled_from(["orders", "new"]),
)
def test_a_topic_put_at_once_is_the_entries_put_one_by_one(before, rows, topic):
    """put_topic (a decoded answer's columns: -1 for no offset, any order, a partition possibly
    twice) leaves the table as put() of each entry with an offset would, the last one winning."""
    expected = {**{(t, p): 1 for t, p in before}, **{(topic, p): o for p, o in rows if o >= 0}}
    table = OffsetTable(((t, p), 1) for t, p in before)
    table.put_topic(topic, [p for p, _ in rows], [o for _, o in rows])
    assert table.settle() == expected and len(table) == len(expected)
    assert dict(table.items()) == expected


@given(
    st.lists(st.tuples(st.integers(0, 9000), st.integers(-1, 2**40)), max_size=200),
    st.lists(st.tuples(st.integers(0, 9000), st.integers(-1, 2**40)), max_size=200),
)
def test_topic_parts_put_one_after_another_merge(first, second):
    """Two answers of one topic (ListOffsets asks 5,000 partitions a request) put after each
    other: the table holds both, the later offset of a partition in both."""
    expected = {("t", p): o for p, o in [*first, *second] if o >= 0}
    table = OffsetTable()
    for rows in (first, second):
        table.put_topic("t", [p for p, _ in rows], [o for _, o in rows])
    assert table.settle() == expected and len(table) == len(expected)


@given(
    st.lists(st.tuples(st.integers(0, 3000), st.integers(-5, 8)), max_size=100),
    st.integers(0, 50),
    st.integers(0, 60),
)
def test_leaders_set_many_is_set_of_each(pairs, first, count):
    """A page of consecutive partitions (one slice) or any other list (one set each) leaves the
    table as set() of each pair would, a leader below 0 kept as -1."""
    page = [(p, (p * 7) % 5 - 1) for p in range(first, first + count)]
    for rows in (pairs, page):
        one, many = LeaderTable(), LeaderTable()
        for p, leader in rows:
            one.set(p, leader if leader >= 0 else -1)
        many.set_many([p for p, _ in rows], [leader for _, leader in rows])
        assert list(one.items()) == list(many.items())


@given(st.lists(st.integers(-1, 4), max_size=50), st.lists(st.integers(-3, 60), max_size=80))
def test_absent_and_leaderless_partitions_of_a_topic(leaders, partitions):
    table = LeaderTable(leaders)
    absent, leaderless = table.absent_and_leaderless(partitions)
    assert absent == [p for p in partitions if p not in table]
    assert leaderless == [p for p in partitions if p in table and table[p] < 0]
