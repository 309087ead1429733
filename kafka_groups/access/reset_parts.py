"""The TxnOffsetCommit parts of one reset's transaction on several connections to the group's
coordinator at once.

A broker reads one request of a connection at a time: the next is read once the answer to the
one before has gone out, and a TxnOffsetCommit is answered once its batch of
``__consumer_offsets`` is replicated. Parts sent together on one connection
(:meth:`~kafka_groups.access.transactions.TransactionsAccess.commit_parts_in_transaction`) are
therefore written and replicated one after another; parts on connections of their own are read
together, and their batches replicated together. The parts of one transaction hold different
partitions, so their order does not matter; nothing of them is visible before EndTxn.

:class:`SideClients` opens the extra connections (protocol-layer clients logged in as the
access's own, :mod:`kafka_groups.access.protocol_layer`), ahead of the commit;
:func:`commit_parts_side_by_side` deals the parts to the access's own connection and those.
Every part's answer is checked as on one connection: the first refusal, in the parts' order, is
raised; a part whose answer was lost, or whose coordinator moved, is sent again through
``commit_parts_in_transaction`` (its retries, until ``--timeout``): within one transaction,
offsets committed twice are committed once.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kafka_groups.errors import ClusterError

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.access.transactions import OffsetsTransaction
    from kafka_groups.core.describe import TopicPartition

# Connections besides the access's own that a transaction's parts go out on (each one more
# login to the cluster; a reset of 30,000 partitions has 4 parts at the default 1 MiB limit).
SIDE_CONNECTIONS = 3


def deal(parts: int, lanes: int) -> list[list[int]]:
    """Parts ``0 .. parts-1`` dealt to ``lanes`` connections in turn, each connection's in
    order; no more connections than parts."""
    lanes = max(1, min(lanes, parts))
    return [list(range(lane, parts, lanes)) for lane in range(lanes)]


class SideClients:
    """Protocol-layer clients besides the access's own, logged in with its settings; those that
    could not log in within ``--timeout`` are closed and left out (the parts then go out on
    fewer connections)."""

    def __init__(self, clients: list[Any]) -> None:
        self.clients = clients

    @classmethod
    def open(cls, access: KafkaAccess, count: int) -> SideClients:
        from kafka_groups.access import protocol_layer
        from kafka_groups.access.config import kafka_python_config

        clients: list[Any] = []
        for _ in range(count):
            try:
                config = kafka_python_config(access.settings)
                config["bootstrap_timeout_ms"] = access.settings.timeout_ms
                client = protocol_layer.ProtocolClient(config)
            except Exception:  # a side connection is an optimization: none is needed
                break
            if not client.bootstrapped:
                client.close()
                break
            clients.append(client)
        return cls(clients)

    def close(self) -> None:
        for client in self.clients:
            with contextlib.suppress(Exception):
                client.close()
        self.clients = []


class _Beside:
    """``send(client, numbers)`` run by ``client``'s own network thread, waited for on a thread
    of its own (a daemon: never waited for at exit)."""

    def __init__(self, client: Any, send: Any, numbers: list[int]) -> None:
        self._done = threading.Event()
        self._value: dict[int, Any] = {}
        self._error: BaseException | None = None
        threading.Thread(target=self._run, args=(client, send, numbers), daemon=True).start()

    def _run(self, client: Any, send: Any, numbers: list[int]) -> None:
        try:
            self._value = client.manager.run(send, client, numbers)
        except BaseException as exc:
            self._error = exc
        finally:
            self._done.set()

    def take(self) -> dict[int, Any]:
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value


def commit_parts_side_by_side(
    access: KafkaAccess,
    txn: OffsetsTransaction,
    parts: Sequence[Sequence[TopicPartition]],
    offsets: Mapping[TopicPartition, int],
    sides: SideClients | None,
) -> None:
    """``commit_parts_in_transaction`` of ``parts``, dealt to the access's connection to the
    group's coordinator and the side clients' (see the module's text)."""
    from kafka.errors import KafkaError

    from kafka_groups.access.transactions import (
        COORDINATOR_MOVING,
        _txn_offset_commit,
        _txn_reason,
    )

    clients = sides.clients if sides is not None else []
    if not clients or len(parts) < 2:
        access.commit_parts_in_transaction(txn, parts, offsets)
        return
    group = txn.group
    try:
        coordinator = access._run(access._coordinators_of, [group])[group]
        probe = _txn_offset_commit(txn, [], {}, None)
        version = access._run(access._version_on, coordinator, probe)
    except (KafkaError, ClusterError):
        access.commit_parts_in_transaction(txn, parts, offsets)
        return
    lanes = deal(len(parts), 1 + len(clients))
    # per part: None (landed), "again" (send it again), or the refusals (topic, partition, code)
    answers: dict[int, Any] = {}

    async def send(client: Any, numbers: list[int]) -> dict[int, Any]:
        found: dict[int, Any] = {}
        sent = []
        for number in numbers:
            request = _txn_offset_commit(txn, parts[number], offsets, version)
            sent.append((number, client.manager.send(request, node_id=coordinator)))
            del request
        for number, future in sent:
            try:
                answer = await future
            except KafkaError:
                found[number] = "again"  # lost, or the connection failed: sent again below
                continue
            failed = answer.refused()  # decoded by access/partition_answers.py
            if not failed:
                found[number] = None
            elif {code for _t, _p, code in failed} <= COORDINATOR_MOVING:
                found[number] = "again"
            else:
                found[number] = failed
        return found

    beside = [_Beside(client, send, numbers) for client, numbers in zip(clients, lanes[1:], strict=False)]
    try:
        answers.update(access._run(send, access._protocol, lanes[0]))
    except Exception:
        answers.update(dict.fromkeys(lanes[0], "again"))
    for lane, numbers in zip(beside, lanes[1:], strict=False):
        try:
            answers.update(lane.take())
        except Exception:  # the side connection failed: its parts are sent again
            answers.update(dict.fromkeys(numbers, "again"))
    refused = [n for n in sorted(answers) if answers[n] not in (None, "again")]
    if refused:
        topic, partition, code = answers[refused[0]][0]
        raise ClusterError(f"{topic}-{partition}: {_txn_reason(group, code, topic)}")
    again = [parts[n] for n in sorted(answers) if answers[n] == "again"]
    if again:
        access.commit_parts_in_transaction(txn, again, offsets)
