"""Class-data sharing (AppCDS) archives for the broker JVMs infra starts, for infra/kafka.py.

A broker JVM spends much of its start-up loading, parsing and verifying the same few thousand
classes from the release's jars. Java 17 can keep those classes, parsed and verified, in an
archive file that later JVMs map instead (a dynamic archive, on top of the JDK's own base archive:
-XX:ArchiveClassesAtExit writes it when a JVM exits, -XX:SharedArchiveFile uses it).

`build_broker_archive` (``python -m infra.kafka cds``, run by scripts/setup) makes a release's
archive once per checkout, from its own jars: it starts a one-node broker with
-XX:ArchiveClassesAtExit, writes and reads a few records through it and stops it with SIGTERM, and
the JVM writes the classes it loaded as it exits. The archive is kept beside the release's jars
(`.cache/kafka/<version>/cds/broker.jsa`) with a stamp naming the jars (their Maven marker) and the
java executable it was made with; `broker_opts` gives later broker starts the archive only while
that stamp still holds (other jars or another JDK: no archive, the broker loads its classes as
before). The JVM checks the archive itself too (its class path, the jars' sizes and times, the
JDK's base archive) and, if anything differs, runs without it; its CDS messages are turned off, so
that a refused archive never prints into a node's output.

What an archive changes is how the classes get into the JVM, not which classes or what they do.
KAFKA_INFRA_CDS=0 starts every broker without an archive (and builds none).
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from infra.jars import (
    RUN_DIR,
    SPARK_JARS_DIR,
    KafkaInfraError,
    _file_lock,
    _java,
    _tail_text,
    ensure_jars,
    ensure_spark_jars,
    is_zookeeper,
    spark_version,
)

CDS_ENV = "KAFKA_INFRA_CDS"
CDS_DIR = "cds"  # beside a release's libs/
BROKER = "broker"
SPARK_DRIVER = "driver"  # pyspark's JVM (spark-submit's driver), for SPARK_SUBMIT_OPTS
# The JVM's messages about its archives: a refused archive is a warning on stdout otherwise.
QUIET = ("-Xlog:cds=off", "-Xlog:cds+dynamic=off")
STOP_GRACE_S = 180.0  # SIGTERM until the JVM has shut down and written the archive

log = logging.getLogger("infra.kafka")

# (libs, kind) -> the file a JVM launched now should write its archive to (build_broker_archive).
_dumping: dict[tuple[Path, str], Path] = {}


def enabled() -> bool:
    return os.environ.get(CDS_ENV, "").strip() != "0"


def _paths(libs: Path, kind: str) -> tuple[Path, Path]:
    base = libs.parent / CDS_DIR
    return base / f"{kind}.jsa", base / f"{kind}.stamp"


def _stamp(libs: Path) -> str:
    """What an archive was made from: the jars (their Maven marker: version and POM hash) and the
    JDK (the java executable's real path, size and time)."""
    marker = libs.parent / f"{libs.name}.complete"
    java = Path(_java()).resolve()
    info = java.stat()
    return f"{marker.read_text().strip()}\n{java} {info.st_size} {info.st_mtime_ns}\n"


def _current(libs: Path, kind: str) -> Path | None:
    archive, stamp = _paths(libs, kind)
    try:
        if archive.stat().st_size > 0 and stamp.read_text() == _stamp(libs):
            return archive
    except OSError:
        return None
    return None


def broker_opts(libs: Path) -> list[str]:
    """The JVM options that give a broker of these jars the release's archive: none when there is
    no current one (or CDS_ENV=0); while the archive is being built, the options that write it."""
    target = _dumping.get((libs, BROKER))
    if target is not None:
        return [f"-XX:ArchiveClassesAtExit={target}", *QUIET]
    if not enabled():
        return []
    archive = _current(libs, BROKER)
    return [f"-XX:SharedArchiveFile={archive}", *QUIET] if archive is not None else []


@contextlib.contextmanager
def _dumping_to(libs: Path, kind: str, target: Path) -> Iterator[None]:
    _dumping[(libs, kind)] = target
    try:
        yield
    finally:
        _dumping.pop((libs, kind), None)


def _exercise(bootstrap: str) -> None:
    """What a test broker does at first: topics made, records written and read, a group's offsets
    committed and described, so that the classes serving those requests are archived too."""
    from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, TopicCollection
    from confluent_kafka.admin import AdminClient

    from infra.launch import produce

    topic = "cds-training"
    produce(bootstrap, topic, 200, partitions=2)
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "cds-training",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "log_level": 3,
        }
    )
    try:
        consumer.subscribe([topic])
        read = 0
        deadline = time.monotonic() + 60
        while read < 200 and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is not None and msg.error() is None:
                read += 1
        consumer.commit(asynchronous=False)
    finally:
        consumer.close()
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.list_consumer_groups().result()
    admin.describe_consumer_groups(["cds-training"])["cds-training"].result()
    admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions("cds-training")])["cds-training"].result()
    admin.describe_topics(TopicCollection([topic]))[topic].result()


