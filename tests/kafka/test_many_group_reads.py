"""Reads of thousands of groups on a cluster of this module's own (it is paused): each batch of
groups is read under a deadline of its own, so a describe of thousands of groups at the Apache
tools' default --timeout never fails for the time the others took, and a paused broker still
fails it within about one --timeout, naming what it was waiting for.

KAFKA_TEST_PAUSABLE_WORKDIR reuses a cluster started with `python -m infra.kafka start` (it is
paused and resumed, and gets a few thousand groups)."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator

import pytest

from infra import kafka as local_kafka
from kafka_groups.access.connection import GROUPS_PER_REQUEST
from kafka_groups.access.groups import FEW_GROUPS
from tests.kafka_helpers import (
    ActiveConsumer,
    commit_many,
    commit_offsets,
    create_topic,
    produce_n,
    unique,
)

pytestmark = pytest.mark.kafka

GROUPS = 5 * GROUPS_PER_REQUEST  # five batches
DEFAULT_TIMEOUT_MS = "5000"  # the Apache tool's --timeout (the suite's own default is longer)


@pytest.fixture(scope="module")
def cluster() -> Iterator[local_kafka.Cluster]:
    external = os.environ.get("KAFKA_TEST_PAUSABLE_WORKDIR")
    if external:
        yield local_kafka.Cluster.load(external)
        return
    started = local_kafka.start(nodes=1, workdir=local_kafka.RUN_DIR / f"pytest-many-{unique('c')}")
    try:
        yield started
    finally:
        started.stop(grace=0)


@pytest.fixture(scope="module")
def many(cluster) -> tuple[str, str, list[str]]:
    """GROUPS simple groups named ``<prefix>-NNNNN``, each with offsets 1 and 2 committed on the
    two partitions of a topic that holds 5 records in each."""
    bs = cluster.bootstrap
    topic = create_topic(bs, unique("many"), partitions=2)
    produce_n(bs, topic, {0: 5, 1: 5})
    prefix = unique("many")
    groups = [f"{prefix}-{i:05d}" for i in range(GROUPS)]
    offsets = {(topic, 0): 1, (topic, 1): 2}
    commit_offsets(bs, groups[0], offsets)  # waits out a new cluster's offsets topic
    commit_many(bs, groups[1:], offsets)
    return topic, prefix, groups


def _pid(cluster: local_kafka.Cluster) -> int:
    pid = cluster.node(1).pid
    assert pid is not None
    return pid


def _describe(ours, bs: str, *args: str):
    return ours("kafka-consumer-groups", "--bootstrap-server", bs, "--describe", *args, "-o", "json")


def test_thousands_of_groups_are_described_at_the_default_timeout(cluster, many, ours):
    """Five batches of groups at the Apache tool's default --timeout, three times: every group,
    every offset, every time (one deadline for them all failed 2 runs in 6 at 5,000 groups)."""
    topic, prefix, groups = many
    for _ in range(3):
        pattern = f"{prefix}-[0-9]+"
        result = _describe(
            ours, cluster.bootstrap, "--group-pattern", pattern, "--timeout", DEFAULT_TIMEOUT_MS
        )
        assert result.returncode == 0, result.stderr[-500:]
        doc = json.loads(result.stdout)
        assert [g["group"] for g in doc["groups"]] == groups
        for g in doc["groups"]:
            rows = {(r["topic"], r["partition"]): (r["current_offset"], r["lag"]) for r in g["offsets"]}
            assert rows == {(topic, 0): (1, 4), (topic, 1): (2, 3)}, g["group"]


@pytest.mark.parametrize("view", [[], ["--members"], ["--state"]])
def test_a_group_reads_the_same_alone_and_among_thousands(cluster, many, ours, view):
    """A few groups are described through confluent-kafka, many through the protocol layer in
    batches: the plain views show the same for a group either way (live classic and
    consumer-protocol groups among the thousands)."""
    topic, prefix, _groups = many
    bs = cluster.bootstrap
    live = {protocol: f"{prefix}-live-{protocol}" for protocol in ("classic", "consumer")}
    with (
        ActiveConsumer(bs, live["classic"], [topic]),
        ActiveConsumer(bs, live["consumer"], [topic], "consumer"),
    ):
        for group in live.values():
            among = _describe(
                ours, bs, *view, "--group-pattern", f"{prefix}-.*", "--timeout", DEFAULT_TIMEOUT_MS
            )
            alone = _describe(ours, bs, *view, "--group", group, "--timeout", DEFAULT_TIMEOUT_MS)
            assert among.returncode == 0 and alone.returncode == 0, among.stderr + alone.stderr
            found = [g for g in json.loads(among.stdout)["groups"] if g["group"] == group]
            assert len(json.loads(among.stdout)["groups"]) > FEW_GROUPS
            assert found == json.loads(alone.stdout)["groups"], group


def test_a_paused_broker_fails_a_read_of_thousands_of_groups_within_one_timeout(cluster, many):
    """The connection is up and the coordinators known when the broker stops answering: the
    batch in flight fails after its own --timeout, naming the coordinators it waited for, and no
    batch after it is tried (five batches each waiting their timeout would take five)."""
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.errors import ClusterError
    from kafka_groups.settings import ConnectionArgs

    _topic, _prefix, groups = many
    timeout_ms = 3000
    access = KafkaAccess(ConnectionArgs(bootstrap_server=cluster.bootstrap, timeout_ms=timeout_ms).resolve())
    paused = False
    try:
        found, missing = access.describe_groups(groups)
        assert len(found) == GROUPS and not missing
        assert len(access.committed_offsets(groups)) == GROUPS
        os.kill(_pid(cluster), signal.SIGSTOP)
        paused = True
        for read in (access.describe_groups, access.committed_offsets):
            began = time.monotonic()
            with pytest.raises(ClusterError) as failed:
                read(groups)
            took = time.monotonic() - began
            assert f"not available within {timeout_ms} ms" in failed.value.message, failed.value.message
            assert "the coordinators of groups" in failed.value.message
            assert timeout_ms / 1000 <= took < 2 * timeout_ms / 1000, took
    finally:
        if paused:
            os.kill(_pid(cluster), signal.SIGCONT)
        access.close()
