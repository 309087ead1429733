"""The way back, on the real broker: every write's printed undo, run as printed by a real shell
from another directory, puts back exactly the state before the write -- offsets it replaced,
offsets it created (removed again), groups it created (deleted again) -- whatever the group ids
hold; any number of groups is one command. Writes that are not going to be sent announce
nothing; a backup that cannot be saved leaves nothing and sends nothing."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import OUR_TOOLS, ROOT
from tests.inprocess import DROPPED_ENV
from tests.kafka_helpers import (
    TOOL_TIMEOUT_MS,
    ActiveConsumer,
    commit_offsets,
    committed,
    committed_of,
    create_topic,
    produce_n,
    unique,
)
from tests.undo_helpers import run_undo, undo_line

pytestmark = pytest.mark.kafka

# Group ids no shell, terminal or CSV reader should be trusted with.
AWKWARD = [
    "nl\ntab\tesc\x1b[2Jid",
    "tab\tid",
    "esc\x1b]0;x\x07id",
    'q"uote,comma',
    "sp ace",
    "é日本",
    "cr\rid",
    "it's",
]


@pytest.fixture(scope="module")
def topics(broker) -> tuple[str, str]:
    bs = broker.bootstrap
    orders = create_topic(bs, unique("u-orders"), partitions=3)
    other = create_topic(bs, unique("u-other"), partitions=2)
    produce_n(bs, orders, dict.fromkeys(range(3), 10))
    produce_n(bs, other, dict.fromkeys(range(2), 10))
    return orders, other


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name in DROPPED_ENV:
        env.pop(name, None)
    env.update(extra or {})
    return env


def tool(name: str, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None):
    """One of our tools as its own process (so that a relative path is read from ``cwd``)."""
    return subprocess.run(
        [sys.executable, "-m", OUR_TOOLS[name], *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )


def groups_listed(bs: str) -> set[str]:
    listed = tool("kafka-consumer-groups", "--bootstrap-server", bs, "--list", "--output", "json")
    assert listed.returncode == 0, listed.stderr
    return {g["group"] for g in json.loads(listed.stdout)["groups"]}


@pytest.fixture
def elsewhere(tmp_path) -> Path:
    """Another working directory, where the undo is run."""
    other = tmp_path / "elsewhere"
    other.mkdir()
    return other


def _cg(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None):
    return tool("kafka-consumer-groups", *args, "--timeout", TOOL_TIMEOUT_MS, cwd=cwd, env=env)


# -- resets ------------------------------------------------------------------------------------------
def test_the_undo_of_a_reset_removes_the_offsets_it_created(broker, topics, tmp_path, elsewhere):
    """The group had offsets on orders-0 and other-*: the reset of all of orders (and a relative
    --backup-dir and --command-config typed by the user) gives orders-1 and -2 their first
    offset. The undo, run elsewhere, puts orders-0 back and deletes orders-1 and -2."""
    bs = broker.bootstrap
    orders, other = topics
    group = unique("u-created")
    before = {(orders, 0): 5, (other, 0): 1, (other, 1): 3}
    commit_offsets(bs, group, before)
    (tmp_path / "client.properties").write_text("client.id=undo-test\n")
    done = _cg("--bootstrap-server", bs, "--group", group, "--reset-offsets", "--topic", orders,
               "--to-earliest", "--execute", "--backup-dir", "rel/backups",
               "--command-config", "client.properties", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert committed(bs, group) == {**before, (orders, 0): 0, (orders, 1): 0, (orders, 2): 0}
    line = undo_line(done.stderr)
    assert f"--backup-dir {tmp_path}/rel/backups" in line
    assert f"--command-config {tmp_path}/client.properties" in line
    assert " && " in line and "--delete-offsets --from-file" in line
    created = re.search(r"the undo deletes them\) to (\S+)", done.stderr)[1]
    assert Path(created).read_text() == f"{group},{orders},1,0\n{group},{orders},2,0\n"
    undone = run_undo(line, elsewhere)
    assert undone.returncode == 0, undone.stderr
    assert committed(bs, group) == before


def test_the_undo_of_a_reset_of_a_group_that_did_not_exist_deletes_it(broker, topics, elsewhere, tmp_path):
    bs = broker.bootstrap
    orders, _ = topics
    group = unique("u-new")
    done = _cg("--bootstrap-server", bs, "--group", group, "--reset-offsets", "--topic", orders,
               "--to-latest", "--execute", "--backup-dir", str(tmp_path / "b"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"Groups this reset creates (the undo deletes them): '{group}'" in done.stderr
    assert group in groups_listed(bs)
    undone = run_undo(undo_line(done.stderr), elsewhere)
    assert undone.returncode == 0, undone.stderr
    assert group not in groups_listed(bs)
    assert committed(bs, group) == {}


def test_the_undo_of_a_reset_of_many_groups_is_one_command(broker, topics, elsewhere, tmp_path):
    """Twelve groups (more than an undo names one by one) chosen by pattern, half of them
    without an offset on orders-2: one line restores all twelve exactly."""
    bs = broker.bootstrap
    orders, other = topics
    prefix = unique("u-many")
    groups = [f"{prefix}-{i:02d}" for i in range(12)]
    before = {}
    for i, group in enumerate(groups):
        before[group] = {(orders, 1): 4, (other, 0): 2} | ({(orders, 2): 1} if i % 2 else {})
        commit_offsets(bs, group, before[group])
    done = _cg("--bootstrap-server", bs, "--group-pattern", f"{prefix}-.*", "--reset-offsets",
               "--topic", f"{orders}:1,2", "--to-offset", "7", "--execute",
               "--backup-dir", str(tmp_path / "b"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    line = undo_line(done.stderr)
    assert "--group " not in line and "--all-groups" in line
    undone = run_undo(line, elsewhere)
    assert undone.returncode == 0, undone.stderr
    assert committed_of(bs, groups) == before


# -- deletes ---------------------------------------------------------------------------------------
def test_the_undo_of_a_delete_of_many_groups_is_one_command(broker, topics, elsewhere, tmp_path):
    bs = broker.bootstrap
    orders, other = topics
    prefix = unique("u-del")
    groups = [f"{prefix}-{i:02d}" for i in range(12)]
    before = {g: {(orders, i % 3): i % 10, (other, 1): 9} for i, g in enumerate(groups)}
    for group, offsets in before.items():
        commit_offsets(bs, group, offsets)
    done = _cg("--bootstrap-server", bs, "--delete", "--group-pattern", f"{prefix}-.*",
               "--backup-dir", str(tmp_path / "b"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not groups_listed(bs) & set(groups)
    line = undo_line(done.stderr)
    assert "--all-groups" in line and "--group " not in line
    undone = run_undo(line, elsewhere)
    assert undone.returncode == 0, undone.stderr
    assert committed_of(bs, groups) == before


def test_a_group_with_a_member_is_refused_before_anything_is_announced(broker, topics, apache, tmp_path):
    """--delete of a group with a live member: the broker would refuse it, so no backup, no undo
    and no announcement; the report is the Apache tool's, and the exit is 1."""
    bs = broker.bootstrap
    orders, _ = topics
    busy, theirs = unique("u-busy"), unique("u-busy-apache")
    for group in (busy, theirs):
        commit_offsets(bs, group, {(orders, 0): 3})
    with ActiveConsumer(bs, busy, [orders]), ActiveConsumer(bs, theirs, [orders]):
        mine = _cg("--bootstrap-server", bs, "--delete", "--group", busy, "--backup-dir", str(tmp_path))
        apache_run = apache("kafka-consumer-groups", "--bootstrap-server", bs, "--delete", "--group", theirs)
    assert mine.returncode == 1, mine.stderr
    assert mine.stdout.replace(busy, "G") == apache_run.stdout.replace(theirs, "G")
    assert "GroupNotEmptyException" in mine.stdout
    assert "Saved" not in mine.stderr and "Undo:" not in mine.stderr
    assert list(tmp_path.iterdir()) == []
    assert committed(bs, busy) == {(orders, 0): 3}


