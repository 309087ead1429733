"""The loss radar (``--describe --health``) and the lag in time (``--lag-time``) on a real
broker: records deleted under a group, records close to deletion by retention, a topic grown
after the group committed (with and without a recorded policy that protects the new
partitions), record timestamps read back as the lag in time, and a streams group."""

from __future__ import annotations

import json
import time

import pytest
from confluent_kafka.admin import NewTopic

from kafka_groups.access.policy_consumer import PolicyConsumer
from kafka_groups.core.policy import Policy
from kafka_groups.errors import ExitCode
from tests.kafka_helpers import (
    Record,
    admin,
    commit_offsets,
    create_topic,
    delete_records_before,
    grow_with_ours,
    produce,
    produce_n,
    unique,
    wait_until,
)

pytestmark = pytest.mark.kafka
HOUR = 3_600_000
DAY = 24 * HOUR


def _now() -> int:
    return int(time.time() * 1000)


def _health(ours, bs, *groups, form="flag", output=None):
    selection = [a for g in groups for a in ("--group", g)]
    fmt = ["--output", output] if output else []
    if form == "flag":
        args = ["--bootstrap-server", bs, "--describe", *selection, "--health", *fmt]
    else:
        args = ["describe", "--bootstrap-server", bs, *selection, "--health", *fmt]
    return ours("kafka-consumer-groups", *args)


def _rows(text: str) -> dict[tuple[str, str, int], dict[str, str]]:
    """The partition rows of the piped health table, by (group, topic, partition)."""
    rows, header = {}, None
    for line in text.splitlines():
        if line.startswith("GROUP "):
            header = line.split()
        elif header and line and not line.startswith("SUMMARY "):
            cells = line.split(maxsplit=len(header) - 1)
            row = dict(zip(header, cells, strict=True))
            rows[(row["GROUP"], row["TOPIC"], int(row["PARTITION"]))] = row
    return rows


def _summary(text: str, group: str) -> dict[str, str]:
    for line in text.splitlines():
        if line.startswith(f"SUMMARY group={group} "):
            head, _, policy = line.partition(" policy=")
            fields = dict(f.split("=", 1) for f in head.split()[1:])
            return {**fields, "policy": policy}
    raise AssertionError(f"no summary for {group} in {text!r}")


def test_records_deleted_under_the_group_are_lost_with_their_count(broker, ours):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("h-lost"), partitions=2)
    produce_n(bs, topic, {0: 20, 1: 4})
    group, healthy = unique("h-lost"), unique("h-fine")
    commit_offsets(bs, group, {(topic, 0): 2, (topic, 1): 4})
    commit_offsets(bs, healthy, {(topic, 0): 20, (topic, 1): 4})
    delete_records_before(bs, topic, 0, 7)

    result = _health(ours, bs, group, healthy)
    assert result.returncode == ExitCode.LOST, result.stderr
    rows = _rows(result.stdout)
    lost = rows[(group, topic, 0)]
    assert (lost["STATUS"], lost["LOST-RECORDS"], lost["LOG-START-OFFSET"]) == ("lost", "5", "7")
    assert rows[(group, topic, 1)]["STATUS"] == "ok"
    assert _summary(result.stdout, group)["severity"] == "lost"
    assert _summary(result.stdout, group)["lost-records"] == "5"
    assert _summary(result.stdout, healthy)["severity"] == "healthy"
    assert result.stderr.strip().splitlines()[-1] == f"loss radar: 1 group lost records ('{group}')"

    doc = json.loads(_health(ours, bs, group, form="sub", output="json").stdout)
    (g,) = doc["groups"]
    assert doc["schema"] == "kafka-group-tools/group-health/v1"
    assert (g["severity"], g["summary"]["lost_records"]) == ("lost", 5)
    assert [p["lost_records"] for p in g["partitions"]] == [5, None]

    # A healthy group alone: exit 0 and nothing on stderr.
    fine = _health(ours, bs, healthy)
    assert (fine.returncode, fine.stderr) == (0, "")

    # The plain describe's Rich view marks the lost row and says where to look; piped, the
    # Apache layout carries no mark.
    table = ours(
        "kafka-consumer-groups", "--bootstrap-server", bs, "--describe", "--group", group, "--output", "table"
    )
    assert table.returncode == 0, table.stderr
    assert "1 partition(s) lost or at risk: --describe --health says why" in table.stdout
    assert "(out of range)" in table.stdout
    piped = ours("kafka-consumer-groups", "--bootstrap-server", bs, "--describe", "--group", group)
    assert "at risk" not in piped.stdout and "out of range" not in piped.stdout


