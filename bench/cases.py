"""The benchmark cases of bench/run.py: what each one runs (ours and the Apache tool, with the same
arguments) and the cluster state it sets up first (topics, groups, committed offsets)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    name: str
    description: str
    setup: Callable[[str], None]
    tool: str
    args: Callable[[str], list[str]]
    # Ours only (no peer has the command): then measured beside this command of ours instead
    # of the Apache tool's (the plain describe the new view adds to).
    baseline: Callable[[str], list[str]] | None = None
    # Exit codes that count as a run that did its work (the Apache tools' --help exits 1).
    apache_exits: tuple[int, ...] = (0,)
    # Ours likewise: --health exits 5 or 6 when a group is at risk or has lost records, as
    # groups that earlier cases left on the broker may be.
    our_exits: tuple[int, ...] = (0,)
    # The benchmark topics it reads: names, or prefixes ending in "-" (see make_room).
    topics: tuple[str, ...] = ()
    # The arguments of bench/bare.py that send the same requests through the same clients and
    # nothing else, measured beside ours (None: no such reference for this case).
    bare: Callable[[str], list[str]] | None = None

    def uses(self, topic: str) -> bool:
        return any(topic == t or (t.endswith("-") and topic.startswith(t)) for t in self.topics)


# -- cases ------------------------------------------------------------------------------
def _setup_groups(count: int) -> Callable[[str], None]:
    def setup(bootstrap: str) -> None:
        from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = AdminClient({"bootstrap.servers": bootstrap})
        topic = f"bench-groups-{count}"
        created = admin.create_topics([NewTopic(topic, 1, 1)])
        try:
            created[topic].result(30)
        except Exception as exc:  # an earlier run made it already
            if "TOPIC_ALREADY_EXISTS" not in str(exc):
                raise
        time.sleep(1)
        # One group per request (the client's limit); send them all, then wait for all.
        futures = [
            admin.alter_consumer_group_offsets(
                [ConsumerGroupTopicPartitions(f"bench-group-{i:05d}", [TopicPartition(topic, 0, 0)])],
                request_timeout=60,
            )
            for i in range(count)
        ]
        for batch in futures:
            for future in batch.values():
                future.result(60)

    return setup


def _setup_active_group(bootstrap: str) -> None:
    """bench-describe: a 10-partition topic with records and an Empty group that committed
    offsets on every partition (the group the describe case reads)."""
    from confluent_kafka import Consumer, Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    topic, group = "bench-describe", "bench-describe-group"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    created = admin.create_topics([NewTopic(topic, 10, 1)])
    try:
        created[topic].result(30)
    except Exception as exc:
        if "TOPIC_ALREADY_EXISTS" not in str(exc):
            raise
        return
    time.sleep(1)
    producer = Producer({"bootstrap.servers": bootstrap})
    for i in range(1000):
        producer.produce(topic, value=b"x", partition=i % 10)
    producer.flush(30)
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    consumer.subscribe([topic])
    read, deadline = 0, time.monotonic() + 60
    while read < 800 and time.monotonic() < deadline:
        msg = consumer.poll(0.5)
        if msg is not None and not msg.error():
            read += 1
    consumer.commit(asynchronous=False)
    consumer.close()


def _setup_reset(partitions: int) -> Callable[[str], None]:
    """bench-reset-<N>: a topic of N partitions, one record each, and an Empty group with an
    offset committed on every partition."""

    def setup(bootstrap: str) -> None:
        from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
        from confluent_kafka.admin import AdminClient

        from bench.setup_helpers import grow_topic

        topic, group = f"bench-reset-{partitions}", f"bench-reset-{partitions}-group"
        admin = AdminClient({"bootstrap.servers": bootstrap, "socket.timeout.ms": 300000})
        grow_topic(admin, topic, partitions, metadata_timeout_s=30, leaders_within_s=300)
        request = ConsumerGroupTopicPartitions(
            group, [TopicPartition(topic, p, 0) for p in range(partitions)]
        )
        for attempt in range(3):  # a fresh broker may still be loading its offsets topic
            try:
                admin.alter_consumer_group_offsets([request], request_timeout=300)[group].result(600)
                break
            except Exception:
                if attempt == 2:
                    raise
                time.sleep(5)

    return setup


def _reset_args(partitions: int, *extra: str) -> Callable[[str], list[str]]:
    group, topic = f"bench-reset-{partitions}-group", f"bench-reset-{partitions}"
    return lambda bs: [
        "--bootstrap-server",
        bs,
        "--reset-offsets",
        "--group",
        group,
        "--topic",
        topic,
        "--to-earliest",
        *extra,
    ]


def _bare_reset(partitions: int, mode: str) -> Callable[[str], list[str]]:
    return lambda bs: ["reset", bs, f"bench-reset-{partitions}-group", f"bench-reset-{partitions}", mode]


def _setup_topics(count: int, partitions: int) -> Callable[[str], None]:
    """bench-topic-NNNN: ``count`` topics of ``partitions`` partitions each (created once)."""

    def setup(bootstrap: str) -> None:
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = AdminClient({"bootstrap.servers": bootstrap})
        existing = set(admin.list_topics(timeout=30).topics)
        wanted = [f"bench-topic-{i:04d}" for i in range(count)]
        missing = [NewTopic(t, partitions, 1) for t in wanted if t not in existing]
        for start in range(0, len(missing), 100):  # the controller takes them in batches
            futures = admin.create_topics(missing[start : start + 100], operation_timeout=120)
            for future in futures.values():
                future.result(180)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            topics = admin.list_topics(timeout=30).topics
            if all(t in topics and len(topics[t].partitions) == partitions for t in wanted):
                return
            time.sleep(1)
        raise TimeoutError("the benchmark topics did not appear")

    return setup


def _setup_lag(partitions: int) -> Callable[[str], None]:
    """bench-lag-<N>: a topic of N partitions, three records each with timestamps an hour
    old, and an Empty group committed at offset 1 on every partition (lag 2 everywhere)."""

    def setup(bootstrap: str) -> None:
        from confluent_kafka import ConsumerGroupTopicPartitions, Producer, TopicPartition
        from confluent_kafka.admin import AdminClient, NewTopic

        topic, group = f"bench-lag-{partitions}", f"bench-lag-{partitions}-group"
        admin = AdminClient({"bootstrap.servers": bootstrap})
        created = admin.create_topics([NewTopic(topic, partitions, 1)], operation_timeout=120)
        try:
            created[topic].result(180)
        except Exception as exc:
            if "TOPIC_ALREADY_EXISTS" not in str(exc):
                raise
            return
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            described = admin.list_topics(topic, timeout=30).topics[topic].partitions
            if len(described) == partitions and all(p.leader >= 0 for p in described.values()):
                break
            time.sleep(1)
        producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
        stamp = int(time.time() * 1000) - 3_600_000
        for p in range(partitions):
            for i in range(3):
                producer.produce(topic, value=b"x" * 100, partition=p, timestamp=stamp + i)
        producer.flush(60)
        request = ConsumerGroupTopicPartitions(
            group, [TopicPartition(topic, p, 1) for p in range(partitions)]
        )
        admin.alter_consumer_group_offsets([request], request_timeout=120)[group].result(180)

    return setup


def _setup_all(*setups: Callable[[str], None]) -> Callable[[str], None]:
    def setup(bootstrap: str) -> None:
        for one in setups:
            one(bootstrap)

    return setup


def _no_setup(_bootstrap: str) -> None:
    return None


def _cg(*args: str) -> Callable[[str], list[str]]:
    return lambda bs: ["--bootstrap-server", bs, *args]


CASES = {
    c.name: c
    for c in (
        Case(
            "list-groups-100",
            "kafka-consumer-groups --list, 100 groups",
            _setup_groups(100),
            "kafka-consumer-groups",
            _cg("--list"),
            topics=("bench-groups-100",),
            bare=lambda bs: ["list", bs],
        ),
        Case(
            "list-groups-1000",
            "kafka-consumer-groups --list, 1,000 groups",
            _setup_groups(1000),
            "kafka-consumer-groups",
            _cg("--list"),
            topics=("bench-groups-1000",),
            bare=lambda bs: ["list", bs],
        ),
        Case(
            "describe-group-10p",
            "kafka-consumer-groups --describe --group G, one group on 10 partitions",
            _setup_active_group,
            "kafka-consumer-groups",
            _cg("--describe", "--group", "bench-describe-group"),
            topics=("bench-describe",),
            bare=lambda bs: ["describe", bs, "bench-describe-group"],
        ),
        Case(
            "describe-all-groups-1000",
            "kafka-consumer-groups --describe --all-groups, 1,000 groups",
            _setup_groups(1000),
            "kafka-consumer-groups",
            _cg("--describe", "--all-groups"),
            topics=("bench-groups-1000",),
        ),
        Case(
            "topics-describe-1000x10",
            "kafka-topics --describe, 1,000 topics of 10 partitions",
            _setup_topics(1000, 10),
            "kafka-topics",
            _cg("--describe", "--topic", "bench-topic-.*"),
            topics=("bench-topic-",),
        ),
        Case(
            "topics-list-1000",
            "kafka-topics --list, 1,000+ topics",
            _setup_topics(1000, 10),
            "kafka-topics",
            _cg("--list"),
            topics=("bench-topic-",),
        ),
        Case(
            "health-all-groups-1000",
            "kafka-consumer-groups --describe --all-groups --health (ours only), 1,000 groups; "
            "beside our plain --describe --all-groups",
            _setup_groups(1000),
            "kafka-consumer-groups",
            _cg("--describe", "--all-groups", "--health"),
            baseline=_cg("--describe", "--all-groups"),
            our_exits=(0, 5, 6),
            topics=("bench-groups-1000",),
        ),
        Case(
            "lag-time-1000p",
            "kafka-consumer-groups --describe --group G --lag-time (ours only), one group with lag on "
            "1,000 partitions; beside our plain --describe --group G",
            _setup_lag(1000),
            "kafka-consumer-groups",
            _cg("--describe", "--group", "bench-lag-1000-group", "--lag-time"),
            baseline=_cg("--describe", "--group", "bench-lag-1000-group"),
            topics=("bench-lag-1000",),
        ),
        *(
            Case(
                f"reset-{mode}-{n}p",
                f"kafka-consumer-groups --reset-offsets --to-earliest --{mode}, one group, {n:,} partitions",
                _setup_reset(n),
                "kafka-consumer-groups",
                _reset_args(n, f"--{mode}"),
                topics=(f"bench-reset-{n}",),
                bare=_bare_reset(n, f"--{mode}"),
            )
            for n in (10, 1000, 10000)
            for mode in ("dry-run", "execute")
        ),
        Case(
            "describe-group-10000p",
            "kafka-consumer-groups --describe --group G, one group on 10,000 partitions",
            _setup_reset(10000),
            "kafka-consumer-groups",
            _cg("--describe", "--group", "bench-reset-10000-group"),
            topics=("bench-reset-10000",),
            bare=lambda bs: ["describe", bs, "bench-reset-10000-group"],
        ),
        Case(
            "describe-all-groups-1000-and-10000p",
            "kafka-consumer-groups --describe --all-groups, 1,000 groups and one group on 10,000 partitions "
            "(every group on the broker: a few more from the other cases)",
            _setup_all(_setup_groups(1000), _setup_reset(10000)),
            "kafka-consumer-groups",
            _cg("--describe", "--all-groups"),
            topics=("bench-groups-1000", "bench-reset-10000"),
        ),
        Case(
            "topics-describe-400x10",
            "kafka-topics --describe, 400 topics of 10 partitions (a regex over 1,000)",
            _setup_topics(1000, 10),
            "kafka-topics",
            _cg("--describe", "--topic", "bench-topic-0[0-3].*"),
            topics=("bench-topic-",),
        ),
        *(
            Case(
                f"help-{tool.removeprefix('kafka-')}",
                f"{tool} --help (no broker contacted; the Apache tool exits 1 after its usage)",
                _no_setup,
                tool,
                lambda _bs: ["--help"],
                apache_exits=(1,),
            )
            for tool in ("kafka-consumer-groups", "kafka-streams-groups", "kafka-topics")
        ),
    )
}
