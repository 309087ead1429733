"""kafka-to-parquet on a Spark standalone cluster: a master and one worker started from the installed
pyspark's own classes on 127.0.0.1, the job run with --master spark://... and through spark-submit."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.kafka_helpers import committed, create_topic, produce_n, unique

pyspark = pytest.importorskip("pyspark")
pq = pytest.importorskip("pyarrow.parquet")

pytestmark = pytest.mark.spark_cluster

SPARK_HOME = Path(pyspark.__file__).parent
READY_S = 180.0
# The JVM options the suite gives every JVM it starts (tests/conftest.py): daemons and executors too.
JVM_OPTS = os.environ.get("SPARK_SUBMIT_OPTS", "")
# Small, for a 2-core machine shared with brokers: one executor of one core.
EXECUTOR_CONF = ("--conf", "spark.executor.memory=512m", "--conf", "spark.cores.max=1") + (
    ("--conf", f"spark.executor.extraJavaOptions={JVM_OPTS}") if JVM_OPTS else ()
)


@dataclass(frozen=True)
class StandaloneCluster:
    master: str
    env: dict[str, str]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _spark_env(workdir: Path) -> dict[str, str]:
    conf_dir = workdir / "conf"  # an empty one: nothing from the machine's Spark settings
    conf_dir.mkdir(exist_ok=True)
    return {
        **os.environ,
        "SPARK_HOME": str(SPARK_HOME),
        "SPARK_CONF_DIR": str(conf_dir),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_DAEMON_MEMORY": "256m",
        "SPARK_DAEMON_JAVA_OPTS": JVM_OPTS,
        "SPARK_WORKER_DIR": str(workdir / "work"),
        "PYSPARK_PYTHON": sys.executable,
        "PYTHONPATH": str(ROOT),
    }


def _daemon(cls: str, args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [str(SPARK_HOME / "bin" / "spark-class"), cls, *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )


def _wait_for(log: Path, text: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + READY_S
    while time.monotonic() < deadline:
        if text in log.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            break
        time.sleep(0.5)
    raise RuntimeError(f"{log.name}: no {text!r}\n{log.read_text(errors='replace')[-3000:]}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)


@pytest.fixture(scope="module")
def spark_cluster(tmp_path_factory) -> Iterator[StandaloneCluster]:
    workdir = tmp_path_factory.mktemp("spark-standalone")
    env = _spark_env(workdir)
    port = _free_port()
    master_url = f"spark://127.0.0.1:{port}"
    started: list[subprocess.Popen[bytes]] = []
    try:
        master = _daemon(
            "org.apache.spark.deploy.master.Master",
            ["--host", "127.0.0.1", "--port", str(port), "--webui-port", str(_free_port())],
            workdir / "master.log",
            env,
        )
        started.append(master)
        _wait_for(workdir / "master.log", "I have been elected leader", master)
        worker_args = ["--host", "127.0.0.1", "--cores", "1", "--memory", "768m"]
        worker = _daemon(
            "org.apache.spark.deploy.worker.Worker",
            [*worker_args, "--webui-port", str(_free_port()), master_url],
            workdir / "worker.log",
            env,
        )
        started.append(worker)
        _wait_for(workdir / "worker.log", "Successfully registered with master", worker)
        yield StandaloneCluster(master_url, env)
    finally:
        for proc in reversed(started):  # the worker first: it stops its executors
            _stop(proc)


def _fetched_jars() -> list[str]:
    folder = ROOT / ".cache" / "spark" / pyspark.__version__ / "jars"
    jars = sorted(str(p) for p in folder.glob("*.jar"))
    assert jars, f"no jars in {folder}: run scripts/setup"
    return jars


def _landed(out: Path) -> Counter[tuple[int, int]]:
    """Every (partition, offset) in the sink, with how often it is there (read with pyarrow)."""
    rows = pq.read_table(str(out), columns=["partition", "offset"]).to_pylist()
    return Counter((int(r["partition"]), r["offset"]) for r in rows)


def test_master_url_and_spark_submit_land_every_record_once(broker, spark_cluster, tmp_path):
    topic = create_topic(broker.bootstrap, unique("standalone"), partitions=2)
    group, out = unique("standalone"), tmp_path / "sink"
    produce_n(broker.bootstrap, topic, {0: 40, 1: 25})
    assert committed(broker.bootstrap, group) == {}  # also waits out a new broker's coordinator load
    args = ["--bootstrap-server", broker.bootstrap, "--topic", topic, "--group", group, "--output", str(out)]

    # kafka-to-parquet --master spark://...: the driver here, the executor on the worker.
    first = subprocess.run(
        [sys.executable, "-m", "kafka_pipeline.cli", *args, "--master", spark_cluster.master, *EXECUTOR_CONF],
        capture_output=True,
        text=True,
        timeout=600,
        env=spark_cluster.env,
        stdin=subprocess.DEVNULL,
    )
    assert first.returncode == 0, first.stderr[-3000:]
    assert f"Landed 65 offsets of 2 partitions in file:{out}" in first.stdout
    assert committed(broker.bootstrap, group) == {(topic, 0): 40, (topic, 1): 25}

    # spark-submit with the fetched jars and the CLI's own file as the application.
    produce_n(broker.bootstrap, topic, {0: 7, 1: 11})
    submit = [str(SPARK_HOME / "bin" / "spark-submit"), "--master", spark_cluster.master]
    submit += ["--jars", ",".join(_fetched_jars()), *EXECUTOR_CONF]
    second = subprocess.run(
        [*submit, str(ROOT / "kafka_pipeline" / "cli.py"), *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=spark_cluster.env,
        stdin=subprocess.DEVNULL,
    )
    assert second.returncode == 0, second.stderr[-3000:]
    assert f"Landed 18 offsets of 2 partitions in file:{out}" in second.stdout
    assert committed(broker.bootstrap, group) == {(topic, 0): 47, (topic, 1): 36}

    expected = Counter([(0, o) for o in range(47)] + [(1, o) for o in range(36)])
    assert _landed(out) == expected
    assert not (out / "_staging").exists()


def test_spark_submit_without_the_source_is_refused_before_any_write(broker, spark_cluster, tmp_path):
    topic = create_topic(broker.bootstrap, unique("nosource"), partitions=1)
    group, out = unique("nosource"), tmp_path / "sink"
    produce_n(broker.bootstrap, topic, {0: 5})
    result = subprocess.run(
        [
            *(str(SPARK_HOME / "bin" / "spark-submit"), "--master", "local[1]"),
            *(str(ROOT / "kafka_pipeline" / "cli.py"), "--bootstrap-server", broker.bootstrap),
            *("--topic", topic, "--group", group, "--output", str(out)),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=spark_cluster.env,
        stdin=subprocess.DEVNULL,
    )
    # spark-submit passes the application's stderr on to its own stdout.
    said = result.stdout + result.stderr
    assert result.returncode == 1, said[-3000:]
    errors = [line for line in said.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and "Kafka source" in errors[0] and "--packages" in errors[0], said[-3000:]
    assert "Traceback" not in said
    assert not out.exists() and committed(broker.bootstrap, group) == {}