def test_a_delete_of_idle_and_busy_groups_backs_up_and_undoes_only_the_idle(
    broker, topics, tmp_path, elsewhere
):
    bs = broker.bootstrap
    orders, _ = topics
    idle, busy = unique("u-idle"), unique("u-busy2")
    for group in (idle, busy):
        commit_offsets(bs, group, {(orders, 1): 6})
    with ActiveConsumer(bs, busy, [orders], "consumer"):
        done = _cg("--bootstrap-server", bs, "--delete", "--group", idle, "--group", busy,
                   "--backup-dir", str(tmp_path / "b"))  # fmt: skip
    assert done.returncode == 3, done.stderr
    line = undo_line(done.stderr)
    assert f"--group {idle}" in line and busy not in line
    (backup,) = (tmp_path / "b").iterdir()
    assert backup.read_text() == f"{idle},{orders},1,6\n"
    undone = run_undo(line, elsewhere)
    assert undone.returncode == 0, undone.stderr
    assert committed(bs, idle) == {(orders, 1): 6}


# -- awkward group ids -------------------------------------------------------------------------------
def test_awkward_ids_through_export_from_file_backup_and_undo(broker, topics, tmp_path, elsewhere):
    """Ids with a line break, a tab, an escape sequence, quotes and commas, non-ASCII, a
    carriage return: --export writes them, --from-file reads them back (ours), the backups read
    back, and each printed undo (ids as $'...' escapes) restores them through a real shell."""
    bs = broker.bootstrap
    orders, other = topics
    tag = unique("u-awk")
    groups = [f"{name}-{tag}" for name in AWKWARD]
    before = {g: {(orders, 0): 2 + i, (other, 1): 5} for i, g in enumerate(groups)}
    for group, offsets in before.items():
        commit_offsets(bs, group, offsets)
    flags = [f for g in groups for f in ("--group", g)]
    # --export, read back by --from-file.
    exported = _cg("--bootstrap-server", bs, *flags, "--reset-offsets", "--topic", orders,
                   "--to-offset", "8", "--dry-run", "--export")  # fmt: skip
    assert exported.returncode == 0, exported.stderr
    plan = tmp_path / "plan.csv"
    plan.write_bytes(exported.stdout.encode())
    applied = _cg("--bootstrap-server", bs, *flags, "--reset-offsets", "--from-file", str(plan),
                  "--execute", "--backup-dir", str(tmp_path / "b"))  # fmt: skip
    assert applied.returncode == 0, applied.stderr
    assert all(committed(bs, g)[(orders, 0)] == 8 for g in groups)
    assert "\x1b" not in applied.stderr and "\r" not in applied.stderr
    undone = run_undo(undo_line(applied.stderr), elsewhere)
    assert undone.returncode == 0, undone.stderr
    assert committed_of(bs, groups) == before
    # --delete of them all, and its undo.
    deleted = _cg("--bootstrap-server", bs, "--delete", *flags, "--backup-dir", str(tmp_path / "b2"))
    assert deleted.returncode == 0, deleted.stderr
    assert "\x1b" not in deleted.stderr
    undone = run_undo(undo_line(deleted.stderr), elsewhere)
    assert undone.returncode == 0, undone.stderr
    assert committed_of(bs, groups) == before


