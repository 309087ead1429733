"""kafka-to-parquet against a plain Spark batch over the same offsets, in one run.

    python -m bench.pipeline [--records 1000000] [--runs 3] [--bootstrap B] [--no-write]
    python -m bench.pipeline --landings 10 [--records 1000000] ...     # --every, 10 landings
    python -m bench.pipeline --workers 2 [--landings 10] ...           # on a standalone cluster
    python -m bench.pipeline --soak 1800 --rate 10000 --every 10       # a service under load

Both sides read the same records (4 partitions, 100-byte values) with Spark's Kafka source in the
same Spark session and write them as Parquet:

- plain: ``spark.read.format("kafka")`` over the offsets, ``write.parquet``;
- ours: a landing run for a new group (policy earliest): the policy resolution, the group
  commits, the per-range staging and publication included.

Runs alternate after one warm-up of each; the section in RESULTS.md gives the medians and the
extra wall time of ours over plain.

``--landings N``: ours is the service of ``--every`` (kafka_pipeline.service.Service, on the
session) landing the backlog in N landings of ``--max-records`` records/N back to back; plain is
N batches over the same N ranges of offsets, one after the other.

``--workers N``: the Spark session's master is a standalone cluster of N workers of one core each,
started here from the installed pyspark's classes (and stopped at the end); records/s is also given
per core of the cluster.

``--soak SECONDS``: ``kafka-to-parquet --every`` as a process of its own while a producer writes
``--rate`` records/s; the landings' lag, and the driver's memory (the Python process and Spark's
JVM: resident sizes, and the JVM heap from jstat) every ``--sample`` seconds.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import math
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from confluent_kafka import Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.run import write_results  # noqa: E402
from infra import kafka as local_kafka  # noqa: E402
from kafka_groups.access.cluster import KafkaAccess  # noqa: E402
from kafka_groups.core.policy import Policy  # noqa: E402
from kafka_groups.settings import ConnectionSettings  # noqa: E402
from kafka_pipeline import job  # noqa: E402
from kafka_pipeline.report import Landing  # noqa: E402
from kafka_pipeline.service import Progress, Service  # noqa: E402
from kafka_pipeline.session import SparkLaunch, installed_spark_version, resolve_source  # noqa: E402
from kafka_pipeline.sizing import spread_limit  # noqa: E402

PARTITIONS = 4
VALUE = b"x" * 100


def _topic(bootstrap: str, records: int, name: str | None = None) -> str:
    """bench-landing-<records>, filled once."""
    name = name or f"bench-landing-{records}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    if name not in admin.list_topics(timeout=30).topics:
        admin.create_topics([NewTopic(name, PARTITIONS, 1, config={"retention.ms": "-1"})])[name].result(60)
        time.sleep(1)
    have = sum(_ends(bootstrap, name).values())
    if have < records:
        producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.size": 1_000_000})
        for i in range(records - have):
            while True:
                try:
                    producer.produce(name, VALUE, partition=i % PARTITIONS)
                    break
                except BufferError:
                    producer.poll(0.1)
        producer.flush(300)
    return name


def _ends(bootstrap: str, topic: str) -> dict[str, int]:
    from confluent_kafka import Consumer

    probe = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench-probe"})
    ends = {
        str(p): probe.get_watermark_offsets(TopicPartition(topic, p), timeout=30)[1]
        for p in range(PARTITIONS)
    }
    probe.close()
    return ends


def plain(
    spark: Any,
    bootstrap: str,
    topic: str,
    ends: dict[str, int],
    out: str,
    starts: dict[str, int] | None = None,
) -> float:
    started = time.perf_counter()
    (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("assign", json.dumps({topic: [int(p) for p in ends]}))
        .option("startingOffsets", json.dumps({topic: starts or dict.fromkeys(ends, 0)}))
        .option("endingOffsets", json.dumps({topic: ends}))
        .option("failOnDataLoss", "true")
        .load()
        .write.parquet(out)
    )
    return time.perf_counter() - started


def ours(spark: Any, bootstrap: str, topic: str, out: str, group: str | None = None) -> float:
    """A landing run: into a new group, or into ``group`` after resetting it to the start
    (what `kafka-consumer-groups --reset-offsets --to-earliest --execute` commits; not timed)."""
    settings = ConnectionSettings(bootstrap, 30_000)
    if group is None:
        group = f"bench-landing-{uuid.uuid4().hex[:8]}"
    else:
        access = KafkaAccess(settings)
        try:
            access.alter_offsets({group: {(topic, p): 0 for p in range(PARTITIONS)}})
        finally:
            access.close()
    request = job.LandingRequest(settings, (topic,), group, Policy.parse("earliest"), out)
    started = time.perf_counter()
    report = job.land(request, spark)
    elapsed = time.perf_counter() - started
    assert report.offsets_landed > 0
    return elapsed


class _Collect(Progress):
    def __init__(self, request: job.LandingRequest) -> None:
        super().__init__(io.StringIO(), 0.0, request, as_json=True)
        self.landings: list[Landing] = []
        self.told: list[float] = []  # when each landing was told (perf_counter)
        self.cpu: list[float] = []  # the driver's CPU seconds then (driver_cpu)

    def tell(self, landing: Landing) -> None:
        self.told.append(time.perf_counter())
        self.cpu.append(driver_cpu())
        assert landing.status == "landed", landing
        self.landings.append(landing)


class _BackToBack(Service):
    def rest(self, seconds: float) -> None:
        """No wait: the landings follow each other, as under a backlog."""


_JVM: list[int | None] = []  # Spark's JVM, this process's child (local mode: the executors too)


def driver_cpu() -> float:
    """CPU seconds used so far by this process and Spark's JVM: steadier than wall time on a
    machine shared with other work, and in local mode it holds the executors' work too."""
    if not _JVM:
        _JVM.append(_jvm_of(os.getpid()))
    used = time.process_time()
    if _JVM[0] is not None:
        try:
            fields = Path(f"/proc/{_JVM[0]}/stat").read_text().rsplit(")", 1)[1].split()
            used += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            pass
    return used


