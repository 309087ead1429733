"""How many offsets one write to ``__consumer_offsets`` can carry (pure).

The group coordinator writes each OffsetCommit, TxnOffsetCommit, OffsetDelete and DeleteGroups
as one record batch, all or nothing, and the offsets topic refuses a batch larger than its
``max.message.bytes`` (1 MiB by default): the request then fails for every partition with
UNKNOWN_SERVER_ERROR and writes nothing. Measured on Kafka 4.3.1 with the limit lowered to
20,000 bytes: an OffsetCommit takes about 72 bytes a partition (group ``g-2-p277``, topic
``big``: 277 partitions fit, 278 do not), a TxnOffsetCommit about 52 (384 fit), an offset
tombstone about 30 (600 fit, 1,000 do not).

The sizes below are upper bounds of the record batch v2 layout (61 bytes of batch header; per
record at most 12 bytes of framing, the key, and the value with its topic id), so a write the
estimate accepts fits; :data:`BATCH_MARGIN` leaves room for what the bounds do not foresee.
Where the estimate is wrong after all, the broker refuses the write whole, and the read-back
says so: nothing is ever half written by a wrong estimate.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from kafka_groups.core.describe import TopicPartition

# The broker's message.max.bytes default, which __consumer_offsets inherits unless its own
# max.message.bytes is set: the limit assumed when the topic's configuration cannot be read.
DEFAULT_MAX_MESSAGE_BYTES = 1_048_588
# A write is planned to fill at most this share of the limit.
BATCH_MARGIN = 0.9
BATCH_HEADER = 61  # a record batch's header (magic v2)
RECORD_FRAMING = 12  # length, attributes, timestamp and offset deltas, key and value lengths, headers
# OffsetCommitKey: version, group, topic, partition (the strings with their lengths).
COMMIT_KEY = 2 + 2 + 2 + 4
# OffsetCommitValue, its largest form: version, offset, leader epoch, metadata length, commit
# time, and a tagged topic id (flexible versions).
COMMIT_VALUE = 2 + 8 + 4 + 2 + 8 + 1 + 18
COMMIT_RECORD = RECORD_FRAMING + COMMIT_KEY + COMMIT_VALUE  # plus the names and the metadata
TOMBSTONE_RECORD = RECORD_FRAMING + COMMIT_KEY  # an offset deleted: the key, no value
# What a group's own records take when DeleteGroups removes it (its metadata, assignment,
# epochs, subscription, topology: tombstones naming the group), per record.
GROUP_RECORDS = 16
GROUP_RECORD = RECORD_FRAMING + 40

K = TypeVar("K")


def budget(limit: int) -> int:
    """The bytes a planned write may take under the offsets topic's ``limit``."""
    return int(limit * BATCH_MARGIN)


def _utf8(text: str) -> int:
    return len(text.encode("utf-8"))


def commit_records(
    group: str, offsets: Iterable[TopicPartition], metadata: Mapping[TopicPartition, str] | None = None
) -> Iterator[tuple[TopicPartition, int]]:
    """Each partition with the bytes its committed offset takes in the batch, at most."""
    notes = metadata or {}
    named: dict[str, int] = {}  # one length per topic, not per partition
    fixed = COMMIT_RECORD + _utf8(group)
    for tp in offsets:
        size = named.get(tp[0])
        if size is None:
            size = named[tp[0]] = fixed + _utf8(tp[0])
        note = notes.get(tp)
        yield tp, size + (_utf8(note) if note else 0)


def tombstone_records(
    group: str, partitions: Iterable[TopicPartition]
) -> Iterator[tuple[TopicPartition, int]]:
    """Each partition with the bytes its offset's tombstone takes, at most."""
    named: dict[str, int] = {}
    fixed = TOMBSTONE_RECORD + _utf8(group)
    for tp in partitions:
        size = named.get(tp[0])
        if size is None:
            size = named[tp[0]] = fixed + _utf8(tp[0])
        yield tp, size


def group_records(group: str) -> int:
    """The bytes DeleteGroups writes for the group itself, besides its offsets, at most."""
    return GROUP_RECORDS * (GROUP_RECORD + _utf8(group))


def batch_bytes(records: Iterable[tuple[K, int]]) -> int:
    """The size of one batch holding ``records``, at most."""
    return BATCH_HEADER + sum(size for _, size in records)


def fits(records: Iterable[tuple[K, int]], limit: int, reserve: int = 0) -> bool:
    """Whether ``records`` (and ``reserve`` more bytes) fit one batch under ``limit``."""
    return batch_bytes(records) + reserve <= budget(limit)


def chunks(records: Iterable[tuple[K, int]], limit: int) -> list[list[K]]:
    """``records`` in order, cut into runs that each fit one batch under ``limit``. A record
    too large for any batch is a run of its own (the broker refuses it, and says so)."""
    room = budget(limit) - BATCH_HEADER
    runs: list[list[K]] = []
    current: list[K] = []
    used = 0
    for key, size in records:
        if current and used + size > room:
            runs.append(current)
            current, used = [], 0
        current.append(key)
        used += size
    if current:
        runs.append(current)
    return runs
