"""Our own process interrupted or unable to print, at each step of every write: SIGINT, SIGTERM and
a second SIGINT sent to the tool while it waits at a named point of the write
(kafka_groups.commands.guard.FAULT_POINTS, as tests/kafka/test_faults.py uses them), and stdout
closed (``>&-``) or full (``/dev/full``). After each run the cluster is read back:

* before anything may have been sent: exit 130 (SIGINT) or 143 (SIGTERM), one line saying that
  nothing changed, and nothing did;
* once the write may have been sent: the tool finishes waiting for the answer, reads back and
  reports as ever (0 done, 1 not applied, 4 unknown with the check and the undo), never exit 130
  alone; a second interrupt while the answer is awaited stops the wait, with outcome unknown;
* an output that cannot be written never turns a write that landed into a failure.

The module has a single-node cluster of its own: the second-interrupt case pauses it (SIGSTOP)
so that the tool is still waiting for the broker's answer when the signals come.
"""

from __future__ import annotations

import gc
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from infra import kafka as local_kafka
from tests.conftest import OUR_TOOLS
from tests.kafka.test_faults import (
    RUN_LIMIT_S,
    _env,
    _partition_count,
    _settled,
    _topics_config,
    _undo,
    _undone,
    committed,
    held_at_points,
)
from tests.kafka_helpers import commit_offsets, create_topic, produce_n, restore_nodes, unique

pytestmark = [pytest.mark.kafka, pytest.mark.faults]

INT, TERM = signal.SIGINT, signal.SIGTERM
NOTED = "may have reached the cluster; waiting for its answer and reading it back"
NOTHING_SENT = "stopped before any change was sent; nothing changed."
PAUSED_SEND_S = 1.5  # after releasing a send to a paused broker: it waits (--timeout 5000) for the answer
TIMEOUT_MS = "5000"  # the tools' --timeout here: a signal comes PAUSED_SEND_S into a wait that lasts it


@pytest.fixture(scope="module")
def cluster() -> Iterator[local_kafka.Cluster]:
    started = local_kafka.start(nodes=1, workdir=local_kafka.RUN_DIR / f"pytest-signals-{unique('c')}")
    try:
        yield started
    finally:
        started.stop(grace=0)


@pytest.fixture(autouse=True)
def serving(cluster: local_kafka.Cluster) -> None:
    restore_nodes(cluster)


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    passed: frozenset[str]  # the fault points the tool reached

    @property
    def last(self) -> str:
        return self.stderr.strip().splitlines()[-1]


def signalled(
    cluster: local_kafka.Cluster,
    tmp: Path,
    point: str,
    signals: Sequence[int],
    name: str,
    *args: str,
    pause: bool = False,
) -> Run:
    """Run our tool; when it waits at ``point``, send it ``signals`` (each after the tool has said
    it noted the one before), then release it. With ``pause`` the broker is paused there first,
    the tool released at once, and the signals sent while its send waits for the answer."""
    gc.collect()  # no helper client is freed while the broker is paused (see test_faults)
    paused = False
    reached = False

    def at(marker: str, proc: subprocess.Popen[bytes]) -> bool:
        nonlocal paused, reached
        if marker == point and not reached:
            reached = True
            if pause:
                os.kill(_broker_pid(cluster), signal.SIGSTOP)
                paused = True
                (faults / marker).unlink()
                time.sleep(PAUSED_SEND_S)
            _interrupt(proc, signals, tmp / "err")
        return True

    faults = tmp / "faults"
    try:
        code, out, err, passed = held_at_points(tmp, faults, tmp / "out", tmp / "err", point, at, name, *args)
    finally:
        if paused:
            os.kill(_broker_pid(cluster), signal.SIGCONT)
    return Run(code, out, err, passed)


def _interrupt(proc: subprocess.Popen[bytes], signals: Sequence[int], err: Path) -> None:
    for i, signum in enumerate(signals):
        proc.send_signal(signum)
        if i + 1 == len(signals):
            return
        deadline = time.monotonic() + 30
        while NOTED not in err.read_text():  # the next one must be a second interrupt, not a first
            assert proc.poll() is None, f"the tool ended at the first signal: {err.read_text()}"
            assert time.monotonic() < deadline, "the tool never said it noted the interrupt"
            time.sleep(0.01)


