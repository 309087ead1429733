"""Offsets read: committed offsets (OffsetFetch), log start and end offsets and offsets by
timestamp (ListOffsets)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kafka_groups.access.connection import Connection
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
    error_code,
    is_retriable,
    is_sentinel,
)
from kafka_groups.core.describe import Committed, TopicPartition

if TYPE_CHECKING:
    from confluent_kafka import KafkaException

# librdkafka's ListOffsets takes time that grows with the square of the partitions in one call
# (1,000 partitions 9 ms, 10,000 partitions 483 ms on one broker): larger sets go out as calls of
# at most this many, all in flight together (10,000 partitions: 56 ms of librdkafka's time).
LIST_OFFSETS_CALL = 250
LOG = logging.getLogger(__name__)
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
        request, then ListOffsets for the partitions that have a leader (both kinds in flight
        together, in calls of ``LIST_OFFSETS_CALL`` partitions). A partition the metadata does
        not know maps to None.

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
            if leaders:
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
        """ListOffsets for the partitions of ``kinds`` still unknown, both kinds in flight
        together; what cannot be read now goes to ``failures``."""
        from confluent_kafka.admin._listoffsets import OffsetSpec

        led = sorted(tp for tps in leaders.values() for tp in tps)
        leader_of = {tp: leader for leader, tps in leaders.items() for tp in tps}
        specs = {"end": OffsetSpec.latest(), "start": OffsetSpec.earliest()}  # type: ignore[no-untyped-call]
        pending = [
            (
                kind,
                target,
                self._send_list_offsets(
                    [tp for tp in led if target.get(tp, 0) is None], specs[kind], deadline
                ),
            )
            for kind, target in kinds
        ]
        for kind, target, answers in pending:
            self._settle(
                answers(), kind, f"reading the log {kind} offset of {{}}", target, failures, leader_of
            )

    def _settle(
        self,
        answers: dict[TopicPartition, int | str | KafkaException],
        kind: str,
        doing: str,
        target: dict[TopicPartition, int | None],
        failures: dict[tuple[str, TopicPartition], str],
        leader_of: dict[TopicPartition, int] | None = None,
        no_offset: int | None = None,
    ) -> None:
        """Each answer of :meth:`_send_list_offsets` to its place: an offset into ``target``
        (``no_offset``, the answer that means there is none, as None); a reason to try again or
        a sentinel in place of an offset into ``failures``, naming the leader when ``leader_of``
        knows it; an error no attempt gets past raised, ``doing`` naming the partition."""
        from confluent_kafka import KafkaException

        def leader(key: TopicPartition) -> str:
            return f"leader broker {leader_of[key]}" if leader_of else "the leader"

        for key, offset in answers.items():
            if isinstance(offset, int):  # the common answer first: thousands of them
                if no_offset is not None and offset == no_offset:
                    target[key] = None
                elif is_sentinel(offset):
                    failures[(kind, key)] = f"{leader(key)} answered {offset} instead of an offset"
                else:
                    target[key] = offset
            elif isinstance(offset, KafkaException):
                raise self._admin_error(offset, doing.format(f"{key[0]}-{key[1]}"))
            else:
                failures[(kind, key)] = f"{leader(key)}: {offset}" if leader_of else offset

    def _send_list_offsets(
        self, partitions: list[TopicPartition], spec: Any, deadline: Deadline
    ) -> Callable[[], dict[TopicPartition, int | str | KafkaException]]:
        """Send ListOffsets through confluent-kafka, ``spec`` for every partition, in calls of at
        most ``LIST_OFFSETS_CALL`` partitions (of even size); returns the wait for the answers.
        Per partition: its offset; or, where another attempt may get it, the reason in a few
        words; or the exception that no attempt will get past.

        Each call goes to the binding's batched ListOffsets, which answers one dict per call.
        ``AdminClient.list_offsets`` wraps that same call with a Python future per partition,
        which on thousands of partitions costs more than the requests (10,000 partitions: 124 ms
        against 51 ms); it is used only where the binding does not take this form."""
        import concurrent.futures

        from confluent_kafka import KafkaError, KafkaException
        from confluent_kafka import TopicPartition as ConfluentTP

        timeout = _seconds_left(deadline)
        count = -(-len(partitions) // LIST_OFFSETS_CALL)  # the fewest calls, of even sizes
        value = spec._value  # what the binding reads as each partition's offset
        calls = []
        for index in range(count):
            call = partitions[index * len(partitions) // count : (index + 1) * len(partitions) // count]
            requested = [ConfluentTP(t, p, value) for t, p in call]
            answer: Any = concurrent.futures.Future()
            try:
                _binding_list_offsets(self._admin, requested, answer, timeout)
            except (TypeError, AttributeError, ImportError) as exc:  # a binding of another form
                LOG.debug(
                    "confluent-kafka's batched ListOffsets is not there as expected (%s): the public call",
                    exc,
                )
                answer = self._admin.list_offsets(dict.fromkeys(requested, spec), request_timeout=timeout)
            calls.append((call, answer))

        def outcome(failed: BaseException) -> str | KafkaException:
            if not isinstance(failed, KafkaException):
                raise failed
            if is_retriable(failed):
                return describe_error(failed)
            if error_code(failed) == KafkaError._NOENT:
                # librdkafka fails a whole call whose partitions all lack a leader in its
                # metadata ("No leaders found"), as after a broker stopped.
                return "no leader"
            return failed

        def answers() -> dict[TopicPartition, int | str | KafkaException]:
            found: dict[TopicPartition, int | str | KafkaException] = {}
            for call, answer in calls:
                if isinstance(answer, dict):  # the public call: a future per partition
                    for tp, future in answer.items():
                        failed = future.exception()
                        key = (tp.topic, tp.partition)
                        found[key] = outcome(failed) if failed else future.result().offset
                else:
                    try:
                        listed = answer.result()
                    except KafkaException as exc:  # the whole call failed
                        found.update(dict.fromkeys(call, outcome(exc)))
                        continue
                    for tp, info in listed.items():
                        key = (tp.topic, tp.partition)
                        found[key] = (
                            outcome(KafkaException(info)) if isinstance(info, KafkaError) else info.offset
                        )
                for key in call:
                    found.setdefault(key, "no answer for this partition")
            return found

        return answers

    def offsets_for_time(
        self, partitions: set[TopicPartition], timestamp_ms: int
    ) -> dict[TopicPartition, int | None]:
        """The first offset at or after ``timestamp_ms`` per partition; None where no record is."""
        from confluent_kafka.admin._listoffsets import OffsetSpec

        if not partitions:
            return {}
        # Before 1970 means "from the first record": negative values are ListOffsets sentinels.
        spec = OffsetSpec.for_timestamp(max(timestamp_ms, 0))  # type: ignore[no-untyped-call]
        found: dict[TopicPartition, int | None] = {}

        def attempt(deadline: Deadline) -> None:
            todo = sorted(tp for tp in partitions if tp not in found)
            failures: dict[tuple[str, TopicPartition], str] = {}
            answers = self._send_list_offsets(todo, spec, deadline)()
            self._settle(
                answers,
                "by-time",
                "looking up {} by timestamp",
                found,
                failures,
                no_offset=NO_OFFSET_FOR_TIME,
            )
            if failures:
                raise Unavailable(_offsets_missing(failures), _common_reason(failures))

        self._retrying("the offsets by timestamp", attempt)
        return found


def _binding_list_offsets(admin: Any, requested: list[Any], answer: Any, timeout: float) -> None:
    """confluent-kafka's batched ListOffsets, the call under ``AdminClient.list_offsets``: the
    requested partitions carry the spec's value as their offset, and ``answer`` gets a dict of
    partition to ListOffsetsResultInfo or KafkaError, or the KafkaException of the whole call."""
    from confluent_kafka.cimpl import _AdminClientImpl

    _AdminClientImpl.list_offsets(admin, requested, answer, request_timeout=timeout)
