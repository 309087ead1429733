"""ListOffsets and TxnOffsetCommit answers decoded straight into arrays (pure, but for the
request wrappers).

A reset of 30,000 partitions reads their log starts (ListOffsets, 5,000 partitions a request) and
commits them in TxnOffsetCommit parts whose answers name every partition again; kafka-python
makes one object per partition of each. Both answers have partitions of one fixed layout (no
strings; a tagged-field count in the flexible versions, 0 unless a later broker adds a field):
each field of a topic's partitions is gathered into an array in C (access/answers.py's
``column``), and read field by field where a partition carries tagged fields.
``tests/unit/test_partition_answers.py`` holds the result equal to kafka-python's decoding in
every version.
"""

from __future__ import annotations

import struct
from array import array
from dataclasses import dataclass
from typing import Any

from kafka_groups.access.answers import (
    Decoded,
    array_length,
    column,
    length_bytes,
    skip_tags,
    string,
    string_bytes,
    uvarint,
)

LIST_OFFSETS_VERSIONS = (1, 11)  # v0 (OldStyleOffsets) is never asked for
LIST_OFFSETS_FLEXIBLE_FROM = 6
TXN_OFFSET_COMMIT_VERSIONS = (0, 5)
TXN_OFFSET_COMMIT_FLEXIBLE_FROM = 3

_I32 = struct.Struct(">i")


@dataclass(slots=True)
class ListedTopic:
    """One topic of a ListOffsets answer, per partition in the answer's order."""

    name: str
    partitions: array[int]
    error_codes: array[int]
    offsets: array[int]


@dataclass(slots=True)
class ListedOffsets:
    API_VERSION: int
    throttle_time_ms: int
    topics: list[ListedTopic]


@dataclass(slots=True)
class CommitAnswerTopic:
    """One topic of a TxnOffsetCommit answer: (partition, code) of each refused partition."""

    name: str
    count: int
    refused: list[tuple[int, int]]


@dataclass(slots=True)
class CommitAnswer:
    API_VERSION: int
    throttle_time_ms: int
    topics: list[CommitAnswerTopic]

    def refused(self) -> list[tuple[str, int, int]]:
        """(topic, partition, code) of every refused partition, in the answer's order."""
        return [(t.name, p, code) for t in self.topics for p, code in t.refused]


def list_offsets(request: Any, partitions: dict[str, list[int]] | None = None, timestamp: int = 0) -> Decoded:
    """A ``ListOffsetsRequest`` (v1 or later) whose answer is :func:`decode_list_offsets`'s.
    ``partitions`` (per topic, each asked for ``timestamp``), with the request's version set:
    the request's body is encoded here (:func:`list_offsets_body`), the request itself
    carrying no topics."""
    if request._min_version is None or request._min_version < LIST_OFFSETS_VERSIONS[0]:
        request._min_version = LIST_OFFSETS_VERSIONS[0]
    body = None
    if partitions is not None:
        body = list_offsets_body(
            request.API_VERSION,
            partitions,
            timestamp,
            request.replica_id,
            request.isolation_level,
            request.timeout_ms,
        )
    return Decoded(request, decode_list_offsets, body)


def list_offsets_body(
    version: int,
    partitions: dict[str, list[int]],
    timestamp: int,
    replica_id: int = -1,
    isolation_level: int = 0,
    timeout_ms: int = 0,
) -> bytes:
    """The body of a ListOffsets request of ``version`` (v1 or later) asking each partition for
    ``timestamp``, the current leader epoch unknown (-1): the bytes kafka-python writes for the
    same request, one ``struct`` packing a partition."""
    low, high = LIST_OFFSETS_VERSIONS
    if not low <= version <= high:
        raise ValueError(f"ListOffsets v{version} is not encoded here")
    flexible = version >= LIST_OFFSETS_FLEXIBLE_FROM
    out = [_I32.pack(replica_id)]
    if version >= 2:
        out.append(struct.pack(">b", isolation_level))
    out.append(length_bytes(len(partitions), flexible))
    fields = ">i" + ("i" if version >= 4 else "") + "q" + ("B" if flexible else "")
    row = struct.Struct(fields)
    for name, numbers in partitions.items():
        out.append(string_bytes(name, flexible))
        out.append(length_bytes(len(numbers), flexible))
        if version >= 4 and flexible:
            out.append(b"".join([row.pack(p, -1, timestamp, 0) for p in numbers]))
        elif version >= 4:
            out.append(b"".join([row.pack(p, -1, timestamp) for p in numbers]))
        else:
            out.append(b"".join([row.pack(p, timestamp) for p in numbers]))
        if flexible:
            out.append(b"\x00")
    if version >= 10:
        out.append(_I32.pack(timeout_ms))
    if flexible:
        out.append(b"\x00")
    return b"".join(out)


def txn_offset_commit(request: Any, offsets: dict[str, list[tuple[int, int]]] | None = None) -> Decoded:
    """A ``TxnOffsetCommitRequest`` whose answer is :func:`decode_txn_offset_commit`'s.
    ``offsets`` (per topic, (partition, offset) pairs), with the request's version set: the
    request's body is encoded here (:func:`txn_offset_commit_body`), the request itself
    carrying no topics."""
    body = None
    if offsets is not None:
        body = txn_offset_commit_body(request.API_VERSION, request, offsets)
    return Decoded(request, decode_txn_offset_commit, body)