def build_broker_archive(version: str, force: bool = False) -> Path | None:
    """Make `version`'s broker archive unless a current one exists; returns its path (None for a
    ZooKeeper-based line: those brokers start once or twice per suite, and are left as they are).
    Safe to call from several processes at once (a file lock; the archive is renamed into place)."""
    from infra.launch import start

    if is_zookeeper(version):
        return None
    libs = ensure_jars(version)
    archive, stamp = _paths(libs, BROKER)
    if not force and _current(libs, BROKER) is not None:
        return archive
    archive.parent.mkdir(parents=True, exist_ok=True)
    with _file_lock(archive.parent / ".lock"):
        if not force and _current(libs, BROKER) is not None:
            return archive
        began = time.monotonic()
        target = archive.with_name(f".{BROKER}-{os.getpid()}.jsa")
        target.unlink(missing_ok=True)
        workdir = RUN_DIR / f"cds-{version}-{os.getpid()}"
        log.info("making the class-data sharing archive of the Kafka %s broker ...", version)
        with _dumping_to(libs, BROKER, target):
            cluster = start(nodes=1, version=version, workdir=workdir)
        try:
            _exercise(cluster.bootstrap)
        finally:
            cluster.stop(grace=STOP_GRACE_S)  # SIGTERM: the JVM writes the archive as it exits
        try:
            if not target.is_file() or target.stat().st_size == 0:
                raise KafkaInfraError(f"the Kafka {version} broker wrote no archive to {target}")
            _check(target, libs)
            stamp.unlink(missing_ok=True)
            os.replace(target, archive)
            stamp.write_text(_stamp(libs))
        finally:
            target.unlink(missing_ok=True)
        log.info("%s: %.0f MB (%.1f s)", archive, archive.stat().st_size / 1e6, time.monotonic() - began)
    return archive


def _check(archive: Path, libs: Path) -> None:
    """The JVM maps the archive for these jars (-Xshare:on fails if it cannot)."""
    cmd = [_java(), f"-XX:SharedArchiveFile={archive}", "-Xshare:on", "-cp", f"{libs}/*", "-version"]
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise KafkaInfraError(
            f"the archive {archive} does not load:\n$ {' '.join(cmd)}\n"
            + _tail_text(proc.stdout + proc.stderr, 20)
        )


# --------------------------------------------------------------------------------------------------
# Spark's driver JVM

# The training job: a local session with the Kafka source's jars, a few rows written to Parquet and
# read back, then the JVM ended the way pyspark ends it (its stdin closed), so it writes its archive.
SPARK_TRAINING = """
import sys
from pyspark import SparkContext
from pyspark.sql import SparkSession

out, jars = sys.argv[1], sys.argv[2]
session = (
    SparkSession.builder.master("local[1]")
    .config("spark.ui.enabled", "false")
    .config("spark.ui.showConsoleProgress", "false")
    .config("spark.sql.session.timeZone", "UTC")
    .config("spark.jars", jars)
    .getOrCreate()
)
session.sparkContext.setLogLevel("ERROR")
rows = session.range(200).selectExpr("id", "cast(id as string) as v", "current_timestamp() as at")
rows.write.partitionBy("v").parquet(out)
assert session.read.parquet(out).count() == 200
session.stop()
gateway = SparkContext._gateway
gateway.proc.stdin.close()
sys.exit(gateway.proc.wait())
"""