def test_the_next_record_close_to_retention_is_at_risk(broker, ours):
    bs = broker.bootstrap
    topic = unique("h-risk")
    client = admin(bs)  # kept until the topic is made: librdkafka drops a destroyed client's futures
    client.create_topics([NewTopic(topic, 1, 1, config={"retention.ms": str(DAY)})])[topic].result(30)
    wait_until(lambda: topic in client.list_topics(timeout=5).topics, "the topic")
    stamp = _now() - DAY + HOUR // 2  # deleted by time retention in about 30 minutes
    produce(bs, topic, [Record(0, f"v{i}", stamp + i) for i in range(5)])
    group = unique("h-risk")
    commit_offsets(bs, group, {(topic, 0): 1})

    before = _now()
    result = _health(ours, bs, group)
    after = _now()
    assert result.returncode == ExitCode.AT_RISK, result.stderr
    row = _rows(result.stdout)[(group, topic, 0)]
    assert row["STATUS"] == "at-risk"
    assert "will be deleted in ~" in row["DETAIL"] and "at this lag" in row["DETAIL"]
    # The record at offset 1 was stamped stamp + 1: it is due at stamp + 1 + retention.ms.
    due = stamp + 1 + DAY
    assert due - after <= int(row["DELETE-IN-MS"]) <= due - before
    assert before - (stamp + 1) <= int(row["LAG-TIME-MS"]) <= after - (stamp + 1)
    assert result.stderr.strip().endswith(f"loss radar: 1 group at risk ('{group}')")

    table = ours(
        "kafka-consumer-groups", "--bootstrap-server", bs, "--describe", "--group", group, "--output", "table"
    )
    assert table.returncode == 0, table.stderr
    assert "1 partition(s) lost or at risk: --describe --health says why" in table.stdout
    assert "4 (at risk)" in table.stdout  # the LAG cell: offsets 1..4 of 5 records unread


def test_retention_bytes_puts_the_next_record_at_risk_when_the_log_behind_it_nears_the_limit(broker, ours):
    bs = broker.bootstrap
    topic = unique("h-bytes")
    client = admin(bs)
    client.create_topics([NewTopic(topic, 1, 1, config={"retention.bytes": "100000"})])[topic].result(30)
    wait_until(lambda: topic in client.list_topics(timeout=5).topics, "the topic")
    produce(bs, topic, [Record(0, "x" * 1000) for _ in range(95)])
    near, far = unique("h-bytes"), unique("h-bytes")
    commit_offsets(bs, near, {(topic, 0): 2})
    commit_offsets(bs, far, {(topic, 0): 60})

    result = _health(ours, bs, near, far, output="json")
    assert result.returncode == ExitCode.AT_RISK, result.stderr
    rows = {g["group"]: g["partitions"][0] for g in json.loads(result.stdout)["groups"]}
    assert rows[near]["status"] == "at-risk"
    assert "retention.bytes 100000" in rows[near]["detail"]
    assert rows[near]["size_bytes"] > 90_000  # the leader's log directory, DescribeLogDirs
    assert rows[far]["status"] == "ok"


def _policy_group(bs: str, topic: str, policy: Policy) -> str:
    """A group of our consumer helper that read the topic and committed: its policy recorded.
    The records are written once it holds both partitions (to_start_time skips what came
    before the group)."""
    group = unique("h-policy")
    consumer = PolicyConsumer(
        {
            "bootstrap.servers": bs,
            "group.id": group,
            "enable.auto.commit": False,
            "session.timeout.ms": 10000,
        },
        policy,
    )
    try:
        consumer.subscribe([topic])
        deadline = time.monotonic() + 60
        while len(consumer.assignment()) < 2 and time.monotonic() < deadline:
            consumer.poll(0.2)
        produce_n(bs, topic, {0: 3, 1: 3})
        got = 0
        while got < 6 and time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                got += 1
        assert got == 6
        consumer.commit(asynchronous=False)
    finally:
        consumer.close()
    return group


