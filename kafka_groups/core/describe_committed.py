"""The committed offsets of one large group, held compactly (pure).

A describe of one group of 100,000 partitions held its committed offsets as a dict of
``(topic, partition) -> Committed``: about 250 bytes a partition (the key tuple, its numbers,
the named tuple, the dict entry), 25 MB. :class:`CommittedTable` keeps the offsets and the leader
epochs in two compact tables of core/offset_table.py (9 bytes a partition each, the epochs only
where the commit carried one) and makes a ``Committed`` when one is asked for: to the code that
reads it, it is the ``Mapping[TopicPartition, Committed]`` the dict was.

:func:`committed_of` makes a group's mapping from the arrays of a decoded OffsetFetch answer
(access/offset_fetch.py): a dict up to ``COMPACT_ABOVE`` partitions (where a dict costs less to
read), a table beyond.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from kafka_groups.core.describe import Committed, TopicPartition
from kafka_groups.core.offset_table import OffsetTable

# A group with more committed partitions than this is held in a CommittedTable.
COMPACT_ABOVE = 2000


class CommittedTable(Mapping[TopicPartition, Committed]):
    """``(topic, partition) -> Committed``: the offsets (0 or more) in one OffsetTable, the
    leader epochs (0 or more; a partition without one has None) in another. Iterates topic by
    topic in partition order."""

    __slots__ = ("_epochs", "_offsets")

    def __init__(self, offsets: OffsetTable, epochs: OffsetTable) -> None:
        self._offsets = offsets
        self._epochs = epochs

    @property
    def offsets(self) -> OffsetTable:
        """The committed offsets alone."""
        return self._offsets

    def __getitem__(self, tp: TopicPartition) -> Committed:
        offset = self._offsets[tp]
        return tuple.__new__(Committed, (offset, self._epochs.get(tp)))

    def get(self, tp: TopicPartition, default: Any = None) -> Any:
        offset = self._offsets.get(tp)
        if offset is None:
            return default
        return tuple.__new__(Committed, (offset, self._epochs.get(tp)))

    def __contains__(self, tp: object) -> bool:
        return tp in self._offsets

    def __iter__(self) -> Iterator[TopicPartition]:
        return iter(self._offsets)

    def __len__(self) -> int:
        return len(self._offsets)

    def topics(self) -> list[str]:
        return self._offsets.topics()

    def partitions_of(self, topic: str) -> list[int]:
        """``topic``'s committed partitions, in order."""
        return self._offsets.partitions_of(topic)

    def columns(self, topic: str, partitions: Sequence[int]) -> tuple[list[int | None], list[int | None]]:
        """The committed offsets and leader epochs of ``topic``'s ``partitions``, in their order
        (None where there is none): what a ``get`` of each gives, a run of partitions at once."""
        return self._offsets.column(topic, partitions), self._epochs.column(topic, partitions)

    def __repr__(self) -> str:
        return f"CommittedTable({dict(self.items())!r})"


def committed_of(
    topics: Sequence[tuple[str, Sequence[int], Sequence[int], Sequence[int]]],
) -> Mapping[TopicPartition, Committed]:
    """A group's committed offsets from its answer's columns, per topic ``(name, partitions,
    offsets, epochs)`` (an offset below 0: none, left out; an epoch below 0: None): a dict in
    the answer's order up to ``COMPACT_ABOVE`` partitions, else a :class:`CommittedTable`."""
    count = sum(len(partitions) for _name, partitions, _offsets, _epochs in topics)
    if count <= COMPACT_ABOVE:
        new = tuple.__new__
        return {
            (name, partition): new(Committed, (offset, epoch if epoch >= 0 else None))
            for name, partitions, offsets, epochs in topics
            for partition, offset, epoch in zip(partitions, offsets, epochs, strict=True)
            if offset >= 0
        }
    held, epochs_held = OffsetTable(), OffsetTable()
    for name, partitions, offsets, epochs in topics:
        held.put_topic(name, partitions, offsets)
        if epochs and max(epochs) >= 0:
            if min(offsets) < 0:  # an epoch only where there is an offset
                epochs = [e if o >= 0 else -1 for o, e in zip(offsets, epochs, strict=True)]
            epochs_held.put_topic(name, partitions, epochs)
    return CommittedTable(held.settle(), epochs_held.settle())
