"""Purpose-built decoders for the answers a read of many groups receives by the thousand:
OffsetFetch (v8 and v9, many groups in one answer), FindCoordinator (v4+, many groups in one
answer), DescribeGroups and ListGroups.

kafka-python decodes an answer into one object per group, topic, partition and member, each
made and filled field by field; a describe of 10,000 groups of 10 partitions spent a fifth of
its time there. These decoders read the same bytes into plain tuples (named tuples for the
groups and members, whose fields carry kafka-python's names, so that the code reading them
reads either). Every version a command sends is decoded; a unit test holds each decoder equal to
kafka-python's for every version (tests/unit/test_group_answers.py).

They are plugged into kafka-python's connection with :func:`answered`, through access/answers.py's
request wrapper (whose wire reads they share with the reset path's decoders): the request is sent
as it is, and its answer decoded by ours, on the network thread, where kafka-python decodes its own.
Malformed bytes raise ``ValueError``, which the library reports as an undecodable answer.
(One group's OffsetFetch answers, the large reset's and the describe's, and the metadata that
``committed_with_metadata`` shows, are read into arrays by access/offset_fetch.py; these read the
answers of many small groups into rows, for the describe of many groups.)
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, NamedTuple

from kafka_groups.access.answers import Decoded, array_length, skip_tags, string, uvarint

OFFSET_FETCH_API_KEY = 9
FIND_COORDINATOR_API_KEY = 10
DESCRIBE_GROUPS_API_KEY = 15
LIST_GROUPS_API_KEY = 16
# The versions each answer has in our decoders (and in kafka-python's schemas).
OFFSET_FETCH_VERSIONS = range(8, 10)  # many groups in one answer; v10 names topics by id
DESCRIBE_GROUPS_VERSIONS = range(0, 7)
LIST_GROUPS_VERSIONS = range(0, 6)
FIND_COORDINATOR_VERSIONS = range(4, 7)  # many keys in one answer
_FLEXIBLE_FROM = {
    OFFSET_FETCH_API_KEY: 6,
    FIND_COORDINATOR_API_KEY: 3,
    DESCRIBE_GROUPS_API_KEY: 5,
    LIST_GROUPS_API_KEY: 3,
}

_I16 = struct.Struct(">h")
_NODE = struct.Struct(">i")
_PORT_ERROR = struct.Struct(">ih")
_I32 = struct.Struct(">i")
_PARTITION = struct.Struct(">iqi")  # partition index, committed offset, committed leader epoch
_PARTITION_TAIL = struct.Struct(">hB")  # error code, tagged fields count (one byte: none or few)
# A partition whose metadata is null or empty and which has no tagged fields, whole.
_PARTITION_FIXED = struct.Struct(">iqiBhB")


# A partition of an OffsetFetch answer: (topic, partition, committed offset, leader epoch,
# metadata, error code); flat, one per partition of the group, in the answer's order.
OffsetRow = tuple[str, int, int, int, "str | None", int]


class FetchedGroup(NamedTuple):
    """One group of an OffsetFetch answer (v8+)."""

    group_id: str
    error_code: int
    partitions: list[OffsetRow]


class OffsetFetchAnswer(NamedTuple):
    throttle_time_ms: int
    groups: list[FetchedGroup]


class FoundCoordinator(NamedTuple):
    """One key of a FindCoordinator answer (v4+)."""

    key: str
    node_id: int
    host: str
    port: int
    error_code: int
    error_message: str | None


class FindCoordinatorAnswer(NamedTuple):
    throttle_time_ms: int
    coordinators: list[FoundCoordinator]


class DescribedMember(NamedTuple):
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    member_metadata: bytes
    member_assignment: bytes


class DescribedGroupAnswer(NamedTuple):
    error_code: int
    error_message: str | None
    group_id: str
    group_state: str
    protocol_type: str
    protocol_data: str
    members: tuple[DescribedMember, ...]
    # (authorized operations: not read; the describe does not ask for them)


class DescribeGroupsAnswer(NamedTuple):
    throttle_time_ms: int
    groups: list[DescribedGroupAnswer]


class ListedGroupAnswer(NamedTuple):
    group_id: str
    protocol_type: str
    group_state: str | None
    group_type: str | None


class ListGroupsAnswer(NamedTuple):
    throttle_time_ms: int
    error_code: int
    groups: list[ListedGroupAnswer]


# -- the primitive reads -----------------------------------------------------------------
# Each takes the answer and a position and returns the value and the position after it.
def _compact_string(data: bytes, pos: int) -> tuple[str | None, int]:
    return string(data, pos, True)


def _string(data: bytes, pos: int) -> tuple[str | None, int]:
    return string(data, pos, False)


def _compact_bytes(data: bytes, pos: int) -> tuple[bytes | None, int]:
    length, pos = uvarint(data, pos)
    if length == 0:
        return None, pos
    end = pos + length - 1
    if end > len(data):
        raise ValueError("bytes past the end of the answer")
    return bytes(data[pos:end]), end


def _bytes(data: bytes, pos: int) -> tuple[bytes | None, int]:
    length: int = _I32.unpack_from(data, pos)[0]
    pos += 4
    if length < 0:
        return None, pos
    end = pos + length
    if end > len(data):
        raise ValueError("bytes past the end of the answer")
    return bytes(data[pos:end]), end


def _compact_count(data: bytes, pos: int) -> tuple[int, int]:
    """An array's length (0 for a null array)."""
    length, pos = array_length(data, pos, True)
    return max(length, 0), pos


