"""How much one landing reads, and in how many Spark tasks: pure arithmetic on offset ranges.

``--max-records N`` caps a run at N offsets, spread over the partitions in proportion to what each
one has available, as Spark's ``maxOffsetsPerTrigger`` spreads a micro-batch's limit
(``KafkaMicroBatchStream.rateLimit``: each share rounded down, but at least one, "don't completely
starve small topicpartitions"). Spark's rounding makes its batches fall short of the limit, or
exceed it by up to one offset per small partition; here the shares are evened out to add up to
``min(N, available)`` exactly (:func:`spread_limit`). So a backlog of B offsets lands in exactly
ceil(B / N) runs when nothing new arrives, and each run starts where the group's commit says:
consecutive runs neither skip nor repeat an offset.

``--min-partitions N`` is Spark's own ``minPartitions`` option, passed to its Kafka source: when
the landing has fewer non-empty ranges than N, Spark splits the large ones so that about N tasks
read them. :func:`spark_tasks` is that rule as Spark 4.0 applies it
(``KafkaOffsetRangeCalculator.getRanges``), for the report and for sizing.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Hashable, Mapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def spread_limit(limit: int, available: Mapping[K, int]) -> dict[K, int]:
    """How many offsets each key lands under ``limit`` (>= 1), given what each has
    ``available`` (negative counts as 0), in the order given (ties go to the earlier key).

    Spark's shares first: ``limit * available / total`` rounded down, and one for a partition
    whose share is below one. Where those add up to less than the limit, the rest goes one each
    to the largest fractions; where the ones added for small partitions made them more, the
    largest shares give one back each. So the shares add up to ``min(limit, total)`` exactly, none
    exceeds its availability, every key with records gets one when the limit covers one each, and
    a key with more available never gets fewer."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    sizes = {k: max(v, 0) for k, v in available.items()}
    total = sum(sizes.values())
    if total <= limit:
        return sizes
    with_records = [k for k, v in sizes.items() if v > 0]
    order = {k: i for i, k in enumerate(with_records)}
    shares = dict.fromkeys(sizes, 0)
    fraction: dict[K, int] = {}  # limit * size mod total: the share's fraction, times total
    for k in with_records:
        shares[k], fraction[k] = divmod(limit * sizes[k], total)
        if shares[k] == 0 and limit >= len(with_records):
            shares[k], fraction[k] = 1, fraction[k] - total  # rounded up: last in line for more
    missing = limit - sum(shares.values())
    if missing > 0:
        # Fewer than the keys with a fraction (the fractions add up to ``missing``): one each.
        ranked = sorted(with_records, key=lambda k: (-fraction[k], -sizes[k], order[k]))
        for k in ranked[:missing]:
            shares[k] += 1
    elif missing < 0:
        # The largest share gives one back, then the next; among equal shares the key with less
        # available first, so that more available never ends with less.
        heap = [(-shares[k], sizes[k], -i) for i, k in enumerate(with_records)]
        heapq.heapify(heap)
        for _ in range(-missing):
            share, size, position = heapq.heappop(heap)
            shares[with_records[-position]] -= 1
            heapq.heappush(heap, (share + 1, size, position))
    return shares


def _round_half_up(value: float) -> int:
    """``scala.math.round`` on a double: the nearest integer, halves up."""
    return math.floor(value + 0.5)


def _part_count(size: int, total: int, min_parts: int) -> int:
    return max(_round_half_up(size / total * min_parts), 1)


def divide(start: int, end: int, parts: int) -> list[tuple[int, int]]:
    """``[start, end)`` in ``parts`` contiguous pieces, as Spark divides a range: piece i takes
    what remains divided by the pieces left, so the later pieces take the remainder; empty
    pieces are dropped."""
    remaining, position, pieces = end - start, start, []
    for part in range(parts):
        size = remaining // (parts - part)
        remaining -= size
        stop = min(position + size, end)
        if stop > position:
            pieces.append((position, stop))
        position = stop
    return pieces


def spark_tasks(
    ranges: Mapping[K, tuple[int, int]], min_partitions: int | None
) -> dict[K, list[tuple[int, int]]]:
    """The pieces Spark 4.0's Kafka source reads ``ranges`` (key -> [start, end)) in, one task
    each, under ``minPartitions``. Empty ranges get no task. With no ``min_partitions``, or at
    least that many non-empty ranges, each range is one task; otherwise ranges whose share of
    ``min_partitions`` rounds to one stay whole, and the others are divided in proportion to
    their size among the tasks left (about ``min_partitions`` in all: rounding can make it a
    few more or fewer)."""
    sized = {k: (s, e) for k, (s, e) in ranges.items() if e > s}
    if min_partitions is None or len(sized) >= min_partitions:
        return {k: [r] for k, r in sized.items()}
    total = sum(e - s for s, e in sized.values())
    whole = {k for k, (s, e) in sized.items() if _part_count(e - s, total, min_partitions) == 1}
    split_total = total - sum(sized[k][1] - sized[k][0] for k in whole)
    split_min = max(min_partitions - len(whole), 1)
    tasks: dict[K, list[tuple[int, int]]] = {}
    for k, (s, e) in sized.items():
        parts = 1 if k in whole else _part_count(e - s, split_total, split_min)
        tasks[k] = divide(s, e, parts)
    return tasks
