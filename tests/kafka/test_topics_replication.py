"""kafka-topics --describe report filters on a 3-node cluster with one broker stopped:
ours and the Apache tool print the same partitions."""

from __future__ import annotations

import time

import pytest

from infra import kafka as local_kafka
from tests.kafka_helpers import admin, unique, wait_for_full_isr

pytestmark = pytest.mark.kafka

FILTERS = [
    [],
    ["--under-replicated-partitions"],
    ["--under-min-isr-partitions"],
    ["--at-min-isr-partitions"],
    ["--unavailable-partitions"],
    ["--under-replicated-partitions", "--unavailable-partitions"],
    ["--topics-with-overrides"],
]


@pytest.fixture(scope="module")
def degraded():
    """Three brokers, then broker 3 stopped: a replicated topic (min ISR 2) is under-replicated
    and at its minimum ISR, a topic whose only replica lived on broker 3 is unavailable."""
    from confluent_kafka.admin import NewTopic

    # A cluster of its own: the whole-cluster reports below must show these topics and nothing else.
    cluster = local_kafka.start(nodes=3, workdir=local_kafka.RUN_DIR / f"test-topics-3n-{unique('c')}")
    try:
        bs = cluster.bootstrap
        replicated, solo, healthy = unique("rep"), unique("solo"), unique("ok")
        client = admin(bs)
        futures = client.create_topics(
            [
                NewTopic(replicated, 3, 3, config={"min.insync.replicas": "2"}),
                NewTopic(solo, 2, replica_assignment=[[3], [3]]),
                NewTopic(healthy, 1, replica_assignment=[[1, 2]]),
            ],
            operation_timeout=30,
        )
        for future in futures.values():
            future.result(30)
        wait_for_full_isr(bs, (replicated, solo, healthy))
        cluster.stop_node(3)
        _wait_until_isr_shrinks(bs, replicated)
        yield bs, (replicated, solo, healthy)
    finally:
        cluster.stop(grace=0)  # its data is deleted: no controlled shutdown to wait for


def _wait_until_isr_shrinks(bs, topic):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        described = admin(bs).list_topics(topic, timeout=10).topics[topic]
        if all(3 not in p.isrs for p in described.partitions.values()):
            return
        time.sleep(0.5)
    pytest.fail("the stopped broker stayed in the ISR")


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: " ".join(f) or "all")
def test_report_filters_match_apache(degraded, apache, ours, filters):
    bs, topics = degraded
    pattern = "|".join(topics)
    args = ["--bootstrap-server", bs, "--describe", "--topic", pattern, *filters]
    theirs, mine = apache("kafka-topics", *args), ours("kafka-topics", *args)
    assert theirs.returncode == 0, theirs.stdout + theirs.stderr
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout == theirs.stdout


def test_filters_pick_the_expected_partitions(degraded, ours):
    bs, (replicated, solo, healthy) = degraded

    def shown(*filters):
        out = ours("kafka-topics", "--bootstrap-server", bs, "--describe", *filters).stdout
        return {
            line.split("\t")[1].split(": ")[1] for line in out.splitlines() if line.startswith("\tTopic: ")
        }

    assert shown("--under-replicated-partitions") == {replicated, solo}
    assert shown("--unavailable-partitions") == {solo}
    assert shown("--at-min-isr-partitions") >= {replicated}
    assert healthy not in shown("--under-replicated-partitions", "--unavailable-partitions")
