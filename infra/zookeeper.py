"""The ZooKeeper server of a cluster of the lines before 3.3 (infra/jars.py, is_zookeeper), for
infra/cluster.py: its zoo.cfg, process and readiness. It runs from the broker's own jars, so its
version is the one that Kafka release depends on (3.4.13 for 2.1, 3.5.9 for 2.8, 3.6.3 for 3.0)."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from infra.jars import KafkaInfraError, _java, _log_config_opt, extra_jvm_opts
from infra.nodes import ZOOKEEPER_MAIN as MAIN_CLASS
from infra.nodes import _cmdline, _launch_detached, _port_open, _tail_file

# zookeeper-server-start.sh gives it 512 MB; a test cluster's few hundred znodes need far less.
JVM_OPTS = (
    "-Xmx256M",
    "-Xms64M",
    "-XX:+UseG1GC",
    "-Djava.awt.headless=true",
    # 3.4 registers log4j 1.2 MBeans, whose classes reload4j does not have.
    "-Dzookeeper.jmx.log4j.disable=true",
)
DIR = "zookeeper"

log = logging.getLogger("infra.kafka")


@dataclass
class ZooKeeper:
    """One standalone ZooKeeper server on 127.0.0.1."""

    port: int
    pid: int | None = None  # None while stopped

    @property
    def connect(self) -> str:
        return f"127.0.0.1:{self.port}"


def write_config(zk: ZooKeeper, workdir: Path) -> Path:
    base = workdir / DIR
    (base / "logs").mkdir(parents=True, exist_ok=True)
    (base / "data").mkdir(parents=True, exist_ok=True)
    config = {
        "dataDir": base / "data",
        "clientPort": zk.port,
        "clientPortAddress": "127.0.0.1",
        "tickTime": 2000,
        "maxClientCnxns": 0,
        # 3.5+ would otherwise open its admin HTTP server on port 8080.
        "admin.enableServer": "false",
    }
    path = base / "zoo.cfg"
    path.write_text("".join(f"{key}={value}\n" for key, value in config.items()))
    return path


def launch(zk: ZooKeeper, workdir: Path, version: str, libs: Path) -> subprocess.Popen[bytes]:
    """Start the server detached (own session), its output appended to zookeeper/logs/stdout.log."""
    base = workdir / DIR
    cmd = [
        _java(),
        *JVM_OPTS,
        *extra_jvm_opts(),
        f"-Dkafka.logs.dir={base / 'logs'}",
        _log_config_opt(version, "broker"),
        "-cp",
        f"{libs}/*",
        MAIN_CLASS,
        str(base / "zoo.cfg"),
    ]
    proc = _launch_detached(cmd, base)
    zk.pid = proc.pid
    log.info("zookeeper: pid %d, 127.0.0.1:%d", proc.pid, zk.port)
    return proc


def wait_ready(zk: ZooKeeper, proc: subprocess.Popen[bytes] | None, workdir: Path, timeout: float) -> None:
    """Wait until the server accepts connections; a server that exits is an error with its log's tail."""
    deadline = time.monotonic() + timeout
    while not _port_open(zk.port):
        alive = proc.poll() is None if proc is not None else is_process(zk, workdir)
        if not alive or time.monotonic() > deadline:
            what = "exited during startup" if not alive else f"not ready after {timeout:.0f} s"
            server, stdout = workdir / DIR / "logs" / "server.log", workdir / DIR / "logs" / "stdout.log"
            raise KafkaInfraError(
                f"ZooKeeper {what}\n--- {server} (tail) ---\n{_tail_file(server, 0)}"
                f"\n--- {stdout} (tail) ---\n{_tail_file(stdout, 0, lines=15)}"
            )
        time.sleep(0.1)


def is_process(zk: ZooKeeper, workdir: Path) -> bool:
    """Whether zk.pid is alive and is this cluster's ZooKeeper (not a recycled pid)."""
    if zk.pid is None:
        return False
    argv = _cmdline(zk.pid)
    return argv is not None and MAIN_CLASS in argv and str(workdir / DIR / "zoo.cfg") in argv


def kill(zk: ZooKeeper, workdir: Path, proc: subprocess.Popen[bytes] | None, wait: float) -> None:
    """SIGKILL the server (its data is thrown away with the cluster's) and wait until it is gone."""
    if zk.pid is not None and ((proc is not None and proc.poll() is None) or is_process(zk, workdir)):
        log.info("killing zookeeper (pid %s)", zk.pid)
        with contextlib.suppress(ProcessLookupError):
            os.kill(zk.pid, signal.SIGKILL)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if proc is not None and proc.pid == zk.pid:
                if proc.poll() is not None:
                    break
            elif not is_process(zk, workdir):
                break
            time.sleep(0.05)
    zk.pid = None
