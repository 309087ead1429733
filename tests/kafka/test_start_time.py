"""--to-start-time on today's brokers (which record no group creation time): the start the
policy library (PolicyConsumer) recorded serves instead, and the tools say so; a group no
helper of ours started gets the KIP-1282 error. Also the state view's start and its source,
and kafka-topics' partition-expansion guard for a PolicyConsumer group."""

from __future__ import annotations

import json
import time

import pytest

from kafka_groups.core.reset import START_TIME_UNSUPPORTED
from kafka_groups.core.start_time import START_TIME_HINT
from kafka_groups.policy import CreationRegistry, Policy, PolicyConsumer
from kafka_groups.settings import ConnectionSettings
from tests.kafka_helpers import committed, consume_and_commit, create_topic, produce_n, unique

pytestmark = pytest.mark.kafka


def _policy_consumer(bootstrap: str, group: str, policy: str) -> PolicyConsumer:
    config: dict[str, object] = {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "group.protocol": "classic",
        "enable.auto.commit": True,
        "auto.commit.interval.ms": 500,
        "session.timeout.ms": 10000,
        "heartbeat.interval.ms": 1000,
    }
    return PolicyConsumer(config, Policy.parse(policy))


def _run_group(bootstrap: str, group: str, topic: str, before: dict[int, int], after: dict[int, int]) -> dict:
    """Records written before the group starts, a PolicyConsumer with to_start_time started,
    records written after; the consumer reads what its policy gives and leaves (Empty, with
    its offsets committed). Returns where the policy started each partition."""
    produce_n(bootstrap, topic, before)
    time.sleep(0.01)  # the group's start is a later millisecond than the records before it
    consumer = _policy_consumer(bootstrap, group, "to_start_time")
    try:
        consumer.subscribe([topic])
        assert consumer.group_start_ms is not None  # recorded by subscribe (broker clock)
        produce_n(bootstrap, topic, after)
        deadline = time.monotonic() + 90
        read = 0
        while read < sum(after.values()) and time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                read += 1
        assert read == sum(after.values())
        started = {(d.topic, d.partition): d.offset for d in consumer.decisions if d.reason != "committed"}
    finally:
        consumer.close()  # commits what was read
    return started


def _reset(ours, bs: str, *args: str):
    return ours("kafka-consumer-groups", "--bootstrap-server", bs, "--reset-offsets", *args)


def test_to_start_time_lands_where_the_policy_started_the_group(broker, ours, tmp_path):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("st-rewind"), partitions=2)
    group = unique("st-rewind")
    started = _run_group(bs, group, topic, before={0: 4, 1: 6}, after={0: 3, 1: 2})
    assert started == {(topic, 0): 4, (topic, 1): 6}  # to_start_time skipped what came before
    produce_n(bs, topic, {0: 2, 1: 2})
    assert committed(bs, group) == {(topic, 0): 7, (topic, 1): 8}

    done = _reset(
        ours,
        bs,
        "--group",
        group,
        "--all-topics",
        "--to-start-time",
        "--execute",
        "--backup-dir",
        str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    notices = [line for line in done.stderr.splitlines() if "--to-start-time" in line]
    assert len(notices) == 1 and "uses the start kafka-group-tools recorded for it" in notices[0], done.stderr
    assert committed(bs, group) == started


def test_a_dry_run_shows_the_same_plan(broker, ours):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("st-dry"), partitions=1)
    group = unique("st-dry")
    started = _run_group(bs, group, topic, before={0: 5}, after={0: 1})
    plan = _reset(ours, bs, "--group", group, "--topic", topic, "--to-start-time", "--dry-run")
    assert plan.returncode == 0, plan.stderr
    assert plan.stdout.split("\n")[2].split() == [group, topic, "0", str(started[(topic, 0)])]
    assert committed(bs, group) == {(topic, 0): 6}  # a dry run changes nothing


def test_a_group_no_helper_of_ours_started_gets_the_kip_error_and_the_hint(broker, ours, apache):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("st-none"), partitions=1)
    produce_n(bs, topic, {0: 3})
    group = unique("st-none")
    assert consume_and_commit(bs, group, [topic], 3) == 3
    mine = _reset(ours, bs, "--group", group, "--all-topics", "--to-start-time", "--execute")
    assert mine.returncode == 1 and mine.stdout == ""
    assert mine.stderr.splitlines() == [f"Error: {START_TIME_UNSUPPORTED}", START_TIME_HINT]
    assert committed(bs, group) == {(topic, 0): 3}
    # The pinned Apache tool has no --to-start-time yet (KIP-1282 is not in 4.3): it refuses the flag.
    theirs = apache(
        "kafka-consumer-groups", "--bootstrap-server", bs, "--reset-offsets", "--group", group,
        "--all-topics", "--to-start-time", "--execute",
    )  # fmt: skip
    assert "to-start-time is not a recognized option" in theirs.stdout + theirs.stderr


def test_state_view_keeps_the_kip_text_and_shows_the_recorded_start_in_json(broker, ours):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("st-describe"), partitions=1)
    group = unique("st-describe")
    _run_group(bs, group, topic, before={0: 1}, after={0: 1})
    start = CreationRegistry(ConnectionSettings(bs, 30_000)).group_start_time(group)
    assert start is not None
    describe = ["kafka-consumer-groups", "--bootstrap-server", bs, "--describe", "--group", group]
    text = ours(*describe, "--state", "--verbose")
    assert text.returncode == 0, text.stderr
    header, row = text.stdout.strip("\n").split("\n")
    assert header.split()[-1] == "GROUP-CREATION-TIME" and row.split()[-1] == "-"  # KIP-1282: broker or -
    doc = json.loads(ours(*describe, "--state", "--verbose", "-o", "json").stdout)
    (described,) = doc["groups"]
    assert described["creation_time_ms"] is None
    assert described["start"] == {"time_ms": start, "source": "recorded"}


def test_the_expansion_guard_calls_a_to_start_time_policy_consumer_group_safe(broker, ours):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("st-grow"), partitions=1)
    rewinder, plain = unique("st-grow-rewinder"), unique("st-grow-plain")
    _run_group(bs, rewinder, topic, before={0: 1}, after={0: 1})
    assert consume_and_commit(bs, plain, [topic], 2) == 2
    grown = ours("kafka-topics", "--bootstrap-server", bs, "--alter", "--topic", topic, "--partitions", "3")
    assert grown.returncode == 0, grown.stderr
    assert (
        f"No reset needed for {rewinder}: its kafka-group-tools consumer last started with the policy "
        "to_start_time, which starts new partitions at their beginning." in grown.stderr.splitlines()
    )
    [advice] = [line for line in grown.stderr.splitlines() if line.startswith("To read the new partitions")]
    assert f"--group {plain} " in advice and rewinder not in advice
