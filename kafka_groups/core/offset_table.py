"""Offsets of many partitions, held compactly (pure).

A reset of 100,000 partitions holds several maps from partition to offset at once: the
committed offsets, the log starts and ends, the plan, what it replaces, what was read back. As
dicts keyed by ``(topic, partition)`` tuples each costs about 150 bytes a partition (the tuple,
its partition number, the offset, the dict entry); the tables here keep one array of 64-bit
offsets per topic, indexed by partition, and a presence byte: 9 bytes a partition. They are
read-only ``Mapping[TopicPartition, int]`` values to the code that takes them (the keys are
made as they are iterated), so planning, rendering and the write guard take either.

* :class:`OffsetTable` iterates topic by topic in partition order.
* :class:`OrderedOffsets` keeps an order of its own (a plan's rows are in the Apache tool's
  HashMap order): 8 more bytes a partition.
* :class:`LeaderTable` is one topic's partition -> leader id, every partition present.
"""

from __future__ import annotations

from array import array
from collections.abc import ItemsView, Iterable, Iterator, Mapping, Sequence, ValuesView
from itertools import compress
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kafka_groups.core.describe import TopicPartition

_ABSENT = 0
_PRESENT = 1


class OffsetTable(Mapping["TopicPartition", int]):
    """``(topic, partition) -> offset``, one int64 array and one presence bytearray per topic.
    Filled with :meth:`put` while it is built; a value handed on is not changed any more.

    A topic's arrays grow only as far as its entries fill them (twice their number, and 4,096
    more): a partition number far beyond (a plan file's stray 2147483647) is kept in a dict
    beside them, so that no row can make the table allocate gigabytes."""

    __slots__ = ("_counts", "_offsets", "_present", "_size", "_sparse")

    def __init__(self, items: Iterable[tuple[TopicPartition, int]] = ()) -> None:
        self._offsets: dict[str, array[int]] = {}
        self._present: dict[str, bytearray] = {}
        self._counts: dict[str, int] = {}  # entries per topic, dense and sparse
        self._sparse: dict[str, dict[int, int]] = {}
        self._size = 0
        for tp, offset in items:
            self.put(tp, offset)

    @classmethod
    def of(cls, offsets: Mapping[TopicPartition, int]) -> OffsetTable:
        """``offsets`` as a table (itself when it is one)."""
        if isinstance(offsets, OffsetTable):
            return offsets
        return cls(offsets.items())

    def put(self, tp: TopicPartition, offset: int) -> None:
        topic, partition = tp
        present = self._present.get(topic)
        if present is not None and not self._sparse:
            try:
                if present[partition]:
                    self._offsets[topic][partition] = offset
                    return
                if partition >= 0:
                    present[partition] = _PRESENT
                    self._offsets[topic][partition] = offset
                    self._size += 1
                    self._counts[topic] += 1
                    return
            except IndexError:
                pass
        self._put_slowly(topic, partition, offset)

    def _put_slowly(self, topic: str, partition: int, offset: int) -> None:
        if partition < 0:
            raise KeyError((topic, partition))
        sparse = self._sparse.get(topic)
        if sparse is not None and partition in sparse:
            sparse[partition] = offset
            return
        present = self._present.get(topic)
        if present is None:
            present = self._present[topic] = bytearray()
            self._offsets[topic] = array("q")
            self._counts[topic] = 0
        if partition < len(present):
            if not present[partition]:
                present[partition] = _PRESENT
                self._size += 1
                self._counts[topic] += 1
            self._offsets[topic][partition] = offset
            return
        count = self._counts[topic]
        if partition < 2 * count + 4096:  # dense enough: the arrays grow (with room to spare)
            grow = max(partition + 1 - len(present), len(present) // 2, 16)
            self._offsets[topic].frombytes(bytes(8 * grow))
            present.extend(bytes(grow))
            present[partition] = _PRESENT
            self._offsets[topic][partition] = offset
        else:
            self._sparse.setdefault(topic, {})[partition] = offset
        self._size += 1
        self._counts[topic] = count + 1

    __setitem__ = put

    def put_topic(self, topic: str, partitions: Sequence[int], offsets: Sequence[int]) -> None:
        """Every ``(topic, partitions[i]) -> offsets[i]`` whose offset is 0 or more (a decoded
        answer's columns, -1 meaning none), in any order, the last of a partition given twice
        winning: straight into the topic's arrays where they stay dense enough, else one
        :meth:`put` each."""
        if len(partitions) != len(offsets):
            raise ValueError("as many offsets as partitions")
        if not offsets:
            return
        if min(offsets) < 0:  # some without an offset: left out
            kept = [(p, o) for p, o in zip(partitions, offsets, strict=True) if o >= 0]
            if not kept:
                return
            partitions, offsets = [p for p, _ in kept], [o for _, o in kept]
        top = max(partitions)
        count = self._counts.get(topic, 0)
        # One answer may hold every third partition of a topic (those one broker leads): the
        # arrays may run ahead of the entries further than put() lets them, within the cost of
        # a dict's entries (16 x 9 bytes a partition), and no further.
        if (
            min(partitions) < 0
            or top >= 16 * (count + len(partitions)) + 4096
            or (self._sparse and topic in self._sparse)
        ):
            for partition, offset in zip(partitions, offsets, strict=True):
                self.put((topic, partition), offset)
            return
        present = self._present.get(topic)
        if present is None:
            present = self._present[topic] = bytearray()
            self._offsets[topic] = array("q")
        values = self._offsets[topic]
        if top >= len(present):
            grow = top + 1 - len(present)
            values.frombytes(bytes(8 * grow))
            present.extend(bytes(grow))
        for partition, offset in zip(partitions, offsets, strict=True):
            present[partition] = _PRESENT
            values[partition] = offset
        added = present.count(_PRESENT) - count  # a partition there before, or given twice, counts once
        self._counts[topic] = count + added
        self._size += added

    def __getitem__(self, tp: TopicPartition) -> int:
        topic, partition = tp
        try:
            if partition >= 0 and self._present[topic][partition]:
                return self._offsets[topic][partition]
        except (KeyError, IndexError, TypeError):
            pass
        if self._sparse:
            sparse = self._sparse.get(topic)
            if sparse is not None and partition in sparse:
                return sparse[partition]
        raise KeyError(tp)

    def __contains__(self, tp: object) -> bool:
        topic: str
        partition: int
        try:
            topic, partition = tp  # type: ignore[misc]
            if partition >= 0 and self._present[topic][partition]:
                return True
        except (KeyError, IndexError, TypeError, ValueError):
            pass
        if self._sparse and isinstance(tp, tuple) and len(tp) == 2:
            sparse = self._sparse.get(tp[0])
            return sparse is not None and tp[1] in sparse
        return False

    def get(self, tp: TopicPartition, default: Any = None) -> Any:
        topic, partition = tp
        try:
            if partition >= 0 and self._present[topic][partition]:
                return self._offsets[topic][partition]
        except (KeyError, IndexError, TypeError):
            pass
        if self._sparse:
            sparse = self._sparse.get(topic)
            if sparse is not None and partition in sparse:
                return sparse[partition]
        return default

    def __iter__(self) -> Iterator[TopicPartition]:
        return (tp for tp, _ in self._pairs())

    def items(self) -> ItemsView[TopicPartition, int]:
        return _Items(self)

    def values(self) -> ValuesView[int]:
        return _Values(self)

    def _pairs(self) -> Iterator[tuple[TopicPartition, int]]:
        for topic in self._present:
            yield from self._topic_pairs(topic)

    def _topic_pairs(self, topic: str) -> Iterator[tuple[TopicPartition, int]]:
        """One topic's entries in partition order."""
        values, present = self._offsets[topic], self._present[topic]
        sparse = self._sparse.get(topic) if self._sparse else None
        if not sparse:
            for partition in _indexes(present):
                yield (topic, partition), values[partition]
            return
        import heapq

        dense = ((p, values[p]) for p in _indexes(present))
        for partition, offset in heapq.merge(dense, sorted(sparse.items())):
            yield (topic, partition), offset

    def __len__(self) -> int:
        return self._size

    def topics(self) -> list[str]:
        return [t for t, count in self._counts.items() if count]

    def partitions_of(self, topic: str) -> list[int]:
        """``topic``'s partitions held, in order."""
        if topic not in self._present:
            return []
        if self._sparse and topic in self._sparse:
            return [tp[1] for tp, _ in self._topic_pairs(topic)]
        return list(_indexes(self._present[topic]))

    def column(self, topic: str, partitions: Iterable[int]) -> list[int | None]:
        """The offsets of ``topic``'s ``partitions``, in their order (None where absent): what
        a ``get`` of each gives, for a run of one topic's partitions at once."""
        present = self._present.get(topic)
        if present is None:
            return [None for _ in partitions]
        if self._sparse and topic in self._sparse:
            return [self.get((topic, p)) for p in partitions]
        values, count = self._offsets[topic], len(present)
        return [values[p] if 0 <= p < count and present[p] else None for p in partitions]

    def settle(self) -> OffsetTable:
        """Move what was kept beside the arrays into them where they are dense enough by now
        (entries that came out of partition order: an OffsetFetch answer, a plan file in the
        Apache order). Returns the table."""
        for topic, sparse in list(self._sparse.items()):
            if max(sparse) < 2 * self._counts[topic] + 4096:
                present, values = self._present[topic], self._offsets[topic]
                grow = max(sparse) + 1 - len(present)
                if grow > 0:
                    values.frombytes(bytes(8 * grow))
                    present.extend(bytes(grow))
                for partition, offset in sparse.items():
                    present[partition] = _PRESENT
                    values[partition] = offset
                del self._sparse[topic]
        return self

    def masked(self, keys: OffsetTable) -> OffsetTable:
        """The entries whose partition ``keys`` has too, array by array (both settled)."""
        out = OffsetTable()
        for topic, present in self._present.items():
            other = keys._present.get(topic)
            if other is None:
                continue
            width = min(len(present), len(other))
            both = (
                int.from_bytes(present[:width], "little") & int.from_bytes(other[:width], "little")
            ).to_bytes(width, "little")
            count = both.count(_PRESENT)
            if count:
                out._present[topic] = bytearray(both)
                out._offsets[topic] = self._offsets[topic][:width]
                out._counts[topic] = count
                out._size += count
        return out

    def __eq__(self, other: object) -> bool:
        if isinstance(other, OrderedOffsets):
            other = other.table
        if isinstance(other, OffsetTable):
            if self._size != other._size:
                return False
            if not self._sparse and not other._sparse:  # array by array, in C
                return all(_same(self, other, topic) for topic in set(self._present) | set(other._present))
            return all(other.get(tp, _MISSING) == offset for tp, offset in self._pairs())
        if isinstance(other, Mapping):
            return len(other) == self._size and all(other.get(tp, _MISSING) == o for tp, o in self._pairs())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"OffsetTable({dict(self._pairs())!r})"


_MISSING = object()


def _same(a: OffsetTable, b: OffsetTable, topic: str) -> bool:
    """One topic's entries equal in both (neither with entries beside its arrays)."""
    pa, pb = a._present.get(topic, bytearray()), b._present.get(topic, bytearray())
    width = max(len(pa), len(pb))
    if pa.ljust(width, b"\0") != pb.ljust(width, b"\0"):
        return False
    empty: array[int] = array("q")
    return list(compress(a._offsets.get(topic, empty), pa)) == list(
        compress(b._offsets.get(topic, empty), pb)
    )


def _indexes(present: bytearray) -> Iterator[int]:
    """The partitions marked present, in order (picked in C)."""
    return compress(range(len(present)), present)


class _Items(ItemsView["TopicPartition", int]):
    _mapping: Any

    def __iter__(self) -> Iterator[tuple[TopicPartition, int]]:
        return self._mapping._pairs()  # type: ignore[no-any-return]


class _Values(ValuesView[int]):
    _mapping: Any

    def __iter__(self) -> Iterator[int]:
        return (offset for _, offset in self._mapping._pairs())


class OrderedOffsets(Mapping["TopicPartition", int]):
    """An :class:`OffsetTable` iterated in an order of its own: each key packed in one int64
    (the topic's number and the partition)."""

    __slots__ = ("_names", "_numbers", "_order", "_table")

    def __init__(self, table: OffsetTable | None = None, order: Iterable[TopicPartition] = ()) -> None:
        self._table = OffsetTable() if table is None else table
        self._numbers: dict[str, int] = {}
        self._names: list[str] = []
        self._order = array("q")
        for tp in order:
            self._add_key(tp)

    def _add_key(self, tp: TopicPartition) -> None:
        topic, partition = tp
        number = self._numbers.get(topic)
        if number is None:
            number = self._numbers[topic] = len(self._names)
            self._names.append(topic)
        self._order.append(number << 32 | partition)

    def append(self, tp: TopicPartition, offset: int) -> None:
        """A new last entry (``tp`` not in it yet: a plan file's rows, in their order)."""
        self._table.put(tp, offset)
        self._add_key(tp)

    def __getitem__(self, tp: TopicPartition) -> int:
        return self._table[tp]

    def __contains__(self, tp: object) -> bool:
        return tp in self._table

    def get(self, tp: TopicPartition, default: Any = None) -> Any:
        return self._table.get(tp, default)

    def __iter__(self) -> Iterator[TopicPartition]:
        names = self._names
        for packed in self._order:
            yield names[packed >> 32], packed & 0xFFFFFFFF

    def items(self) -> ItemsView[TopicPartition, int]:
        return _Items(self)

    def values(self) -> ValuesView[int]:
        return _Values(self)

    def _pairs(self) -> Iterator[tuple[TopicPartition, int]]:
        names, table = self._names, self._table
        for packed in self._order:
            tp = (names[packed >> 32], packed & 0xFFFFFFFF)
            yield tp, table[tp]

    def __len__(self) -> int:
        return len(self._order)

    @property
    def table(self) -> OffsetTable:
        return self._table

    def __eq__(self, other: object) -> bool:
        return self._table == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"OrderedOffsets({dict(self._pairs())!r})"


class LeaderTable(Mapping[int, int]):
    """One topic's ``partition -> leader id`` (-1: none), partitions 0 to n-1."""

    __slots__ = ("_leaders",)

    def __init__(self, leaders: Iterable[int] = ()) -> None:
        self._leaders = array("i", leaders)

    def set(self, partition: int, leader: int) -> None:
        if partition >= len(self._leaders):
            self._leaders.extend(array("i", [-1]) * (partition + 1 - len(self._leaders)))
        self._leaders[partition] = leader

    def set_many(self, partitions: Sequence[int], leaders: Sequence[int]) -> None:
        """``set`` of each pair (a page of a DescribeTopicPartitions answer), a leader below 0
        kept as -1; a run of consecutive partitions in one slice assignment."""
        if len(partitions) != len(leaders):
            raise ValueError("as many leaders as partitions")
        if not partitions:
            return
        first, count = partitions[0], len(partitions)
        if first >= 0 and min(leaders) >= -1 and list(partitions) == list(range(first, first + count)):
            if first + count > len(self._leaders):
                self._leaders.extend(array("i", [-1]) * (first + count - len(self._leaders)))
            self._leaders[first : first + count] = array("i", leaders)
            return
        for partition, leader in zip(partitions, leaders, strict=True):
            self.set(partition, leader if leader >= 0 else -1)

    def absent_and_leaderless(self, partitions: Iterable[int]) -> tuple[list[int], list[int]]:
        """Of ``partitions``, those the topic does not have, and those it has without a leader."""
        leaders, count = self._leaders, len(self._leaders)
        absent: list[int] = []
        leaderless: list[int] = []
        for partition in partitions:
            if not 0 <= partition < count:
                absent.append(partition)
            elif leaders[partition] < 0:
                leaderless.append(partition)
        return absent, leaderless

    def __getitem__(self, partition: int) -> int:
        if not 0 <= partition < len(self._leaders):
            raise KeyError(partition)
        return self._leaders[partition]

    def __contains__(self, partition: object) -> bool:
        return isinstance(partition, int) and 0 <= partition < len(self._leaders)

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self._leaders)))

    def __len__(self) -> int:
        return len(self._leaders)

    def __repr__(self) -> str:
        return f"LeaderTable({list(self._leaders)!r})"