def slices(ends: dict[str, int], landings: int) -> list[tuple[dict[str, int], dict[str, int]]]:
    """The (starts, ends) of each of ``landings`` runs of --max-records total/landings over a
    static backlog: what the service lands, by the same arithmetic."""
    limit = math.ceil(sum(ends.values()) / landings)
    position = dict.fromkeys(ends, 0)
    ranges = []
    while any(position[p] < ends[p] for p in ends):
        shares = spread_limit(limit, {p: ends[p] - position[p] for p in sorted(ends)})
        after = {p: position[p] + shares[p] for p in ends}
        ranges.append((dict(position), after))
        position = after
    return ranges


def service_landings(
    spark: Any,
    bootstrap: str,
    topic: str,
    out: str,
    landings: int,
    limit: int,
    steps: list[dict[str, float]],
    cpu: list[float],
) -> tuple[float, float]:
    """The --every service over the backlog in 1 + ``landings`` landings back to back, for a new
    group: the first landing's time (the group's creation: its start and policy recorded, the sink
    listed), and the wall time of the ``landings`` after it, up to the last one's report. The
    timed landings' steps (job.StepClock) are added to ``steps``, with ``between``: the time from
    one landing's report to the next one's start, the service's own."""
    settings = ConnectionSettings(bootstrap, 30_000)
    group = f"bench-service-{uuid.uuid4().hex[:8]}"
    request = job.LandingRequest(settings, (topic,), group, Policy.parse("earliest"), out, max_records=limit)
    collect = _Collect(request)
    lander = job.Lander(request, spark)
    service = _BackToBack(request, 0.001, collect, lander, lander.stop)
    started = time.perf_counter()
    service.run(limit=landings + 1)
    assert len(collect.landings) == landings + 1 and not collect.landings[-1].report.limited  # type: ignore[union-attr]
    for landing, told_before, told in zip(
        collect.landings[1:], collect.told[:-1], collect.told[1:], strict=True
    ):
        report = landing.report
        assert report is not None
        steps.append({**report.steps, "between": told - told_before - report.seconds})
    cpu.append(collect.cpu[-1] - collect.cpu[0])
    return collect.told[0] - started, collect.told[-1] - collect.told[0]


