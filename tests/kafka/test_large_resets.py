"""Resets, --delete-offsets and --delete of groups larger than one batch of __consumer_offsets, on
the real broker with the offsets topic's max.message.bytes lowered to 20,000 bytes for the module
(about 240 offsets of these names a batch), so that a few hundred partitions are beyond it.

What is checked: a plain commit of such a group is refused whole (the premise); ours commits it
in one transaction that becomes visible at once, for Empty classic and consumer-protocol groups,
--from-file (the undo), --to-group and a streams group; the group checked again before the commit
(a consumer that joins, another writer); a killed run's open transaction fenced by the next run;
what an aborted or timed-out transaction leaves; deletes of such groups in parts."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_groups.commands.guard import FAULT_DIR_ENV
from tests.conftest import OUR_TOOLS, ROOT
from tests.kafka_helpers import (
    TOOL_TIMEOUT_MS,
    ActiveConsumer,
    committed,
    consume_and_commit,
    create_topic,
    produce_n,
    unique,
)
from tests.large_commits import commit_in_slices, offsets_limit, refused_whole, stable
from tests.undo_helpers import run_undo, undo_line

pytestmark = pytest.mark.kafka

PARTITIONS = 600  # several chunks of a transaction at 20,000 bytes


@pytest.fixture(scope="module")
def big(broker) -> Iterator[str]:
    """A topic of PARTITIONS partitions of two records each (offsets 0 to 2), the limit lowered."""
    with offsets_limit(broker.bootstrap, probe=PARTITIONS) as probe:
        produce_n(broker.bootstrap, probe, dict.fromkeys(range(PARTITIONS), 2))
        yield probe


def _old(topic: str, offset: int = 2) -> dict[tuple[str, int], int]:
    return {(topic, p): offset for p in range(PARTITIONS)}


def _group(bs: str, topic: str, offset: int = 2) -> tuple[str, dict[tuple[str, int], int]]:
    group = unique("lr")
    old = _old(topic, offset)
    commit_in_slices(bs, group, old)
    return group, old


def _undo(stderr: str) -> list[str]:
    found = re.search(r"^Undo: (.*)$", stderr, re.M)
    assert found, stderr
    return shlex.split(found[1])


def _reset(ours, bs, group, *args):
    return ours(
        "kafka-consumer-groups", "--bootstrap-server", bs, "--group", group, "--reset-offsets",
        *args, "--timeout", TOOL_TIMEOUT_MS,
    )  # fmt: skip


def test_one_plain_commit_of_the_group_is_refused_whole_and_the_apache_tool_fails(broker, big, apache):
    """The premise: beyond one batch, a plain AdminClient commit and the Apache tool's reset change
    nothing (the broker refuses the batch with UNKNOWN_SERVER_ERROR)."""
    bs = broker.bootstrap
    assert refused_whole(bs, big, PARTITIONS)
    group, old = _group(bs, big)
    theirs = apache("kafka-consumer-groups", "--bootstrap-server", bs, "--group", group, "--reset-offsets",
                    "--topic", big, "--to-earliest", "--execute")  # fmt: skip
    assert "UnknownServerException" in theirs.stdout + theirs.stderr
    assert committed(bs, group) == old


def test_a_reset_beyond_one_batch_lands_at_once_and_its_undo_too(broker, big, ours, tmp_path):
    bs = broker.bootstrap
    group, old = _group(bs, big)
    result = _reset(
        ours, bs, group, "--topic", big, "--to-earliest", "--execute", "--backup-dir", str(tmp_path)
    )
    assert result.returncode == 0, result.stderr
    assert f"Note: group '{group}' ({PARTITIONS} partitions, more than one batch of __consumer_offsets " in (
        result.stderr
    )
    parts = re.search(r"was committed in one transaction of (\d+) parts\.", result.stderr)
    assert parts and int(parts[1]) >= 2, result.stderr
    new = dict.fromkeys(old, 0)
    assert committed(bs, group) == new
    assert stable(bs, group, list(old)) == new
    undo = _undo(result.stderr)
    assert "--allow-non-atomic" not in undo
    restored = ours(*undo, "--timeout", TOOL_TIMEOUT_MS)
    assert restored.returncode == 0, restored.stderr
    assert committed(bs, group) == old


def test_thousands_of_partitions_read_in_bulk_land_at_once(broker, big, ours, tmp_path):
    """Above BULK_READS_ABOVE partitions the reset reads leaders and log offsets into compact
    tables and commits in a transaction: the plan names every partition at its new offset, the
    transaction lands whole and reads back stable, a second run with nothing left to move changes
    nothing, and the undo restores every partition."""
    from kafka_groups.commands.reset_gather import BULK_READS_ABOVE

    bs = broker.bootstrap
    many = BULK_READS_ABOVE + 100
    topic = create_topic(bs, unique("lr-bulk"), partitions=many)
    produce_n(bs, topic, dict.fromkeys(range(many), 2))  # offsets 0 to 2: the undo's 1 is within
    group = unique("lr-bulk")
    old = {(topic, p): 1 for p in range(many)}
    commit_in_slices(bs, group, old)
    result = _reset(
        ours, bs, group, "--topic", topic, "--to-earliest", "--execute", "--backup-dir", str(tmp_path)
    )
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines() if f" {topic} " in f" {line} "]
    assert len(rows) == many, result.stdout[-2000:]
    # GROUP TOPIC PARTITION NEW-OFFSET
    assert {(r[1], int(r[2])): int(r[3]) for r in rows} == dict.fromkeys(old, 0)
    assert re.search(r"was committed in one transaction of \d+ parts\.", result.stderr), result.stderr
    new = dict.fromkeys(old, 0)
    assert committed(bs, group) == new
    assert stable(bs, group, list(old)) == new
    again = _reset(ours, bs, group, "--topic", topic, "--to-earliest", "--execute", "--backup-dir",
                   str(tmp_path / "again"))  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert committed(bs, group) == new
    restored = ours(*_undo(result.stderr), "--timeout", TOOL_TIMEOUT_MS)
    assert restored.returncode == 0, restored.stderr
    assert committed(bs, group) == old


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
def test_empty_groups_of_either_protocol_take_the_transaction(broker, big, ours, tmp_path, protocol):
    """A group a real consumer made and left (Empty): the transactional commit from outside the
    group is taken, classic and KIP-848 groups alike."""
    bs = broker.bootstrap
    small = create_topic(bs, unique("lr-small"), partitions=1)
    produce_n(bs, small, {0: 3})
    group = unique(f"lr-{protocol}")
    assert consume_and_commit(bs, group, [small], 3, protocol=protocol) == 3
    result = _reset(
        ours, bs, group, "--topic", big, "--to-earliest", "--execute", "--backup-dir", str(tmp_path)
    )
    assert result.returncode == 0, result.stderr
    assert "was committed in one transaction of" in result.stderr
    assert committed(bs, group) == {(small, 0): 3, **dict.fromkeys(_old(big), 0)}


def test_to_group_copies_a_group_beyond_one_batch(broker, big, ours, tmp_path):
    bs = broker.bootstrap
    source, old = _group(bs, big, offset=1)
    target = unique("lr-target")
    result = _reset(ours, bs, target, "--to-group", source, "--all-topics", "--execute",
                    "--backup-dir", str(tmp_path))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert committed(bs, target) == old


def test_a_streams_group_beyond_one_batch(broker, big, ours, tmp_path):
    """A streams group (a real Kafka Streams app, stopped: Empty) takes the transaction too; its
    undo, with kafka-streams-groups, as well. The app commits under the broker's default limit."""
    from tests.streams_helpers import make_groups

    bs = broker.bootstrap
    count = 220
    inputs = create_topic(bs, unique("lr-s-in"), partitions=count)
    output = create_topic(bs, unique("lr-s-out"), partitions=1)
    produce_n(bs, inputs, dict.fromkeys(range(count), 2))
    app = unique("lr-s")
    old = {(inputs, p): 2 for p in range(count)}
    with offsets_limit(bs, None, probe=count):  # the app's commits, with their metadata, need more
        make_groups(bs, [app], [inputs], output, old)
    result = ours("kafka-streams-groups", "--bootstrap-server", bs, "--group", app, "--reset-offsets",
                  "--input-topic", inputs, "--to-earliest", "--execute", "--timeout", TOOL_TIMEOUT_MS,
                  "--backup-dir", str(tmp_path))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert f"Note: group '{app}' ({count} partitions, more than one batch" in result.stderr
    assert {tp: o for tp, o in committed(bs, app).items() if tp[0] == inputs} == dict.fromkeys(old, 0)
    undo = _undo(result.stderr)
    assert undo[0] == "kafka-streams-groups"
    restored = ours(*undo, "--timeout", TOOL_TIMEOUT_MS)
    assert restored.returncode == 0, restored.stderr
    assert {tp: o for tp, o in committed(bs, app).items() if tp[0] == inputs} == old


