"""Failover on a three-node cluster: a broker is killed (SIGKILL) and the commands run at once.

Each command gives the answer the healthy cluster gives (no -1001 or other sentinel shown as
data), or fails within its --timeout with one line naming what was missing (a partition, a
coordinator, a broker); never a traceback or "unexpected failure". A bootstrap list whose first
address is the dead broker is used throughout. The killed node is started again between cases.
"""

from __future__ import annotations

import re
import socket
import time
from dataclasses import dataclass

import pytest

from infra import kafka as local_kafka
from tests.kafka_helpers import admin, commit_offsets, committed, produce_n, restore_nodes, unique

pytestmark = pytest.mark.kafka

SHORT_MS = 3000  # --timeout that a failover outlasts: a named failure is allowed
LONG_MS = 40_000  # --timeout a failover fits in: the answer must be the healthy one
PARTITIONS = 6
COMMITTED = 5
ELECTION_NOT_NEEDED = 84  # the preferred replica leads already
STARTUP_S = 15  # a generous allowance for starting the interpreter and the clients
NAMED = re.compile(
    r"^Error: (the coordinators? of groups? |the log (end|start) offsets? of |the list of groups on broker "
    r"|an answer from broker |an answer for |the cluster metadata |the committed offsets of ).*"
    rf"not available within {SHORT_MS} ms \(.+\)$"
)


@dataclass
class Setup:
    cluster: local_kafka.Cluster
    topic: str
    group: str
    healthy: dict[str, str]  # command name -> its stdout on the healthy cluster


def _bootstrap_with_first(cluster: local_kafka.Cluster, first: int) -> str:
    """Every node's address, ``first``'s in front (a dead address first, when it is killed)."""
    nodes = sorted(cluster.node_list, key=lambda n: n.node_id != first)
    return ",".join(n.bootstrap for n in nodes)


def _commands(setup: Setup, timeout_ms: int) -> dict[str, list[str]]:
    groups = ["kafka-consumer-groups", "--timeout", str(timeout_ms)]
    return {
        "describe": [*groups, "--describe", "--group", setup.group],
        "list": [*groups, "--list"],
        "reset-dry-run": [
            *groups,
            "--reset-offsets",
            "--group",
            setup.group,
            "--topic",
            setup.topic,
            "--to-latest",
            "--dry-run",
        ],
        "topics-describe": ["kafka-topics", "--describe", "--topic", setup.topic],
        "topics-under-replicated": ["kafka-topics", "--describe", "--under-replicated-partitions"],
    }


def _execute(setup: Setup, timeout_ms: int, offset: int) -> list[str]:
    dry_run = _commands(setup, timeout_ms)["reset-dry-run"]
    return [*dry_run[:-2], "--to-offset", str(offset), "--execute"]


def _run(ours, bootstrap: str, argv: list[str]):
    tool, *args = argv
    began = time.monotonic()
    result = ours(tool, "--bootstrap-server", bootstrap, *args)
    return result, time.monotonic() - began


def _replicas(out: str) -> list[str]:
    """kafka-topics --describe partition lines without what a failover changes (leader, ISR)."""
    return sorted(
        re.sub(r"\tLeader: \S+|\tIsr: \S*|\tElr: \S*|\tLastKnownElr: \S*", "", line).strip()
        for line in out.splitlines()
        if "Partition: " in line
    )


def _offset_rows(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.strip()]


def _same_answer(name: str, got: str, healthy: str) -> None:
    if name == "topics-describe":
        assert _replicas(got) == _replicas(healthy)
        assert got.splitlines()[0].split("\t")[:4] == healthy.splitlines()[0].split("\t")[:4]
    elif name == "topics-under-replicated":
        # Whichever partitions are under-replicated right now, each a real partition line
        # (``healthy`` is every partition of the cluster here).
        assert set(_replicas(got)) <= set(_replicas(healthy))
    else:
        assert _offset_rows(got) == _offset_rows(healthy)
    assert "-1001" not in got


