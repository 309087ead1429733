"""Helpers that make real cluster state with real clients: topics, records with chosen
timestamps, and classic or consumer-protocol (KIP-848) groups."""

from __future__ import annotations

import concurrent.futures
import os
import pty
import select
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic, OffsetSpec

# A --timeout (ms) far above what a command takes against the suite's brokers, for tests whose subject
# is not the timeout: a loaded CI machine must not fail them at the tools' default 5000 (Apache's too).
TOOL_TIMEOUT_MS = "20000"


def unique(case: str) -> str:
    """A name no other test uses: ``<case>-<8 hex digits>``."""
    return f"{case}-{uuid.uuid4().hex[:8]}"


def admin(bootstrap: str) -> AdminClient:
    return AdminClient({"bootstrap.servers": bootstrap})


def create_topic(bootstrap: str, name: str, partitions: int = 1, replication: int = 1) -> str:
    """A topic whose records are never deleted by time: tests write records with timestamps
    far in the past, which the broker's default 7-day retention would remove within minutes."""
    topic = NewTopic(name, partitions, replication, config={"retention.ms": "-1"})
    for attempt in range(3):
        client = admin(bootstrap)  # keep the client alive until its futures resolve
        futures = client.create_topics([topic], operation_timeout=30)
        try:
            futures[name].result(timeout=30)
            break
        except concurrent.futures.TimeoutError:
            # A broker just resumed from a pause can leave a request unanswered; the topic may
            # have been made all the same, which the next attempt finds.
            if attempt == 2:
                raise
        except KafkaException as exc:
            if exc.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS or attempt == 0:
                raise
            break
    _wait_for_partitions(bootstrap, name, partitions)
    return name


def add_partitions(bootstrap: str, name: str, total: int, timeout: float = 30.0) -> None:
    client = admin(bootstrap)
    futures = client.create_partitions([NewPartitions(name, total)], operation_timeout=timeout)
    futures[name].result(timeout=timeout)
    _wait_for_partitions(bootstrap, name, total, timeout)


def wait_until_led(bootstrap: str, name: str, partitions: int, timeout: float = 180.0) -> None:
    """Until the leader of every partition answers ListOffsets. The metadata names a leader as
    soon as the controller picks one; the broker answers NOT_LEADER_OR_FOLLOWER until it has
    made the partition's log, which for thousands of new partitions on a busy machine takes
    longer than a command's 30 s."""
    client = admin(bootstrap)
    waiting = [TopicPartition(name, p) for p in range(partitions)]
    deadline = time.monotonic() + timeout
    while True:
        futures: dict[TopicPartition, concurrent.futures.Future] = {}
        for first in range(0, len(waiting), 1000):
            call = {tp: OffsetSpec.latest() for tp in waiting[first : first + 1000]}
            futures |= client.list_offsets(call, request_timeout=30)
        waiting = [tp for tp, future in futures.items() if future.exception() is not None]
        if not waiting:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"{len(waiting)} partitions of {name} still without a leader that answers")
        time.sleep(1)


def grow_with_ours(ours, bootstrap: str, name: str, total: int) -> None:
    """Add partitions with our `kafka-topics --alter`, which records when they were created."""
    result = ours(
        "kafka-topics",
        "--bootstrap-server",
        bootstrap,
        "--alter",
        "--topic",
        name,
        "--partitions",
        str(total),
    )
    assert result.returncode == 0, result.stderr


