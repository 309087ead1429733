"""kafka-to-parquet against a plain Spark batch over the same offsets, in one run.

    python -m bench.pipeline [--records 1000000] [--runs 3] [--bootstrap B] [--no-write]

Both sides read the same 1,000,000 records (4 partitions, 100-byte values) with Spark's Kafka
source in the same local Spark session and write them as Parquet:

- plain: ``spark.read.format("kafka")`` from the first to the last offset, ``write.parquet``;
- ours: a landing run for a new group (policy earliest): the policy resolution, the group
  commits, the per-range staging and publication included.

Runs alternate after one warm-up of each; the section in RESULTS.md gives the medians and the
extra wall time of ours over plain.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

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

PARTITIONS = 4
VALUE = b"x" * 100


def _topic(bootstrap: str, records: int) -> str:
    """bench-landing-<records>, filled once."""
    name = f"bench-landing-{records}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    if name not in admin.list_topics(timeout=30).topics:
        admin.create_topics([NewTopic(name, PARTITIONS, 1, config={"retention.ms": "-1"})])[name].result(60)
        time.sleep(1)
    from confluent_kafka import Consumer

    probe = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench-probe"})
    have = sum(probe.get_watermark_offsets(TopicPartition(name, p), timeout=30)[1] for p in range(PARTITIONS))
    probe.close()
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


def plain(spark, bootstrap: str, topic: str, ends: dict[str, int], out: str) -> float:
    started = time.perf_counter()
    (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("assign", json.dumps({topic: list(range(PARTITIONS))}))
        .option("startingOffsets", json.dumps({topic: dict.fromkeys(ends, 0)}))
        .option("endingOffsets", json.dumps({topic: ends}))
        .option("failOnDataLoss", "true")
        .load()
        .write.parquet(out)
    )
    return time.perf_counter() - started


def ours(spark, bootstrap: str, topic: str, out: str, group: str | None = None) -> float:
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


def _count_label(records: int) -> str:
    """1m for 1,000,000 records, 5m for 5,000,000, else the number itself."""
    return f"{records // 1_000_000}m" if records % 1_000_000 == 0 else str(records)


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
    opts = parser.parse_args()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    cluster = None
    bootstrap = opts.bootstrap
    if not bootstrap:
        cluster = local_kafka.start(nodes=1, workdir=ROOT / ".cache" / "run" / "bench")
        bootstrap = cluster.bootstrap
    scratch = Path(tempfile.mkdtemp(prefix="bench-landing-", dir=opts.scratch))
    try:
        topic = _topic(bootstrap, opts.records)
        ends = _ends(bootstrap, topic)
        records = sum(ends.values())
        spark = job.spark_session()
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
        spark.stop()
        med = {who: statistics.median(t) for who, t in times.items()}
        overhead = {who: (med[who] - med["plain"]) / med["plain"] * 100 for who in kinds[1:]}
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        section = f"pipeline-landing-{_count_label(records)}"
        where = f" into {opts.scratch}" if opts.scratch else ""
        text = (
            f"## {section}\n\n"
            f'kafka-to-parquet against a plain `spark.read.format("kafka")` batch writing Parquet, the same '
            f"{records:,} records ({PARTITIONS} partitions, 100-byte values) in one local Spark session "
            f"(pyspark {spark.version}). Kafka {local_kafka.KAFKA_VERSION}, {opts.runs} alternating runs "
            f"after one warm-up, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"Parquet written{where or ' to the temporary directory'}, measured {stamp}. Written by "
            f"`python -m bench.pipeline --records {opts.records}`.\n\n"
            "A first run lands into a new group (its start time recorded); a later run lands into a group "
            "reset to the start beforehand, as `--reset-offsets --to-earliest --execute` leaves it.\n\n"
            "| job | median wall (s) | all runs (s) |\n|---|---|---|\n"
            + "".join(
                f"| {who} | {med[who]:.2f} | {', '.join(f'{t:.2f}' for t in times[who])} |\n" for who in kinds
            )
            + "\n"
            + "".join(
                f"**extra wall time of {who} over plain (median): {overhead[who]:+.1f}%**\n\n"
                for who in kinds[1:]
            )
        )
        print(text)
        if not opts.no_write:
            write_results({section: text})
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
