"""The cluster state of bench/scale.py's cases, made cheaply: topics of many partitions (created,
then grown in steps the controller takes), and offsets committed for one group on every partition
or for many groups at once, through kafka-python's protocol layer (OffsetCommit is one group per
request, so many groups are many small requests, sent together to each group's coordinator; no
consumer is started).

    python -m bench.scale_setup BOOTSTRAP groups 10000       # topic scale-groups, groups scale-g-000000...
    python -m bench.scale_setup BOOTSTRAP partitions 30000   # topic scale-p30000, group scale-p30000-group
    python -m bench.scale_setup BOOTSTRAP recommit 30000     # scale-p30000-group at offset 1 again
    python -m bench.scale_setup BOOTSTRAP brokers 0          # prints the number of brokers
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import scale_wire  # noqa: E402
from bench.setup_helpers import grow_topic, offset_commit_request  # noqa: E402

GROUPS_TOPIC = "scale-groups"
GROUPS_TOPIC_PARTITIONS = 10
RECORDS_PER_PARTITION = 3  # on the groups' topic: every row has a log end offset above its commit
# One OffsetCommit of one group's partitions is one record batch in __consumer_offsets, refused
# above the topic's max.message.bytes (about 15,000 partitions at 1 MiB): the setup of a large
# group commits in requests of this many partitions (not atomic; nothing reads it meanwhile).
COMMIT_CHUNK = 5000
# Requests one connection may hold in flight while many groups are committed.
IN_FLIGHT = 200


def group_name(index: int) -> str:
    return f"scale-g-{index:06d}"


def partition_topic(partitions: int) -> str:
    return f"scale-p{partitions}"


def partition_group(partitions: int) -> str:
    return f"scale-p{partitions}-group"


def _admin(bootstrap: str) -> Any:
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": bootstrap, "socket.timeout.ms": 300000})


def ensure_topic(bootstrap: str, topic: str, partitions: int) -> None:
    """``topic`` with ``partitions`` partitions (replication 1, spread over the nodes), every
    partition with a leader."""
    if not grow_topic(_admin(bootstrap), topic, partitions):
        raise TimeoutError(f"{topic}: not every partition has a leader")


def produce(bootstrap: str, topic: str, partitions: int, per_partition: int) -> None:
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
    for p in range(partitions):
        for _ in range(per_partition):
            producer.produce(topic, value=b"x", partition=p)
        producer.poll(0)
    for _ in range(10):  # a busy broker takes its time: flush until nothing is left
        if producer.flush(120) == 0:
            return
    raise TimeoutError(f"{topic}: records still unsent after 20 minutes")


def _commit_request(group: str, topic: str, offsets: dict[int, int]) -> Any:
    return offset_commit_request(group, topic, offsets.items())


def commit(bootstrap: str, commits: list[tuple[str, str, dict[int, int]]], protocol: Any = None) -> None:
    """Each (group, topic, {partition: offset}) as one OffsetCommit to the group's coordinator,
    the requests to each coordinator in flight together (``IN_FLIGHT`` per connection), in waves
    of a few thousand; a coordinator still loading is asked again. ``protocol``: a client of
    bench/scale_wire.py to send them on (else one is opened and closed here)."""
    from kafka.errors import KafkaError

    client = protocol or scale_wire.client(bootstrap, IN_FLIGHT + 1)
    try:
        for start in range(0, len(commits), 5000):
            wave = commits[start : start + 5000]
            for _ in range(60):
                try:
                    failed = client.manager.run(_commit_wave, client, wave)
                except KafkaError:  # a new cluster's offsets topic is being made, or loads
                    client.manager.cluster._coordinators.clear()
                    failed = wave
                if not failed:
                    break
                wave = failed
                time.sleep(1)
            else:
                raise RuntimeError(f"{len(wave)} commits refused, e.g. group {wave[0][0]}")
    finally:
        if protocol is None:
            client.close()


async def _commit_wave(client: Any, wave: list[tuple[str, str, dict[int, int]]]) -> list[Any]:
    groups = list(dict.fromkeys(g for g, _, _ in wave))
    coordinators: dict[str, int] = {}
    for start in range(0, len(groups), 2000):
        coordinators.update(await client.coordinators(groups[start : start + 2000]))
    # At most IN_FLIGHT requests outstanding in all (the connection manager's buffer for
    # requests beyond a connection's limit stalled here): the oldest is awaited first.
    failed = []
    outstanding: deque[tuple[Any, Any]] = deque()

    async def settle() -> None:
        one, future = outstanding.popleft()
        answer = await future
        if any(p.error_code for t in answer.topics for p in t.partitions):
            failed.append(one)

    for one in wave:
        if len(outstanding) >= IN_FLIGHT:
            await settle()
        outstanding.append((one, client.manager.send(_commit_request(*one), node_id=coordinators[one[0]])))
    while outstanding:
        await settle()
    if failed:  # a coordinator that moved or is loading: look it up again
        cache = client.manager.cluster._coordinators
        cache.clear()
    return failed


def setup_groups(bootstrap: str, count: int) -> None:
    """``count`` groups (scale-g-000000 ...), each with an offset committed on every partition of
    the 10-partition topic scale-groups (offset 1 of 3 records: lag 2), none with members."""
    ensure_topic(bootstrap, GROUPS_TOPIC, GROUPS_TOPIC_PARTITIONS)
    ends = _log_ends(bootstrap, GROUPS_TOPIC, GROUPS_TOPIC_PARTITIONS)
    if min(ends.values()) < RECORDS_PER_PARTITION:
        produce(bootstrap, GROUPS_TOPIC, GROUPS_TOPIC_PARTITIONS, RECORDS_PER_PARTITION)
    existing = set(_listed_groups(bootstrap))
    wanted_names = {group_name(i) for i in range(count)}
    extra = sorted(g for g in existing if g.startswith("scale-g-") and g not in wanted_names)
    if extra:  # a smaller size after a larger one: exactly ``count`` groups
        _delete(bootstrap, extra)
    offsets = dict.fromkeys(range(GROUPS_TOPIC_PARTITIONS), 1)
    wanted = [(group_name(i), GROUPS_TOPIC, offsets) for i in range(count) if group_name(i) not in existing]
    commit(bootstrap, wanted)


def setup_partitions(bootstrap: str, partitions: int) -> None:
    """The topic scale-pN of N partitions, at least one record on each, and the group
    scale-pN-group with offset 1 committed on every partition (an Empty group, as a reset needs;
    ``--to-earliest`` moves every partition back to 0). Only what is missing is done: a topic
    whose every partition has a leader is neither made nor made room for, only the partitions
    without a record get one, only the partitions not at offset 1 are committed."""
    topic = partition_topic(partitions)
    protocol = scale_wire.client(bootstrap, IN_FLIGHT + 1)
    try:
        with _step(f"{topic}: leaders"):
            leader_of = scale_wire.leaders(protocol, topic, partitions)
        if not _complete(leader_of, partitions):
            with _step(f"{topic}: made"):
                _make_room(bootstrap, topic)
                ensure_topic(bootstrap, topic, partitions)
            leader_of = _leaders_of(protocol, topic, partitions)
        assert leader_of is not None
        with _step(f"{topic}: a record on each partition"):
            _fill(protocol, topic, partitions, leader_of)
        with _step(f"{partition_group(partitions)}: offset 1 on each partition"):
            _commit_missing(bootstrap, protocol, partitions)
    finally:
        protocol.close()


def recommit(bootstrap: str, partitions: int) -> None:
    """Offset 1 on every partition of scale-pN-group again: before each run of ``--execute``, so
    that every run moves every partition (a reset to where the group already is writes nothing
    new, and a refused commit then reads back as done). The partitions already at 1 are left."""
    protocol = scale_wire.client(bootstrap, IN_FLIGHT + 1)
    try:
        _commit_missing(bootstrap, protocol, partitions)
    finally:
        protocol.close()


@contextlib.contextmanager
def _step(what: str) -> Iterator[None]:
    """How long each step of a set-up took, on stderr (the profile of the set-up)."""
    started = time.monotonic()
    try:
        yield
    finally:
        print(f"scale_setup: {what}: {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)


def _complete(leader_of: dict[int, int] | None, partitions: int) -> bool:
    return leader_of is not None and all(leader_of.get(p, -1) >= 0 for p in range(partitions))


def _leaders_of(protocol: Any, topic: str, partitions: int, within_s: float = 600) -> dict[int, int]:
    """Every partition's leader, asked again until each has one."""
    deadline = time.monotonic() + within_s
    while True:
        leader_of = scale_wire.leaders(protocol, topic, partitions)
        if _complete(leader_of, partitions):
            assert leader_of is not None
            return leader_of
        if time.monotonic() > deadline:
            raise TimeoutError(f"{topic}: not every partition has a leader")
        time.sleep(2)