def plain_slices(
    spark: Any,
    bootstrap: str,
    topic: str,
    out: str,
    ranges: list[tuple[dict[str, int], dict[str, int]]],
    each: list[float],
) -> float:
    started = time.perf_counter()
    for i, (starts, ends) in enumerate(ranges):
        each.append(plain(spark, bootstrap, topic, ends, f"{out}/{i}", starts))
    return time.perf_counter() - started


def _count_label(records: int) -> str:
    """1m for 1,000,000 records, 5m for 5,000,000, else the number itself."""
    return f"{records // 1_000_000}m" if records % 1_000_000 == 0 else str(records)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Standalone:
    """A Spark standalone master and ``workers`` workers of one core each on 127.0.0.1, from the
    installed pyspark's own classes."""

    def __init__(self, workers: int, memory: str, workdir: Path) -> None:
        import pyspark

        self.home = Path(pyspark.__file__).parent
        self.cores = workers
        (workdir / "conf").mkdir(parents=True, exist_ok=True)
        self.env = {
            **os.environ,
            "SPARK_HOME": str(self.home),
            "SPARK_CONF_DIR": str(workdir / "conf"),
            "SPARK_LOCAL_IP": "127.0.0.1",
            "SPARK_DAEMON_MEMORY": "256m",
            "SPARK_WORKER_DIR": str(workdir / "work"),
            "PYSPARK_PYTHON": sys.executable,
        }
        self.master = f"spark://127.0.0.1:{_free_port()}"
        self.procs: list[subprocess.Popen[bytes]] = []
        port = self.master.rsplit(":", 1)[1]
        self._start(
            "org.apache.spark.deploy.master.Master",
            ["--host", "127.0.0.1", "--port", port, "--webui-port", str(_free_port())],
            workdir / "master.log",
            "I have been elected leader",
        )
        for i in range(workers):
            self._start(
                "org.apache.spark.deploy.worker.Worker",
                [
                    "--host",
                    "127.0.0.1",
                    "--cores",
                    "1",
                    "--memory",
                    memory,
                    "--webui-port",
                    str(_free_port()),
                    self.master,
                ],
                workdir / f"worker-{i}.log",
                "Successfully registered with master",
            )

    def _start(self, cls: str, args: list[str], log: Path, ready: str) -> None:
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [str(self.home / "bin" / "spark-class"), cls, *args],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=self.env,
                start_new_session=True,
            )  # fmt: skip
        self.procs.append(proc)
        deadline = time.monotonic() + 180
        while ready not in log.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{log.name}: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.5)

    def stop(self) -> None:
        for proc in reversed(self.procs):  # the workers first: they stop their executors
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(30)


def _session(master: str | None, conf: dict[str, str]) -> Any:
    source = resolve_source(None, None, installed_spark_version())
    return job.spark_session(launch=SparkLaunch(master, source, conf))


def _medians(times: dict[str, list[float]]) -> dict[str, float]:
    return {who: statistics.median(t) for who, t in times.items()}


def _table(times: dict[str, list[float]], records: int, cores: int) -> str:
    med = _medians(times)
    rows = "".join(
        f"| {who} | {med[who]:.2f} | {records / med[who]:,.0f} | {records / med[who] / cores:,.0f} | "
        f"{', '.join(f'{t:.2f}' for t in times[who])} |\n"
        for who in times
    )
    return (
        "| job | median wall (s) | records/s | records/s per core | all runs (s) |\n|---|---|---|---|---|\n"
        + rows
    )


def _where(opts: argparse.Namespace, cluster: Standalone | None, spark: Any) -> tuple[str, int]:
    if cluster is None:
        cores = os.cpu_count() or 1
        return f"one local Spark session (local[*], {cores} cores; pyspark {spark.version})", cores
    return (
        f"one Spark session on a standalone cluster this benchmark started: a master and {cluster.cores} "
        f"workers of 1 core and {opts.worker_memory} each, on this machine's {os.cpu_count()} cores "
        f"(pyspark {spark.version}); the driver, the broker and the benchmark share those cores",
        cluster.cores,
    )