def _count(data: bytes, pos: int) -> tuple[int, int]:
    length, pos = array_length(data, pos, False)
    return max(length, 0), pos


def _tags(data: bytes, pos: int) -> int:
    return pos + 1 if data[pos] == 0 else skip_tags(data, pos)


def _no_tags(data: bytes, pos: int) -> int:
    return pos


# The reads of one encoding: compact (flexible versions: varint lengths plus one, tagged
# fields) or classic (int16 string lengths, int32 byte and array lengths).
_COMPACT = (_compact_string, _compact_bytes, _compact_count, _tags)
_CLASSIC = (_string, _bytes, _count, _no_tags)


def _checked(decode: Callable[[bytes, int, int], Any]) -> Callable[[bytes, int, int], Any]:
    """Truncated or malformed bytes raise ValueError, as kafka-python's decoders do."""

    def run(data: bytes, pos: int, version: int) -> Any:
        try:
            return decode(data, pos, version)
        except (IndexError, struct.error, UnicodeDecodeError) as exc:
            raise ValueError(f"undecodable answer: {exc}") from None

    return run


# -- OffsetFetch -------------------------------------------------------------------------
@_checked
def offset_fetch(data: bytes, pos: int, version: int) -> OffsetFetchAnswer:
    """An OffsetFetch answer of many groups (v8, v9), from ``pos`` (past the response header)."""
    if version not in OFFSET_FETCH_VERSIONS:
        raise ValueError(f"OffsetFetch v{version} is not decoded here")
    throttle: int = _I32.unpack_from(data, pos)[0]
    pos += 4
    groups: list[FetchedGroup] = []
    group_count, pos = uvarint(data, pos)
    for _ in range(group_count - 1):
        group_id, pos = _compact_string(data, pos)
        rows: list[OffsetRow] = []
        topic_count, pos = uvarint(data, pos)
        for _ in range(topic_count - 1):
            topic, pos = _compact_string(data, pos)
            partition_count, pos = uvarint(data, pos)
            pos = _partitions(data, pos, topic, partition_count - 1, rows)  # type: ignore[arg-type]
            pos = _tags(data, pos)
        error_code: int = _I16.unpack_from(data, pos)[0]
        pos = _tags(data, pos + 2)
        groups.append(FetchedGroup(group_id, error_code, rows))  # type: ignore[arg-type]
    pos = _tags(data, pos)
    if pos != len(data):
        raise ValueError("bytes left over after the answer")
    return OffsetFetchAnswer(throttle, groups)


def _partitions(data: bytes, pos: int, topic: str, count: int, rows: list[OffsetRow]) -> int:
    """A topic's ``count`` partitions into ``rows``. Nearly always each partition is 20 bytes
    (no metadata or an empty one, no tagged fields): those are read in one pass, and the
    first partition of another shape, read where it starts, sends the rest to the field by
    field reading (``_partition``)."""
    end = pos + count * _PARTITION_FIXED.size
    if end <= len(data):
        fixed = _PARTITION_FIXED.iter_unpack(memoryview(data)[pos:end])
        start = len(rows)
        for index, offset, epoch, length, error, tagged in fixed:
            if length > 1 or tagged:
                break
            rows.append((topic, index, offset, epoch, "" if length else None, error))
        done = len(rows) - start
        pos += done * _PARTITION_FIXED.size
        count -= done
    unpack_partition, unpack_tail = _PARTITION.unpack_from, _PARTITION_TAIL.unpack_from
    for _ in range(count):
        index, offset, epoch = unpack_partition(data, pos)
        metadata, pos = _compact_string(data, pos + 16)
        error, tagged = unpack_tail(data, pos)
        pos = pos + 3 if not tagged else skip_tags(data, pos + 2)
        rows.append((topic, index, offset, epoch, metadata, error))
    return pos


