"""Releases, jars and the JVM, for infra/kafka.py: the pinned versions, the jars copied from Maven
Central with Maven (Kafka's, and Spark's Kafka source), the java executable and the JVM options."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

KAFKA_VERSION = "4.3.1"
COMPAT_VERSION = "3.9.2"
# The older releases the compatibility tests run (tests/kafka/test_compat_*.py): scripts/setup fetches
# their jars. 2.1 and 2.8 run on ZooKeeper, 3.6 in KRaft mode.
COMPAT_LINES = ("2.1.1", "2.8.2", "3.6.2")

INFRA_DIR = Path(__file__).resolve().parent
REPO_ROOT = INFRA_DIR.parent
JARS_DIR = REPO_ROOT / ".cache" / "kafka"
RUN_DIR = REPO_ROOT / ".cache" / "run"
SPARK_JARS_DIR = REPO_ROOT / ".cache" / "spark"  # kafka_pipeline.session looks here too

# Release line (major.minor) -> the POM in infra/ that lists its jars. The exact version is passed to
# Maven as -Dkafka.version, so any patch release of a listed line works.
POMS = {"4.4": "pom-4.4.xml", "4.3": "pom.xml", "3.9": "pom-3.9.xml"}
# The older lines the compatibility tests can start: only their broker jar (infra/pom-legacy.xml),
# run beside the pinned release's Apache tools. 2.1 to 3.0 run on ZooKeeper, 3.3 and later in KRaft
# mode (KRAFT_FROM). Lines not listed (2.2 to 2.7, 3.1, 3.2, 3.4, 3.5) would most likely start the
# same way; they are left out because no one has tried them.
LEGACY_LINES = ("2.1", "2.8", "3.0", "3.3", "3.6", "3.7", "3.8")
LEGACY_POM = "pom-legacy.xml"
KRAFT_FROM = (3, 3)  # the first line whose KRaft mode is production-ready (KIP-833)
SCALA_213_FROM = (2, 4)  # Kafka publishes kafka_2.13 from 2.4; before it, kafka_2.12
# Lines whose own ZooKeeper does not run on Java 17: the ZooKeeper (client in the broker, and server)
# used instead. 2.1 depends on 3.4.13, whose client fails to connect on Java 14+
# (UnresolvedAddressException); the broker runs unchanged on 3.5.9, the version 2.8 depends on.
ZOOKEEPER_OVERRIDES = {"2.1": "3.5.9"}

# Release lines whose kafka-tools / kafka-streams jars are not on Maven Central: their Apache tools
# run from this release instead. Remove the entry once Central has them (see infra/pom-4.4.xml).
# The older lines' brokers are always paired with the pinned release's tools (tools_version).
TOOLS_FROM = {"4.4": "4.3.1"}

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
# Options added to every JVM infra.kafka starts (brokers, storage formatting, the Apache tools), as
# shell words. The test suite sets "-XX:TieredStopAtLevel=1": its JVMs are short-lived or lightly
# loaded, and without the optimising compiler a broker reaches "started" on about 40% less CPU.
JVM_OPTS_ENV = "KAFKA_INFRA_JVM_OPTS"


def extra_jvm_opts() -> list[str]:
    return shlex.split(os.environ.get(JVM_OPTS_ENV, ""))


log = logging.getLogger("infra.kafka")


class KafkaInfraError(RuntimeError):
    """Fetching jars, formatting, starting or stopping Kafka failed; the message says why."""


# --------------------------------------------------------------------------------------------------
# Releases and jars


def _line(version: str) -> str:
    parts = version.split(".")
    line = ".".join(parts[:2])
    if (
        len(parts) != 3
        or not all(p.isdigit() for p in parts)
        or (line not in POMS and line not in LEGACY_LINES)
    ):
        supported = ", ".join(f"{k}.x" for k in (*POMS, *reversed(LEGACY_LINES)))
        raise KafkaInfraError(f"unsupported Kafka version {version!r} (supported lines: {supported})")
    return line


def _line_tuple(version: str) -> tuple[int, int]:
    major, minor = _line(version).split(".")
    return int(major), int(minor)


def is_zookeeper(version: str) -> bool:
    """Whether infra.kafka runs a `version` broker on ZooKeeper (the lines before 3.3) rather than KRaft."""
    return _line_tuple(version) < KRAFT_FROM


def _maven_props(version: str) -> tuple[Path, dict[str, str]]:
    """The POM listing a release's jars and the properties Maven gets for it."""
    line = _line(version)
    if line in POMS:
        return INFRA_DIR / POMS[line], {"kafka.version": version}
    scala = "2.13" if _line_tuple(version) >= SCALA_213_FROM else "2.12"
    props = {"kafka.version": version, "scala.binary.version": scala}
    if line in ZOOKEEPER_OVERRIDES:
        props["zookeeper.version"] = ZOOKEEPER_OVERRIDES[line]
    return INFRA_DIR / LEGACY_POM, props


def _is_log4j2(version: str) -> bool:
    """Kafka 4.x logs with log4j2; 3.x with reload4j (the log4j 1.2 API)."""
    return int(version.split(".")[0]) >= 4


def tools_version(version: str = KAFKA_VERSION) -> str:
    """The release whose Apache CLI tools (and kafka-streams) are used with a `version` broker."""
    line = _line(version)
    if line in LEGACY_LINES:
        return KAFKA_VERSION
    return TOOLS_FROM.get(line, version)


def _jars_stamp(version: str, pom: Path) -> str:
    return f"{version} {hashlib.sha256(pom.read_bytes()).hexdigest()}\n"


def ensure_jars(version: str = KAFKA_VERSION) -> Path:
    """Return `.cache/kafka/<version>/libs`, copying the jars there with Maven unless already done.

    A marker file (holding the version and the POM's hash) is written only after a complete copy, so a
    re-run is a no-op, an interrupted copy is redone, and editing the POM triggers a fresh copy.
    Safe to call from several processes at once.
    """
    pom, props = _maven_props(version)
    return _maven_copy(pom, props, JARS_DIR / version, "libs", f"Kafka {version}")


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


def _tail_text(text: str, lines: int) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])
