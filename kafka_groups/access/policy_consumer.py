"""A confluent-kafka consumer that starts each partition where an offset-reset policy says.

It sets ``auto.offset.reset=error`` so that librdkafka never picks an offset by itself:

- on assignment (classic groups, eager or cooperative, and consumer-protocol groups alike), every
  assigned partition is given an explicit start: its committed offset when that is inside the
  log, otherwise the policy's choice;
- when a fetch position falls out of the log while consuming (the log was truncated under it),
  the ``_AUTO_OFFSET_RESET`` error is consumed here and the partition is sought to the policy's
  choice for an invalid offset.

When this consumer creates its group (no committed offsets, no recorded start), it records the
group's start time once (:class:`~kafka_groups.access.registry.CreationRegistry`), which
``to_start_time`` uses on brokers that do not record group creation times.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kafka_groups.access.cluster import KafkaAccess
from kafka_groups.access.policy_io import (
    gather_facts,
    group_resolver,
    now_ms,
    partition_ages,
    resolve_offsets,
)
from kafka_groups.access.registry import CreationRegistry
from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.policy import Policy, Resolver
from kafka_groups.settings import ConnectionSettings

LOG = logging.getLogger("kafka_groups.policy")
_AUTO_OFFSET_RESET = -140  # librdkafka RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET


@dataclass(frozen=True)
class Decision:
    """Where one partition was started, and why (``committed`` or the policy's reason)."""

    topic: str
    partition: int
    offset: int
    reason: str


Callback = Callable[[Any, list[Any]], None]


class PolicyConsumer:
    """Wraps ``confluent_kafka.Consumer``; every other method is the consumer's own.

    ``config`` is the consumer's librdkafka configuration (``group.id`` required). ``settings``
    are the connection settings for the reads the policy needs (committed offsets, log bounds,
    creation times); by default they are the consumer's bootstrap servers in plaintext."""

    def __init__(self, config: dict[str, Any], policy: Policy, settings: ConnectionSettings | None = None):
        from confluent_kafka import Consumer

        if "group.id" not in config:
            raise ValueError("PolicyConsumer needs a group.id")
        self.group = str(config["group.id"])
        self.policy = policy
        self.settings = settings or ConnectionSettings(str(config["bootstrap.servers"]), 10_000)
        self._incremental = str(config.get("group.protocol", "classic")).lower() == "consumer" or (
            "cooperative" in str(config.get("partition.assignment.strategy", ""))
        )
        self._consumer = Consumer({**config, "auto.offset.reset": "error"})
        self._access = KafkaAccess(self.settings)
        self._registry = CreationRegistry(self.settings)
        self._resolver: Resolver | None = None
        # The next offset each partition fetches: what an out-of-range error is about
        # (librdkafka no longer reports a position once the fetch failed).
        self._positions: dict[TopicPartition, int] = {}
        self.decisions: list[Decision] = []

    # -- the group's start time --------------------------------------------------------------
    def _group_resolver(self) -> Resolver:
        if self._resolver is None:
            has_offsets = bool(self._access.committed_offsets([self.group]).get(self.group))
            self._resolver = group_resolver(
                self._access, self._registry, self.policy, self.group, has_offsets
            )
        return self._resolver

    @property
    def group_start_ms(self) -> int | None:
        return self._group_resolver().group_start_ms

    # -- subscription ------------------------------------------------------------------------
    def subscribe(
        self,
        topics: Sequence[str],
        on_assign: Callback | None = None,
        on_revoke: Callback | None = None,
        on_lost: Callback | None = None,
    ) -> None:
        self._group_resolver()  # records the start before the group's first commit can exist

        def assigned(consumer: Any, partitions: list[Any]) -> None:
            self._start_partitions(partitions)
            if self._incremental:
                consumer.incremental_assign(partitions)
            else:
                consumer.assign(partitions)
            if on_assign is not None:
                on_assign(consumer, partitions)

        extra: dict[str, Callback] = {}
        if on_revoke is not None:
            extra["on_revoke"] = on_revoke
        if on_lost is not None:
            extra["on_lost"] = on_lost
        self._consumer.subscribe(list(topics), on_assign=assigned, **extra)

    def _start_partitions(self, partitions: list[Any]) -> None:
        if not partitions:
            return
        wanted = {(p.topic, p.partition) for p in partitions}
        committed = self._access.committed_offsets([self.group]).get(self.group, {})
        offsets = self._resolve(wanted, {tp: c.offset for tp, c in committed.items() if tp in wanted})
        for p in partitions:
            p.offset = offsets[(p.topic, p.partition)]
        self._positions.update(offsets)

    def _resolve(
        self, wanted: set[TopicPartition], positions: dict[TopicPartition, int]
    ) -> dict[TopicPartition, int]:
        resolver = self._group_resolver()
        self._access.forget_metadata()  # new partitions must be visible
        created = (
            partition_ages(self._access, self._registry, {t for t, _ in wanted})
            if self.policy.needs_partition_age
            else None
        )
        facts = gather_facts(self._access, positions, wanted, created)
        offsets, targets = resolve_offsets(self._access, resolver, facts, now_ms())
        for tp in sorted(wanted):
            decision = Decision(tp[0], tp[1], offsets[tp], targets[tp].reason)
            self.decisions.append(decision)
            if decision.reason != "committed":
                LOG.info(
                    "group %s: %s-%d starts at %d (%s)",
                    self.group,
                    tp[0],
                    tp[1],
                    offsets[tp],
                    decision.reason,
                )
        return offsets

    # -- consuming ---------------------------------------------------------------------------
    def poll(self, timeout: float = -1) -> Any:
        """``Consumer.poll``; an out-of-range position is handled here (None is returned)."""
        message = self._consumer.poll(timeout)
        if message is None or self._out_of_range(message):
            return None
        self._delivered(message)
        return message

    def consume(self, num_messages: int = 1, timeout: float = -1) -> list[Any]:
        messages = [m for m in self._consumer.consume(num_messages, timeout) if not self._out_of_range(m)]
        for message in messages:
            self._delivered(message)
        return messages

    def seek(self, partition: Any) -> None:
        self._consumer.seek(partition)
        self._positions[(partition.topic, partition.partition)] = partition.offset

    def _delivered(self, message: Any) -> None:
        if message.error() is None:
            tp = (message.topic(), message.partition())
            self._positions[tp] = message.offset() + 1
            if self._resolver is not None:
                self._resolver.forget(tp)

    def _out_of_range(self, message: Any) -> bool:
        from confluent_kafka import TopicPartition as ConfluentTP

        error = message.error()
        if error is None or error.code() != _AUTO_OFFSET_RESET:
            return False
        tp = (message.topic(), message.partition())
        position = self._positions.get(tp)
        offsets = self._resolve({tp}, {tp: position} if position is not None else {})
        self._positions[tp] = offsets[tp]
        # The fetcher stopped on the error and refuses a seek, so the partition is assigned again.
        restart = ConfluentTP(tp[0], tp[1], offsets[tp])
        if self._incremental:
            self._consumer.incremental_unassign([ConfluentTP(*tp)])
            self._consumer.incremental_assign([restart])
        else:
            others = [p for p in self._consumer.assignment() if (p.topic, p.partition) != tp]
            positions = self._consumer.position(others) if others else []
            self._consumer.assign([*positions, restart])
        return True

    def close(self) -> None:
        try:
            self._consumer.close()
        finally:
            self._access.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._consumer, name)