# -- the group checked again before the commit ---------------------------------------------------


def _held_at(point: str, bs: str, group: str, topic: str, tmp: Path, act) -> subprocess.CompletedProcess[str]:
    """Our reset of ``group`` to the earliest offsets, held at the fault point ``point`` while
    ``act(process)`` runs; every other point passes at once."""
    faults = tmp / "faults"
    faults.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", OUR_TOOLS["kafka-consumer-groups"], "--bootstrap-server", bs, "--group", group,
         "--reset-offsets", "--topic", topic, "--to-earliest", "--execute", "--timeout", TOOL_TIMEOUT_MS,
         "--backup-dir", str(tmp / "b")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT), FAULT_DIR_ENV: str(faults)},
    )  # fmt: skip
    acted = False
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        for marker in faults.iterdir():
            if marker.name == point and not acted:
                act(proc)
                acted = True
            marker.unlink()
        time.sleep(0.02)
    stdout, stderr = proc.communicate(timeout=120)
    assert acted, stderr
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def test_a_consumer_that_joins_while_the_transaction_is_open_stops_it(broker, big, tmp_path):
    """The broker takes a transactional commit into a group with members; the reset checks the
    group before the commit and aborts: nothing changes, and the consumer's group is left alone."""
    bs = broker.bootstrap
    group, old = _group(bs, big)
    consumer: list[ActiveConsumer] = []

    def join(_run: object) -> None:
        consumer.append(ActiveConsumer(bs, group, [big]).__enter__())

    try:
        run = _held_at("between-chunks", bs, group, big, tmp_path, join)
    finally:
        for c in consumer:
            c.__exit__(None, None, None)
    assert run.returncode == 1, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert "not applied, nothing changed (the transaction was aborted: the group became Stable" in last, last
    assert committed(bs, group) == old
    assert stable(bs, group, list(old)) == old


