"""Our decoders of the hot answers (access/group_answers.py) against kafka-python's, without a broker:
answers kafka-python encodes, in every version ours decode, read by both to the same values;
tagged fields skipped wherever the protocol allows them; malformed bytes refused as kafka-python
refuses them; and a request sent through kafka-python's own parser comes back decoded by ours."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_groups.access import group_answers as answers
from kafka_groups.access import protocol_layer

protocol_layer.prepare_messages()

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
maybe_names = st.none() | names
int16s = st.integers(-(2**15), 2**15 - 1)
int32s = st.integers(-(2**31), 2**31 - 1)
int64s = st.integers(-(2**63), 2**63 - 1)
blobs = st.binary(max_size=40)


def _classes():
    from kafka.protocol.admin import DescribeGroupsResponse, ListGroupsResponse
    from kafka.protocol.consumer import OffsetFetchResponse
    from kafka.protocol.metadata import FindCoordinatorResponse

    return {
        answers.OFFSET_FETCH_API_KEY: OffsetFetchResponse,
        answers.FIND_COORDINATOR_API_KEY: FindCoordinatorResponse,
        answers.DESCRIBE_GROUPS_API_KEY: DescribeGroupsResponse,
        answers.LIST_GROUPS_API_KEY: ListGroupsResponse,
    }


def _both(api_key: int, response, version: int):
    """The body kafka-python encodes for ``response`` in ``version``, read by kafka-python and by ours."""
    response_type = _classes()[api_key]
    data = response.encode(version=version)
    library = answers.from_library(api_key, response_type.decode(data, version=version))
    ours = answers.DECODERS[api_key](data, 0, version)
    return library, ours


partitions = st.lists(st.tuples(int32s, int64s, int32s, st.none() | names, int16s), max_size=4)
fetched_groups = st.lists(
    st.tuples(names, st.lists(st.tuples(names, partitions), max_size=3), int16s), max_size=4
)


@settings(max_examples=60, deadline=None)
@given(throttle=int32s, groups=fetched_groups)
def test_offset_fetch_decodes_as_kafka_python_in_every_version(throttle, groups):
    response_type = _classes()[answers.OFFSET_FETCH_API_KEY]
    group_type = response_type.OffsetFetchResponseGroup
    topic_type = group_type.OffsetFetchResponseTopics
    partition_type = topic_type.OffsetFetchResponsePartitions
    response = response_type(
        throttle_time_ms=throttle,
        groups=[
            group_type(
                group_id=g,
                error_code=error,
                topics=[
                    topic_type(
                        name=t,
                        partitions=[
                            partition_type(
                                partition_index=i,
                                committed_offset=o,
                                committed_leader_epoch=e,
                                metadata=m,
                                error_code=pe,
                            )
                            for i, o, e, m, pe in parts
                        ],
                    )
                    for t, parts in topics
                ],
            )
            for g, topics, error in groups
        ],
    )
    for version in answers.OFFSET_FETCH_VERSIONS:
        library, ours = _both(answers.OFFSET_FETCH_API_KEY, response, version)
        assert ours == library, version
        assert sum(len(parts) for _, topics, _ in groups for _, parts in topics) == sum(
            len(g.partitions) for g in ours.groups
        )


found = st.lists(st.tuples(names, int32s, names, int32s, int16s, maybe_names), max_size=6)


@settings(max_examples=60, deadline=None)
@given(throttle=int32s, coordinators=found)
def test_find_coordinator_decodes_as_kafka_python_in_every_version(throttle, coordinators):
    response_type = _classes()[answers.FIND_COORDINATOR_API_KEY]
    coordinator_type = response_type.Coordinator
    response = response_type(
        throttle_time_ms=throttle,
        coordinators=[
            coordinator_type(key=k, node_id=n, host=h, port=p, error_code=e, error_message=m)
            for k, n, h, p, e, m in coordinators
        ],
    )
    for version in answers.FIND_COORDINATOR_VERSIONS:
        library, ours = _both(answers.FIND_COORDINATOR_API_KEY, response, version)
        assert ours == library, version
        assert [c.key for c in ours.coordinators] == [k for k, *_ in coordinators]


members = st.lists(st.tuples(names, maybe_names, names, names, blobs, blobs), max_size=3)
described = st.lists(st.tuples(int16s, maybe_names, names, names, names, names, members), max_size=4)


@settings(max_examples=60, deadline=None)
@given(throttle=int32s, groups=described)
def test_describe_groups_decodes_as_kafka_python_in_every_version(throttle, groups):
    response_type = _classes()[answers.DESCRIBE_GROUPS_API_KEY]
    group_type = response_type.DescribedGroup
    member_type = group_type.DescribedGroupMember
    for version in answers.DESCRIBE_GROUPS_VERSIONS:
        response = response_type(
            throttle_time_ms=throttle,
            groups=[
                group_type(
                    error_code=error,
                    error_message=message if version >= 6 else None,
                    group_id=g,
                    group_state=state,
                    protocol_type=ptype,
                    protocol_data=pdata,
                    members=[
                        member_type(
                            member_id=m,
                            group_instance_id=i if version >= 4 else None,
                            client_id=c,
                            client_host=h,
                            member_metadata=md,
                            member_assignment=ma,
                        )
                        for m, i, c, h, md, ma in ms
                    ],
                )
                for error, message, g, state, ptype, pdata, ms in groups
            ],
        )
        library, ours = _both(answers.DESCRIBE_GROUPS_API_KEY, response, version)
        assert ours == library, version
        assert [len(g.members) for g in ours.groups] == [len(g[-1]) for g in groups]


listed = st.lists(st.tuples(names, names, names, names), max_size=6)


@settings(max_examples=60, deadline=None)
@given(throttle=int32s, error=int16s, groups=listed)
def test_list_groups_decodes_as_kafka_python_in_every_version(throttle, error, groups):
    response_type = _classes()[answers.LIST_GROUPS_API_KEY]
    group_type = response_type.ListedGroup
    for version in answers.LIST_GROUPS_VERSIONS:
        response = response_type(
            throttle_time_ms=throttle,
            error_code=error,
            groups=[
                group_type(
                    group_id=g,
                    protocol_type=p,
                    group_state=s if version >= 4 else None,
                    group_type=t if version >= 5 else None,
                )
                for g, p, s, t in groups
            ],
        )
        library, ours = _both(answers.LIST_GROUPS_API_KEY, response, version)
        assert ours == library, version
        assert [g.group_id for g in ours.groups] == [g for g, *_ in groups]


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _tags(*fields: tuple[int, bytes]) -> bytes:
    return _varint(len(fields)) + b"".join(_varint(t) + _varint(len(v)) + v for t, v in fields)


def _compact(text: str | None) -> bytes:
    if text is None:
        return b"\x00"
    raw = text.encode()
    return _varint(len(raw) + 1) + raw


def test_offset_fetch_skips_tagged_fields_and_reads_long_lengths():
    """Tagged fields (of the answer, a group, a topic, a partition), a metadata string longer than
    127 bytes (its length a two-byte varint) and one of 200 partitions (ditto the count)."""
    metadata = "m" * 300
    tag = _tags((0, b"abc"), (7, b""))
    parts = [
        struct.pack(">iqi", p, 10 * p, 3)
        + _compact(metadata if p == 1 else None)
        + struct.pack(">h", 0)
        + (tag if p == 2 else b"\x00")
        for p in range(200)
    ]
    topic = _compact("orders") + _varint(len(parts) + 1) + b"".join(parts) + tag
    group = _compact("g") + _varint(2) + topic + struct.pack(">h", 0) + tag
    body = struct.pack(">i", 0) + _varint(2) + group + tag
    ours = answers.offset_fetch(body, 0, 8)
    (fetched,) = ours.groups
    assert fetched.group_id == "g" and len(fetched.partitions) == 200
    assert fetched.partitions[1] == ("orders", 1, 10, 3, metadata, 0)
    assert fetched.partitions[0][4] is None and fetched.partitions[199] == ("orders", 199, 1990, 3, None, 0)
    from kafka.protocol.consumer import OffsetFetchResponse

    assert answers.from_library(9, OffsetFetchResponse.decode(body, version=8)) == ours


@pytest.mark.parametrize("api_key", sorted(answers.DECODERS))
def test_truncated_or_overlong_answers_are_refused(api_key):
    version = max(answers.VERSIONS[api_key])
    response_type = _classes()[api_key]
    if api_key == answers.OFFSET_FETCH_API_KEY:
        group = response_type.OffsetFetchResponseGroup
        topic = group.OffsetFetchResponseTopics
        part = topic.OffsetFetchResponsePartitions(
            partition_index=0, committed_offset=5, committed_leader_epoch=-1, metadata="", error_code=0
        )
        response = response_type(
            throttle_time_ms=0,
            groups=[group(group_id="g", error_code=0, topics=[topic(name="t", partitions=[part])])],
        )
    elif api_key == answers.FIND_COORDINATOR_API_KEY:
        found_type = response_type.Coordinator
        response = response_type(
            throttle_time_ms=0,
            coordinators=[
                found_type(key="g", node_id=1, host="broker", port=9092, error_code=0, error_message=None)
            ],
        )
    elif api_key == answers.DESCRIBE_GROUPS_API_KEY:
        group = response_type.DescribedGroup
        response = response_type(
            throttle_time_ms=0,
            groups=[
                group(
                    error_code=0,
                    error_message=None,
                    group_id="g",
                    group_state="Empty",
                    protocol_type="consumer",
                    protocol_data="",
                    members=[],
                )
            ],
        )
    else:
        group = response_type.ListedGroup
        response = response_type(
            throttle_time_ms=0,
            error_code=0,
            groups=[group(group_id="g", protocol_type="consumer", group_state="Empty", group_type="classic")],
        )
    data = response.encode(version=version)
    answers.DECODERS[api_key](data, 0, version)  # whole: decoded
    for cut in range(len(data)):
        with pytest.raises(ValueError):
            answers.DECODERS[api_key](data[:cut], 0, version)
    with pytest.raises(ValueError):
        answers.DECODERS[api_key](data + b"\x00", 0, version)


def test_an_answered_request_comes_back_through_kafka_pythons_parser_decoded_by_ours():
    """The request goes out as kafka-python encodes it; the answer, framed with its response
    header (tagged fields in it), is decoded by ours. A version ours does not read (OffsetFetch
    v7, one group) would be left to kafka-python: refused here, as ours reads only v8+."""
    from kafka.protocol.admin import ListGroupsRequest, ListGroupsResponse
    from kafka.protocol.parser import KafkaProtocol

    request = answers.answered(ListGroupsRequest(types_filter=["classic"], min_version=5))
    request.API_VERSION = 5
    parser = KafkaProtocol(client_id="test")
    correlation_id = parser.send_request(request)
    sent = parser.send_bytes()
    assert sent == _plain_request_bytes(correlation_id)
    group_type = ListGroupsResponse.ListedGroup
    body = ListGroupsResponse(
        throttle_time_ms=0,
        error_code=0,
        groups=[
            group_type(group_id="g1", protocol_type="consumer", group_state="Empty", group_type="classic")
        ],
    ).encode(version=5)
    header = struct.pack(">i", correlation_id) + _tags((3, b"xy"))
    frame = struct.pack(">i", len(header) + len(body)) + header + body
    ((got_id, answer),) = parser.receive_bytes(frame[:7]) + parser.receive_bytes(frame[7:])
    assert got_id == correlation_id
    assert answer == answers.ListGroupsAnswer(
        0, 0, [answers.ListedGroupAnswer("g1", "consumer", "Empty", "classic")]
    )


def _plain_request_bytes(correlation_id: int) -> bytes:
    from kafka.protocol.admin import ListGroupsRequest
    from kafka.protocol.parser import KafkaProtocol

    parser = KafkaProtocol(client_id="test")
    parser._correlation_id = correlation_id - 1
    request = ListGroupsRequest(types_filter=["classic"], min_version=5)
    request.API_VERSION = 5
    parser.send_request(request)
    return parser.send_bytes()


def test_answered_refuses_a_request_ours_does_not_decode():
    from kafka.protocol.consumer import OffsetCommitRequest

    with pytest.raises(ValueError):
        answers.answered(OffsetCommitRequest())


def test_offset_fetch_of_many_groups_encodes_as_kafka_pythons_objects():
    """protocol_layer.offset_fetch_requests writes each group as the tuple of its v8 fields: the
    very bytes of kafka-python's group objects."""
    from types import SimpleNamespace

    from kafka.protocol.consumer import OffsetFetchRequest

    versions = SimpleNamespace(api_version=lambda _request: 8)
    client = SimpleNamespace(manager=SimpleNamespace(broker_version_data=versions))
    ids = ["g-1", "gé", "g" * 300]
    ((asked, request),) = protocol_layer.ProtocolClient.offset_fetch_requests(client, ids)
    group = OffsetFetchRequest.OffsetFetchRequestGroup
    objects = OffsetFetchRequest(groups=[group(group_id=g, topics=None) for g in ids], min_version=8)
    assert asked is None
    assert request.encode(version=8) == objects.encode(version=8)
