"""What bench/scale_setup.py reads and writes of a topic of many partitions, sent through
kafka-python's protocol layer with the project's own decoders, every request of a step in flight
together: the leaders (DescribeTopicPartitions in pages of 2,000, decoded into arrays by
kafka_groups/access/partition_answers.py), the log end offsets (ListOffsets to each leader,
5,000 partitions a request, same module), one record on each partition that has none (one
Produce request per leader and 5,000 partitions; the record batch is the same bytes for every
partition), and a group's committed offsets (OffsetFetch, decoded by
kafka_groups/access/offset_fetch.py).

librdkafka did the same for the set-up before: at 100,000 partitions its ListOffsets, its
producer and its metadata (Python objects for every partition) took most of the set-up's 16
minutes. The pure planning (which partitions each leader gets, in which requests; which
partitions still need a record or a commit) is unit-tested in tests/unit/test_scale_wire.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

LEADERS_PAGE = 2000  # the broker's max.request.partition.size.limit (default)
LIST_OFFSETS_CHUNK = 5000
PRODUCE_CHUNK = 5000
LATEST = -1  # ListOffsets' timestamp for the log end offset
UNKNOWN_TOPIC_OR_PARTITION = 3


# --- planning (pure) ---


def by_leader(leaders: Mapping[int, int], partitions: Iterable[int]) -> dict[int, list[int]]:
    """The ``partitions`` per leader (in partition order), from ``leaders`` (partition -> leader
    id; a partition without one, -1 or absent, is left out: the caller reads the leaders again)."""
    grouped: dict[int, list[int]] = {}
    for p in sorted(set(partitions)):
        leader = leaders.get(p, -1)
        if leader >= 0:
            grouped.setdefault(leader, []).append(p)
    return grouped


def requests_per_leader(grouped: Mapping[int, list[int]], size: int) -> list[tuple[int, list[int]]]:
    """(leader, partitions) of each request: each leader's partitions in runs of at most ``size``."""
    if size < 1:
        raise ValueError("a request holds at least one partition")
    return [
        (leader, partitions[start : start + size])
        for leader, partitions in sorted(grouped.items())
        for start in range(0, len(partitions), size)
    ]


def page_starts(partitions: int, page: int = LEADERS_PAGE) -> list[int]:
    """The first partition of each page of a topic's ``partitions`` (at least one page)."""
    return list(range(0, max(partitions, 1), page))


def below(values: Mapping[int, int], least: int) -> list[int]:
    """The partitions whose known value is under ``least``, in order."""
    return sorted(p for p, v in values.items() if v < least)


def unknown(values: Mapping[int, int], partitions: int) -> list[int]:
    """Partitions 0..``partitions``-1 without a value."""
    return [p for p in range(partitions) if p not in values]


def differing(committed: Mapping[int, int], partitions: int, offset: int) -> list[int]:
    """Partitions 0..``partitions``-1 whose committed offset is not ``offset`` (or none)."""
    return [p for p in range(partitions) if committed.get(p) != offset]


# --- the wire (a ProtocolClient of kafka_groups/access/protocol_layer.py) ---


def client(bootstrap: str, in_flight: int = 201) -> Any:
    from kafka_groups.access import protocol_layer

    protocol_layer.prepare_messages()
    return protocol_layer.ProtocolClient(
        {
            "bootstrap_servers": bootstrap.split(","),
            "client_id": "bench-scale-setup",
            "max_in_flight_requests_per_connection": in_flight,
            "request_timeout_ms": 300_000,
        }
    )


def leaders(protocol: Any, topic: str, partitions: int) -> dict[int, int] | None:
    """Partition -> leader id (-1: none) of ``topic``, read in pages of ``LEADERS_PAGE`` (every
    page asked at once, each from its own cursor); None when the topic does not exist."""
    return protocol.manager.run(_leaders, protocol, topic, partitions)  # type: ignore[no-any-return]


async def _leaders(protocol: Any, topic: str, partitions: int) -> dict[int, int] | None:
    from kafka_groups.access.messages import DescribeTopicPartitionsRequest
    from kafka_groups.access.partition_answers import topic_leaders

    request_type = DescribeTopicPartitionsRequest
    pending = []
    for start in page_starts(partitions):
        cursor = request_type.Cursor(topic_name=topic, partition_index=start) if start else None
        request = request_type(
            topics=[request_type.TopicRequest(name=topic)],
            response_partition_limit=LEADERS_PAGE,
            cursor=cursor,
        )
        pending.append(protocol.manager.send(topic_leaders(request)))
    found: dict[int, int] = {}
    for future in pending:
        page = await future
        for answered in page.topics:
            if answered.error_code == UNKNOWN_TOPIC_OR_PARTITION:
                return None
            if answered.error_code:
                raise RuntimeError(f"{topic}: DescribeTopicPartitions answered error {answered.error_code}")
            found.update(zip(answered.partitions, answered.leaders, strict=True))
    return found  # partitions beyond ``partitions``, if any, are not asked for