def test_another_writer_while_the_transaction_is_open_is_not_overwritten(broker, big, tmp_path):
    bs = broker.bootstrap
    group, old = _group(bs, big)
    other = {**old, (big, 1): 9}
    run = _held_at(
        "between-chunks", bs, group, big, tmp_path, lambda _run: commit_in_slices(bs, group, {(big, 1): 9})
    )
    assert run.returncode == 1, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert f"the committed offsets changed while the transaction was open (1 partition(s): {big}-1)" in last
    assert committed(bs, group) == other


@pytest.mark.parametrize("point", ["between-chunks", "before-txn-commit"])
def test_an_interrupt_while_the_transaction_is_open_aborts_it(broker, big, tmp_path, point):
    """Ctrl-C while the transaction is open: nothing of it is visible yet, so it is aborted, not
    committed; the group is not applied (exit 1), the transaction ended (a stable read answers at
    once), and the offsets as they were."""
    bs = broker.bootstrap
    group, old = _group(bs, big)
    run = _held_at(point, bs, group, big, tmp_path, lambda proc: proc.send_signal(signal.SIGINT))
    assert run.returncode == 1, run.stderr
    assert "Interrupted (SIGINT): the reset may have reached the cluster" in run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert (
        "not applied, nothing changed (the transaction was aborted: an interrupt came before its commit"
        in last
    )
    assert committed(bs, group) == old
    assert stable(bs, group, list(old), timeout_ms=1000) == old


