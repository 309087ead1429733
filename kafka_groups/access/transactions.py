"""Offsets committed in a transaction: the path of a reset too large for one OffsetCommit.

The group coordinator writes one OffsetCommit as one record batch of ``__consumer_offsets``,
and a batch over the topic's ``max.message.bytes`` is refused whole. A transaction lifts that
limit and keeps the reset all-or-nothing: its offsets go out as several TxnOffsetCommit
requests (each one batch, so each within the limit), stay invisible to ordinary readers while
the transaction is open (a stable read answers UNSTABLE_OFFSET_COMMIT for them), and become
visible together when EndTxn commits it, or never when it is aborted or times out.

What was measured on Kafka 4.3.1 (``__consumer_offsets`` limited to 20,000 bytes):

- A TxnOffsetCommit larger than one batch fails for every partition with UNKNOWN_SERVER_ERROR,
  and EndTxn then commits the transaction without an error and without those offsets: every
  chunk's answer is checked here, and the transaction is aborted at the first refusal.
- An aborted transaction leaves the offsets as they were. One that outlives its timeout is
  aborted by the cluster (a 1 s timeout: within about 3 s); its producer's EndTxn then fails
  with PRODUCER_FENCED. One whose producer was killed stays open until its timeout, unless an
  InitProducerId with the same transactional id fences it: the cluster then aborts it at once
  (0.4 s) and the new producer goes on.
- The broker takes a transactional commit from a client outside the group (generation -1)
  even while the group has members, classic and consumer protocol alike: the caller checks the
  group is still Empty right before the commit.

The transactional id is derived from the group (:func:`transactional_id`), so the next reset of
a group fences a transaction that a killed run left open. The requests go through kafka-python's
protocol layer, as the TxnOffsetCommit of a Java producer would: confluent-kafka's transactional
producer would need a consumer of the group for its metadata and a second client and login.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any

from kafka_groups.access.connection import Connection
from kafka_groups.access.decode import _protocol_error
from kafka_groups.access.naming import _coordinator_of
from kafka_groups.access.retry import Deadline, NotAvailableInTime, Unavailable, describe_error, is_retriable
from kafka_groups.errors import ClusterError

if TYPE_CHECKING:
    from kafka_groups.core.describe import TopicPartition

TRANSACTIONAL_ID_PREFIX = "kafka-group-tools-reset-"
OFFSETS_TOPIC = "__consumer_offsets"
# Protocol error codes of the transactional requests.
COORDINATOR_MOVING = frozenset({14, 15, 16})  # loading, not available, not the coordinator
CONCURRENT_TRANSACTIONS = 51  # the transaction before is still ending: try again
INVALID_PRODUCER_EPOCH = 47
PRODUCER_FENCED = 90
TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53
GROUP_AUTHORIZATION_FAILED = 30
TOPIC_AUTHORIZATION_FAILED = 29
INVALID_TRANSACTION_TIMEOUT = 50
UNSTABLE_OFFSET_COMMIT = 88
UNSTABLE_REASON = "UNSTABLE_OFFSET_COMMIT"
# The newest versions driven here: those before KIP-890's (whose epoch bumps a producer of one
# transaction does not need); every broker since 2.5 takes them.
INIT_PRODUCER_ID_VERSION = 4
ADD_OFFSETS_TO_TXN_VERSION = 3
TXN_OFFSET_COMMIT_VERSION = 3
END_TXN_VERSION = 3
# TxnOffsetCommit parts of one transaction in flight together on the coordinator's connection.
PARTS_IN_FLIGHT = 16


def transactional_id(group: str) -> str:
    """The transactional id of the resets of ``group``: every run for the group uses the same
    one, so each fences a transaction an earlier, killed run left open."""
    return TRANSACTIONAL_ID_PREFIX + group


def transaction_acl(group: str) -> str:
    return f"WRITE on TransactionalId '{transactional_id(group)}'"


class TransactionRefused(ClusterError):
    """The cluster will not run the transaction (no permission, no transaction coordinator,
    brokers without transactions): nothing was written."""


class TransactionFenced(ClusterError):
    """The transaction was ended by the cluster (its timeout passed) or by another producer
    with its transactional id: it can never commit."""


@dataclass
class OffsetsTransaction:
    """One open producer of :func:`transactional_id` (InitProducerId done), for one group."""

    group: str
    transactional_id: str
    coordinator: int  # the transaction coordinator's node id
    producer_id: int
    producer_epoch: int
    timeout_ms: int
    started: bool = False  # AddOffsetsToTxn done: the transaction is open
    commit_sent: bool = False  # EndTxn(commit) went out: the transaction may have committed


class TransactionsAccess(Connection):
    """Transactional offset commits and the reads that go with them."""

    def offsets_topic_limit(self) -> int | None:
        """``max.message.bytes`` of ``__consumer_offsets``: the largest batch one write to it
        may be; None where it cannot be read (no DESCRIBE_CONFIGS on the topic)."""
        from confluent_kafka import KafkaException
        from confluent_kafka.admin import ConfigResource, ResourceType  # type: ignore[attr-defined]

        resource = ConfigResource(ResourceType.TOPIC, OFFSETS_TOPIC)
        try:
            futures = self._admin.describe_configs([resource], request_timeout=self.settings.timeout_s)
            entries = next(iter(futures.values())).result()
            value = entries.get("max.message.bytes")
            limit = int(value.value) if value is not None and value.value is not None else 0
        except (KafkaException, ValueError, StopIteration):
            return None
        return limit if limit > 0 else None

    def transactions_missing(self) -> str | None:
        """Why the brokers cannot run a transaction (the request they lack), or None."""
        from kafka_groups.core.capabilities import STABLE_OFFSET_FETCH, TRANSACTIONS, transaction_refusal

        _ = self._protocol  # logged in: the brokers' API versions are known
        for needed in (*TRANSACTIONS, STABLE_OFFSET_FETCH):
            if not self.supports(needed):
                return transaction_refusal(needed)
        return None

    # -- the producer ----------------------------------------------------------------------
    def begin_transaction(self, group: str, timeout_ms: int) -> OffsetsTransaction:
        """A producer of the group's transactional id (FindCoordinator, InitProducerId), ready
        to open a transaction. InitProducerId aborts a transaction an earlier run of the same
        id left open, waiting while the cluster ends it. Refusals are ``TransactionRefused``
        naming the permission or the cause; nothing is written before the first chunk."""
        from kafka.protocol.producer.transaction import InitProducerIdRequest

        txn_id = transactional_id(group)
        missing = self.transactions_missing()
        if missing:
            raise TransactionRefused(missing)

        async def init() -> tuple[int, Any]:
            node = await self._transaction_coordinator(txn_id)
            request = InitProducerIdRequest(
                transactional_id=txn_id,
                transaction_timeout_ms=timeout_ms,
                max_version=INIT_PRODUCER_ID_VERSION,
            )
            answer = await self._answer(
                self._protocol.manager.send(request, node_id=node), _txn_coordinator(txn_id)
            )
            return node, answer

        def attempt(_deadline: Deadline) -> tuple[int, Any]:
            node, answer = self._run(init)
            code = answer.error_code
            if code in COORDINATOR_MOVING or code == CONCURRENT_TRANSACTIONS:
                self._forget_transaction_coordinator(txn_id)
                raise Unavailable(_txn_coordinator(txn_id), _protocol_error(code).name)
            if code:
                raise TransactionRefused(_refusal(group, code, timeout_ms))
            return node, answer

        try:
            node, answer = self._transactional("starting the transaction", attempt, group)
        except NotAvailableInTime as exc:
            raise TransactionRefused(
                f"no transaction coordinator answered for '{txn_id}' within {self.settings.timeout_ms} ms "
                f"({exc.reason}); the cluster may be unable to create __transaction_state "
                "(transaction.state.log.replication.factor above the number of brokers)"
            ) from None
        return OffsetsTransaction(group, txn_id, node, answer.producer_id, answer.producer_epoch, timeout_ms)

    def add_offsets_to_transaction(self, txn: OffsetsTransaction) -> None:
        """AddOffsetsToTxn: the transaction is open from here, and its timeout runs."""
        from kafka.protocol.producer.transaction import AddOffsetsToTxnRequest

        request = AddOffsetsToTxnRequest(
            transactional_id=txn.transactional_id,
            producer_id=txn.producer_id,
            producer_epoch=txn.producer_epoch,
            group_id=txn.group,
            max_version=ADD_OFFSETS_TO_TXN_VERSION,
        )
        self._transaction_request(txn, request, "opening the transaction")
        txn.started = True

    def commit_offsets_in_transaction(
        self, txn: OffsetsTransaction, offsets: Mapping[TopicPartition, int]
    ) -> None:
        """One TxnOffsetCommit of ``offsets`` (one batch of the offsets topic) to the group's
        coordinator: :meth:`commit_parts_in_transaction` of one part."""
        self.commit_parts_in_transaction(txn, [list(offsets)], offsets)

    def commit_parts_in_transaction(
        self,
        txn: OffsetsTransaction,
        parts: Sequence[Sequence[TopicPartition]],
        offsets: Mapping[TopicPartition, int],
    ) -> None:
        """One TxnOffsetCommit per part (the partitions of one batch of the offsets topic,
        committed at their ``offsets``), all in flight together on the connection to the
        group's coordinator (at most :data:`PARTS_IN_FLIGHT` at once), which takes them in
        order; each request is built as it goes out. Every partition must take its offset: the
        first refusal, in the parts' order, is raised, a ``ClusterError`` naming the partition
        (nothing of the transaction is visible until EndTxn, so the caller aborts it). Parts
        whose answer was lost or whose coordinator moved are sent again until ``--timeout``:
        within one transaction, offsets committed twice are committed once."""
        group = txn.group
        landed: set[int] = set()

        async def send() -> tuple[list[tuple[str, int, int]], str | None]:
            """The refusal of the first refused part (topic, partition, code), and why parts
            must be sent again (None: none must)."""
            coordinator = (await self._coordinators_of([group]))[group]
            version = await self._version_on(coordinator, _txn_offset_commit(txn, [], {}, None))
            window: deque[tuple[int, Any]] = deque()
            refused: dict[int, list[tuple[str, int, int]]] = {}
            again: list[str] = []

            async def settle() -> None:
                number, future = window.popleft()
                try:
                    answer = await self._answer(future, _coordinator_of([group]))
                except Unavailable as exc:  # the answer was lost: the part is sent again
                    again.append(exc.reason)
                    return
                failed = answer.refused()  # decoded by access/partition_answers.py
                if not failed:
                    landed.add(number)
                elif {code for _t, _p, code in failed} <= COORDINATOR_MOVING:
                    again.append(_protocol_error(failed[0][2]).name)
                else:
                    refused[number] = failed

            for number in [n for n in range(len(parts)) if n not in landed]:
                if len(window) >= PARTS_IN_FLIGHT:
                    await settle()
                request = _txn_offset_commit(txn, parts[number], offsets, version)
                window.append((number, self._protocol.manager.send(request, node_id=coordinator)))
                del request
            while window:
                await settle()
            return (refused[min(refused)] if refused else []), (again[0] if again else None)

        def attempt(_deadline: Deadline) -> None:
            failed, again = self._run(send)
            if failed:
                topic, partition, code = failed[0]
                raise ClusterError(f"{topic}-{partition}: {_txn_reason(group, code, topic)}")
            if again is not None:  # the coordinator moved or an answer was lost: send again
                self._forget_coordinators([group])
                raise Unavailable(_coordinator_of([group]), again)

        self._transactional("committing offsets in the transaction", attempt, group)

    def end_transaction(self, txn: OffsetsTransaction, commit: bool) -> None:
        """EndTxn: commit (the offsets become visible together) or abort (they never do).
        Sent again after a lost answer until ``--timeout``: the coordinator answers a repeated
        EndTxn of a transaction it already ended that way with success. ``TransactionFenced``
        when the cluster ended it first (it can never commit); any other ``ClusterError``
        after a commit was sent leaves the outcome to the read-back."""
        from kafka.protocol.producer.transaction import EndTxnRequest

        request = EndTxnRequest(
            transactional_id=txn.transactional_id,
            producer_id=txn.producer_id,
            producer_epoch=txn.producer_epoch,
            committed=commit,
            max_version=END_TXN_VERSION,
        )
        if commit:
            txn.commit_sent = True
        self._transaction_request(
            txn, request, "committing the transaction" if commit else "aborting the transaction"
        )

    def abort_quietly(self, txn: OffsetsTransaction) -> str | None:
        """Abort an open transaction whose commit was never sent; None when the abort was
        answered, else why not (the cluster then aborts it when its timeout passes, or the next
        run for the group does at once)."""
        if not txn.started or txn.commit_sent:
            return None
        try:
            self.end_transaction(txn, commit=False)
        except ClusterError as exc:
            return exc.message
        return None

    def _transaction_request(self, txn: OffsetsTransaction, request: Any, what: str) -> None:
        """One request to the transaction coordinator, tried again until ``--timeout`` while
        the coordinator moves, the previous transaction ends or the answer is lost (each of
        these requests may be repeated within its transaction)."""
        txn_id = txn.transactional_id

        async def send() -> Any:
            node = await self._transaction_coordinator(txn_id)
            txn.coordinator = node
            return await self._answer(
                self._protocol.manager.send(request, node_id=node), _txn_coordinator(txn_id)
            )

        def attempt(_deadline: Deadline) -> None:
            answer = self._run(send)
            code = answer.error_code
            if code in COORDINATOR_MOVING or code == CONCURRENT_TRANSACTIONS:
                self._forget_transaction_coordinator(txn_id)
                raise Unavailable(_txn_coordinator(txn_id), _protocol_error(code).name)
            if code in (INVALID_PRODUCER_EPOCH, PRODUCER_FENCED):
                name = _protocol_error(code).name
                raise TransactionFenced(
                    f"{what} failed: the transaction '{txn_id}' was ended by the cluster (its timeout of "
                    f"{txn.timeout_ms} ms passed) or by another run for the group ({name})"
                )
            if code:
                raise ClusterError(f"{what} failed: {_txn_reason(txn.group, code, None)}")

        self._transactional(what, attempt, txn.group)

    def _transactional(self, what: str, attempt: Any, group: str) -> Any:
        """Run ``attempt`` under the retry policy; a protocol failure becomes a one-line error."""
        from kafka.errors import KafkaError

        try:
            return self._retrying(f"an answer for {what}", attempt)
        except KafkaError as exc:
            raise ClusterError(
                f"{what} failed: {_txn_reason(group, getattr(exc, 'errno', -1), None)}"
            ) from None

    async def _transaction_coordinator(self, txn_id: str) -> int:
        """FindCoordinator for the transactional id (kept by the cluster metadata)."""
        from kafka.errors import KafkaError
        from kafka.protocol.metadata import CoordinatorType, FindCoordinatorRequest

        kind = CoordinatorType.TRANSACTION
        cluster = self._protocol.manager.cluster
        known = cluster.get_coordinator(txn_id, kind)
        if known is not None:
            return int(known)
        send = self._protocol.manager.send
        if self._protocol.manager.broker_version_data.api_version(FindCoordinatorRequest) >= 4:
            request = FindCoordinatorRequest(key_type=kind.value, coordinator_keys=[txn_id], min_version=4)
            answer = (await self._answer(send(request), _txn_coordinator(txn_id))).coordinators[0]
        else:
            request = FindCoordinatorRequest(key=txn_id, key_type=kind.value, max_version=3)
            answer = await self._answer(send(request), _txn_coordinator(txn_id))
        if answer.error_code in COORDINATOR_MOVING:
            raise Unavailable(_txn_coordinator(txn_id), _protocol_error(answer.error_code).name)
        if answer.error_code:
            raise TransactionRefused(_refusal_of_id(txn_id, answer.error_code))
        try:
            return int(cluster.add_coordinator(answer, kind, txn_id, synthesize_node_id=False))
        except KafkaError as exc:
            if is_retriable(exc):
                raise Unavailable(_txn_coordinator(txn_id), describe_error(exc)) from None
            raise

    def _forget_transaction_coordinator(self, txn_id: str) -> None:
        from kafka.protocol.metadata import CoordinatorType

        self._protocol.manager.cluster._coordinators.pop((CoordinatorType.TRANSACTION, txn_id), None)

    # -- the stable read -------------------------------------------------------------------
    def committed_stable(
        self, partitions: Mapping[str, Iterable[TopicPartition]]
    ) -> dict[str, Mapping[TopicPartition, int]]:
        """The committed offsets of the named partitions of each group, read as a consumer
        that waits for transactions reads them (OffsetFetch with require_stable): a partition
        a transaction holds offsets for answers UNSTABLE_OFFSET_COMMIT until the transaction
        ends; that is asked again until ``--timeout``, then named. A partition without a
        committed offset is left out; the offsets come as compact tables."""
        from kafka.errors import KafkaError

        groups = list(partitions)
        # One partition of each group first, asked again until no transaction holds it: a
        # transaction's offsets become stable together (the group's coordinator applies the
        # commit marker to all of them at once), and a small read asked again costs little.
        # Then the whole read, itself asked again while any partition is still held.
        probes = {g: [tp] for g, tps in partitions.items() for tp in islice(tps, 1)}

        def attempt(_deadline: Deadline) -> dict[str, Mapping[TopicPartition, int]]:
            if probes:
                self._run(self._stable_fetch, probes)
                probes.clear()
            found: dict[str, Mapping[TopicPartition, int]] = self._run(self._stable_fetch, partitions)
            return found

        def after(missing: Unavailable) -> None:
            if UNSTABLE_REASON in missing.reason:
                return  # a transaction still ending: the coordinators have not moved
            self._refresh_protocol_metadata()
            self._forget_coordinators(groups)

        what = "reading the committed offsets back"
        try:
            found: dict[str, Mapping[TopicPartition, int]] = self._retrying(
                f"an answer for {what}", attempt, after
            )
        except KafkaError as exc:
            if self._deadline is not None and is_retriable(exc):
                raise
            raise ClusterError(f"{what} failed: {exc}") from None
        return found

    async def _stable_fetch(
        self, partitions: Mapping[str, Iterable[TopicPartition]]
    ) -> dict[str, Mapping[TopicPartition, int]]:
        from kafka.errors import for_code
        from kafka.protocol.consumer.group import OffsetFetchRequest

        from kafka_groups.access.offset_fetch import offset_fetch

        group_type = OffsetFetchRequest.OffsetFetchRequestGroup
        topic_type = group_type.OffsetFetchRequestTopics
        found: dict[str, Mapping[TopicPartition, int]] = {}
        groups = list(partitions)
        coordinators = await self._coordinators_of(groups) if groups else {}
        for group in groups:
            by_topic: dict[str, list[int]] = {}
            for topic, partition in partitions[group]:
                by_topic.setdefault(topic, []).append(partition)
            if not by_topic:
                found[group] = {}
                continue
            topics = [topic_type(name=t, partition_indexes=ps) for t, ps in by_topic.items()]
            request = OffsetFetchRequest(
                groups=[group_type(group_id=group, topics=topics)],
                require_stable=True,
                min_version=8,
                max_version=8,
            )
            del by_topic, topics
            # decoded straight into arrays (access/offset_fetch.py), not the layer's objects
            response = await self._answer(
                self._protocol.manager.send(offset_fetch(request), node_id=coordinators[group]),
                _coordinator_of([group]),
            )
            answer = response.groups[0]
            code = response.error_code or answer.error_code
            if code in COORDINATOR_MOVING:
                raise Unavailable(_coordinator_of([group]), _protocol_error(code).name)
            if code:
                raise for_code(code)(f"OffsetFetchResponse failed for group '{group}'.")
            errors = answer.errors()
            pending = sum(1 for _t, _p, c in errors if c == UNSTABLE_OFFSET_COMMIT)
            failed = next(((p, c) for _t, p, c in errors if c != UNSTABLE_OFFSET_COMMIT), None)
            if failed is not None:
                raise for_code(failed[1])(f"OffsetFetchResponse failed for partition {failed[0]}")
            if pending:
                raise Unavailable(
                    f"the committed offsets of group '{group}'",
                    f"a transaction still holds {pending} of them: {UNSTABLE_REASON}",
                )
            # a partition answered with an error has no offset (-1): the table leaves it out
            found[group] = answer.table()
        return found


def _txn_coordinator(txn_id: str) -> str:
    return f"the transaction coordinator of '{txn_id}'"


def _refusal_of_id(txn_id: str, code: int) -> str:
    if code == TRANSACTIONAL_ID_AUTHORIZATION_FAILED:
        return (
            f"not authorized: the principal needs WRITE on TransactionalId '{txn_id}' "
            f"(TRANSACTIONAL_ID_AUTHORIZATION_FAILED)"
        )
    return f"the cluster refused the transactional id '{txn_id}' ({_protocol_error(code).name})"


def _refusal(group: str, code: int, timeout_ms: int) -> str:
    if code == INVALID_TRANSACTION_TIMEOUT:
        return (
            f"the cluster refused a transaction timeout of {timeout_ms} ms (transaction.max.timeout.ms "
            "is lower; INVALID_TRANSACTION_TIMEOUT)"
        )
    return _refusal_of_id(transactional_id(group), code)


def _txn_reason(group: str, code: int, topic: str | None) -> str:
    """A transactional request's error in words, with the permission an authorization error
    lacks."""
    if code == TRANSACTIONAL_ID_AUTHORIZATION_FAILED:
        return _refusal_of_id(transactional_id(group), code)
    if code == GROUP_AUTHORIZATION_FAILED:
        return f"not authorized: the principal needs READ on group '{group}' (GROUP_AUTHORIZATION_FAILED)"
    if code == TOPIC_AUTHORIZATION_FAILED:
        named = f"topic '{topic}'" if topic else "the topics"
        return f"not authorized: the principal needs READ on {named} (TOPIC_AUTHORIZATION_FAILED)"
    return _protocol_error(code).name


def _txn_offset_commit(
    txn: OffsetsTransaction,
    partitions: Iterable[TopicPartition],
    offsets: Mapping[TopicPartition, int],
    version: int | None,
) -> Any:
    """The TxnOffsetCommit of ``partitions`` at their ``offsets``, from outside the group
    (generation -1, as an admin client commits), its answer decoded by
    access/partition_answers.py. ``version``: the one it goes out in, known, so its body is
    encoded there too; None, the partitions as objects the layer encodes in any version."""
    from kafka.protocol.producer.transaction import TxnOffsetCommitRequest

    from kafka_groups.access.partition_answers import txn_offset_commit

    topic_type = TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic
    partition_type = topic_type.TxnOffsetCommitRequestPartition
    by_topic: dict[str, list[tuple[int, int]]] = {}
    for tp in partitions:
        by_topic.setdefault(tp[0], []).append((tp[1], offsets[tp]))
    topics = []
    if version is None:
        topics = [
            topic_type(
                name=name,
                partitions=[
                    partition_type(
                        partition_index=partition,
                        committed_offset=offset,
                        committed_leader_epoch=-1,
                        committed_metadata="",
                    )
                    for partition, offset in pairs
                ],
            )
            for name, pairs in by_topic.items()
        ]
    request = TxnOffsetCommitRequest(
        transactional_id=txn.transactional_id,
        group_id=txn.group,
        producer_id=txn.producer_id,
        producer_epoch=txn.producer_epoch,
        generation_id=-1,
        member_id="",
        group_instance_id=None,
        topics=topics,
        max_version=TXN_OFFSET_COMMIT_VERSION,
    )
    if version is None:
        return txn_offset_commit(request)
    request.API_VERSION = version
    return txn_offset_commit(request, by_topic)