# -- FindCoordinator -----------------------------------------------------------------------
@_checked
def find_coordinator(data: bytes, pos: int, version: int) -> FindCoordinatorAnswer:
    """A FindCoordinator answer of many keys (v4+)."""
    if version not in FIND_COORDINATOR_VERSIONS:
        raise ValueError(f"FindCoordinator v{version} is not decoded here")
    throttle: int = _I32.unpack_from(data, pos)[0]
    pos += 4
    found = []
    new = tuple.__new__
    count, pos = uvarint(data, pos)
    for _ in range(count - 1):
        key, pos = _compact_string(data, pos)
        node: int = _NODE.unpack_from(data, pos)[0]
        host, pos = _compact_string(data, pos + 4)
        port, error = _PORT_ERROR.unpack_from(data, pos)
        message, pos = _compact_string(data, pos + 6)
        pos = _tags(data, pos)
        found.append(new(FoundCoordinator, (key, node, host, port, error, message)))
    pos = _tags(data, pos)
    if pos != len(data):
        raise ValueError("bytes left over after the answer")
    return FindCoordinatorAnswer(throttle, found)


# -- DescribeGroups ----------------------------------------------------------------------
@_checked
def describe_groups(data: bytes, pos: int, version: int) -> DescribeGroupsAnswer:
    if version not in DESCRIBE_GROUPS_VERSIONS:
        raise ValueError(f"DescribeGroups v{version} is not decoded here")
    flexible = version >= _FLEXIBLE_FROM[DESCRIBE_GROUPS_API_KEY]
    string, blob, count, tags = _COMPACT if flexible else _CLASSIC
    if version >= 1:
        throttle: int = _I32.unpack_from(data, pos)[0]
        pos += 4
    else:
        throttle = 0
    groups: list[DescribedGroupAnswer] = []
    new = tuple.__new__
    group_count, pos = count(data, pos)
    for _ in range(group_count):
        error_code: int = _I16.unpack_from(data, pos)[0]
        pos += 2
        error_message = None
        if version >= 6:
            error_message, pos = string(data, pos)
        group_id, pos = string(data, pos)
        state, pos = string(data, pos)
        protocol_type, pos = string(data, pos)
        protocol_data, pos = string(data, pos)
        members = []
        member_count, pos = count(data, pos)
        for _ in range(member_count):
            member_id, pos = string(data, pos)
            instance_id = None
            if version >= 4:
                instance_id, pos = string(data, pos)
            client_id, pos = string(data, pos)
            host, pos = string(data, pos)
            member_metadata, pos = blob(data, pos)
            member_assignment, pos = blob(data, pos)
            pos = tags(data, pos)
            member = (member_id, instance_id, client_id, host, member_metadata, member_assignment)
            members.append(new(DescribedMember, member))
        if version >= 3:
            pos += 4  # authorized operations
        pos = tags(data, pos)
        groups.append(
            new(
                DescribedGroupAnswer,
                (error_code, error_message, group_id, state, protocol_type, protocol_data, tuple(members)),
            )
        )
    pos = tags(data, pos)
    if pos != len(data):
        raise ValueError("bytes left over after the answer")
    return DescribeGroupsAnswer(throttle, groups)


# -- ListGroups --------------------------------------------------------------------------
@_checked
def list_groups(data: bytes, pos: int, version: int) -> ListGroupsAnswer:
    if version not in LIST_GROUPS_VERSIONS:
        raise ValueError(f"ListGroups v{version} is not decoded here")
    string, _blob, count, tags = _COMPACT if version >= _FLEXIBLE_FROM[LIST_GROUPS_API_KEY] else _CLASSIC
    if version >= 1:
        throttle: int = _I32.unpack_from(data, pos)[0]
        pos += 4
    else:
        throttle = 0
    error_code: int = _I16.unpack_from(data, pos)[0]
    pos += 2
    groups = []
    new = tuple.__new__
    state = group_type = None
    group_count, pos = count(data, pos)
    for _ in range(group_count):
        group_id, pos = string(data, pos)
        protocol_type, pos = string(data, pos)
        if version >= 4:
            state, pos = string(data, pos)
            if version >= 5:
                group_type, pos = string(data, pos)
        pos = tags(data, pos)
        groups.append(new(ListedGroupAnswer, (group_id, protocol_type, state, group_type)))
    pos = tags(data, pos)
    if pos != len(data):
        raise ValueError("bytes left over after the answer")
    return ListGroupsAnswer(throttle, error_code, groups)


