"""Starting a fresh local cluster (`start`, `default_workdir`) and writing test data into one
(`produce`), for infra/kafka.py."""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
import time
from pathlib import Path

from infra import security
from infra import zookeeper as zk
from infra.cluster import STATE_FILE, Cluster
from infra.jars import KAFKA_VERSION, RUN_DIR, KafkaInfraError, ensure_jars, is_zookeeper
from infra.nodes import Node, _free_ports, _kill_strays, _random_cluster_id, ready_timeout

log = logging.getLogger("infra.kafka")


def default_workdir(version: str = KAFKA_VERSION, nodes: int = 1) -> Path:
    return RUN_DIR / f"kafka-{version}-{nodes}n"


def start(
    nodes: int = 1,
    version: str = KAFKA_VERSION,
    workdir: Path | str | None = None,
    timeout: float | None = None,
    secure: bool = False,
) -> Cluster:
    """Start a fresh cluster of `nodes` nodes and wait until it is ready: combined broker+controller KRaft
    nodes, or for the lines before 3.3 brokers on one ZooKeeper server started from the same jars.

    Whatever ran in `workdir` before (default `.cache/run/kafka-<version>-<nodes>n`) is killed and its
    data deleted; ports are picked anew. The JVMs run in their own sessions, so they outlive the calling
    process; stop them with Cluster.stop() or `python -m infra.kafka stop`. `secure=True` adds the
    SASL and TLS listeners, users and the authorizer of infra/security.py, with TLS files made anew.
    """
    if nodes < 1:
        raise ValueError("nodes must be >= 1")
    on_zookeeper = is_zookeeper(version)
    if secure and on_zookeeper:
        raise KafkaInfraError(f"--secure needs a KRaft broker (3.3 or later), not {version}")
    timeout = ready_timeout() if timeout is None else timeout
    libs = ensure_jars(version)
    workdir = Path(workdir).resolve() if workdir is not None else default_workdir(version, nodes)
    _reset_workdir(workdir)
    per_node = 2 + (len(security.LISTENERS) if secure else 0)
    ports = _free_ports(per_node * nodes + 1)
    keeper = zk.ZooKeeper(ports.pop()) if on_zookeeper else None
    node_list = []
    for i in range(nodes):
        mine = ports[per_node * i : per_node * (i + 1)]
        listeners = dict(zip(security.LISTENERS, mine[2:], strict=False))
        node_list.append(Node(i + 1, mine[0], mine[1], listeners=listeners))
    cluster = Cluster(version, workdir, _random_cluster_id(), node_list, secure=secure, zookeeper=keeper)
    if secure:
        security.write_client_files(security.make_material(workdir), workdir)
    began = time.monotonic()
    mode = "ZooKeeper" if on_zookeeper else "KRaft"
    log.info("starting Kafka %s (%s), %d node(s), in %s", version, mode, nodes, workdir)
    for node in cluster.node_list:
        cluster._write_config(node)
    cluster._format(libs)
    try:
        if on_zookeeper:
            cluster._start_zookeeper(libs, timeout)
        for node in cluster.node_list:
            cluster._launch(node)
        cluster.save()
        cluster._wait_ready(cluster.node_list, timeout)
    except BaseException:
        cluster._kill_all()
        cluster.save()
        raise
    log.info("Kafka %s ready at %s (%.1f s)", version, cluster.bootstrap, time.monotonic() - began)
    return cluster


def _reset_workdir(workdir: Path) -> None:
    """Kill whatever a previous run left in `workdir` and empty it; refuse directories we did not create."""
    if workdir.exists():
        owned = (STATE_FILE, "node-", zk.DIR, security.STATE_FILE, security.TLS_DIR, security.CLIENTS_DIR)
        foreign = [p.name for p in workdir.iterdir() if not p.name.startswith(owned)]
        if foreign:
            raise KafkaInfraError(
                f"{workdir} is not a Kafka workdir made by infra/kafka.py (it holds {sorted(foreign)[:5]}); "
                "refusing to delete it"
            )
        if (workdir / STATE_FILE).exists():
            with contextlib.suppress(Exception):
                stale = Cluster.load(workdir)
                if any(stale._alive(n) for n in stale.node_list):
                    log.info("killing the previous Kafka cluster in %s", workdir)
                stale._kill_all()
        _kill_strays(workdir)
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)


# --------------------------------------------------------------------------------------------------
# Test data


def produce(
    bootstrap: str, topic: str, records: int, partitions: int | None = None, timeout: float = 300
) -> dict[int, int]:
    """Write `records` small JSON records to `topic` and return how many went to each partition.

    The topic is created with `partitions` partitions (default 1) when it does not exist; an existing
    one must have exactly `partitions` when that is given (nothing is changed otherwise). Record i
    (counted from 0 in each call) goes to partition i % P with key "i" and value
    {"id": i, "at": <UTC ISO time>}, so the counts per partition are known in advance.
    Uses confluent-kafka (a dependency of the tools), imported here only.
    """
    from confluent_kafka import KafkaException, Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    if records < 0 or (partitions is not None and partitions < 1):
        raise KafkaInfraError("records must be >= 0 and partitions >= 1")
    admin = AdminClient({"bootstrap.servers": bootstrap})
    found = admin.list_topics(timeout=30).topics.get(topic)
    if found is None:
        wanted = partitions or 1
        try:
            admin.create_topics([NewTopic(topic, wanted, -1)], operation_timeout=30)[topic].result(60)
        except KafkaException as err:
            raise KafkaInfraError(f"could not create topic {topic}: {err}") from None
        count = _wait_for_leaders(admin, topic, wanted)
    else:
        count = len(found.partitions)
        if partitions is not None and partitions != count:
            raise KafkaInfraError(f"topic {topic} exists with {count} partitions, not {partitions}")
    # Idempotent, so a retried batch is not written twice; librdkafka's own warnings (a producer id
    # retried while a new broker loads its coordinators) are not shown: failures are raised below.
    config = {"bootstrap.servers": bootstrap, "linger.ms": 50, "enable.idempotence": True, "log_level": 3}
    producer = Producer(config)
    failures: list[str] = []

    def delivered(err: object, msg: object) -> None:
        if err is not None:
            failures.append(str(err))

    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for i in range(records):
        value = json.dumps({"id": i, "at": at}).encode()
        while True:
            try:
                producer.produce(topic, value, str(i).encode(), partition=i % count, on_delivery=delivered)
                break
            except BufferError:
                producer.poll(0.1)
    left = producer.flush(timeout)
    if left or failures:
        raise KafkaInfraError(
            f"{left} record(s) not delivered in {timeout:.0f} s, {len(failures)} failed"
            + (f" (first: {failures[0]})" if failures else "")
        )
    return {p: len(range(p, records, count)) for p in range(count)}


def _wait_for_leaders(admin: object, topic: str, partitions: int, timeout: float = 30.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = admin.list_topics(topic, timeout=5).topics.get(topic)  # type: ignore[attr-defined]
        ready = found is not None and found.error is None and len(found.partitions) == partitions
        if ready and all(p.leader >= 0 for p in found.partitions.values()):
            return partitions
        time.sleep(0.1)
    raise KafkaInfraError(f"topic {topic} did not get {partitions} partitions with leaders in {timeout:.0f}s")
