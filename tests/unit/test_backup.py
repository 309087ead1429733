"""Backups and the commands printed beside them.

* A backup is written durably: a temporary file in the backup directory (0600, whatever the
  umask), synced and renamed; one that cannot be written leaves nothing behind; a narrowed
  backup is a new file renamed over the old one.
* The undo and check commands, run by a real shell, give each tool exactly the arguments
  meant, whatever the group ids hold (line breaks, tabs, ESC, quotes, invisible characters);
  the printed line holds no control character; paths in it are absolute.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kafka_groups.commands.backup import (
    UNDO_GROUPS_LISTED,
    Undo,
    backup_folder,
    check_command,
    narrow_backup,
    save_backup,
    shell_quote,
)
from kafka_groups.commands.guard import FAULT_DIR_ENV
from kafka_groups.core.plan_file import parse_plan_csv
from kafka_groups.core.reset import ENV_MAX_PLAN_ROWS
from kafka_groups.errors import CliError, UsageError
from kafka_groups.escape import escape_controls
from kafka_groups.settings import ConnectionArgs

# Any id our tools can be given on a command line: no NUL (argv cannot carry it), no lone
# surrogate (Kafka ids are UTF-8), not blank (refused by every action).
IDS = st.text(
    st.characters(exclude_categories=("Cs",), exclude_characters="\0"), min_size=1, max_size=12
).filter(lambda s: s.strip() != "")
AWKWARD = st.sampled_from(["a\nb\tc\x1bd", "it's", "$(rm -rf ~)", "\u202eevil", "x\x9by", "\\", "'", "é 日"])
GROUP_IDS = st.one_of(IDS, AWKWARD)
SHELLS = [s for s in ("bash", "zsh") if shutil.which(s)]
CONNECTION = ConnectionArgs(bootstrap_server="127.0.0.1:9092", command_config="my client.properties")


def _run(shell: str, script: str) -> list[list[str]]:
    """Run ``script`` with each of our tools replaced by a function that prints its name, its
    argument count and its arguments, each followed by NUL: the argv of every command the script
    runs, in order."""
    tools = "".join(
        f'{name}() {{ printf \'%s\\0\' {name} "$#" "$@"; }}\n'
        for name in ("kafka-consumer-groups", "kafka-streams-groups")
    )
    env = {"PATH": os.environ["PATH"], "LC_ALL": "C.UTF-8"}
    done = subprocess.run([shell, "-c", tools + script], capture_output=True, env=env, timeout=30, check=True)
    tokens = [t.decode("utf-8") for t in done.stdout.split(b"\0")[:-1]]
    commands = []
    while tokens:
        name, count, *tokens = tokens
        commands.append([name, *tokens[: int(count)]])
        tokens = tokens[int(count) :]
    return commands


@pytest.mark.skipif(not SHELLS, reason="no bash or zsh")
@settings(max_examples=60, deadline=None)
@given(st.lists(GROUP_IDS, min_size=1, max_size=4))
@example(["=0"])  # zsh's = expansion: =name is the path of the command name
@example(["=ls", "a=b"])
def test_a_quoted_word_is_read_back_by_the_shell_as_it_was(words):
    for shell in SHELLS:
        assert _run(shell, "kafka-consumer-groups " + " ".join(map(shell_quote, words))) == [
            ["kafka-consumer-groups", *words]
        ]
    for word in words:
        quoted = shell_quote(word)
        assert escape_controls(quoted) == quoted and quoted.isprintable()


def test_control_characters_are_escapes_in_the_quoted_word():
    assert shell_quote("plain-id") == "plain-id"
    assert shell_quote("a b") == "'a b'"
    assert shell_quote("a\nb\tc\x1bd") == "$'a\\nb\\tc\\033d'"
    assert shell_quote("it's\x1b") == "$'it\\'s\\033'"
    assert shell_quote("\u202e") == "$'\\342\\200\\256'"  # right-to-left override: invisible


@pytest.mark.skipif(not SHELLS, reason="no bash or zsh")
@settings(max_examples=40, deadline=None)
@given(st.lists(GROUP_IDS, min_size=1, max_size=4, unique=True), st.lists(GROUP_IDS, max_size=3, unique=True))
def test_the_undo_line_runs_as_meant(groups, absent):
    undo = Undo(
        CONNECTION,
        Path("/tmp/back ups"),
        restore="/tmp/back ups/reset-x.csv",
        restore_groups=tuple(groups),
        created="/tmp/back ups/reset-x-created.csv",
        absent=tuple(absent),
    )
    line = undo.command()
    assert line is not None and line.isprintable()
    for shell in SHELLS:
        restore, delete_offsets, *delete = _run(shell, line)
        assert restore[0] == "kafka-consumer-groups"
        assert [restore[i + 1] for i, a in enumerate(restore) if a == "--group"] == sorted(groups)
        assert restore[restore.index("--from-file") + 1] == "/tmp/back ups/reset-x.csv"
        assert restore[restore.index("--backup-dir") + 1] == "/tmp/back ups"
        assert restore[restore.index("--command-config") + 1] == str(Path.cwd() / "my client.properties")
        assert delete_offsets[delete_offsets.index("--from-file") + 1] == "/tmp/back ups/reset-x-created.csv"
        assert "--delete-offsets" in delete_offsets and "--backup-dir" in delete_offsets
        if absent:
            assert [delete[0][i + 1] for i, a in enumerate(delete[0]) if a == "--group"] == sorted(absent)
            assert "--delete" in delete[0]
        else:
            assert delete == []
        check = _run(shell, check_command(groups, CONNECTION))[0]
        assert [check[i + 1] for i, a in enumerate(check) if a == "--group"] == sorted(groups)


def test_many_groups_are_named_by_the_file():
    groups = tuple(f"g{i}" for i in range(UNDO_GROUPS_LISTED + 1))
    line = Undo(CONNECTION, Path("/b"), restore="/b/f.csv", restore_groups=groups).command()
    assert line is not None and "--all-groups" in line and "--group" not in line
    few = Undo(
        CONNECTION, Path("/b"), restore="/b/f.csv", restore_groups=groups[:UNDO_GROUPS_LISTED]
    ).command()
    assert few is not None and few.count("--group ") == UNDO_GROUPS_LISTED
    # An id no argument can carry is named by the file too.
    nul = Undo(CONNECTION, Path("/b"), restore="/b/f.csv", restore_groups=("a\0b",)).command()
    assert nul is not None and "--all-groups" in nul


def test_nothing_to_undo_is_no_line():
    undo = Undo(CONNECTION, Path("/b"))
    assert undo.empty and undo.command() is None and undo.hint("x") == []


def test_a_relative_backup_dir_is_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert backup_folder("rel/dir") == tmp_path / "rel" / "dir"
    monkeypatch.setenv("KAFKA_TOOLS_STATE_DIR", "state")
    assert backup_folder(None) == tmp_path / "state" / "backups"


@pytest.mark.parametrize("value", ["", " ", "\t"])
def test_a_blank_backup_dir_is_refused(value):
    with pytest.raises(UsageError, match=r"--backup-dir .* is (empty|blank): give a directory"):
        backup_folder(value)


def test_a_backup_over_the_plan_row_limit_raises_the_limit_in_its_undo(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_MAX_PLAN_ROWS, "3")
    small, large = tmp_path / "small.csv", tmp_path / "large.csv"
    small.write_text("g,t,0,1\ng,t,1,1\ng,t,2,1\n")
    large.write_text("g,t,0,1\ng,t,1,1\ng,t,2,1\ng,t,3,1\n")
    assert (
        Undo(CONNECTION, tmp_path, restore=str(small), restore_groups=("g",))
        .command()
        .startswith("kafka-consumer-groups")
    )
    assert (
        Undo(CONNECTION, tmp_path, restore=str(large), restore_groups=("g",))
        .command()
        .startswith(f"{ENV_MAX_PLAN_ROWS}=4 kafka-consumer-groups")
    )


# -- durable files ---------------------------------------------------------------------------------
OFFSETS = {"g\nh": {("t", 0): 5, ("t", 1): 7}, "other": {("t", 0): 1}}


def test_a_backup_is_0600_whatever_the_umask_and_reads_back(tmp_path):
    old = os.umask(0o000)
    try:
        path = save_backup("reset", OFFSETS, str(tmp_path / "new" / "dir"))
    finally:
        os.umask(old)
    assert path is not None and Path(path).parent == tmp_path / "new" / "dir"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(tmp_path / "new" / "dir").st_mode) == 0o700
    assert parse_plan_csv(Path(path).read_text(), [], path) == OFFSETS
    assert sorted(p.name for p in Path(path).parent.iterdir()) == [Path(path).name]  # no temporary file


def test_nothing_to_save_is_no_file(tmp_path):
    assert save_backup("reset", {"g": {}}, str(tmp_path)) is None
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only directory")
def test_a_read_only_directory_leaves_nothing(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o500)
    with pytest.raises(CliError, match=r"cannot save the backup .* nothing was changed"):
        save_backup("reset", OFFSETS, str(folder))
    assert list(folder.iterdir()) == []


def test_a_failed_write_removes_its_temporary_file(tmp_path, monkeypatch):
    """A write that fails (a full disk answers the sync: ENOSPC) leaves no file at all."""

    def full(_fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(CliError, match="No space left on device; nothing was changed"):
        save_backup("reset", OFFSETS, str(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_a_file_too_large_for_the_process_leaves_nothing(tmp_path):
    """RLIMIT_FSIZE: the write fails (EFBIG) in a child process limited to 64 bytes."""
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))\n"
        "from kafka_groups.commands.backup import save_backup\n"
        "from kafka_groups.errors import CliError\n"
        "try:\n"
        "    save_backup('reset', {'g': {('t', p): p for p in range(100)}}, sys.argv[1])\n"
        "except CliError as exc:\n"
        "    print(exc.message)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "cannot save the backup" in done.stdout, done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_narrowed_backup_is_a_new_file_renamed_over_the_old(tmp_path):
    path = save_backup("delete", OFFSETS, str(tmp_path))
    assert path is not None
    before = os.stat(path).st_ino
    assert narrow_backup(path, {"other": {("t", 0): 1}}) == path
    assert os.stat(path).st_ino != before  # not rewritten in place
    assert parse_plan_csv(Path(path).read_text(), [], path) == {"other": {("t", 0): 1}}
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert narrow_backup(path, {"other": {}}) is None
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("point", ["backup-before-rename", "narrow-before-rename"])
def test_until_the_rename_only_a_temporary_file_exists(tmp_path, monkeypatch, point):
    """At the fault point inside the write, the backup's own name holds the old whole file (or
    nothing): the new text is only under a hidden temporary name."""
    faults, folder = tmp_path / "faults", tmp_path / "b"
    faults.mkdir()
    folder.mkdir()
    old = save_backup("delete", OFFSETS, str(folder)) if point == "narrow-before-rename" else None
    monkeypatch.setenv(FAULT_DIR_ENV, str(faults))
    done: list[str | None] = []
    if old is None:
        worker = threading.Thread(target=lambda: done.append(save_backup("reset", OFFSETS, str(folder))))
    else:
        worker = threading.Thread(target=lambda: done.append(narrow_backup(old, {"other": {("t", 0): 1}})))
    worker.start()
    deadline = time.monotonic() + 30
    while not (faults / point).exists():
        assert time.monotonic() < deadline and worker.is_alive()
        time.sleep(0.01)
    visible = [p for p in folder.iterdir() if not p.name.startswith(".")]
    hidden = [p for p in folder.iterdir() if p.name.startswith(".")]
    assert len(hidden) == 1 and hidden[0].name.endswith(".tmp")
    if old is None:
        assert visible == []
    else:
        assert visible == [Path(old)] and parse_plan_csv(Path(old).read_text(), [], old) == OFFSETS
    (faults / point).unlink()
    worker.join(30)
    assert [p for p in folder.iterdir() if p.name.startswith(".")] == []
    (path,) = done
    assert path is not None and Path(path).exists()
