"""kafka-topics pure code with plain data: describe filters and layout, KIP-1327 at the protocol
level, argument parsing, the partition-expansion guard."""

from __future__ import annotations

import uuid

import pytest

from kafka_groups.access.cluster import _partition_states
from kafka_groups.access.messages import DescribeTopicPartitionsResponse
from kafka_groups.errors import TopicUsageError
from kafka_groups.settings import ConnectionArgs
from kafka_topics.changes import (
    AlterResult,
    expansion_groups,
    new_partition_assignment,
    parse_configs,
    parse_replica_assignment,
)
from kafka_topics.describe import (
    NO_LEADER,
    ConfigValue,
    DescribeFilters,
    PartitionState,
    Reassignment,
    TopicDescribeResult,
    TopicState,
    kafka_uuid,
    partition_line,
    topic_line,
)

MIN_ISR_2 = (ConfigValue("min.insync.replicas", "2", False), ConfigValue("retention.ms", "604800000", True))


def _topic(*partitions: PartitionState, configs=MIN_ISR_2) -> TopicState:
    return TopicState("t", kafka_uuid(uuid.UUID(int=5)), partitions, configs)


HEALTHY = PartitionState(0, 1, (1, 2, 3), (1, 2, 3), (), ())
SHORT = PartitionState(1, 2, (1, 2, 3), (2, 3), (), ())  # at min ISR 2, under-replicated
LONELY = PartitionState(2, 3, (1, 2, 3), (3,), (), ())  # under min ISR
LEADERLESS = PartitionState(3, NO_LEADER, (1,), (), (), ())


@pytest.mark.parametrize(
    ("filters", "shown"),
    [
        (DescribeFilters(), [0, 1, 2, 3]),
        (DescribeFilters(under_replicated=True), [1, 2, 3]),
        (DescribeFilters(at_min_isr=True), [1]),
        (DescribeFilters(under_min_isr=True), [2, 3]),
        (DescribeFilters(unavailable=True), [3]),
        (DescribeFilters(at_min_isr=True, unavailable=True), [1, 3]),  # any filter matches
        (DescribeFilters(with_overrides=True), []),
    ],
)
def test_report_filters(filters, shown):
    result = TopicDescribeResult((_topic(HEALTHY, SHORT, LONELY, LEADERLESS),), filters, frozenset({1, 2, 3}))
    ((_, with_line, partitions),) = list(result.shown())
    assert [p.partition for p in partitions] == shown
    assert with_line == (not filters.reports)


def test_topics_with_overrides_hides_topics_without_any():
    defaults = (ConfigValue("retention.ms", "604800000", True),)
    result = TopicDescribeResult((_topic(HEALTHY, configs=defaults),), DescribeFilters(with_overrides=True))
    assert [with_line for _, with_line, _ in result.shown()] == [False]


def test_replication_factor_ignores_replicas_being_added():
    moving = Reassignment(replicas=(1, 2, 3, 4), adding=(4,), removing=(1,))
    p = PartitionState(0, 2, (1, 2, 3, 4), (2, 3, 4), (), ())
    assert p.replication_factor(moving) == 3
    assert p.replication_factor(None) == 4
    result = TopicDescribeResult((_topic(p),), reassignments={("t", 0): moving}, live_brokers=frozenset({2}))
    assert "ReplicationFactor: 3" in topic_line(result, result.topics[0])
    assert partition_line(result, result.topics[0], p).endswith(
        "\tIsr: 2,3,4\tAdding Replicas: 4\tRemoving Replicas: 1\tElr: \tLastKnownElr: "
    )


def test_topic_and_partition_lines():
    result = TopicDescribeResult((_topic(HEALTHY, LEADERLESS),), live_brokers=frozenset({1}))
    topic = result.topics[0]
    assert topic_line(result, topic) == (
        "Topic: t\tTopicId: AAAAAAAAAAAAAAAAAAAABQ\tPartitionCount: 2\tReplicationFactor: 3"
        "\tConfigs: min.insync.replicas=2"
    )
    assert partition_line(result, topic, LEADERLESS) == (
        "\tTopic: t\tPartition: 3\tLeader: none\tReplicas: 1\tIsr: \tElr: \tLastKnownElr: "
    )
    legacy = PartitionState(0, 1, (1,), (1,))  # no ELR from the broker
    assert partition_line(result, topic, legacy).endswith("\tElr: N/A\tLastKnownElr: N/A")


# -- KIP-1327: DescribeTopicPartitions v1 carries CreationTimeMs ------------------------------
R = DescribeTopicPartitionsResponse


