"""Backups of committed offsets, written before a command replaces or deletes them.

A backup is a 4-column plan file (group,topic,partition,offset) that
``--reset-offsets --from-file FILE --execute`` puts back, with our tool or the Apache one.
"""

from __future__ import annotations

import datetime as dt
import os
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.plan_file import ENV_MAX_PLAN_ROWS, backup_csv, max_plan_rows
from kafka_groups.errors import CliError
from kafka_groups.settings import ConnectionArgs

ENV_STATE_DIR = "KAFKA_TOOLS_STATE_DIR"
UNDO_GROUPS_LISTED = 10  # above this many groups the undo hint does not spell out every --group


def default_backup_dir() -> Path:
    """$KAFKA_TOOLS_STATE_DIR/backups, else $XDG_STATE_HOME/kafka-group-tools/backups,
    else ~/.local/state/kafka-group-tools/backups."""
    if os.environ.get(ENV_STATE_DIR):
        return Path(os.environ[ENV_STATE_DIR]) / "backups"
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "kafka-group-tools" / "backups"


def save_backup(
    kind: str, offsets: Mapping[str, Mapping[TopicPartition, int]], backup_dir: str | None
) -> str | None:
    """Write ``offsets`` (group -> partition -> offset) to a new file named after ``kind``
    and the group; None when there is nothing to save."""
    offsets = {group: held for group, held in offsets.items() if held}
    if not offsets:
        return None
    folder = Path(backup_dir) if backup_dir else default_backup_dir()
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    label = next(iter(offsets)) if len(offsets) == 1 else f"{len(offsets)}-groups"
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in label)[:80]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{kind}-{safe}-{stamp}.csv"
        path.write_text(backup_csv(offsets))
    except OSError as exc:
        raise CliError(f"cannot save the backup of the current offsets in {folder}: {exc.strerror}") from None
    return str(path)


def narrow_backup(path: str, offsets: Mapping[str, Mapping[TopicPartition, int]]) -> str | None:
    """Rewrite a backup to hold only ``offsets`` (what the command really changed); remove it
    when that is nothing. Returns the path that remains, if any."""
    target = Path(path)
    try:
        if not any(offsets.values()):
            target.unlink(missing_ok=True)
            return None
        target.write_text(backup_csv(offsets))
    except OSError:
        pass  # the wider backup stays; restoring it is harmless
    return path


def connection_flags(connection: ConnectionArgs) -> str:
    """The connection flags the user gave, for a command we print (the environment supplies
    the rest, as it did this time)."""
    flags = ""
    if connection.bootstrap_server:
        flags += f" --bootstrap-server {shlex.quote(connection.bootstrap_server)}"
    if connection.command_config:
        flags += f" --command-config {shlex.quote(connection.command_config)}"
    return flags


def _rows_over_limit(path: str) -> int | None:
    """The backup's row count when it is larger than ``--from-file`` takes by default (the
    undo command then raises the limit for itself), else None."""
    try:
        with open(path, "rb") as backup:
            rows = sum(1 for _ in backup)
    except OSError:
        return None
    return rows if rows > max_plan_rows(os.environ) else None


def undo_command(
    path: str, groups: Sequence[str], connection: ConnectionArgs, tool: str = "kafka-consumer-groups"
) -> str:
    """The command that restores the backup at ``path``."""
    server = connection_flags(connection)
    rows = _rows_over_limit(path)
    if rows is not None:
        tool = f"{ENV_MAX_PLAN_ROWS}={rows} {tool}"
    if len(groups) <= UNDO_GROUPS_LISTED:
        flags = " ".join(f"--group {shlex.quote(g)}" for g in sorted(groups))
        return f"{tool}{server} {flags} --reset-offsets --from-file {shlex.quote(path)} --execute"
    return (
        f"{tool}{server} --reset-offsets --from-file {shlex.quote(path)} "
        f"--execute, with a --group for each of the {len(groups)} groups in the file"
    )


def check_command(
    groups: Sequence[str], connection: ConnectionArgs, tool: str = "kafka-consumer-groups"
) -> str:
    """The command that shows the committed offsets of ``groups`` (or whether they exist)."""
    listed = sorted(groups)
    if len(listed) > UNDO_GROUPS_LISTED:
        return f"{tool}{connection_flags(connection)} --describe --all-groups --offsets"
    flags = " ".join(f"--group {shlex.quote(g)}" for g in listed)
    return f"{tool}{connection_flags(connection)} --describe {flags} --offsets"


def undo_hint(
    what: str,
    path: str,
    groups: Sequence[str],
    connection: ConnectionArgs,
    tool: str = "kafka-consumer-groups",
) -> str:
    """Two lines for stderr: where the backup is, and the command that restores it."""
    return f"Saved the offsets {what} to {path}\nUndo: {undo_command(path, groups, connection, tool)}"