def _broker_pid(cluster: local_kafka.Cluster) -> int:
    pid = cluster.node(1).pid
    assert pid is not None
    return pid


def _group(cluster: local_kafka.Cluster) -> tuple[str, str, dict[tuple[str, int], int]]:
    topic = create_topic(cluster.bootstrap, unique("sig"), partitions=2)
    produce_n(cluster.bootstrap, topic, {0: 4, 1: 4})
    group = unique("sig-g")
    old = {(topic, 0): 3, (topic, 1): 3}
    commit_offsets(cluster.bootstrap, group, old)
    return topic, group, old


def _reset(cluster: local_kafka.Cluster, tmp: Path, group: str, topic: str, *extra: str) -> list[str]:
    return [
        "--bootstrap-server", cluster.bootstrap, "--group", group, "--topic", topic, "--reset-offsets",
        "--to-earliest", "--execute", "--timeout", TIMEOUT_MS, "--backup-dir", str(tmp / "b"), *extra,
    ]  # fmt: skip


def _label(signum: int) -> str:
    return f"Interrupted ({signal.Signals(signum).name})"


def assert_nothing_sent(run: Run, signum: int) -> None:
    assert run.returncode == 128 + signum, run.stderr
    assert run.last == f"{_label(signum)}: {NOTHING_SENT}"
    assert "Traceback" not in run.stderr and "Aborted" not in run.stderr


def assert_done_after_the_interrupt(run: Run, signum: int, what: str) -> None:
    """Exit 0, and the report says the interrupt was noted and the write is done."""
    assert run.returncode == 0, run.stderr
    assert f"{_label(signum)}: the {what} {NOTED}" in run.stderr
    assert run.last == f"The {what} is done (the interrupt came after it was sent)."
    assert "Traceback" not in run.stderr


# --- --reset-offsets --execute: every point, SIGINT and SIGTERM -------------------------------------

BEFORE = [("before-backup", INT), ("after-backup", TERM), ("before-send", INT), ("before-send", TERM)]


@pytest.mark.parametrize(("point", "signum"), BEFORE)
def test_reset_interrupted_before_the_send_changes_nothing(cluster, tmp_path, point, signum):
    topic, group, old = _group(cluster)
    run = signalled(
        cluster, tmp_path, point, [signum], "kafka-consumer-groups", *_reset(cluster, tmp_path, group, topic)
    )
    assert point in run.passed and "after-send" not in run.passed
    assert_nothing_sent(run, signum)
    assert committed(cluster.bootstrap, group) == old
    # The undo is announced once the backup is saved (before the send): it restores what is there.
    assert ("Undo: " in run.stderr) is (point == "before-send")


@pytest.mark.parametrize(
    ("point", "signum"), [("after-send", INT), ("after-send", TERM), ("during-read-back", INT)]
)
def test_reset_interrupted_once_sent_waits_reads_back_and_reports_done(cluster, tmp_path, point, signum):
    topic, group, old = _group(cluster)
    run = signalled(
        cluster, tmp_path, point, [signum], "kafka-consumer-groups", *_reset(cluster, tmp_path, group, topic)
    )
    assert_done_after_the_interrupt(run, signum, "reset")
    assert "NEW-OFFSET" in run.stdout
    assert committed(cluster.bootstrap, group) == dict.fromkeys(old, 0)
    restored = _undone(tmp_path, _undo(run) or [])
    assert restored.returncode == 0, restored.stderr
    assert committed(cluster.bootstrap, group) == old


