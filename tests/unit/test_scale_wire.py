"""The planning of bench/scale_wire.py: which partitions each leader gets, in which requests, and
which partitions a set-up still has to fill or commit (plain data and properties)."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from bench import scale_wire

leader_maps = st.dictionaries(st.integers(0, 300), st.integers(-1, 7), max_size=200)


def test_by_leader_groups_in_partition_order_and_leaves_out_partitions_without_a_leader() -> None:
    leaders = {0: 2, 1: 1, 2: 2, 3: -1, 5: 1}
    assert scale_wire.by_leader(leaders, [5, 2, 0, 1, 3, 4, 2]) == {2: [0, 2], 1: [1, 5]}


@given(leader_maps, st.integers(1, 50))
def test_requests_cover_each_led_partition_once_within_the_size(leaders: dict[int, int], size: int) -> None:
    grouped = scale_wire.by_leader(leaders, leaders)
    requests = scale_wire.requests_per_leader(grouped, size)
    sent = [(leader, p) for leader, part in requests for p in part]
    assert sorted(sent) == sorted((leader, p) for p, leader in leaders.items() if leader >= 0)
    assert all(0 < len(part) <= size for _, part in requests)
    assert all(leaders[p] == leader for leader, part in requests for p in part)


def test_requests_refuse_an_empty_size() -> None:
    try:
        scale_wire.requests_per_leader({1: [0]}, 0)
    except ValueError:
        return
    raise AssertionError("a size of 0 was taken")


@given(st.integers(0, 250_000))
def test_pages_start_every_page_and_cover_the_topic(partitions: int) -> None:
    starts = scale_wire.page_starts(partitions)
    assert starts[0] == 0
    assert all(b - a == scale_wire.LEADERS_PAGE for a, b in itertools.pairwise(starts))
    assert starts[-1] + scale_wire.LEADERS_PAGE >= partitions


def test_below_unknown_and_differing_name_only_what_is_missing() -> None:
    ends = {0: 0, 1: 1, 2: 3, 4: 0}
    assert scale_wire.below(ends, 1) == [0, 4]
    assert scale_wire.unknown(ends, 6) == [3, 5]
    committed = {0: 1, 1: 0, 3: 1, 7: 1}
    assert scale_wire.differing(committed, 5, 1) == [1, 2, 4]
    assert scale_wire.differing({p: 1 for p in range(5)}, 5, 1) == []
