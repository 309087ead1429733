"""What the benchmarks' set-ups share: a topic of many partitions made in steps the controller
takes, and the OffsetCommit that puts a group's offsets on one topic (the request ours sends for
a commit that fits one batch, built here with kafka-python's protocol layer: the bare reference
of bench/bare.py runs none of the tools' code). Used by bench/scale_setup.py, bench/cases.py
and bench/bare.py."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

# The controller refuses more than 10,000 records in one operation: a topic grows in steps.
GROW_STEP = 5000


def grow_topic(
    admin: Any, topic: str, partitions: int, metadata_timeout_s: float = 60, leaders_within_s: float = 600
) -> bool:
    """``topic`` with ``partitions`` partitions (replication 1; made by an earlier run is
    fine), created and then grown ``GROW_STEP`` partitions at a time with confluent-kafka's
    ``admin``; then waits up to ``leaders_within_s`` until every partition has a leader. Returns
    whether they all did."""
    from confluent_kafka.admin import NewPartitions, NewTopic

    created = admin.create_topics([NewTopic(topic, min(partitions, GROW_STEP), 1)], operation_timeout=300)
    try:
        created[topic].result(600)
    except Exception as exc:  # made by an earlier run
        if "TOPIC_ALREADY_EXISTS" not in str(exc):
            raise
    for total in range(2 * GROW_STEP, partitions + GROW_STEP, GROW_STEP):
        current = len(admin.list_topics(topic, timeout=metadata_timeout_s).topics[topic].partitions)
        if current < min(total, partitions):
            grown = admin.create_partitions(
                [NewPartitions(topic, min(total, partitions))], operation_timeout=300
            )
            grown[topic].result(600)
    deadline = time.monotonic() + leaders_within_s
    while time.monotonic() < deadline:
        described = admin.list_topics(topic, timeout=metadata_timeout_s).topics[topic].partitions
        if len(described) == partitions and all(p.leader >= 0 for p in described.values()):
            return True
        time.sleep(1)
    return False


def offset_commit_request(group: str, topic: str, offsets: Iterable[tuple[int, int]]) -> Any:
    """One OffsetCommit (at most v8) of ``(partition, offset)`` pairs of ``topic`` for ``group``,
    from outside the group (no member, no generation), as an admin client commits. Needs the
    protocol layer's message packages registered (kafka_groups.access.protocol_layer)."""
    return offsets_commit_request(group, {topic: offsets})


def offsets_commit_request(group: str, topics: Mapping[str, Iterable[tuple[int, int]]]) -> Any:
    """offset_commit_request of several topics: ``topics`` maps each to its ``(partition,
    offset)`` pairs."""
    from kafka.protocol.consumer import OffsetCommitRequest
    from kafka.protocol.consumer.group import DEFAULT_GENERATION_ID, UNKNOWN_MEMBER_ID

    topic_type = OffsetCommitRequest.OffsetCommitRequestTopic
    partition_type = topic_type.OffsetCommitRequestPartition
    return OffsetCommitRequest(
        group_id=group,
        generation_id_or_member_epoch=DEFAULT_GENERATION_ID,
        member_id=UNKNOWN_MEMBER_ID,
        group_instance_id=None,
        retention_time_ms=-1,
        topics=[
            topic_type(
                name=name,
                partitions=[
                    partition_type(
                        partition_index=p,
                        committed_offset=o,
                        committed_leader_epoch=-1,
                        committed_metadata="",
                    )
                    for p, o in pairs
                ],
            )
            for name, pairs in topics.items()
        ],
        max_version=8,
    )