DECODERS: dict[int, Callable[[bytes, int, int], Any]] = {
    OFFSET_FETCH_API_KEY: offset_fetch,
    FIND_COORDINATOR_API_KEY: find_coordinator,
    DESCRIBE_GROUPS_API_KEY: describe_groups,
    LIST_GROUPS_API_KEY: list_groups,
}
VERSIONS = {
    OFFSET_FETCH_API_KEY: OFFSET_FETCH_VERSIONS,
    FIND_COORDINATOR_API_KEY: FIND_COORDINATOR_VERSIONS,
    DESCRIBE_GROUPS_API_KEY: DESCRIBE_GROUPS_VERSIONS,
    LIST_GROUPS_API_KEY: LIST_GROUPS_VERSIONS,
}


# -- the same shapes from kafka-python's decoded answers -----------------------------------
def from_library(api_key: int, response: Any) -> Any:
    """kafka-python's decoded answer in the shape of ours (the unit test compares them)."""
    if api_key == OFFSET_FETCH_API_KEY:
        return OffsetFetchAnswer(
            response.throttle_time_ms,
            [
                FetchedGroup(
                    g.group_id,
                    g.error_code,
                    [
                        (
                            t.name,
                            p.partition_index,
                            p.committed_offset,
                            p.committed_leader_epoch,
                            p.metadata,
                            p.error_code,
                        )
                        for t in g.topics
                        for p in t.partitions
                    ],
                )
                for g in response.groups
            ],
        )
    if api_key == FIND_COORDINATOR_API_KEY:
        return FindCoordinatorAnswer(
            response.throttle_time_ms,
            [
                FoundCoordinator(c.key, c.node_id, c.host, c.port, c.error_code, c.error_message)
                for c in response.coordinators
            ],
        )
    if api_key == DESCRIBE_GROUPS_API_KEY:
        version = response.API_VERSION
        return DescribeGroupsAnswer(
            response.throttle_time_ms if version >= 1 else 0,
            [
                DescribedGroupAnswer(
                    g.error_code,
                    g.error_message if version >= 6 else None,
                    g.group_id,
                    g.group_state,
                    g.protocol_type,
                    g.protocol_data,
                    tuple(
                        DescribedMember(
                            m.member_id,
                            m.group_instance_id if version >= 4 else None,
                            m.client_id,
                            m.client_host,
                            m.member_metadata,
                            m.member_assignment,
                        )
                        for m in g.members
                    ),
                )
                for g in response.groups
            ],
        )
    if api_key == LIST_GROUPS_API_KEY:
        version = response.API_VERSION
        return ListGroupsAnswer(
            response.throttle_time_ms if version >= 1 else 0,
            response.error_code,
            [
                ListedGroupAnswer(
                    g.group_id,
                    g.protocol_type,
                    g.group_state if version >= 4 else None,
                    g.group_type if version >= 5 else None,
                )
                for g in response.groups
            ],
        )
    raise ValueError(f"no decoder of ours for API key {api_key}")


# -- plugged into kafka-python's connection --------------------------------------------------
def answered(request: Any) -> Decoded:
    """``request`` (an OffsetFetch of many groups, a FindCoordinator of many keys, a
    DescribeGroups or a ListGroups) sent unchanged, its answer in our shapes: decoded by ours in
    the versions they read, else by kafka-python and put into the same shape."""
    api_key = request.API_KEY
    if api_key not in DECODERS:
        raise ValueError(f"no decoder of ours for {type(request).__name__}")
    ours, versions = DECODERS[api_key], VERSIONS[api_key]

    def decode(data: bytes, version: int) -> Any:
        if version in versions:
            return ours(data, 0, version)
        return from_library(api_key, request.header.get_response_class().decode(data))

    return Decoded(request, decode)
