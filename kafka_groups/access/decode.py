"""Protocol responses (kafka-python's decoded structs and confluent-kafka's results) turned into
the core dataclasses, and the protocol constants they are read with."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kafka_groups.core.kafka_errors import KafkaErrorInfo, denied, error_info
from kafka_groups.errors import ClusterError

# The value modules load where a value is made: a group list makes no group description and no
# topic state, and every command loads this module (tests/unit/test_import_budget.py).
if TYPE_CHECKING:
    from kafka_groups.core.describe import Coordinator, GroupDescription, TopicPartition
    from kafka_groups.core.streams import Assignment, StreamsGroup, Tasks
    from kafka_groups.core.topic_states import PartitionState

LIST_GROUPS_API_KEY = 16
DESCRIBE_TOPIC_PARTITIONS_API_KEY = 75
DESCRIBE_TOPIC_PARTITIONS_CREATION_TIME_VERSION = 1  # KIP-1327: CreationTimeMs per partition
DESCRIBE_PAGE = 2000  # partitions per DescribeTopicPartitions response, as the Apache tool asks
DEFAULT_CONFIG_SOURCE = 5  # DescribeConfigs ConfigSource.DEFAULT_CONFIG
CLUSTER_AUTHORIZATION_FAILED = 31
TOPIC_ALREADY_EXISTS = 36
GROUP_ID_NOT_FOUND = 69  # error codes
UNSUPPORTED_VERSION = 35
CONSUMER_GROUP_DESCRIBE_API_KEY = 69
CONSUMER_GROUP_DESCRIBE_CREATION_TIME_VERSION = 2  # KIP-1282: GroupCreationTimeMs


def _protocol_error(code: int) -> KafkaErrorInfo:
    """Error ``code`` in the Apache wording, or the protocol library's for codes we do not list."""
    from kafka.errors import for_code

    known = for_code(code)
    return error_info(code, getattr(known, "message", ""), getattr(known, "description", ""))


def _partition_states(partitions: Any, version: int, live_brokers: frozenset[int]) -> list[PartitionState]:
    """A DescribeTopicPartitions topic's partitions; the creation time only from a v1 response
    (KIP-1327). A leader that is not a live broker counts as none, as the Apache Admin client
    maps it."""
    from kafka_groups.core.topic_states import NO_LEADER, PartitionState

    with_creation = version >= DESCRIBE_TOPIC_PARTITIONS_CREATION_TIME_VERSION
    return [
        PartitionState(
            partition=p.partition_index,
            leader=p.leader_id if p.leader_id in live_brokers else NO_LEADER,
            replicas=tuple(p.replica_nodes),
            isr=tuple(p.isr_nodes),
            elr=None if p.eligible_leader_replicas is None else tuple(p.eligible_leader_replicas),
            last_known_elr=None if p.last_known_elr is None else tuple(p.last_known_elr),
            creation_time_ms=p.creation_time_ms if with_creation else None,
        )
        for p in partitions
    ]


def _config_is_default(config: Any) -> bool:
    source = getattr(config, "config_source", None)
    if source is not None and source >= 0:
        return bool(source == DEFAULT_CONFIG_SOURCE)
    return bool(getattr(config, "is_default", False))


def _group_error(group_id: str, code: int, message: str | None) -> ClusterError:
    """A group's error in a describe's answer; a refused ACL in the words confluent-kafka's
    describe is reported with (the describe of a few groups), naming what the principal lacks."""
    from kafka.errors import for_code

    hint = denied(code, {"group": f"DESCRIBE on group '{group_id}'"})
    if hint is not None:
        return ClusterError(f"describing group '{group_id}' failed: {hint}")
    error = for_code(code)
    text = message or getattr(error, "description", "") or error.__name__
    return ClusterError(f"group '{group_id}': {error.__name__}: {text}")


def _partitions(assignment: Any) -> tuple[TopicPartition, ...]:
    if assignment is None:
        return ()
    return tuple((tp.topic_name, p) for tp in assignment.topic_partitions for p in tp.partitions)


