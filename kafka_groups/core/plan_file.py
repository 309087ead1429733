"""Reset plan files (``--from-file``): read as a stream with bounded lines and rows, strictly
(a damaged file changes nothing), and written (``--export``'s Apache CSV, and our backups)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, BinaryIO

from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.reset_args import JAVA_INT_MAX, JAVA_LONG_MAX, JAVA_LONG_MIN
from kafka_groups.errors import UsageError

if TYPE_CHECKING:
    from kafka_groups.core.offset_table import OrderedOffsets
    from kafka_groups.core.reset import GroupPlan

# A plan file is read line by line, never whole: a line longer than this is not a plan row
# (a topic name has at most 249 characters), so /dev/zero or a binary file fails at once.
MAX_PLAN_LINE_BYTES = 64 * 1024
# The most rows one --from-file reset takes: more partitions than a Kafka cluster holds (a
# KRaft cluster is good for a few million), so that no real plan meets it, while a file that
# is no plan (a log, /dev/urandom split into lines) stops before it takes the memory. Large
# plans are held compactly (COMPACT_ROWS): 200,000 rows execute within 150 MB. A longer file
# is refused before the cluster is contacted; ENV_MAX_PLAN_ROWS raises (or lowers) the limit.
MAX_PLAN_ROWS = 10_000_000
ENV_MAX_PLAN_ROWS = "KAFKA_TOOLS_MAX_PLAN_ROWS"
# Errors that name items (unknown partitions) list at most this many, then a count.
FEW = 5
_BOM = "\ufeff"
_COLUMNS_4 = "group,topic,partition,offset"
_COLUMNS_3 = "topic,partition,offset"


def few(items: Sequence[str], limit: int = FEW) -> str:
    """At most ``limit`` items, comma-separated, then how many more there are."""
    shown = ",".join(items[:limit])
    rest = len(items) - limit
    return f"{shown} and {rest:,} more" if rest > 0 else shown


def plan_lines(stream: BinaryIO, source: str) -> Iterator[str]:
    """The lines of a plan file as text, each read with a bounded buffer: a line over
    :data:`MAX_PLAN_LINE_BYTES`, or one that is not UTF-8 text, stops the reading with its
    number. A UTF-8 byte order mark before the first line is dropped."""
    number = 0
    while True:
        raw = stream.readline(MAX_PLAN_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        where = f"--from-file {source} line {number}"
        if len(raw) > MAX_PLAN_LINE_BYTES:
            raise UsageError(
                f"{where} is longer than {MAX_PLAN_LINE_BYTES // 1024} KiB: not a reset plan (CSV text)"
            )
        if b"\0" in raw:
            raise UsageError(f"{where} holds a NUL byte: not a reset plan (CSV text)")
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise UsageError(f"{where} is not UTF-8 text: not a reset plan (CSV text)") from None
        if number == 1 and line.startswith(_BOM):
            line = line[1:]
        yield line


def parse_plan_csv(
    text: str, groups: Sequence[str], source: str, skipped: dict[str, int] | None = None
) -> dict[str, Mapping[TopicPartition, int]]:
    """A reset plan given as text (see :func:`parse_plan`)."""
    return parse_plan((line + "\n" for line in text.split("\n")), groups, source, skipped=skipped)


def max_plan_rows(environ: Mapping[str, str]) -> int:
    """The row limit: :data:`MAX_PLAN_ROWS`, or a positive whole number in ENV_MAX_PLAN_ROWS."""
    raw = environ.get(ENV_MAX_PLAN_ROWS, "").strip()
    if not raw:
        return MAX_PLAN_ROWS
    if not re.fullmatch(r"[0-9]{1,12}", raw) or int(raw) == 0:
        raise UsageError(f"{ENV_MAX_PLAN_ROWS} must be a positive whole number of rows, got '{raw}'")
    return int(raw)


def read_plan(
    path: str,
    groups: Sequence[str],
    environ: Mapping[str, str] | None = None,
    skipped: dict[str, int] | None = None,
) -> dict[str, Mapping[TopicPartition, int]]:
    """A reset plan file, read as a stream (see :func:`plan_lines` and :func:`parse_plan`)."""
    import os

    limit = max_plan_rows(os.environ if environ is None else environ)
    try:
        with open(path, "rb") as stream:
            return parse_plan(plan_lines(stream, path), groups, path, limit, skipped)
    except OSError as exc:
        raise UsageError(f"cannot read --from-file {path}: {exc.strerror or exc}") from None


def parse_plan(
    lines: Iterable[str],
    groups: Sequence[str],
    source: str,
    max_rows: int | None = None,
    skipped: dict[str, int] | None = None,
) -> dict[str, Mapping[TopicPartition, int]]:
    """A reset plan: ``topic,partition,offset`` (one ``--group``) or
    ``group,topic,partition,offset`` (either tool's export and our backups), one row a line
    (a row spans lines only inside a quoted cell: a group id holding a line break).

    Stricter than the Apache tool, so that a damaged file changes nothing: every row must
    parse, no row may repeat a partition, and there are at most ``max_rows`` rows
    (:data:`MAX_PLAN_ROWS` by default). The first bad line stops the reading, with its number.
    Blank lines at the end are ignored. As in the Apache tool, the rows of groups that are not
    being reset are left out (a two-group export replayed for one group); ``skipped`` counts
    them per group. A plan with no row for the groups being reset is refused."""
    plan: dict[str, MutableMapping[TopicPartition, int]] = {}
    others: dict[str, int] = {} if skipped is None else skipped
    names: dict[str, str] = {}  # one string object per distinct group or topic name
    single: bool | None = None  # decided by the first row
    blanks: list[tuple[int, str]] = []  # blank lines, an error only if a row follows them
    rows = 0
    limit = MAX_PLAN_ROWS if max_rows is None else max_rows
    for number, line, cells in _records(lines, source):
        if cells is None:
            blanks.append((number, line))
            continue
        for pending, pending_cells in [*((n, _split_csv(b)) for n, b in blanks), (number, cells)]:
            rows += 1
            if rows > limit:
                raise UsageError(
                    f"--from-file {source} has more than {limit:,} rows, the most one reset takes (the "
                    f"default, {MAX_PLAN_ROWS:,}, is more partitions than a Kafka cluster holds): to apply "
                    f"it, set {ENV_MAX_PLAN_ROWS} to its number of rows, or split it by group or topic"
                )
            if single is None:
                single = len(groups) == 1 and len(pending_cells) == 3
            _add_row(plan, names, pending_cells, pending, single, groups, source, others, rows > COMPACT_ROWS)
            if rows == COMPACT_ROWS + 1:  # a large plan: every group's rows compact from here
                for held in plan.values():
                    assert isinstance(held, _Rows)
                    held.compact()
        blanks.clear()
    if single is None:
        raise UsageError(f"--from-file {source} is empty")
    if not plan and others:
        first = next(iter(others))
        raise UsageError(
            f"--from-file {source} has no row for the groups being reset: group '{first}' is not one of "
            f"the groups being reset, nor are the other {sum(others.values()):,} row(s)' groups"
        )
    return {group: _held(rows) for group, rows in plan.items()}


# A plan's rows are plain dicts up to this many in all, then compact tables in the file's order
# (core/offset_table.py): a plan of 200,000 rows is then about 17 bytes a row.
COMPACT_ROWS = 2000


class _Rows(dict[TopicPartition, int]):
    """A group's rows while the file is read: a dict, moved into a compact table once the
    plan holds more than :data:`COMPACT_ROWS` rows in all."""

    table: OrderedOffsets | None = None

    def compact(self) -> None:
        from kafka_groups.core.offset_table import OrderedOffsets

        if self.table is None:
            table = OrderedOffsets()
            for key, value in self.items():
                table.append(key, value)
            self.clear()
            self.table = table

    def has(self, tp: TopicPartition) -> bool:
        return tp in self.table if self.table is not None else tp in self

    def add(self, tp: TopicPartition, offset: int) -> None:
        if self.table is not None:
            self.table.append(tp, offset)
        else:
            self[tp] = offset


def _held(rows: MutableMapping[TopicPartition, int]) -> dict[TopicPartition, int] | OrderedOffsets:
    if isinstance(rows, _Rows) and rows.table is not None:
        rows.table.table.settle()
        return rows.table
    return dict(rows)


def _records(lines: Iterable[str], source: str) -> Iterator[tuple[int, str, list[str] | None]]:
    """The rows of a plan file: (number of its first line, its text, its cells), cells None
    for a blank line. A quoted cell may hold line breaks (RFC 4180, as a group id may): its row
    then goes on over the next lines, up to :data:`MAX_PLAN_LINE_BYTES` in all."""
    pending: list[str] = []  # the lines of a row whose quoted cell is still open
    start = size = 0
    for number, raw in enumerate(lines, start=1):
        if not pending:
            line = raw.rstrip("\n").rstrip("\r")
            if '"' not in line:  # the usual row: no quoted cell
                yield (number, line, line.split(",")) if line.strip() else (number, line, None)
                continue
            cells = _cells(line)
            if cells is not None:
                yield number, line, cells
                continue
            start, size = number, len(raw)
            pending.append(raw)
            continue
        pending.append(raw)
        size += len(raw)
        if size > MAX_PLAN_LINE_BYTES:
            raise UsageError(
                f"--from-file {source} line {start}: a quoted value runs on for more than "
                f"{MAX_PLAN_LINE_BYTES // 1024} KiB: not a reset plan (CSV text)"
            )
        text = "".join(pending)
        # Only the row's own line break goes: one inside the quoted cell is the id's.
        line = text[:-1] if text.endswith("\n") else text
        line = line[:-1] if line.endswith("\r") and text.endswith("\n") else line
        cells = _cells(line)
        if cells is not None:
            pending.clear()
            yield start, line, cells
    if pending:
        raise UsageError(
            f"--from-file {source} line {start}: a quoted value is not closed before the end of the file"
        )


def _add_row(
    plan: dict[str, MutableMapping[TopicPartition, int]],
    names: dict[str, str],
    cells: list[str],
    number: int,
    single: bool,
    groups: Sequence[str],
    source: str,
    others: dict[str, int],
    compact: bool = False,
) -> None:
    where = f"--from-file {source} line {number}"
    # With one --group the first row decides the layout: its errors name both layouts.
    both = (
        f"expected 4 columns ({_COLUMNS_4}) or 3 ({_COLUMNS_3})" if len(groups) == 1 and number == 1 else ""
    )
    expected = 3 if single else 4
    if len(cells) != expected:
        columns = _COLUMNS_3 if single else _COLUMNS_4
        raise UsageError(f"{where}: {both or f'expected {expected} columns ({columns})'}, found {len(cells)}")
    if single:
        group, (topic, partition, offset) = groups[0], cells
    else:
        group, topic, partition, offset = cells
    for what, value in (("partition", partition), ("offset", offset)):
        if not _is_int(value):
            if both and single:
                raise UsageError(f"{where}: {both}: the {what} '{value}' is not a number")
            raise UsageError(
                f"{where}: the {what} '{value}' is not a number (partition and offset must be whole numbers)"
            )
    p, o = int(partition), int(offset)
    if not 0 <= p <= JAVA_INT_MAX:
        raise UsageError(f"{where}: partition {partition} is out of range (0 to {JAVA_INT_MAX})")
    if not JAVA_LONG_MIN <= o <= JAVA_LONG_MAX:
        raise UsageError(f"{where}: offset {offset} is out of range (a Java long)")
    if groups and group not in groups:  # another group's row: left out, and counted
        group = names.setdefault(group, group)
        others[group] = others.get(group, 0) + 1
        return
    group = names.setdefault(group, group)
    topic = names.setdefault(topic, topic)
    offsets = plan.get(group)
    if offsets is None:
        offsets = plan[group] = _Rows()
        if compact:
            offsets.compact()
    assert isinstance(offsets, _Rows)
    tp = (topic, p)
    if offsets.has(tp):
        raise UsageError(f"{where}: {topic}-{partition} of group '{group}' appears twice")
    offsets.add(tp, o)


def _is_int(text: str) -> bool:
    return re.fullmatch(r"[+-]?[0-9]+", text) is not None


def _split_csv(line: str) -> list[str]:
    """The cells of one row; a row whose quotes do not balance is one cell (reported as a
    column-count error)."""
    cells = _cells(line)
    return [line] if cells is None else cells


_STRICT = "kafka-group-tools-plan"  # the csv dialect of plan rows: Excel's, strict about quotes


def _cells(row: str) -> list[str] | None:
    """The cells of a CSV row (RFC 4180: a quoted cell may hold commas, line breaks and
    doubled quotes; a quote inside an unquoted cell is taken as it is, as the Apache tool's
    reader takes it). None while a quoted cell is still open at the end of ``row``; a row
    with text after a closing quote is one cell (a column-count error)."""
    if '"' not in row:
        return row.split(",")
    import csv

    if _STRICT not in csv.list_dialects():  # a named dialect: a reader per row is made quickly
        csv.register_dialect(_STRICT, strict=True)
    try:
        return next(csv.reader([row], _STRICT), [])
    except csv.Error as exc:
        if "unexpected end of data" in str(exc):
            return None  # still open
        return [row]


_NEEDS_QUOTES = re.compile(r"[\x00-\x2c]|^\ufeff")


def _csv_cell(value: str) -> str:
    # Jackson's CSV writer quotes a value holding any character below '-' (space, comma, quote,
    # line breaks, every control character). Ours also quotes one that starts with U+FEFF, which
    # a reader would take for a byte order mark at the start of the file (the Apache tool reads
    # the quoted form as the same value).
    if _NEEDS_QUOTES.search(value):
        return '"' + value.replace('"', '""') + '"'
    return value


def export_csv(plans: Sequence[GroupPlan], single_group: bool) -> str:
    """``--export``: the Apache CSV, ``topic,partition,offset`` for exactly one ``--group``,
    ``group,topic,partition,offset`` otherwise; no header; a blank line at the end."""
    cell = functools.cache(_csv_cell)  # a name per group or topic, not per row; numbers need none
    return (
        _joined(
            f"{'' if single_group else cell(plan.group) + ','}{cell(topic)},{partition},{offset}\n"
            for plan in plans
            for (topic, partition), offset in plan.offsets.items()
        )
        + "\n"
    )


def backup_csv(current: Mapping[str, Mapping[TopicPartition, int]]) -> str:
    """The committed offsets a reset is about to replace, as a plan file both tools execute."""
    from kafka_groups.core.offset_table import sorted_items

    cell = functools.cache(_csv_cell)  # a name per group or topic, not per row; numbers need none
    return _joined(
        f"{cell(group)},{cell(topic)},{partition},{offset}\n"
        for group in sorted(current)
        for (topic, partition), offset in sorted_items(current[group])
    )


def _joined(lines: Iterable[str], every: int = 10_000) -> str:
    """The lines as one string, joined ``every`` lines at a time: 200,000 rows never exist as
    200,000 strings at once."""
    parts: list[str] = []
    batch: list[str] = []
    for line in lines:
        batch.append(line)
        if len(batch) == every:
            parts.append("".join(batch))
            batch.clear()
    parts.append("".join(batch))
    return "".join(parts)
