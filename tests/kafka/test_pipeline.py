"""kafka-to-parquet on the real broker, with Spark's own Kafka source (one local Spark session)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter

import pytest

from kafka_groups.core.policy import Policy
from kafka_groups.settings import ConnectionSettings
from kafka_pipeline import job
from kafka_pipeline.job import LandingReport, LandingRequest, land
from tests.conftest import ROOT
from tests.kafka_helpers import committed, create_topic, grow_with_ours, produce_n, unique

pytest.importorskip("pyspark")


@pytest.fixture(scope="module")
def spark():
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = job.spark_session("local[2]")
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _land(broker, spark, topic: str, group: str, output, policy: str = "earliest", **kw) -> LandingReport:
    request = LandingRequest(
        ConnectionSettings(broker.bootstrap, 30_000), (topic,), group, Policy.parse(policy, **kw), str(output)
    )
    return land(request, spark)


def _landed(spark, output) -> Counter[tuple[str, int, int]]:
    """Every (topic, partition, offset) in the sink, with how often it is there."""
    if not any(p.name.startswith("topic=") for p in output.iterdir()):
        return Counter()
    rows = spark.read.parquet(str(output)).select("topic", "partition", "offset").collect()
    return Counter((r.topic, r.partition, r.offset) for r in rows)


def _expected(topic: str, ranges: dict[int, range]) -> Counter[tuple[str, int, int]]:
    return Counter((topic, p, o) for p, r in ranges.items() for o in r)


def test_runs_land_every_record_once_and_the_group_shows_the_lag(broker, spark, ours, apache, tmp_path):
    topic = create_topic(broker.bootstrap, unique("land"), partitions=2)
    group = unique("land")
    produce_n(broker.bootstrap, topic, {0: 30, 1: 20})
    out = tmp_path / "sink"
    # In this module's Spark session: the console script's own runs (a Spark of their own each)
    # land and commit in test_pipeline_setup, test_pipeline_clusters and test_pipeline_cluster.
    first = _land(broker, spark, topic, group, out)
    assert [(p.start, p.end) for p in first.partitions] == [(0, 30), (0, 20)]
    assert first.offsets_landed == 50
    assert committed(broker.bootstrap, group) == {(topic, 0): 30, (topic, 1): 20}

    produce_n(broker.bootstrap, topic, {0: 10, 1: 5})
    for tool in (ours, apache):
        described = tool(
            "kafka-consumer-groups", "--bootstrap-server", broker.bootstrap, "--describe", "--group", group,
            "--timeout", "30000",
        )  # fmt: skip
        lags = sorted(line.split()[5] for line in described.stdout.splitlines() if line.startswith(group))
        assert lags == ["10", "5"], described.stdout

    second = _land(broker, spark, topic, group, out)
    assert [(p.start, p.end) for p in second.partitions] == [(30, 40), (20, 25)]
    assert {p.how for p in second.partitions} == {"committed"}
    third = _land(broker, spark, topic, group, out)  # nothing new: nothing landed
    assert third.offsets_landed == 0
    assert _landed(spark, out) == _expected(topic, {0: range(40), 1: range(25)})
    assert not (out / "_staging").exists()


def test_a_reset_with_our_cli_relands_from_there(broker, spark, ours, tmp_path):
    topic = create_topic(broker.bootstrap, unique("reland"), partitions=1)
    group = unique("reland")
    out = tmp_path / "sink"
    produce_n(broker.bootstrap, topic, {0: 30})
    _land(broker, spark, topic, group, out)
    produce_n(broker.bootstrap, topic, {0: 10})
    _land(broker, spark, topic, group, out)  # ranges [0, 30) and [30, 40)

    # The same 30 s the landings get: with Spark just done on 2 cores, the default 5 s (Apache's
    # too) has run out before the coordinator answered.
    reset = ours(
        "kafka-consumer-groups", "--bootstrap-server", broker.bootstrap, "--group", group,
        "--reset-offsets", "--to-offset", "25", "--topic", topic, "--execute", "--timeout", "30000",
    )  # fmt: skip
    assert reset.returncode == 0, reset.stderr
    report = _land(broker, spark, topic, group, out)
    assert [(p.start, p.end, p.how) for p in report.partitions] == [(25, 40, "committed")]
    assert report.superseded == 2  # [0, 30) cut back to [0, 25), and [30, 40)
    assert _landed(spark, out) == _expected(topic, {0: range(40)})
    assert sorted(d.name for d in (out / f"topic={topic}" / "partition=0").iterdir()) == [
        "offsets=0-25",
        "offsets=25-40",
    ]
    assert committed(broker.bootstrap, group) == {(topic, 0): 40}


@pytest.mark.parametrize("stop", ["before publishing", "between publishing and committing"])
def test_a_run_stopped_midway_neither_loses_nor_duplicates(broker, spark, monkeypatch, tmp_path, stop):
    topic = create_topic(broker.bootstrap, unique("crash"), partitions=2)
    group = unique("crash")
    out = tmp_path / "sink"
    produce_n(broker.bootstrap, topic, {0: 20, 1: 20})
    _land(broker, spark, topic, group, out)
    produce_n(broker.bootstrap, topic, {0: 7, 1: 3})

    class Stopped(Exception):
        pass

    if stop == "before publishing":
        monkeypatch.setattr(job.Sink, "publish", lambda *a: (_ for _ in ()).throw(Stopped()))
    else:
        real_commit = job._commit
        calls = []

        def commit_then_stop(access, group_id, offsets):
            calls.append(offsets)
            if len(calls) == 2:  # the end commit, after every range was published
                raise Stopped()
            real_commit(access, group_id, offsets)

        monkeypatch.setattr(job, "_commit", commit_then_stop)
    with pytest.raises(Stopped):
        _land(broker, spark, topic, group, out)
    monkeypatch.undo()
    assert committed(broker.bootstrap, group) == {(topic, 0): 20, (topic, 1): 20}

    produce_n(broker.bootstrap, topic, {0: 1, 1: 1})
    report = _land(broker, spark, topic, group, out)
    assert _landed(spark, out) == _expected(topic, {0: range(28), 1: range(24)})
    assert committed(broker.bootstrap, group) == {(topic, 0): 28, (topic, 1): 24}
    expected_how = "resumed" if stop == "between publishing and committing" else "committed"
    assert {p.how for p in report.partitions} == {expected_how}


def test_partition_expansion_between_runs(broker, spark, ours, tmp_path):
    topic = create_topic(broker.bootstrap, unique("grow"), partitions=2)  # no recorded age
    produce_n(broker.bootstrap, topic, {0: 10, 1: 10})  # history before the pipelines exist
    policies = {
        "latest": {"policy": "latest"},
        "to_start_time": {"policy": "to_start_time"},
        "latest+max_age": {"policy": "latest", "max_age": "PT10M"},
        "earliest": {"policy": "earliest"},
    }
    groups = {n: unique("grow") for n in policies}

    def run_all():
        for name, options in policies.items():
            _land(broker, spark, topic, groups[name], tmp_path / name, **options)

    run_all()
    produce_n(broker.bootstrap, topic, {0: 5, 1: 5})
    grow_with_ours(ours, broker.bootstrap, topic, 4)
    produce_n(broker.bootstrap, topic, {2: 15, 3: 15})
    run_all()

    landed = {n: _landed(spark, tmp_path / n) for n in policies}
    lost = {n: sum(1 for p in (2, 3) for o in range(15) if (topic, p, o) not in c) for n, c in landed.items()}
    totals = {n: sum(c.values()) for n, c in landed.items()}
    print(f"\npipeline: landed {totals}, lost from the new partitions {lost}")
    assert all(max(c.values()) == 1 for c in landed.values())  # nothing twice
    assert lost["latest"] == 30 and sum(landed["latest"].values()) == 10
    for name in ("to_start_time", "latest+max_age"):
        assert lost[name] == 0
        assert landed[name] == _expected(
            topic, {0: range(10, 15), 1: range(10, 15), 2: range(15), 3: range(15)}
        )
    assert lost["earliest"] == 0 and sum(landed["earliest"].values()) == 20 + 10 + 30


def test_bad_input_is_one_line_and_writes_nothing(broker, tmp_path):
    out = tmp_path / "sink"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cases = [
        ["--policy", "sometimes"],
        ["--policy", "earliest", "--max-age", "PT1M"],
        ["--invalid", "closest"],
    ]
    for extra in cases:
        result = subprocess.run(
            [
                *(sys.executable, "-m", "kafka_pipeline.cli", "--bootstrap-server", broker.bootstrap),
                *("--topic", "t", "--group", "g", "--output", str(out), *extra),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert result.returncode == 2, result.stderr
        assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert result.stderr.startswith("Error: ")
    assert not out.exists()


def test_the_expansion_guard_calls_a_pipeline_landing_from_the_beginning_safe(broker, spark, ours, tmp_path):
    topic = create_topic(broker.bootstrap, unique("guard"), partitions=1)
    produce_n(broker.bootstrap, topic, {0: 5})
    safe, at_risk = unique("guard-earliest"), unique("guard-latest")
    _land(broker, spark, topic, safe, tmp_path / "a", policy="earliest")
    _land(broker, spark, topic, at_risk, tmp_path / "b", policy="latest")
    altered = ours(
        "kafka-topics",
        "--bootstrap-server",
        broker.bootstrap,
        "--alter",
        "--topic",
        topic,
        "--partitions",
        "3",
    )
    assert altered.returncode == 0, altered.stderr
    lines = altered.stderr.splitlines()
    warning = next(line for line in lines if line.startswith("Warning: "))
    assert f"{at_risk} (Empty)" in warning and safe not in warning
    assert f"No reset needed for {safe}: kafka-to-parquet recorded a policy" in altered.stderr, altered.stderr
    command = next(line for line in lines if line.startswith("To read the new partitions"))
    assert f"--group {at_risk} --reset-offsets --topic {topic}:1,2 --to-earliest" in command
    assert safe not in command
    # And it is right: the next run of the safe group lands the new partitions from their start.
    produce_n(broker.bootstrap, topic, {1: 4, 2: 6})
    report = _land(broker, spark, topic, safe, tmp_path / "a", policy="earliest")
    assert sorted((p.partition, p.start, p.end) for p in report.partitions) == [
        (0, 5, 5),
        (1, 0, 4),
        (2, 0, 6),
    ]