def compare_batch(
    opts: argparse.Namespace, spark: Any, bootstrap: str, scratch: Path, cluster: Standalone | None
) -> dict[str, str]:
    topic = _topic(bootstrap, opts.records)
    ends = _ends(bootstrap, topic)
    records = sum(ends.values())
    kinds = ("plain", "ours, first run", "ours, later run")
    times: dict[str, list[float]] = {k: [] for k in kinds}
    later_group = f"bench-landing-{uuid.uuid4().hex[:8]}"
    for i in range(opts.runs + 1):  # the first round warms up both
        got = {
            "plain": plain(spark, bootstrap, topic, ends, str(scratch / f"plain-{i}")),
            "ours, first run": ours(spark, bootstrap, topic, str(scratch / f"first-{i}")),
            "ours, later run": ours(spark, bootstrap, topic, str(scratch / f"later-{i}"), later_group),
        }
        shutil.rmtree(scratch, ignore_errors=True)
        if i:
            for who, t in got.items():
                times[who].append(t)
    med = _medians(times)
    overhead = {who: (med[who] - med["plain"]) / med["plain"] * 100 for who in kinds[1:]}
    where, cores = _where(opts, cluster, spark)
    suffix = f"-cluster{cluster.cores}" if cluster else ""
    section = f"pipeline-landing-{_count_label(records)}{suffix}"
    text = (
        f"## {section}\n\n"
        f'kafka-to-parquet against a plain `spark.read.format("kafka")` batch writing Parquet, the same '
        f"{records:,} records ({PARTITIONS} partitions, 100-byte values) in {where}. "
        f"Kafka {local_kafka.KAFKA_VERSION}, {opts.runs} alternating runs after one warm-up, Python "
        f"{platform.python_version()}, Parquet written{_into(opts)}, measured {_stamp()}, {_load()}. "
        f"Written by `{_command(opts)}`.\n\n"
        "A first run lands into a new group (its start time recorded); a later run lands into a group "
        "reset to the start beforehand, as `--reset-offsets --to-earliest --execute` leaves it.\n\n"
        + _table(times, records, cores)
        + "\n"
        + "".join(
            f"**extra wall time of {who} over plain (median): {overhead[who]:+.1f}%**\n\n"
            for who in kinds[1:]
        )
    )
    return {section: text}


