"""Named clusters against real brokers: two clusters in one clusters.toml (the 4.x broker and the 3.9
one), each write naming its cluster (name, servers, cluster id) before its backup line, a protected
cluster's write refused without --yes when there is no terminal -- before anything is contacted --
and confirmed by typing its name on one (a pseudo-terminal), and the subcommand form's friendlier
--to-datetime. (Secrets: test_clusters_secure.py.)"""

from __future__ import annotations

import os
import socket
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.kafka_helpers import (
    TOOL_TIMEOUT_MS,
    admin,
    commit_offsets,
    committed,
    create_topic,
    on_a_terminal,
    produce_n,
    unique,
)

pytestmark = pytest.mark.kafka


def cluster_id(bootstrap: str) -> str:
    client = admin(bootstrap)  # alive until its future resolves
    return str(client.describe_cluster(request_timeout=30).result(timeout=60).cluster_id)


def table(name: str, bootstrap: str, **keys: object) -> str:
    """One ``[clusters.NAME]`` table of a clusters.toml."""
    lines = [f"[clusters.{name}]", f'bootstrap-server = "{bootstrap}"']
    lines += [f"{k} = {str(v).lower() if isinstance(v, bool) else v}" for k, v in keys.items()]
    return "\n".join(lines) + "\n\n"


def clusters_env(tmp_path: Path, text: str) -> dict[str, str]:
    folder = tmp_path / "xdg" / "kafka-group-tools"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "clusters.toml").write_text(text)
    return {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "KAFKA_TOOLS_STATE_DIR": str(tmp_path / "state")}


