"""The test infrastructure itself: chosen timestamps, both group protocols, the 3-node cluster."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import Consumer

from tests.kafka_helpers import Record, consume_and_commit, create_topic, produce, restore_nodes, unique

pytestmark = pytest.mark.kafka


def test_records_keep_their_chosen_timestamps(broker):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("ts"), partitions=1)
    stamps = [1_700_000_000_000, 1_700_000_060_000, 1_700_000_120_000]
    assert produce(bs, topic, [Record(0, f"v{i}", ts) for i, ts in enumerate(stamps)]) == 3
    consumer = Consumer(
        {"bootstrap.servers": bs, "group.id": unique("ts-reader"), "auto.offset.reset": "earliest"}
    )
    consumer.subscribe([topic])
    seen: list[int] = []
    deadline = time.monotonic() + 30
    while len(seen) < 3 and time.monotonic() < deadline:
        msg = consumer.poll(0.5)
        if msg is not None and not msg.error():
            seen.append(msg.timestamp()[1])
    consumer.close()
    assert seen == stamps


@pytest.mark.parametrize(("protocol", "expected_type"), [("classic", "Classic"), ("consumer", "Consumer")])
def test_group_helpers_make_groups_of_each_protocol(broker, apache, protocol, expected_type):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("proto"), partitions=2)
    produce(bs, topic, [Record(p, "x") for p in (0, 1)])
    group = unique(f"proto-{protocol}")
    assert consume_and_commit(bs, group, [topic], expected=2, protocol=protocol) == 2
    listing = apache("kafka-consumer-groups", "--bootstrap-server", bs, "--list", "--type")
    rows = {line.split()[0]: line.split()[1] for line in listing.stdout.splitlines()[1:]}
    assert rows[group] == expected_type


def test_three_node_cluster_survives_a_stopped_broker(apache, three_nodes):
    cluster = three_nodes
    restore_nodes(cluster)
    try:
        bs = cluster.bootstrap
        topic = create_topic(bs, unique("rf3"), partitions=3, replication=3)
        described = apache("kafka-topics", "--bootstrap-server", bs, "--describe", "--topic", topic)
        assert described.stdout.count("Isr: ") == 3
        assert (
            apache(
                "kafka-topics", "--bootstrap-server", bs, "--describe", "--under-replicated-partitions"
            ).stdout
            == ""
        )

        cluster.stop_node(3)
        under = apache(
            "kafka-topics", "--bootstrap-server", bs, "--describe", "--under-replicated-partitions"
        )
        assert under.returncode == 0
        assert under.stdout.count(f"Topic: {topic}") == 3

        cluster.start_node(3)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            again = apache(
                "kafka-topics", "--bootstrap-server", bs, "--describe", "--under-replicated-partitions"
            )
            if f"Topic: {topic}" not in again.stdout:
                break
            time.sleep(1)
        else:
            pytest.fail("partitions stayed under-replicated after the broker came back")
    finally:
        restore_nodes(cluster)