def _coordinator(bootstrap: str, group: str) -> int:
    deadline = time.monotonic() + 60
    while True:
        client = admin(bootstrap)  # kept until its future resolves
        try:
            described = client.describe_consumer_groups([group], request_timeout=10)[group].result(timeout=30)
            return int(described.coordinator.id)
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def _quorum_leader(apache, cluster: local_kafka.Cluster) -> int:
    """The active KRaft controller (kafka-metadata-quorum describe --status)."""
    result = apache(
        "org.apache.kafka.tools.MetadataQuorumCommand",
        "--bootstrap-server",
        cluster.bootstrap,
        "describe",
        "--status",
    )
    found = re.search(r"^LeaderId:\s+(\d+)", result.stdout, re.MULTILINE)
    assert found, result.stdout + result.stderr
    return int(found.group(1))


def _leaders(bootstrap: str, topic: str) -> dict[int, int]:
    metadata = admin(bootstrap).list_topics(topic, timeout=10)
    return {p.id: p.leader for p in metadata.topics[topic].partitions.values()}


def _elect_preferred_leaders(bootstrap: str, topic: str) -> None:
    """Leadership back to the preferred replicas (each node leads two partitions again)."""
    from confluent_kafka import ElectionType, TopicPartition

    deadline = time.monotonic() + 60
    while True:
        client = admin(bootstrap)
        try:
            future = client.elect_leaders(
                ElectionType.PREFERRED, [TopicPartition(topic, p) for p in range(PARTITIONS)]
            )
            results = future.result(timeout=30)
            outcomes = [
                getattr(r, "error", r) for r in (results.values() if isinstance(results, dict) else results)
            ]
            errors = [e for e in outcomes if e is not None and e.code() != ELECTION_NOT_NEEDED]
            if not errors:
                return
        except Exception:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"preferred leaders of {topic} not elected")
        time.sleep(1)


def _kill(cluster: local_kafka.Cluster, node_id: int) -> None:
    """SIGKILL, no controlled shutdown; the node's data stays for start_node."""
    assert cluster.is_running(node_id)
    cluster.stop_node(node_id, grace=0)