@pytest.mark.parametrize("point", ["after-send", "during-read-back"])
def test_reset_interrupted_twice_after_an_acknowledged_commit_is_done(cluster, tmp_path, point):
    """The second interrupt stops the read-back; the broker's acknowledgement stands: done."""
    topic, group, old = _group(cluster)
    run = signalled(
        cluster,
        tmp_path,
        point,
        [INT, INT],
        "kafka-consumer-groups",
        *_reset(cluster, tmp_path, group, topic),
    )
    assert run.returncode == 0, run.stderr
    assert "reading it back failed (interrupted again before it was read back)" in run.stderr
    assert committed(cluster.bootstrap, group) == dict.fromkeys(old, 0)


def test_reset_interrupted_twice_while_the_answer_is_awaited_is_unknown_with_the_check_and_undo(
    cluster, tmp_path
):
    """The broker is paused, so the commit waits for its answer: the first SIGINT is noted, the
    second stops the wait at once (well within --timeout). The offsets are old or new, never
    mixed, and the undo printed restores them."""
    topic, group, old = _group(cluster)
    args = _reset(cluster, tmp_path, group, topic)
    started = time.monotonic()
    run = signalled(cluster, tmp_path, "before-send", [INT, INT], "kafka-consumer-groups", *args, pause=True)
    assert run.returncode == 4, run.stderr
    assert time.monotonic() - started < PAUSED_SEND_S + 30
    assert run.last.startswith("Error: outcome unknown: the reset of group ")
    assert "interrupted again while waiting for its answer; check with: kafka-consumer-groups " in run.last
    assert "; undo: kafka-consumer-groups " in run.last and "--from-file" in run.last
    now = committed(cluster.bootstrap, group)
    assert now in (old, dict.fromkeys(old, 0)), now
    restored = _undone(tmp_path, _undo(run) or [])
    assert restored.returncode == 0, restored.stderr
    assert committed(cluster.bootstrap, group) == old


def test_reset_interrupted_once_while_the_answer_is_awaited_waits_it_out(cluster, tmp_path):
    """One SIGINT while the broker holds the commit: the tool keeps waiting (bounded by
    --timeout) and reports what it knows: here, that the outcome is unknown (exit 4)."""
    topic, group, old = _group(cluster)
    args = _reset(cluster, tmp_path, group, topic)
    run = signalled(cluster, tmp_path, "before-send", [INT], "kafka-consumer-groups", *args, pause=True)
    assert f"{_label(INT)}: the reset {NOTED}" in run.stderr
    assert run.returncode in (0, 4), run.stderr
    if run.returncode == 4:
        assert "outcome unknown" in run.last and "check with: " in run.last and "undo: " in run.last
    now = committed(cluster.bootstrap, group)
    assert now in (old, dict.fromkeys(old, 0)), now
    if run.returncode == 0:
        assert now == dict.fromkeys(old, 0)


# --- --delete-offsets, --delete ---------------------------------------------------------------------


def _delete_offsets(cluster: local_kafka.Cluster, tmp: Path, group: str, topic: str) -> list[str]:
    return [
        "--bootstrap-server", cluster.bootstrap, "--group", group, "--delete-offsets", "--topic", topic,
        "--timeout", TIMEOUT_MS, "--backup-dir", str(tmp / "b"),
    ]  # fmt: skip


@pytest.mark.parametrize(("point", "signum"), [("before-backup", TERM), ("before-send", INT)])
def test_delete_offsets_interrupted_before_the_send_changes_nothing(cluster, tmp_path, point, signum):
    topic, group, old = _group(cluster)
    run = signalled(
        cluster,
        tmp_path,
        point,
        [signum],
        "kafka-consumer-groups",
        *_delete_offsets(cluster, tmp_path, group, topic),
    )
    assert_nothing_sent(run, signum)
    assert committed(cluster.bootstrap, group) == old


@pytest.mark.parametrize("signals", [[TERM], [INT, INT]])
def test_delete_offsets_interrupted_once_sent_is_done(cluster, tmp_path, signals):
    topic, group, old = _group(cluster)
    run = signalled(
        cluster,
        tmp_path,
        "after-send",
        signals,
        "kafka-consumer-groups",
        *_delete_offsets(cluster, tmp_path, group, topic),
    )
    assert run.returncode == 0, run.stderr
    assert f"{_label(signals[0])}: the offset deletion {NOTED}" in run.stderr
    assert committed(cluster.bootstrap, group) == {}
    restored = _undone(tmp_path, _undo(run) or [])
    assert restored.returncode == 0, restored.stderr
    assert committed(cluster.bootstrap, group) == old


