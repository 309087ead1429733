"""Real Apache Kafka for tests and side-by-side comparisons, from the jars on Maven Central.

Fetches the jars with Maven, runs KRaft brokers (combined broker+controller nodes) on 127.0.0.1 as
detached JVMs, and runs the Apache CLI tools (kafka-consumer-groups.sh & co.) from the same release.
Standard library only; needs `java` (17+) and `mvn` on PATH. Everything lives under the git-ignored
`.cache/` of the checkout: jars in `.cache/kafka/<version>/libs/`, clusters in `.cache/run/`.

Library use::

    from infra import kafka

    with kafka.start() as cluster:                # single-node Kafka, the pinned release
        kafka.run_apache("kafka-topics", ["--bootstrap-server", cluster.bootstrap, "--list"])

    cluster = kafka.start(nodes=3)                 # three nodes, replication factor 3 for internal topics
    cluster.stop_node(2); cluster.start_node(2); cluster.stop()

Command line::

    python -m infra.kafka fetch [--version V]
    python -m infra.kafka fetch-spark [--version V]                                  # stdout: the jars dir
    python -m infra.kafka produce --bootstrap-server B --topic T --records N [--partitions P]
    python -m infra.kafka start [--nodes N] [--version V] [--workdir D] [--secure]   # stdout: the bootstrap
    python -m infra.kafka stop [--workdir D | --version V --nodes N | --all] [--keep-logs]
    python -m infra.kafka status [--workdir D | --version V --nodes N]
    python -m infra.kafka apache [--kafka-version V] TOOL [ARGS...]

The pinned release (KAFKA_VERSION, infra/pom.xml) is the newest whose broker, tools and Streams jars
are all on Maven Central. A 4.4.0 broker can be started too: Maven Central has only its broker
modules so far, so its Apache tools come from 4.3.1 (see TOOLS_FROM and infra/pom-4.4.xml).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import fcntl
import hashlib
import io
import json
import locale
import logging
import math
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from infra import security

__all__ = [
    "COMPAT_VERSION",
    "JVM_OPTS_ENV",
    "KAFKA_VERSION",
    "ApacheRunner",
    "Cluster",
    "KafkaInfraError",
    "Node",
    "apache_command",
    "default_workdir",
    "ensure_jars",
    "ensure_spark_jars",
    "ensure_tool_jars",
    "extra_jvm_opts",
    "main_class",
    "produce",
    "run_apache",
    "start",
    "tools_version",
]

KAFKA_VERSION = "4.3.1"
COMPAT_VERSION = "3.9.2"

INFRA_DIR = Path(__file__).resolve().parent
REPO_ROOT = INFRA_DIR.parent
JARS_DIR = REPO_ROOT / ".cache" / "kafka"
RUN_DIR = REPO_ROOT / ".cache" / "run"
SPARK_JARS_DIR = REPO_ROOT / ".cache" / "spark"  # kafka_pipeline.session looks here too

# Release line (major.minor) -> the POM in infra/ that lists its jars. The exact version is passed to
# Maven as -Dkafka.version, so any patch release of a listed line works.
POMS = {"4.4": "pom-4.4.xml", "4.3": "pom.xml", "3.9": "pom-3.9.xml"}

# Release lines whose kafka-tools / kafka-streams jars are not on Maven Central: their Apache tools
# run from this release instead. Remove the entry once Central has them (see infra/pom-4.4.xml).
TOOLS_FROM = {"4.4": "4.3.1"}

READY_TIMEOUT_S = 90.0  # from launching a node's JVM until it is ready
# Overrides READY_TIMEOUT_S (seconds): the test suite allows 300, since on a loaded 2-core CI machine a
# three-node start has taken over 90 s.
READY_TIMEOUT_ENV = "KAFKA_INFRA_READY_TIMEOUT_S"
# After SIGKILL, how long a JVM may take to be gone (a starved machine tears down a 1 GB heap slowly).
KILL_WAIT_S = 60.0
STOP_GRACE_S = 30.0  # SIGTERM (controlled shutdown) -> SIGKILL
STATE_FILE = "cluster.json"
STARTED_MESSAGE = "Kafka Server started"  # logged by KafkaRaftServer once the broker is unfenced

# bin/kafka-run-class.sh defaults (KAFKA_HEAP_OPTS, KAFKA_JVM_PERFORMANCE_OPTS) for the CLI tools.
TOOL_JVM_OPTS = (
    "-Xmx256M",
    "-server",
    "-XX:+UseG1GC",
    "-XX:MaxGCPauseMillis=20",
    "-XX:InitiatingHeapOccupancyPercent=35",
    "-XX:+ExplicitGCInvokesConcurrent",
    "-Djava.awt.headless=true",
)
# Options added to every JVM this module starts (brokers, storage formatting, the Apache tools), as
# shell words. The test suite sets "-XX:TieredStopAtLevel=1": its JVMs are short-lived or lightly
# loaded, and without the optimising compiler a broker reaches "started" on about 40% less CPU.
JVM_OPTS_ENV = "KAFKA_INFRA_JVM_OPTS"


def extra_jvm_opts() -> list[str]:
    return shlex.split(os.environ.get(JVM_OPTS_ENV, ""))


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

# bin/kafka-*.sh script name -> main class, as in the newest release line ...
TOOL_CLASSES = {
    "kafka-consumer-groups": "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
    "kafka-topics": "org.apache.kafka.tools.TopicCommand",
    "kafka-streams-groups": "org.apache.kafka.tools.streams.StreamsGroupCommand",
    "kafka-share-groups": "org.apache.kafka.tools.consumer.group.ShareGroupCommand",
    "kafka-groups": "org.apache.kafka.tools.GroupsCommand",
    "kafka-delete-records": "org.apache.kafka.tools.DeleteRecordsCommand",
    "kafka-configs": "org.apache.kafka.tools.ConfigCommand",
    "kafka-features": "org.apache.kafka.tools.FeatureCommand",
    "kafka-get-offsets": "org.apache.kafka.tools.GetOffsetShell",
    "kafka-console-producer": "org.apache.kafka.tools.ConsoleProducer",
    "kafka-console-consumer": "org.apache.kafka.tools.consumer.ConsoleConsumer",
    "kafka-streams-application-reset": "org.apache.kafka.tools.StreamsResetter",
}
# ... and where older lines differ (None: the tool does not exist in that line).
# Checked with `unzip -l` against the 4.3.1 and 3.9.2 jars. org.apache.kafka.tools.ConfigCommand (4.4)
# could not be checked: kafka-tools 4.4.0 is not on Maven Central.
TOOL_CLASS_OVERRIDES: dict[str, dict[str, str | None]] = {
    "4.3": {"kafka-configs": "kafka.admin.ConfigCommand"},
    "3.9": {
        "kafka-configs": "kafka.admin.ConfigCommand",
        "kafka-console-producer": "kafka.tools.ConsoleProducer",
        "kafka-streams-groups": None,
        "kafka-share-groups": None,
        "kafka-groups": None,
    },
}

log = logging.getLogger("infra.kafka")


class KafkaInfraError(RuntimeError):
    """Fetching jars, formatting, starting or stopping Kafka failed; the message says why."""


# --------------------------------------------------------------------------------------------------
# Releases and jars


def _line(version: str) -> str:
    parts = version.split(".")
    line = ".".join(parts[:2])
    if len(parts) != 3 or not all(p.isdigit() for p in parts) or line not in POMS:
        supported = ", ".join(f"{k}.x" for k in POMS)
        raise KafkaInfraError(f"unsupported Kafka version {version!r} (supported lines: {supported})")
    return line


def _is_log4j2(version: str) -> bool:
    """Kafka 4.x logs with log4j2; 3.x with reload4j (the log4j 1.2 API)."""
    return int(version.split(".")[0]) >= 4


def tools_version(version: str = KAFKA_VERSION) -> str:
    """The release whose Apache CLI tools (and kafka-streams) are used with a `version` broker."""
    return TOOLS_FROM.get(_line(version), version)


def _jars_stamp(version: str, pom: Path) -> str:
    return f"{version} {hashlib.sha256(pom.read_bytes()).hexdigest()}\n"


def ensure_jars(version: str = KAFKA_VERSION) -> Path:
    """Return `.cache/kafka/<version>/libs`, copying the jars there with Maven unless already done.

    A marker file (holding the version and the POM's hash) is written only after a complete copy, so a
    re-run is a no-op, an interrupted copy is redone, and editing the POM triggers a fresh copy.
    Safe to call from several processes at once.
    """
    pom = INFRA_DIR / POMS[_line(version)]
    return _maven_copy(pom, {"kafka.version": version}, JARS_DIR / version, "libs", f"Kafka {version}")


def spark_version() -> str:
    """The installed pyspark's version (the `spark` extra pins it), without importing pyspark."""
    from importlib import metadata

    try:
        return metadata.version("pyspark")
    except metadata.PackageNotFoundError:
        raise KafkaInfraError("pyspark is not installed (pip install -e '.[spark]')") from None


def ensure_spark_jars(version: str | None = None) -> Path:
    """Return `.cache/spark/<version>/jars`: Spark's Kafka source (spark-sql-kafka-0-10_2.13) and the
    runtime jars it needs that pyspark does not ship (infra/pom-spark.xml), copied with Maven unless
    already done (same marker and lock as `ensure_jars`). kafka-to-parquet passes them as local jars."""
    version = version or spark_version()
    pom = INFRA_DIR / "pom-spark.xml"
    return _maven_copy(pom, {"spark.version": version}, SPARK_JARS_DIR / version, "jars", f"Spark {version}")


def _maven_copy(pom: Path, props: dict[str, str], base: Path, name: str, what: str) -> Path:
    """Copy the runtime dependencies of `pom` into `base/name` (see ensure_jars)."""
    libs = base / name
    marker = base / f"{name}.complete"
    stamp = _jars_stamp(" ".join(props.values()), pom)

    def done() -> bool:
        return marker.is_file() and marker.read_text() == stamp and libs.is_dir()

    if done():
        return libs
    base.mkdir(parents=True, exist_ok=True)
    with _file_lock(base / ".lock"):
        if done():  # another process finished the copy while we waited
            return libs
        mvn = shutil.which("mvn")
        if mvn is None:
            raise KafkaInfraError(f"mvn (Apache Maven) is not on PATH; it is needed to fetch the {what} jars")
        marker.unlink(missing_ok=True)
        shutil.rmtree(libs, ignore_errors=True)
        cmd = [mvn, "-B", "-q", "-f", str(pom), *(f"-D{k}={v}" for k, v in props.items())]
        cmd += ["dependency:copy-dependencies", "-DincludeScope=runtime", f"-DoutputDirectory={libs}"]
        log.info("fetching the %s jars with Maven (%s) ...", what, pom.name)
        began = time.monotonic()
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False)
        jars = sorted(libs.glob("*.jar"))
        if proc.returncode != 0 or not jars:
            output = _tail_text(proc.stdout + proc.stderr, 40)
            raise KafkaInfraError(
                f"Maven could not fetch the {what} jars (exit code {proc.returncode}).\n"
                f"$ {' '.join(cmd)}\n{output}"
            )
        marker.write_text(stamp)
        size_mb = sum(j.stat().st_size for j in jars) / 1e6
        log.info("%d jars, %.0f MB in %s (%.1f s)", len(jars), size_mb, libs, time.monotonic() - began)
    return libs


