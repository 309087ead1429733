"""A large group's committed offsets held in a CommittedTable (core/describe_committed.py) give
the describe the same rows, and the same partitions to look up, as the dict a small group's
are held in: every member layout, committed or not, with or without epochs, log ends and
starts in a compact table or a dict, some unknown or negative."""

from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_groups.core import describe_committed
from kafka_groups.core.describe import (
    Committed,
    Coordinator,
    GroupDescription,
    Member,
    offset_rows,
    partitions_to_look_up,
)
from kafka_groups.core.describe_committed import CommittedTable, committed_of
from kafka_groups.core.offset_table import OffsetTable

TOPICS = ("a", "b-2", "orders")
COORD = Coordinator("broker-1", 9092, 1)

partition_sets = st.sets(st.tuples(st.sampled_from(TOPICS), st.integers(0, 40)), max_size=60)


def _columns(entries: dict) -> list:
    """The answer's columns of ``entries`` ((topic, partition) -> (offset, epoch)), per topic
    in a shuffled order, as access/offset_fetch.py decodes them."""
    by_topic: dict = {}
    for (topic, partition), (offset, epoch) in entries.items():
        by_topic.setdefault(topic, []).append((partition, offset, epoch))
    return [
        (
            topic,
            array("i", [p for p, _, _ in rows]),
            array("q", [o for _, o, _ in rows]),
            array("i", [e for _, _, e in rows]),
        )
        for topic, rows in by_topic.items()
    ]


@st.composite
def cases(draw):
    committed = draw(
        st.dictionaries(
            st.tuples(st.sampled_from(TOPICS), st.integers(0, 40)),
            st.tuples(st.integers(-1, 10**12), st.integers(-1, 30)),
            max_size=60,
        )
    )
    members = []
    for index in range(draw(st.integers(0, 3))):
        assignment = tuple(
            draw(st.lists(st.tuples(st.sampled_from(TOPICS), st.integers(0, 40)), max_size=12))
        )
        members.append(Member(f"m{index}", f"c{index}", f"/h{index}", None, assignment))
    group = GroupDescription("g", "Stable", "Classic", COORD, "range", tuple(members))
    every = set(committed) | {tp for m in members for tp in m.assignment}
    ends = {tp: draw(st.one_of(st.none(), st.integers(-1001, 10**12))) for tp in every}
    starts = draw(st.one_of(st.none(), st.just({tp: draw(st.integers(-2, 100)) for tp in every})))
    compact_ends = draw(st.booleans())
    return group, committed, ends, starts, compact_ends


def _table(values: dict) -> OffsetTable:
    table = OffsetTable()
    for tp, value in values.items():
        if value is not None and value >= 0:
            table.put(tp, value)
    return table.settle()


@settings(max_examples=300, deadline=None)
@given(cases())
def test_a_compact_table_gives_the_rows_a_dict_gives(case):
    group, entries, ends, starts, compact_ends = case
    columns = _columns(entries)
    saved = describe_committed.COMPACT_ABOVE
    try:
        describe_committed.COMPACT_ABOVE = -1  # every group compact
        table = committed_of(columns)
    finally:
        describe_committed.COMPACT_ABOVE = saved
    plain = committed_of(columns)
    assert isinstance(table, CommittedTable)
    assert isinstance(plain, dict)
    expected = {
        tp: Committed(offset, epoch if epoch >= 0 else None)
        for tp, (offset, epoch) in entries.items()
        if offset >= 0
    }
    assert plain == expected
    assert dict(table.items()) == expected
    assert len(table) == len(expected)
    for tp in set(entries) | {("a", 99), ("nope", 0)}:
        assert table.get(tp) == expected.get(tp)
        assert (tp in table) == (tp in expected)
    log_end = _table(ends) if compact_ends else ends
    log_start = (_table(starts) if compact_ends else starts) if starts is not None else None
    assert offset_rows(group, table, log_end, log_start) == offset_rows(group, plain, ends, starts)
    assert partitions_to_look_up([group], {"g": table}) == partitions_to_look_up([group], {"g": plain})


def test_a_group_beyond_the_threshold_is_held_compactly():
    size = describe_committed.COMPACT_ABOVE + 1
    columns = [("t", array("i", range(size)), array("q", [5] * size), array("i", [-1] * size))]
    held = committed_of(columns)
    assert isinstance(held, CommittedTable)
    assert held[("t", size - 1)] == Committed(5, None)
    assert committed_of([("t", array("i", [0]), array("q", [5]), array("i", [3]))]) == {
        ("t", 0): Committed(5, 3)
    }


@given(partition_sets, st.sets(st.integers(-3, 50), max_size=20))
def test_a_column_is_each_get(held, asked):
    table = _table(dict.fromkeys(held, 7))
    for topic in (*TOPICS, "other"):
        partitions = sorted(asked)
        assert table.column(topic, partitions) == [table.get((topic, p)) for p in partitions]
        assert table.partitions_of(topic) == sorted(p for t, p in held if t == topic)
