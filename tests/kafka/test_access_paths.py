"""The two ways the access layer reads and writes offsets (confluent-kafka for small requests,
the protocol layer for thousands of partitions) give the same answers."""

from __future__ import annotations

import pytest

from kafka_groups.access.cluster import KafkaAccess
from kafka_groups.settings import resolve_settings
from tests.kafka_helpers import (
    Record,
    commit_offsets,
    committed,
    create_topic,
    delete_records_before,
    produce,
    unique,
)

pytestmark = pytest.mark.kafka


@pytest.fixture
def access(broker):
    client = KafkaAccess(resolve_settings(broker.bootstrap, None, 10000))
    yield client
    client.close()


def test_committed_offsets_agree(broker, access):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("ap"), partitions=4)
    group = unique("ap")
    commit_offsets(bs, group, {(topic, 0): 3, (topic, 2): 9})
    held = access.committed_offsets([group])
    assert {tp: c.offset for tp, c in held[group].items()} == {(topic, 0): 3, (topic, 2): 9}
    assert access.committed_with_metadata(group) == {(topic, 0): (3, ""), (topic, 2): (9, "")}
    none = unique("ap-none")
    assert access.committed_offsets([none]) == {none: {}}


@pytest.mark.parametrize("many", [False, True])
def test_commit_metadata_reads_back_as_written(broker, access, many):
    # kafka-to-parquet marks its commits in the metadata string; librdkafka stores it with a C
    # terminator, which must not reach the reader (the expansion guard compares its fields).
    topic = create_topic(broker.bootstrap, unique("ap-md"), partitions=2)
    group = unique("ap-md")
    written = {(topic, 0): "kgt-pipeline;new-from-start", (topic, 1): ""}
    assert access.alter_offsets({group: {(topic, 0): 5, (topic, 1): 0}}, many=many, metadata=written) == {
        group: None
    }
    assert access.committed_with_metadata(group) == {
        (topic, 0): (5, written[(topic, 0)]),
        (topic, 1): (0, ""),
    }


def test_log_offsets_agree(broker, access, monkeypatch):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("ap"), partitions=3)
    produce(bs, topic, [Record(p, "x") for p in range(3) for _ in range(p + 2)])
    delete_records_before(bs, topic, 2, 3)
    partitions = {(topic, p) for p in range(3)} | {(topic, 7)}  # one that does not exist
    small = access.log_offsets(partitions, earliest=True)
    monkeypatch.setattr("kafka_groups.access.offsets.PROTOCOL_LAYER_THRESHOLD", 0)
    large = access.log_offsets(partitions, earliest=True)
    assert small == large
    ends, starts = small
    assert ends == {(topic, 0): 2, (topic, 1): 3, (topic, 2): 4, (topic, 7): None}
    assert starts == {(topic, 0): 0, (topic, 1): 0, (topic, 2): 3, (topic, 7): None}


@pytest.mark.parametrize("many", [False, True])
def test_alter_offsets_both_ways(broker, access, many):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("ap"), partitions=2)
    produce(bs, topic, [Record(p, "x") for p in range(2) for _ in range(5)])
    group = unique("ap")
    commit_offsets(bs, group, {(topic, 0): 1, (topic, 1): 1})
    assert access.alter_offsets({group: {(topic, 0): 4, (topic, 1): 2}}, many=many) == {group: None}
    assert committed(bs, group) == {(topic, 0): 4, (topic, 1): 2}
