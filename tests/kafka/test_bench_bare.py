"""bench/bare.py, the benchmark's reference of a command's requests alone, does the work our
command does: the same offsets read, the same groups listed, the same reset committed. A
reference that read less (or nothing) would make ours look slow for the wrong reason."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kafka_helpers import (
    commit_offsets,
    committed,
    create_topic,
    delete_records_before,
    produce_n,
    unique,
)

pytestmark = pytest.mark.kafka

ROOT = Path(__file__).resolve().parents[2]


def test_bare_configures_the_admin_client_as_ours():
    from bench.bare import admin_config
    from kafka_groups.access.config import librdkafka_config
    from kafka_groups.settings import resolve_settings

    settings = resolve_settings("127.0.0.1:9092", None, None, environ={})  # a plain listener, no file
    assert admin_config("127.0.0.1:9092") == librdkafka_config(settings)


def bare(*argv: str, state_dir: Path | None = None) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if state_dir is not None:
        env["KAFKA_TOOLS_STATE_DIR"] = str(state_dir)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bare.py"), *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr[-800:]
    return proc.stdout


def rows_of(text: str, group: str, columns: int) -> set[tuple[str, ...]]:
    """The rows of ``group`` in either output, as their first ``columns`` cells."""
    return {tuple(line.split()[:columns]) for line in text.splitlines() if line.split()[:1] == [group]}


@pytest.fixture
def group_on_three(broker):
    """A group with offsets 1, 2 and 3 on a topic of 3 partitions holding 5 records each, whose
    log start is 2 on partition 0."""
    topic = create_topic(broker.bootstrap, unique("bare"), partitions=3)
    produce_n(broker.bootstrap, topic, {0: 5, 1: 5, 2: 5})
    delete_records_before(broker.bootstrap, topic, 0, 2)
    group = unique("bare-group")
    commit_offsets(broker.bootstrap, group, {(topic, p): p + 1 for p in range(3)})
    return group, topic


def test_describe_reads_what_ours_shows(broker, ours, group_on_three):
    group, topic = group_on_three
    mine = ours(
        "kafka-consumer-groups", "--bootstrap-server", broker.bootstrap, "--describe", "--group", group
    )
    assert mine.returncode == 0, mine.stderr
    # GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG, in both.
    expected = {(group, topic, str(p), str(p + 1), "5", str(4 - p)) for p in range(3)}
    assert rows_of(mine.stdout, group, 6) == expected
    assert rows_of(bare("describe", broker.bootstrap, group), group, 6) == expected


def test_list_lists_what_ours_lists(broker, ours, group_on_three):
    group, _ = group_on_three
    mine = ours("kafka-consumer-groups", "--bootstrap-server", broker.bootstrap, "--list")
    assert mine.returncode == 0, mine.stderr
    assert group in mine.stdout.split()
    assert group in bare("list", broker.bootstrap).split()


def test_reset_plans_and_commits_what_ours_does(broker, ours, group_on_three, tmp_path):
    group, topic = group_on_three
    args = ["--reset-offsets", "--group", group, "--topic", topic, "--to-earliest"]
    mine = ours("kafka-consumer-groups", "--bootstrap-server", broker.bootstrap, *args, "--dry-run")
    assert mine.returncode == 0, mine.stderr
    planned = {(group, topic, "0", "2"), (group, topic, "1", "0"), (group, topic, "2", "0")}
    assert rows_of(mine.stdout, group, 4) == planned
    assert rows_of(bare("reset", broker.bootstrap, group, topic, "--dry-run"), group, 4) == planned
    assert committed(broker.bootstrap, group) == {(topic, 0): 1, (topic, 1): 2, (topic, 2): 3}  # a dry run

    shown = bare("reset", broker.bootstrap, group, topic, "--execute", state_dir=tmp_path)
    assert rows_of(shown, group, 4) == planned
    assert committed(broker.bootstrap, group) == {(topic, 0): 2, (topic, 1): 0, (topic, 2): 0}
    (backup,) = (tmp_path / "bench-bare").iterdir()  # the offsets it replaced, as ours keeps them
    assert sorted(backup.read_text().splitlines()) == [f"{group},{topic},{p},{p + 1}" for p in range(3)]
