"""The offset-reset policies on the real broker, through the consumer helper.

Counts what each policy delivers when partitions are added and written to before the group
notices them, when the log is truncated under a committed offset, and when a consumer restarts.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import TypeVar

import pytest

from kafka_groups.policy import (
    GroupCreationTimeNotAvailable,
    OffsetOutOfRange,
    Policy,
    PolicyConsumer,
)
from tests.kafka_helpers import (
    add_partitions,
    commit_offsets,
    consume_and_commit,
    create_topic,
    delete_records_before,
    grow_with_ours,
    produce_n,
    unique,
    wait_for_topic_gone,
)

Seen = set[tuple[str, int, int]]
K = TypeVar("K")  # how a test names its consumers


def _consumer(bootstrap: str, group: str, policy: Policy, protocol: str = "classic") -> PolicyConsumer:
    config: dict[str, object] = {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "group.protocol": protocol,
        "enable.auto.commit": True,
        "auto.commit.interval.ms": 500,
        "topic.metadata.refresh.interval.ms": 1000,
    }
    if protocol == "classic":
        config.update({"session.timeout.ms": 10000, "heartbeat.interval.ms": 1000})
    return PolicyConsumer(config, policy)


def _drain(
    consumers: Mapping[K, PolicyConsumer], seen: dict[K, Seen], partitions: int, idle: float = 2.0
) -> None:
    """Poll every consumer until each holds ``partitions`` partitions and has delivered every
    record up to the log end of each (``_caught_up``), and none got a record for ``idle``
    seconds.

    The idle time counts from when they hold their partitions, never from before: the policy's
    reads in the assignment callback can take longer than ``idle`` on a busy machine (3.1 s
    seen: the log offsets of partitions added a moment earlier, asked again until their
    leaders were known), and a drain that counted from its start returned right after the
    assignment, before the first fetch. A test then saw no records at all from a consumer that
    had lost none (its decisions were right: ``committed`` 5), or the first consumer of a group
    read and committed nothing and its restart read the partition from the group's start."""
    deadline = time.monotonic() + 90
    quiet_since: float | None = None
    checked = 0.0
    while time.monotonic() < deadline:
        got = False
        for name, consumer in consumers.items():
            message = consumer.poll(0.05)
            if message is not None and message.error() is None:
                seen[name].add((message.topic(), message.partition(), message.offset()))
                got = True
        now = time.monotonic()
        if not all(len(c.assignment()) == partitions for c in consumers.values()):
            quiet_since = None
            continue
        if got or quiet_since is None:
            quiet_since = now
        if now - quiet_since > idle and now - checked > 0.5:
            checked = now
            if all(_caught_up(c) for c in consumers.values()):
                return
    sizes = {n: len(c.assignment()) for n, c in consumers.items()}
    raise TimeoutError(f"the consumers did not settle on {partitions} partitions and their log ends: {sizes}")


def _caught_up(consumer: PolicyConsumer) -> bool:
    """Whether the consumer has delivered the records up to the log end of each partition it
    holds: its position (the offset after the last record delivered) or, before any record,
    the offset its policy started the partition at, is at the partition's high watermark."""
    started = {(d.topic, d.partition): d.offset for d in consumer.decisions}  # the latest of each
    for tp in consumer.position(consumer.assignment()):
        _low, high = consumer.get_watermark_offsets(tp, timeout=10, cached=False)
        at = tp.offset if tp.offset >= 0 else started.get((tp.topic, tp.partition), -1)
        if at < high:
            return False
    return True


