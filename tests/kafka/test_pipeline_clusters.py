"""kafka-to-parquet with named clusters (clusters.toml in a temporary XDG_CONFIG_HOME): --cluster and
KAFKA_TOOLS_CLUSTER pick the cluster the landing reads and commits to; before its first commit a run
(and a service, once) names it on stderr as the other tools' writes do; a protected cluster needs
--yes where there is no terminal -- refused before anything is contacted otherwise -- and on a
terminal has the operator type its name. Every record is counted by offset in the Parquet output."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.kafka.test_clusters import Listener, cluster_id, clusters_env, table
from tests.kafka_helpers import committed, create_topic, on_a_terminal, produce_n, unique

pytest.importorskip("pyspark")
pq = pytest.importorskip("pyarrow.parquet")

pytestmark = pytest.mark.kafka

REFUSED = (
    "Error: cluster 'prod' is protected: a write to it needs --yes where there is no terminal to "
    "confirm on; nothing was sent"
)


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SPARK_LOCAL_IP": "127.0.0.1", **extra}
    for name in ("KAFKA_TOOLS_CLUSTER", "KAFKA_BOOTSTRAP_SERVERS", "KAFKA_COMMAND_CONFIG"):
        if name not in extra:
            env.pop(name, None)
    return env


def _to_parquet(*args: str, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kafka_pipeline.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_env(env),
        stdin=subprocess.DEVNULL,
    )


def _landed(out: Path) -> Counter[tuple[int, int]]:
    if not out.exists() or not any(p.name.startswith("topic=") for p in out.iterdir()):
        return Counter()
    rows = pq.read_table(str(out), columns=["partition", "offset"]).to_pylist()
    return Counter((int(r["partition"]), r["offset"]) for r in rows)


def _every_offset(ends: dict[int, int]) -> Counter[tuple[int, int]]:
    return Counter((p, o) for p, end in ends.items() for o in range(end))


@pytest.fixture
def records(broker):
    """A topic of 2 partitions with 6 and 4 records, and a group id not used yet."""
    topic, group = unique("pq-cl-t"), unique("pq-cl-g")
    create_topic(broker.bootstrap, topic, 2)
    produce_n(broker.bootstrap, topic, {0: 6, 1: 4})
    return topic, group


def test_a_protected_cluster_without_a_terminal_needs_yes_before_anything_is_contacted(tmp_path):
    listener = Listener()
    try:
        env = clusters_env(tmp_path, table("prod", listener.address, protected=True))
        run = ("--topic", "t", "--group", "g", "--output", str(tmp_path / "sink"))
        for how in ((("--cluster", "prod"), {}), ((), {"KAFKA_TOOLS_CLUSTER": "prod"})):
            flags, chosen = how
            for every in ((), ("--every", "5")):
                result = _to_parquet(*flags, *run, *every, env={**env, **chosen}, timeout=120)
                assert (result.returncode, result.stdout) == (2, ""), result.stderr
                assert result.stderr.splitlines() == [REFUSED], (flags, every)
        assert listener.connections == 0
        assert not (tmp_path / "sink").exists()
    finally:
        listener.close()


def test_a_service_names_its_cluster_once_before_it_commits(broker, records, tmp_path):
    """KAFKA_TOOLS_CLUSTER names a protected cluster, --yes confirms it: a service says the cluster
    line once over two landings (not once per landing). A single run says it once too: the run on
    a terminal below (the same line, before its first commit)."""
    topic, group = records
    env = clusters_env(tmp_path, table("prod", broker.bootstrap, protected=True, timeout=20000))
    env["KAFKA_TOOLS_CLUSTER"] = "prod"
    named = f"Writing to cluster 'prod' at {broker.bootstrap} (cluster id {cluster_id(broker.bootstrap)})"
    out = tmp_path / "sink"
    common = ("--topic", topic, "--group", group, "--output", str(out), "--master", "local[1]", "--yes")

    # Two landings, records arriving between them, then SIGTERM.
    service = subprocess.Popen(
        [sys.executable, "-m", "kafka_pipeline.cli", *common, "--every", "2"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(env),
        start_new_session=True,
    )
    try:
        assert service.stdout is not None
        first = json.loads(service.stdout.readline())  # the first landing's document
        assert (first["status"], first["records"]) == ("landed", 10), first
        assert committed(broker.bootstrap, group) == {(topic, 0): 6, (topic, 1): 4}
        produce_n(broker.bootstrap, topic, {0: 3, 1: 2})
        deadline = time.monotonic() + 240
        while committed(broker.bootstrap, group) != {(topic, 0): 9, (topic, 1): 6}:
            assert time.monotonic() < deadline and service.poll() is None, "the second landing never came"
            time.sleep(1)
        os.killpg(service.pid, signal.SIGTERM)
        _, stderr = service.communicate(timeout=120)
    finally:
        if service.poll() is None:
            os.killpg(service.pid, signal.SIGKILL)
            service.wait(30)
    assert service.returncode == 0, stderr
    assert stderr.splitlines().count(named) == 1, stderr
    assert _landed(out) == _every_offset({0: 9, 1: 6})


def _on_a_terminal(args: list[str], env: dict[str, str], answer: str) -> tuple[int, str]:
    """kafka-to-parquet on a pseudo-terminal (kafka_helpers.on_a_terminal)."""
    argv = [sys.executable, "-m", "kafka_pipeline.cli", *args]
    return on_a_terminal(argv, _env(env), answer, timeout=300)


def test_a_protected_cluster_on_a_terminal_asks_for_its_name(broker, records, tmp_path):
    topic, group = records
    env = clusters_env(tmp_path, table("prod", broker.bootstrap, protected=True))
    out = tmp_path / "sink"
    args = [
        "--cluster",
        "prod",
        "--topic",
        topic,
        "--group",
        group,
        "--output",
        str(out),
        "--master",
        "local[1]",
    ]

    code, shown = _on_a_terminal(args, env, "staging")
    assert code == 2, shown
    assert "Cluster 'prod' is protected. Type its name to write to it:" in shown
    assert "Error: the name typed was not 'prod': nothing was written to the cluster" in shown
    assert committed(broker.bootstrap, group) == {}
    assert not out.exists()

    code, shown = _on_a_terminal(args, env, "prod")
    assert code == 0, shown
    named = f"Writing to cluster 'prod' at {broker.bootstrap} (cluster id {cluster_id(broker.bootstrap)})"
    assert shown.splitlines().count(named) == 1, shown  # once, before the question
    order = [shown.index(s) for s in (named, "Type its name")]
    assert order == sorted(order), shown
    assert _landed(out) == _every_offset({0: 6, 1: 4})
    assert committed(broker.bootstrap, group) == {(topic, 0): 6, (topic, 1): 4}
