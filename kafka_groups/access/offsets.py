"""Offsets read: committed offsets (OffsetFetch), log start and end offsets and offsets by
timestamp (ListOffsets)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from kafka_groups.access.connection import Connection
from kafka_groups.access.naming import (
    _common_reason,
    _coordinator_of,
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

if TYPE_CHECKING:
    from confluent_kafka import KafkaException

    from kafka_groups.access.group_answers import OffsetRow
    from kafka_groups.access.offset_fetch import FetchedGroup
    from kafka_groups.core.describe import Committed, TopicPartition

# librdkafka's ListOffsets takes time that grows with the square of the partitions in one call
# (1,000 partitions 9 ms, 10,000 partitions 483 ms on one broker): larger sets go out as calls of
# at most this many, all in flight together (10,000 partitions: 56 ms of librdkafka's time).
LIST_OFFSETS_CALL = 250
LOG = logging.getLogger(__name__)
POSITIONS_GROUPS = 50  # groups per OffsetFetch of committed_positions
NO_OFFSET_FOR_TIME = -1  # ListOffsets by timestamp: no record at or after it
_LEADER = "\x00leader\x00"  # in a failure's words until _explain names the partition's leader
# A partition or topic librdkafka's metadata does not have: librdkafka's own _UNKNOWN_PARTITION
# and _UNKNOWN_TOPIC, and the broker's UNKNOWN_TOPIC_OR_PART.
UNKNOWN_TO_CLIENT = frozenset({-190, -188, 3})


def _committed(fetched: dict[str, list[OffsetRow]]) -> dict[str, Mapping[TopicPartition, Committed]]:
    """Each group's committed offsets (none below zero) with their leader epochs."""
    from kafka_groups.core.describe import Committed

    # The named tuple made directly (its constructor costs three times as much): one per
    # committed partition of every group.
    new = tuple.__new__
    return {
        group: {
            (topic, partition): new(Committed, (offset, epoch if epoch >= 0 else None))
            for topic, partition, offset, epoch, _metadata, _error in rows
            if offset >= 0
        }
        for group, rows in fetched.items()
    }


def _rows_of(topics: Any) -> list[OffsetRow]:
    """The partitions of kafka-python's OffsetFetch topics (before v8) as rows of ours."""
    return [
        (
            t.name,
            p.partition_index,
            p.committed_offset,
            -1 if p.committed_leader_epoch is None else p.committed_leader_epoch,
            p.metadata,
            p.error_code,
        )
        for t in topics
        for p in t.partitions
    ]


