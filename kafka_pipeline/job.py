"""One landing run: Kafka to Parquet, with the consumer group as the record of progress.

1. Resolve each partition's start: the group's committed offset, or the policy's choice where
   there is none or it left the log (``kafka_groups.policy``), and the log end as the stop.
2. Decide per partition against the sink (:mod:`kafka_pipeline.plan`): resume after ranges a
   stopped run published, or, after a reset, move the ranges from the new start on aside. Under
   ``--max-records`` the stops are brought forward (:mod:`kafka_pipeline.sizing`).
3. Commit the starts (marked as the pipeline's own), read the ranges with Spark's Kafka source
   (``spark-sql-kafka-0-10``) in one batch, write them to a staging directory, publish each range
   with one rename, then commit the ends.

A run stopped at any point neither loses nor duplicates records in the sink: before the end
commit, the next run finds the published ranges after the committed offset and adopts them.
A stop asked through :class:`StopControl` (the signals of ``--every``) ends a run only where it
has published nothing, or after its end commit. One run at a time per group and output path.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from kafka_groups.access.cluster import KafkaAccess
from kafka_groups.access.policy_io import (
    gather_facts,
    group_resolver,
    now_ms,
    partition_ages,
    resolve_offsets,
)
from kafka_groups.access.registry import CreationRegistry
from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.policy import Policy, Resolver
from kafka_groups.errors import UsageError
from kafka_groups.settings import ConnectionSettings
from kafka_pipeline.plan import (
    PartitionPlan,
    Range,
    own_metadata,
    own_offset,
    plan_partition,
    policy_starts_new_partitions_at_beginning,
)
from kafka_pipeline.session import (
    SparkLaunch,
    installed_spark_version,
    resolve_source,
    start_session,
    under_spark_submit,
)
from kafka_pipeline.sink import Sink
from kafka_pipeline.sizing import spark_tasks, spread_limit


def spark_session(master: str | None = None, launch: SparkLaunch | None = None) -> Any:
    """A session for landing runs: the active one (spark-submit's), or a new one with Spark's Kafka
    source from the local jars ``scripts/setup`` fetched (see :mod:`kafka_pipeline.session`)."""
    if launch is None:
        version = installed_spark_version()
        launch = SparkLaunch(master, resolve_source(None, None, version, under_spark_submit()))
    return start_session(launch)


@dataclass(frozen=True)
class LandingRequest:
    settings: ConnectionSettings
    topics: tuple[str, ...]
    group: str
    policy: Policy
    output: str
    max_records: int | None = None  # --max-records: at most this many offsets per run
    min_partitions: int | None = None  # --min-partitions: Spark's minPartitions


@dataclass(frozen=True)
class PartitionReport:
    topic: str
    partition: int
    start: int
    end: int
    how: str  # committed, resumed, or the policy's reason
    log_end: int = 0  # the log end when the run was planned
    lag: int | None = None  # the log end after the run's commit minus ``end``; None if unread
    new: bool = False  # first seen by this process (a partition added while it runs)


@dataclass
class LandingReport:
    run_id: str
    output: str
    partitions: list[PartitionReport] = field(default_factory=list)
    superseded: int = 0
    seconds: float = 0.0  # from the start of planning to the end commit
    tasks: int = 0  # the Spark tasks that read the records
    started_ms: int = 0  # when the run began (ms since the epoch)
    steps: dict[str, float] = field(default_factory=dict)  # seconds per step of the run (StepClock)

    @property
    def offsets_landed(self) -> int:
        return sum(p.end - p.start for p in self.partitions)

    @property
    def limited(self) -> bool:
        """--max-records stopped some partition before its log end."""
        return any(p.end < p.log_end for p in self.partitions)

    @property
    def lag(self) -> int | None:
        """Offsets left after the run: the log ends read after its commit, minus its ends."""
        lags = [p.lag for p in self.partitions]
        return None if any(lag is None for lag in lags) else sum(lag for lag in lags if lag is not None)

    @property
    def offsets_per_s(self) -> float:
        return self.offsets_landed / self.seconds if self.seconds > 0 else 0.0


INTERRUPT_ON_CANCEL = "spark.job.interruptOnCancel"


class StepClock:
    """The time of each step of a run, in the order they ran: :meth:`mark` ends the step named
    and begins the next (for ``--debug`` and the benchmark's breakdown of a landing)."""

    def __init__(self) -> None:
        self.steps: dict[str, float] = {}
        self._last = time.perf_counter()

    def mark(self, step: str) -> None:
        now = time.perf_counter()
        self.steps[step] = self.steps.get(step, 0.0) + now - self._last
        self._last = now


class Abandoned(Exception):
    """A stop was asked before the run's records were published: nothing of the run was
    published, and the group holds no offset past what the sink holds. The next run lands the
    same records."""


class StopControl:
    """A stop asked from outside the landing: a signal handler calls :meth:`ask`, which only sets
    an event. A run checks it before it writes anything; while Spark reads and stages the
    records (:meth:`reading`), a thread watches it and cancels Spark's jobs, so that the run
    ends promptly, abandoned. Publication and the end commit, once begun, are finished."""

    def __init__(self) -> None:
        self.asked = threading.Event()
        self._lock = threading.Lock()  # never taken by ask(): a signal handler must not wait
        self.prompting = False  # the operator is asked something on the terminal (:meth:`prompt`)

    def ask(self) -> None:
        self.asked.set()

    @contextmanager
    def prompt(self) -> Iterator[None]:
        """The operator is asked a question and the run waits for the answer: a stop asked now
        (the signal handler sees :attr:`prompting`) abandons the run at once, before anything
        is written."""
        self.check()
        self.prompting = True
        try:
            yield
        finally:
            self.prompting = False
        self.check()

    def check(self) -> None:
        if self.asked.is_set():
            raise Abandoned()

    @contextmanager
    def reading(self, spark: Any, interrupting: bool = False) -> Iterator[None]:
        """A stop asked before this is over abandons the run: Spark's jobs started inside are
        cancelled, and a read that finished all the same is not published. Once this returns
        normally, no cancellation can reach what follows. ``interrupting``: the calling thread
        already submits its jobs with ``spark.job.interruptOnCancel`` (:class:`SparkWrites`)."""
        self.check()
        context = spark.sparkContext
        # A cancelled task is interrupted, not left to notice on its own: one waiting on a paused
        # broker would otherwise hold its core until Kafka's poll timeout.
        if not interrupting:
            interrupt = context.getLocalProperty(INTERRUPT_ON_CANCEL)
            context.setLocalProperty(INTERRUPT_ON_CANCEL, "true")
        done = threading.Event()
        watcher = threading.Thread(
            target=self._cancel_while_asked, args=(context, done), name="landing-stop", daemon=True
        )
        watcher.start()
        try:
            yield
        except Exception as exc:
            if self.asked.is_set():
                raise Abandoned() from exc
            raise
        finally:
            with self._lock:
                done.set()
            watcher.join()
            if not interrupting:
                context.setLocalProperty(INTERRUPT_ON_CANCEL, interrupt)
        self.check()

    def _cancel_while_asked(self, context: Any, done: threading.Event) -> None:
        """Once a stop is asked, cancel Spark's jobs until the reading is over: a job submitted
        just after a cancellation is cancelled by the next one, 50 ms later. It waits on ``done``,
        so that the reading's end is not kept waiting for it."""
        while not done.wait(0.05):
            if self.asked.is_set():
                with self._lock:
                    if not done.is_set():
                        context.cancelAllJobs()


def land(
    request: LandingRequest,
    spark: Any | None = None,
    launch: SparkLaunch | None = None,
    stop: StopControl | None = None,
) -> LandingReport:
    """One run. Without ``spark``, a session starts (as ``launch`` says) once the topics are found,
    before anything is written."""
    lander = Lander(request, spark, launch, stop)
    try:
        return lander.land()
    finally:
        lander.close()


def _partitions(access: KafkaAccess, topics: tuple[str, ...]) -> set[TopicPartition]:
    found = access.topic_partitions(set(topics))
    missing = sorted(set(topics) - set(found))
    if missing:
        raise UsageError(f"Topic(s) {', '.join(missing)} do not exist")
    return {(t, p) for t, leaders in found.items() for p in leaders}


class Lander:
    """Landing runs of one request, one after another, on one Spark session: ``kafka-to-parquet``
    makes one run; ``--every`` makes one per interval with the same Lander. What does not change
    between runs is read once (the group's policy binding, its start time); the cluster is read
    again for each run (new partitions are found there), and after a failed run the connections
    are opened anew (:meth:`reconnect`)."""

    def __init__(
        self,
        request: LandingRequest,
        spark: Any | None = None,
        launch: SparkLaunch | None = None,
        stop: StopControl | None = None,
    ) -> None:
        self.request = request
        self.spark = spark
        self.launch = launch
        self.stop = stop or StopControl()
        self._access: KafkaAccess | None = None
        self._registry: CreationRegistry | None = None
        self._resolver: Resolver | None = None
        self._seen: set[TopicPartition] | None = None  # partitions the earlier runs found
        self._sink: Sink | None = None
        self._writes: SparkWrites | None = None
        self._staging_clear = False  # no stopped or failed run can have left staged files
        self._target_named = False  # the cluster written to was said (and confirmed if protected)

    @property
    def access(self) -> KafkaAccess:
        if self._access is None:
            self._access = KafkaAccess(self.request.settings)
        return self._access

    @property
    def registry(self) -> CreationRegistry:
        if self._registry is None:
            self._registry = CreationRegistry(self.request.settings)
        return self._registry

    def reconnect(self) -> None:
        """Close the connections; the next run opens new ones (after a broker restart, a client
        can keep a stale view for a while)."""
        if self._access is not None:
            access, self._access = self._access, None
            access.close()
        self._registry = None
        if self._sink is not None:  # what the failed run left is read from the sink again
            self._sink.forget()
        self._staging_clear = False

    def close(self) -> None:
        self.reconnect()
        if self._writes is not None:
            writes, self._writes = self._writes, None
            writes.restore()

    def land(self) -> LandingReport:
        started_ms, clock = now_ms(), time.monotonic()
        steps = StepClock()
        report = self._land(f"{started_ms}-{uuid.uuid4().hex[:8]}", steps)
        report.started_ms = started_ms
        report.seconds = time.monotonic() - clock
        report.steps = steps.steps
        logging.getLogger(__name__).debug(
            "run %s steps (s): %s", report.run_id, ", ".join(f"{k} {v:.3f}" for k, v in steps.steps.items())
        )
        return report

    def _land(self, run_id: str, steps: StepClock) -> LandingReport:
        request, access, stop = self.request, self.access, self.stop
        stop.check()
        access.forget_metadata()  # each run finds the partitions added since the last one
        partitions = _partitions(access, request.topics)
        steps.mark("metadata")
        every_offset = access.committed_with_metadata(request.group)
        steps.mark("committed")
        if not self._target_named:
            # Once per command, before its first write (the group's records, then its commits):
            # the cluster named as the other tools' writes name it, from the metadata just read;
            # a protected one confirmed on the terminal (without one, refused before this).
            from kafka_groups.commands.target import name_target

            with stop.prompt():
                name_target(access)
            self._target_named = True
            steps.mark("target")
        # Spark starts before anything is written (the group's start time included): a JVM that
        # cannot start leaves the cluster as it was.
        if self.spark is None:
            self.spark = spark_session(launch=self.launch)
            stop.check()  # asked while Spark started (it takes seconds)
            steps.mark("spark start")
        spark = self.spark
        if self._resolver is None:
            self._resolver = group_resolver(
                access, self.registry, request.policy, request.group, bool(every_offset)
            )
            steps.mark("group start")
        committed = {tp: v for tp, v in every_offset.items() if tp in partitions}
        facts = gather_facts(access, {tp: c[0] for tp, c in committed.items()}, partitions)
        steps.mark("log offsets")
        if request.policy.needs_partition_age and any(
            f.committed is None or f.out_of_range for f in facts.values()
        ):
            created = partition_ages(access, self.registry, set(request.topics))
            facts = {tp: replace(f, created_ms=created.get(tp)) for tp, f in facts.items()}
        starts, targets = resolve_offsets(access, self._resolver, facts, now_ms())
        steps.mark("policy")

        if self._sink is None:
            self._sink = Sink(spark, request.output)
        sink = self._sink
        # Where a run does not start at the pipeline's own commit (a first run, a reset, a new
        # partition), every published range of the topic may matter: it is listed again.
        sink.forget({tp[0] for tp in partitions if not _own_at(committed.get(tp), starts[tp])})
        published = sink.published(set(request.topics))
        steps.mark("sink listing")
        plans = {
            tp: plan_partition(committed.get(tp), starts[tp], published.get(tp, []), facts[tp].log_end)
            for tp in partitions
        }
        if request.max_records is not None:
            shares = spread_limit(
                request.max_records, {tp: plans[tp].end - plans[tp].start for tp in sorted(plans)}
            )
            plans = {tp: replace(p, end=p.start + shares[tp]) for tp, p in plans.items()}
        landing = {tp: p for tp, p in plans.items() if p.lands}
        tasks = spark_tasks(
            {tp: (p.start, p.end) for tp, p in sorted(landing.items())}, request.min_partitions
        )
        report = LandingReport(run_id, sink.uri, tasks=sum(len(t) for t in tasks.values()))
        steps.mark("plan")

        stop.check()  # the last point at which nothing of this run is written
        if not self._staging_clear:
            sink.clear_staging()
            steps.mark("staging cleared")
        # Ranges a reset replaced go aside first; a straddling one is cut back to the new start.
        for tp, plan in sorted(plans.items()):
            if plan.trim is not None:
                _trim(spark, sink, run_id, tp, plan.trim, plan.start)
                report.superseded += 1
            for old in plan.supersede:
                sink.supersede(run_id, tp, old)
                report.superseded += 1
        # The starts are the pipeline's own from here on: a run stopped after publishing is resumed.
        # Each commit also says whether the policy lands partitions added later from their beginning.
        mark = policy_starts_new_partitions_at_beginning(request.policy)
        first = {
            tp: (p.start, own_metadata(p.start, mark))
            for tp, p in plans.items()
            if committed.get(tp) != (p.start, own_metadata(p.start, mark))
        }
        steps.mark("supersede")
        _commit(access, request.group, first)
        steps.mark("start commit")

        if landing:
            self._staging_clear = False
            try:
                if self._writes is None:
                    self._writes = SparkWrites(spark, request)
                _read_and_publish(self._writes, sink, run_id, landing, stop, steps)
            except Abandoned:
                _quietly(sink.clear_staging)
                raise
        _commit(access, request.group, {tp: (p.end, own_metadata(p.end, mark)) for tp, p in landing.items()})
        steps.mark("end commit")
        sink.clear_staging()
        self._staging_clear = True
        sink.keep_after({tp: p.end for tp, p in plans.items()})
        steps.mark("staging cleared")

        ends = _log_ends_after(access, set(plans))
        steps.mark("lag")
        seen, self._seen = self._seen, set(partitions)
        for tp, plan in sorted(plans.items()):
            how = "resumed" if plan.resumed else targets[tp].reason
            end_now = ends.get(tp)
            report.partitions.append(
                PartitionReport(
                    tp[0],
                    tp[1],
                    plan.start,
                    plan.end,
                    how,
                    log_end=facts[tp].log_end,
                    lag=None if end_now is None else max(end_now - plan.end, 0),
                    new=seen is not None and tp not in seen,
                )
            )
        return report


def _own_at(committed: tuple[int, str] | None, start: int) -> bool:
    """The group's commit is the pipeline's own, at the offset the run starts from."""
    return committed is not None and committed[0] == start and own_offset(committed[1]) == start


def _log_ends_after(access: KafkaAccess, partitions: set[TopicPartition]) -> dict[TopicPartition, int | None]:
    """The log ends after the run (for the lag it leaves); none where they cannot be read: the
    run itself is done."""
    try:
        ends, _ = access.log_offsets(partitions, latest=True)
    except Exception as exc:
        logging.getLogger(__name__).info("reading the log ends after the run failed: %s", exc)
        return {}
    return ends


def _quietly(step: Any) -> None:
    try:
        step()
    except Exception as exc:
        logging.getLogger(__name__).info("cleaning up after an abandoned run failed: %s", exc)


def _commit(access: KafkaAccess, group: str, offsets: dict[TopicPartition, tuple[int, str]]) -> None:
    access.commit_offsets(group, offsets)


def _kafka_options(settings: ConnectionSettings) -> dict[str, str]:
    """Spark's Kafka source takes the Java client properties as they are, prefixed."""
    options = {f"kafka.{k}": v for k, v in settings.properties.items() if k != "bootstrap.servers"}
    options["kafka.bootstrap.servers"] = settings.bootstrap_servers
    return options


# Session settings of a landing's write. Each task reads one Kafka partition (all of it, or a piece
# under --min-partitions) and so writes one directory: the sort Spark plans before a partitioned
# write is skipped.
WRITE_CONF = {
    "spark.sql.optimizer.plannedWrite.enabled": "false",
    "spark.sql.maxConcurrentOutputFileWriters": "4",
}


class SparkWrites:
    """What every landing's read and write share, made once per :class:`Lander`: the Kafka
    reader with its constant options, the session settings of :data:`WRITE_CONF` and
    ``spark.job.interruptOnCancel`` on the driver thread that submits the jobs. The session may
    be the caller's: :meth:`restore` puts back what was there when the Lander closes. A landing
    then sets only its offsets: each call into Spark's JVM costs a round trip over py4j (1 to 5
    ms on a busy machine), and a landing made about 50 of them besides its job."""

    def __init__(self, spark: Any, request: LandingRequest) -> None:
        self.spark = spark
        reader = spark.read.format("kafka").options(**_kafka_options(request.settings))
        if request.min_partitions is not None:
            reader = reader.option("minPartitions", str(request.min_partitions))
        self.reader = reader.option("failOnDataLoss", "true")
        self._conf_before = {k: spark.conf.get(k, None) for k in WRITE_CONF}
        for key, value in WRITE_CONF.items():
            spark.conf.set(key, value)
        self._threads: dict[int, str | None] = {}  # thread id -> its property before

    def interrupting(self) -> bool:
        """Set ``spark.job.interruptOnCancel`` on this thread (once per thread); True."""
        thread = threading.get_ident()
        if thread not in self._threads:
            context = self.spark.sparkContext
            self._threads[thread] = context.getLocalProperty(INTERRUPT_ON_CANCEL)
            context.setLocalProperty(INTERRUPT_ON_CANCEL, "true")
        return True

    def frame(self, landing: dict[TopicPartition, PartitionPlan]) -> Any:
        assign: dict[str, list[int]] = {}
        starting: dict[str, dict[str, int]] = {}
        ending: dict[str, dict[str, int]] = {}
        for topic, partition in sorted(landing):
            assign.setdefault(topic, []).append(partition)
            starting.setdefault(topic, {})[str(partition)] = landing[(topic, partition)].start
            ending.setdefault(topic, {})[str(partition)] = landing[(topic, partition)].end
        # The reader keeps its options: these three replace the previous landing's.
        return (
            self.reader.option("assign", json.dumps(assign))
            .option("startingOffsets", json.dumps(starting))
            .option("endingOffsets", json.dumps(ending))
            .load()
        )

    def restore(self) -> None:
        """Put back the session's settings and, on this thread, the interruption property (a
        session already stopped is left alone)."""
        try:
            for key, value in self._conf_before.items():
                if value is None:
                    self.spark.conf.unset(key)
                else:
                    self.spark.conf.set(key, value)
            before = self._threads.get(threading.get_ident(), "")
            if before != "":
                self.spark.sparkContext.setLocalProperty(INTERRUPT_ON_CANCEL, before)
        except Exception as exc:
            logging.getLogger(__name__).info("restoring the Spark session's settings failed: %s", exc)


def _read_and_publish(
    writes: SparkWrites,
    sink: Sink,
    run_id: str,
    landing: dict[TopicPartition, PartitionPlan],
    stop: StopControl,
    steps: StepClock | None = None,
) -> None:
    spark, ordered = writes.spark, sorted(landing)
    steps = steps or StepClock()
    frame = writes.frame(landing)
    staging = sink.staging(run_id)
    steps.mark("read set-up")
    # Written as the sink lays ranges out (topic=T/partition=P), so that each staged directory
    # is one range.
    with stop.reading(spark, interrupting=writes.interrupting()):
        frame.write.mode("overwrite").partitionBy("topic", "partition").parquet(staging)
        steps.mark("read and write")
    steps.mark("read set-up")
    # Publication and the end commit are not interrupted: a stop asked from here on waits for them.
    empty = []
    for tp in ordered:
        staged, plan = f"{staging}/topic={tp[0]}/partition={tp[1]}", landing[tp]
        if not sink.publish(staged, tp, Range(plan.start, plan.end)):
            empty.append(tp)
    steps.mark("publish")
    for tp in empty:
        # Nothing readable in the range (compacted away, or only transaction markers): an empty
        # file stands for it. Published after the others; a failure here leaves the ranges
        # published so far for the next run to adopt, as a stop between renames would.
        staged, plan = f"{staging}/topic={tp[0]}/partition={tp[1]}", landing[tp]
        spark.createDataFrame([], frame.drop("topic", "partition").schema).write.parquet(staged)
        if not sink.publish(staged, tp, Range(plan.start, plan.end)):
            raise OSError(f"could not stage an empty range at {staged}")
    if empty:
        steps.mark("empty ranges")


def _trim(spark: Any, sink: Sink, run_id: str, tp: TopicPartition, old: Range, keep_before: int) -> None:
    """Replace a published range by its records before ``keep_before`` (a reset landed in it)."""
    from pyspark.sql import functions as F

    kept = Range(old.start, keep_before)
    if not sink.exists(tp, kept):
        staged = f"{sink.staging(run_id)}/trim-{tp[0]}-{tp[1]}"
        frame = spark.read.parquet(sink.range_path(tp, old).toString())
        frame.where(F.col("offset") < keep_before).write.mode("overwrite").parquet(staged)
        if not sink.publish(staged, tp, kept):
            raise OSError(f"could not stage the kept part of {tp[0]}-{tp[1]} at {staged}")
    sink.supersede(run_id, tp, old)