def compare_landings(
    opts: argparse.Namespace, spark: Any, bootstrap: str, scratch: Path, cluster: Standalone | None
) -> dict[str, str]:
    topic = _topic(bootstrap, opts.records)
    ends = _ends(bootstrap, topic)
    records = sum(ends.values())
    # The service's first landing (the group's creation) lands the first slice; the timed ones the rest.
    ranges = slices(ends, opts.landings + 1)
    assert len(ranges) == opts.landings + 1, (len(ranges), opts.landings)
    limit = math.ceil(records / (opts.landings + 1))
    timed = ranges[1:]
    timed_records = records - sum(timed[0][0].values())
    kinds = (
        "plain, one batch of all",
        f"plain, {opts.landings} batches",
        f"ours, --every: {opts.landings} landings",
    )
    times: dict[str, list[float]] = {k: [] for k in kinds}
    cpus: dict[str, list[float]] = {k: [] for k in kinds}
    first_landing: list[float] = []
    steps: list[dict[str, float]] = []
    batch_each: list[float] = []  # plain: each of the timed batches
    for i in range(opts.runs + 1):  # the first round warms up both
        order = kinds if i % 2 == 0 else tuple(reversed(kinds))
        got: dict[str, float] = {}
        used: list[float] = []
        for who in order:
            out = str(scratch / f"{i}-{kinds.index(who)}")
            cpu_before = driver_cpu()
            if who == kinds[0]:
                got[who] = plain(spark, bootstrap, topic, timed[-1][1], out, timed[0][0])
            elif who == kinds[1]:
                got[who] = plain_slices(spark, bootstrap, topic, out, timed, batch_each if i else [])
            else:
                start_up, got[who] = service_landings(
                    spark, bootstrap, topic, out, opts.landings, limit, steps if i else [], used
                )
            if i:
                cpus[who].append(used.pop() if who == kinds[2] else driver_cpu() - cpu_before)
        shutil.rmtree(scratch, ignore_errors=True)
        if i:
            first_landing.append(start_up)
            for who, t in got.items():
                times[who].append(t)
    med = _medians(times)
    like = (med[kinds[2]] - med[kinds[1]]) / med[kinds[1]] * 100
    whole = (med[kinds[2]] - med[kinds[0]]) / med[kinds[0]] * 100
    cpu_med = _medians(cpus)
    cpu_like = (cpu_med[kinds[2]] - cpu_med[kinds[1]]) / cpu_med[kinds[1]] * 100
    where, cores = _where(opts, cluster, spark)
    suffix = f"-cluster{cluster.cores}" if cluster else ""
    section = f"pipeline-service-{_count_label(records)}-{opts.landings}-landings{suffix}"
    n = opts.landings
    text = (
        f"## {section}\n\n"
        f"kafka-to-parquet `--every` landing a backlog of {records:,} records ({PARTITIONS} partitions, "
        f"100-byte values) in landings of `--max-records {limit}` one after the other "
        "(kafka_pipeline.service.Service, as the command runs it, without the wait between landings) "
        f"for a new group: its first landing, then {n} more, timed from the first one's report to the "
        f'last one\'s ({timed_records:,} records); against plain `spark.read.format("kafka")` batches '
        f"writing Parquet over the same {n} ranges of offsets one after the other, and one batch of all "
        f"of them; in {where}. "
        f"Kafka {local_kafka.KAFKA_VERSION}, {opts.runs} rounds after one warm-up, the order reversed "
        f"every other round, Python {platform.python_version()}, Parquet written{_into(opts)}, measured "
        f"{_stamp()}, {_load()}. Written by `{_command(opts)}`.\n\n"
        + _table(times, timed_records, cores)
        + f"\nThe first landing (a new group: its start and policy recorded, the sink listed) took "
        f"{statistics.median(first_landing):.2f} s (median; {_seconds(first_landing)}).\n"
        + _steps_table(steps, batch_each)
        + "\nThe driver's CPU (this process and Spark's JVM, which in local mode runs the tasks), median "
        "seconds: "
        + "; ".join(f"{who} {cpu_med[who]:.2f} ({_seconds(cpus[who])})" for who in kinds)
        + ".\n"
        + f"\n**extra wall time of ours over the same {n} plain batches (median): {like:+.1f}%**\n\n"
        f"**extra driver CPU of ours over the same {n} plain batches (median): {cpu_like:+.1f}%**\n\n"
        f"**extra wall time of ours over one plain batch of all (median): {whole:+.1f}%** "
        f"(what {n} jobs cost over one, for both)\n\n"
    )
    return {section: text}


def _steps_table(steps: list[dict[str, float]], batch_each: list[float]) -> str:
    """Where a timed landing's time goes, step by step (medians over every timed landing of
    every round), beside a plain batch's."""
    if not steps:
        return ""
    names = list(dict.fromkeys(k for s in steps for k in s))
    rows = "".join(
        f"| {name} | {statistics.median(s.get(name, 0.0) for s in steps) * 1000:.0f} | "
        f"{max(s.get(name, 0.0) for s in steps) * 1000:.0f} |\n"
        for name in names
    )
    whole = [sum(s.values()) for s in steps]
    fixed = [sum(v for k, v in s.items() if k != "read and write") for s in steps]
    return (
        "\nWhere a timed landing's time goes (job.StepClock; milliseconds, median and max over "
        f"{len(steps)} landings; `between` is the service's own time from one landing's report to the "
        "next one's start):\n\n| step | median (ms) | max (ms) |\n|---|---|---|\n"
        + rows
        + f"| **all** | {statistics.median(whole) * 1000:.0f} | {max(whole) * 1000:.0f} |\n"
        + f"| **all but the read and write** | {statistics.median(fixed) * 1000:.0f} | "
        f"{max(fixed) * 1000:.0f} |\n" + f"| a plain batch (read and write; {len(batch_each)} batches) | "
        f"{statistics.median(batch_each) * 1000:.0f} | {max(batch_each) * 1000:.0f} |\n"
    )