def test_a_killed_run_leaves_the_offsets_and_the_next_run_fences_it_at_once(broker, big, tmp_path):
    """SIGKILL between two chunks: the transaction stays open (a stable read answers
    UNSTABLE_OFFSET_COMMIT, a plain one the old offsets); the next reset of the group aborts it at
    once with the same transactional id, and lands."""
    bs = broker.bootstrap
    group, old = _group(bs, big)
    faults = tmp_path / "faults"
    faults.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", OUR_TOOLS["kafka-consumer-groups"], "--bootstrap-server", bs, "--group", group,
         "--reset-offsets", "--topic", big, "--to-earliest", "--execute", "--timeout", TOOL_TIMEOUT_MS],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT), FAULT_DIR_ENV: str(faults),
             "KAFKA_TOOLS_STATE_DIR": str(tmp_path / "state")},
    )  # fmt: skip
    deadline = time.monotonic() + 120
    killed = False
    while proc.poll() is None and time.monotonic() < deadline:
        for marker in faults.iterdir():
            if marker.name == "between-chunks":
                proc.send_signal(signal.SIGKILL)
                killed = True
                break
            marker.unlink()
        time.sleep(0.02)
    proc.wait(30)
    assert killed
    assert committed(bs, group) == old
    held = stable(bs, group, list(old), timeout_ms=1000)
    assert isinstance(held, str) and "UNSTABLE_OFFSET_COMMIT" in held, held
    began = time.monotonic()
    again = subprocess.run(
        [sys.executable, "-m", OUR_TOOLS["kafka-consumer-groups"], "--bootstrap-server", bs, "--group", group,
         "--reset-offsets", "--topic", big, "--to-earliest", "--execute", "--timeout", TOOL_TIMEOUT_MS],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT), "KAFKA_TOOLS_STATE_DIR": str(tmp_path / "state")},
    )  # fmt: skip
    took = time.monotonic() - began
    assert again.returncode == 0, again.stderr
    assert committed(bs, group) == dict.fromkeys(old, 0)
    assert took < 55, took  # fenced at once, not after the killed transaction's 60 s timeout


def test_aborted_and_timed_out_transactions_leave_the_offsets(broker, big):
    """The access layer's transaction against the broker: open, the offsets are invisible (a
    stable read waits); aborted, or left to time out (1 s), they never appear, and the timed-out
    producer can no longer commit."""
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.access.transactions import TransactionFenced
    from kafka_groups.settings import ConnectionArgs

    bs = broker.bootstrap
    access = KafkaAccess(ConnectionArgs(bootstrap_server=bs, timeout_ms=20000).resolve())
    try:
        for ending in ("abort", "timeout"):
            group, old = _group(bs, big)
            txn = access.begin_transaction(group, 60_000 if ending == "abort" else 1_000)
            access.add_offsets_to_transaction(txn)
            access.commit_offsets_in_transaction(txn, {tp: 0 for tp in list(old)[:100]})
            held = stable(bs, group, list(old)[:100], timeout_ms=500)
            assert isinstance(held, str) and "UNSTABLE_OFFSET_COMMIT" in held, held
            assert committed(bs, group) == old
            if ending == "abort":
                access.end_transaction(txn, commit=False)
            deadline = time.monotonic() + 60
            while isinstance(held := stable(bs, group, list(old), timeout_ms=500), str):
                assert time.monotonic() < deadline, held
            assert held == old
            if ending == "timeout":
                with pytest.raises(TransactionFenced):
                    access.end_transaction(txn, commit=True)
            assert committed(bs, group) == old
    finally:
        access.close()