def _delete(cluster: local_kafka.Cluster, tmp: Path, group: str) -> list[str]:
    return [
        "--bootstrap-server", cluster.bootstrap, "--group", group, "--delete",
        "--timeout", TIMEOUT_MS, "--backup-dir", str(tmp / "b"),
    ]  # fmt: skip


def test_delete_interrupted_before_the_send_changes_nothing(cluster, tmp_path):
    _topic, group, old = _group(cluster)
    run = signalled(
        cluster, tmp_path, "before-send", [TERM], "kafka-consumer-groups", *_delete(cluster, tmp_path, group)
    )
    assert_nothing_sent(run, TERM)
    assert committed(cluster.bootstrap, group) == old


def test_delete_interrupted_once_sent_is_done(cluster, tmp_path):
    _topic, group, old = _group(cluster)
    run = signalled(
        cluster, tmp_path, "after-send", [INT], "kafka-consumer-groups", *_delete(cluster, tmp_path, group)
    )
    assert_done_after_the_interrupt(run, INT, "deletion")
    assert "was successful" in run.stdout
    assert committed(cluster.bootstrap, group) == {}
    restored = _undone(tmp_path, _undo(run) or [])
    assert restored.returncode == 0, restored.stderr
    assert committed(cluster.bootstrap, group) == old


# --- kafka-topics --alter, --create, --delete -------------------------------------------------------


def _topics(cluster: local_kafka.Cluster, tmp: Path, *args: str) -> list[str]:
    return ["--bootstrap-server", cluster.bootstrap, *args, "--command-config", _topics_config(tmp)]


@pytest.mark.parametrize(
    ("point", "signum", "count"), [("before-send", INT, 2), ("after-send", INT, 4), ("after-send", TERM, 4)]
)
def test_topics_alter_interrupted(cluster, tmp_path, point, signum, count):
    topic = create_topic(cluster.bootstrap, unique("sig-a"), partitions=2)
    args = _topics(cluster, tmp_path, "--alter", "--topic", topic, "--partitions", "4")
    run = signalled(cluster, tmp_path, point, [signum], "kafka-topics", *args)
    if count == 2:
        assert_nothing_sent(run, signum)
    else:
        assert_done_after_the_interrupt(run, signum, "partition change")
        # What would have been read after the change is skipped, and said to be.
        assert "Warning: interrupted: the partitions were added, but the consumer groups" in run.stderr
    assert _settled(lambda: _partition_count(cluster.bootstrap, topic), {2, 4}) == count


@pytest.mark.parametrize(
    ("point", "signum", "exists"),
    [("before-send", TERM, False), ("after-send", TERM, True), ("after-send", INT, True)],
)
def test_topics_create_interrupted(cluster, tmp_path, point, signum, exists):
    topic = unique("sig-c")
    run = signalled(
        cluster,
        tmp_path,
        point,
        [signum],
        "kafka-topics",
        *_topics(cluster, tmp_path, "--create", "--topic", topic),
    )
    if exists:
        assert_done_after_the_interrupt(run, signum, "topic creation")
        assert run.stdout == f"Created topic {topic}.\n"
    else:
        assert_nothing_sent(run, signum)
    assert _settled(lambda: _partition_count(cluster.bootstrap, topic) is not None, {True, False}) is exists


def test_topics_delete_interrupted_once_sent_is_done(cluster, tmp_path):
    topic = create_topic(cluster.bootstrap, unique("sig-d"), partitions=1)
    run = signalled(
        cluster,
        tmp_path,
        "after-send",
        [INT, INT],
        "kafka-topics",
        *_topics(cluster, tmp_path, "--delete", "--topic", topic),
    )
    assert run.returncode == 0, run.stderr
    assert f"{_label(INT)}: the deletion {NOTED}" in run.stderr
    assert _settled(lambda: _partition_count(cluster.bootstrap, topic) is not None, {True, False}) is False