def ensure_tool_jars(version: str = KAFKA_VERSION) -> Path:
    """The libs dir holding the Apache CLI tools and kafka-streams to use with a `version` broker."""
    return ensure_jars(tools_version(version))


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _java() -> str:
    """The java executable, chosen the way kafka-run-class.sh does ($JAVA_HOME first)."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home and os.access(Path(java_home, "bin", "java"), os.X_OK):
        return str(Path(java_home, "bin", "java"))
    java = shutil.which("java")
    if java is None:
        raise KafkaInfraError("java is not on PATH and JAVA_HOME is not set; Kafka needs Java 17+")
    return java


def _log_config_opt(version: str, kind: str) -> str:
    """JVM option selecting infra/log4j2-<kind>.properties (4.x) or infra/log4j-<kind>.properties (3.x)."""
    if _is_log4j2(version):
        return f"-Dlog4j2.configurationFile={INFRA_DIR / f'log4j2-{kind}.properties'}"
    return f"-Dlog4j.configuration=file:{INFRA_DIR / f'log4j-{kind}.properties'}"


# --------------------------------------------------------------------------------------------------
# Apache CLI tools


def main_class(tool: str, version: str = KAFKA_VERSION) -> str:
    """Main class of an Apache tool ("kafka-topics", "kafka-topics.sh" or a class name) in `version`'s jars.

    `version` is the release the tool runs from, i.e. usually `tools_version(broker_version)`.
    """
    name = tool.removesuffix(".sh")
    overrides = TOOL_CLASS_OVERRIDES.get(_line(version), {})
    if name in overrides:
        found = overrides[name]
        if found is None:
            raise KafkaInfraError(f"{name} does not exist in Kafka {version}")
        return found
    if name in TOOL_CLASSES:
        return TOOL_CLASSES[name]
    if "." in name:  # a fully qualified main class
        return name
    raise KafkaInfraError(f"unknown Apache tool {tool!r}; known: {', '.join(sorted(TOOL_CLASSES))}")


def apache_command(tool: str, args: Sequence[str], version: str = KAFKA_VERSION) -> list[str]:
    """argv running an Apache tool against a `version` broker the way the release's bin/*.sh scripts do.

    Fetches the jars if needed. The tool runs from `tools_version(version)`'s jars.
    """
    release = tools_version(version)
    main = main_class(tool, release)
    libs = ensure_jars(release)
    jvm = [_java(), *TOOL_JVM_OPTS, *extra_jvm_opts(), _log_config_opt(release, "tools")]
    return [*jvm, "-cp", f"{libs}/*", main, *args]


def run_apache(
    tool: str,
    args: Sequence[str],
    version: str = KAFKA_VERSION,
    timeout: float = 120,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run an Apache tool and capture stdout/stderr as text. A non-zero exit code is returned, not raised.

    `input` is sent to the tool's stdin (e.g. for kafka-console-producer); otherwise stdin is empty.
    Raises subprocess.TimeoutExpired if the tool runs longer than `timeout` seconds.
    """
    cmd = apache_command(tool, args, version)
    stdin = None if input is not None else subprocess.DEVNULL
    return subprocess.run(
        cmd, input=input, stdin=stdin, capture_output=True, text=True, timeout=timeout, check=False
    )


