"""kafka-to-parquet as a service (--every) and in bounded runs (--max-records, --min-partitions), on
a real broker of this module's own (it is paused) and one local Spark session for the module.

The landings run in this process on that session (kafka_pipeline.service.Service, as the CLI runs
them), with SIGTERM sent to this process where a test is about signals; one test runs the CLI as a
process of its own. After each test every record has landed exactly once, counted by offset in
the Parquet output."""

from __future__ import annotations

import io
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from infra import kafka as local_kafka
from kafka_groups.core.policy import Policy
from kafka_groups.settings import ConnectionSettings
from kafka_pipeline import job
from kafka_pipeline.job import Lander, LandingReport, LandingRequest, StopControl, land
from kafka_pipeline.report import Landing
from kafka_pipeline.service import Progress, Service, stop_on_signals
from tests.conftest import ROOT
from tests.kafka_helpers import committed, create_topic, grow_with_ours, produce_n, restore_nodes, unique

pytest.importorskip("pyspark")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture(scope="module")
def cluster() -> Iterator[local_kafka.Cluster]:
    """A single-node cluster of this module's own: its tests pause the broker."""
    started = local_kafka.start(nodes=1, workdir=local_kafka.RUN_DIR / f"pytest-landing-{unique('c')}")
    try:
        yield started
    finally:
        started.stop(grace=0)


@pytest.fixture(autouse=True)
def serving(cluster: local_kafka.Cluster) -> Iterator[None]:
    restore_nodes(cluster)
    yield
    _resume(cluster)  # whatever a failed test left paused


@pytest.fixture(scope="module")
def spark():
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = job.spark_session("local[2]")
    yield session
    session.stop()


def _pid(cluster: local_kafka.Cluster) -> int:
    pid = cluster.node(1).pid
    assert pid is not None
    return pid


def _pause(cluster: local_kafka.Cluster) -> None:
    os.kill(_pid(cluster), signal.SIGSTOP)


def _resume(cluster: local_kafka.Cluster) -> None:
    os.kill(_pid(cluster), signal.SIGCONT)


def _filled(cluster, tmp_path: Path, name: str, records: dict[int, int]) -> tuple[str, str, Path]:
    """A new topic with as many partitions as ``records`` names, that many records produced into
    each; a new group of the same name; the sink's directory under ``tmp_path``."""
    topic = create_topic(cluster.bootstrap, unique(name), partitions=len(records))
    produce_n(cluster.bootstrap, topic, records)
    return topic, unique(name), tmp_path / "o"


def _request(
    cluster, topic: str, group: str, out: Path, policy: str = "earliest", timeout_ms: int = 30_000, **kw
):
    policy_kw = {k: kw.pop(k) for k in ("max_age",) if k in kw}
    return LandingRequest(
        ConnectionSettings(cluster.bootstrap, timeout_ms),
        (topic,),
        group,
        Policy.parse(policy, **policy_kw),
        str(out),
        **kw,
    )


def _landed(out: Path) -> Counter[tuple[int, int]]:
    """Every (partition, offset) in the sink, with how often it is there."""
    if not out.exists() or not any(p.name.startswith("topic=") for p in out.iterdir()):
        return Counter()
    rows = pq.read_table(str(out), columns=["partition", "offset"]).to_pylist()
    return Counter((int(r["partition"]), r["offset"]) for r in rows)


def _expected(ends: dict[int, int], starts: dict[int, int] | None = None) -> Counter[tuple[int, int]]:
    return Counter((p, o) for p, end in ends.items() for o in range((starts or {}).get(p, 0), end))


def _ends(cluster, topic: str, partitions: int) -> dict[int, int]:
    from confluent_kafka import Consumer, TopicPartition

    probe = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": unique("probe")})
    try:
        return {
            p: probe.get_watermark_offsets(TopicPartition(topic, p), timeout=30)[1] for p in range(partitions)
        }
    finally:
        probe.close()


