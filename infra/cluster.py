"""A local cluster, for infra/kafka.py: `Cluster` (its state file, stopping and restarting nodes,
formatting, launching and waiting for the JVMs). KRaft clusters are combined broker+controller nodes;
the lines before 3.3 run brokers on one ZooKeeper server (infra/zookeeper.py)."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from infra import cds, security
from infra import zookeeper as zk
from infra.jars import (
    TOOL_JVM_OPTS,
    KafkaInfraError,
    _java,
    _log_config_opt,
    _tail_text,
    ensure_jars,
    extra_jvm_opts,
)
from infra.nodes import (
    BROKER_JVM_OPTS,
    Node,
    _is_node_process,
    _kill_strays,
    _launch_detached,
    _log_has,
    _port_open,
    _random_cluster_id,
    _secureproperties,
    _server_properties,
    _tail_file,
    ready_timeout,
)

# After SIGKILL, how long a JVM may take to be gone (a starved machine tears down a 1 GB heap slowly).
KILL_WAIT_S = 60.0
STOP_GRACE_S = 30.0  # SIGTERM (controlled shutdown) -> SIGKILL
STATE_FILE = "cluster.json"
STARTED_MESSAGE = "Kafka Server started"  # logged by KafkaRaftServer once the broker is unfenced
# Logged by a ZooKeeper-mode broker (KafkaServer) at the end of its start-up, as
# "[KafkaServer id=1] started (kafka.server.KafkaServer)" in infra/log4j-broker.properties' layout.
ZK_STARTED_MESSAGE = "] started (kafka.server.KafkaServer)"

log = logging.getLogger("infra.kafka")


# --------------------------------------------------------------------------------------------------
# Clusters


@dataclass
class Cluster:
    """A running (or stopped) local cluster; its state is kept in `<workdir>/cluster.json`."""

    version: str
    workdir: Path
    cluster_id: str
    node_list: list[Node]
    secure: bool = False  # SASL/TLS listeners and the standard authorizer (infra/security.py)
    zookeeper: zk.ZooKeeper | None = None  # the lines before 3.3; None: KRaft
    # Popen handles of the JVMs this Python process started, so that they get reaped.
    _procs: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict, repr=False, compare=False)

    # -- describing ---------------------------------------------------------------------------------

    @property
    def nodes(self) -> int:
        return len(self.node_list)

    @property
    def bootstrap(self) -> str:
        """Comma-separated host:port list of all nodes' broker listeners."""
        return ",".join(node.bootstrap for node in self.node_list)

    def bootstrap_for(self, listener: str) -> str:
        """A secure cluster's bootstrap on one of its other listeners (see infra/security.py)."""
        return ",".join(f"127.0.0.1:{node.listeners[listener]}" for node in self.node_list)

    @property
    def material(self) -> security.Material:
        """A secure cluster's TLS files and passwords."""
        return security.Material.load(self.workdir)

    def client_config(self, listener: str, user: str) -> Path:
        """The ``--command-config`` file for ``user`` on ``listener`` (written at start)."""
        return self.workdir / security.CLIENTS_DIR / f"{listener.lower()}-{user}.properties"

    def node(self, node_id: int) -> Node:
        for node in self.node_list:
            if node.node_id == node_id:
                return node
        raise KeyError(f"no node {node_id} (nodes: {[n.node_id for n in self.node_list]})")

    def node_dir(self, node_id: int) -> Path:
        return self.workdir / f"node-{node_id}"

    def server_log(self, node_id: int) -> Path:
        return self.node_dir(node_id) / "logs" / "server.log"

    def is_running(self, node_id: int | None = None) -> bool:
        """Whether the given node (default: every node) is running."""
        nodes = self.node_list if node_id is None else [self.node(node_id)]
        return all(self._alive(node) for node in nodes)

    # -- persistence --------------------------------------------------------------------------------

    @classmethod
    def load(cls, workdir: Path | str) -> Cluster:
        """Re-attach to a cluster from its state file (e.g. one started by `python -m infra.kafka start`)."""
        workdir = Path(workdir).resolve()
        try:
            state = json.loads((workdir / STATE_FILE).read_text())
        except FileNotFoundError:
            raise KafkaInfraError(f"no Kafka cluster state in {workdir} ({STATE_FILE} is missing)") from None
        nodes = [
            Node(n["node_id"], n["broker_port"], n["controller_port"], n.get("pid"), n.get("listeners", {}))
            for n in state["nodes"]
        ]
        keeper = state.get("zookeeper")
        return cls(
            state["version"],
            workdir,
            state["cluster_id"],
            nodes,
            state.get("secure", False),
            zk.ZooKeeper(keeper["port"], keeper.get("pid")) if keeper else None,
        )

    def save(self) -> None:
        state = {
            "version": self.version,
            "cluster_id": self.cluster_id,
            "bootstrap": self.bootstrap,
            "secure": self.secure,
            "zookeeper": {"port": self.zookeeper.port, "pid": self.zookeeper.pid} if self.zookeeper else None,
            "nodes": [
                {
                    "node_id": n.node_id,
                    "pid": n.pid,
                    "broker_port": n.broker_port,
                    "controller_port": n.controller_port,
                    "listeners": n.listeners,
                }
                for n in self.node_list
            ],
        }
        tmp = self.workdir / f"{STATE_FILE}.tmp"
        tmp.write_text(json.dumps(state, indent=2) + "\n")
        os.replace(tmp, self.workdir / STATE_FILE)

    # -- stopping -----------------------------------------------------------------------------------

    def stop(self, keep_logs: bool = False, grace: float = STOP_GRACE_S) -> None:
        """Stop every node (SIGTERM, SIGKILL after `grace` s; grace=0: SIGKILL at once) and delete the data.

        Removes the whole workdir, or with keep_logs=True everything but the nodes' logs.
        """
        self._terminate(self.node_list, grace=grace)
        self._kill_zookeeper()
        _kill_strays(self.workdir)
        if keep_logs:
            (self.workdir / STATE_FILE).unlink(missing_ok=True)
            for node in self.node_list:
                shutil.rmtree(self.node_dir(node.node_id) / "data", ignore_errors=True)
        else:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def stop_node(self, node_id: int, grace: float = STOP_GRACE_S) -> None:
        """Stop one node (controlled shutdown, SIGKILL after `grace` s), keeping its data for start_node()."""
        self._terminate([self.node(node_id)], grace=grace)
        self.save()

    def _terminate(self, nodes: Sequence[Node], grace: float) -> None:
        """SIGTERM the nodes and SIGKILL those still running after `grace` s (grace=0: SIGKILL at once)."""
        running = [n for n in nodes if self._alive(n)]
        for node in running:
            log.info("%s node %d (pid %s)", "stopping" if grace > 0 else "killing", node.node_id, node.pid)
            self._signal(node, signal.SIGTERM if grace > 0 else signal.SIGKILL)
        if grace > 0:
            deadline = time.monotonic() + grace
            while any(self._alive(n) for n in running) and time.monotonic() < deadline:
                time.sleep(0.1)
            for node in running:
                if self._alive(node):
                    log.warning("node %d did not stop within %.0f s; killing it", node.node_id, grace)
                    self._signal(node, signal.SIGKILL)
        deadline = time.monotonic() + KILL_WAIT_S
        while any(self._alive(n) for n in running) and time.monotonic() < deadline:
            time.sleep(0.05)
        for node in nodes:
            if self._alive(node):
                raise KafkaInfraError(f"node {node.node_id} (pid {node.pid}) survived SIGKILL")
            node.pid = None
            self._procs.pop(node.node_id, None)

    def _kill_all(self) -> None:
        """SIGKILL every node at once: for clean-up after a failed start."""
        self._terminate(self.node_list, grace=0)
        self._kill_zookeeper()
        _kill_strays(self.workdir)

    def _kill_zookeeper(self) -> None:
        """After the brokers (a broker stopping with controlled shutdown still talks to it)."""
        if self.zookeeper is not None:
            zk.kill(self.zookeeper, self.workdir, self._procs.get(0), KILL_WAIT_S)
            self._procs.pop(0, None)

    def _signal(self, node: Node, signum: int) -> None:
        if node.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(node.pid, signum)

    def _alive(self, node: Node) -> bool:
        if node.pid is None:
            return False
        proc = self._procs.get(node.node_id)
        if proc is not None and proc.pid == node.pid:
            return proc.poll() is None  # our child: poll() also reaps it
        return _is_node_process(node.pid, self.node_dir(node.node_id) / "server.properties")

    # -- starting -----------------------------------------------------------------------------------

    def start_node(self, node_id: int, timeout: float | None = None) -> None:
        """Start a stopped node again (same ports and data) and wait until it is ready (within
        `timeout` s, by default ready_timeout())."""
        timeout = ready_timeout() if timeout is None else timeout
        node = self.node(node_id)
        if self._alive(node):
            return
        offsets = self._log_offsets([node])  # ignore what the node logged in earlier runs
        try:
            self._launch(node)
            self.save()
            self._wait_ready([node], timeout, offsets)
        except BaseException:
            self._terminate([node], grace=0)
            self.save()
            raise

    def _write_config(self, node: Node) -> Path:
        node_dir = self.node_dir(node.node_id)
        (node_dir / "logs").mkdir(parents=True, exist_ok=True)
        path = node_dir / "server.properties"
        keeper = self.zookeeper.connect if self.zookeeper is not None else None
        props = _server_properties(self.version, node, self.node_list, node_dir / "data", keeper)
        if self.secure:
            props |= _secureproperties(self.material, node)
        path.write_text("".join(f"{key}={value}\n" for key, value in props.items()))
        return path

    def _start_zookeeper(self, libs: Path, timeout: float) -> None:
        """Start the cluster's ZooKeeper server (from the broker's own jars) and wait until it listens."""
        assert self.zookeeper is not None
        zk.write_config(self.zookeeper, self.workdir)
        # Key 0: node ids start at 1, so the server's Popen handle has a key of its own.
        self._procs[0] = zk.launch(self.zookeeper, self.workdir, self.version, libs)
        self.save()
        zk.wait_ready(self.zookeeper, self._procs[0], self.workdir, timeout)

    def _format(self, libs: Path) -> None:
        """Format every node's storage with the broker's own jars (kafka.tools.StorageTool). A ZooKeeper
        cluster has nothing to format.

        The storage tool is a JVM of its own, as long to start as a broker on a loaded machine, and
        what it writes for a plain cluster is the same at every start but for the ids in
        meta.properties: the first plain cluster of a release is formatted by the tool, and its
        storage kept as that release's template (STORAGE_TEMPLATE, beside its jars); later ones get
        the template's bootstrap.checkpoint and its meta.properties with their own cluster, node and
        directory ids. A secure cluster is always formatted by the tool (its SCRAM users are written
        into the storage)."""
        if self.zookeeper is not None:
            return
        template = _storage_template(libs)
        if self.secure or template is None:
            self._run_storage_tool(libs)
            if not self.secure:
                _keep_storage_template(libs, self.node_dir(self.node_list[0].node_id) / "data")
            return
        for node in self.node_list:
            _storage_from_template(
                template, self.node_dir(node.node_id) / "data", self.cluster_id, node.node_id
            )

    def _run_storage_tool(self, libs: Path) -> None:
        jvm = [_java(), *TOOL_JVM_OPTS, *extra_jvm_opts(), _log_config_opt(self.version, "tools")]
        jvm += ["-cp", f"{libs}/*"]
        storage_format = ["kafka.tools.StorageTool", "format", "--cluster-id", self.cluster_id]
        if self.secure:
            storage_format += security.scram_format_args(self.material)
        commands = [
            [*jvm, *storage_format, "--config", str(self.node_dir(node.node_id) / "server.properties")]
            for node in self.node_list
        ]
        procs = [
            subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            for cmd in commands
        ]
        failures = []
        try:
            for cmd, proc in zip(commands, procs, strict=True):
                output = proc.communicate(timeout=120)[0].decode(errors="replace")
                if proc.returncode != 0:
                    failures.append(
                        f"$ {' '.join(cmd)}\n(exit code {proc.returncode})\n{_tail_text(output, 30)}"
                    )
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
        if failures:
            raise KafkaInfraError("formatting the storage failed:\n" + "\n".join(failures))

    def _launch(self, node: Node) -> None:
        """Start the node's JVM detached (own session), with stdout/stderr appended to logs/stdout.log."""
        node_dir = self.node_dir(node.node_id)
        libs = ensure_jars(self.version)
        cmd = [
            _java(),
            *BROKER_JVM_OPTS,
            *extra_jvm_opts(),
            *cds.broker_opts(libs),  # the release's class-data sharing archive, if made (infra/cds.py)
            f"-Dkafka.logs.dir={node_dir / 'logs'}",
            _log_config_opt(self.version, "broker"),
            "-cp",
            f"{libs}/*",
            "kafka.Kafka",
            str(node_dir / "server.properties"),
        ]
        proc = _launch_detached(cmd, node_dir)
        self._procs[node.node_id] = proc
        node.pid = proc.pid
        log.info("node %d: pid %d, broker %s", node.node_id, proc.pid, node.bootstrap)

    def _log_offsets(self, nodes: Sequence[Node]) -> dict[int, int]:
        offsets = {}
        for node in nodes:
            path = self.server_log(node.node_id)
            offsets[node.node_id] = path.stat().st_size if path.exists() else 0
        return offsets

    def _wait_ready(
        self, nodes: Sequence[Node], timeout: float, offsets: dict[int, int] | None = None
    ) -> None:
        """Wait until each node logged "Kafka Server started" (after `offsets`) and accepts connections."""
        if offsets is None:
            offsets = {node.node_id: 0 for node in nodes}
        deadline = time.monotonic() + timeout
        pending = list(nodes)
        started = STARTED_MESSAGE if self.zookeeper is None else ZK_STARTED_MESSAGE
        while pending:
            for node in list(pending):
                if not self._alive(node):
                    proc = self._procs.get(node.node_id)
                    code = f" with exit code {proc.returncode}" if proc is not None else ""
                    raise KafkaInfraError(
                        f"Kafka {self.version} node {node.node_id} exited during startup{code}\n"
                        + self._log_tails([node], offsets)
                    )
                if _log_has(self.server_log(node.node_id), offsets[node.node_id], started) and (
                    _port_open(node.broker_port)
                ):
                    pending.remove(node)
            if pending and time.monotonic() > deadline:
                ids = ", ".join(str(n.node_id) for n in pending)
                raise KafkaInfraError(
                    f"Kafka {self.version} node(s) {ids} not ready after {timeout:.0f} s\n"
                    + self._log_tails(pending, offsets)
                )
            if pending:
                time.sleep(0.2)

    def _log_tails(self, nodes: Sequence[Node], offsets: dict[int, int]) -> str:
        parts = []
        for node in nodes:
            server_log = self.server_log(node.node_id)
            stdout_log = server_log.with_name("stdout.log")
            parts.append(
                f"--- {server_log} (tail) ---\n{_tail_file(server_log, offsets.get(node.node_id, 0))}"
            )
            parts.append(f"--- {stdout_log} (tail) ---\n{_tail_file(stdout_log, 0, lines=15)}")
        return "\n".join(parts)

    # -- context manager ----------------------------------------------------------------------------

    def __enter__(self) -> Cluster:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