def test_the_apache_tool_reads_our_backup_when_no_id_holds_a_line_break(broker, topics, apache, tmp_path):
    bs = broker.bootstrap
    orders, _ = topics
    tag = unique("u-ap")
    groups = [f"{name}-{tag}" for name in AWKWARD if "\n" not in name and "\r" not in name]
    for group in groups:
        commit_offsets(bs, group, {(orders, 2): 4})
    flags = [f for g in groups for f in ("--group", g)]
    done = _cg("--bootstrap-server", bs, *flags, "--reset-offsets", "--topic", f"{orders}:2",
               "--to-offset", "9", "--execute", "--backup-dir", str(tmp_path))  # fmt: skip
    assert done.returncode == 0, done.stderr
    backup = re.search(r"replaced to (\S+)", done.stderr)[1]
    restored = apache("kafka-consumer-groups", "--bootstrap-server", bs, *flags, "--reset-offsets",
                      "--from-file", backup, "--execute")  # fmt: skip
    assert restored.returncode == 0, restored.stderr
    assert committed_of(bs, groups) == {g: {(orders, 2): 4} for g in groups}


# -- --delete-offsets --from-file ------------------------------------------------------------------------
def test_delete_offsets_from_a_file_of_several_groups(broker, topics, tmp_path, elsewhere):
    bs = broker.bootstrap
    orders, other = topics
    a, b = unique("u-dof"), unique("u-dof")
    commit_offsets(bs, a, {(orders, 0): 1, (orders, 1): 2})
    commit_offsets(bs, b, {(orders, 0): 3, (other, 0): 4})
    plan = tmp_path / "created.csv"
    plan.write_text(f"{a},{orders},1,0\n{b},{orders},0,0\n{b},{other},0,0\n")
    done = _cg("--bootstrap-server", bs, "--delete-offsets", "--from-file", str(plan), "--output", "json",
               "--backup-dir", str(tmp_path / "b"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["schema"] == "kafka-group-tools/offset-delete-batch/v1" and report["outcome"] == "done"
    assert [g["group"] for g in report["groups"]] == [a, b]
    assert committed(bs, a) == {(orders, 0): 1} and committed(bs, b) == {}
    undone = run_undo(undo_line(done.stderr), elsewhere)
    assert undone.returncode == 0, undone.stderr
    assert committed(bs, a) == {(orders, 0): 1, (orders, 1): 2}
    assert committed(bs, b) == {(orders, 0): 3, (other, 0): 4}


# -- backups that cannot be saved -------------------------------------------------------------------------
@pytest.fixture
def tiny_mount(tmp_path) -> Iterator[Path]:
    """A 64 KiB tmpfs (root only): filled, or remounted read-only, by the test."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a tmpfs needs root")
    point = tmp_path / "mnt"
    point.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(point)], capture_output=True
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False)


def _fill(point: Path) -> None:
    """Fill the file system until it answers ENOSPC."""
    try:
        with open(point / "filler", "wb") as filler:
            while True:
                filler.write(b"\0" * 4096)
                filler.flush()
    except OSError as exc:
        assert exc.errno == 28, exc


@pytest.mark.parametrize("how", ["full", "read-only"])
def test_a_backup_that_cannot_be_saved_leaves_nothing_and_sends_nothing(broker, topics, tiny_mount, how):
    bs = broker.bootstrap
    orders, other = topics
    group = unique("u-nospace")
    before = {(orders, p): 3 for p in range(3)} | {(other, 0): 1}
    commit_offsets(bs, group, before)
    folder = tiny_mount / "backups"
    folder.mkdir()
    if how == "full":
        _fill(tiny_mount)
    else:
        subprocess.run(["mount", "-o", "remount,ro", str(tiny_mount)], check=True)
    runs = [
        _cg("--bootstrap-server", bs, "--group", group, "--reset-offsets", "--all-topics", "--to-earliest",
            "--execute", "--backup-dir", str(folder)),
        _cg("--bootstrap-server", bs, "--group", group, "--delete-offsets", "--topic", orders,
            "--backup-dir", str(folder)),
        _cg("--bootstrap-server", bs, "--delete", "--group", group, "--backup-dir", str(folder)),
    ]  # fmt: skip
    for run in runs:
        assert run.returncode == 1, run.stderr
        last = run.stderr.strip().splitlines()[-1]
        assert "cannot save the backup" in last and "nothing was changed" in last, run.stderr
        assert "Undo:" not in run.stderr
    assert list(folder.iterdir()) == []  # no file, not even a temporary one
    assert committed(bs, group) == before


def test_an_empty_backup_dir_is_refused(broker, topics):
    group = unique("u-blank")
    for args in (
        ["--group", group, "--reset-offsets", "--all-topics", "--to-earliest", "--execute"],
        ["--group", group, "--delete-offsets", "--topic", topics[0]],
        ["--delete", "--group", group],
    ):
        for blank in ("", " "):
            done = _cg("--bootstrap-server", broker.bootstrap, *args, "--backup-dir", blank)
            assert done.returncode == 2, done.stderr
            assert done.stderr.strip().splitlines() == [
                f"Error: --backup-dir {blank!r} is {'empty' if blank == '' else 'blank'}: give a directory "
                "(an empty value never means the default one)"
            ]