class Recorder(Progress):
    """The service's JSON Lines, kept as documents; ``after[n]`` runs once landing n is told."""

    def __init__(
        self, request: LandingRequest, every_s: float, after: dict[int, Callable[[], None]] | None = None
    ):
        super().__init__(io.StringIO(), every_s, request, as_json=True)
        self.docs: list[dict] = []
        self.after = after or {}

    def tell(self, landing: Landing) -> None:
        super().tell(landing)
        self.docs.append(json.loads(self.out.getvalue().splitlines()[-1]))
        action = self.after.get(landing.number)
        if action is not None:
            action()


def _service(request, spark, every_s: float, after=None) -> tuple[Service, Recorder]:
    stop = StopControl()
    recorder = Recorder(request, every_s, after)
    lander = Lander(request, spark, stop=stop)
    return Service(request, every_s, recorder, lander, stop), recorder


def _signal_self_later(delay_s: float) -> threading.Timer:
    timer = threading.Timer(delay_s, os.kill, (os.getpid(), signal.SIGTERM))
    timer.start()
    return timer


def test_landings_take_records_as_they_arrive(cluster, spark, tmp_path):
    topic, group, out = _filled(cluster, tmp_path, "arrive", {0: 40, 1: 10, 2: 0})
    writing, written = threading.Event(), Counter()

    def producer() -> None:
        while not writing.is_set():
            batch = {0: 7, 1: 3, 2: 1}
            produce_n(cluster.bootstrap, topic, batch)
            written.update(batch)
            time.sleep(0.2)

    request = _request(cluster, topic, group, out)
    svc, recorder = _service(request, spark, every_s=1.0)
    thread = threading.Thread(target=producer)
    thread.start()
    try:
        svc.run(limit=4)
    finally:
        writing.set()
        thread.join()
    svc.run(limit=5)  # the records written during the fourth landing
    ends = {0: 40 + written[0], 1: 10 + written[1], 2: written[2]}
    assert [d["status"] for d in recorder.docs] == ["landed"] * 5
    assert sum(d["records"] for d in recorder.docs) == sum(ends.values())
    assert [d["landing"] for d in recorder.docs] == [1, 2, 3, 4, 5]
    assert recorder.docs[-1]["lag"] == 0
    assert recorder.docs[0]["records"] >= 50  # the backlog, and what arrived before it was planned
    assert _landed(out) == _expected(ends)
    assert committed(cluster.bootstrap, group) == {(topic, p): e for p, e in ends.items()}
    # Each landing starts where the one before committed.
    for before, after in zip(recorder.docs, recorder.docs[1:], strict=False):
        assert {p["partition"]: p["end"] for p in before["partitions"]} == {
            p["partition"]: p["start"] for p in after["partitions"]
        }


@pytest.mark.parametrize(
    "options",
    [{"policy": "earliest"}, {"policy": "to_start_time"}, {"policy": "latest", "max_age": "PT10M"}],
    ids=["earliest", "to_start_time", "latest+max_age"],
)
def test_partitions_added_while_running_land_from_their_beginning(cluster, spark, ours, tmp_path, options):
    topic, group, out = _filled(cluster, tmp_path, "grow", {0: 5, 1: 5})
    # The partitions there before the group: earliest lands their history; to_start_time and latest
    # start them at their end (the group starts now; their age is not recorded).
    start = {} if options["policy"] == "earliest" else {0: 5, 1: 5}

    def expand() -> None:  # between landings 1 and 2: two partitions more, with records in each
        grow_with_ours(ours, cluster.bootstrap, topic, 4)
        produce_n(cluster.bootstrap, topic, {0: 2, 1: 2, 2: 6, 3: 4})

    request = _request(cluster, topic, group, out, **options)
    svc, recorder = _service(request, spark, every_s=0.5, after={1: expand})
    svc.run(limit=2)
    first, second = recorder.docs
    assert first["new_partitions"] == []
    # Found by the first landing after the expansion, from offset 0.
    assert second["new_partitions"] == [{"topic": topic, "partition": 2}, {"topic": topic, "partition": 3}]
    rows = {p["partition"]: p for p in second["partitions"]}
    assert (rows[2]["start"], rows[2]["end"], rows[3]["start"], rows[3]["end"]) == (0, 6, 0, 4), second
    assert _landed(out) == _expected({0: 7, 1: 7, 2: 6, 3: 4}, start)


