"""One node of a local cluster (KRaft, or ZooKeeper for the lines before 3.3), for infra/cluster.py: its
ports, server.properties, JVM options, process, readiness timeout and logs, and the stray JVMs a killed
run leaves behind."""

from __future__ import annotations

import base64
import contextlib
import logging
import math
import os
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from infra import security
from infra.jars import TOOL_JVM_OPTS, KafkaInfraError, _is_log4j2, _line_tuple, _tail_text

READY_TIMEOUT_S = 90.0  # from launching a node's JVM until it is ready
# Overrides READY_TIMEOUT_S (seconds): the test suite allows 300, since on a loaded 2-core CI machine a
# three-node start has taken over 90 s.
READY_TIMEOUT_ENV = "KAFKA_INFRA_READY_TIMEOUT_S"


def ready_timeout() -> float:
    """How long a node may take to be ready: READY_TIMEOUT_ENV if set, else READY_TIMEOUT_S."""
    raw = os.environ.get(READY_TIMEOUT_ENV, "").strip()
    if not raw:
        return READY_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not (value > 0 and math.isfinite(value)):
        raise KafkaInfraError(f"{READY_TIMEOUT_ENV}={raw!r}: expected a number of seconds above 0")
    return value


# kafka-server-start.sh's default heap (KAFKA_HEAP_OPTS="-Xmx1G -Xms1G"); the suite's session broker
# holds thousands of topics and groups by its end.
BROKER_JVM_OPTS = ("-Xmx1G", "-Xms1G", *TOOL_JVM_OPTS[1:])

ZOOKEEPER_MAIN = "org.apache.zookeeper.server.ZooKeeperServerMain"  # infra/zookeeper.py

log = logging.getLogger("infra.kafka")


@dataclass
class Node:
    """One combined broker+controller KRaft node, or one broker of a ZooKeeper cluster (which
    keeps a controller port it does not use)."""

    node_id: int
    broker_port: int
    controller_port: int
    pid: int | None = None  # None while stopped
    listeners: dict[str, int] = field(default_factory=dict)  # a secure node's other listeners

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.broker_port}"


def _server_properties(
    version: str, node: Node, all_nodes: Sequence[Node], data_dir: Path, zookeeper: str | None = None
) -> dict[str, object]:
    """server.properties of one combined node (static voters work the same from 3.3 to 4.x), or of one
    broker on the ZooKeeper at `zookeeper` (host:port)."""
    count = len(all_nodes)
    replication = min(count, 3)
    min_isr = min(replication, 2)
    if zookeeper is not None:
        return _zookeeper_broker_properties(node, count, data_dir, zookeeper)
    props: dict[str, object] = {
        "process.roles": "broker,controller",
        "node.id": node.node_id,
        "controller.quorum.voters": ",".join(f"{n.node_id}@127.0.0.1:{n.controller_port}" for n in all_nodes),
        "listeners": f"PLAINTEXT://127.0.0.1:{node.broker_port},CONTROLLER://127.0.0.1:{node.controller_port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{node.broker_port}",
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
        "log.dirs": str(data_dir),
        "num.partitions": 1,
        "auto.create.topics.enable": "false",
        # Internal topics: one partition per node keeps creation and coordinator loading fast.
        "offsets.topic.replication.factor": replication,
        "offsets.topic.num.partitions": count,
        "transaction.state.log.replication.factor": replication,
        "transaction.state.log.min.isr": min_isr,
        "transaction.state.log.num.partitions": count,
        # Fast group tests: no initial rebalance delay; allow short sessions/heartbeats (KIP-848 groups).
        "group.initial.rebalance.delay.ms": 0,
    }
    if _line_tuple(version) >= (3, 7):  # KIP-848's settings (early access in 3.7)
        props |= {
            "group.consumer.min.session.timeout.ms": 6000,
            "group.consumer.min.heartbeat.interval.ms": 1000,
            # The interval the coordinator gives its members (5 s by default): a member learns of a new
            # assignment, or of partitions added to its topics, at its next heartbeat, so every
            # rebalance of a test's consumer-protocol group waited up to 5 s per step.
            "group.consumer.heartbeat.interval.ms": 1000,
        }
    if _is_log4j2(version):  # 4.x-only settings
        props |= {
            "share.coordinator.state.topic.replication.factor": replication,
            "share.coordinator.state.topic.min.isr": min_isr,
            "share.coordinator.state.topic.num.partitions": count,
            "group.streams.initial.rebalance.delay.ms": 0,
            "group.streams.min.session.timeout.ms": 6000,
            "group.streams.min.heartbeat.interval.ms": 1000,
            "group.streams.heartbeat.interval.ms": 1000,  # as group.consumer's above
        }
    return props