def sorted_items(offsets: Mapping[TopicPartition, int]) -> Iterator[tuple[TopicPartition, int]]:
    """``sorted(offsets.items())`` without the sorted list: a table's entries are in partition
    order within each topic already."""
    if isinstance(offsets, OffsetTable):
        for topic in sorted(offsets._present):
            yield from offsets._topic_pairs(topic)
        return
    yield from sorted(offsets.items())


def subset(
    offsets: Mapping[TopicPartition, int], keys: Mapping[TopicPartition, object], compact: bool | None = None
) -> Mapping[TopicPartition, int]:
    """The entries of ``offsets`` whose partition is in ``keys``: a dict, or a table when
    there are many (``COMPACT_ABOVE`` of core/reset.py) or ``compact`` says so."""
    from kafka_groups.core.reset import COMPACT_ABOVE

    if compact is None:
        compact = len(offsets) > COMPACT_ABOVE or len(keys) > COMPACT_ABOVE
    if not compact:
        return {tp: o for tp, o in offsets.items() if tp in keys}
    source = offsets.table if isinstance(offsets, OrderedOffsets) else offsets
    mask = keys.table if isinstance(keys, OrderedOffsets) else keys
    if (
        isinstance(source, OffsetTable)
        and isinstance(mask, OffsetTable)
        and not source.settle()._sparse
        and not mask.settle()._sparse
    ):
        return source.masked(mask)
    table = OffsetTable()
    for tp, offset in offsets.items():
        if tp in keys:
            table.put(tp, offset)
    return table