# --- kafka-streams-groups: internal topics are not deleted once interrupted ---------------------


def test_streams_reset_interrupted_keeps_the_internal_topics(cluster, tmp_path):
    from tests.kafka_helpers import admin
    from tests.streams_helpers import make_groups

    bs = cluster.bootstrap
    topic = create_topic(bs, unique("sig-in"), partitions=2)
    output = create_topic(bs, unique("sig-out"), partitions=1)
    produce_n(bs, topic, {0: 4, 1: 4})
    app = unique("sig-app")
    make_groups(bs, [app], [topic], output, {(topic, 0): 4, (topic, 1): 4})
    internal = sorted(t for t in admin(bs).list_topics(timeout=30).topics if t.startswith(f"{app}-"))
    assert internal, "the application made no internal topic"
    args = [
        "--bootstrap-server", bs, "--group", app, "--reset-offsets", "--input-topic", topic, "--to-earliest",
        "--execute", "--delete-all-internal-topics", "--timeout", TIMEOUT_MS,
        "--backup-dir", str(tmp_path / "b"),
    ]  # fmt: skip
    run = signalled(cluster, tmp_path, "after-send", [INT], "kafka-streams-groups", *args)
    assert_done_after_the_interrupt(run, INT, "reset")
    assert (
        f"Deleting internal topics for group '{app}' failed due to an interrupt (they were not sent)"
        in run.stdout + run.stderr
    )
    inputs = {tp: o for tp, o in committed(bs, app).items() if tp[0] == topic}
    assert inputs == {(topic, 0): 0, (topic, 1): 0}
    left = set(admin(bs).list_topics(timeout=30).topics)
    assert set(internal) <= left


# --- stdout closed or full: reads and writes ------------------------------------------------------