def _zookeeper_broker_properties(node: Node, count: int, data_dir: Path, zookeeper: str) -> dict[str, object]:
    replication = min(count, 3)
    return {
        "broker.id": node.node_id,
        "zookeeper.connect": zookeeper,
        # 2.1's default is 6 s, which a loaded machine's first connection can exceed.
        "zookeeper.connection.timeout.ms": 60000,
        "listeners": f"PLAINTEXT://127.0.0.1:{node.broker_port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{node.broker_port}",
        "log.dirs": str(data_dir),
        "num.partitions": 1,
        "auto.create.topics.enable": "false",
        "offsets.topic.replication.factor": replication,
        "offsets.topic.num.partitions": count,
        "transaction.state.log.replication.factor": replication,
        "transaction.state.log.min.isr": min(replication, 2),
        "transaction.state.log.num.partitions": count,
        "group.initial.rebalance.delay.ms": 0,
    }


def _secureproperties(material: security.Material, node: Node) -> dict[str, object]:
    listeners = {"PLAINTEXT": node.broker_port, **node.listeners}
    addresses = ",".join(f"{name}://127.0.0.1:{port}" for name, port in listeners.items())
    protocols = {"CONTROLLER": "PLAINTEXT", "PLAINTEXT": "PLAINTEXT", **security.PROTOCOLS}
    return {
        "listeners": f"{addresses},CONTROLLER://127.0.0.1:{node.controller_port}",
        "advertised.listeners": addresses,
        "listener.security.protocol.map": ",".join(f"{k}:{v}" for k, v in protocols.items()),
        **security.server_properties(material),
    }


# --------------------------------------------------------------------------------------------------
# Small helpers


def _free_ports(count: int) -> list[int]:
    """`count` distinct free TCP ports on 127.0.0.1 (bound to port 0 together, then released)."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _random_cluster_id() -> str:
    """A cluster id like `kafka-storage.sh random-uuid` prints (URL-safe base64 UUID, no leading '-')."""
    while True:
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        if not cluster_id.startswith("-"):
            return cluster_id


def _launch_detached(cmd: Sequence[str], cwd: Path) -> subprocess.Popen[bytes]:
    """Start a JVM of the cluster (a node, the ZooKeeper server) in its own session, so that it
    outlives the calling process, with stdout and stderr appended to ``cwd/logs/stdout.log``."""
    with (cwd / "logs" / "stdout.log").open("ab") as out:
        return subprocess.Popen(
            cmd,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _cmdline(pid: int) -> list[str] | None:
    """A process's argv from /proc, or None if it is gone (or a zombie)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return raw.decode(errors="replace").split("\0")[:-1] or None


def _is_node_process(pid: int, config: Path) -> bool:
    """Whether `pid` is alive and is the kafka.Kafka JVM started with `config` (not a recycled pid)."""
    if not Path("/proc").is_dir():  # no procfs: trust the pid
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    argv = _cmdline(pid)
    return argv is not None and "kafka.Kafka" in argv and str(config) in argv


def _kill_strays(workdir: Path) -> None:
    """SIGKILL kafka.Kafka JVMs whose server.properties is in `workdir` (e.g. pids lost by a killed run),
    and ZooKeeper servers whose zoo.cfg is there."""
    proc_dir = Path("/proc")
    if not proc_dir.is_dir():
        return
    prefix = f"{workdir}{os.sep}"
    for entry in proc_dir.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        argv = _cmdline(int(entry.name))
        if argv and (
            (
                "kafka.Kafka" in argv
                and any(a.startswith(prefix) and a.endswith("server.properties") for a in argv)
            )
            or (ZOOKEEPER_MAIN in argv and any(a.startswith(prefix) and a.endswith("zoo.cfg") for a in argv))
        ):
            log.info("killing stray process %s", entry.name)
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(entry.name), signal.SIGKILL)
            deadline = time.monotonic() + 10
            while _cmdline(int(entry.name)) is not None and time.monotonic() < deadline:
                time.sleep(0.05)


def _log_has(path: Path, offset: int, text: str) -> bool:
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            return text.encode() in handle.read()
    except FileNotFoundError:
        return False


def _tail_file(path: Path, offset: int, lines: int = 40) -> str:
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            return _tail_text(handle.read().decode(errors="replace"), lines) or "(empty)"
    except FileNotFoundError:
        return "(missing)"