def _spark_libs() -> Path:
    """pyspark's own jars (the driver's class path), without importing pyspark."""
    from importlib.util import find_spec

    spec = find_spec("pyspark")
    if spec is None or spec.origin is None:
        raise KafkaInfraError("pyspark is not installed (pip install -e '.[spark]')")
    return Path(spec.origin).parent / "jars"


def _spark_stamp() -> str:
    java = Path(_java()).resolve()
    info = java.stat()
    return f"pyspark {spark_version()} {_spark_libs()}\n{java} {info.st_size} {info.st_mtime_ns}\n"


def _spark_paths() -> tuple[Path, Path]:
    base = SPARK_JARS_DIR / spark_version() / CDS_DIR
    return base / f"{SPARK_DRIVER}.jsa", base / f"{SPARK_DRIVER}.stamp"


def spark_driver_opts() -> list[str]:
    """JVM options (for SPARK_SUBMIT_OPTS) that give pyspark's driver JVM its archive, if one was made
    for this pyspark and JDK; none otherwise (or with CDS_ENV=0). A JVM of another class path (a
    standalone cluster's daemons) finds the archive does not match and runs without it."""
    if not enabled():
        return []
    try:
        archive, stamp = _spark_paths()
        if archive.stat().st_size > 0 and stamp.read_text() == _spark_stamp():
            return [f"-XX:SharedArchiveFile={archive}", *QUIET]
    except (OSError, KafkaInfraError):
        return []
    return []


def build_spark_archive(force: bool = False) -> Path:
    """Make the archive of pyspark's driver JVM unless a current one exists (same lock and renaming
    as build_broker_archive): the training job above runs with -XX:ArchiveClassesAtExit."""
    import shutil
    import sys

    archive, stamp = _spark_paths()
    if not force and spark_driver_opts():
        return archive
    archive.parent.mkdir(parents=True, exist_ok=True)
    with _file_lock(archive.parent / ".lock"):
        if not force and spark_driver_opts():
            return archive
        began = time.monotonic()
        target = archive.with_name(f".{SPARK_DRIVER}-{os.getpid()}.jsa")
        target.unlink(missing_ok=True)
        scratch = RUN_DIR / f"cds-spark-{os.getpid()}"
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir(parents=True)
        jars = ",".join(str(j) for j in sorted(ensure_spark_jars().glob("*.jar")))
        own = os.environ.get("SPARK_SUBMIT_OPTS", "")
        env = {
            **os.environ,
            "SPARK_SUBMIT_OPTS": " ".join([own, f"-XX:ArchiveClassesAtExit={target}", *QUIET]),
            "SPARK_LOCAL_IP": "127.0.0.1",
        }
        log.info("making the class-data sharing archive of Spark's driver JVM ...")
        try:
            proc = subprocess.run(
                [sys.executable, "-c", SPARK_TRAINING, str(scratch / "rows"), jars],
                env=env,
                cwd=scratch,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=900,
                check=False,
            )
            if proc.returncode != 0 or not target.is_file() or target.stat().st_size == 0:
                raise KafkaInfraError(
                    f"the Spark training job wrote no archive (exit code {proc.returncode}):\n"
                    + _tail_text(proc.stdout + proc.stderr, 30)
                )
            stamp.unlink(missing_ok=True)
            os.replace(target, archive)
            stamp.write_text(_spark_stamp())
        finally:
            target.unlink(missing_ok=True)
            shutil.rmtree(scratch, ignore_errors=True)
        log.info("%s: %.0f MB (%.1f s)", archive, archive.stat().st_size / 1e6, time.monotonic() - began)
    return archive