def _fill(protocol: Any, topic: str, partitions: int, leader_of: dict[int, int]) -> None:
    """One record on each partition whose log is empty; a partition whose log end is not
    answered (a leader moved, or not known everywhere yet) is asked again with fresh leaders."""
    for _ in range(30):
        ends = scale_wire.log_ends(protocol, topic, leader_of)
        empty = scale_wire.below(ends, 1)
        if empty:
            print(f"scale_setup: {topic}: {len(empty)} partitions without a record", file=sys.stderr)
            if scale_wire.produce_one(protocol, topic, leader_of, empty):
                time.sleep(2)
                leader_of = _leaders_of(protocol, topic, partitions)
            continue
        if not scale_wire.unknown(ends, partitions):
            return
        time.sleep(2)
        leader_of = _leaders_of(protocol, topic, partitions)
    raise TimeoutError(f"{topic}: partitions still without a record or a log end offset")


def _commit_missing(bootstrap: str, protocol: Any, partitions: int) -> None:
    """Offset 1 committed for scale-pN-group on every partition of scale-pN where it is not
    (read back after the commit: a refused part is committed again)."""
    topic, group = partition_topic(partitions), partition_group(partitions)
    for _ in range(60):
        held = scale_wire.committed(protocol, group, topic)
        if held is None:  # the coordinator is loading or moved
            time.sleep(1)
            continue
        todo = scale_wire.differing(held, partitions, 1)
        if not todo:
            return
        chunks = [
            (group, topic, dict.fromkeys(todo[start : start + COMMIT_CHUNK], 1))
            for start in range(0, len(todo), COMMIT_CHUNK)
        ]
        commit(bootstrap, chunks, protocol)
    raise RuntimeError(f"{group}: offset 1 not committed on every partition")


