"""Offsets written: OffsetCommit (a reset, a pipeline's commit) and OffsetDelete (KIP-496)."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kafka_groups.access.connection import Connection
from kafka_groups.access.decode import _protocol_error
from kafka_groups.access.naming import _commit_acl, _coordinator_of, _error_text
from kafka_groups.access.retry import Deadline, NotAvailableInTime, Unavailable, is_sentinel
from kafka_groups.core.kafka_errors import RETRIABLE_COORDINATOR_ERRORS, KafkaErrorInfo, denied
from kafka_groups.errors import ClusterError

if TYPE_CHECKING:
    from kafka_groups.core.describe import TopicPartition

# A commit of more partitions than this goes through the protocol layer (``many``): librdkafka's
# AlterConsumerGroupOffsets takes time that grows with the square of the partitions (1,000
# partitions 5 ms, 10,000 partitions 224 ms on one broker, against 83 ms for the protocol
# layer's one OffsetCommit), and a commit is not split: one request, so no half-applied reset.
COMMIT_THROUGH_PROTOCOL_ABOVE = 2000
# An OffsetCommit refused with these wrote nothing: the coordinator is loading, gone or moved.
COORDINATOR_MOVING = frozenset({14, 15, 16})


class CommitsAccess(Connection):
    def alter_offsets(
        self,
        plans: Mapping[str, Mapping[TopicPartition, int]],
        many: bool = False,
        metadata: dict[TopicPartition, str] | None = None,
    ) -> dict[str, str | None]:
        """Commit new offsets for each (inactive) group; the requests go out together.
        Returns, per group, None on success or the broker's error. ``many``: thousands of
        partitions, sent through the protocol layer (one OffsetCommit per group).
        ``metadata``: the metadata string to commit with each partition's offset."""
        for group, offsets in plans.items():  # a sentinel reaching here is a bug: send nothing
            bad = sorted((tp, o) for tp, o in offsets.items() if is_sentinel(o))
            if bad:
                (topic, partition), offset = bad[0]
                raise ClusterError(
                    f"not committing {offset} for {topic}-{partition} of group '{group}': it is not an "
                    "offset (nothing was written)"
                )
        notes = metadata or {}
        if many:
            return self._alter_offsets_protocol(plans, notes)
        from confluent_kafka import (
            ConsumerGroupTopicPartitions,
            KafkaException,
        )
        from confluent_kafka import (
            TopicPartition as ConfluentTP,
        )

        outcome: dict[str, str | None] = {}

        def attempt(deadline: Deadline) -> None:
            # Groups whose coordinator is loading or moving refused the commit (nothing was
            # written): only those are sent again. A lost answer is not retried here; the write
            # guard reads the offsets back instead.
            waiting = {g: o for g, o in plans.items() if o and outcome.get(g, "") is not None}
            pending = {
                group: self._admin.alter_consumer_group_offsets(
                    [
                        ConsumerGroupTopicPartitions(
                            group,
                            [
                                ConfluentTP(t, p, o, notes[(t, p)])
                                if (t, p) in notes
                                else ConfluentTP(t, p, o)
                                for (t, p), o in offsets.items()
                            ],
                        )
                    ],
                    request_timeout=max(0.1, deadline.remaining_s()),
                )[group]
                for group, offsets in waiting.items()
            }
            moving = []
            for group, future in pending.items():
                try:
                    result = future.result()
                    errors = [tp for tp in result.topic_partitions if tp.error is not None]
                    if errors:
                        first = errors[0]
                        if first.error.code() in COORDINATOR_MOVING:
                            moving.append(group)
                        needs = _commit_acl(group, first.topic)
                        reason = denied(first.error.code(), needs) or first.error.str()
                        outcome[group] = f"{first.topic}-{first.partition}: {reason}"
                    else:
                        outcome[group] = None
                except KafkaException as exc:
                    outcome[group] = _error_text(exc, _commit_acl(group, None))
            if moving:
                raise Unavailable(_coordinator_of(moving), "it refused the commit while moving or loading")

        with contextlib.suppress(NotAvailableInTime):  # then each group's last refusal stands
            self._retrying("the offset commit", attempt)
        return outcome

    def commit_offsets(self, group_id: str, offsets: dict[TopicPartition, tuple[int, str]]) -> None:
        """Commit (offset, metadata) per partition for a group without members; a partition
        that does not take its offset is an error."""
        if not offsets:
            return
        plan = {tp: offset for tp, (offset, _) in offsets.items()}
        notes = {tp: note for tp, (_, note) in offsets.items()}
        failure = self.alter_offsets({group_id: plan}, metadata=notes).get(group_id)
        if failure:
            raise ClusterError(f"committing the offsets of '{group_id}' failed: {failure}")

    def _alter_offsets_protocol(
        self, plans: Mapping[str, Mapping[TopicPartition, int]], notes: dict[TopicPartition, str]
    ) -> dict[str, str | None]:
        from kafka.errors import KafkaError, for_code

        outcome: dict[str, str | None] = {}
        for group, offsets in plans.items():
            if not offsets:
                continue
            try:
                failed = self._run(self._offset_commit, group, offsets, notes)
            except KafkaError as exc:
                outcome[group] = denied(getattr(exc, "errno", None), _commit_acl(group, None)) or str(exc)
                continue
            if failed is None:
                outcome[group] = None
            else:
                (topic, partition), code = failed
                reason = denied(code, _commit_acl(group, topic)) or for_code(code).__name__
                outcome[group] = f"{topic}-{partition}: {reason}"
        return outcome

    async def _offset_commit(
        self, group: str, offsets: Mapping[TopicPartition, int], notes: dict[TopicPartition, str]
    ) -> tuple[TopicPartition, int] | None:
        """One OffsetCommit of the group's offsets to its coordinator, as a client outside the
        group sends it (no generation, no member), built straight from the plan; the first
        partition the broker refused, with its error code, or None."""
        from kafka.protocol.consumer import OffsetCommitRequest
        from kafka.protocol.consumer.group import DEFAULT_GENERATION_ID, UNKNOWN_MEMBER_ID

        topic_type = OffsetCommitRequest.OffsetCommitRequestTopic
        partition_type = topic_type.OffsetCommitRequestPartition
        by_topic: dict[str, list[Any]] = {}
        for (topic, partition), offset in offsets.items():
            by_topic.setdefault(topic, []).append(
                partition_type(
                    partition_index=partition,
                    committed_offset=offset,
                    committed_leader_epoch=-1,
                    committed_metadata=notes.get((topic, partition), ""),
                )
            )
        request = OffsetCommitRequest(
            group_id=group,
            generation_id_or_member_epoch=DEFAULT_GENERATION_ID,
            member_id=UNKNOWN_MEMBER_ID,
            group_instance_id=None,
            retention_time_ms=-1,
            topics=[topic_type(name=name, partitions=parts) for name, parts in by_topic.items()],
            max_version=8,  # the last version before KIP-848's member epochs
        )
        client = self._protocol
        coordinator = (await client.coordinators([group]))[group]
        response = await client.manager.send(request, node_id=coordinator)
        for topic_answer in response.topics:
            for p in topic_answer.partitions:
                if p.error_code:
                    return (topic_answer.name, p.partition_index), p.error_code
        return None

    def delete_offsets(
        self, group_id: str, partitions: list[TopicPartition]
    ) -> tuple[KafkaErrorInfo | None, dict[TopicPartition, KafkaErrorInfo | None]]:
        """OffsetDelete (KIP-496): the group-level error and each partition's (None: deleted).
        A group-level error is every partition's error, as the Apache Admin client reports it.

        The request goes out even with no partitions (the group-level answer still tells
        whether the group exists), as the Apache Admin client sends it."""
        top, codes = self._via_protocol(
            "deleting offsets",
            self._run,
            self._delete_offsets,
            group_id,
            partitions,
            retry=False,
            on_retry=lambda _missing: self._forget_coordinators([group_id]),
        )
        if top:
            return _protocol_error(top), dict.fromkeys(partitions, _protocol_error(top))
        return None, {tp: _protocol_error(code) if code else None for tp, code in codes.items()}

    async def _delete_offsets(
        self, group_id: str, partitions: list[TopicPartition]
    ) -> tuple[int, dict[TopicPartition, int]]:
        from kafka.structs import TopicPartition as KafkaTP

        client = self._protocol
        request = client.admin._delete_group_offsets_request(group_id, [KafkaTP(t, p) for t, p in partitions])
        coordinator = (await self._coordinators_of([group_id]))[group_id]
        response = await client.manager.send(request, node_id=coordinator)
        if response.error_code in RETRIABLE_COORDINATOR_ERRORS:  # refused, not written: try again
            raise Unavailable(_coordinator_of([group_id]), _protocol_error(response.error_code).name)
        if response.error_code:
            return response.error_code, {}
        codes = {
            (topic.name, p.partition_index): p.error_code
            for topic in response.topics
            for p in topic.partitions
        }
        return 0, {tp: codes.get(tp, 0) for tp in partitions}
