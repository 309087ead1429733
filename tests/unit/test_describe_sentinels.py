"""--describe rows never carry a sentinel (-1001, -1, -2, any negative value) as an offset or a
lag: such a value is unknown, shown as "-" like a partition without a leader."""

from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.core.describe import Committed, Coordinator, GroupDescription, offset_rows

SENTINELS = st.sampled_from([-1001, -1, -2, -3]) | st.integers(max_value=-1)
OFFSETS = st.integers(min_value=0, max_value=10**15)


@given(
    st.dictionaries(
        st.integers(min_value=0, max_value=20),
        st.tuples(OFFSETS, OFFSETS | SENTINELS | st.none(), OFFSETS | SENTINELS | st.none()),
        max_size=8,
    )
)
def test_no_row_carries_a_negative_offset_or_lag(partitions):
    group = GroupDescription("g", "Empty", "Classic", Coordinator("b", 9092, 1), "", ())
    committed = {("t", p): Committed(c) for p, (c, _, _) in partitions.items()}
    ends = {("t", p): e for p, (_, e, _) in partitions.items()}
    starts = {("t", p): s for p, (_, _, s) in partitions.items()}
    rows = offset_rows(group, committed, ends, starts)
    assert len(rows) == len(partitions)
    for row in rows:
        current, end, start = partitions[row.partition]
        assert row.current_offset == current
        assert row.log_end_offset == (end if end is not None and end >= 0 else None)
        assert row.log_start_offset == (start if start is not None and start >= 0 else None)
        if row.log_end_offset is None:
            assert row.lag is None
        else:
            assert row.lag == row.log_end_offset - current


@given(OFFSETS, SENTINELS)
def test_a_sentinel_committed_offset_has_no_lag(end, sentinel):
    group = GroupDescription("g", "Empty", "Classic", Coordinator("b", 9092, 1), "", ())
    (row,) = offset_rows(group, {("t", 0): Committed(sentinel)}, {("t", 0): end})
    assert row.current_offset is None
    assert row.lag is None
