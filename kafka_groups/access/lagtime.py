"""Lag in time, the Kafka side: the timestamp of the next record a group will read on each
partition, from one small Fetch per leader broker (protocol layer), never a consumer per
partition.

Each partition is fetched from its committed offset with a small ``partition_max_bytes``
(:data:`FIRST_BYTES`): the broker answers with the record batch holding that offset. Records
before the offset in that batch are skipped; where compaction removed the offset, the next
record is taken; transaction markers (control batches) are skipped. A batch larger than the
first read comes back cut short: its header says how long it is, and a second Fetch for just
those partitions asks for exactly that (up to :data:`MOST_BYTES`, past which the batch's own
timestamps stand in: its first for CreateTime, its maximum for LogAppendTime).

``isolation_level`` is read-uncommitted, as the lag itself is: the log end offset the
describe views (and the Apache tool) show is the high watermark, not the last stable offset.
A read-committed Fetch would stop at the last stable offset and find nothing on a partition
held back by an open transaction, which is where an operator most needs the age; a record of
an aborted transaction still marks how far back in time the group's position is.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.lagtime import NextRecord

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess

FIRST_BYTES = 2048  # per partition in the first Fetch: small batches come back whole
MOST_BYTES = 8 * 1024 * 1024  # the most asked for one partition's batch in the second Fetch
RESPONSE_BYTES = 64 * 1024 * 1024  # the most one Fetch response may carry
READ_UNCOMMITTED = 0
_HEADER = struct.Struct(
    ">qiibihiqq"
)  # base offset, length, epoch, magic, crc, attributes, last delta, first ts, max ts
_CONTROL = 0x20
_LOG_APPEND_TIME = 0x08


@dataclass(frozen=True)
class Cut:
    """The batch holding the offset came back cut short: fetch again with ``size`` bytes."""

    offset: int
    size: int
    fallback: NextRecord | None  # the batch header's timestamp, when a batch cannot be read whole


def next_record_in(data: bytes, offset: int) -> NextRecord | Cut | None:
    """The first data record at or after ``offset`` in a Fetch response's record bytes; a
    :class:`Cut` when the batch holding it is incomplete; None when the bytes hold none
    (nothing to read yet, or only transaction markers)."""
    from kafka.record import MemoryRecords

    records = MemoryRecords(bytes(data))
    while records.has_next():
        batch = records.next_batch()
        if batch.magic < 2:  # the old message formats: no control batches, records carry their time
            for record in batch:
                if record.offset >= offset and record.timestamp is not None:
                    return NextRecord(record.offset, record.timestamp, record.timestamp_type == 1)
            continue
        if batch.last_offset < offset or batch.is_control_batch:
            continue
        log_append = batch.timestamp_type == 1
        for record in batch:
            if record.offset >= offset:
                return NextRecord(record.offset, record.timestamp, log_append)
    rest = len(data) - records.valid_bytes()
    if rest >= _HEADER.size:
        return _cut(memoryview(data)[len(data) - rest :], offset)
    return None


def _cut(header: Any, offset: int) -> Cut | None:
    base, length, _epoch, magic, _crc, attributes, last_delta, first_ts, max_ts = _HEADER.unpack_from(header)
    if magic < 2 or attributes & _CONTROL:
        return Cut(max(offset, base + last_delta + 1), FIRST_BYTES, None) if magic >= 2 else None
    log_append = bool(attributes & _LOG_APPEND_TIME)
    stamp = max_ts if log_append else first_ts
    return Cut(offset, length + 12, NextRecord(max(base, offset), stamp, log_append))


def next_record_timestamps(
    access: KafkaAccess,
    committed: Mapping[TopicPartition, int],
    layout: Mapping[str, Mapping[int, int]] | None = None,
) -> dict[TopicPartition, NextRecord | None]:
    """The next record (offset and timestamp) each group will read from its committed offsets:
    ``committed`` maps a partition to the offset to read from; pass only the partitions with
    lag. One Fetch per leader broker, all in flight together (then one more per broker for
    batches larger than the first read). None where no record was found (no leader, a broker
    error, nothing at or after the offset). ``layout``: each topic's partition -> leader id,
    when read already (else librdkafka's metadata names the leaders)."""
    found: dict[TopicPartition, NextRecord | None] = dict.fromkeys(committed)
    if not committed:
        return found
    if layout is None:
        leaders, _leaderless, _unknown = access._leadership(set(committed))
    else:
        leaders = {}
        for tp in sorted(committed):
            leader = layout.get(tp[0], {}).get(tp[1], -1)
            if leader >= 0:
                leaders.setdefault(leader, []).append(tp)
    wanted = {leader: {tp: (committed[tp], FIRST_BYTES) for tp in tps} for leader, tps in leaders.items()}
    for _round in range(3):
        if not wanted:
            break
        answers = access._via_protocol(
            "reading the next records' timestamps", access._run, _fetch_all, access, wanted
        )
        again: dict[int, dict[TopicPartition, tuple[int, int]]] = {}
        for leader, by_tp in answers.items():
            for tp, result in by_tp.items():
                if isinstance(result, Cut):
                    asked = wanted[leader][tp][1]
                    if result.size <= asked or result.size > MOST_BYTES or _round == 2:
                        found[tp] = result.fallback
                    else:
                        again.setdefault(leader, {})[tp] = (result.offset, result.size)
                else:
                    found[tp] = result
        wanted = again
    return found


async def _fetch_all(
    access: KafkaAccess, wanted: dict[int, dict[TopicPartition, tuple[int, int]]]
) -> dict[int, dict[TopicPartition, NextRecord | Cut | None]]:
    from kafka.errors import KafkaError
    from kafka.protocol.consumer import FetchRequest

    manager = access._protocol.manager
    pending = []
    for leader, partitions in wanted.items():
        by_topic: dict[str, list[Any]] = {}
        for (topic, partition), (offset, size) in sorted(partitions.items()):
            by_topic.setdefault(topic, []).append(
                FetchRequest.FetchTopic.FetchPartition(
                    partition=partition,
                    current_leader_epoch=-1,
                    fetch_offset=offset,
                    last_fetched_epoch=-1,
                    log_start_offset=-1,
                    partition_max_bytes=size,
                )
            )
        request = FetchRequest(
            replica_id=-1,
            max_wait_ms=0,
            min_bytes=0,
            max_bytes=RESPONSE_BYTES,
            isolation_level=READ_UNCOMMITTED,
            session_id=0,
            session_epoch=-1,
            topics=[FetchRequest.FetchTopic(topic=t, partitions=ps) for t, ps in by_topic.items()],
            forgotten_topics_data=[],
            rack_id="",
            min_version=4,
            max_version=12,  # topic names (v13 on: topic ids)
        )
        pending.append((leader, partitions, manager.send(request, node_id=leader)))
    answers: dict[int, dict[TopicPartition, NextRecord | Cut | None]] = {}
    for leader, partitions, future in pending:
        got: dict[TopicPartition, NextRecord | Cut | None] = dict.fromkeys(partitions)
        answers[leader] = got
        try:
            response = await future
        except KafkaError:
            continue  # best effort: these partitions' lag in time stays unknown
        for topic in response.responses:
            for p in topic.partitions:
                key = (topic.topic, p.partition_index)
                if key in partitions and p.error_code == 0 and p.records:
                    got[key] = next_record_in(p.records, partitions[key][0])
    return answers