def test_a_reset_while_the_service_runs_relands_from_there(cluster, spark, ours, tmp_path):
    """The service's sink remembers what it published; a reset between landings makes the next
    landing look at the sink again, cut back the range the new offset falls in and land from there."""
    topic, group, out = _filled(cluster, tmp_path, "svcreset", {0: 30})

    def more() -> None:
        produce_n(cluster.bootstrap, topic, {0: 10})

    def reset() -> None:
        result = ours(
            "kafka-consumer-groups", "--bootstrap-server", cluster.bootstrap, "--group", group,
            "--reset-offsets", "--to-offset", "25", "--topic", topic, "--execute", "--timeout", "30000",
        )  # fmt: skip
        assert result.returncode == 0, result.stderr

    request = _request(cluster, topic, group, out)
    svc, recorder = _service(request, spark, every_s=0.2, after={1: more, 2: reset})
    svc.run(limit=3)
    third = recorder.docs[2]
    assert (third["partitions"][0]["start"], third["partitions"][0]["end"], third["superseded"]) == (
        25,
        40,
        2,
    )
    assert sorted(p.name for p in (out / f"topic={topic}" / "partition=0").iterdir()) == [
        "offsets=0-25",
        "offsets=25-40",
    ]
    assert _landed(out) == _expected({0: 40})
    assert committed(cluster.bootstrap, group) == {(topic, 0): 40}


def test_sigterm_during_a_landings_read_abandons_it(cluster, spark, tmp_path, monkeypatch):
    """The broker is paused as the landing starts to read; SIGTERM comes; the broker resumes: Spark's
    job is cancelled, nothing of the landing is published and the group keeps its offsets."""
    topic, group, out = _filled(cluster, tmp_path, "stopread", {0: 30, 1: 20})
    request = _request(cluster, topic, group, out)
    svc, recorder = _service(
        request, spark, every_s=0.2, after={1: lambda: produce_n(cluster.bootstrap, topic, {0: 9, 1: 4})}
    )
    real = job._read_and_publish
    timers: list[threading.Timer] = []

    def read_held(*args, **kwargs):
        if recorder.docs:  # the second landing
            _pause(cluster)
            timers.append(_signal_self_later(1.0))
            timers.append(threading.Timer(3.0, _resume, (cluster,)))
            timers[-1].start()
        return real(*args, **kwargs)

    monkeypatch.setattr(job, "_read_and_publish", read_held)
    with stop_on_signals(svc.stop):
        status = svc.run()
    for timer in timers:
        timer.join()
    assert status == 0
    assert [d["status"] for d in recorder.docs] == ["landed", "abandoned"]
    assert committed(cluster.bootstrap, group) == {(topic, 0): 30, (topic, 1): 20}
    assert _landed(out) == _expected({0: 30, 1: 20})
    ranges = sorted(p.name for p in out.glob("topic=*/partition=*/offsets=*"))
    assert ranges == ["offsets=0-20", "offsets=0-30"]
    monkeypatch.undo()
    report = land(request, spark)  # the next run lands what was abandoned
    assert [(p.start, p.end, p.how) for p in report.partitions] == [
        (30, 39, "committed"),
        (20, 24, "committed"),
    ]
    assert _landed(out) == _expected({0: 39, 1: 24})


def test_sigterm_during_publication_finishes_the_landing(cluster, spark, tmp_path, monkeypatch):
    topic, group, out = _filled(cluster, tmp_path, "stoppub", {0: 10, 1: 10, 2: 10})
    request = _request(cluster, topic, group, out)
    svc, recorder = _service(request, spark, every_s=0.2)
    real = job.Sink.publish
    signalled = []

    def publish_after_a_signal(self, *args):
        if not signalled:
            signalled.append(True)
            os.kill(os.getpid(), signal.SIGTERM)  # handled here, before the first rename
        return real(self, *args)

    monkeypatch.setattr(job.Sink, "publish", publish_after_a_signal)
    with stop_on_signals(svc.stop):
        assert svc.run() == 0
    assert [d["status"] for d in recorder.docs] == ["landed"]  # and no second landing
    assert committed(cluster.bootstrap, group) == {(topic, p): 10 for p in range(3)}
    assert _landed(out) == _expected({0: 10, 1: 10, 2: 10})
    assert not (out / "_staging").exists()