def test_partitions_added_after_the_group_committed_are_unconsumed_and_protected_by_its_policy(broker, ours):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("h-grow"), partitions=2)
    protected = _policy_group(bs, topic, Policy.parse("to_start_time"))
    plain = unique("h-plain")
    commit_offsets(bs, plain, {(topic, 0): 3, (topic, 1): 3})
    grow_with_ours(ours, bs, topic, 4)  # records the new partitions' creation times
    produce_n(bs, topic, {2: 7, 3: 4})

    result = _health(ours, bs, protected, plain)
    assert result.returncode == ExitCode.AT_RISK, result.stderr
    rows = _rows(result.stdout)
    for group, status in ((protected, "unconsumed"), (plain, "at-risk")):
        for partition, records in ((2, "7"), (3, "4")):
            row = rows[(group, topic, partition)]
            assert (row["STATUS"], row["CURRENT-OFFSET"], row["LAG"]) == (status, "-", records)
            assert row["CREATED"] != "-"
        assert rows[(group, topic, 0)]["STATUS"] == "ok"
    assert "protected: policy to_start_time" in rows[(protected, topic, 2)]["DETAIL"]
    assert "auto.offset.reset=latest skips" in rows[(plain, topic, 2)]["DETAIL"]
    mine = _summary(result.stdout, protected)
    assert (mine["severity"], mine["uncommitted"], mine["uncommitted-records"]) == ("healthy", "2", "11")
    assert mine["policy"] == "to_start_time"
    assert mine["start"].endswith("(recorded)")
    assert _summary(result.stdout, plain)["severity"] == "at-risk"


def test_lag_in_time_is_now_minus_the_next_records_timestamp(broker, ours):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("h-time"), partitions=2)
    base = _now() - 5 * HOUR
    stamps = {0: [base + i * 60_000 for i in range(6)], 1: [base + HOUR + i for i in range(3)]}
    produce(bs, topic, [Record(p, f"v{i}", s) for p, ss in stamps.items() for i, s in enumerate(ss)])
    group = unique("h-time")
    commit_offsets(bs, group, {(topic, 0): 4, (topic, 1): 3})  # partition 1: no lag
    describe = ["--bootstrap-server", bs, "--describe", "--group", group]

    before = _now()
    doc = json.loads(ours("kafka-consumer-groups", *describe, "--lag-time", "--output", "json").stdout)
    after = _now()
    rows = {r["partition"]: r for r in doc["groups"][0]["offsets"]}
    assert rows[0]["next_record_timestamp_ms"] == stamps[0][4]
    assert before - stamps[0][4] <= rows[0]["lag_ms"] <= after - stamps[0][4]
    assert (rows[1]["next_record_timestamp_ms"], rows[1]["lag_ms"]) == (None, None)

    # Piped: the Apache layout unchanged, LAG-TIME-MS appended at the end of each line.
    plain = ours("kafka-consumer-groups", *describe).stdout.splitlines()
    timed = ours("kafka-consumer-groups", *describe, "--lag-time").stdout.splitlines()
    assert len(plain) == len(timed)
    for short, long in zip(plain, timed, strict=True):
        assert long.startswith(short)
    assert timed[1].split()[-1] == "LAG-TIME-MS"
    assert timed[-1].split()[-1] == "-"  # partition 1 is caught up
    lag = int(timed[-2].split()[-1])
    assert before - stamps[0][4] <= lag <= _now() - stamps[0][4]


def test_streams_group_health(broker, ours):
    from tests.streams_helpers import make_groups

    bs = broker.bootstrap
    tag = unique("h").split("-")[1]
    source = create_topic(bs, f"h-sin-{tag}", partitions=1)
    output = create_topic(bs, f"h-sout-{tag}", partitions=1)
    produce_n(bs, source, {0: 10})
    app = f"h-app-{tag}"
    make_groups(bs, [app], [source], output, {(source, 0): 10})
    produce_n(bs, source, {0: 5})
    delete_records_before(bs, source, 0, 13)  # 3 records the application never read

    args = ["--bootstrap-server", bs, "--describe", "--group", app, "--health"]
    result = ours("kafka-streams-groups", *args)
    assert result.returncode == ExitCode.LOST, result.stderr
    row = _rows(result.stdout)[(app, source, 0)]
    assert (row["STATUS"], row["LOST-RECORDS"]) == ("lost", "3")
    assert _summary(result.stdout, app)["kind"] == "streams"
    sub = ours("kafka-streams-groups", "describe", *args[:2], "--group", app, "--health", "--output", "json")
    assert sub.returncode == ExitCode.LOST
    assert json.loads(sub.stdout)["groups"][0]["summary"]["lost_records"] == 3
