"""A describe of one large group reads it another way (committed offsets held compactly,
core/describe_committed.py; leaders and log offsets through the protocol layer, access/cluster.py
``log_offsets_bulk``): above those thresholds it must show what it shows below them. The
thresholds are lowered to nothing here (the tools run inside the test process), so that a small
group takes the large group's path: an active member owning some partitions, committed
partitions no member owns, a partition assigned but never committed, a topic deleted since its
offsets were committed, in every output the offsets are read for."""

from __future__ import annotations

import pytest

from tests import inprocess
from tests.kafka_helpers import (
    ActiveConsumer,
    admin,
    commit_offsets,
    create_topic,
    produce_n,
    unique,
    wait_for_topic_gone,
)

pytestmark = pytest.mark.kafka

OUTPUTS = [
    [],
    ["--offsets", "--verbose"],
    ["--output", "json"],
    ["--output", "csv"],
    ["--offsets", "--verbose", "--output", "json"],
]


@pytest.fixture(scope="module")
def groups(broker):
    bs = broker.bootstrap
    owned = create_topic(bs, unique("dl-owned"), partitions=4)
    other = create_topic(bs, unique("dl-other"), partitions=3)
    gone = create_topic(bs, unique("dl-gone"), partitions=2)
    produce_n(bs, owned, {0: 5, 1: 3, 2: 1})
    produce_n(bs, other, {0: 4, 1: 2, 2: 7})
    produce_n(bs, gone, {0: 2, 1: 2})
    idle, active = unique("dl-idle"), unique("dl-active")
    offsets = {(owned, 0): 2, (owned, 1): 3, (other, 0): 1, (other, 2): 9, (gone, 0): 1, (gone, 1): 2}
    commit_offsets(bs, idle, offsets)
    commit_offsets(bs, active, offsets)
    client = admin(bs)  # kept while its future is awaited
    client.delete_topics([gone], operation_timeout=30)[gone].result(60)
    wait_for_topic_gone(bs, gone)
    return idle, active, owned


def _describe(bs, group, args):
    return inprocess.run(
        "kafka-consumer-groups", "--bootstrap-server", bs, "--describe", "--group", group, *args
    )


def _large(monkeypatch):
    """Every group and every read takes the large group's path; returns the calls of its reads
    and rows (so that a test sees it was taken)."""
    from kafka_groups.access import cluster
    from kafka_groups.core import describe, describe_committed
    from kafka_groups.core.describe_committed import CommittedTable

    monkeypatch.setattr(cluster, "BULK_OFFSETS_ABOVE", 0)
    monkeypatch.setattr(describe_committed, "COMPACT_ABOVE", -1)
    calls = {"log_offsets_of": 0, "table_rows": 0}
    read, rows = cluster.KafkaAccess.log_offsets_of, describe._table_rows

    def counted_read(self, *args, **kwargs):
        calls["log_offsets_of"] += 1
        return read(self, *args, **kwargs)

    def counted_rows(group, committed, *args):
        assert isinstance(committed, CommittedTable)
        calls["table_rows"] += 1
        return rows(group, committed, *args)

    monkeypatch.setattr(cluster.KafkaAccess, "log_offsets_of", counted_read)
    monkeypatch.setattr(describe, "_table_rows", counted_rows)
    return calls


@pytest.mark.parametrize("args", OUTPUTS, ids=lambda a: " ".join(a) or "default")
def test_a_large_idle_group_shows_what_a_small_one_shows(broker, groups, monkeypatch, args):
    idle, _active, _owned = groups
    small = _describe(broker.bootstrap, idle, args)
    calls = _large(monkeypatch)
    large = _describe(broker.bootstrap, idle, args)
    assert calls["log_offsets_of"] == 1 and calls["table_rows"] == 1
    assert small.returncode == 0, small.stderr
    assert (large.returncode, large.stdout, large.stderr) == (small.returncode, small.stdout, small.stderr)
    assert "-" in small.stdout or "null" in small.stdout  # the deleted topic's rows have no log end


def test_a_large_group_with_a_member_shows_what_a_small_one_shows(broker, groups, monkeypatch):
    _idle, active, owned = groups
    with ActiveConsumer(broker.bootstrap, active, [owned]):
        small = [_describe(broker.bootstrap, active, args) for args in OUTPUTS]
        calls = _large(monkeypatch)
        large = [_describe(broker.bootstrap, active, args) for args in OUTPUTS]
    assert calls["log_offsets_of"] == calls["table_rows"] == len(OUTPUTS)
    for before, after in zip(small, large, strict=True):
        assert before.returncode == 0, before.stderr
        assert (after.returncode, after.stdout, after.stderr) == (
            before.returncode,
            before.stdout,
            before.stderr,
        )
    assert "consumer-" in small[0].stdout or "rdkafka" in small[0].stdout  # a member owns rows


def test_the_health_of_a_large_group_is_what_a_small_one_has(broker, groups, monkeypatch):
    idle, _active, _owned = groups
    args = ["--health", "--output", "json"]
    small = _describe(broker.bootstrap, idle, args)
    calls = _large(monkeypatch)
    large = _describe(broker.bootstrap, idle, args)
    assert calls["log_offsets_of"] == 1
    assert large.returncode == small.returncode, large.stderr
    assert large.stderr == small.stderr

    import json

    def partitions(run):
        found = json.loads(run.stdout)
        group = found["groups"][0] if "groups" in found else found
        rows = group.get("partitions", [])
        assert rows
        for row in rows:  # measured from the time of each run
            row.pop("lag_ms", None)
            row.pop("deleted_in_ms", None)
        return sorted(json.dumps(row, sort_keys=True) for row in rows)

    assert partitions(large) == partitions(small)


def test_a_partition_whose_only_broker_is_down_fails_alike_on_both_paths(three_nodes, monkeypatch):
    """A partition whose one replica's broker is stopped has no leader to answer ListOffsets:
    either path asks again until --timeout, then fails with one line and exit 1, and prints no
    rows (as the describe did before the large group's path); the large path's line names that
    partition (the small path's may be about the metadata it read to name the leader, which the
    stopped broker can hold up)."""
    from confluent_kafka.admin import NewTopic

    from tests.kafka_helpers import restore_nodes

    cluster = three_nodes
    restore_nodes(cluster)
    try:
        bs = cluster.bootstrap
        topic, group = unique("dl-led"), unique("dl-led")
        client = admin(bs)
        created = client.create_topics(
            [NewTopic(topic, 3, replica_assignment=[[1], [2], [3]])], operation_timeout=30
        )
        created[topic].result(timeout=60)
        produce_n(bs, topic, {0: 2, 1: 2, 2: 2})
        commit_offsets(bs, group, {(topic, 0): 1, (topic, 1): 1, (topic, 2): 1})
        assert _describe(bs, group, []).returncode == 0
        cluster.stop_node(3, grace=0)
        runs = [_describe(bs, group, ["--timeout", "10000"])]
        calls = _large(monkeypatch)
        runs.append(_describe(bs, group, ["--timeout", "10000"]))
        assert calls["log_offsets_of"] == 1
        for run in runs:
            assert run.returncode == 1, run.stderr
            assert run.stdout == ""
            assert len(run.stderr.strip().splitlines()) == 1, run.stderr
            assert "Traceback" not in run.stderr
        assert f"{topic}-2" in runs[1].stderr, runs[1].stderr
    finally:
        restore_nodes(cluster)
