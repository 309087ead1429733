"""Backups of committed offsets, written before a command replaces or deletes them, and the
command that undoes it.

A backup is a 4-column plan file (group,topic,partition,offset) that
``--reset-offsets --from-file FILE --execute`` puts back, with our tool or the Apache one (for
ids without a line break: see :mod:`kafka_groups.core.plan_file`). A reset that gives partitions
their first offset also saves those partitions, in a file of the same layout that
``--delete-offsets --from-file FILE`` (ours) deletes again.

Every file is written durably, before anything is sent: to a temporary file in the backup
directory (mode 0600, whatever the umask: it holds a group's offsets), synced, renamed into
place, and the directory synced. A file is never rewritten in place: :func:`narrow_backup`
writes a new one and renames it over the old, so a process killed at any moment leaves either
the old whole file or the new whole one.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from kafka_groups.commands.guard import fault_point
from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.plan_file import ENV_MAX_PLAN_ROWS, backup_csv, max_plan_rows
from kafka_groups.core.selectors import check_backup_dir
from kafka_groups.errors import CliError
from kafka_groups.settings import ENV_COMMAND_CONFIG, ConnectionArgs

ENV_STATE_DIR = "KAFKA_TOOLS_STATE_DIR"
UNDO_GROUPS_LISTED = 10  # above this many groups an undo names them by its file (--all-groups)
# Test-only fault points inside the writing of a file (see commands.guard): the new file is
# written and synced under its temporary name, not yet renamed.
BACKUP_FAULT_POINTS = ("backup-before-rename", "narrow-before-rename")
CREATED_SUFFIX = "-created"  # the file of the partitions a reset gave their first offset

Offsets = Mapping[str, Mapping[TopicPartition, int]]


def default_backup_dir() -> Path:
    """$KAFKA_TOOLS_STATE_DIR/backups, else $XDG_STATE_HOME/kafka-group-tools/backups,
    else ~/.local/state/kafka-group-tools/backups."""
    if os.environ.get(ENV_STATE_DIR):
        return Path(os.environ[ENV_STATE_DIR]) / "backups"
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "kafka-group-tools" / "backups"


def backup_folder(backup_dir: str | None) -> Path:
    """The directory backups go to, absolute (so that the undo works from anywhere): the
    ``--backup-dir`` given, else :func:`default_backup_dir`. An empty or blank ``--backup-dir``
    is a usage error: it never means the default."""
    check_backup_dir(backup_dir)
    folder = default_backup_dir() if backup_dir is None else Path(backup_dir)
    return folder.absolute()


def backup_stamp() -> str:
    """The time in a backup's name (UTC, to the microsecond)."""
    return dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")


def save_backup(
    kind: str, offsets: Offsets, backup_dir: str | None, suffix: str = "", stamp: str | None = None
) -> str | None:
    """Write ``offsets`` (group -> partition -> offset) durably to a new file named after
    ``kind``, the group and ``stamp`` (now, by default); None when there is nothing to save.
    Nothing of it is left when it cannot be saved (the error says why)."""
    offsets = {group: held for group, held in offsets.items() if held}
    if not offsets:
        return None
    folder = backup_folder(backup_dir)
    stamp = stamp or backup_stamp()
    label = next(iter(offsets)) if len(offsets) == 1 else f"{len(offsets)}-groups"
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in label)[:80]
    try:
        _make_folder(folder)
        path = folder / f"{kind}-{safe}-{stamp}{suffix}.csv"
        write_durably(path, backup_csv(offsets), "backup-before-rename")
    except OSError as exc:
        raise CliError(
            f"cannot save the backup of the current offsets in {folder}: {exc.strerror or exc}; "
            "nothing was changed"
        ) from None
    return str(path)


def _make_folder(folder: Path) -> None:
    """Create ``folder`` (mode 0700) and its missing parents, each made durable in its parent."""
    missing = []
    at = folder
    while not at.exists() and at != at.parent:
        missing.append(at)
        at = at.parent
    for made in reversed(missing):
        try:
            made.mkdir(mode=0o700)
        except FileExistsError:
            continue
        _sync_dir(made.parent)