def without(
    offsets: Mapping[TopicPartition, int], keys: Mapping[TopicPartition, object], compact: bool | None = None
) -> Mapping[TopicPartition, int]:
    """The entries of ``offsets`` whose partition is not in ``keys``: a dict, or a table when
    there are many (as :func:`subset`)."""
    from kafka_groups.core.reset import COMPACT_ABOVE

    if compact is None:
        compact = len(offsets) > COMPACT_ABOVE or len(keys) > COMPACT_ABOVE
    if not compact:
        return {tp: o for tp, o in offsets.items() if tp not in keys}
    table = OffsetTable()
    for tp, offset in offsets.items():
        if tp not in keys:
            table.put(tp, offset)
    return table


def apache_order(keys: Iterable[TopicPartition], hash_of_topic: Any) -> list[TopicPartition]:
    """``keys`` (distinct, in insertion order) in the iteration order of a Java
    ``HashMap<TopicPartition, ...>`` they were put into (``javaorder.hashmap_order`` with
    ``TopicPartition.hashCode``), computed on packed integers: for 100,000 partitions it holds
    one int per key, not a dict of them. ``hash_of_topic``: Java ``String.hashCode``."""
    listed = keys if isinstance(keys, list) else list(keys)
    count = len(listed)
    capacity = 16
    while count > int(capacity * 0.75):
        capacity *= 2
    mask = capacity - 1
    hashes: dict[str, int] = {}
    packed = array("q")
    for index, (topic, partition) in enumerate(listed):
        base = hashes.get(topic)
        if base is None:
            base = hashes[topic] = hash_of_topic(topic)
        h = (31 * (31 + partition) + base) & 0xFFFFFFFF
        packed.append(((h ^ (h >> 16)) & mask) << 31 | index)
    return [listed[key & 0x7FFFFFFF] for key in sorted(packed)]