def _make_room(bootstrap: str, keep: str) -> None:
    """A broker here opens about 1.4 files per partition, and a process may open 20,000: before a
    topic of many partitions is made, the other topics of this family are deleted (with their
    groups), and the brokers given the minute they take to close a deleted partition's files."""
    admin = _admin(bootstrap)
    others = [t for t in admin.list_topics(timeout=60).topics if t.startswith("scale-p") and t != keep]
    if not others:
        return
    for future in admin.delete_topics(others, operation_timeout=300).values():
        future.result(600)
    groups = [f"{t}-group" for t in others]
    for future in admin.delete_consumer_groups(groups, request_timeout=120).values():
        with contextlib.suppress(Exception):  # already gone
            future.result(180)
    time.sleep(FILES_CLOSED_S)


# A broker closes a deleted partition's files about a minute after the deletion (bench/run.py).
FILES_CLOSED_S = 70


def _log_ends(bootstrap: str, topic: str, partitions: int) -> dict[int, int]:
    from confluent_kafka import TopicPartition
    from confluent_kafka.admin import OffsetSpec

    admin = _admin(bootstrap)
    asked = {TopicPartition(topic, p): OffsetSpec.latest() for p in range(partitions)}
    for attempt in range(20):  # a topic just made: its leaders may not be known everywhere yet
        try:
            return {tp.partition: f.result().offset for tp, f in admin.list_offsets(asked).items()}
        except Exception:
            if attempt == 19:
                raise
            time.sleep(2)
    raise AssertionError("unreachable")


def _listed_groups(bootstrap: str) -> list[str]:
    admin = _admin(bootstrap)
    listed = admin.list_consumer_groups(request_timeout=120).result()
    return [g.group_id for g in listed.valid]


def _delete(bootstrap: str, names: list[str]) -> None:
    admin = _admin(bootstrap)
    for start in range(0, len(names), 1000):
        for future in admin.delete_consumer_groups(names[start : start + 1000], request_timeout=120).values():
            future.result(180)


def main(argv: list[str]) -> None:
    bootstrap, kind, size = argv
    if kind == "groups":
        setup_groups(bootstrap, int(size))
    elif kind == "partitions":
        setup_partitions(bootstrap, int(size))
    elif kind == "recommit":  # offset 1 on every partition of scale-pN-group again
        recommit(bootstrap, int(size))
    elif kind == "brokers":  # how many brokers the cluster has (the size argument is ignored)
        protocol = scale_wire.client(bootstrap)  # no metadata of the topics (100,000 partitions)
        try:
            print(len(protocol.manager.cluster.brokers()))
        finally:
            protocol.close()
    else:
        raise SystemExit(f"unknown kind {kind}")


if __name__ == "__main__":
    main(sys.argv[1:])