def _wait_for_partitions(bootstrap: str, name: str, partitions: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    client = admin(bootstrap)
    while time.monotonic() < deadline:
        try:
            topic = client.list_topics(name, timeout=5).topics.get(name)
        except KafkaException:  # a metadata request that timed out on a busy machine: ask again
            topic = None
        if (
            topic
            and topic.error is None
            and len(topic.partitions) == partitions
            and all(p.leader >= 0 for p in topic.partitions.values())
        ):
            return
        time.sleep(0.1)
    raise TimeoutError(f"topic {name} did not get {partitions} partitions with leaders")


@dataclass(frozen=True)
class Record:
    partition: int
    value: str
    timestamp_ms: int | None = None
    key: str | None = None


FLUSH_S = 120


def produce(bootstrap: str, topic: str, records: Iterable[Record]) -> int:
    """Write records (with chosen partitions and timestamps); return how many were acknowledged."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "acks": "all"})
    acked = 0
    failures: list[str] = []

    def on_delivery(err, _msg):
        nonlocal acked
        if err is None:
            acked += 1
        else:
            failures.append(str(err))

    try:
        for r in records:
            kwargs = {"timestamp": r.timestamp_ms} if r.timestamp_ms is not None else {}
            producer.produce(
                topic, value=r.value, key=r.key, partition=r.partition, on_delivery=on_delivery, **kwargs
            )
        # Thousands of partitions on a saturated machine have taken longer than 30 s.
        unsent = producer.flush(FLUSH_S)
    finally:
        # Freed here, whatever happened: a producer kept alive by a failed test's traceback (its
        # frame) would go on dialling its broker after the broker is gone, and be freed at any
        # later moment. (Producer.close() is newer than the confluent-kafka the project allows.)
        producer.purge()
        producer.flush(0)
        del producer
    if unsent:
        raise KafkaException(f"{unsent} records to {topic} not acknowledged within {FLUSH_S} s")
    if failures:
        raise KafkaException(failures[0])
    return acked


def produce_n(bootstrap: str, topic: str, per_partition: dict[int, int]) -> int:
    return produce(
        bootstrap,
        topic,
        (Record(p, f"v{i}") for p, n in per_partition.items() for i in range(n)),
    )


def _consumer_config(bootstrap: str, group: str, protocol: str, **extra: str) -> dict[str, object]:
    config: dict[str, object] = {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "group.protocol": protocol,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
    }
    if protocol == "classic":
        config["session.timeout.ms"] = 10000
        config["heartbeat.interval.ms"] = 1000
    config.update(extra)
    return config


def consume_and_commit(
    bootstrap: str,
    group: str,
    topics: Sequence[str],
    expected: int,
    protocol: str = "classic",
    timeout: float = 60.0,
) -> int:
    """Join ``group`` with a real consumer, read ``expected`` records, commit, and leave
    (the group is then Empty with committed offsets). Returns how many were read."""
    consumer = Consumer(_consumer_config(bootstrap, group, protocol))
    consumer.subscribe(list(topics))
    read = 0
    deadline = time.monotonic() + timeout
    try:
        while read < expected and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None or msg.error():
                continue
            read += 1
        consumer.commit(asynchronous=False)
    finally:
        consumer.close()
    return read


def commit_offsets(bootstrap: str, group: str, offsets: dict[tuple[str, int], int]) -> None:
    """Commit offsets for a group without joining it (a 'simple' group, protocol type '').

    Reads them back until they show: on a brand-new cluster the very first commit can be
    acknowledged while the offsets topic is still being created, and then not be there."""
    from confluent_kafka import ConsumerGroupTopicPartitions

    request = ConsumerGroupTopicPartitions(group, [TopicPartition(t, p, o) for (t, p), o in offsets.items()])
    deadline = time.monotonic() + 120
    while True:
        client = admin(bootstrap)
        futures = client.alter_consumer_group_offsets([request], request_timeout=30)
        # Unanswered while a new broker creates its offsets topic, or timed out on a busy machine: the
        # read below tells whether the commit took, and the loop commits again if not.
        try:
            futures[group].result(timeout=30)
        except concurrent.futures.TimeoutError:
            pass
        except KafkaException as exc:
            error = exc.args[0] if exc.args and isinstance(exc.args[0], KafkaError) else None
            if error is None or not (error.retriable() or error.code() == KafkaError._TIMED_OUT):
                raise
        for _ in range(10):
            now = committed(bootstrap, group)
            if all(now.get(tp) == o for tp, o in offsets.items()):
                return
            time.sleep(0.3)
        if time.monotonic() > deadline:
            raise TimeoutError(f"the offsets of {group} did not take")


def commit_many(bootstrap: str, groups: Sequence[str], offsets: dict[tuple[str, int], int]) -> None:
    """Commit the same ``offsets`` for each of thousands of ``groups`` (simple groups, as
    commit_offsets): one batched FindCoordinator, then an OffsetCommit per group, a hundred in
    flight at a time (2,000 groups in about 5 s, where a commit after another takes 20 s)."""
    from kafka_groups.access.protocol_layer import ProtocolClient

    client = ProtocolClient(
        {
            "bootstrap_servers": [bootstrap],
            "request_timeout_ms": 60_000,
            "max_in_flight_requests_per_connection": 100,
        }
    )
    from bench.setup_helpers import offsets_commit_request

    by_topic: dict[str, list[tuple[int, int]]] = {}
    for (topic, partition), offset in offsets.items():
        by_topic.setdefault(topic, []).append((partition, offset))

    def request(group: str) -> Any:
        return offsets_commit_request(group, by_topic)

    async def commit_all() -> None:
        coordinators = await client.coordinators(list(groups))
        for start in range(0, len(groups), 100):
            sent = [
                (g, client.manager.send(request(g), node_id=coordinators[g]))
                for g in groups[start : start + 100]
            ]
            for group, future in sent:
                answer = await future
                codes = {p.error_code for t in answer.topics for p in t.partitions}
                if codes != {0}:
                    raise RuntimeError(f"committing the offsets of {group} failed: error codes {codes}")

    try:
        client.manager.run(commit_all)
    finally:
        client.close()


class ActiveConsumer:
    """A real consumer kept in its group by a polling thread (the group is Stable while open)."""

    def __init__(self, bootstrap: str, group: str, topics: Sequence[str], protocol: str = "classic") -> None:
        self.consumer = Consumer(_consumer_config(bootstrap, group, protocol))
        self.consumer.subscribe(list(topics))
        self.assigned = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.consumer.poll(0.2)
            if self.consumer.assignment():
                self.assigned.set()

    def __enter__(self) -> ActiveConsumer:
        self._thread.start()
        if not self.assigned.wait(60):
            raise TimeoutError("the consumer got no assignment")
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)
        self.consumer.close()


def committed(bootstrap: str, group: str, timeout: float = 60.0) -> dict[tuple[str, int], int]:
    """The group's committed offsets, read with a real client."""
    return committed_of(bootstrap, [group], timeout)[group]


def committed_of(
    bootstrap: str, groups: Sequence[str], timeout: float = 60.0
) -> dict[str, dict[tuple[str, int], int]]:
    """The committed offsets of each group, read with kafka-python (one OffsetFetch per
    coordinator). Not with confluent-kafka: librdkafka's ListConsumerGroupOffsets crashes the
    process when a coordinator answers NOT_COORDINATOR (librdkafka issue #5040), as one that is
    loading or moving (a new cluster, a broker just restarted) does. Those answers are asked
    again, as clients do, with a fresh client that looks the coordinator up again."""
    from kafka import KafkaAdminClient
    from kafka.errors import KafkaError

    if not groups:
        return {}
    deadline = time.monotonic() + timeout
    while True:
        client = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30_000)
        try:
            listed = client.list_group_offsets(dict.fromkeys(groups))
        except KafkaError as exc:
            if not exc.retriable or time.monotonic() > deadline:
                raise
            time.sleep(0.5)
            continue
        finally:
            client.close()
        return {
            group: {
                (tp.topic, tp.partition): om.offset
                for tp, om in listed.get(group, {}).items()
                if om.offset >= 0
            }
            for group in groups
        }


