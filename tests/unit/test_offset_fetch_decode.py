"""The OffsetFetch decoder of access/offset_fetch.py against kafka-python's own decoding: answers
encoded by kafka-python in every version the decoder takes (v1-v9), with empty, null and long
metadata, tagged fields, errors and partitions out of order, decode to the same groups, topics,
partitions, offsets, epochs and errors; the fixed-layout fast path and the field-by-field path
agree; a truncated answer is a ValueError (which the layer reports as a protocol error). And the
request wrapper of access/answers.py leaves the request's bytes as the layer writes them and
hands the answer's bytes to the decoder."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_groups.access import offset_fetch as offset_fetch_module
from kafka_groups.access import protocol_layer
from kafka_groups.access.offset_fetch import MAX_VERSION, decode_offset_fetch, offset_fetch
from kafka_groups.core.offset_table import OffsetTable

protocol_layer.prepare_messages()

VERSIONS = range(1, MAX_VERSION + 1)

# (partition, offset, epoch, metadata, error code)
Partition = tuple[int, int, int, "str | None", int]

partition_rows = st.lists(
    st.tuples(
        st.integers(0, 200_000),
        st.one_of(st.just(-1), st.integers(0, 2**62)),
        st.one_of(st.just(-1), st.integers(0, 2**31 - 1)),
        st.one_of(st.just(""), st.just(None), st.text(max_size=40)),
        st.sampled_from([0, 0, 0, 88, 3, 25]),
    ),
    max_size=30,
    unique_by=lambda row: row[0],
)
topic_lists = st.lists(
    st.tuples(st.text(min_size=1, max_size=20), partition_rows), max_size=4, unique_by=lambda t: t[0]
)


def _response(version: int, groups: list[tuple[str, int, list[tuple[str, list[Partition]]]]], error: int):
    """The answer's bytes after the response header, as kafka-python encodes them."""
    from kafka.protocol.consumer.group import OffsetFetchResponse

    response_type = OffsetFetchResponse
    if version >= 8:
        group_type = response_type.OffsetFetchResponseGroup
        topic_type = group_type.OffsetFetchResponseTopics
        partition_type = topic_type.OffsetFetchResponsePartitions
        built = response_type(
            throttle_time_ms=7,
            groups=[
                group_type(
                    group_id=group,
                    topics=[
                        topic_type(
                            name=name,
                            partitions=[
                                partition_type(
                                    partition_index=p,
                                    committed_offset=o,
                                    committed_leader_epoch=e,
                                    metadata=m,
                                    error_code=c,
                                )
                                for p, o, e, m, c in parts
                            ],
                        )
                        for name, parts in topics
                    ],
                    error_code=code,
                )
                for group, code, topics in groups
            ],
        )
    else:
        topic_type = response_type.OffsetFetchResponseTopic
        partition_type = topic_type.OffsetFetchResponsePartition
        (_group, _code, topics) = groups[0]
        built = response_type(
            throttle_time_ms=7,
            topics=[
                topic_type(
                    name=name,
                    partitions=[
                        partition_type(
                            partition_index=p,
                            committed_offset=o,
                            committed_leader_epoch=e,
                            metadata=m,
                            error_code=c,
                        )
                        for p, o, e, m, c in parts
                    ],
                )
                for name, parts in topics
            ],
            error_code=error,
        )
    return built.encode(version=version)


def _as_layer_reads(version: int, data: bytes):
    """kafka-python's decoding, as plain values: per group (id or None, code, topics of
    (name, [(partition, offset, epoch, code)]))."""
    from kafka.protocol.consumer.group import OffsetFetchResponse

    decoded = OffsetFetchResponse.decode(data, version=version)
    groups = decoded.groups if version >= 8 else [decoded]
    return (
        decoded.throttle_time_ms if version >= 3 else 0,
        decoded.error_code if 2 <= version < 8 else 0,
        [
            (
                g.group_id if version >= 8 else None,
                g.error_code if version >= 2 else 0,
                [
                    (
                        t.name,
                        [
                            (
                                p.partition_index,
                                p.committed_offset,
                                p.committed_leader_epoch if version >= 5 else -1,
                                p.error_code,
                            )
                            for p in t.partitions
                        ],
                    )
                    for t in g.topics
                ],
            )
            for g in groups
        ],
    )


