"""One landing run: Kafka to Parquet, with the consumer group as the record of progress.

1. Resolve each partition's start: the group's committed offset, or the policy's choice where
   there is none or it left the log (``kafka_groups.policy``), and the log end as the stop.
2. Decide per partition against the sink (:mod:`kafka_pipeline.plan`): resume after ranges a
   stopped run published, or, after a reset, move the ranges from the new start on aside.
3. Commit the starts (marked as the pipeline's own), read the ranges with Spark's Kafka source
   (``spark-sql-kafka-0-10``) in one batch, write them to a staging directory, publish each range
   with one rename, then commit the ends.

A run stopped at any point neither loses nor duplicates records in the sink: before the end
commit, the next run finds the published ranges after the committed offset and adopts them.
One run at a time per group and output path.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
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
from kafka_groups.core.policy import Policy
from kafka_groups.errors import UsageError
from kafka_groups.settings import ConnectionSettings
from kafka_pipeline.plan import (
    PartitionPlan,
    Range,
    own_metadata,
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


@dataclass(frozen=True)
class PartitionReport:
    topic: str
    partition: int
    start: int
    end: int
    how: str  # committed, resumed, or the policy's reason


@dataclass
class LandingReport:
    run_id: str
    output: str
    partitions: list[PartitionReport] = field(default_factory=list)
    superseded: int = 0

    @property
    def offsets_landed(self) -> int:
        return sum(p.end - p.start for p in self.partitions)


def land(
    request: LandingRequest, spark: Any | None = None, launch: SparkLaunch | None = None
) -> LandingReport:
    """One run. Without ``spark``, a session starts (as ``launch`` says) once the topics are found,
    before anything is written."""
    access = KafkaAccess(request.settings)
    try:
        return _land(request, access, spark, launch)
    finally:
        access.close()


def _partitions(access: KafkaAccess, topics: tuple[str, ...]) -> set[TopicPartition]:
    found = access.topic_partitions(set(topics))
    missing = sorted(set(topics) - set(found))
    if missing:
        raise UsageError(f"Topic(s) {', '.join(missing)} do not exist")
    return {(t, p) for t, leaders in found.items() for p in leaders}


def _land(
    request: LandingRequest, access: KafkaAccess, spark: Any, launch: SparkLaunch | None
) -> LandingReport:
    run_id = f"{now_ms()}-{uuid.uuid4().hex[:8]}"
    registry = CreationRegistry(request.settings)
    partitions = _partitions(access, request.topics)
    every_offset = access.committed_with_metadata(request.group)
    # Spark starts before anything is written (the group's start time included): a JVM that cannot
    # start leaves the cluster as it was.
    spark = spark or spark_session(launch=launch)
    resolver = group_resolver(access, registry, request.policy, request.group, bool(every_offset))
    committed = {tp: v for tp, v in every_offset.items() if tp in partitions}
    created = (
        partition_ages(access, registry, set(request.topics)) if request.policy.needs_partition_age else None
    )
    facts = gather_facts(access, {tp: c[0] for tp, c in committed.items()}, partitions, created)
    starts, targets = resolve_offsets(access, resolver, facts, now_ms())

    sink = Sink(spark, request.output)
    sink.clear_staging()
    published = sink.published(set(request.topics))
    plans = {
        tp: plan_partition(committed.get(tp), starts[tp], published.get(tp, []), facts[tp].log_end)
        for tp in partitions
    }
    report = LandingReport(run_id, sink.uri)

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
    _commit(access, request.group, first)

    landing = {tp: p for tp, p in plans.items() if p.lands}
    if landing:
        _read_and_publish(spark, sink, request.settings, run_id, landing)
    _commit(access, request.group, {tp: (p.end, own_metadata(p.end, mark)) for tp, p in landing.items()})
    sink.clear_staging()

    for tp, plan in sorted(plans.items()):
        how = "resumed" if plan.resumed else targets[tp].reason
        report.partitions.append(PartitionReport(tp[0], tp[1], plan.start, plan.end, how))
    return report


def _commit(access: KafkaAccess, group: str, offsets: dict[TopicPartition, tuple[int, str]]) -> None:
    access.commit_offsets(group, offsets)


def _kafka_options(settings: ConnectionSettings) -> dict[str, str]:
    """Spark's Kafka source takes the Java client properties as they are, prefixed."""
    options = {f"kafka.{k}": v for k, v in settings.properties.items() if k != "bootstrap.servers"}
    options["kafka.bootstrap.servers"] = settings.bootstrap_servers
    return options


def _read_and_publish(
    spark: Any,
    sink: Sink,
    settings: ConnectionSettings,
    run_id: str,
    landing: dict[TopicPartition, PartitionPlan],
) -> None:
    ordered = sorted(landing)
    assign: dict[str, list[int]] = {}
    starting: dict[str, dict[str, int]] = {}
    ending: dict[str, dict[str, int]] = {}
    for topic, partition in ordered:
        assign.setdefault(topic, []).append(partition)
        starting.setdefault(topic, {})[str(partition)] = landing[(topic, partition)].start
        ending.setdefault(topic, {})[str(partition)] = landing[(topic, partition)].end
    reader = spark.read.format("kafka").options(**_kafka_options(settings))
    frame = (
        reader.option("assign", json.dumps(assign))
        .option("startingOffsets", json.dumps(starting))
        .option("endingOffsets", json.dumps(ending))
        .option("failOnDataLoss", "true")
        .load()
    )
    staging = sink.staging(run_id)
    # Written as the sink lays ranges out (topic=T/partition=P), so that each staged directory
    # is one range. Each Kafka partition is read by its own task and so writes one directory:
    # the sort Spark plans before a partitioned write is skipped.
    with _session_conf(
        spark,
        {
            "spark.sql.optimizer.plannedWrite.enabled": "false",
            "spark.sql.maxConcurrentOutputFileWriters": "4",
        },
    ):
        frame.write.mode("overwrite").partitionBy("topic", "partition").parquet(staging)
    for tp in ordered:
        plan = landing[tp]
        staged = f"{staging}/topic={tp[0]}/partition={tp[1]}"
        if not sink.fs.exists(sink._Path(staged)):
            # Nothing readable in the range (compacted away, or only transaction markers).
            spark.createDataFrame([], frame.drop("topic", "partition").schema).write.parquet(staged)
        sink.publish(staged, tp, Range(plan.start, plan.end))


@contextmanager
def _session_conf(spark: Any, settings: dict[str, str]) -> Iterator[None]:
    """Session settings for one write, restored afterwards (the session may be the caller's)."""
    before = {k: spark.conf.get(k, None) for k in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


def _trim(spark: Any, sink: Sink, run_id: str, tp: TopicPartition, old: Range, keep_before: int) -> None:
    """Replace a published range by its records before ``keep_before`` (a reset landed in it)."""
    from pyspark.sql import functions as F

    kept = Range(old.start, keep_before)
    if not sink.exists(tp, kept):
        staged = f"{sink.staging(run_id)}/trim-{tp[0]}-{tp[1]}"
        frame = spark.read.parquet(sink.range_path(tp, old).toString())
        frame.where(F.col("offset") < keep_before).write.mode("overwrite").parquet(staged)
        sink.publish(staged, tp, kept)
    sink.supersede(run_id, tp, old)
