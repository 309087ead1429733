"""``--reset-offsets`` planning (KIP-122 and our extensions), pure: the access layer gathers
the offsets, this module decides the new ones exactly as the pinned Apache tool does.

Rules that matter to users (and that the tests pin):
- ``--to-offset``, ``--shift-by`` and ``--from-file`` are clamped to [log start, log end];
  ``--to-earliest``, ``--to-latest``, ``--to-current`` and the timestamp scenarios are not.
- ``--to-datetime``/``--by-duration``: the first offset whose timestamp is at or after the
  instant; a partition with none falls back to its log end offset (with the Apache warning).
- ``--to-current`` keeps committed offsets; partitions without one get the log end offset.
- ``--to-nearest`` (ours, from KIP-842): only committed offsets outside [log start, log end]
  move, to the nearer bound; partitions in range, or without a committed offset, are left out.
- ``--to-start-time`` (KIP-1282): ``--to-datetime`` at the group's creation time.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO

from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.groups import split_java
from kafka_groups.core.javaorder import hashmap_order, string_keys_order, topic_partition_hash
from kafka_groups.errors import UsageError


class Scenario(str, enum.Enum):
    TO_OFFSET = "to-offset"
    TO_EARLIEST = "to-earliest"
    TO_LATEST = "to-latest"
    SHIFT_BY = "shift-by"
    TO_DATETIME = "to-datetime"
    BY_DURATION = "by-duration"
    FROM_FILE = "from-file"
    TO_CURRENT = "to-current"
    TO_START_TIME = "to-start-time"
    TO_NEAREST = "to-nearest"


# Scenarios whose targets are clamped to [log start, log end].
CLAMPED = frozenset({Scenario.TO_OFFSET, Scenario.SHIFT_BY, Scenario.FROM_FILE})
# Scenarios that look offsets up by timestamp.
BY_TIME = frozenset({Scenario.TO_DATETIME, Scenario.BY_DURATION, Scenario.TO_START_TIME})

ALLOWED_STATES = frozenset({"Empty", "Dead"})

# KIP-1282's two error texts for --to-start-time, word for word (after the "Error: " label).
START_TIME_REFUSED = "Cannot reset offsets using --to-start-time."
START_TIME_UNSUPPORTED = (
    f"{START_TIME_REFUSED} The broker does not support to_start_time (requires ConsumerGroupDescribe v2+ "
    "or StreamsGroupDescribe v1+). Please upgrade the broker."
)


def start_time_unavailable(group: str) -> str:
    return (
        f"{START_TIME_REFUSED} The group creation time is not available for group '{group}'. The group may "
        "have been created before KIP-1282 was enabled. Please delete and recreate the group."
    )


def start_timestamp(group: str, creation_time_ms: int | None) -> int:
    """``--to-start-time``: the group's creation time, or the KIP's error when the broker
    described the group without one (-1) or could not describe it."""
    if creation_time_ms is None or creation_time_ms < 0:
        from kafka_groups.errors import CliError

        raise CliError(start_time_unavailable(group))
    return creation_time_ms


# -- argument parsing -------------------------------------------------------------------
def parse_topic_arg(arg: str) -> tuple[str, list[int] | None]:
    """``topic`` (every partition) or ``topic:0,1,2``, with the Apache tool's errors."""
    if ":" not in arg:
        return arg, None
    parts = arg.split(":")
    while parts and parts[-1] == "":
        parts.pop()
    if len(parts) != 2:
        raise UsageError(f"Invalid topic arg '{arg}', expected topic name and partitions")
    topic, listed = parts
    partitions = []
    for raw in listed.split(","):
        if not re.fullmatch(r"[+-]?[0-9]+", raw) or not -(2**31) <= int(raw) < 2**31:
            raise UsageError(f"Invalid partition '{raw}' specified in topic arg '{arg}''")
        partitions.append(int(raw))
    return topic, partitions


