"""Offsets read: committed offsets (OffsetFetch), log start and end offsets and offsets by
timestamp (ListOffsets)."""

from __future__ import annotations

from kafka_groups.access.connection import Connection
from kafka_groups.access.decode import _protocol_error
from kafka_groups.access.naming import (
    _common_reason,
    _describe_groups_acl,
    _offsets_missing,
    _seconds_left,
)
from kafka_groups.access.retry import (
    Deadline,
    Unavailable,
    describe_error,
    is_retriable,
    is_sentinel,
    retriable_code,
)
from kafka_groups.core.describe import Committed, TopicPartition
from kafka_groups.errors import ClusterError

# Above this many partitions, log offsets are read through the protocol layer (see log_offsets).
PROTOCOL_LAYER_THRESHOLD = 2000
NO_OFFSET_FOR_TIME = -1  # ListOffsets by timestamp: no record at or after it


class OffsetsAccess(Connection):
    def committed_offsets(self, group_ids: list[str]) -> dict[str, dict[TopicPartition, Committed]]:
        """Every committed offset of each group (OffsetFetch, one request per coordinator)."""
        return {
            group: {tp: Committed(offset, epoch) for tp, (offset, epoch, _) in offsets.items()}
            for group, offsets in self._fetched_offsets(group_ids).items()
        }

    def committed_with_metadata(self, group_id: str) -> dict[TopicPartition, tuple[int, str]]:
        """The group's committed offsets with the metadata string each was committed with."""
        fetched = self._fetched_offsets([group_id]).get(group_id, {})
        return {tp: (offset, metadata) for tp, (offset, _, metadata) in fetched.items()}

    def _fetched_offsets(
        self, group_ids: list[str]
    ) -> dict[str, dict[TopicPartition, tuple[int, int | None, str]]]:
        """OffsetFetch for the groups through the protocol layer: the partitions that hold a
        committed offset, as (offset, leader epoch, metadata).

        Never through confluent-kafka: librdkafka's ListConsumerGroupOffsets dereferences a
        consumer-group handle an admin client does not have when the coordinator answers
        NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE (librdkafka issue #5040), which a new
        cluster's or a moving coordinator does, and the whole process dies of a segmentation
        fault. The protocol layer retries those answers like any other."""
        if not group_ids:
            return {}
        raw = self._via_protocol(
            "fetching committed offsets",
            self._protocol.list_group_offsets,
            dict.fromkeys(group_ids),
            needs=_describe_groups_acl(group_ids),
            on_retry=lambda _missing: self._forget_coordinators(group_ids),
        )
        return {
            group: {
                (tp.topic, tp.partition): (
                    om.offset,
                    om.leader_epoch if om.leader_epoch is not None and om.leader_epoch >= 0 else None,
                    # librdkafka's AlterConsumerGroupOffsets stores the metadata string with its
                    # C terminator; the string the writer gave is what is meant.
                    (om.metadata or "").removesuffix("\x00"),
                )
                for tp, om in offsets.items()
                if om.offset >= 0
            }
            for group, offsets in raw.items()
        }

    def log_offsets(
        self, partitions: set[TopicPartition], earliest: bool = False, latest: bool = True
    ) -> tuple[dict[TopicPartition, int | None], dict[TopicPartition, int | None]]:
        """Log end offsets (``latest``) and log start offsets (``earliest``): one Metadata
        request, then ListOffsets for the partitions that have a leader (one request per
        leader and kind). A partition the metadata does not know maps to None.

        A partition that exists but whose offset cannot be read now (no leader, a leader that
        does not answer or is no longer the leader, a sentinel such as -1001 in place of an
        offset) is asked again, after fresh metadata, until ``--timeout``; then the error
        names the partitions. A sentinel is never returned as an offset."""
        ends: dict[TopicPartition, int | None] = dict.fromkeys(partitions) if latest else {}
        starts: dict[TopicPartition, int | None] = dict.fromkeys(partitions) if earliest else {}
        if not partitions or not (earliest or latest):
            return ends, starts
        absent: set[TopicPartition] = set()
        kinds = [("end", ends)] if latest else []
        kinds += [("start", starts)] if earliest else []

        def attempt(deadline: Deadline) -> None:
            todo = {tp for _, target in kinds for tp, offset in target.items() if offset is None} - absent
            if not todo:
                return
            leaders, leaderless, unknown = self._leadership(todo)
            absent.update(unknown)
            failures: dict[tuple[str, TopicPartition], str] = {
                (kind, tp): "no leader" for kind, target in kinds for tp in leaderless if tp in target
            }
            if leaders and len(partitions) > PROTOCOL_LAYER_THRESHOLD:
                # confluent-kafka makes a Python future per partition, which costs more than the
                # requests themselves on thousands of partitions; the protocol layer decodes the
                # per-leader responses directly.
                self._via_protocol(
                    "listing partition offsets",
                    self._run,
                    self._log_offsets,
                    leaders,
                    [(kind, target) for kind, target in kinds],
                    failures,
                    retry=False,
                )
            elif leaders:
                self._list_offsets(leaders, kinds, failures, deadline)
            if failures:
                raise Unavailable(_offsets_missing(failures), _common_reason(failures))

        self._retrying("the log offsets", attempt)
        return ends, starts

    def _list_offsets(
        self,
        leaders: dict[int, list[TopicPartition]],
        kinds: list[tuple[str, dict[TopicPartition, int | None]]],
        failures: dict[tuple[str, TopicPartition], str],
        deadline: Deadline,
    ) -> None:
        """ListOffsets through confluent-kafka for the partitions of ``kinds`` still unknown;
        what cannot be read now goes to ``failures``."""
        from confluent_kafka import KafkaException
        from confluent_kafka import TopicPartition as ConfluentTP
        from confluent_kafka.admin._listoffsets import OffsetSpec

        led = sorted(tp for tps in leaders.values() for tp in tps)
        leader_of = {tp: leader for leader, tps in leaders.items() for tp in tps}
        specs = {"end": OffsetSpec.latest(), "start": OffsetSpec.earliest()}  # type: ignore[no-untyped-call]
        pending = [
            (
                kind,
                target,
                self._admin.list_offsets(
                    {ConfluentTP(t, p): specs[kind] for t, p in led if target.get((t, p), 0) is None},
                    request_timeout=_seconds_left(deadline),
                ),
            )
            for kind, target in kinds
        ]
        for kind, target, futures in pending:
            for tp, future in futures.items():
                key = (tp.topic, tp.partition)
                try:
                    offset = future.result().offset
                except KafkaException as exc:
                    if not is_retriable(exc):
                        raise self._admin_error(
                            exc, f"reading the log {kind} offset of {tp.topic}-{tp.partition}"
                        ) from None
                    failures[(kind, key)] = f"leader broker {leader_of[key]}: {describe_error(exc)}"
                    continue
                if is_sentinel(offset):
                    failures[(kind, key)] = (
                        f"leader broker {leader_of[key]} answered {offset} instead of an offset"
                    )
                else:
                    target[key] = offset

    def offsets_for_time(
        self, partitions: set[TopicPartition], timestamp_ms: int
    ) -> dict[TopicPartition, int | None]:
        """The first offset at or after ``timestamp_ms`` per partition; None where no record is."""
        from confluent_kafka import KafkaException
        from confluent_kafka import TopicPartition as ConfluentTP
        from confluent_kafka.admin._listoffsets import OffsetSpec

        if not partitions:
            return {}
        # Before 1970 means "from the first record": negative values are ListOffsets sentinels.
        spec = OffsetSpec.for_timestamp(max(timestamp_ms, 0))  # type: ignore[no-untyped-call]
        found: dict[TopicPartition, int | None] = {}

        def attempt(deadline: Deadline) -> None:
            todo = sorted(tp for tp in partitions if tp not in found)
            futures = self._admin.list_offsets(
                {ConfluentTP(t, p): spec for t, p in todo}, request_timeout=_seconds_left(deadline)
            )
            failures: dict[tuple[str, TopicPartition], str] = {}
            for tp, future in futures.items():
                key = (tp.topic, tp.partition)
                try:
                    offset = future.result().offset
                except KafkaException as exc:
                    if not is_retriable(exc):
                        raise self._admin_error(
                            exc, f"looking up {tp.topic}-{tp.partition} by timestamp"
                        ) from None
                    failures[("by-time", key)] = describe_error(exc)
                    continue
                if offset == NO_OFFSET_FOR_TIME:  # no record at or after the time
                    found[key] = None
                elif is_sentinel(offset):
                    failures[("by-time", key)] = f"the leader answered {offset} instead of an offset"
                else:
                    found[key] = offset
            if failures:
                raise Unavailable(_offsets_missing(failures), _common_reason(failures))

        self._retrying("the offsets by timestamp", attempt)
        return found

    async def _log_offsets(
        self,
        leaders: dict[int, list[TopicPartition]],
        kinds: list[tuple[str, dict[TopicPartition, int | None]]],
        failures: dict[tuple[str, TopicPartition], str],
    ) -> None:
        """Fill the targets of ``kinds`` (log "end" / "start" offsets) with one ListOffsets per
        leader and kind, all in flight together; what cannot be read now goes to ``failures``."""
        from kafka.admin import OffsetSpec
        from kafka.structs import TopicPartition as KafkaTP

        client = self._protocol
        specs = {"end": OffsetSpec.LATEST, "start": OffsetSpec.EARLIEST}
        pending = []
        for leader, tps in leaders.items():
            for kind, target in kinds:
                wanted = {KafkaTP(t, p): specs[kind] for t, p in tps if target.get((t, p), 0) is None}
                if wanted:
                    request = client._list_partition_offsets_request(wanted, 0)
                    pending.append((leader, tps, kind, target, client._manager.send(request, node_id=leader)))
        for leader, tps, kind, target, future in pending:
            try:
                response = await self._answer(future, f"leader {leader}")
            except Unavailable as exc:
                failures.update(
                    {(kind, tp): f"leader broker {leader}: {exc.reason}" for tp in tps if tp in target}
                )
                continue
            for topic in response.topics:
                for p in topic.partitions:
                    key = (topic.name, p.partition_index)
                    if p.error_code == 0 and not is_sentinel(p.offset):
                        target[key] = p.offset
                    elif p.error_code == 0 or retriable_code(p.error_code):
                        failures[(kind, key)] = (
                            f"leader broker {leader}: {_protocol_error(p.error_code).name}"
                        )
                    else:
                        reason = _protocol_error(p.error_code).message
                        name = f"{topic.name}-{p.partition_index}"
                        raise ClusterError(f"reading the log {kind} offset of {name} failed: {reason}")