def _consumer_group(group: Any, coordinator: Coordinator, version: int) -> GroupDescription:
    from kafka_groups.core.describe import GroupDescription, Member

    members = tuple(
        Member(
            member_id=m.member_id,
            client_id=m.client_id,
            host=m.client_host,
            instance_id=m.instance_id,
            assignment=_partitions(m.assignment),
            target_assignment=_partitions(m.target_assignment),
            member_epoch=m.member_epoch,
            upgraded=None if version < 1 or m.member_type < 0 else m.member_type == 1,
        )
        for m in group.members
    )
    creation = (
        group.group_creation_time_ms if version >= CONSUMER_GROUP_DESCRIBE_CREATION_TIME_VERSION else None
    )
    return GroupDescription(
        group_id=group.group_id,
        state=group.group_state,
        type="Consumer",
        coordinator=coordinator,
        assignor=group.assignor_name,
        members=members,
        group_epoch=group.group_epoch,
        target_assignment_epoch=group.assignment_epoch,
        creation_time_ms=creation,
    )


def _tasks(entries: Any) -> Tasks:
    from kafka_groups.core.streams import Tasks

    return Tasks(tuple((t.subtopology_id, tuple(t.partitions)) for t in entries or ()))


def _assignment(assignment: Any) -> Assignment:
    from kafka_groups.core.streams import Assignment

    if assignment is None:
        return Assignment()
    return Assignment(
        _tasks(assignment.active_tasks), _tasks(assignment.standby_tasks), _tasks(assignment.warmup_tasks)
    )


def _streams_group(group: Any, coordinator: Coordinator) -> StreamsGroup:
    """A decoded StreamsGroupDescribe group. The KIP-1282 creation time is taken only when
    the decoded response has the field: never inferred from a version number."""
    from kafka_groups.core.streams import StreamsGroup, StreamsMember, Subtopology

    topology = group.topology
    return StreamsGroup(
        group_id=group.group_id,
        state=group.group_state,
        group_epoch=group.group_epoch,
        target_assignment_epoch=group.assignment_epoch,
        topology_epoch=topology.epoch,
        subtopologies=tuple(
            Subtopology(
                subtopology_id=s.subtopology_id,
                source_topics=tuple(s.source_topics),
                repartition_sink_topics=tuple(s.repartition_sink_topics),
                changelog_topics=tuple(t.name for t in s.state_changelog_topics),
                repartition_source_topics=tuple(t.name for t in s.repartition_source_topics),
            )
            for s in topology.subtopologies or ()
        ),
        members=tuple(
            StreamsMember(
                member_id=m.member_id,
                member_epoch=m.member_epoch,
                client_id=m.client_id,
                client_host=m.client_host,
                process_id=m.process_id,
                topology_epoch=m.topology_epoch,
                assignment=_assignment(m.assignment),
                target_assignment=_assignment(m.target_assignment),
                is_classic=bool(m.is_classic),
                instance_id=m.instance_id,
            )
            for m in group.members
        ),
        coordinator=coordinator,
        creation_time_ms=getattr(group, "group_creation_time_ms", None),
    )


def _classic_group(group: Any, coordinator: Coordinator) -> GroupDescription:
    import struct

    from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment

    from kafka_groups.core.describe import GroupDescription, Member

    members = []
    for m in group.members:
        assigned: tuple[TopicPartition, ...] = ()
        if m.member_assignment:
            try:
                assignment = ConsumerProtocolAssignment.decode(m.member_assignment)
            except struct.error:  # not the consumer protocol's layout: nothing to show
                assignment = None
            if assignment is not None:
                assigned = tuple((a.topic, p) for a in assignment.assigned_partitions for p in a.partitions)
        members.append(
            Member(
                member_id=m.member_id,
                client_id=m.client_id,
                host=m.client_host,
                instance_id=m.group_instance_id,
                assignment=assigned,
            )
        )
    return GroupDescription(
        group_id=group.group_id,
        state=group.group_state,
        type="Classic",
        coordinator=coordinator,
        assignor=group.protocol_data or "",
        members=tuple(members),
    )


def _confluent_states() -> dict[Any, str]:
    from confluent_kafka import ConsumerGroupState as S

    return {
        S.STABLE: "Stable",
        S.EMPTY: "Empty",
        S.PREPARING_REBALANCING: "PreparingRebalance",
        S.COMPLETING_REBALANCING: "CompletingRebalance",
        S.DEAD: "Dead",
    }