@pytest.fixture(scope="module")
def setup(ours, three_nodes):
    cluster = three_nodes
    restore_nodes(cluster)
    try:
        bs = cluster.bootstrap
        topic, group = unique("orders"), unique("failover")
        from confluent_kafka.admin import NewTopic

        # Each node the preferred leader of two partitions, replicated on all three.
        assignment = [[1, 2, 3], [2, 3, 1], [3, 1, 2]] * (PARTITIONS // 3)
        client = admin(bs)
        created = client.create_topics(
            [NewTopic(topic, len(assignment), replica_assignment=assignment, config={"retention.ms": "-1"})],
            operation_timeout=30,
        )
        created[topic].result(timeout=30)
        produce_n(bs, topic, {p: 10 + p for p in range(PARTITIONS)})
        commit_offsets(bs, group, {(topic, p): COMMITTED for p in range(PARTITIONS)})
        partial = Setup(cluster, topic, group, {})
        for name, argv in _commands(partial, LONG_MS).items():
            result, _ = _run(ours, bs, argv)
            assert result.returncode == 0, (name, result.stderr)
            partial.healthy[name] = result.stdout
        assert "-1001" not in partial.healthy["describe"]
        # Nothing is under-replicated yet: a failover's list is judged against every partition.
        assert partial.healthy["topics-under-replicated"] == ""
        everything, _ = _run(ours, bs, ["kafka-topics", "--describe"])
        partial.healthy["topics-under-replicated"] = everything.stdout
        yield partial
    finally:
        restore_nodes(cluster)


def _restore(setup: Setup, node_id: int) -> None:
    setup.cluster.start_node(node_id)
    bs = setup.cluster.bootstrap
    _elect_preferred_leaders(bs, setup.topic)
    commit_offsets(bs, setup.group, {(setup.topic, p): COMMITTED for p in range(PARTITIONS)})


def _check_failover(setup: Setup, ours, victim: int, tmp_path) -> None:
    """Kill ``victim`` and run every command at once, then again with room for the failover."""
    cluster = setup.cluster
    bootstrap = _bootstrap_with_first(cluster, victim)
    _kill(cluster, victim)
    try:
        # At once, with a --timeout the failover outlasts: the right answer or a named failure.
        for name, argv in _commands(setup, SHORT_MS).items():
            result, took = _run(ours, bootstrap, argv)
            assert "Traceback" not in result.stderr and "unexpected failure" not in result.stderr, (
                result.stderr
            )
            assert "-1001" not in result.stdout
            if result.returncode == 0:
                _same_answer(name, result.stdout, setup.healthy[name])
            else:
                assert result.returncode == 1, (name, result.returncode, result.stderr)
                assert result.stdout == ""
                assert len(result.stderr.strip().splitlines()) == 1, result.stderr
                assert NAMED.match(result.stderr.strip()), (name, result.stderr)
            if name.startswith("topics"):
                continue  # kafka-topics has no --timeout (60 s, as the Apache tool's)
            assert took < 2 * SHORT_MS / 1000 + STARTUP_S, (name, took)

        # A reset executed at once: it lands, or says it did not or that it cannot tell; the
        # offsets then are the old ones or the new ones, never anything else.
        before = {(setup.topic, p): COMMITTED for p in range(PARTITIONS)}
        target = {(setup.topic, p): 4 for p in range(PARTITIONS)}
        result, _ = _run(ours, bootstrap, [*_execute(setup, SHORT_MS, 4), "--backup-dir", str(tmp_path)])
        assert "Traceback" not in result.stderr and "unexpected failure" not in result.stderr, result.stderr
        assert result.returncode in (0, 1, 4), result.stderr
        if result.returncode != 0:
            assert "Error: " in result.stderr, result.stderr
        now = committed(bootstrap, setup.group)
        if result.returncode == 0:
            assert now == target
        elif result.returncode == 1:
            assert now == before
        else:
            assert now in (before, target)
        commit_offsets(bootstrap, setup.group, before)

        # With room for the failover: the healthy answer, dead address first in the list.
        for name, argv in _commands(setup, LONG_MS).items():
            result, _ = _run(ours, bootstrap, argv)
            assert result.returncode == 0, (name, result.stderr)
            _same_answer(name, result.stdout, setup.healthy[name])

        # A reset runs through: its plan is the healthy plan, and the offsets take.
        target = {(setup.topic, p): 3 for p in range(PARTITIONS)}
        result, _ = _run(ours, bootstrap, [*_execute(setup, LONG_MS, 3), "--backup-dir", str(tmp_path)])
        assert "Traceback" not in result.stderr and "unexpected failure" not in result.stderr, result.stderr
        assert result.returncode == 0, result.stderr
        assert committed(bootstrap, setup.group) == target
    finally:
        _restore(setup, victim)


def test_a_broker_that_is_neither_controller_nor_coordinator_is_killed(setup, apache, ours, tmp_path):
    bs = setup.cluster.bootstrap
    spared = {_quorum_leader(apache, setup.cluster), _coordinator(bs, setup.group)}
    victim = next(n.node_id for n in setup.cluster.node_list if n.node_id not in spared)
    assert victim in _leaders(bs, setup.topic).values()  # it leads partitions of the topic
    _check_failover(setup, ours, victim, tmp_path)


def test_the_groups_coordinator_is_killed(setup, ours, tmp_path):
    victim = _coordinator(setup.cluster.bootstrap, setup.group)
    _check_failover(setup, ours, victim, tmp_path)


def _refused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again at once: nothing listens there


def test_a_dead_first_bootstrap_address_is_passed_over(setup, ours):
    bootstrap = f"127.0.0.1:{_refused_port()},{setup.cluster.bootstrap}"
    for name, argv in _commands(setup, SHORT_MS).items():
        result, _ = _run(ours, bootstrap, argv)
        assert result.returncode == 0, (name, result.stderr)
        _same_answer(name, result.stdout, setup.healthy[name])


@pytest.mark.parametrize("command", ["list", "describe", "reset-dry-run"])
def test_refused_ports_are_named_within_the_timeout(ours, command):
    ports = [_refused_port(), _refused_port()]
    bootstrap = ",".join(f"127.0.0.1:{p}" for p in ports)
    fake = Setup(None, "t", "g", {})  # type: ignore[arg-type]
    result, took = _run(ours, bootstrap, _commands(fake, 1000)[command])
    assert result.returncode == 1
    assert result.stdout == ""
    assert (
        result.stderr.strip() == f"Error: cannot reach the cluster at {bootstrap} within 1000 ms: "
        "connection refused by each address"
    )
    assert took < 2 * 1.0 + STARTUP_S