class OffsetsAccess(Connection):
    def committed_offsets(self, group_ids: list[str]) -> dict[str, Mapping[TopicPartition, Committed]]:
        """Every committed offset of each group, with its leader epoch (OffsetFetch, one
        request per coordinator, its answer decoded into arrays by access/offset_fetch.py): a
        dict per group, or for a group of more than ``describe_committed.COMPACT_ABOVE``
        partitions a compact table that reads as one (core/describe_committed.py)."""
        from kafka_groups.core.describe_committed import committed_of

        if not group_ids:
            return {}
        found: dict[str, Mapping[TopicPartition, Committed]] = {}

        def take(answer: FetchedGroup, _total: int) -> Mapping[TopicPartition, Committed]:
            return committed_of([(t.name, t.partitions, t.offsets, t.epochs) for t in answer.topics])

        read = lambda ids: self._fetch_arrays(ids, None, take)  # noqa: E731
        for answer in self._read_groups("fetching committed offsets", read, group_ids):
            found.update(answer)
        return found

    def committed_positions(self, group_ids: list[str]) -> dict[str, Mapping[TopicPartition, int]]:
        """Every committed offset of each group, the offsets alone: what a reset plans, backs
        up, checks again before its commit and reads back (10,000 partitions, three times).
        Thousands of partitions in all come as compact tables (core/offset_table.py), each
        answer turned into them as it arrives, in requests of at most ``POSITIONS_GROUPS``
        groups: the decoded answers of 200,000 partitions never exist at once. Many groups are
        read in batches, each under a deadline of its own (:meth:`_read_groups`)."""
        from kafka_groups.core.offset_table import OffsetTable
        from kafka_groups.core.reset import COMPACT_ABOVE

        if not group_ids:
            return {}
        found: dict[str, Mapping[TopicPartition, int]] = {}

        def take(answer: FetchedGroup, total: int) -> Mapping[TopicPartition, int]:
            return answer.table() if total > COMPACT_ABOVE else answer.offsets()

        read = lambda ids: self._fetch_arrays(ids, POSITIONS_GROUPS, take)  # noqa: E731
        for answer in self._read_groups("fetching committed offsets", read, group_ids):
            found.update(answer)
        if len(found) > 1 and sum(len(held) for held in found.values()) > COMPACT_ABOVE:
            # the groups of a batch read while its total was small, compact too
            found = {g: OffsetTable.of(held).settle() for g, held in found.items()}
        return found

    async def _fetch_arrays(
        self,
        group_ids: list[str],
        per_request: int | None,
        take: Callable[[FetchedGroup, int], Any],
        metadata: bool = False,
    ) -> dict[str, Any]:
        """OffsetFetch of the groups' offsets, one request per ``per_request`` groups of a
        coordinator (None: all of them), the coordinators' n-th requests in flight together;
        each answer is decoded into arrays (access/offset_fetch.py), each group's turned into
        what ``take(group, partitions read so far)`` makes of it, and dropped. An error the
        group or a partition answers with is raised as its ``KafkaError``, as the layer's own
        ``list_group_offsets`` raises it. ``metadata``: the answers' metadata strings decoded
        too.

        Never through confluent-kafka: librdkafka's ListConsumerGroupOffsets dereferences a
        consumer-group handle an admin client does not have when the coordinator answers
        NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE (librdkafka issue #5040), which a new
        cluster's or a moving coordinator does, and the whole process dies of a segmentation
        fault. The protocol layer retries those answers like any other. Many groups are read in
        batches, each under a deadline of its own (:meth:`_read_groups`)."""
        from kafka.errors import for_code

        from kafka_groups.access.offset_fetch import offset_fetch

        client = self._protocol
        by_coordinator: dict[int, list[str]] = {}
        for group_id, node in (await client.coordinators(group_ids)).items():
            by_coordinator.setdefault(node, []).append(group_id)
        found: dict[str, Any] = {}
        total = 0
        step = per_request or max(len(group_ids), 1)
        queues = [
            (
                node,
                [
                    ask
                    for i in range(0, len(ids), step)
                    for ask in client.offset_fetch_requests(ids[i : i + step])
                ],
            )
            for node, ids in by_coordinator.items()
        ]
        for turn in range(max((len(asks) for _, asks in queues), default=0)):
            sent = [
                (asks[turn][0], client.manager.send(offset_fetch(asks[turn][1], metadata), node_id=node))
                for node, asks in queues
                if turn < len(asks)
            ]
            for asked, future in sent:
                # decoded straight into arrays (access/offset_fetch.py), not the layer's objects
                response = await self._answer(
                    future, _coordinator_of([asked] if asked is not None else group_ids)
                )
                if response.error_code:
                    raise for_code(response.error_code)(f"OffsetFetchResponse failed for group '{asked}'.")
                for answer in response.groups:
                    group_id = answer.group_id if answer.group_id is not None else asked
                    if answer.error_code:
                        raise for_code(answer.error_code)(
                            f"OffsetFetchResponse failed for group '{group_id}'."
                        )
                    failed = answer.first_error()
                    if failed is not None:
                        raise for_code(failed[2])(f"OffsetFetchResponse failed for partition {failed[1]}")
                    total += answer.partition_count()
                    found[group_id] = take(answer, total)
                del response
        return found

    def committed_with_metadata(self, group_id: str) -> dict[TopicPartition, tuple[int, str]]:
        """The group's committed offsets with the metadata string each was committed with
        (access/offset_fetch.py's decoder, with its metadata)."""

        def take(answer: FetchedGroup, _total: int) -> dict[TopicPartition, tuple[int, str]]:
            # librdkafka's AlterConsumerGroupOffsets stores the metadata string with its C
            # terminator; the string the writer gave is what is meant.
            return {
                (t.name, partition): (offset, (text or "").removesuffix("\x00"))
                for t in answer.topics
                for partition, offset, text in zip(
                    t.partitions, t.offsets, t.metadata or [None] * len(t.partitions), strict=True
                )
                if offset >= 0
            }

        read = lambda ids: self._fetch_arrays(ids, None, take, metadata=True)  # noqa: E731
        found: dict[TopicPartition, tuple[int, str]] = {}
        for answer in self._read_groups("fetching committed offsets", read, [group_id]):
            found.update(answer.get(group_id, {}))
        return found

    async def _offset_fetch(self, group_ids: list[str]) -> dict[str, list[OffsetRow]]:
        """The many-group describe's read (``KafkaAccess.described_with_offsets``): per group,
        the partitions of its answer as rows (access/group_answers.py: topic, partition,
        committed offset, leader epoch, metadata, error code). One OffsetFetch per coordinator
        (per group on brokers before OffsetFetch v8), built by the protocol layer; an error the
        group or a partition answers with is raised as its ``KafkaError``, as the layer's own
        ``list_group_offsets`` raises it. The answers of many groups are decoded by ours
        (access/group_answers.py), a group's answer before v8 by kafka-python's, into the same
        rows."""
        from kafka.errors import for_code

        from kafka_groups.access.group_answers import answered

        client = self._protocol
        by_coordinator: dict[int, list[str]] = {}
        for group_id, node in (await client.coordinators(group_ids)).items():
            by_coordinator.setdefault(node, []).append(group_id)
        fetched: dict[str, list[OffsetRow]] = {}
        # One request per coordinator (Kafka 3.0+), all in flight together; before OffsetFetch
        # v8 one per group, the coordinators' n-th requests together (a connection takes a few).
        queues = [
            (
                node,
                ids,
                [
                    (g, ask if g is not None else answered(ask))
                    for g, ask in client.offset_fetch_requests(ids)
                ],
            )
            for node, ids in by_coordinator.items()
        ]
        for turn in range(max((len(asks) for _, _, asks in queues), default=0)):
            sent = [
                (asks[turn][0], ids, client.manager.send(asks[turn][1], node_id=node))
                for node, ids, asks in queues
                if turn < len(asks)
            ]
            for asked, ids, future in sent:
                waited_for = _coordinator_of([asked] if asked is not None else ids)
                response = await self._answer(future, waited_for)
                if asked is not None:  # one group's answer, before v8 (kafka-python's objects)
                    if response.error_code:
                        raise for_code(response.error_code)(
                            f"OffsetFetchResponse failed for group '{asked}'."
                        )
                    groups = [(asked, 0, _rows_of(response.topics))]
                else:
                    groups = response.groups
                for group_id, group_error, rows in groups:
                    if group_error:
                        raise for_code(group_error)(f"OffsetFetchResponse failed for group '{group_id}'.")
                    failed = next((row for row in rows if row[5]), None)
                    if failed is not None:
                        raise for_code(failed[5])(f"OffsetFetchResponse failed for partition {failed[1]}")
                    fetched[group_id] = rows
        return fetched

    def log_offsets(
        self, partitions: set[TopicPartition], earliest: bool = False, latest: bool = True
    ) -> tuple[dict[TopicPartition, int | None], dict[TopicPartition, int | None]]:
        """Log end offsets (``latest``) and log start offsets (``earliest``): ListOffsets, both
        kinds in flight together, in calls of ``LIST_OFFSETS_CALL`` partitions (librdkafka finds
        the leaders). Only what cannot be read is looked up in the cluster metadata: a
        partition the metadata does not know maps to None.

        A partition that exists but whose offset cannot be read now (no leader, a leader that
        does not answer or is no longer the leader, a sentinel such as -1001 in place of an
        offset) is asked again, after fresh metadata, until ``--timeout``; then the error
        names the partitions and their leaders. A sentinel is never returned as an offset."""
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
            failures: dict[tuple[str, TopicPartition], str | KafkaException] = {}
            self._list_offsets(sorted(todo), kinds, failures, deadline)
            if failures:
                self._explain(failures, absent)
            if failures:  # what the metadata does not know has left them
                raise self._failure(failures, lambda kind, name: f"reading the log {kind} offset of {name}")

        self._retrying("the log offsets", attempt)
        return ends, starts

    def _list_offsets(
        self,
        todo: list[TopicPartition],
        kinds: list[tuple[str, dict[TopicPartition, int | None]]],
        failures: dict[tuple[str, TopicPartition], str | KafkaException],
        deadline: Deadline,
    ) -> None:
        """ListOffsets for the partitions of ``kinds`` still unknown, both kinds in flight
        together; what cannot be read goes to ``failures`` (:meth:`_settle`), to be explained.

        librdkafka looks each call's leaders up in its metadata and asks the cluster, once per
        call, for the topics it does not know yet: when several calls are to go out for
        topics this connection has read no metadata of, one partition of each topic goes first
        and alone, so that the other calls find them known."""
        from confluent_kafka.admin._listoffsets import OffsetSpec

        specs = {"end": OffsetSpec.latest(), "start": OffsetSpec.earliest()}  # type: ignore[no-untyped-call]
        wanted = {kind: [tp for tp in todo if target.get(tp, 0) is None] for kind, target in kinds}
        if sum(-(-len(tps) // LIST_OFFSETS_CALL) for tps in wanted.values()) > 1:
            kind, target = kinds[0]
            firsts = {tp[0]: tp for tp in reversed(wanted[kind]) if not self._knows(tp[0])}
            if firsts:
                first = self._send_list_offsets(sorted(firsts.values()), specs[kind], deadline)()
                self._settle(first, kind, target, failures, name_leader=True)
                wanted[kind] = [tp for tp in wanted[kind] if tp not in first]
        pending = [
            (kind, target, self._send_list_offsets(wanted[kind], specs[kind], deadline))
            for kind, target in kinds
            if wanted[kind]
        ]
        for kind, target, answers in pending:
            self._settle(answers(), kind, target, failures, name_leader=True)

    def _explain(
        self, failures: dict[tuple[str, TopicPartition], str | KafkaException], absent: set[TopicPartition]
    ) -> None:
        """The partitions whose offsets could not be read, looked up in the cluster metadata:
        those it does not know leave ``failures`` for ``absent`` (whatever ListOffsets said of
        them); the others are named with their leader, or as having none."""
        leaders, leaderless, unknown = self._leadership({tp for _, tp in failures})
        absent.update(unknown)
        leader_of = {tp: leader for leader, tps in leaders.items() for tp in tps}
        without = set(leaderless)
        for key, reason in list(failures.items()):
            tp = key[1]
            if tp in absent:
                del failures[key]
            elif tp in without:
                failures[key] = "no leader"
            elif isinstance(reason, str):
                failures[key] = reason.replace(_LEADER, f"leader broker {leader_of[tp]}")

    def _settle(
        self,
        answers: dict[TopicPartition, int | str | KafkaException],
        kind: str,
        target: dict[TopicPartition, int | None],
        failures: dict[tuple[str, TopicPartition], str | KafkaException],
        name_leader: bool = False,
        no_offset: int | None = None,
    ) -> None:
        """Each answer of :meth:`_send_list_offsets` to its place: an offset into ``target``
        (``no_offset``, the answer that means there is none, as None); a reason to try again, a
        sentinel in place of an offset, or an error no attempt gets past into ``failures``
        (``name_leader``: the reasons worded for :meth:`_explain` to name the leader)."""
        leader = _LEADER if name_leader else "the leader"
        for key, offset in answers.items():
            if isinstance(offset, int):  # the common answer first: thousands of them
                if no_offset is not None and offset == no_offset:
                    target[key] = None
                elif is_sentinel(offset):
                    failures[(kind, key)] = f"{leader} answered {offset} instead of an offset"
                else:
                    target[key] = offset
            elif isinstance(offset, str):
                failures[(kind, key)] = f"{leader}: {offset}" if name_leader else offset
            else:
                failures[(kind, key)] = offset

    def _failure(
        self,
        failures: dict[tuple[str, TopicPartition], str | KafkaException],
        doing: Callable[[str, str], str],
    ) -> Exception:
        """What an attempt that left ``failures`` raises: the first error no attempt gets past
        (``doing(kind, "topic-partition")`` words what failed), else ``Unavailable`` naming what
        is missing and why, for another attempt."""
        for (kind, (topic, partition)), failed in sorted(failures.items()):
            if not isinstance(failed, str):
                return self._admin_error(failed, doing(kind, f"{topic}-{partition}"))
        reasons = {key: str(failed) for key, failed in failures.items()}
        return Unavailable(_offsets_missing(reasons), _common_reason(reasons))

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
            if error_code(failed) in UNKNOWN_TO_CLIENT:
                # Not in librdkafka's metadata: gone, or added since it last read it (the
                # cluster metadata read to explain the failure brings it up to date).
                return "not in the client's metadata"
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
            failures: dict[tuple[str, TopicPartition], str | KafkaException] = {}
            answers = self._send_list_offsets(todo, spec, deadline)()
            self._settle(answers, "by-time", found, failures, no_offset=NO_OFFSET_FOR_TIME)
            if failures:
                raise self._failure(failures, lambda _kind, name: f"looking up {name} by timestamp")

        self._retrying("the offsets by timestamp", attempt)
        return found


def _binding_list_offsets(admin: Any, requested: list[Any], answer: Any, timeout: float) -> None:
    """confluent-kafka's batched ListOffsets, the call under ``AdminClient.list_offsets``: the
    requested partitions carry the spec's value as their offset, and ``answer`` gets a dict of
    partition to ListOffsetsResultInfo or KafkaError, or the KafkaException of the whole call."""
    from confluent_kafka.cimpl import _AdminClientImpl

    _AdminClientImpl.list_offsets(admin, requested, answer, request_timeout=timeout)
