"""The ListOffsets and TxnOffsetCommit decoders of access/partition_answers.py against
kafka-python's own decoding: answers encoded by kafka-python in every version the decoders take
(ListOffsets v1-v11, TxnOffsetCommit v0-v5), with errors, negative offsets and partitions out of
order, decode to the same topics, partitions, codes and offsets; a partition with tagged fields
is read past them; a truncated answer is a ValueError."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_groups.access import protocol_layer
from kafka_groups.access.partition_answers import (
    LIST_OFFSETS_VERSIONS,
    TXN_OFFSET_COMMIT_VERSIONS,
    decode_list_offsets,
    decode_txn_offset_commit,
)

protocol_layer.prepare_messages()

rows = st.lists(
    st.tuples(
        st.integers(0, 200_000),
        st.sampled_from([0, 0, 0, 6, 3, 29]),
        st.one_of(st.just(-1), st.integers(0, 2**62)),
    ),
    max_size=40,
    unique_by=lambda row: row[0],
)
topic_lists = st.lists(
    st.tuples(st.text(min_size=1, max_size=20), rows), max_size=4, unique_by=lambda t: t[0]
)


def _list_offsets(version, topics):
    from kafka.protocol.consumer.offsets import ListOffsetsResponse

    topic_type = ListOffsetsResponse.ListOffsetsTopicResponse
    partition_type = topic_type.ListOffsetsPartitionResponse
    return ListOffsetsResponse(
        throttle_time_ms=3,
        topics=[
            topic_type(
                name=name,
                partitions=[
                    partition_type(partition_index=p, error_code=c, timestamp=-1, offset=o, leader_epoch=2)
                    for p, c, o in parts
                ],
            )
            for name, parts in topics
        ],
    ).encode(version=version)


def _txn_offset_commit(version, topics):
    from kafka.protocol.producer.transaction import TxnOffsetCommitResponse

    topic_type = TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic
    partition_type = topic_type.TxnOffsetCommitResponsePartition
    return TxnOffsetCommitResponse(
        throttle_time_ms=3,
        topics=[
            topic_type(
                name=name, partitions=[partition_type(partition_index=p, error_code=c) for p, c, _o in parts]
            )
            for name, parts in topics
        ],
    ).encode(version=version)


@settings(max_examples=30, deadline=None)
@given(topics=topic_lists)
def test_list_offsets_decodes_as_kafka_python_does(topics):
    from kafka.protocol.consumer.offsets import ListOffsetsResponse

    low, high = LIST_OFFSETS_VERSIONS
    for version in range(low, high + 1):
        data = _list_offsets(version, topics)
        theirs = ListOffsetsResponse.decode(data, version=version)
        ours = decode_list_offsets(data, version)
        assert ours.throttle_time_ms == (3 if version >= 2 else 0)
        assert [
            (t.name, list(zip(t.partitions, t.error_codes, t.offsets, strict=True))) for t in ours.topics
        ] == [
            (t.name, [(p.partition_index, p.error_code, p.offset) for p in t.partitions])
            for t in theirs.topics
        ], version


@settings(max_examples=30, deadline=None)
@given(topics=topic_lists)
def test_txn_offset_commit_decodes_as_kafka_python_does(topics):
    from kafka.protocol.producer.transaction import TxnOffsetCommitResponse

    low, high = TXN_OFFSET_COMMIT_VERSIONS
    for version in range(low, high + 1):
        data = _txn_offset_commit(version, topics)
        theirs = TxnOffsetCommitResponse.decode(data, version=version)
        ours = decode_txn_offset_commit(data, version)
        assert ours.throttle_time_ms == 3
        assert ours.refused() == [
            (t.name, p.partition_index, p.error_code)
            for t in theirs.topics
            for p in t.partitions
            if p.error_code
        ], version
        assert [t.count for t in ours.topics] == [len(t.partitions) for t in theirs.topics]


def test_partitions_with_tagged_fields_are_read_past_them():
    data = bytearray(_list_offsets(8, [("t", [(0, 0, 4), (1, 0, 9)])]))
    first = data.index(struct.pack(">ih", 0, 0))
    tags_at = first + 26
    assert data[tags_at] == 0
    data[tags_at : tags_at + 1] = bytes([1, 5, 2, 0xAA, 0xBB])
    topic = decode_list_offsets(bytes(data), 8).topics[0]
    assert list(topic.partitions) == [0, 1] and list(topic.offsets) == [4, 9]

    data = bytearray(_txn_offset_commit(3, [("t", [(0, 0, 0), (1, 6, 0)])]))
    first = data.index(struct.pack(">ih", 0, 0))
    data[first + 6 : first + 7] = bytes([1, 5, 1, 0xAA])
    assert decode_txn_offset_commit(bytes(data), 3).refused() == [("t", 1, 6)]


@pytest.mark.parametrize("version", [1, 4, 6, 11])
def test_a_truncated_list_offsets_answer_is_a_value_error(version):
    data = _list_offsets(version, [("t", [(p, 0, p) for p in range(5)])])
    for cut in (1, 5, len(data) // 2, len(data) - 1):
        with pytest.raises(ValueError):
            decode_list_offsets(data[:cut], version)


@pytest.mark.parametrize("version", [0, 3, 5])
def test_a_truncated_txn_offset_commit_answer_is_a_value_error(version):
    data = _txn_offset_commit(version, [("t", [(p, 0, 0) for p in range(5)])])
    for cut in (1, 5, len(data) // 2, len(data) - 1):
        with pytest.raises(ValueError):
            decode_txn_offset_commit(data[:cut], version)


def _describe_topic_partitions(version, topics, cursor):
    import uuid

    from kafka_groups.access.messages import DescribeTopicPartitionsResponse

    topic_type = DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic
    partition_type = topic_type.DescribeTopicPartitionsResponsePartition
    cursor_type = DescribeTopicPartitionsResponse.Cursor
    return DescribeTopicPartitionsResponse(
        throttle_time_ms=3,
        topics=[
            topic_type(
                error_code=code,
                name=name,
                topic_id=uuid.UUID(int=7),
                is_internal=False,
                partitions=[
                    partition_type(
                        error_code=0,
                        partition_index=p,
                        leader_id=leader,
                        leader_epoch=4,
                        replica_nodes=replicas,
                        isr_nodes=replicas[:1],
                        eligible_leader_replicas=elr,
                        last_known_elr=None,
                        offline_replicas=[],
                        creation_time_ms=1_700_000_000_000,
                    )
                    for p, leader, replicas, elr in parts
                ],
                topic_authorized_operations=-2147483648,
            )
            for code, name, parts in topics
        ],
        next_cursor=None if cursor is None else cursor_type(topic_name=cursor[0], partition_index=cursor[1]),
    ).encode(version=version)


leader_rows = st.lists(
    st.tuples(
        st.integers(0, 200_000),
        st.integers(-1, 300),
        st.lists(st.integers(0, 300), max_size=200),
        st.one_of(st.none(), st.lists(st.integers(0, 5), max_size=3)),
    ),
    max_size=20,
)


@settings(max_examples=30, deadline=None)
@given(
    topics=st.lists(
        st.tuples(st.sampled_from([0, 0, 3, 29]), st.text(min_size=1, max_size=20), leader_rows), max_size=3
    ),
    cursor=st.one_of(st.none(), st.tuples(st.text(max_size=10), st.integers(0, 2**31 - 1))),
)
def test_describe_topic_partitions_leaders_decode_as_kafka_python_does(topics, cursor):
    """The leaders of every partition and the next cursor, with replica lists long enough that
    their length takes two bytes, null and empty ELR lists, in both versions (v1 adds each
    partition's creation time)."""
    from kafka_groups.access.messages import DescribeTopicPartitionsResponse
    from kafka_groups.access.partition_answers import (
        DESCRIBE_TOPIC_PARTITIONS_VERSIONS,
        decode_topic_leaders,
    )

    low, high = DESCRIBE_TOPIC_PARTITIONS_VERSIONS
    for version in range(low, high + 1):
        data = _describe_topic_partitions(version, topics, cursor)
        theirs = DescribeTopicPartitionsResponse.decode(data, version=version)
        ours = decode_topic_leaders(data, version)
        assert ours.throttle_time_ms == 3
        assert [
            (t.error_code, t.name, list(zip(t.partitions, t.leaders, strict=True))) for t in ours.topics
        ] == [
            (t.error_code, t.name, [(p.partition_index, p.leader_id) for p in t.partitions])
            for t in theirs.topics
        ], version
        expected = theirs.next_cursor
        assert ours.next_cursor == (
            None if expected is None else (expected.topic_name, expected.partition_index)
        ), version
        for cut in (len(data) // 2, len(data) - 1):
            with pytest.raises(ValueError):
                decode_topic_leaders(data[:cut], version)


def test_a_replica_list_whose_length_takes_two_bytes():
    from kafka_groups.access.partition_answers import decode_topic_leaders

    replicas = list(range(200))  # a compact array of 200: its length is a two-byte varint
    data = _describe_topic_partitions(1, [(0, "t", [(0, 5, replicas, None), (1, 6, [], [])])], ("t", 2))
    page = decode_topic_leaders(data, 1)
    assert [(list(t.partitions), list(t.leaders)) for t in page.topics] == [([0, 1], [5, 6])]
    assert page.next_cursor == ("t", 2)


@settings(max_examples=25, deadline=None)
@given(
    partitions=st.dictionaries(
        st.text(min_size=1, max_size=20), st.lists(st.integers(0, 2**31 - 1), max_size=30), max_size=3
    ),
    timestamp=st.sampled_from([-2, -1, 0, 1_700_000_000_000]),
)
def test_list_offsets_bodies_are_the_bytes_kafka_python_writes(partitions, timestamp):
    """Every version: the body list_offsets_body writes is the one kafka-python encodes for the
    same request, and the wrapped request goes out framed with the layer's own header."""
    from kafka.protocol.consumer.offsets import ListOffsetsRequest
    from kafka.protocol.parser import KafkaProtocol

    from kafka_groups.access.partition_answers import list_offsets, list_offsets_body

    topic_type = ListOffsetsRequest.ListOffsetsTopic
    partition_type = topic_type.ListOffsetsPartition
    low, high = LIST_OFFSETS_VERSIONS
    for version in range(low, high + 1):
        theirs = ListOffsetsRequest(
            replica_id=-1,
            isolation_level=0,
            topics=[
                topic_type(
                    name=t, partitions=[partition_type(partition_index=p, timestamp=timestamp) for p in ps]
                )
                for t, ps in partitions.items()
            ],
        )
        assert list_offsets_body(version, partitions, timestamp) == theirs.encode(version=version), version
        empty = ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[], min_version=1)
        empty.API_VERSION = version
        theirs.API_VERSION = version
        plain, ours = KafkaProtocol(client_id="c"), KafkaProtocol(client_id="c")
        plain.send_request(theirs)
        ours.send_request(list_offsets(empty, partitions, timestamp))
        assert ours.send_bytes() == plain.send_bytes(), version


@settings(max_examples=25, deadline=None)
@given(
    offsets=st.dictionaries(
        st.text(min_size=1, max_size=20),
        st.lists(st.tuples(st.integers(0, 2**31 - 1), st.integers(0, 2**62)), max_size=30),
        max_size=3,
    ),
    instance=st.one_of(st.none(), st.text(max_size=5)),
)
def test_txn_offset_commit_bodies_are_the_bytes_kafka_python_writes(offsets, instance):
    from kafka.protocol.producer.transaction import TxnOffsetCommitRequest

    from kafka_groups.access.partition_answers import txn_offset_commit_body

    topic_type = TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic
    partition_type = topic_type.TxnOffsetCommitRequestPartition
    fields = {
        "transactional_id": "kafka-group-tools-reset-g",
        "group_id": "g-ü",
        "producer_id": 2**40,
        "producer_epoch": 3,
        "generation_id": -1,
        "member_id": "",
        "group_instance_id": instance,
    }
    low, high = TXN_OFFSET_COMMIT_VERSIONS
    for version in range(low, high + 1):
        theirs = TxnOffsetCommitRequest(
            **fields,
            topics=[
                topic_type(
                    name=t,
                    partitions=[
                        partition_type(
                            partition_index=p,
                            committed_offset=o,
                            committed_leader_epoch=-1,
                            committed_metadata="",
                        )
                        for p, o in pairs
                    ],
                )
                for t, pairs in offsets.items()
            ],
        )
        bare = TxnOffsetCommitRequest(**fields, topics=[])
        assert txn_offset_commit_body(version, bare, offsets) == theirs.encode(version=version), version