# -- deletes beyond one batch of tombstones ------------------------------------------------------

DELETED = 1000  # tombstones: more than one batch at 20,000 bytes (about 600 fit)


def test_delete_offsets_beyond_one_batch(broker, big, ours, tmp_path):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("lr-del"), partitions=DELETED)
    produce_n(bs, topic, dict.fromkeys(range(DELETED), 3))
    group = unique("lr-del")
    old = {(topic, p): 3 for p in range(DELETED)}
    commit_in_slices(bs, group, old)
    result = ours("kafka-consumer-groups", "--bootstrap-server", bs, "--group", group, "--delete-offsets",
                  "--topic", topic, "--timeout", TOOL_TIMEOUT_MS, "--backup-dir", str(tmp_path))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("Successful") == DELETED
    parts = re.search(r"Note: the offsets were deleted in (\d+) requests, more than one batch of "
                      r"__consumer_offsets holds\.$", result.stderr, re.M)  # fmt: skip
    assert parts and int(parts[1]) >= 2, result.stderr
    assert committed(bs, group) == {}
    undo = _undo(result.stderr)
    backup = Path(undo[undo.index("--from-file") + 1])
    assert len(backup.read_text().splitlines()) == DELETED
    restored = ours(*undo, "--timeout", TOOL_TIMEOUT_MS)
    assert restored.returncode == 0, restored.stderr
    assert committed(bs, group) == old


def test_delete_a_group_beyond_one_batch(broker, big, ours, tmp_path):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("lr-delg"), partitions=DELETED)
    produce_n(bs, topic, dict.fromkeys(range(DELETED), 3))
    group = unique("lr-delg")
    old = {(topic, p): 3 for p in range(DELETED)}
    commit_in_slices(bs, group, old)
    result = ours("kafka-consumer-groups", "--bootstrap-server", bs, "--group", group, "--delete",
                  "--timeout", TOOL_TIMEOUT_MS, "--backup-dir", str(tmp_path))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert f"Deletion of requested consumer groups ('{group}') was successful." in result.stdout
    listed = ours("kafka-consumer-groups", "--bootstrap-server", bs, "--list", "--timeout", TOOL_TIMEOUT_MS)
    assert group not in listed.stdout.split()
    undo = _undo(result.stderr)
    restored = ours(*undo, "--timeout", TOOL_TIMEOUT_MS)
    assert restored.returncode == 0, restored.stderr
    assert committed(bs, group) == old


def test_the_undo_of_a_reset_that_gave_many_partitions_their_first_offset(broker, big, ours, tmp_path):
    """The group had offsets on another topic only: the reset of a topic of DELETED partitions
    (one transaction) gives each its first offset, and the undo deletes them again with
    --delete-offsets --from-file, in parts (more tombstones than one batch holds)."""
    bs = broker.bootstrap
    topic = create_topic(bs, unique("lr-first"), partitions=DELETED)
    produce_n(bs, topic, dict.fromkeys(range(DELETED), 3))
    group = unique("lr-first")
    before = {(big, 0): 1}
    commit_in_slices(bs, group, before)
    result = _reset(
        ours, bs, group, "--topic", topic, "--to-latest", "--execute", "--backup-dir", str(tmp_path)
    )
    assert result.returncode == 0, result.stderr
    assert "was committed in one transaction of" in result.stderr
    assert committed(bs, group) == {**before, **{(topic, p): 3 for p in range(DELETED)}}
    line = undo_line(result.stderr)
    assert "--delete-offsets --from-file" in line and "--reset-offsets" not in line
    undone = run_undo(line, tmp_path)
    assert undone.returncode == 0, undone.stderr
    parts = re.search(r"were deleted in (\d+) requests, more than one batch", undone.stderr)
    assert parts and int(parts[1]) >= 2, undone.stderr
    assert committed(bs, group) == before