def log_ends(protocol: Any, topic: str, leader_of: Mapping[int, int]) -> dict[int, int]:
    """Partition -> log end offset of every partition with a leader (those answered with an
    error are left out: the caller asks again)."""
    return protocol.manager.run(_log_ends, protocol, topic, leader_of)  # type: ignore[no-any-return]


async def _version(protocol: Any, node: int, request: Any) -> int:
    connection = protocol.manager.get_connection(node)
    await connection
    return int(connection.broker_version_data.api_version(request))


async def _log_ends(protocol: Any, topic: str, leader_of: Mapping[int, int]) -> dict[int, int]:
    from kafka.protocol.consumer.offsets import ListOffsetsRequest

    from kafka_groups.access.partition_answers import list_offsets

    grouped = by_leader(leader_of, leader_of)
    versions = {}
    for leader in grouped:
        probe = ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[], min_version=1)
        versions[leader] = await _version(protocol, leader, probe)
    pending = []
    for leader, part in requests_per_leader(grouped, LIST_OFFSETS_CHUNK):
        request = ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[], min_version=1)
        request.API_VERSION = versions[leader]
        sent = list_offsets(request, {topic: part}, LATEST)
        pending.append(protocol.manager.send(sent, node_id=leader))
    ends: dict[int, int] = {}
    for future in pending:
        answer = await future
        for answered in answer.topics:
            for p, code, offset in zip(
                answered.partitions, answered.error_codes, answered.offsets, strict=True
            ):
                if code == 0 and offset >= 0:
                    ends[p] = offset
    return ends


def record_batch(value: bytes = b"x") -> bytes:
    """One record batch (magic 2, no key, producer id none) of one record: a batch names no
    partition, so the same bytes go to every partition."""
    from kafka.record.default_records import DefaultRecordBatchBuilder

    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=0,
        is_transactional=False,
        producer_id=-1,
        producer_epoch=-1,
        base_sequence=-1,
        batch_size=1 << 20,
    )
    builder.append(0, timestamp=int(time.time() * 1000), key=None, value=value, headers=[])
    return bytes(builder.build())


def produce_one(protocol: Any, topic: str, leader_of: Mapping[int, int], partitions: list[int]) -> list[int]:
    """One record on each of ``partitions`` (acks from the leader); returns those refused or
    without a leader, for the caller to read the leaders again and retry."""
    return protocol.manager.run(_produce_one, protocol, topic, leader_of, partitions)  # type: ignore[no-any-return]


async def _produce_one(
    protocol: Any, topic: str, leader_of: Mapping[int, int], partitions: list[int]
) -> list[int]:
    from kafka.protocol.producer import ProduceRequest

    topic_type = ProduceRequest.TopicProduceData
    partition_type = topic_type.PartitionProduceData
    batch = record_batch()
    grouped = by_leader(leader_of, partitions)
    refused = sorted(set(partitions) - {p for ps in grouped.values() for p in ps})
    pending = []
    for leader, part in requests_per_leader(grouped, PRODUCE_CHUNK):
        request = ProduceRequest(
            transactional_id=None,
            acks=1,
            timeout_ms=120_000,
            topic_data=[
                topic_type(name=topic, partition_data=[partition_type(index=p, records=batch) for p in part])
            ],
            min_version=3,
            max_version=9,  # topics by name (v13 names them by id)
        )
        pending.append((part, protocol.manager.send(request, node_id=leader)))
    for part, future in pending:
        try:
            answer = await future
        except Exception:  # the leader did not answer: all of these again
            refused.extend(part)
            continue
        accepted = {p.index for t in answer.responses for p in t.partition_responses if p.error_code == 0}
        refused.extend(p for p in part if p not in accepted)
    return sorted(refused)


def committed(protocol: Any, group: str, topic: str) -> dict[int, int] | None:
    """Partition -> committed offset of ``group`` on ``topic`` (one OffsetFetch of the group's
    every partition, decoded into arrays); None while its coordinator cannot answer (loading,
    moved): the caller asks again."""
    return protocol.manager.run(_committed, protocol, group, topic)  # type: ignore[no-any-return]


async def _committed(protocol: Any, group: str, topic: str) -> dict[int, int] | None:
    from kafka.errors import KafkaError

    from kafka_groups.access.offset_fetch import offset_fetch

    try:
        coordinator = (await protocol.coordinators([group]))[group]
        [(_, request)] = protocol.offset_fetch_requests([group])
        answer = await protocol.manager.send(offset_fetch(request), node_id=coordinator)
    except KafkaError:
        protocol.manager.cluster._coordinators.clear()
        return None
    if answer.error_code or any(g.error_code for g in answer.groups):
        protocol.manager.cluster._coordinators.clear()
        return None
    found: dict[int, int] = {}
    for fetched in answer.groups:
        for t in fetched.topics:
            if t.name == topic:
                found.update((p, o) for p, o in zip(t.partitions, t.offsets, strict=True) if o >= 0)
    return found