RUNNER_SOURCE = INFRA_DIR / "ApacheToolRunner.java"
RUNNER_BUILD_DIR = REPO_ROOT / ".cache" / "apache-runner"
_RUNNER_MAGIC = 0x4B544F4F


def compiled_classes(source: Path, libs: Path, build_dir: Path, tag: str = "") -> Path:
    """Compile the one-file Java program `source` against the jars in `libs`, once per source and libs
    (the classes dir is named by their digest, after `tag`); returns the classes dir. Processes that ask
    at once wait on a file lock while one compiles, into a staging dir renamed when javac succeeds."""
    digest = hashlib.sha256(source.read_bytes() + str(libs).encode()).hexdigest()[:12]
    classes = build_dir / f"{tag}{digest}"
    main_class = classes / f"{source.stem}.class"
    if main_class.is_file():
        return classes
    build_dir.mkdir(parents=True, exist_ok=True)
    with _file_lock(build_dir / ".lock"):
        if not main_class.is_file():
            java_home = os.environ.get("JAVA_HOME")
            javac = str(Path(java_home, "bin", "javac")) if java_home else shutil.which("javac")
            if not javac or not os.access(javac, os.X_OK):
                raise KafkaInfraError(f"javac is not on PATH; compiling {source.name} needs a JDK 17+")
            staging = build_dir / f".staging-{uuid.uuid4().hex[:8]}"
            proc = subprocess.run(
                [javac, "-d", str(staging), "-cp", f"{libs}/*", str(source)],
                capture_output=True,
                text=True,
                check=False,
            )
            if proc.returncode != 0:
                shutil.rmtree(staging, ignore_errors=True)
                raise KafkaInfraError(f"javac could not compile {source.name}:\n{proc.stderr}")
            staging.rename(classes)
    return classes