def write_durably(path: Path, text: str, point: str) -> None:
    """Write ``text`` to ``path``: a temporary file beside it (0600), synced, renamed over
    ``path``, and the directory synced. On any failure the temporary file is removed and
    ``path`` is as it was. ``point``: the test-only fault point before the rename."""
    import tempfile

    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        fault_point(point)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _sync_dir(path.parent)


def _sync_dir(folder: Path) -> None:
    """Make a rename or a new entry in ``folder`` durable (where the platform allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # a file system without directory sync: the rename is as durable as it allows
    finally:
        os.close(fd)


def discard_backup(path: str) -> None:
    """Remove a backup of a write that is not going to be sent."""
    with contextlib.suppress(OSError):
        Path(path).unlink()
        _sync_dir(Path(path).parent)


def narrow_backup(path: str, offsets: Offsets) -> str | None:
    """Replace a backup by one holding only ``offsets`` (what the command really changed),
    written as a new file renamed over it; remove it when that is nothing. Returns the path
    that remains, if any. When that fails, the wider backup stays (restoring it is harmless)."""
    target = Path(path)
    try:
        if not any(offsets.values()):
            target.unlink(missing_ok=True)
            _sync_dir(target.parent)
            return None
        write_durably(target, backup_csv(offsets), "narrow-before-rename")
    except OSError:
        pass
    return path


# -- the commands printed beside a backup -------------------------------------------------------------
def shell_quote(value: str) -> str:
    """``value`` as one word of a POSIX shell command, every character visible: plain text
    as :func:`shlex.quote` quotes it; text holding a character that is not printable (a
    control character, a tab, a line break, an invisible format character) in ``$'...'``,
    with each such character as an escape (``\\n``, ``\\t``, ``\\r``, or its UTF-8 bytes in
    octal), which bash, zsh and ksh read back as the same bytes. A word that starts with ``=``
    is quoted too, though :func:`shlex.quote` leaves it bare: zsh reads ``=name`` as the path of
    the command ``name`` (its ``=`` expansion) and fails when there is none."""
    if value.isprintable():
        quoted = shlex.quote(value)
        return f"'{value}'" if quoted == value and value.startswith("=") else quoted
    out = []
    for char in value:
        if char in "\\'":
            out.append("\\" + char)
        elif char.isprintable():
            out.append(char)
        elif char in _NAMED:
            out.append(_NAMED[char])
        else:  # three octal digits always: the next character cannot be read as part of it
            out.extend(f"\\{byte:03o}" for byte in char.encode("utf-8"))
    return "$'" + "".join(out) + "'"


_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def connection_flags(connection: ConnectionArgs, writes: bool = False) -> str:
    """The connection flags the user gave, for a command we print (the environment supplies
    the rest, as it did this time); a relative ``--command-config`` as an absolute path. A
    command that ``writes`` (an undo) carries ``--yes`` when this one was given it: it goes to
    the same protected cluster in the same place (a terminal or not)."""
    flags = ""
    if connection.cluster:
        flags += f" --cluster {shell_quote(connection.cluster)}"
    if connection.bootstrap_server:
        flags += f" --bootstrap-server {shell_quote(connection.bootstrap_server)}"
    # A relative KAFKA_COMMAND_CONFIG would be read from wherever the printed command is run:
    # it goes in as --command-config, absolute (the same file; a flag wins over the variable).
    exported = "" if connection.cluster else os.environ.get(ENV_COMMAND_CONFIG, "")
    config = connection.command_config or ("" if os.path.isabs(exported) else exported)
    if config:
        config = os.path.normpath(os.path.join(os.getcwd(), config))
        flags += f" --command-config {shell_quote(config)}"
    if writes and connection.assume_yes:
        flags += " --yes"
    return flags


def _rows_over_limit(path: str) -> int | None:
    """The backup's line count when it is larger than ``--from-file`` takes by default (the
    undo command then raises the limit for itself), else None."""
    try:
        with open(path, "rb") as backup:
            rows = sum(1 for _ in backup)
    except OSError:
        return None
    return rows if rows > max_plan_rows(os.environ) else None


def _argv_safe(groups: Sequence[str]) -> bool:
    """Whether every id can be given as a command-line argument (no NUL)."""
    return all("\0" not in g for g in groups)


def group_flags(groups: Sequence[str], whole_file: str = "--all-groups") -> str:
    """``--group`` for each of a few groups; for more (or an id no argument can carry),
    ``whole_file``: every group the file names."""
    listed = sorted(groups)
    if len(listed) <= UNDO_GROUPS_LISTED and _argv_safe(listed):
        return " ".join(f"--group {shell_quote(g)}" for g in listed)
    return whole_file


@dataclass(frozen=True)
class Undo:
    """The way back from one write: what puts the state before it back.

    * ``restore``: a backup of offsets the write replaced or deleted, put back with
      ``--reset-offsets --from-file`` (``restore_groups``: its groups);
    * ``created``: a file of the partitions the write gave their first offset, deleted again
      with ``--delete-offsets --from-file``;
    * ``absent``: groups that did not exist before the write, deleted with ``--delete``.

    One line runs the parts in that order, joined with ``&&``: each part runs when the one
    before it succeeded. Every file and directory in it is an absolute path, and each part
    saves its own backup to the same directory (``folder``)."""

    connection: ConnectionArgs
    folder: Path
    tool: str = "kafka-consumer-groups"  # the tool that puts the backup back
    restore: str | None = None
    restore_groups: tuple[str, ...] = ()
    created: str | None = None
    absent: tuple[str, ...] = ()
    # The restore commits step by step where the cluster refuses a transaction (--allow-non-atomic),
    # as the write it undoes did.
    non_atomic: bool = False

    @property
    def empty(self) -> bool:
        return not (self.restore or self.created or self.absent)

    def command(self) -> str | None:
        """The one line that undoes the write, None when there is nothing to undo."""
        parts = []
        server = connection_flags(self.connection, writes=True)
        folder = f"--backup-dir {shell_quote(str(self.folder))}"
        if self.restore:
            groups = group_flags(self.restore_groups)
            steps = " --allow-non-atomic" if self.non_atomic else ""
            parts.append(
                f"{self._limit(self.restore)}{self.tool}{server} {groups} --reset-offsets "
                f"--from-file {shell_quote(self.restore)} --execute{steps} {folder}"
            )
        if self.created:  # by group id, whatever the group's type: kafka-consumer-groups
            parts.append(
                f"{self._limit(self.created)}kafka-consumer-groups{server} --delete-offsets "
                f"--from-file {shell_quote(self.created)} {folder}"
            )
        if self.absent:
            groups = " ".join(f"--group {shell_quote(g)}" for g in sorted(self.absent))
            parts.append(f"kafka-consumer-groups{server} --delete {groups} {folder}")
        return " && ".join(parts) or None

    @staticmethod
    def _limit(path: str) -> str:
        rows = _rows_over_limit(path)
        return "" if rows is None else f"{ENV_MAX_PLAN_ROWS}={rows} "

    def hint(self, what: str) -> list[str]:
        """The lines said on stderr before anything is sent: where each file is and the
        command that undoes the write (none when there is nothing to undo)."""
        lines = []
        if self.restore:
            lines.append(f"Saved the offsets {what} to {self.restore}")
        if self.created:
            lines.append(
                f"Saved the offsets this reset creates (partitions that had none; the undo deletes them) "
                f"to {self.created}"
            )
        if self.absent:
            names = ", ".join(repr(g) for g in sorted(self.absent))
            lines.append(f"Groups this reset creates (the undo deletes them): {names}")
        command = self.command()
        if command:
            lines.append(f"Undo: {command}")
        return lines


def check_command(
    groups: Sequence[str], connection: ConnectionArgs, tool: str = "kafka-consumer-groups"
) -> str:
    """The command that shows the committed offsets of ``groups`` (or whether they exist)."""
    listed = sorted(groups)
    if len(listed) > UNDO_GROUPS_LISTED or not _argv_safe(listed):
        return f"{tool}{connection_flags(connection)} --describe --all-groups --offsets"
    flags = " ".join(f"--group {shell_quote(g)}" for g in listed)
    return f"{tool}{connection_flags(connection)} --describe {flags} --offsets"