# ``Utils.getDateTime``: SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSSXXX"), then "...SSSX",
# non-lenient. Every numeric field takes any number of digits after optional spaces or tabs,
# the literals must be exact, and text after the zone is ignored.
_FIELD = r"[ \t]*([0-9]+)"
_APACHE_DATETIME = re.compile(
    rf"{_FIELD}-{_FIELD}-{_FIELD}T{_FIELD}:{_FIELD}:{_FIELD}\.{_FIELD}[ \t]*(Z|[+-][0-9]{{2}})(:[0-9]{{2}})?"
)
DATETIME_FORMAT = (
    "yyyy-MM-ddTHH:mm:ss.SSS with an optional zone Z, +hh:mm or +hh, e.g. 2024-01-31T12:00:00.000Z"
)
# The Apache tool sends an instant before 1970 as a negative timestamp, which brokers read as a
# special offset (-1 latest, -2 earliest, -3 max timestamp...): refused here instead.
BEFORE_EPOCH = (
    "the instant is before 1970-01-01T00:00:00.000Z, which Kafka would read as a special offset "
    "(latest, earliest): use --to-earliest"
)
_JAVA_MAX_YEAR = 292_278_994  # GregorianCalendar's largest year
_MS_PER_DAY = 86_400_000


def parse_datetime(text: str) -> int:
    """``--to-datetime`` as epoch milliseconds, accepting exactly what the Apache tool accepts
    (``yyyy-MM-dd'T'HH:mm:ss.SSS``, UTC when no zone is given, the fraction read as a count of
    milliseconds up to 999, ``+hhmm`` read as ``+hh``) and refusing the rest, so that a value
    the Apache tool refuses never resets offsets here."""
    if len(split_java(text, "T")) < 2:
        raise UsageError(
            f"Invalid --to-datetime '{text}': it does not contain a 'T' according to ISO8601 format"
        )
    after_t = text.split("T", 1)[1]
    candidate = text if any(c in after_t for c in "+-Z") else text + "Z"
    match = _APACHE_DATETIME.match(candidate)
    millis = _apache_instant(match) if match else None
    if millis is None:
        raise UsageError(f"Invalid --to-datetime '{text}': Unparseable date (expected {DATETIME_FORMAT})")
    if millis > JAVA_LONG_MAX:
        raise UsageError(f"Invalid --to-datetime '{text}': out of range")
    if millis < 0:
        raise UsageError(f"Invalid --to-datetime '{text}': {BEFORE_EPOCH}")
    return millis


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_from_epoch(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 in the proleptic Gregorian calendar (any year)."""
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146_097 + doe - 719_468


def _apache_instant(m: re.Match[str]) -> int | None:
    year, month, day, hour, minute, second, ms = (int(g) for g in m.groups()[:7])
    if not (
        1 <= year <= _JAVA_MAX_YEAR
        and 1 <= month <= 12
        and 1 <= day <= _days_in_month(year, month)
        and hour <= 23
        and minute <= 59
        and second <= 59
        and ms <= 999
    ):
        return None
    zone, zone_minutes = m[8], m[9]
    offset_min = 0
    if zone != "Z":
        hours = int(zone[1:])
        if hours > 23:
            return None
        # "+hh:mm" (pattern XXX) when the minutes are valid, else "+hh" (pattern X): the
        # minutes of "+hhmm" or of "+hh:99" are dropped, as Java drops them.
        minutes = int(zone_minutes[1:]) if zone_minutes else 0
        offset_min = hours * 60 + (minutes if minutes <= 59 else 0)
        offset_min = -offset_min if zone[0] == "-" else offset_min
    days = _days_from_epoch(year, month, day)
    local = days * _MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + ms
    return local - offset_min * 60_000


# java.time.Duration.parse
_DURATION = re.compile(
    r"([-+]?)P(?:([-+]?[0-9]+)D)?"
    r"(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?",
    re.IGNORECASE,
)


def parse_duration_ms(text: str) -> int:
    """``--by-duration`` (``java.time.Duration.parse``: ``PnDTnHnMn.nS``) in milliseconds,
    rounded up so that ``now - duration`` is floored as Java floors it. A duration whose
    seconds do not fit a Java long is refused, as Java refuses it."""
    m = _DURATION.fullmatch(text)
    if not m or (m[2] is None and m[3] is None) or (m[3] is not None and m[3].upper() == "T"):
        raise UsageError(f"Invalid --by-duration '{text}': expected ISO-8601 PnDTnHnMnS, e.g. PT1H30M")
    overflow = UsageError(f"Invalid --by-duration '{text}': out of range (seconds beyond a Java long)")
    seconds = 0
    for group, per in ((m[2], 86_400), (m[4], 3_600), (m[5], 60), (m[6], 1)):
        if group:
            part = int(group) * per
            if not JAVA_LONG_MIN <= int(group) <= JAVA_LONG_MAX or not JAVA_LONG_MIN <= part <= JAVA_LONG_MAX:
                raise overflow
            seconds += part
            if not JAVA_LONG_MIN <= seconds <= JAVA_LONG_MAX:
                raise overflow
    nanos = int(m[7].ljust(9, "0")) if m[7] else 0
    if m[6] and m[6].startswith("-"):
        nanos = -nanos
    total_ns = seconds * 10**9 + nanos
    if m[1] == "-":
        total_ns = -total_ns
    if not JAVA_LONG_MIN <= total_ns // 10**9 <= JAVA_LONG_MAX:
        raise overflow
    # Java floors now - duration to milliseconds: the duration is rounded up.
    return -(-total_ns // 10**6)


def by_duration_timestamp(text: str, now_ms: int) -> int:
    """``--by-duration``: the instant ``now - duration`` in epoch milliseconds (a Java long)."""
    stamp = now_ms - parse_duration_ms(text)
    if not JAVA_LONG_MIN <= stamp <= JAVA_LONG_MAX:
        raise UsageError(f"Invalid --by-duration '{text}': out of range (the instant is beyond a Java long)")
    if stamp < 0:
        raise UsageError(f"Invalid --by-duration '{text}': {BEFORE_EPOCH}")
    return stamp


# -- the reset plan file ----------------------------------------------------------------
# A plan file is read line by line, never whole: a line longer than this is not a plan row
# (a topic name has at most 249 characters), so /dev/zero or a binary file fails at once.
MAX_PLAN_LINE_BYTES = 64 * 1024
# The most rows one --from-file reset takes. Every row's offsets are held, looked up, backed up
# and committed: 50,000 rows execute in about 90 MB (peak RSS), within the tools' 100 MB
# budget. A longer plan is refused before the cluster is contacted; it can be split (by group
# or by topic), or the limit raised with ENV_MAX_PLAN_ROWS where memory allows.
MAX_PLAN_ROWS = 50_000
ENV_MAX_PLAN_ROWS = "KAFKA_TOOLS_MAX_PLAN_ROWS"
# Errors that name items (unknown partitions) list at most this many, then a count.
FEW = 5
JAVA_INT_MAX = 2**31 - 1
JAVA_LONG_MIN, JAVA_LONG_MAX = -(2**63), 2**63 - 1
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
) -> dict[str, dict[TopicPartition, int]]:
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
) -> dict[str, dict[TopicPartition, int]]:
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
) -> dict[str, dict[TopicPartition, int]]:
    """A reset plan: ``topic,partition,offset`` (one ``--group``) or
    ``group,topic,partition,offset`` (either tool's export and our backups), one row a line.

    Stricter than the Apache tool, so that a damaged file changes nothing: every row must
    parse, no row may repeat a partition, and there are at most ``max_rows`` rows
    (:data:`MAX_PLAN_ROWS` by default). The first bad line stops the reading, with its number.
    Blank lines at the end are ignored. As in the Apache tool, the rows of groups that are not
    being reset are left out (a two-group export replayed for one group); ``skipped`` counts
    them per group. A plan with no row for the groups being reset is refused."""
    plan: dict[str, dict[TopicPartition, int]] = {}
    others: dict[str, int] = {} if skipped is None else skipped
    names: dict[str, str] = {}  # one string object per distinct group or topic name
    single: bool | None = None  # decided by the first row
    blanks: list[tuple[int, str]] = []  # blank lines, an error only if a row follows them
    rows = 0
    limit = MAX_PLAN_ROWS if max_rows is None else max_rows
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\n").rstrip("\r")
        if not line.strip():
            blanks.append((number, line))
            continue
        for pending in [*blanks, (number, line)]:
            rows += 1
            if rows > limit:
                raise UsageError(
                    f"--from-file {source} has more than {limit:,} rows, the most one reset takes: "
                    f"split the plan (by group or topic) or raise {ENV_MAX_PLAN_ROWS}"
                )
            cells = _split_csv(pending[1])
            if single is None:
                single = len(groups) == 1 and len(cells) == 3
            _add_row(plan, names, cells, pending[0], single, groups, source, others)
        blanks.clear()
    if single is None:
        raise UsageError(f"--from-file {source} is empty")
    if not plan and others:
        first = next(iter(others))
        raise UsageError(
            f"--from-file {source} has no row for the groups being reset: group '{first}' is not one of "
            f"the groups being reset, nor are the other {sum(others.values()):,} row(s)' groups"
        )
    return plan


def _add_row(
    plan: dict[str, dict[TopicPartition, int]],
    names: dict[str, str],
    cells: list[str],
    number: int,
    single: bool,
    groups: Sequence[str],
    source: str,
    others: dict[str, int],
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
    offsets = plan.setdefault(group, {})
    tp = (topic, p)
    if tp in offsets:
        raise UsageError(f"{where}: {topic}-{partition} of group '{group}' appears twice")
    offsets[tp] = o


def _is_int(text: str) -> bool:
    return re.fullmatch(r"[+-]?[0-9]+", text) is not None


def _split_csv(line: str) -> list[str]:
    import csv

    try:
        return next(csv.reader([line]), [])
    except csv.Error:
        return [line]  # an unbalanced quote: reported as a column-count error


_NEEDS_QUOTES = re.compile(r"[\x00-\x2c]")


def _csv_cell(value: str) -> str:
    # Jackson's CSV writer quotes a value holding any character below '-' (space, comma, quote...).
    if _NEEDS_QUOTES.search(value):
        return '"' + value.replace('"', '""') + '"'
    return value


# -- planning ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ResetSpec:
    scenario: Scenario
    offset: int | None = None  # --to-offset
    shift: int | None = None  # --shift-by
    timestamp_ms: int | None = None  # --to-datetime / --by-duration, computed once
    plan: Mapping[str, Mapping[TopicPartition, int]] | None = None  # --from-file
    skipped_rows: Mapping[str, int] = field(default_factory=dict)  # --from-file rows of other groups


@dataclass(frozen=True)
class PartitionOffsets:
    """What the broker says about the partitions a group's reset touches."""

    committed: Mapping[TopicPartition, int]
    starts: Mapping[TopicPartition, int] = field(default_factory=dict)
    ends: Mapping[TopicPartition, int] = field(default_factory=dict)
    by_time: Mapping[TopicPartition, int | None] = field(default_factory=dict)  # None: no such record


@dataclass(frozen=True)
class GroupPlan:
    group: str
    offsets: Mapping[TopicPartition, int]  # in the Apache tool's order
    warnings: tuple[str, ...] = ()  # clamping (stderr)
    fallbacks: tuple[TopicPartition, ...] = ()  # timestamp lookups with no record (stdout "Warn:")


def clamp(
    requested: Mapping[TopicPartition, int], data: PartitionOffsets
) -> tuple[dict[TopicPartition, int], list[str]]:
    out: dict[TopicPartition, int] = {}
    warnings: list[str] = []
    for tp, offset in requested.items():
        end, start = data.ends[tp], data.starts[tp]
        name = f"{tp[0]}-{tp[1]}"
        if offset > end:
            warnings.append(
                f"New offset ({offset}) is higher than latest offset for topic partition {name}. "
                f"Value will be set to {end}"
            )
            out[tp] = end
        elif offset < start:
            warnings.append(
                f"New offset ({offset}) is lower than earliest offset for topic partition {name}. "
                f"Value will be set to {start}"
            )
            out[tp] = start
        else:
            out[tp] = offset
    return out, warnings


def plan_group(
    group: str, spec: ResetSpec, partitions: Sequence[TopicPartition], data: PartitionOffsets
) -> GroupPlan:
    """The new offsets for one group (the partitions come from the scope, in scope order)."""
    s = spec.scenario
    scope = list(dict.fromkeys(partitions))
    fallbacks: list[TopicPartition] = []
    warnings: list[str] = []
    if s is Scenario.FROM_FILE:
        requested = dict((spec.plan or {}).get(group, {}))
        offsets, warnings = clamp(requested, data)
    elif s is Scenario.TO_OFFSET:
        assert spec.offset is not None
        offsets, warnings = clamp(dict.fromkeys(scope, spec.offset), data)
    elif s is Scenario.SHIFT_BY:
        assert spec.shift is not None
        missing = [tp for tp in scope if tp not in data.committed]
        if missing:
            t, p = missing[0]
            raise UsageError(
                f"Cannot shift offset for partition {t}-{p} since there is no current committed offset"
            )
        offsets, warnings = clamp({tp: data.committed[tp] + spec.shift for tp in scope}, data)
    elif s is Scenario.TO_EARLIEST:
        offsets = {tp: data.starts[tp] for tp in scope}
    elif s is Scenario.TO_LATEST:
        offsets = {tp: data.ends[tp] for tp in scope}
    elif s in BY_TIME:
        offsets = {}
        for tp in scope:
            found = data.by_time.get(tp)
            if found is None:
                fallbacks.append(tp)
            offsets[tp] = data.ends[tp] if found is None else found
    elif s is Scenario.TO_CURRENT:
        offsets = {tp: data.committed[tp] if tp in data.committed else data.ends[tp] for tp in scope}
    elif s is Scenario.TO_NEAREST:
        offsets = {}
        for tp in scope:
            current = data.committed.get(tp)
            if current is None:
                continue
            if current < data.starts[tp]:
                offsets[tp] = data.starts[tp]
            elif current > data.ends[tp]:
                offsets[tp] = data.ends[tp]
    else:  # pragma: no cover - every scenario is handled above
        raise AssertionError(s)
    ordered = hashmap_order(offsets, lambda tp: topic_partition_hash(*tp))
    fallback_order = hashmap_order(fallbacks, lambda tp: topic_partition_hash(*tp))
    return GroupPlan(group, {tp: offsets[tp] for tp in ordered}, tuple(warnings), tuple(fallback_order))


def order_groups(plans: Iterable[GroupPlan]) -> list[GroupPlan]:
    """Groups in the order the Apache tool prints them (a HashMap keyed by group id)."""
    by_id = {p.group: p for p in plans}
    return [by_id[g] for g in string_keys_order(by_id)]


def export_csv(plans: Sequence[GroupPlan], single_group: bool) -> str:
    """``--export``: the Apache CSV, ``topic,partition,offset`` for exactly one ``--group``,
    ``group,topic,partition,offset`` otherwise; no header; a blank line at the end."""
    lines = []
    for plan in plans:
        for (topic, partition), offset in plan.offsets.items():
            cells = [topic, str(partition), str(offset)]
            if not single_group:
                cells.insert(0, plan.group)
            lines.append(",".join(_csv_cell(c) for c in cells) + "\n")
    return "".join(lines) + "\n"


def backup_csv(current: Mapping[str, Mapping[TopicPartition, int]]) -> str:
    """The committed offsets a reset is about to replace, as a plan file both tools execute."""
    rows = []
    for group in sorted(current):
        for (topic, partition), offset in sorted(current[group].items()):
            rows.append(",".join(_csv_cell(c) for c in (group, topic, str(partition), str(offset))) + "\n")
    return "".join(rows)