def _poll_for(consumer: PolicyConsumer, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        consumer.poll(0.2)


def _offsets(seen: Seen, topic: str, partition: int) -> list[int]:
    return sorted(o for t, p, o in seen if t == topic and p == partition)


def _close(consumers: Iterable[PolicyConsumer]) -> None:
    for consumer in consumers:
        consumer.close()


def test_partition_expansion_loses_nothing_with_to_start_time_and_max_age(broker, ours):
    """History before the groups start, records while they run, then two partitions added by
    `kafka-topics --alter` and written to before the groups notice them: each policy in a classic
    group and in a consumer-protocol (KIP-848) group, the eight consumers on one topic and drained
    together, so that the two protocols' rebalances are waited out at the same time."""
    topic = create_topic(broker.bootstrap, unique("expand"), partitions=2)  # no recorded age
    produce_n(broker.bootstrap, topic, {0: 20, 1: 20})  # history, older than every group
    policies = {
        "latest": Policy.parse("latest"),
        "to_start_time": Policy.parse("to_start_time"),
        "latest+max_age": Policy.parse("latest", max_age="PT10M"),
        "earliest": Policy.parse("earliest"),
    }
    protocols = ("classic", "consumer")
    consumers = {
        (protocol, n): _consumer(broker.bootstrap, unique(f"expand-{protocol}"), p, protocol)
        for protocol in protocols
        for n, p in policies.items()
    }
    seen: dict[tuple[str, str], Seen] = {key: set() for key in consumers}
    try:
        for consumer in consumers.values():
            consumer.subscribe([topic])
        _drain(consumers, seen, 2)
        produce_n(broker.bootstrap, topic, {0: 10, 1: 10})
        _drain(consumers, seen, 2)

        # Nobody polls while the topic grows and the new partitions fill.
        grow_with_ours(ours, broker.bootstrap, topic, 4)
        produce_n(broker.bootstrap, topic, {2: 15, 3: 15})
        _drain(consumers, seen, 4)
        produce_n(broker.bootstrap, topic, {0: 5, 1: 5, 2: 5, 3: 5})
        _drain(consumers, seen, 4)
    finally:
        _close(consumers.values())

    for protocol in protocols:
        got = {n: seen[(protocol, n)] for n in policies}
        counts = {n: len(s) for n, s in got.items()}
        lost = {
            n: sum(1 for p in (2, 3) for o in range(15) if (topic, p, o) not in s) for n, s in got.items()
        }
        print(f"\n{protocol}: delivered {counts}, lost from the new partitions {lost}")
        # Plain latest skips every record written to the new partitions before it saw them.
        assert lost["latest"] == 30, protocol
        assert counts["latest"] == 20 + 20, protocol
        # The start time and the max age both start the new partitions at their first record
        # and, like latest, skip the history written before the group existed.
        for name in ("to_start_time", "latest+max_age"):
            assert lost[name] == 0, (protocol, name)
            assert counts[name] == 20 + 30 + 20, (protocol, name)
            assert _offsets(got[name], topic, 0) == list(range(20, 35)), (protocol, name)
        # Earliest loses nothing either, but reads the whole history again.
        assert lost["earliest"] == 0, protocol
        assert counts["earliest"] == 40 + 20 + 30 + 20, protocol


def test_restarted_consumer_keeps_the_group_start_time(broker):
    topic = create_topic(broker.bootstrap, unique("restart"), partitions=1)
    group = unique("restart")
    policy = Policy.parse("to_start_time")
    first = _consumer(broker.bootstrap, group, policy)
    seen: dict[str, Seen] = {"first": set()}
    try:
        first.subscribe([topic])
        produce_n(broker.bootstrap, topic, {0: 5})
        _drain({"first": first}, seen, 1)
        anchor = first.group_start_ms
    finally:
        first.close()  # commits what was read (auto commit)
    assert anchor is not None and len(seen["first"]) == 5

    time.sleep(1.5)  # a start time computed again on restart would now be later than these records
    add_partitions(broker.bootstrap, topic, 2)  # by another tool: no recorded partition age
    produce_n(broker.bootstrap, topic, {0: 3, 1: 7})
    second = _consumer(broker.bootstrap, group, policy)
    seen["second"] = set()
    try:
        second.subscribe([topic])
        _drain({"second": second}, seen, 2)
        assert second.group_start_ms == anchor
    finally:
        second.close()
    assert _offsets(seen["second"], topic, 0) == [5, 6, 7]
    assert _offsets(seen["second"], topic, 1) == list(range(7))
    reasons = {(d.partition, d.reason) for d in second.decisions}
    assert (0, "committed") in reasons and (1, "no committed offset; to_start_time") in reasons


def test_truncation_below_the_committed_offset(broker):
    """The log start moves past the groups' committed offset 10 (delete-records before 30)."""
    topic = create_topic(broker.bootstrap, unique("truncate"), partitions=1)
    policies = {
        "nearest": Policy.parse("latest", invalid="nearest"),
        "to_start_time": Policy.parse("to_start_time"),
        "latest": Policy.parse("latest"),
    }
    groups = {n: unique(f"truncate-{n}") for n in policies}
    for name, policy in policies.items():  # each group is created (and anchored) before the records
        consumer = _consumer(broker.bootstrap, groups[name], policy)
        try:
            consumer.subscribe([topic])
            _drain({name: consumer}, {name: set()}, 1, idle=0.5)
        finally:
            consumer.close()
    produce_n(broker.bootstrap, topic, {0: 50})
    for group in groups.values():
        commit_offsets(broker.bootstrap, group, {(topic, 0): 10})
    delete_records_before(broker.bootstrap, topic, 0, 30)
    produce_n(broker.bootstrap, topic, {0: 10})

    consumers = {n: _consumer(broker.bootstrap, groups[n], p) for n, p in policies.items()}
    seen: dict[str, Seen] = {n: set() for n in consumers}
    try:
        for consumer in consumers.values():
            consumer.subscribe([topic])
        _drain(consumers, seen, 1)
    finally:
        _close(consumers.values())
    # Every surviving record after the group's start, and nothing twice.
    assert _offsets(seen["nearest"], topic, 0) == list(range(30, 60))
    assert _offsets(seen["to_start_time"], topic, 0) == list(range(30, 60))
    # Plain latest skips the 30 surviving records.
    assert seen["latest"] == set()


def test_position_truncated_while_consuming_goes_to_the_nearest_offset(broker):
    topic = create_topic(broker.bootstrap, unique("running"), partitions=1)
    produce_n(broker.bootstrap, topic, {0: 40})
    consumer = _consumer(broker.bootstrap, unique("running"), Policy.parse("earliest", invalid="nearest"))
    from confluent_kafka import TopicPartition

    offsets: list[int] = []
    try:
        consumer.subscribe([topic])
        deadline = time.monotonic() + 60
        while len(offsets) < 40 and time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                offsets.append(message.offset())
        assert offsets == list(range(40))
        delete_records_before(broker.bootstrap, topic, 0, 25)
        produce_n(broker.bootstrap, topic, {0: 5})
        consumer.seek(TopicPartition(topic, 0, 10))  # the position now lies below the log start
        offsets.clear()
        deadline = time.monotonic() + 60
        while len(offsets) < 20 and time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                offsets.append(message.offset())
    finally:
        consumer.close()
    assert offsets == list(range(25, 45))
    assert any("nearest" in d.reason for d in consumer.decisions)


def test_on_start_policies_refuse_an_out_of_range_offset(broker):
    """KIP-842: latest_on_start / earliest_on_start only choose a first position."""
    topic = create_topic(broker.bootstrap, unique("onstart"), partitions=1)
    produce_n(broker.bootstrap, topic, {0: 20})
    group = unique("onstart")
    commit_offsets(broker.bootstrap, group, {(topic, 0): 5})
    delete_records_before(broker.bootstrap, topic, 0, 10)
    consumer = _consumer(broker.bootstrap, group, Policy.parse("latest_on_start"))
    try:
        consumer.subscribe([topic])
        with pytest.raises(OffsetOutOfRange, match="outside the log"):
            _poll_for(consumer, 60)
    finally:
        consumer.close()


def test_to_start_time_without_an_anchor_is_an_error(broker):
    """A group created by another consumer has no recorded start; the policy does not guess."""
    topic = create_topic(broker.bootstrap, unique("noanchor"), partitions=1)
    produce_n(broker.bootstrap, topic, {0: 3})
    group = unique("noanchor")
    assert consume_and_commit(broker.bootstrap, group, [topic], 3) == 3
    add_partitions(broker.bootstrap, topic, 2)
    consumer = _consumer(broker.bootstrap, group, Policy.parse("to_start_time"))
    try:
        with pytest.raises(GroupCreationTimeNotAvailable, match=group):
            consumer.subscribe([topic])
            _poll_for(consumer, 60)
    finally:
        consumer.close()


def test_a_group_start_recorded_by_racing_writers_is_one_time(broker):
    """Several consumers creating the same group at once all end up with the first record's time."""
    from concurrent.futures import ThreadPoolExecutor

    from kafka_groups.policy import CreationRegistry
    from kafka_groups.settings import ConnectionSettings

    group = unique("race")
    settings = ConnectionSettings(broker.bootstrap, 30_000)
    with ThreadPoolExecutor(4) as pool:
        times = list(pool.map(lambda _: CreationRegistry(settings).record_group_start(group), range(4)))
    assert len(set(times)) == 1
    assert CreationRegistry(settings).group_start_time(group) == times[0]


def test_kafka_topics_records_partition_creation_times(broker, ours):
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.access.policy_io import partition_ages
    from kafka_groups.policy import CreationRegistry
    from kafka_groups.settings import ConnectionSettings

    topic = unique("ages")
    before = time.time() * 1000
    created = ours(
        "kafka-topics",
        "--bootstrap-server",
        broker.bootstrap,
        "--create",
        "--topic",
        topic,
        "--partitions",
        "2",
    )
    assert created.returncode == 0 and created.stderr == "", created.stderr
    time.sleep(1)
    grow_with_ours(ours, broker.bootstrap, topic, 3)
    after = time.time() * 1000
    settings = ConnectionSettings(broker.bootstrap, 30_000)
    access = KafkaAccess(settings)
    try:
        ages = partition_ages(access, CreationRegistry(settings), {topic})
    finally:
        access.close()
    assert set(ages) == {(topic, 0), (topic, 1), (topic, 2)}
    assert before - 1000 <= ages[(topic, 0)] == ages[(topic, 1)] < ages[(topic, 2)] <= after + 1000

    # A topic deleted and created again by another tool has no recorded age (its id changed).
    assert (
        ours("kafka-topics", "--bootstrap-server", broker.bootstrap, "--delete", "--topic", topic).returncode
        == 0
    )
    wait_for_topic_gone(broker.bootstrap, topic)
    create_topic(broker.bootstrap, topic, partitions=1)
    access = KafkaAccess(settings)
    try:
        assert partition_ages(access, CreationRegistry(settings), {topic}) == {}
    finally:
        access.close()