def test_a_broker_paused_during_a_landings_read_delays_it_only(cluster, spark, tmp_path, monkeypatch):
    topic, group, out = _filled(cluster, tmp_path, "pause", {0: 25, 1: 15})
    request = _request(cluster, topic, group, out)
    real = job._read_and_publish
    resumed: list[threading.Timer] = []

    def read_paused(*args, **kwargs):
        _pause(cluster)
        resumed.append(threading.Timer(4.0, _resume, (cluster,)))
        resumed[0].start()
        return real(*args, **kwargs)

    monkeypatch.setattr(job, "_read_and_publish", read_paused)
    svc, recorder = _service(request, spark, every_s=0.2)
    svc.run(limit=1)
    resumed[0].join()
    [doc] = recorder.docs
    assert doc["status"] == "landed" and doc["attempts"] == 1 and doc["seconds"] >= 4.0, doc
    assert committed(cluster.bootstrap, group) == {(topic, 0): 25, (topic, 1): 15}
    assert _landed(out) == _expected({0: 25, 1: 15})


def test_a_broker_paused_between_landings_is_waited_out_by_retries(cluster, spark, tmp_path):
    """The next landing's reads time out (--timeout 2000) while the broker is paused; the service
    tries again within the interval and lands once it resumes."""
    topic, group, out = _filled(cluster, tmp_path, "retry", {0: 8, 1: 8})
    request = _request(cluster, topic, group, out, timeout_ms=2000)
    timers: list[threading.Timer] = []

    def pause_for_a_while() -> None:
        produce_n(cluster.bootstrap, topic, {0: 3, 1: 1})
        _pause(cluster)
        timers.append(threading.Timer(6.0, _resume, (cluster,)))
        timers[0].start()

    svc, recorder = _service(request, spark, every_s=60.0, after={1: pause_for_a_while})
    svc.rest = lambda seconds: None  # the second landing at once: the 60 s are its time to retry
    svc.run(limit=2)
    timers[0].join()
    first, second = recorder.docs
    assert first["status"] == "landed" and first["records"] == 16
    assert second["status"] == "landed" and second["attempts"] > 1 and second["error"], second
    assert second["records"] == 4
    assert _landed(out) == _expected({0: 11, 1: 9})
    assert committed(cluster.bootstrap, group) == {(topic, 0): 11, (topic, 1): 9}


def test_bounded_runs_resume_without_gaps_or_duplicates(cluster, spark, tmp_path, monkeypatch):
    """--max-records 400 over a backlog of 900 + 300 + 60: three runs of 400 and one of 60, spread by
    backlog; one of them stops between publishing and committing and the next resumes from it.
    --min-partitions 6: each Kafka partition's range is read by the tasks the arithmetic says (one
    Parquet file per task)."""
    topic, group, out = _filled(cluster, tmp_path, "bounded", {0: 900, 1: 300, 2: 60})
    request = _request(cluster, topic, group, out, max_records=400, min_partitions=6)

    first = land(request, spark)
    assert [(p.start, p.end) for p in first.partitions] == [(0, 286), (0, 95), (0, 19)]
    assert first.offsets_landed == 400 and first.limited and first.lag == 860
    # The second run stops after publishing, before its end commit.
    real_commit, calls = job._commit, []

    def stop_before_the_end_commit(access, group_id, offsets):
        calls.append(offsets)
        if len(calls) == 2:
            raise RuntimeError("stopped")
        real_commit(access, group_id, offsets)

    monkeypatch.setattr(job, "_commit", stop_before_the_end_commit)
    with pytest.raises(RuntimeError):
        land(request, spark)
    monkeypatch.undo()
    assert committed(cluster.bootstrap, group) == {(topic, 0): 286, (topic, 1): 95, (topic, 2): 19}
    reports: list[LandingReport] = []
    while not reports or reports[-1].limited:
        reports.append(land(request, spark))
    # The adopted ranges count as landed by the stopped run: the resumed run lands 400 more.
    assert [r.offsets_landed for r in reports] == [400, 60]
    assert {p.how for p in reports[0].partitions} == {"resumed"}
    assert _landed(out) == _expected({0: 900, 1: 300, 2: 60})
    assert committed(cluster.bootstrap, group) == {(topic, 0): 900, (topic, 1): 300, (topic, 2): 60}
    # One file per task: Spark split the ranges as spark_tasks says.
    for report in [first, *reports]:
        files = sum(
            len(
                list(
                    (out / f"topic={topic}" / f"partition={p.partition}" / f"offsets={p.start}-{p.end}").glob(
                        "*.parquet"
                    )
                )
            )
            for p in report.partitions
            if p.end > p.start
        )
        assert files == report.tasks, (report.run_id, files, report.tasks)
    assert first.tasks == 6


