"""kafka-to-parquet's first run: Spark's Kafka source from the jars scripts/setup fetched, so a
Maven cache with pom-only folders (what Maven leaves routinely) cannot break it; a JVM that does
not start is reported with its own reason; test data from `python -m infra.kafka produce`; a first
run right after the broker starts waits out the group coordinator's loading."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from infra import kafka as local_kafka
from tests.conftest import ROOT
from tests.kafka_helpers import committed, unique

pytest.importorskip("pyspark")
pq = pytest.importorskip("pyarrow.parquet")

IVY_SIGNS = re.compile(r"ivy|:: resolving|spark-packages|proxy server|artifacts copied|confs: \[", re.I)


def _poisoned_home(tmp_path: Path) -> Path:
    """A home whose ~/.m2 holds slf4j-api 2.0.16's pom and no jar, as Maven leaves it when that
    version loses dependency mediation."""
    home = tmp_path / "home"
    folder = home / ".m2" / "repository" / "org" / "slf4j" / "slf4j-api" / "2.0.16"
    folder.mkdir(parents=True)
    (folder / "slf4j-api-2.0.16.pom").write_text(
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        "<groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>2.0.16</version></project>\n"
    )
    return home


def _env(home: Path) -> dict[str, str]:
    # Java takes ~ from the password database, not $HOME: user.home points Ivy's ~/.m2 there.
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HOME": str(home),
        "JAVA_TOOL_OPTIONS": f"-Duser.home={home}",
    }


def _to_parquet(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kafka_pipeline.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def test_a_first_run_right_after_the_broker_starts_lands_without_resolving(tmp_path):
    """The first run of a new pipeline, in the two conditions a first run meets (one Spark JVM for
    both: its start is most of the test's time):

    - a home whose Maven cache is poisoned (``_poisoned_home``): the run lands from the fetched
      jars without resolving anything (no Ivy);
    - a broker that has just started: it answers "coordinator load in progress" (or has no
      coordinator yet) for the group, and the run asks again within its timeout instead of
      failing. No read of the group before the run: the job is the first to ask for its
      coordinator, so the group is new and nothing is committed before it."""
    cluster = local_kafka.start(nodes=1, workdir=local_kafka.RUN_DIR / f"pytest-pipeline-fresh-{unique('c')}")
    try:
        home = _poisoned_home(tmp_path)
        topic, group, out = unique("first"), unique("first"), tmp_path / "sink"
        made = subprocess.run(
            [
                *(sys.executable, "-m", "infra.kafka", "produce", "--bootstrap-server", cluster.bootstrap),
                *("--topic", topic, "--records", "1001", "--partitions", "3"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=ROOT,
        )
        assert made.returncode == 0, made.stderr
        assert "per partition 0: 334, 1: 334, 2: 333" in made.stderr

        result = _to_parquet(
            *("--bootstrap-server", cluster.bootstrap, "--topic", topic, "--group", group),
            *("--output", str(out), "--master", "local[1]"),
            env=_env(home),
        )
        assert result.returncode == 0, result.stderr[-3000:]
        assert f"Landed 1001 offsets of 3 partitions in file:{out}" in result.stdout
        said = result.stdout + result.stderr
        assert not IVY_SIGNS.search(said), said
        assert not (home / ".ivy2.5.2").exists() and not (home / ".ivy2").exists()  # Ivy never ran
        assert committed(cluster.bootstrap, group) == {(topic, 0): 334, (topic, 1): 334, (topic, 2): 333}
    finally:
        cluster.stop(grace=0)  # its data is deleted: no controlled shutdown to wait for

    # The landed records, read as docs/pipeline.md shows (pyarrow, from the spark extra).
    table = pq.read_table(str(out))
    rows = table.select(["partition", "offset", "value"]).to_pylist()
    assert sorted((int(r["partition"]), r["offset"]) for r in rows) == sorted(
        (p, o) for p, n in {0: 334, 1: 334, 2: 333}.items() for o in range(n)
    )
    ids = sorted(json.loads(r["value"])["id"] for r in rows)
    assert ids == list(range(1001))


def test_a_jvm_that_does_not_start_is_reported_with_its_reason(broker, tmp_path):
    """Spark's own resolution (--packages) against the poisoned cache alone, offline: the
    failure the fetched jars avoid, now named instead of JAVA_GATEWAY_EXITED."""
    home = _poisoned_home(tmp_path)
    settings = tmp_path / "ivysettings.xml"
    settings.write_text(
        '<ivysettings><settings defaultResolver="m2"/><resolvers>'
        f'<ibiblio name="m2" m2compatible="true" root="file://{home}/.m2/repository"/>'
        "</resolvers></ivysettings>\n"
    )
    topic, group, out = unique("nojvm"), unique("nojvm"), tmp_path / "sink"
    local_kafka.produce(broker.bootstrap, topic, 10)
    assert committed(broker.bootstrap, group) == {}
    result = _to_parquet(
        *("--bootstrap-server", broker.bootstrap, "--topic", topic, "--group", group),
        *("--output", str(out), "--master", "local[1]", "--packages", "org.slf4j:slf4j-api:2.0.16"),
        *("--conf", f"spark.jars.ivySettings={settings}", "--conf", f"spark.jars.ivy={tmp_path / 'ivy'}"),
        env=_env(home),
    )
    assert result.returncode == 1, result.stderr
    # The cluster line (said before Spark starts, ahead of the first write) and then the error.
    said = result.stderr.splitlines()
    assert re.fullmatch(
        rf"Writing to the cluster at {re.escape(broker.bootstrap)} \(cluster id \S+\)", said[0]
    )
    first = said[1]
    assert first == (
        "Error: Spark's JVM exited before it started: "
        "[download failed: org.slf4j#slf4j-api;2.0.16!slf4j-api.jar]"
    ), result.stderr
    assert "JAVA_GATEWAY_EXITED" not in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""
    assert not out.exists() and committed(broker.bootstrap, group) == {}


@pytest.mark.parametrize(
    "extra",
    [
        ["--jars", ""],
        ["--jars", " "],
        ["--packages", ""],
        ["--jars", "/nonexistent/spark-sql-kafka.jar"],
        ["--jars", "x", "--packages", "g:a:1"],
        ["--conf", "spark.executor.memory"],
        ["--conf", "executor.memory=1g"],
        ["--conf", "spark.jars.packages=g:a:1"],
    ],
)
@pytest.mark.smoke
def test_bad_spark_options_are_one_line_and_contact_nothing(tmp_path, extra):
    out = tmp_path / "sink"
    result = _to_parquet(
        *("--bootstrap-server", "127.0.0.1:1", "--topic", "t", "--group", "g", "--output", str(out), *extra),
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 2, result.stderr
    assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith("Error: ")
    assert not out.exists()


def test_the_fetched_jars_add_only_what_pyspark_lacks():
    import pyspark

    fetched = local_kafka.ensure_spark_jars(pyspark.__version__)
    shipped = Path(pyspark.__file__).parent / "jars"

    def artifact(jar: Path) -> str:
        return re.sub(r"-\d+(\.\d+)+[\w.-]*\.jar$", "", jar.name)

    ours = {artifact(j) for j in fetched.glob("*.jar")}
    assert f"spark-sql-kafka-0-10_2.13-{pyspark.__version__}.jar" in {j.name for j in fetched.glob("*.jar")}
    assert {"kafka-clients", "spark-token-provider-kafka-0-10_2.13"} <= ours
    assert not ours & {artifact(j) for j in shipped.glob("*.jar")}