def _as_ours(version: int, data: bytes):
    answer = decode_offset_fetch(data, version)
    assert version == answer.API_VERSION
    return (
        answer.throttle_time_ms,
        answer.error_code,
        [
            (
                g.group_id,
                g.error_code,
                [
                    (
                        t.name,
                        [
                            (p, o, e, dict(t.errors).get(p, 0))
                            for p, o, e in zip(t.partitions, t.offsets, t.epochs, strict=True)
                        ],
                    )
                    for t in g.topics
                ],
            )
            for g in answer.groups
        ],
    )


@settings(max_examples=30, deadline=None)
@given(topics=topic_lists, others=topic_lists, error=st.sampled_from([0, 0, 16, 30]))
def test_every_version_decodes_as_kafka_python_does(topics, others, error):
    for version in VERSIONS:
        groups = [("payments", error, topics)]
        if version >= 8:
            groups.append(("billing-ü", 0, others))
        data = _response(version, groups, error)
        assert _as_ours(version, data) == _as_layer_reads(version, data), version


def test_the_fixed_layout_and_field_by_field_agree(monkeypatch):
    """3,000 partitions of empty metadata take the fast path; one long metadata string among
    them sends the whole topic field by field: the same values either way."""
    rows = [(p, 1000 + p, 5, "", 0) for p in range(3_000)]
    slow_rows = [*rows[:-1], (2_999, 4_000 - 1, 5, "x" * 300, 0)]
    slowly = offset_fetch_module._partitions_slowly
    taken = []

    def watched(*args):
        taken.append(args[2])
        return slowly(*args)

    monkeypatch.setattr(offset_fetch_module, "_partitions_slowly", watched)
    for version in VERSIONS:
        fast = _as_ours(version, _response(version, [("g", 0, [("huge", rows)])], 0))
        assert taken == [], version
        slow = _as_ours(version, _response(version, [("g", 0, [("slow", slow_rows)])], 0))
        assert taken == ["slow"], version
        taken.clear()
        slow = (slow[0], slow[1], [(g, c, [("huge", parts) for _name, parts in ts]) for g, c, ts in slow[2]])
        assert fast == slow, version
        epoch = 5 if version >= 5 else -1
        assert fast[2][0][2][0][1][:2] == [(0, 1000, epoch, 0), (1, 1001, epoch, 0)]


def test_tagged_fields_are_skipped():
    """A flexible answer with a tagged field on a partition (a later broker's addition): the
    partition is read past it, field by field."""
    data = bytearray(_response(8, [("g", 0, [("t", [(0, 4, 1, "", 0), (1, 9, 1, "", 0)])])], 0))
    # The first partition's tagged-field count (0) is the byte after its error code: find the
    # first partition (index 0, offset 4) and give it one tagged field of 3 bytes.
    first = data.index(struct.pack(">iqi", 0, 4, 1))
    tags_at = first + 16 + 1 + 2
    assert data[tags_at] == 0
    data[tags_at : tags_at + 1] = bytes([1, 5, 3, 0xAA, 0xBB, 0xCC])
    answer = decode_offset_fetch(bytes(data), 8)
    topic = answer.groups[0].topics[0]
    assert list(topic.partitions) == [0, 1] and list(topic.offsets) == [4, 9]