def test_the_sink_lists_what_was_staged_and_published_through_hadoop(spark, tmp_path):
    """Sink.published reads one listing through Hadoop's FileSystem (staged directories and
    names that are not ranges are not published ranges)."""
    from kafka_pipeline.plan import Range
    from kafka_pipeline.sink import Sink

    for folder in (
        "_staging/r1/topic=t.x/partition=0",
        "_staging/r1/topic=t.x/partition=2",
        "topic=t.x/partition=3/offsets=0-7",
    ):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "topic=t.x/partition=3/offsets=7-9x").mkdir()
    sink = Sink(spark, str(tmp_path))
    assert sink.published({"t.x", "other"}) == {("t.x", 3): [Range(0, 7)]}


def test_publication_of_a_missing_staged_directory_moves_nothing(spark, tmp_path):
    """Sink.publish does not list the staging directory first: a staged directory that is not
    there (the write staged nothing for the range) is answered False, and nothing is published."""
    from kafka_pipeline.plan import Range
    from kafka_pipeline.sink import Sink

    sink = Sink(spark, str(tmp_path))
    staging = sink.staging("r1")
    (tmp_path / "_staging/r1/topic=t.x/partition=0").mkdir(parents=True)
    (tmp_path / "_staging/r1/topic=t.x/partition=0/part-0.parquet").write_bytes(b"x")
    sink.published({"t.x"})
    assert sink.publish(f"{staging}/topic=t.x/partition=0", ("t.x", 0), Range(0, 5)) is True
    assert sink.publish(f"{staging}/topic=t.x/partition=1", ("t.x", 1), Range(0, 5)) is False
    assert (tmp_path / "topic=t.x/partition=0/offsets=0-5/part-0.parquet").read_bytes() == b"x"
    assert not (tmp_path / "topic=t.x/partition=1/offsets=0-5").exists()
    assert sink.published({"t.x"}) == {("t.x", 0): [Range(0, 5)]}


def test_a_range_with_nothing_readable_is_published_empty_and_committed(
    cluster, spark, tmp_path, monkeypatch
):
    """A range the write stages nothing for (here: partition 1's records left out of the frame, as
    a range of transaction markers only reads nothing) is published as an empty file after the
    others, and the group moves past it; the next landing goes on from there."""
    from pyspark.sql import functions as F

    topic, group, out = _filled(cluster, tmp_path, "emptyrange", {0: 10, 1: 10, 2: 10})
    request = _request(cluster, topic, group, out)
    real = job.SparkWrites.frame

    def without_partition_1(self, landing):
        return real(self, landing).where(F.col("partition") != 1)

    monkeypatch.setattr(job.SparkWrites, "frame", without_partition_1)
    lander = Lander(request, spark)
    try:
        first = lander.land()
        monkeypatch.undo()
        produce_n(cluster.bootstrap, topic, {0: 2, 1: 3, 2: 0})
        second = lander.land()
    finally:
        lander.close()
    assert "empty ranges" in first.steps and "empty ranges" not in second.steps
    assert [(p.partition, p.start, p.end) for p in first.partitions] == [(0, 0, 10), (1, 0, 10), (2, 0, 10)]
    assert [(p.partition, p.start, p.end) for p in second.partitions] == [
        (0, 10, 12),
        (1, 10, 13),
        (2, 10, 10),
    ]
    assert committed(cluster.bootstrap, group) == {(topic, 0): 12, (topic, 1): 13, (topic, 2): 10}
    assert pq.read_table(str(out / f"topic={topic}/partition=1/offsets=0-10")).num_rows == 0
    assert _landed(out) == _expected({0: 12, 1: 13, 2: 10}, {1: 10})
    assert not (out / "_staging").exists()