# --------------------------------------------------------------------------------------------------
# Formatted storage, kept per release (Cluster._format)

STORAGE_TEMPLATE = "formatted-storage"  # beside a release's libs/
FORMATTED_FILES = ("bootstrap.checkpoint", "meta.properties")  # what StorageTool format writes
IDS = ("cluster.id", "node.id", "directory.id")  # the meta.properties values made anew for each node


def _storage_template(libs: Path) -> Path | None:
    """The release's kept storage template, if there is one for these very jars."""
    template = libs.parent / STORAGE_TEMPLATE
    marker = libs.parent / f"{libs.name}.complete"
    try:
        stamp = (template / "jars.stamp").read_text()
        current = marker.read_text()
    except OSError:
        return None
    if stamp != current or not all((template / name).is_file() for name in FORMATTED_FILES):
        return None
    return template


def _keep_storage_template(libs: Path, data: Path) -> None:
    """Keep what the storage tool wrote in `data` as the release's template (atomically: a
    directory made aside and renamed, so that a concurrent start sees the whole of one or none)."""
    marker = libs.parent / f"{libs.name}.complete"
    if sorted(p.name for p in data.iterdir()) != sorted(FORMATTED_FILES) or not marker.is_file():
        return  # not what this code knows the tool to write: no template, the tool runs each time
    template = libs.parent / STORAGE_TEMPLATE
    aside = libs.parent / f".{STORAGE_TEMPLATE}-{os.getpid()}"
    shutil.rmtree(aside, ignore_errors=True)
    aside.mkdir(parents=True)
    for name in FORMATTED_FILES:
        shutil.copy2(data / name, aside / name)
    (aside / "jars.stamp").write_text(marker.read_text())
    if _storage_template(libs) is None:  # none, or one of other jars (another start may keep one first)
        shutil.rmtree(template, ignore_errors=True)
        with contextlib.suppress(OSError):
            os.rename(aside, template)
    shutil.rmtree(aside, ignore_errors=True)


def _storage_from_template(template: Path, data: Path, cluster_id: str, node_id: int) -> None:
    """A node's storage as the storage tool formats it: the template's bootstrap.checkpoint, and
    its meta.properties with this cluster's id, this node's id and a new directory id."""
    data.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template / "bootstrap.checkpoint", data / "bootstrap.checkpoint")
    ids = {"cluster.id": cluster_id, "node.id": str(node_id), "directory.id": _random_cluster_id()}
    lines = []
    for line in (template / "meta.properties").read_text().splitlines():
        key = line.split("=", 1)[0]
        lines.append(f"{key}={ids[key]}" if key in IDS and not line.startswith("#") else line)
    (data / "meta.properties").write_text("\n".join(lines) + "\n")