def delete_records_before(bootstrap: str, topic: str, partition: int, offset: int) -> None:
    """Move a partition's log start offset up to ``offset`` (DeleteRecords)."""
    client = admin(bootstrap)
    futures = client.delete_records([TopicPartition(topic, partition, offset)], request_timeout=30)
    for future in futures.values():
        future.result(30)


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 30.0, every: float = 0.1) -> None:
    """Poll ``condition`` until it holds; TimeoutError naming ``what`` if it never does."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting until {what}")
        time.sleep(every)


def wait_for_topic_gone(bootstrap: str, name: str, timeout: float = 30.0) -> None:
    """A deleted topic is gone from the cluster's metadata (its name can be created again)."""
    client = admin(bootstrap)
    wait_until(lambda: name not in client.list_topics(timeout=5).topics, f"{name} is deleted", timeout)


def wait_for_full_isr(bootstrap: str, topics: Iterable[str], timeout: float = 60.0) -> None:
    """Every partition of ``topics`` has a leader and all its replicas in sync."""
    client = admin(bootstrap)
    names = list(topics)

    def in_sync() -> bool:
        listed = client.list_topics(timeout=5).topics
        for name in names:
            topic = listed.get(name)
            if topic is None or topic.error is not None or not topic.partitions:
                return False
            for p in topic.partitions.values():
                if p.leader < 0 or set(p.isrs) != set(p.replicas):
                    return False
        return True

    wait_until(in_sync, f"{', '.join(names)} are fully in sync", timeout, every=0.2)


