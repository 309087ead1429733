"""--max-records and --min-partitions: the arithmetic of kafka_pipeline.sizing, on plain data."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_pipeline.sizing import divide, spark_tasks, spread_limit

# Partition -> offsets available: the backlogs a landing meets.
backlogs = st.dictionaries(st.integers(0, 30), st.integers(0, 10**6), min_size=1, max_size=12)
limits = st.integers(1, 2 * 10**6)


def test_the_limit_is_spread_in_proportion_to_what_each_partition_has():
    assert spread_limit(100, {0: 600, 1: 300, 2: 100}) == {0: 60, 1: 30, 2: 10}


def test_a_backlog_within_the_limit_lands_whole():
    assert spread_limit(1000, {0: 600, 1: 300, 2: 0}) == {0: 600, 1: 300, 2: 0}


def test_small_partitions_are_not_starved_and_the_limit_still_holds():
    # Spark's maxOffsetsPerTrigger rounds 1000 * 1/10001 up to 1 and 1000 * 10000/10001 down to
    # 999: 1000 here too, but its rounding up alone can exceed the limit (below); ours never does.
    assert spread_limit(1000, {0: 10_000, 1: 1}) == {0: 999, 1: 1}
    # Spark: three shares of 2/3 each rounded up to 1, i.e. 3 offsets for a limit of 2.
    shares = spread_limit(2, {0: 10, 1: 10, 2: 10})
    assert sum(shares.values()) == 2 and max(shares.values()) == 1


def test_the_rounding_remainder_goes_to_the_largest_remainders():
    # 10 over 3 equal partitions: 1 each first, then 7 shared by thirds (2 each), the last one
    # to the first partition in order.
    assert spread_limit(10, {"a": 50, "b": 50, "c": 50}) == {"a": 4, "b": 3, "c": 3}


def test_a_limit_below_the_partitions_with_records_moves_on_across_runs():
    """One offset per run over three equal partitions: each run takes the partition with most
    left, so none waits more than two runs."""
    left = {0: 3, 1: 3, 2: 3}
    order = []
    for _ in range(9):
        shares = spread_limit(1, left)
        (taken,) = [p for p, n in shares.items() if n]
        order.append(taken)
        left[taken] -= 1
    assert order == [0, 1, 2, 0, 1, 2, 0, 1, 2]


def test_a_limit_below_one_is_refused():
    with pytest.raises(ValueError):
        spread_limit(0, {0: 5})


@given(limits, backlogs)
def test_the_shares_add_up_to_the_limit_and_never_exceed_a_backlog(limit, available):
    shares = spread_limit(limit, available)
    assert shares.keys() == available.keys()
    assert sum(shares.values()) == min(limit, sum(available.values()))
    assert all(0 <= shares[p] <= available[p] for p in available)
    with_records = [p for p, n in available.items() if n > 0]
    if limit >= len(with_records):
        assert all(shares[p] >= 1 for p in with_records)


def spark_shares(limit: int, available: dict[int, int]) -> dict[int, int]:
    """Spark's rateLimit, in exact arithmetic: limit * size / total rounded down, or up to one when
    below one (for a backlog larger than the limit)."""
    total = sum(available.values())
    return {
        p: (0 if n == 0 else max(limit * n // total, 1) if limit * n >= total else 1)
        for p, n in available.items()
    }


@given(limits, backlogs)
def test_the_shares_are_sparks_evened_out_to_the_limit(limit, available):
    """Where Spark's shares add up to less than the limit, ours are theirs plus at most one; where
    more, ours are at most theirs. A partition with more available never gets fewer."""
    shares = spread_limit(limit, available)
    if sum(available.values()) <= limit:
        return
    spark = spark_shares(limit, available)
    with_records = [p for p, n in available.items() if n > 0]
    if limit >= len(with_records):
        if sum(spark.values()) <= limit:
            assert all(shares[p] - spark[p] in (0, 1) for p in available)
        else:
            assert all(shares[p] <= spark[p] for p in available)
    for p in with_records:
        for q in with_records:
            if available[p] > available[q]:
                assert shares[p] >= shares[q]


class Log:
    """Partitions that grow, a group's committed offsets, and what the sink holds: a bounded run
    lands [committed, committed + share) of each partition and commits its end, as the job does."""

    def __init__(self, ends: dict[int, int]) -> None:
        self.ends = dict(ends)
        self.committed: dict[int, int] = {}
        self.landed: dict[int, list[int]] = {}

    def backlog(self) -> dict[int, int]:
        return {p: self.ends[p] - self.committed.get(p, 0) for p in sorted(self.ends)}

    def run(self, limit: int) -> int:
        shares = spread_limit(limit, self.backlog())
        for p, n in shares.items():
            start = self.committed.get(p, 0)
            self.landed.setdefault(p, []).extend(range(start, start + n))
            self.committed[p] = start + n
        return sum(shares.values())


@given(
    st.dictionaries(st.integers(0, 6), st.integers(0, 400), min_size=1, max_size=6),
    st.lists(st.dictionaries(st.integers(0, 9), st.integers(0, 200), max_size=6), max_size=4),
    st.integers(1, 300),
    st.data(),
)
def test_consecutive_bounded_runs_land_every_offset_once(first_ends, arrivals, limit, data):
    """Runs under one limit over a log that grows, and gains partitions, between runs. Each run
    lands exactly min(limit, backlog); once nothing more arrives, a backlog B is gone after
    ceil(B / limit) runs; and every offset of every partition has landed exactly once, in order."""
    log = Log(first_ends)
    for arrival in arrivals:
        for _ in range(data.draw(st.integers(0, 3), label="runs before the next records arrive")):
            backlog = sum(log.backlog().values())
            assert log.run(limit) == min(limit, backlog)
        for p, n in arrival.items():
            log.ends[p] = log.ends.get(p, 0) + n
    backlog, runs = sum(log.backlog().values()), 0
    while sum(log.backlog().values()):
        log.run(limit)
        runs += 1
    assert runs == math.ceil(backlog / limit)
    for p, end in log.ends.items():
        assert log.landed.get(p, []) == list(range(end)), f"partition {p}"


def test_spark_divides_a_range_with_the_remainder_last():
    assert divide(0, 10, 3) == [(0, 3), (3, 6), (6, 10)]
    assert divide(5, 7, 4) == [(5, 6), (6, 7)]  # empty pieces dropped


def test_without_min_partitions_each_range_is_one_task():
    ranges = {0: (0, 100), 1: (50, 50), 2: (10, 20)}
    assert spark_tasks(ranges, None) == {0: [(0, 100)], 2: [(10, 20)]}
    assert spark_tasks(ranges, 2) == {0: [(0, 100)], 2: [(10, 20)]}  # already two non-empty ranges


def test_min_partitions_splits_the_large_ranges():
    # Shares of 4 tasks: 2.67, 0.0003 and 1.33. The last two round to one and stay whole; the
    # first takes the max(4 - 2, 1) = 2 tasks left.
    tasks = spark_tasks({"a": (0, 10_000), "b": (0, 1), "c": (0, 5_000)}, 4)
    assert tasks == {"a": [(0, 5_000), (5_000, 10_000)], "b": [(0, 1)], "c": [(0, 5_000)]}


def test_one_range_split_into_min_partitions_pieces():
    assert spark_tasks({0: (100, 200)}, 4) == {0: [(100, 125), (125, 150), (150, 175), (175, 200)]}


@given(
    st.dictionaries(
        st.integers(0, 20),
        st.tuples(st.integers(0, 10**9), st.integers(0, 10**6)).map(lambda t: (t[0], t[0] + t[1])),
        min_size=1,
        max_size=10,
    ),
    st.one_of(st.none(), st.integers(1, 64)),
)
def test_the_tasks_cover_each_range_exactly_once(ranges, min_partitions):
    tasks = spark_tasks(ranges, min_partitions)
    assert set(tasks) == {k for k, (s, e) in ranges.items() if e > s}
    for k, pieces in tasks.items():
        start, end = ranges[k]
        assert pieces[0][0] == start and pieces[-1][1] == end
        assert all(a[1] == b[0] for a, b in itertools.pairwise(pieces))  # contiguous, no overlap
        assert all(s < e for s, e in pieces)
        sizes = [e - s for s, e in pieces]
        assert max(sizes) - min(sizes) <= 1
    count = sum(len(p) for p in tasks.values())
    assert count >= len(tasks)
    if min_partitions is None or len(tasks) >= min_partitions:
        assert count == len(tasks)
