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