def restore_nodes(cluster) -> None:
    """A cluster back to health: every stopped node started again, every node unfenced in every
    node's metadata, and every partition of every topic led and fully in sync (so whole-cluster
    reports start clean).

    A restarted node logs that it started, and takes connections, before the controller has
    unfenced it: until then the other nodes leave it out of their metadata, and a test that went on
    at once met a cluster of one node fewer (seen on a loaded machine, load 30). A node's
    metadata names only the brokers it knows to be unfenced, so each node is asked for its own."""
    for node in cluster.node_list:
        if not cluster.is_running(node.node_id):
            cluster.start_node(node.node_id)
    ids = {node.node_id for node in cluster.node_list}
    clients = [admin(node.bootstrap) for node in cluster.node_list]

    def healthy() -> bool:
        try:
            views = [client.list_topics(timeout=5) for client in clients]
        except KafkaException:
            return False
        if any(set(view.brokers) != ids for view in views):
            return False
        return all(
            topic.error is None
            and all(p.leader >= 0 and set(p.isrs) == set(p.replicas) for p in topic.partitions.values())
            for topic in views[0].topics.values()
        )

    wait_until(healthy, "every node is unfenced and every partition fully in sync", timeout=120, every=0.5)


def on_a_terminal(
    argv: Sequence[str], env: dict[str, str], answer: str | None, timeout: float
) -> tuple[int, str]:
    """Run ``argv`` with stdin and stderr on a pseudo-terminal (stdout piped, unread) and the
    environment ``env`` (whole, not added to ours); answer its question ("Type its name") with
    ``answer`` (None: never answer, close the terminal's input with Ctrl-D). Return the exit status
    and what the terminal showed, read for up to ``timeout`` seconds."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(list(argv), stdin=follower, stderr=follower, stdout=subprocess.PIPE, env=env)
    os.close(follower)
    shown, asked = b"", False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(leader, 4096)
                except OSError:  # EIO: the process has closed its end
                    break
                if not chunk:
                    break
                shown += chunk
            if not asked and b"Type its name" in shown:
                asked = True
                os.write(leader, (answer + "\n").encode() if answer is not None else b"\x04")
            if proc.poll() is not None and not ready:
                break
        code = proc.wait(timeout=max(deadline - time.monotonic(), 60.0))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        os.close(leader)
    return code, shown.decode(errors="replace").replace("\r\n", "\n")
