"""The durable creation-time records of the offset-reset policies, kept in Kafka.

Two compacted topics (one partition each, ``message.timestamp.type=LogAppendTime``, so every
recorded time is the broker's clock, not a client's) keep what today's brokers do not:

- :data:`GROUP_START_TOPIC`, keyed by group id: the time the project's consumer helper or
  pipeline first created the group (the anchor of ``to_start_time``, KIP-1282). Recorded once,
  never recomputed: a restart reads it back. The first record for a group wins; later writers
  confirm its time, so compaction can only ever keep that time.
- :data:`PARTITION_CREATION_TOPIC`, keyed by ``topic:partition``: when ``kafka-topics --create``
  or ``--alter --partitions`` created the partition (the age ``latest`` with a max age needs,
  KIP-1327), with the topic id, so a topic deleted and created again elsewhere has no age.

Where the broker reports these times itself (ConsumerGroupDescribe v2, DescribeTopicPartitions
v1), the broker wins. A third compacted topic, :data:`GROUP_POLICY_TOPIC`, keeps each group's
last policy for kafka-topics' partition-expansion guard.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kafka_groups.access import clients
from kafka_groups.access.config import librdkafka_config
from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.policy import Policy
from kafka_groups.errors import ClusterError
from kafka_groups.settings import ConnectionSettings

GROUP_START_TOPIC = "_kgt_group_start_times"
# Keyed by group id, the last record wins: the policy the group's consumer helper or pipeline
# last started with, and whether it starts new partitions at their beginning (kafka-topics'
# partition-expansion guard reads it).
GROUP_POLICY_TOPIC = "_kgt_group_policies"
PARTITION_CREATION_TOPIC = "_kgt_partition_creation_times"
_READER_GROUP = "kafka-group-tools-registry-reader"  # assign() only: it never joins or commits
_TOPIC_CONFIG = {"cleanup.policy": "compact", "message.timestamp.type": "LogAppendTime"}
_TOPIC_ALREADY_EXISTS = 36


@dataclass(frozen=True)
class _Record:
    key: str
    value: dict[str, Any]
    timestamp_ms: int
    offset: int


@dataclass(frozen=True)
class _Log:
    records: list[_Record]
    end: int  # the offset the next record gets
    exists: bool


class CreationRegistry:
    """Reads and writes the two creation-time topics of one cluster."""

    def __init__(self, settings: ConnectionSettings) -> None:
        self.settings = settings
        self._group_log: _Log | None = None

    def _config(self) -> dict[str, Any]:
        config = librdkafka_config(self.settings)
        config["logger"] = logging.getLogger("kafka_groups.librdkafka")
        return config

    def _ensure_topic(self, name: str) -> None:
        """Create ``name`` (one partition, compacted) unless it exists. Its replication factor is
        the broker's default (-1, KIP-464); brokers before 2.4 (CreateTopics before v4) refuse
        that, and librdkafka says so before sending anything, from the ApiVersions it holds: those
        get three replicas, or one per broker of a smaller cluster."""
        from confluent_kafka import KafkaError, KafkaException
        from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

        held = [AdminClient(self._config())]
        timeout = self.settings.timeout_s
        try:
            replicas = -1
            while True:
                topic = NewTopic(name, num_partitions=1, replication_factor=replicas, config=_TOPIC_CONFIG)
                try:
                    held[0].create_topics([topic], request_timeout=timeout)[name].result()
                    return
                except KafkaException as exc:
                    error = exc.args[0]
                    if error.code() == _TOPIC_ALREADY_EXISTS:
                        return
                    kip464 = error.code() == KafkaError._UNSUPPORTED_FEATURE and "KIP-464" in error.str()
                    if replicas != -1 or not kip464:
                        raise ClusterError(f"creating {name} failed: {error.str()}") from None
                    brokers = held[0].list_topics(timeout=timeout).brokers
                    replicas = max(1, min(3, len(brokers)))
        finally:
            clients.retire(held.pop())
            clients.sweep()

    def _write(self, topic: str, records: Iterable[tuple[str, dict[str, Any]]]) -> list[tuple[int, int]]:
        """Produce and wait; (offset, broker timestamp) of each record, in order. The records go
        out in one batch, so they share the broker's timestamp (partitions created by one
        command have one creation time): none is sent before the flush, which sends at once."""
        from confluent_kafka import Producer

        producer = Producer({**self._config(), "acks": "all", "linger.ms": 60000})
        failures: list[str] = []
        written: list[tuple[int, int]] = []

        def delivered(err: Any, msg: Any) -> None:
            if err is not None:
                failures.append(err.str())
            else:
                written.append((msg.offset(), msg.timestamp()[1]))

        for key, value in records:
            producer.produce(topic, key=key.encode(), value=json.dumps(value).encode(), on_delivery=delivered)
        left = producer.flush(self.settings.timeout_s)
        if left or failures:
            raise ClusterError(f"writing to {topic} failed: {failures[0] if failures else 'timed out'}")
        return written

    def _read(self, topic: str, start: int | None = None, until: int | None = None) -> _Log:
        """The topic's records from ``start`` (default: the log start) to its end, or to
        ``until`` (inclusive), oldest first."""
        from confluent_kafka import Consumer, KafkaException
        from confluent_kafka import TopicPartition as ConfluentTP

        settings = {"group.id": _READER_GROUP, "enable.auto.commit": False, "enable.partition.eof": True}
        consumer = Consumer({**self._config(), **settings})
        try:
            found = consumer.list_topics(topic, timeout=self.settings.timeout_s).topics.get(topic)
            if found is None or found.error is not None:
                return _Log([], 0, exists=False)
            tp = ConfluentTP(topic, 0)
            try:
                low, high = consumer.get_watermark_offsets(tp, timeout=self.settings.timeout_s)
            except KafkaException as exc:
                raise ClusterError(f"reading {topic} failed: {exc.args[0].str()}") from None
            first = low if start is None else max(start, low)
            last = high - 1 if until is None else min(until, high - 1)
            records: list[_Record] = []
            if last < first:
                return _Log(records, high, exists=True)
            consumer.assign([ConfluentTP(topic, 0, first)])
            deadline = time.monotonic() + self.settings.timeout_s
            while time.monotonic() < deadline:
                message = consumer.poll(max(deadline - time.monotonic(), 0.01))
                if message is None:
                    continue
                error = message.error()
                if error is not None:
                    if error.code() == -191:  # _PARTITION_EOF
                        return _Log(records, high, exists=True)
                    raise ClusterError(f"reading {topic} failed: {error.str()}")
                key, value, offset = message.key(), message.value(), message.offset()
                if key is not None and value is not None and offset is not None:  # tombstones carry nothing
                    records.append(_Record(key.decode(), json.loads(value), message.timestamp()[1], offset))
                if offset is not None and offset >= last:
                    return _Log(records, high, exists=True)
            raise ClusterError(f"reading {topic} timed out after {self.settings.timeout_ms} ms")
        finally:
            consumer.close()

    # -- group start times (KIP-1282 anchors) ---------------------------------------------
    def group_start_time(self, group: str) -> int | None:
        self._group_log = self._read(GROUP_START_TOPIC)
        return _first_start(self._group_log.records, group)

    def group_start_times(self, groups: Iterable[str]) -> dict[str, int]:
        """The recorded start of each of ``groups`` that has one, from one read of the topic."""
        self._group_log = self._read(GROUP_START_TOPIC)
        found = {g: _first_start(self._group_log.records, g) for g in set(groups)}
        return {g: t for g, t in found.items() if t is not None}

    def record_group_start(self, group: str) -> int:
        """The group's start time, recording it now (the broker's clock) when none is yet."""
        log = self._group_log if self._group_log is not None else self._read(GROUP_START_TOPIC)
        existing = _first_start(log.records, group)
        if existing is not None:
            return existing
        if not log.exists:
            self._ensure_topic(GROUP_START_TOPIC)
        [(offset, timestamp)] = self._write(GROUP_START_TOPIC, [(group, {"group": group})])
        if offset == log.end:  # nothing was written since the read: this record is the first
            return timestamp
        # Another writer may have claimed the group in between: the first record wins, and its
        # time is confirmed under the same key so that compaction can only keep that time.
        between = self._read(GROUP_START_TOPIC, start=log.end, until=offset)
        anchored = _first_start(between.records, group)
        anchored = timestamp if anchored is None else anchored
        if anchored != timestamp:
            self._write(GROUP_START_TOPIC, [(group, {"group": group, "start_time_ms": anchored})])
        return anchored

    # -- the policy each group last started with ----------------------------------------
    def record_group_policy(self, group: str, policy: Policy) -> None:
        """Record ``policy`` as the group's, unless it is already its last record."""
        from kafka_pipeline.plan import policy_starts_new_partitions_at_beginning

        value = {
            "group": group,
            "policy": str(policy),
            "new_partitions_from_start": policy_starts_new_partitions_at_beginning(policy),
        }
        log = self._read(GROUP_POLICY_TOPIC)
        last = [r.value for r in log.records if r.key == group][-1:]
        if last == [value]:
            return
        if not log.exists:
            self._ensure_topic(GROUP_POLICY_TOPIC)
        self._write(GROUP_POLICY_TOPIC, [(group, value)])

    def policies_starting_new_partitions_at_beginning(self, groups: Iterable[str]) -> dict[str, str]:
        """Of ``groups``, those whose last recorded policy starts new partitions at their
        beginning: group -> the policy."""
        wanted = set(groups)
        last: dict[str, dict[str, Any]] = {}
        for record in self._read(GROUP_POLICY_TOPIC).records:
            if record.key in wanted:
                last[record.key] = record.value
        return {
            g: str(v.get("policy")) for g, v in last.items() if v.get("new_partitions_from_start") is True
        }

    def recorded_policies(self, groups: Iterable[str]) -> dict[str, tuple[str, bool]]:
        """The last recorded policy of each of ``groups`` that has one: group -> (the policy,
        whether it starts new partitions at their beginning)."""
        wanted = set(groups)
        last = {r.key: r.value for r in self._read(GROUP_POLICY_TOPIC).records if r.key in wanted}
        return {
            g: (str(v.get("policy")), v.get("new_partitions_from_start") is True) for g, v in last.items()
        }

    # -- partition creation times (KIP-1327) ----------------------------------------------
    def record_partitions(self, created: Mapping[str, tuple[str, Iterable[int]]]) -> None:
        """topic -> (topic id, the partitions just created), all in one write."""
        self._ensure_topic(PARTITION_CREATION_TOPIC)
        self._write(
            PARTITION_CREATION_TOPIC,
            [
                (f"{topic}:{p}", {"topic": topic, "partition": p, "topic_id": topic_id})
                for topic, (topic_id, partitions) in created.items()
                for p in partitions
            ],
        )

    def partition_creation_times(self, topic_ids: Mapping[str, str]) -> dict[TopicPartition, int]:
        """topic -> its current id in; (topic, partition) -> creation time out, for the
        partitions recorded under that same topic id."""
        found: dict[TopicPartition, int] = {}
        for record in self._read(PARTITION_CREATION_TOPIC).records:
            topic = str(record.value.get("topic"))
            if topic in topic_ids and record.value.get("topic_id") == topic_ids[topic]:
                found[(topic, int(record.value["partition"]))] = record.timestamp_ms
        return found


def _first_start(records: list[_Record], group: str) -> int | None:
    for record in records:
        if record.key == group:
            confirmed = record.value.get("start_time_ms")
            return int(confirmed) if confirmed is not None else record.timestamp_ms
    return None