def _seconds(values: list[float]) -> str:
    return ", ".join(f"{t:.2f}" for t in values)


def _into(opts: argparse.Namespace) -> str:
    return f" into {opts.scratch}" if opts.scratch else " to the temporary directory"


def _stamp() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min)"


def _command(opts: argparse.Namespace) -> str:
    return "python -m bench.pipeline " + " ".join(sys.argv[1:])


# -------------------------------------------------------------------------------------------------
# The soak: a service under a steady producer


def produce_at(bootstrap: str, topic: str, rate: int, seconds: float, counts: list[int]) -> None:
    """``rate`` records/s into ``topic`` for ``seconds``, in 20 batches a second; the records sent
    so far in ``counts[0]``."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.size": 1_000_000})
    started = time.monotonic()
    sent = 0
    while True:
        elapsed = time.monotonic() - started
        if elapsed >= seconds:
            break
        due = min(int(elapsed * rate) + rate // 20, int(seconds * rate))
        while sent < due:
            try:
                producer.produce(topic, VALUE, partition=sent % PARTITIONS)
                sent += 1
            except BufferError:
                producer.poll(0.05)
        counts[0] = sent
        producer.poll(0)
        time.sleep(0.05)
    producer.flush(120)
    counts[0] = sent


def _rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _heap_mib(pid: int) -> tuple[float, float] | None:
    """The JVM's heap in use (young and old generations) and its old generation, from jstat."""
    jstat = shutil.which("jstat") or str(Path(os.environ.get("JAVA_HOME", "/usr")) / "bin" / "jstat")
    try:
        out = subprocess.run([jstat, "-gc", str(pid)], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = out.split("\n")
    if len(lines) < 2 or not lines[1].strip():
        return None
    values = dict(zip(lines[0].split(), (float(v) for v in lines[1].split()), strict=False))
    used = sum(values.get(k, 0.0) for k in ("S0U", "S1U", "EU", "OU"))
    return used / 1024, values.get("OU", 0.0) / 1024


def _jvm_of(pid: int) -> int | None:
    """Spark's JVM: the java child of the service's process."""
    try:
        found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    except OSError:
        return None
    for child in found:
        try:
            if "java" in Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")[0].decode():
                return int(child)
        except OSError:
            continue
    return None


def soak(opts: argparse.Namespace, bootstrap: str, scratch: Path) -> dict[str, str]:
    topic = f"bench-soak-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})  # alive until its future resolves
    admin.create_topics([NewTopic(topic, PARTITIONS, 1, config={"retention.ms": str(6 * 3600 * 1000)})])[
        topic
    ].result(60)
    group, out = f"{topic}-landing", scratch / "soak"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SPARK_LOCAL_IP": "127.0.0.1"}
    args = ["--bootstrap-server", bootstrap, "--topic", topic, "--group", group, "--output", str(out)]
    args += ["--every", str(opts.every), "--master", opts.master or "local[*]"]
    if opts.max_records:
        args += ["--max-records", str(opts.max_records)]
    service = subprocess.Popen(
        [sys.executable, "-m", "kafka_pipeline.cli", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env,
        start_new_session=True,
    )  # fmt: skip
    docs: list[dict[str, Any]] = []
    errors: list[str] = []
    threading.Thread(
        target=lambda: docs.extend(json.loads(line) for line in service.stdout or []), daemon=True
    ).start()
    threading.Thread(target=lambda: errors.extend(service.stderr or []), daemon=True).start()
    # The service's first landing (Spark's start) before the producer: then the clock starts.
    while not docs:
        if service.poll() is not None:
            raise RuntimeError("".join(errors)[-3000:])
        time.sleep(0.5)
    counts = [0]
    producer = threading.Thread(target=produce_at, args=(bootstrap, topic, opts.rate, opts.soak, counts))
    began = time.monotonic()
    producer.start()
    samples: list[dict[str, float | None]] = []
    jvm = None
    while producer.is_alive():
        if jvm is None:
            jvm = _jvm_of(service.pid)
        heap = _heap_mib(jvm) if jvm else None
        samples.append(
            {
                "t": time.monotonic() - began,
                "python_rss": _rss_mib(service.pid),
                "jvm_rss": _rss_mib(jvm) if jvm else None,
                "heap": heap[0] if heap else None,
                "old": heap[1] if heap else None,
                "load": os.getloadavg()[0],
            }
        )
        producer.join(opts.sample)
    produced = counts[0]
    # Until the service has landed everything, then stop it as a service manager would.
    deadline = time.monotonic() + max(120.0, opts.every * 6)
    while time.monotonic() < deadline and (not docs or docs[-1].get("lag") != 0 or _landed(docs) < produced):
        time.sleep(1)
    service.send_signal(signal.SIGTERM)
    code = service.wait(300)
    landed = _landed(docs)
    checked = _check_sink(out, topic)
    soak_docs = docs[1:]  # the first landing came before the producer
    statuses: dict[str, int] = {}
    for d in docs:
        statuses[d["status"]] = statuses.get(d["status"], 0) + 1
    text = _soak_text(opts, produced, landed, checked, code, soak_docs, statuses, samples)
    return {"pipeline-service-soak": text}


def _landed(docs: list[dict[str, Any]]) -> int:
    return sum(d["records"] or 0 for d in docs)


def _check_sink(out: Path, topic: str) -> str:
    """Each partition's published ranges follow each other from 0, and each holds as many rows as
    offsets (Parquet footers only: the record counts, not the records)."""
    import pyarrow.parquet as pq

    problems = []
    rows = 0
    for partition_dir in sorted((out / f"topic={topic}").glob("partition=*")):
        ranges = sorted(
            (int(a), int(b))
            for a, b in (d.name.removeprefix("offsets=").split("-") for d in partition_dir.glob("offsets=*"))
        )
        position = 0
        for start, end in ranges:
            if start != position:
                problems.append(f"{partition_dir.name}: a gap or overlap at {position}-{start}")
            files = list((partition_dir / f"offsets={start}-{end}").glob("*.parquet"))
            count = sum(pq.ParquetFile(f).metadata.num_rows for f in files)
            rows += count
            if count != end - start:
                problems.append(f"{partition_dir.name} offsets={start}-{end}: {count} rows")
            position = end
    return f"{rows:,} rows in contiguous ranges from offset 0" if not problems else "; ".join(problems[:5])


def _soak_text(
    opts: argparse.Namespace,
    produced: int,
    landed: int,
    checked: str,
    code: int,
    docs: list[dict[str, Any]],
    statuses: dict[str, int],
    samples: list[dict[str, float | None]],
) -> str:
    lags = [int(d["lag"]) for d in docs if d.get("lag") is not None]

    def span(key: str, first: bool) -> str:
        window = [s for s in samples if s[key] is not None]
        cut = max(1, len(window) // 6)
        part = window[:cut] if first else window[-cut:]
        values = [float(s[key]) for s in part if s[key] is not None]
        return f"{statistics.mean(values):.0f}" if values else "-"

    midway = docs[0]["elapsed_s"] + opts.soak / 2 if docs else 0.0
    half = [int(d["lag"]) for d in docs if d["elapsed_s"] >= midway and d.get("lag") is not None]
    rates = [d["records_per_s"] for d in docs if d.get("records")]
    seconds = [d["seconds"] for d in docs if d.get("records")]
    sample_rows = "".join(
        f"| {s['t']:.0f} | {_f(s['python_rss'])} | {_f(s['jvm_rss'])} | {_f(s['heap'])} | "
        f"{_f(s['old'])} | {s['load']:.1f} |\n"
        for s in samples[:: max(1, len(samples) // 12)]
    )
    lag_median = statistics.median(lags) if lags else 0
    landing_median = statistics.median(seconds) if seconds else 0
    rate_median = statistics.median(rates) if rates else 0
    memory = (
        f"Python RSS {span('python_rss', True)} / {span('python_rss', False)}, "
        f"JVM RSS {span('jvm_rss', True)} / {span('jvm_rss', False)}, "
        f"JVM heap in use {span('heap', True)} / {span('heap', False)}, "
        f"old generation {span('old', True)} / {span('old', False)}"
    )
    return (
        "## pipeline-service-soak\n\n"
        f"`kafka-to-parquet --every {opts.every:g}` (local[*], {os.cpu_count()} cores) as a process of its "
        f"own for {opts.soak:.0f} s while a producer wrote {opts.rate:,} records/s ({PARTITIONS} "
        f"partitions, 100-byte values), measured {_stamp()}, {_load()} at the end. "
        f"Written by `{_command(opts)}`.\n\n"
        f"- produced {produced:,} records; landed {landed:,} in {len(docs) + 1} landings ({statuses}; the "
        f"first one before the producer started); the sink holds {checked}; exit status {code} after "
        "SIGTERM.\n"
        f"- lag after each landing: max {max(lags, default=0):,}, median {lag_median:,.0f}, max over the "
        f"second half {max(half, default=0):,} ({opts.rate * opts.every:,.0f} records arrive per interval).\n"
        f"- landings: median {landing_median:.2f} s, max {max(seconds, default=0):.2f} s; median "
        f"{rate_median:,.0f} records/s while landing.\n"
        f"- driver memory, the first sixth of the samples against the last sixth (MiB): {memory}.\n\n"
        "| t (s) | Python RSS (MiB) | JVM RSS (MiB) | JVM heap used (MiB) | old gen (MiB) | load (1 min) |\n"
        "|---|---|---|---|---|---|\n" + sample_rows + "\n"
    )


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bootstrap", help="use this running broker instead of starting one")
    parser.add_argument("--no-write", action="store_true", help="print results without updating RESULTS.md")
    parser.add_argument(
        "--scratch",
        help="where both jobs write their Parquet (default: the system's temporary directory); a memory "
        "file system such as /dev/shm keeps disk write-back out of the timings",
    )
    parser.add_argument(
        "--landings", type=int, help="compare the --every service landing in this many landings"
    )
    parser.add_argument("--workers", type=int, help="on a standalone cluster of this many 1-core workers")
    parser.add_argument("--worker-memory", default="1g")
    parser.add_argument("--soak", type=float, help="run the service this many seconds under a producer")
    parser.add_argument("--rate", type=int, default=10_000, help="the soak's producer, records/s")
    parser.add_argument("--every", type=float, default=10.0, help="the soak's --every")
    parser.add_argument("--max-records", type=int, help="the soak's --max-records")
    parser.add_argument("--master", help="the soak's --master (default local[*])")
    parser.add_argument("--sample", type=float, default=15.0, help="the soak's sampling interval, s")
    opts = parser.parse_args()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    broker = None
    bootstrap = opts.bootstrap
    if not bootstrap:
        broker = local_kafka.start(nodes=1, workdir=ROOT / ".cache" / "run" / "bench")
        bootstrap = broker.bootstrap
    scratch = Path(tempfile.mkdtemp(prefix="bench-landing-", dir=opts.scratch))
    cluster = None
    try:
        if opts.soak:
            sections = soak(opts, bootstrap, scratch)
        else:
            conf: dict[str, str] = {}
            if opts.workers:
                cluster = Standalone(opts.workers, opts.worker_memory, scratch / "standalone")
                conf = {"spark.executor.memory": "768m", "spark.cores.max": str(opts.workers)}
            spark = _session(cluster.master if cluster else None, conf)
            if opts.landings:
                sections = compare_landings(opts, spark, bootstrap, scratch / "out", cluster)
            else:
                sections = compare_batch(opts, spark, bootstrap, scratch / "out", cluster)
            spark.stop()
        for text in sections.values():
            print(text)
        if not opts.no_write:
            write_results(sections)
    finally:
        if cluster is not None:
            cluster.stop()
        shutil.rmtree(scratch, ignore_errors=True)
        if broker is not None:
            broker.stop()


if __name__ == "__main__":
    main()