class ServiceProcess:
    """``kafka-to-parquet ... --every`` as a process of its own (in a session of its own, as a
    service manager starts it), its stdout and stderr read as they come."""

    def __init__(self, args: list[str]) -> None:
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "SPARK_LOCAL_IP": "127.0.0.1",
            "PYTHONFAULTHANDLER": "1",
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kafka_pipeline.cli", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,
        )
        self.lines: queue.Queue[tuple[str, str | None]] = queue.Queue()
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        for name, stream in (("out", self.proc.stdout), ("err", self.proc.stderr)):
            threading.Thread(target=self._read, args=(name, stream), daemon=True).start()

    def _read(self, name: str, stream) -> None:
        for line in stream:
            self.lines.put((name, line))
        self.lines.put((name, None))

    def until(self, wanted: Callable[[str, str], bool], what: str, timeout: float = 300.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                name, line = self.lines.get(timeout=1.0)
            except queue.Empty:
                continue
            if line is None:
                if self.proc.poll() is not None and name == "out":
                    break
                continue
            (self.stdout if name == "out" else self.stderr).append(line)
            if wanted(name, line):
                return line
        raise AssertionError(f"no {what}; stderr: {''.join(self.stderr)[-3000:]}")

    def docs(self) -> list[dict]:
        return [json.loads(line) for line in self.stdout]

    def finish(self, timeout: float = 120.0) -> int:
        code = self.proc.wait(timeout)
        while True:
            try:
                name, line = self.lines.get(timeout=1.0)
            except queue.Empty:
                break
            if line is not None:
                (self.stdout if name == "out" else self.stderr).append(line)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)


def test_the_cli_service_retries_a_paused_broker_and_stops_on_sigterm_to_its_process_group(cluster, tmp_path):
    """The command line end to end: JSON Lines on a pipe; a landing whose reads time out while the
    broker is paused is tried again within the interval (6 s: the reads give up after 2 s, the first
    retry comes 0.5 s later); SIGTERM sent to the whole process group (as timeout(1) or a
    terminal's job control send it) ends the service with status 0, Spark's JVM still serving it
    until then; and every record is in the sink once."""
    topic, group, out = _filled(cluster, tmp_path, "cli", {0: 12, 1: 7})
    service = ServiceProcess(
        [
            *("--bootstrap-server", cluster.bootstrap, "--topic", topic, "--group", group),
            *("--output", str(out), "--master", "local[1]", "--every", "6", "--timeout", "2000"),
        ]
    )
    paused, landed = False, 0

    def landed_all(name: str, line: str) -> bool:
        nonlocal landed
        if name == "out":
            landed += json.loads(line)["records"] or 0
        return landed == 24

    try:
        service.until(lambda name, line: landed_all(name, line) or name == "out", "first landing")
        produce_n(cluster.bootstrap, topic, {0: 3, 1: 2})
        if landed != 24:
            service.until(landed_all, "the records written after the first landing")
        _pause(cluster)
        paused = True
        service.until(lambda name, line: name == "err" and "attempt 1 failed" in line, "a failed attempt")
        os.killpg(service.proc.pid, signal.SIGTERM)  # the whole group, during a landing's retries
        _resume(cluster)
        paused = False
        code = service.finish()
    finally:
        if paused:
            _resume(cluster)
        service.kill()
    stderr = "".join(service.stderr)
    assert code == 0, stderr[-3000:]
    docs = service.docs()
    *landings, last = docs
    assert {d["status"] for d in landings} == {"landed"} and sum(d["records"] for d in landings) == 24, docs
    # Stopped between two attempts (failed), or in the next attempt before it wrote (abandoned).
    assert last["status"] in ("failed", "abandoned") and last["error"], last
    assert last["attempts"] >= 1 and "Traceback" not in stderr
    assert f"Stopped after {len(docs)} landing(s)." in stderr or "abandoned" in stderr
    assert committed(cluster.bootstrap, group) == {(topic, 0): 15, (topic, 1): 9}
    assert _landed(out) == _expected({0: 15, 1: 9})