class Listener:
    """A TCP port that accepts and counts connections, and answers nothing: a cluster's address
    that shows whether a command contacted it."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.address = f"127.0.0.1:{self.sock.getsockname()[1]}"
        self.connections = 0
        self._stop = False
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop = True
        self._thread.join()
        self.sock.close()


@pytest.fixture
def group_at(broker):
    """A topic of 2 partitions with 10 records each, and a group committed at 5 on both."""
    topic, group = unique("cl-t"), unique("cl-g")
    create_topic(broker.bootstrap, topic, 2)
    produce_n(broker.bootstrap, topic, {0: 10, 1: 10})
    commit_offsets(broker.bootstrap, group, {(topic, 0): 5, (topic, 1): 5})
    return topic, group


def test_two_clusters_are_listed_shown_and_checked(broker, compat_broker, ours, tmp_path):
    env = clusters_env(
        tmp_path,
        table("dev", broker.bootstrap)
        + table("old", compat_broker.bootstrap, protected=True, timeout=20000)
        + table("gone", "127.0.0.1:1", timeout=2000),
    )
    listed = ours("kafka-consumer-groups", "clusters", "list", env=env)
    assert listed.returncode == 0, listed.stderr
    rows = [line.split() for line in listed.stdout.splitlines()]
    assert rows[0] == ["NAME", "BOOTSTRAP", "PROTECTED", "TIMEOUT-MS", "PROPERTIES"]
    assert [r[:4] for r in rows[1:]] == [
        ["dev", broker.bootstrap, "no", "-"],
        ["old", compat_broker.bootstrap, "yes", "20000"],
        ["gone", "127.0.0.1:1", "no", "2000"],
    ]

    checked = ours("kafka-topics", "clusters", "check", "dev", "old", "--timeout", TOOL_TIMEOUT_MS, env=env)
    assert checked.returncode == 0, checked.stderr
    rows = [line.split() for line in checked.stdout.splitlines()[1:]]
    assert rows == [
        ["dev", broker.bootstrap, cluster_id(broker.bootstrap), "1", "ok"],
        ["old", compat_broker.bootstrap, cluster_id(compat_broker.bootstrap), "1", "ok"],
    ]
    every = ours("kafka-streams-groups", "clusters", "check", "-o", "json", env=env)
    assert every.returncode == 3, every.stderr  # two of three answered
    assert every.stderr.strip().splitlines() == [
        "Error: 1 of 3 clusters did not answer (cluster 'gone': cannot reach the cluster at 127.0.0.1:1 "
        "within 2000 ms: connection refused)"
    ]
    assert '"cluster_id": null' in every.stdout and every.stdout.count('"error": null') == 2


def test_a_read_through_a_named_cluster_is_the_read_through_its_servers(broker, ours, group_at, tmp_path):
    _topic, group = group_at
    env = clusters_env(tmp_path, table("dev", broker.bootstrap, timeout=20000))
    named = ours("kafka-consumer-groups", "--cluster", "dev", "--describe", "--group", group, env=env)
    connection = ("--bootstrap-server", broker.bootstrap, "--timeout", TOOL_TIMEOUT_MS)
    plain = ours("kafka-consumer-groups", *connection, "--describe", "--group", group)
    assert (named.returncode, named.stdout, named.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    variable = {**env, "KAFKA_TOOLS_CLUSTER": "dev"}
    by_variable = ours("kafka-consumer-groups", "describe", "--group", group, env=variable)
    assert by_variable.stdout == plain.stdout


# Every write of the three tools, with what each needs (filled in per test).
def _writes(topic: str, group: str) -> list[tuple[str, ...]]:
    reset = ("--group", group, "--topic", topic)
    return [
        ("kafka-consumer-groups", "--reset-offsets", *reset, "--to-earliest", "--execute"),
        ("kafka-consumer-groups", "reset-offsets", *reset, "--to-latest", "--execute"),
        ("kafka-consumer-groups", "--delete-offsets", "--group", group, "--topic", f"{topic}:1"),
        ("kafka-topics", "--alter", "--topic", topic, "--partitions", "3"),
        ("kafka-topics", "--create", "--topic", f"{topic}-new", "--partitions", "1"),
        ("kafka-topics", "--delete", "--topic", f"{topic}-new"),
        ("kafka-consumer-groups", "--delete", "--group", group),
    ]


def _with(args: list[str], *extra: str) -> list[str]:
    """``args`` with ``extra`` options added (after the subcommand, in that form)."""
    if args and not args[0].startswith("-"):
        return [args[0], *extra, *args[1:]]
    return [*extra, *args]


def test_a_protected_cluster_without_a_terminal_needs_yes_and_nothing_is_contacted(ours, tmp_path):
    listener = Listener()
    try:
        env = clusters_env(tmp_path, table("prod", listener.address, protected=True))
        for tool, *args in _writes("orders", "billing"):
            result = ours(tool, *_with(args, "--cluster", "prod"), env=env)
            assert result.returncode == 2, (args, result.stderr)
            assert result.stderr.splitlines() == [
                "Error: cluster 'prod' is protected: a write to it needs --yes where there is no terminal to "
                "confirm on; nothing was sent"
            ], args
            assert result.stdout == ""
        assert listener.connections == 0
        assert not (tmp_path / "state").exists()  # no backup either
    finally:
        listener.close()


def test_reads_and_dry_runs_of_a_protected_cluster_are_never_asked(broker, ours, group_at, tmp_path):
    topic, group = group_at
    env = clusters_env(tmp_path, table("prod", broker.bootstrap, protected=True))
    reset = ("--reset-offsets", "--group", group, "--topic", topic, "--to-earliest")
    for tool, *args in (
        ("kafka-consumer-groups", "--describe", "--group", group),
        ("kafka-consumer-groups", *reset, "--dry-run"),
        ("kafka-consumer-groups", *reset),
        ("kafka-topics", "--alter", "--topic", topic, "--partitions", "4", "--dry-run"),
        ("kafka-topics", "--describe", "--topic", topic),
    ):
        result = ours(tool, "--cluster", "prod", *args, env=env)
        assert result.returncode == 0, (args, result.stderr)
        assert "Writing to" not in result.stderr
    assert committed(broker.bootstrap, group) == {(topic, 0): 5, (topic, 1): 5}


def test_every_write_names_its_cluster_before_its_backup_line(broker, ours, group_at, tmp_path):
    topic, group = group_at
    env = clusters_env(tmp_path, table("prod", broker.bootstrap, protected=True, timeout=20000))
    named = f"Writing to cluster 'prod' at {broker.bootstrap} (cluster id {cluster_id(broker.bootstrap)})"
    for tool, *args in _writes(topic, group):
        result = ours(tool, *_with(args, "--cluster", "prod", "--yes"), env=env)
        assert result.returncode == 0, (args, result.stderr)
        lines = result.stderr.splitlines()
        assert lines.count(named) == 1, (args, lines)
        after = lines[lines.index(named) + 1 :]
        before = lines[: lines.index(named)]
        announced = ("Saved the offsets", "Undo:", "Adding", "Deleting")
        assert not any(line.startswith(announced) for line in before)
        if (
            "--delete-offsets" in args
            or "--execute" in args
            or ("--delete" in args and tool != "kafka-topics")
        ):
            assert after and after[0].startswith("Saved the offsets"), (args, lines)
            undo = next(line for line in after if line.startswith("Undo: "))
            assert " --cluster prod " in undo and " --yes " in undo, undo  # the same cluster, confirmed alike
    assert committed(broker.bootstrap, group) == {}  # the last write deleted the group

    # Without a name, from the environment: the servers and the cluster id.
    unnamed = f"Writing to the cluster at {broker.bootstrap} (cluster id {cluster_id(broker.bootstrap)})"
    exported = {"KAFKA_BOOTSTRAP_SERVERS": broker.bootstrap}
    for tool, *args in (
        ("kafka-topics", "--create", "--topic", unique("cl-p")),
        (
            "kafka-consumer-groups",
            "--reset-offsets",
            "--group",
            group,
            "--topic",
            topic,
            "--to-earliest",
            "--execute",
        ),
    ):
        result = ours(tool, *args, env=exported)
        assert result.returncode == 0, result.stderr
        assert result.stderr.splitlines().count(unnamed) == 1, result.stderr
    # kafka-topics with --bootstrap-server typed, stderr piped: the Apache tool's stderr, untouched
    # (the command line names the servers); a reset still says it before its backup line.
    typed = ours(
        "kafka-topics", "--bootstrap-server", broker.bootstrap, "--create", "--topic", unique("cl-t")
    )
    assert (typed.returncode, typed.stderr) == (0, "")


def _on_a_terminal(args: list[str], env: dict[str, str], answer: str | None) -> tuple[int, str]:
    """kafka-consumer-groups on a pseudo-terminal (kafka_helpers.on_a_terminal), without the
    environment's KAFKA_TOOLS_CLUSTER."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    full_env.pop("KAFKA_TOOLS_CLUSTER", None)
    argv = [sys.executable, "-m", "kafka_groups.cli.consumer_groups", *args]
    return on_a_terminal(argv, full_env, answer, timeout=120)


