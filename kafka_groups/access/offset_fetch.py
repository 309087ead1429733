"""OffsetFetch answers decoded straight into arrays (pure, but for the request wrapper).

A reset of 30,000 partitions reads the group's committed offsets four times (the plan, the
check before the send, the check before a transaction's EndTxn, the read-back), and kafka-python
turns each answer into 30,000 partition objects before anything reads it. Here the answer's
bytes become, per group and topic, three arrays (partitions, offsets, leader epochs) and the list
of partitions answered with an error; :meth:`FetchedGroup.table` puts the offsets into a compact
table (core/offset_table.py). Metadata strings are skipped, unless asked for (``metadata=True``:
``committed_with_metadata`` shows them), then they come as a list per topic.

Every version the tools send is decoded (v1-v9; v10, which names topics by id, is not asked
for: :func:`offset_fetch` caps the request at v9). A partition's fields come in one fixed
layout when its metadata is empty and it has no tagged fields (every commit of this project's
and of Java consumers): each field of the whole array is then gathered into an array in C
(strided slices of the answer's bytes), and read field by field otherwise.
``tests/unit/test_offset_fetch_decode.py`` holds the result equal to kafka-python's decoding in
every version.
"""

from __future__ import annotations

import struct
from array import array
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kafka_groups.access.answers import array_length, column, skip_tags, string, uvarint

if TYPE_CHECKING:
    from kafka_groups.core.offset_table import OffsetTable

MAX_VERSION = 9  # v10 names topics by id
FLEXIBLE_FROM = 6
GROUPS_FROM = 8
EPOCH_FROM = 5

_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_PARTITION_OFFSET = struct.Struct(">iq")


@dataclass(slots=True)
class FetchedTopic:
    """One topic of an answer: per partition (in the answer's order) its number, committed
    offset (-1: none) and leader epoch (-1: none); ``errors``: (partition, code) of those
    answered with an error."""

    name: str
    partitions: array[int]
    offsets: array[int]
    epochs: array[int]
    errors: list[tuple[int, int]] = field(default_factory=list)
    metadata: list[str | None] | None = None  # per partition, when asked for


@dataclass(slots=True)
class FetchedGroup:
    """One group of an answer (``group_id`` None before v8: the answer names no group)."""

    group_id: str | None
    error_code: int
    topics: list[FetchedTopic]

    def first_error(self) -> tuple[str, int, int] | None:
        """(topic, partition, code) of the first partition answered with an error."""
        for topic in self.topics:
            if topic.errors:
                partition, code = topic.errors[0]
                return topic.name, partition, code
        return None

    def errors(self) -> list[tuple[str, int, int]]:
        return [(t.name, p, code) for t in self.topics for p, code in t.errors]

    def table(self) -> OffsetTable:
        """The partitions with a committed offset (0 or more), as a compact table, settled."""
        from kafka_groups.core.offset_table import OffsetTable

        held = OffsetTable()
        for topic in self.topics:
            held.put_topic(topic.name, topic.partitions, topic.offsets)
        return held.settle()

    def offsets(self) -> dict[tuple[str, int], int]:
        """The partitions with a committed offset (0 or more), as a dict in the answer's order."""
        return {
            (t.name, p): o
            for t in self.topics
            for p, o in zip(t.partitions, t.offsets, strict=True)
            if o >= 0
        }

    def partition_count(self) -> int:
        return sum(len(t.partitions) for t in self.topics)


@dataclass(slots=True)
class FetchedOffsets:
    """A decoded OffsetFetch answer. ``error_code``: the answer's own (v2-v7; 0 from v8, where
    each group has its own)."""

    API_VERSION: int
    throttle_time_ms: int
    error_code: int
    groups: list[FetchedGroup]


def offset_fetch(request: Any, metadata: bool = False) -> Any:
    """``request`` (an ``OffsetFetchRequest``, version cap v9 or none) with its answer decoded
    by :func:`decode_offset_fetch` (``metadata``: with the metadata strings); the version is
    capped at v9."""
    from kafka_groups.access.answers import Decoded

    if request._max_version is None or request._max_version > MAX_VERSION:
        request._max_version = MAX_VERSION
    if metadata:
        return Decoded(request, lambda data, version: decode_offset_fetch(data, version, metadata=True))
    return Decoded(request, decode_offset_fetch)


def decode_offset_fetch(data: bytes, version: int, metadata: bool = False) -> FetchedOffsets:
    """The OffsetFetch answer ``data`` (after its response header) of ``version``; with
    ``metadata``, each topic's metadata strings too. A truncated or malformed answer is a
    ``ValueError`` (the layer reports it as a protocol error)."""
    if not 1 <= version <= MAX_VERSION:
        raise ValueError(f"OffsetFetch v{version} is not decoded here")
    try:
        return _decode(memoryview(data), version, metadata)
    except (IndexError, struct.error, UnicodeDecodeError) as exc:
        raise ValueError(f"a malformed OffsetFetch v{version} answer: {exc}") from None