def _response(version, creation_ms=None):
    fields = dict(
        error_code=0,
        partition_index=0,
        leader_id=1,
        leader_epoch=0,
        replica_nodes=[1],
        isr_nodes=[1],
        eligible_leader_replicas=[],
        last_known_elr=[],
        offline_replicas=[],
    )
    if creation_ms is not None:
        fields["creation_time_ms"] = creation_ms
    topic = R.DescribeTopicPartitionsResponseTopic(
        error_code=0,
        name="t",
        topic_id=uuid.UUID(int=5),
        is_internal=False,
        partitions=[
            R.DescribeTopicPartitionsResponseTopic.DescribeTopicPartitionsResponsePartition(**fields)
        ],
        topic_authorized_operations=-2147483648,
    )
    return R(version=version, throttle_time_ms=0, topics=[topic], next_cursor=None)


@pytest.mark.parametrize(
    ("creation_ms", "shown"),
    [(1_767_225_600_123, "\tCreationTimeMs: 2026-01-01T00:00:00.123Z"), (-1, "\tCreationTimeMs: -")],
)
def test_v1_creation_time_reaches_the_partition_line(creation_ms, shown):
    decoded = R[1].decode(_response(1, creation_ms).encode())
    (state,) = _partition_states(decoded.topics[0].partitions, 1, frozenset({1}))
    assert state.creation_time_ms == creation_ms
    result = TopicDescribeResult((_topic(state),), live_brokers=frozenset({1}))
    assert partition_line(result, result.topics[0], state).endswith("\tLastKnownElr: " + shown)


def test_v0_has_no_creation_time_field():
    decoded = R[0].decode(_response(0).encode())
    (state,) = _partition_states(decoded.topics[0].partitions, 0, frozenset({1}))
    assert state.creation_time_ms is None
    result = TopicDescribeResult((_topic(state),), live_brokers=frozenset({1}))
    assert "CreationTimeMs" not in partition_line(result, result.topics[0], state)


def test_a_leader_that_is_not_live_counts_as_none():
    decoded = R[0].decode(_response(0).encode())
    (state,) = _partition_states(decoded.topics[0].partitions, 0, frozenset({2}))
    assert state.leader == NO_LEADER


# -- arguments ------------------------------------------------------------------------------
def test_replica_assignment():
    assert parse_replica_assignment("1:2, 2:3 ,3:1,") == [[1, 2], [2, 3], [3, 1]]
    assert parse_replica_assignment("1:") == [[1]]  # Java's split drops the trailing empty id
    assert parse_replica_assignment("") == []
    assert new_partition_assignment([[1], [2], [3], [1]], 2) == [[3], [1]]
    assert new_partition_assignment([], 2) is None


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("1:1", "Partition replica lists may not contain duplicate entries: 1"),
        ("1:2,1", "Partition 1 has different replication factor: [1]"),
        ("x", 'For input string: "x"'),
        ("1::2", 'For input string: ""'),
    ],
)
def test_bad_replica_assignments(raw, message):
    with pytest.raises(TopicUsageError) as info:
        parse_replica_assignment(raw)
    assert info.value.message == message


def test_configs():
    assert parse_configs(["retention.ms = 5", "cleanup.policy=compact"]) == {
        "retention.ms": "5",
        "cleanup.policy": "compact",
    }
    for bad in ("a=b=c", "a=", "novalue"):
        with pytest.raises(TopicUsageError, match="all configs to be added must be in the format"):
            parse_configs([bad])


# -- the partition-expansion guard -------------------------------------------------------------
def test_guard_names_groups_and_the_reset_for_empty_ones():
    offsets = {
        "idle": ("Empty", [("t", 0), ("t", 1)]),
        "busy": ("Stable", [("t", 0)]),
        "elsewhere": ("Empty", [("u", 0)]),
    }
    groups = expansion_groups(offsets, {"t": (2, 4)})
    assert [(g.group, g.resettable) for g in groups] == [("busy", False), ("idle", True)]
    result = AlterResult((("t", 2, 4),), tuple(groups))
    lines = result.guard_lines(ConnectionArgs("b:9092", None, 5000, False))
    assert "busy (Stable), idle (Empty)" in lines[0]
    assert "auto.offset.reset=latest" in lines[0]
    assert lines[1].endswith(
        "kafka-consumer-groups --bootstrap-server b:9092 --group idle --reset-offsets --topic t:2,3"
        " --to-earliest --execute"
    )
    assert "busy" in lines[2]


def test_guard_is_silent_without_groups():
    assert AlterResult((("t", 2, 4),), ()).guard_lines(ConnectionArgs("b:9092", None, 5000, False)) == []