def txn_offset_commit_body(version: int, request: Any, offsets: dict[str, list[tuple[int, int]]]) -> bytes:
    """The body of a TxnOffsetCommit of ``version`` with ``request``'s own fields (ids, producer,
    generation, member) and ``offsets``, each with no leader epoch (-1) and empty metadata: the
    bytes kafka-python writes for the same request."""
    low, high = TXN_OFFSET_COMMIT_VERSIONS
    if not low <= version <= high:
        raise ValueError(f"TxnOffsetCommit v{version} is not encoded here")
    flexible = version >= TXN_OFFSET_COMMIT_FLEXIBLE_FROM
    out = [
        string_bytes(request.transactional_id, flexible),
        string_bytes(request.group_id, flexible),
        struct.pack(">qh", request.producer_id, request.producer_epoch),
    ]
    if version >= 3:
        out.append(_I32.pack(request.generation_id))
        out.append(string_bytes(request.member_id, flexible))
        out.append(string_bytes(request.group_instance_id, flexible))
    out.append(length_bytes(len(offsets), flexible))
    empty = string_bytes("", flexible)
    if version >= 2:
        row = struct.Struct(">iqi" + f"{len(empty)}s" + ("B" if flexible else ""))
    else:
        row = struct.Struct(">iq" + f"{len(empty)}s")
    for name, pairs in offsets.items():
        out.append(string_bytes(name, flexible))
        out.append(length_bytes(len(pairs), flexible))
        if flexible:
            out.append(b"".join([row.pack(p, o, -1, empty, 0) for p, o in pairs]))
            out.append(b"\x00")
        elif version >= 2:
            out.append(b"".join([row.pack(p, o, -1, empty) for p, o in pairs]))
        else:
            out.append(b"".join([row.pack(p, o, empty) for p, o in pairs]))
    if flexible:
        out.append(b"\x00")
    return b"".join(out)


def _topic_records(
    view: memoryview, pos: int, flexible: bool, size: int
) -> tuple[str, int, bytes | None, int]:
    """A topic of an answer whose partitions are records of ``size`` bytes: its name, its
    partition count, and, when every record has that size (no tagged fields), their bytes
    whole, with the position after them; else None and the position of the first record, to
    be read one by one."""
    name, pos = string(view, pos, flexible)
    count, pos = array_length(view, pos, flexible)
    count = max(count, 0)
    end = pos + count * size
    raw = bytes(view[pos:end])
    if len(raw) == count * size and (not flexible or not any(raw[size - 1 :: size])):
        return name or "", count, raw, end
    return name or "", count, None, pos


def decode_list_offsets(data: bytes, version: int) -> ListedOffsets:
    low, high = LIST_OFFSETS_VERSIONS
    if not low <= version <= high:
        raise ValueError(f"ListOffsets v{version} is not decoded here")
    flexible = version >= LIST_OFFSETS_FLEXIBLE_FROM
    epoch = version >= 4
    # index, error code, timestamp, offset, [leader epoch], [tagged-field count]
    size = 22 + (4 if epoch else 0) + (1 if flexible else 0)
    try:
        view = memoryview(data)
        pos, throttle = 0, 0
        if version >= 2:
            throttle = _I32.unpack_from(view, 0)[0]
            pos = 4
        count, pos = array_length(view, pos, flexible)
        topics = []
        for _ in range(max(count, 0)):
            name, partitions, raw, pos = _topic_records(view, pos, flexible, size)
            if raw is not None:
                topics.append(
                    ListedTopic(
                        name,
                        column(raw, size, 0, 4, "i"),
                        column(raw, size, 4, 2, "h"),
                        column(raw, size, 14, 8, "q"),
                    )
                )
            else:
                topic, pos = _listed_slowly(view, pos, name, partitions, size, flexible)
                topics.append(topic)
            if flexible:
                pos = skip_tags(view, pos)
        if flexible:
            pos = skip_tags(view, pos)
    except (IndexError, struct.error, UnicodeDecodeError) as exc:
        raise ValueError(f"a malformed ListOffsets v{version} answer: {exc}") from None
    return ListedOffsets(version, throttle, topics)


def _listed_slowly(
    view: memoryview, pos: int, name: str, count: int, size: int, flexible: bool
) -> tuple[ListedTopic, int]:
    fixed = size - 1 if flexible else size
    partitions, codes, offsets = array("i"), array("h"), array("q")
    for _ in range(count):
        record = bytes(view[pos : pos + fixed])
        if len(record) < fixed:
            raise IndexError("the answer ends inside a partition")
        partitions.append(int.from_bytes(record[0:4], "big", signed=True))
        codes.append(int.from_bytes(record[4:6], "big", signed=True))
        offsets.append(int.from_bytes(record[14:22], "big", signed=True))
        pos += fixed
        if flexible:
            pos = skip_tags(view, pos)
    return ListedTopic(name, partitions, codes, offsets), pos