def test_a_protected_write_on_a_terminal_asks_for_the_cluster_name(broker, group_at, tmp_path):
    topic, group = group_at
    env = clusters_env(tmp_path, table("prod", broker.bootstrap, protected=True, timeout=20000))
    reset = ["--cluster", "prod", "--reset-offsets", "--group", group, "--topic", topic, "--to-offset", "2"]
    reset.append("--execute")

    code, shown = _on_a_terminal(reset, env, "staging")
    assert code == 2, shown
    assert "Cluster 'prod' is protected. Type its name to write to it:" in shown
    assert "Error: the name typed was not 'prod': nothing was written to the cluster" in shown
    assert "Saved the offsets" not in shown
    assert committed(broker.bootstrap, group) == {(topic, 0): 5, (topic, 1): 5}

    code, shown = _on_a_terminal(reset, env, None)  # Ctrl-D: no answer
    assert code == 2, shown
    assert committed(broker.bootstrap, group) == {(topic, 0): 5, (topic, 1): 5}

    code, shown = _on_a_terminal(reset, env, "prod")
    assert code == 0, shown
    order = [shown.index(s) for s in ("Writing to cluster 'prod'", "Type its name", "Saved the offsets")]
    assert order == sorted(order), shown
    assert committed(broker.bootstrap, group) == {(topic, 0): 2, (topic, 1): 2}


def test_the_subcommand_form_takes_friendlier_times_and_says_which_instant(broker, ours, group_at, tmp_path):
    topic, group = group_at
    env = clusters_env(tmp_path, table("dev", broker.bootstrap, timeout=20000))
    scope = ("--cluster", "dev", "--group", group, "--topic", topic, "--dry-run", "--to-datetime")
    friendly = ours("kafka-consumer-groups", "reset-offsets", *scope, "Jan 31 2026 12:00 UTC", env=env)
    assert friendly.returncode == 0, friendly.stderr
    said = "Notice: --to-datetime 'Jan 31 2026 12:00 UTC' is taken as 2026-01-31T12:00:00.000Z"
    assert said in friendly.stderr.splitlines()
    exact = ours("kafka-consumer-groups", "reset-offsets", *scope, "2026-01-31T12:00:00.000", env=env)
    assert exact.stdout == friendly.stdout and "Notice: --to-datetime" not in exact.stderr
    flag_form = ours("kafka-consumer-groups", "--reset-offsets", *scope, "Jan 31 2026 12:00 UTC", env=env)
    assert flag_form.returncode == 2  # the Apache formats only, as the Apache tool
    assert "Invalid --to-datetime 'Jan 31 2026 12:00 UTC': Unparseable date" in flag_form.stderr