def _shell(
    redirect: str, name: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Our tool with its standard streams redirected by a shell (``>&-`` closes stdout)."""
    command = " ".join([sys.executable, "-m", OUR_TOOLS[name], *(_quoted(a) for a in args), redirect])
    return subprocess.run(
        ["sh", "-c", "exec " + command],
        capture_output=True,
        text=True,
        timeout=RUN_LIMIT_S,
        env={**_env(Path(os.environ.get("TMPDIR", "/tmp")) / "signals-state"), **(env or {})},
        stdin=subprocess.DEVNULL,
    )


def _quoted(arg: str) -> str:
    import shlex

    return shlex.quote(arg)


@pytest.fixture(scope="module")
def a_group(cluster: local_kafka.Cluster) -> str:
    """A group with offsets, for the reads below to list and describe (they change nothing)."""
    return _group(cluster)[1]


CLOSED, FULL = ">&-", ">/dev/full"
REASON = {CLOSED: "stdout is closed", FULL: "No space left on device"}


@pytest.mark.parametrize("redirect", [CLOSED, FULL])
@pytest.mark.parametrize(
    "read", [["--list"], ["--describe", "--all-groups"], ["--describe", "--all-groups", "-o", "json"]]
)
def test_a_read_that_cannot_print_is_one_line_and_exit_1(cluster, a_group, redirect, read):
    done = _shell(redirect, "kafka-consumer-groups", "--bootstrap-server", cluster.bootstrap, *read)
    assert (done.returncode, done.stderr.splitlines()[-1:]) == (
        1,
        [f"Error: the output could not be written to stdout ({REASON[redirect]})"],
    ), done.stderr
    assert "Traceback" not in done.stderr


def test_a_read_whose_reader_goes_away_is_status_0(cluster, a_group):
    env = _env(Path(os.environ.get("TMPDIR", "/tmp")) / "signals-state")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            OUR_TOOLS["kafka-consumer-groups"],
            "--bootstrap-server",
            cluster.bootstrap,
            "--list",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # | head -0
    stderr = proc.stderr.read().decode()
    assert (proc.wait(timeout=RUN_LIMIT_S), stderr) == (0, "")


@pytest.mark.parametrize("redirect", [CLOSED, FULL])
def test_delete_offsets_that_cannot_print_is_done_and_says_so(cluster, tmp_path, redirect):
    topic, group, _old = _group(cluster)
    done = _shell(redirect, "kafka-consumer-groups", *_delete_offsets(cluster, tmp_path, group, topic))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "Note: the offset deletion is done, but its output could not be written to stdout "
        f"({REASON[redirect]})."
    )
    assert committed(cluster.bootstrap, group) == {}


@pytest.mark.parametrize("redirect", [CLOSED, FULL])
def test_delete_that_cannot_print_is_done_and_says_so(cluster, tmp_path, redirect):
    _topic, group, _old = _group(cluster)
    done = _shell(redirect, "kafka-consumer-groups", *_delete(cluster, tmp_path, group))
    assert done.returncode == 0, done.stderr
    assert "Note: the deletion is done, but its output could not be written to stdout" in done.stderr
    assert committed(cluster.bootstrap, group) == {}


@pytest.mark.parametrize("redirect", [CLOSED, FULL])
def test_reset_in_json_that_cannot_print_is_done_and_says_so(cluster, tmp_path, redirect):
    topic, group, old = _group(cluster)
    done = _shell(redirect, "kafka-consumer-groups", *_reset(cluster, tmp_path, group, topic, "-o", "json"))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"Note: the reset is done, but its output could not be written to stdout ({REASON[redirect]})."
    )
    assert committed(cluster.bootstrap, group) == dict.fromkeys(old, 0)


@pytest.mark.parametrize("redirect", [CLOSED, FULL])
def test_reset_whose_plan_cannot_be_shown_sends_nothing(cluster, tmp_path, redirect):
    """The text layout shows the plan before the commit, as the Apache tool does: when it
    cannot be shown, nothing is sent."""
    topic, group, old = _group(cluster)
    done = _shell(redirect, "kafka-consumer-groups", *_reset(cluster, tmp_path, group, topic))
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"Error: the output could not be written to stdout ({REASON[redirect]}); nothing was sent"
    )
    assert committed(cluster.bootstrap, group) == old


@pytest.mark.parametrize("redirect", [CLOSED, FULL])
def test_topics_create_that_cannot_print_is_done_and_says_so(cluster, tmp_path, redirect):
    topic = unique("sig-out")
    done = _shell(redirect, "kafka-topics", *_topics(cluster, tmp_path, "--create", "--topic", topic))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "Note: the topic creation is done, but its output could not be written to stdout "
        f"({REASON[redirect]})."
    )
    assert _partition_count(cluster.bootstrap, topic) is not None


@pytest.mark.parametrize("redirect", ["2>&-", "2>/dev/full"])
def test_a_write_whose_undo_cannot_be_announced_sends_nothing(cluster, tmp_path, redirect):
    """stderr closed or full: the backup and its undo cannot be said, so nothing is sent (exit 1,
    no traceback); a read goes on as ever."""
    topic, group, old = _group(cluster)
    done = _shell(redirect, "kafka-consumer-groups", *_reset(cluster, tmp_path, group, topic, "-o", "json"))
    assert done.returncode == 1
    assert committed(cluster.bootstrap, group) == old
    read = _shell(redirect, "kafka-consumer-groups", "--bootstrap-server", cluster.bootstrap, "--list")
    assert read.returncode == 0 and group in read.stdout.split()


def test_an_encoding_without_the_groups_characters_prints_escapes(cluster):
    topic = create_topic(cluster.bootstrap, unique("sig-enc"), partitions=1)
    group = unique("grüppe")
    commit_offsets(cluster.bootstrap, group, {(topic, 0): 0})
    args = ["--bootstrap-server", cluster.bootstrap, "--describe", "--group", group]
    done = _shell("", "kafka-consumer-groups", *args, env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0, done.stderr
    escaped = group.replace("ü", "\\xfc")
    assert re.search(rf"^{re.escape(escaped)}\s+{topic}\s+0\s+0", done.stdout, re.M), done.stdout