def compiled_runner(version: str = KAFKA_VERSION) -> tuple[Path, Path]:
    """Compile infra/ApacheToolRunner.java against `version`'s tool jars (once per source and release);
    returns (classes dir, libs dir)."""
    release = tools_version(version)
    libs = ensure_jars(release)
    return compiled_classes(RUNNER_SOURCE, libs, RUNNER_BUILD_DIR, tag=f"{release}-"), libs


class ApacheRunner:
    """One long-lived JVM running one release's Apache CLI tools in-process (infra/ApacheToolRunner.java).

    `run` gives what `run_apache` gives (a CompletedProcess with text stdout/stderr and the exit status)
    without starting a JVM per call. Calls are serialised. A call that outlives its timeout kills the
    JVM (the next call starts a new one) and raises subprocess.TimeoutExpired, as `run_apache` does.
    """

    def __init__(self, version: str = KAFKA_VERSION, log_dir: Path | None = None) -> None:
        self.version = version
        self.release = tools_version(version)
        self.log_dir = log_dir or RUN_DIR
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self.calls = 0
        self._scaffold_frames = 0

    def _launch(self) -> subprocess.Popen[bytes]:
        classes, libs = compiled_runner(self.version)
        cmd = [
            _java(),
            *TOOL_JVM_OPTS,
            *extra_jvm_opts(),
            _log_config_opt(self.release, "tools"),
            "-cp",
            f"{classes}{os.pathsep}{libs}/*",
            "ApacheToolRunner",
        ]
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with (self.log_dir / f"apache-runner-{self.release}.log").open("ab") as log:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
        assert proc.stdout is not None
        try:
            head = _read_exact(proc.stdout, 8)
        except EOFError:
            proc.wait(10)
            raise KafkaInfraError(
                f"the Apache tool runner did not start (see {self.log_dir}/apache-runner-{self.release}.log)"
            ) from None
        if int.from_bytes(head[:4], "big") != _RUNNER_MAGIC:
            proc.kill()
            raise KafkaInfraError("the Apache tool runner answered out of step")
        self._scaffold_frames = int.from_bytes(head[4:], "big")
        return proc

    def run(
        self, tool: str, args: Sequence[str], timeout: float = 120, input: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        if input is not None:  # the runner gives every tool an empty stdin
            return run_apache(tool, args, version=self.version, timeout=timeout, input=input)
        main = main_class(tool, self.release)
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._proc = self._launch()
            proc = self._proc
            assert proc.stdin is not None and proc.stdout is not None
            request = [main, *args]
            payload = bytearray(len(request).to_bytes(4, "big"))
            for item in request:
                data = item.encode("utf-8")
                payload += len(data).to_bytes(4, "big") + data
            result: list[object] = []

            def exchange() -> None:
                assert proc.stdin is not None and proc.stdout is not None
                try:
                    proc.stdin.write(bytes(payload))
                    proc.stdin.flush()
                    head = _read_exact(proc.stdout, 12)
                    magic, status, out_len = (
                        int.from_bytes(head[i : i + 4], "big", signed=True) for i in (0, 4, 8)
                    )
                    if magic != _RUNNER_MAGIC:
                        raise KafkaInfraError("the Apache tool runner answered out of step")
                    out = _read_exact(proc.stdout, out_len)
                    err = _read_exact(proc.stdout, int.from_bytes(_read_exact(proc.stdout, 4), "big"))
                    result.append((status, out, err))
                except BaseException as exc:
                    result.append(exc)

            worker = threading.Thread(target=exchange, daemon=True)
            worker.start()
            worker.join(timeout)
            if worker.is_alive() or not result or isinstance(result[0], BaseException):
                self._kill()
                if worker.is_alive():
                    raise subprocess.TimeoutExpired([tool, *args], timeout)
                failure = result[0] if result else None
                raise KafkaInfraError(f"the Apache tool runner died running {tool}: {failure!r}")
            status, out, err = result[0]  # type: ignore[misc]
            self.calls += 1
        frames = self._scaffold_frames
        return subprocess.CompletedProcess(
            [tool, *args], status, _unscaffold(_decode(out), frames), _unscaffold(_decode(err), frames)
        )

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(10)

    def close(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            assert proc.stdin is not None
            proc.stdin.close()  # end of requests: the runner returns from main
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def _read_exact(stream: object, n: int) -> bytes:
    chunks = bytearray()
    while len(chunks) < n:
        chunk = stream.read(n - len(chunks))  # type: ignore[attr-defined]
        if not chunk:
            raise EOFError("the Apache tool runner closed its output")
        chunks += chunk
    return bytes(chunks)


_SCAFFOLD_FRAME = re.compile(
    r"\s+at (ApacheToolRunner[.$]"
    r"|java\.base/jdk\.internal\.reflect\."
    r"|java\.base/java\.lang\.reflect\.Method\.invoke\()"
)
_MORE_FRAMES = re.compile(r"(\s+)\.\.\. (\d+) more")


def _unscaffold(text: str, frames: int) -> str:
    """Printed stack traces as a fresh JVM prints them: without the runner's frames below the tool's main.

    A nested trace ("Caused by:") elides the frames it shares with the enclosing one ("... N more");
    the runner's frames are among those shared, so N counts them too."""
    if frames <= 0 or "\tat " not in text:
        return text
    kept: list[str] = []
    for line in text.splitlines(keepends=True):
        if _SCAFFOLD_FRAME.match(line):
            continue
        more = _MORE_FRAMES.fullmatch(line.rstrip("\r\n"))
        if more and int(more.group(2)) >= frames:
            left = int(more.group(2)) - frames
            if left == 0:
                continue
            line = f"{more.group(1)}... {left} more" + line[len(line.rstrip("\r\n")) :]
        kept.append(line)
    return "".join(kept)


def _decode(data: bytes) -> str:
    """Bytes to text the way subprocess.run(text=True) does it (locale encoding, universal newlines)."""
    return io.TextIOWrapper(io.BytesIO(data), encoding=locale.getpreferredencoding(False)).read()


# --------------------------------------------------------------------------------------------------
# Clusters


@dataclass
class Node:
    """One combined broker+controller KRaft node."""

    node_id: int
    broker_port: int
    controller_port: int
    pid: int | None = None  # None while stopped
    listeners: dict[str, int] = field(default_factory=dict)  # a secure node's other listeners

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.broker_port}"


@dataclass
class Cluster:
    """A running (or stopped) local KRaft cluster; its state is kept in `<workdir>/cluster.json`."""

    version: str
    workdir: Path
    cluster_id: str
    node_list: list[Node]
    secure: bool = False  # SASL/TLS listeners and the standard authorizer (infra/secure.py)
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
        """A secure cluster's bootstrap on one of its other listeners (see infra/secure.py)."""
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
        return cls(state["version"], workdir, state["cluster_id"], nodes, state.get("secure", False))

    def save(self) -> None:
        state = {
            "version": self.version,
            "cluster_id": self.cluster_id,
            "bootstrap": self.bootstrap,
            "secure": self.secure,
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
        _kill_strays(self.workdir)

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
        props = _server_properties(self.version, node, self.node_list, node_dir / "data")
        if self.secure:
            props |= _secureproperties(self.material, node)
        path.write_text("".join(f"{key}={value}\n" for key, value in props.items()))
        return path

    def _format(self, libs: Path) -> None:
        """Format every node's storage with the broker's own jars (kafka.tools.StorageTool), in parallel."""
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
        cmd = [
            _java(),
            *BROKER_JVM_OPTS,
            *extra_jvm_opts(),
            f"-Dkafka.logs.dir={node_dir / 'logs'}",
            _log_config_opt(self.version, "broker"),
            "-cp",
            f"{ensure_jars(self.version)}/*",
            "kafka.Kafka",
            str(node_dir / "server.properties"),
        ]
        with (node_dir / "logs" / "stdout.log").open("ab") as out:
            proc = subprocess.Popen(
                cmd,
                cwd=node_dir,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
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
        while pending:
            for node in list(pending):
                if not self._alive(node):
                    proc = self._procs.get(node.node_id)
                    code = f" with exit code {proc.returncode}" if proc is not None else ""
                    raise KafkaInfraError(
                        f"Kafka {self.version} node {node.node_id} exited during startup{code}\n"
                        + self._log_tails([node], offsets)
                    )
                if _log_has(self.server_log(node.node_id), offsets[node.node_id], STARTED_MESSAGE) and (
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


def default_workdir(version: str = KAFKA_VERSION, nodes: int = 1) -> Path:
    return RUN_DIR / f"kafka-{version}-{nodes}n"


def start(
    nodes: int = 1,
    version: str = KAFKA_VERSION,
    workdir: Path | str | None = None,
    timeout: float | None = None,
    secure: bool = False,
) -> Cluster:
    """Start a fresh KRaft cluster of `nodes` combined broker+controller nodes and wait until it is ready.

    Whatever ran in `workdir` before (default `.cache/run/kafka-<version>-<nodes>n`) is killed and its
    data deleted; ports are picked anew. The JVMs run in their own sessions, so they outlive the calling
    process; stop them with Cluster.stop() or `python -m infra.kafka stop`. `secure=True` adds the
    SASL and TLS listeners, users and the authorizer of infra/secure.py, with TLS files made anew.
    """
    if nodes < 1:
        raise ValueError("nodes must be >= 1")
    timeout = ready_timeout() if timeout is None else timeout
    libs = ensure_jars(version)
    workdir = Path(workdir).resolve() if workdir is not None else default_workdir(version, nodes)
    _reset_workdir(workdir)
    per_node = 2 + (len(security.LISTENERS) if secure else 0)
    ports = _free_ports(per_node * nodes)
    node_list = []
    for i in range(nodes):
        mine = ports[per_node * i : per_node * (i + 1)]
        listeners = dict(zip(security.LISTENERS, mine[2:], strict=False))
        node_list.append(Node(i + 1, mine[0], mine[1], listeners=listeners))
    cluster = Cluster(version, workdir, _random_cluster_id(), node_list, secure=secure)
    if secure:
        security.write_client_files(security.make_material(workdir), workdir)
    began = time.monotonic()
    log.info("starting Kafka %s, %d node(s), in %s", version, nodes, workdir)
    for node in cluster.node_list:
        cluster._write_config(node)
    cluster._format(libs)
    try:
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


def _server_properties(
    version: str, node: Node, all_nodes: Sequence[Node], data_dir: Path
) -> dict[str, object]:
    """server.properties of one combined node. Static voters work the same on 3.9 and 4.x."""
    count = len(all_nodes)
    replication = min(count, 3)
    min_isr = min(replication, 2)
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
        "group.consumer.min.session.timeout.ms": 6000,
        "group.consumer.min.heartbeat.interval.ms": 1000,
    }
    if _is_log4j2(version):  # 4.x-only settings
        props |= {
            "share.coordinator.state.topic.replication.factor": replication,
            "share.coordinator.state.topic.min.isr": min_isr,
            "share.coordinator.state.topic.num.partitions": count,
            "group.streams.initial.rebalance.delay.ms": 0,
            "group.streams.min.session.timeout.ms": 6000,
            "group.streams.min.heartbeat.interval.ms": 1000,
        }
    return props


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


def _reset_workdir(workdir: Path) -> None:
    """Kill whatever a previous run left in `workdir` and empty it; refuse directories we did not create."""
    if workdir.exists():
        owned = (STATE_FILE, "node-", security.STATE_FILE, security.TLS_DIR, security.CLIENTS_DIR)
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
    """SIGKILL kafka.Kafka JVMs whose server.properties is in `workdir` (e.g. pids lost by a killed run)."""
    proc_dir = Path("/proc")
    if not proc_dir.is_dir():
        return
    prefix = f"{workdir}{os.sep}"
    for entry in proc_dir.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        argv = _cmdline(int(entry.name))
        if (
            argv
            and "kafka.Kafka" in argv
            and any(a.startswith(prefix) and a.endswith("server.properties") for a in argv)
        ):
            log.info("killing stray Kafka process %s", entry.name)
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


def _tail_text(text: str, lines: int) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


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


# --------------------------------------------------------------------------------------------------
# Command line


def _workdir_arg(args: argparse.Namespace) -> Path:
    if args.workdir is not None:
        return Path(args.workdir).resolve()
    return default_workdir(args.version, args.nodes)


def _cmd_fetch(args: argparse.Namespace) -> int:
    for version in dict.fromkeys([args.version, tools_version(args.version)]):
        print(ensure_jars(version))
    return 0


def _cmd_fetch_spark(args: argparse.Namespace) -> int:
    print(ensure_spark_jars(args.version))
    return 0


def _cmd_produce(args: argparse.Namespace) -> int:
    counts = produce(args.bootstrap_server, args.topic, args.records, args.partitions)
    spread = ", ".join(f"{p}: {n}" for p, n in counts.items())
    log.info("%d records to %s (per partition %s)", args.records, args.topic, spread)
    return 0


def _cmd_start(args: argparse.Namespace) -> int:
    cluster = start(
        nodes=args.nodes, version=args.version, workdir=args.workdir, timeout=args.timeout, secure=args.secure
    )
    if cluster.secure:
        for name in security.LISTENERS:
            print(f"{name} {cluster.bootstrap_for(name)}", file=sys.stderr)
        print(f"client configs in {cluster.workdir / security.CLIENTS_DIR}", file=sys.stderr)
    print(cluster.bootstrap)
    return 0


def _cmd_stop(args: argparse.Namespace) -> int:
    if args.all:
        workdirs = sorted(p for p in RUN_DIR.iterdir() if p.is_dir()) if RUN_DIR.is_dir() else []
    else:
        workdirs = [_workdir_arg(args)]
    for workdir in workdirs:
        if (workdir / STATE_FILE).exists():
            log.info("stopping the Kafka cluster in %s", workdir)
            Cluster.load(workdir).stop(keep_logs=args.keep_logs)
        elif workdir.exists():  # a start that died before writing its state
            _kill_strays(workdir)
            if not args.keep_logs:
                shutil.rmtree(workdir, ignore_errors=True)
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    explicit = args.workdir is not None or args.version is not None or args.nodes is not None
    if explicit:
        args.version = args.version or KAFKA_VERSION
        args.nodes = args.nodes or 1
        workdirs = [_workdir_arg(args)]
    else:
        workdirs = sorted(p.parent for p in RUN_DIR.glob(f"*/{STATE_FILE}"))
        if not workdirs:
            print("no Kafka clusters")
    all_running = True
    for workdir in workdirs:
        try:
            cluster = Cluster.load(workdir)
        except KafkaInfraError as err:
            print(err)
            all_running = False
            continue
        running = cluster.is_running()
        all_running &= running
        state = "running" if running else "NOT fully running"
        print(f"{workdir}: Kafka {cluster.version}, {cluster.nodes} node(s), {state}")
        print(f"  bootstrap {cluster.bootstrap}")
        for node in cluster.node_list:
            alive = "running" if cluster.is_running(node.node_id) else "stopped"
            print(
                f"  node {node.node_id}: {alive}, pid {node.pid}, broker {node.bootstrap}, "
                f"controller 127.0.0.1:{node.controller_port}"
            )
    return 0 if all_running or not explicit else 1


def _cmd_apache(args: argparse.Namespace) -> int:
    cmd = apache_command(args.tool, args.args, args.kafka_version)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(cmd[0], cmd)  # the tool's stdout, stderr and exit code are ours


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m infra.kafka", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    fetch = sub.add_parser("fetch", help="copy the Kafka jars into .cache/kafka (Maven)")
    fetch.add_argument("--version", default=KAFKA_VERSION)
    fetch.set_defaults(func=_cmd_fetch)

    fetch_spark = sub.add_parser(
        "fetch-spark", help="copy Spark's Kafka source jars into .cache/spark (Maven); prints the dir"
    )
    fetch_spark.add_argument("--version", help="Spark version (default: the installed pyspark's)")
    fetch_spark.set_defaults(func=_cmd_fetch_spark)

    produce_ = sub.add_parser("produce", help="write N small JSON records to a topic (created if missing)")
    produce_.add_argument("--bootstrap-server", required=True)
    produce_.add_argument("--topic", required=True)
    produce_.add_argument("--records", type=int, required=True)
    produce_.add_argument("--partitions", type=int, help="for a new topic (default 1); checked otherwise")
    produce_.set_defaults(func=_cmd_produce)

    start_ = sub.add_parser("start", help="start a fresh cluster; prints its bootstrap address")
    start_.add_argument("--nodes", type=int, default=1)
    start_.add_argument("--version", default=KAFKA_VERSION)
    start_.add_argument("--workdir", help="default: .cache/run/kafka-<version>-<nodes>n")
    start_.add_argument(
        "--timeout",
        type=float,
        default=None,
        help=f"seconds to wait for readiness (default ${READY_TIMEOUT_ENV}, else {READY_TIMEOUT_S:.0f})",
    )
    start_.add_argument(
        "--secure", action="store_true", help="add SASL/TLS listeners, users and ACL enforcement"
    )
    start_.set_defaults(func=_cmd_start)

    stop = sub.add_parser("stop", help="stop a cluster and delete its data")
    stop.add_argument("--workdir")
    stop.add_argument("--version", default=KAFKA_VERSION)
    stop.add_argument("--nodes", type=int, default=1)
    stop.add_argument("--all", action="store_true", help="every cluster under .cache/run")
    stop.add_argument("--keep-logs", action="store_true", help="delete only the data, keep the node logs")
    stop.set_defaults(func=_cmd_stop)

    status = sub.add_parser("status", help="show clusters (exit 1 if the named one is not fully running)")
    status.add_argument("--workdir")
    status.add_argument("--version")
    status.add_argument("--nodes", type=int)
    status.set_defaults(func=_cmd_status)

    apache = sub.add_parser("apache", help="run an Apache Kafka CLI tool, e.g. kafka-consumer-groups")
    apache.add_argument("--kafka-version", default=KAFKA_VERSION, help="broker version the tool is for")
    apache.add_argument("tool", help=f"one of: {', '.join(sorted(TOOL_CLASSES))} (or a main class)")
    apache.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the tool")
    apache.set_defaults(func=_cmd_apache)
    return parser


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds like Ctrl-C, so a half-started cluster is killed


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="infra.kafka: %(message)s", stream=sys.stderr)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    args = _parser().parse_args(argv)
    try:
        result: int = args.func(args)
    except KafkaInfraError as err:
        print(f"infra.kafka: error: {err}", file=sys.stderr)
        return 1
    return result


if __name__ == "__main__":
    sys.exit(main())