@pytest.mark.parametrize("version", list(VERSIONS))
def test_a_truncated_answer_is_a_value_error(version):
    data = _response(version, [("g", 0, [("t", [(p, p, 0, "m", 0) for p in range(5)])])], 0)
    for cut in (1, 5, len(data) // 2, len(data) - 1):
        with pytest.raises(ValueError):
            decode_offset_fetch(data[:cut], version)


def test_v10_and_v0_are_not_decoded_here():
    with pytest.raises(ValueError):
        decode_offset_fetch(b"", 10)
    with pytest.raises(ValueError):
        decode_offset_fetch(b"", 0)


def test_the_group_table_holds_the_committed_offsets():
    data = _response(
        8,
        [
            (
                "g",
                0,
                [("b", [(2, 5, 0, "", 0), (0, -1, 0, "", 0), (1, 7, 0, "", 0)]), ("a", [(0, 3, 0, "", 0)])],
            )
        ],
        0,
    )
    group = decode_offset_fetch(data, 8).groups[0]
    expected = {("b", 2): 5, ("b", 1): 7, ("a", 0): 3}
    assert group.table() == expected
    assert isinstance(group.table(), OffsetTable)
    assert group.offsets() == expected
    assert group.partition_count() == 4
    assert group.first_error() is None


def test_the_wrapped_request_goes_out_as_the_layer_writes_it_and_its_answer_comes_to_the_decoder():
    """Through kafka-python's own parser: the bytes sent are those of the request itself, and
    the answer to it is our decoding."""
    from kafka.protocol.consumer.group import OffsetFetchRequest
    from kafka.protocol.parser import KafkaProtocol

    def request():
        group = OffsetFetchRequest.OffsetFetchRequestGroup
        made = OffsetFetchRequest(groups=[group(group_id="g", topics=None)], min_version=8, max_version=8)
        made.API_VERSION = 8
        return made

    plain, ours = KafkaProtocol(client_id="c"), KafkaProtocol(client_id="c")
    plain.send_request(request())
    wrapped = offset_fetch(request())
    ours.send_request(wrapped)
    assert ours.send_bytes() == plain.send_bytes()

    body = _response(8, [("g", 0, [("t", [(0, 42, 3, "", 0)])])], 0)
    header = struct.pack(">i", 1) + b"\x00"  # correlation id 1, no tagged fields (flexible)
    frame = struct.pack(">i", len(header) + len(body)) + header + body
    [(correlation, answer)] = ours.receive_bytes(frame)
    assert correlation == 1
    assert answer.groups[0].table() == {("t", 0): 42}
    assert answer.throttle_time_ms == 7


def _metadata_of_layer(version: int, data: bytes):
    from kafka.protocol.consumer.group import OffsetFetchResponse

    decoded = OffsetFetchResponse.decode(data, version=version)
    groups = decoded.groups if version >= 8 else [decoded]
    return [[(t.name, [p.metadata for p in t.partitions]) for t in g.topics] for g in groups]


def _metadata_of_ours(version: int, data: bytes):
    answer = decode_offset_fetch(data, version, metadata=True)
    return [[(t.name, t.metadata) for t in g.topics] for g in answer.groups]


@settings(max_examples=30, deadline=None)
@given(topics=topic_lists, others=topic_lists)
def test_the_metadata_decodes_as_kafka_python_decodes_it_in_every_version(topics, others):
    """With ``metadata=True`` each topic's metadata strings (null, empty, long, any text) are
    kafka-python's, the rest of the answer unchanged; without, none is read."""
    for version in VERSIONS:
        groups = [("payments", 0, topics)]
        if version >= 8:
            groups.append(("billing-ü", 0, others))
        data = _response(version, groups, 0)
        assert _metadata_of_ours(version, data) == _metadata_of_layer(version, data), version
        with_text = decode_offset_fetch(data, version, metadata=True)
        without = decode_offset_fetch(data, version)
        for one, other in zip(with_text.groups, without.groups, strict=True):
            for a, b in zip(one.topics, other.topics, strict=True):
                assert (a.partitions, a.offsets, a.epochs, a.errors) == (
                    b.partitions,
                    b.offsets,
                    b.epochs,
                    b.errors,
                )
                assert b.metadata is None


def test_the_metadata_of_the_fixed_layout_is_null_or_empty_as_sent():
    rows = [(p, p, 1, None if p % 3 else "", 0) for p in range(3_000)]
    for version in VERSIONS:
        data = _response(version, [("g", 0, [("t", rows)])], 0)
        assert _metadata_of_ours(version, data) == _metadata_of_layer(version, data), version