def decode_txn_offset_commit(data: bytes, version: int) -> CommitAnswer:
    low, high = TXN_OFFSET_COMMIT_VERSIONS
    if not low <= version <= high:
        raise ValueError(f"TxnOffsetCommit v{version} is not decoded here")
    flexible = version >= TXN_OFFSET_COMMIT_FLEXIBLE_FROM
    size = 6 + (1 if flexible else 0)  # index, error code, [tagged-field count]
    try:
        view = memoryview(data)
        throttle = _I32.unpack_from(view, 0)[0]
        count, pos = array_length(view, 4, flexible)
        topics = []
        for _ in range(max(count, 0)):
            name, partitions, raw, pos = _topic_records(view, pos, flexible, size)
            if raw is not None:
                codes = column(raw, size, 4, 2, "h")
                refused = []
                if any(codes):
                    indexes = column(raw, size, 0, 4, "i")
                    refused = [(p, c) for p, c in zip(indexes, codes, strict=True) if c]
            else:
                refused = []
                for _ in range(partitions):
                    record = bytes(view[pos : pos + 6])
                    if len(record) < 6:
                        raise IndexError("the answer ends inside a partition")
                    code = int.from_bytes(record[4:6], "big", signed=True)
                    if code:
                        refused.append((int.from_bytes(record[0:4], "big", signed=True), code))
                    pos = skip_tags(view, pos + 6) if flexible else pos + 6
            topics.append(CommitAnswerTopic(name, partitions, refused))
            if flexible:
                pos = skip_tags(view, pos)
        if flexible:
            pos = skip_tags(view, pos)
    except (IndexError, struct.error, UnicodeDecodeError) as exc:
        raise ValueError(f"a malformed TxnOffsetCommit v{version} answer: {exc}") from None
    return CommitAnswer(version, throttle, topics)


# -- DescribeTopicPartitions: the partitions' leaders -----------------------------------------
DESCRIBE_TOPIC_PARTITIONS_VERSIONS = (0, 1)
_CODE_INDEX_LEADER = struct.Struct(">hii")


@dataclass(slots=True)
class LeadersTopic:
    """One topic of a DescribeTopicPartitions answer: its error, and per partition (in the
    answer's order) its number and leader id."""

    error_code: int
    name: str
    partitions: array[int]
    leaders: array[int]


@dataclass(slots=True)
class LeadersPage:
    API_VERSION: int
    throttle_time_ms: int
    topics: list[LeadersTopic]
    next_cursor: tuple[str, int] | None  # (topic, first partition of the next page)


def topic_leaders(request: Any) -> Decoded:
    """A ``DescribeTopicPartitionsRequest`` whose answer is :func:`decode_topic_leaders`'s:
    the leaders alone (replicas, ISR and the rest are skipped)."""
    high = DESCRIBE_TOPIC_PARTITIONS_VERSIONS[1]
    if request._max_version is None or request._max_version > high:
        request._max_version = high
    return Decoded(request, decode_topic_leaders)


def decode_topic_leaders(data: bytes, version: int) -> LeadersPage:
    low, high = DESCRIBE_TOPIC_PARTITIONS_VERSIONS
    if not low <= version <= high:
        raise ValueError(f"DescribeTopicPartitions v{version} is not decoded here")
    creation_time = version >= 1
    try:
        view = memoryview(data)
        throttle = _I32.unpack_from(view, 0)[0]
        count, pos = array_length(view, 4, True)
        topics = []
        for _ in range(max(count, 0)):
            code = int.from_bytes(view[pos : pos + 2], "big", signed=True)
            name, pos = string(view, pos + 2, True)
            pos += 16 + 1  # topic id, is internal
            partitions, pos = array_length(view, pos, True)
            indexes, leaders = array("i"), array("i")
            for _ in range(max(partitions, 0)):
                _code, index, leader = _CODE_INDEX_LEADER.unpack_from(view, pos)
                pos += 14  # error code, index, leader, leader epoch
                for _ in range(5):  # replicas, ISR, ELR, last known ELR, offline: int32 arrays
                    length = view[pos]
                    if length < 0x80:
                        pos += 1
                    else:
                        length, pos = uvarint(view, pos)
                    if length > 1:
                        pos += 4 * (length - 1)
                if creation_time:
                    pos += 8
                if view[pos] == 0:
                    pos += 1
                else:
                    pos = skip_tags(view, pos)
                indexes.append(index)
                leaders.append(leader)
            pos = skip_tags(view, pos + 4)  # authorized operations
            topics.append(LeadersTopic(code, name or "", indexes, leaders))
        cursor = None
        if view[pos] == 0xFF:  # a nullable struct: -1 for none
            pos += 1
        else:
            topic, pos = string(view, pos + 1, True)
            cursor = (topic or "", _I32.unpack_from(view, pos)[0])
            pos = skip_tags(view, pos + 4)
        pos = skip_tags(view, pos)
    except (IndexError, struct.error, UnicodeDecodeError) as exc:
        raise ValueError(f"a malformed DescribeTopicPartitions v{version} answer: {exc}") from None
    return LeadersPage(version, throttle, topics, cursor)