def _decode(data: memoryview, version: int, metadata: bool) -> FetchedOffsets:
    flexible = version >= FLEXIBLE_FROM
    pos = 0
    throttle = 0
    if version >= 3:
        throttle = _I32.unpack_from(data, pos)[0]
        pos += 4
    if version >= GROUPS_FROM:
        count, pos = array_length(data, pos, flexible)
        groups = []
        for _ in range(count):
            group_id, pos = string(data, pos, flexible)
            topics, pos = _topics(data, pos, version, flexible, metadata)
            code = _I16.unpack_from(data, pos)[0]
            pos = skip_tags(data, pos + 2)
            groups.append(FetchedGroup(group_id, code, topics))
        error = 0
    else:
        topics, pos = _topics(data, pos, version, flexible, metadata)
        error = 0
        if version >= 2:
            error = _I16.unpack_from(data, pos)[0]
            pos += 2
        groups = [FetchedGroup(None, error, topics)]
    if flexible:
        pos = skip_tags(data, pos)
    return FetchedOffsets(version, throttle, error, groups)


def _topics(
    data: memoryview, pos: int, version: int, flexible: bool, metadata: bool
) -> tuple[list[FetchedTopic], int]:
    count, pos = array_length(data, pos, flexible)
    topics = []
    for _ in range(count):
        name, pos = string(data, pos, flexible)
        partitions, pos = array_length(data, pos, flexible)
        topic, pos = _partitions(data, pos, name or "", max(partitions, 0), version, flexible, metadata)
        if flexible:
            pos = skip_tags(data, pos)
        topics.append(topic)
    return topics, pos


def _partitions(
    data: memoryview, pos: int, name: str, count: int, version: int, flexible: bool, metadata: bool
) -> tuple[FetchedTopic, int]:
    """``count`` partitions from ``pos``: column by column in C where every one of them has
    the fixed layout (whose metadata is null or empty), else one field after another."""
    epoch = version >= EPOCH_FROM
    if flexible:  # index, offset, epoch, metadata length (1 byte), error code, tagged fields (1 byte)
        size, metadata_at, code_at, tags_at, empty = 20, 16, 17, 19, b"\x00\x01"
    elif epoch:  # index, offset, epoch, metadata length (2 bytes), error code
        size, metadata_at, code_at, tags_at, empty = 20, 16, 18, -1, b""
    else:  # index, offset, metadata length (2 bytes), error code
        size, metadata_at, code_at, tags_at, empty = 16, 12, 14, -1, b""
    end = pos + count * size
    if count and end <= len(data):
        raw = bytes(data[pos:end])
        if flexible:
            # every metadata length 0 (null) or 1 (empty), every tagged-field count 0
            laid_out = not raw[metadata_at::size].translate(None, empty) and not any(raw[tags_at::size])
        else:  # every metadata length -1 (null) or 0 (empty)
            lengths = column(raw, size, metadata_at, 2, "h")
            laid_out = all(length in (-1, 0) for length in set(lengths))
        if laid_out:
            codes = column(raw, size, code_at, 2, "h")
            partitions = column(raw, size, 0, 4, "i")
            errors = [(p, c) for p, c in zip(partitions, codes, strict=True) if c] if any(codes) else []
            topic = FetchedTopic(
                name,
                partitions,
                column(raw, size, 4, 8, "q"),
                column(raw, size, 12, 4, "i") if epoch else _minus(count),
                errors,
            )
            if metadata:  # the length that means null: 0 (compact), -1 (classic)
                null = 0 if flexible else -1
                width = 1 if flexible else 2
                lengths = column(raw, size, metadata_at, width, "b" if flexible else "h")
                topic.metadata = [None if length == null else "" for length in lengths]
            return topic, end
    return _partitions_slowly(data, pos, name, count, epoch, flexible, metadata)


def _minus(count: int) -> array[int]:
    return array("i", [-1]) * count


def _partitions_slowly(
    data: memoryview, pos: int, name: str, count: int, epoch: bool, flexible: bool, metadata: bool
) -> tuple[FetchedTopic, int]:
    partitions, offsets = array("i"), array("q")
    epochs = array("i") if epoch else _minus(count)
    errors = []
    texts: list[str | None] | None = [] if metadata else None
    for _ in range(count):
        partition, offset = _PARTITION_OFFSET.unpack_from(data, pos)
        pos += 12
        if epoch:
            epochs.append(_I32.unpack_from(data, pos)[0])
            pos += 4
        if texts is not None:
            text, pos = string(data, pos, flexible)
            texts.append(text)
        elif flexible:
            length, pos = uvarint(data, pos)
            pos += max(length - 1, 0)
        else:
            length = _I16.unpack_from(data, pos)[0]
            pos += 2 + max(length, 0)
        code = _I16.unpack_from(data, pos)[0]
        pos += 2
        if flexible:
            pos = skip_tags(data, pos)
        partitions.append(partition)
        offsets.append(offset)
        if code:
            errors.append((partition, code))
    if pos > len(data):
        raise IndexError("the answer ends inside a partition")
    return FetchedTopic(name, partitions, offsets, epochs, errors, texts), pos
