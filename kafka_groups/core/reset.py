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

import datetime as dt
import enum
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

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

START_TIME_UNSUPPORTED = (
    "The broker does not support to_start_time (requires ConsumerGroupDescribe v2+ or "
    "StreamsGroupDescribe v1+). Please upgrade the broker."
)


def start_time_unavailable(group: str) -> str:
    return (
        f"The group creation time is not available for group '{group}'. The group was created "
        "before its broker recorded creation times. Please delete and recreate the group."
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


_APACHE_DATETIME = re.compile(
    r"(?P<y>[0-9]+)-(?P<mo>[0-9]+)-(?P<d>[0-9]+)T(?P<h>[0-9]+):(?P<mi>[0-9]+):(?P<s>[0-9]+)"
    r"\.(?P<ms>[0-9]+)\s*(?P<zone>Z|[+-][0-9]{2}(?::[0-9]{2}|[0-9]{2})?)"
)


def parse_datetime(text: str) -> int:
    """``--to-datetime`` as epoch milliseconds.

    Whatever the Apache tool accepts (``yyyy-MM-dd'T'HH:mm:ss.SSS`` with an optional zone,
    UTC when none, the fraction read as a count of milliseconds, ``+hhmm`` read as ``+hh``)
    gives the same instant; other ISO-8601 forms are read with python-dateutil, UTC when no
    zone is given.
    """
    if len(split_java(text, "T")) < 2:
        raise UsageError(
            f"Invalid --to-datetime '{text}': it does not contain a 'T' according to ISO8601 format"
        )
    after_t = text.split("T", 1)[1]
    candidate = text if any(c in after_t for c in "+-Z") else text + "Z"
    match = _APACHE_DATETIME.match(candidate)
    if match:
        millis = _apache_instant(match)
        if millis is not None:
            return millis
    try:
        from dateutil import parser as dateutil_parser

        moment = dateutil_parser.isoparse(text)
    except (ValueError, OverflowError):
        raise UsageError(f"Invalid --to-datetime '{text}': expected e.g. 2024-01-31T12:00:00.000") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    return int(moment.timestamp() * 1000)


def _apache_instant(m: re.Match[str]) -> int | None:
    ms = int(m["ms"])
    if ms > 999:
        return None
    zone = m["zone"]
    offset = dt.timedelta(0)
    if zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        hours = int(zone[1:3])
        minutes = int(zone[4:6]) if len(zone) == 6 else 0  # "+hhmm": the minutes are dropped
        if hours > 23 or minutes > 59:
            return None
        offset = sign * dt.timedelta(hours=hours, minutes=minutes)
    try:
        moment = dt.datetime(
            int(m["y"]),
            int(m["mo"]),
            int(m["d"]),
            int(m["h"]),
            int(m["mi"]),
            int(m["s"]),
            tzinfo=dt.timezone(offset),
        )
    except (ValueError, OverflowError):
        return None
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    return (moment - epoch) // dt.timedelta(milliseconds=1) + ms


_DURATION = re.compile(
    r"([-+]?)P(?:([-+]?[0-9]+)D)?"
    r"(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?",
    re.IGNORECASE,
)


def parse_duration_ms(text: str) -> int:
    """``--by-duration`` (``java.time.Duration.parse``: ``PnDTnHnMn.nS``) in milliseconds."""
    m = _DURATION.fullmatch(text)
    if not m or (m[2] is None and m[3] is None) or (m[3] is not None and m[3].upper() == "T"):
        raise UsageError(f"Invalid --by-duration '{text}': expected ISO-8601 PnDTnHnMnS, e.g. PT1H30M")
    days, hours, minutes, seconds = (int(g) if g else 0 for g in (m[2], m[4], m[5], m[6]))
    nanos = int((m[7] or "").ljust(9, "0")) if m[7] else 0
    if m[6] and m[6].startswith("-"):
        nanos = -nanos
    total_ns = ((days * 24 + hours) * 60 + minutes) * 60 * 10**9 + seconds * 10**9 + nanos
    if m[1] == "-":
        total_ns = -total_ns
    return total_ns // 10**6


# -- the reset plan file ----------------------------------------------------------------
def parse_plan_csv(text: str, groups: Sequence[str], source: str) -> dict[str, dict[TopicPartition, int]]:
    """A reset plan file: ``topic,partition,offset`` (one ``--group``) or
    ``group,topic,partition,offset`` (either tool's export and our backups).

    Stricter than the Apache tool, so that a damaged file changes nothing: every row must
    parse, no row may repeat a partition, and every row must name a selected group."""
    lines = text.split("\n")
    while lines and lines[-1].strip() == "":
        lines.pop()
    if not lines:
        raise UsageError(f"--from-file {source} is empty")
    rows = [line.rstrip("\r") for line in lines]
    first = _split_csv(rows[0])
    three = len(first) == 3 and _is_int(first[1]) and _is_int(first[2])
    single = len(groups) == 1 and three
    plan: dict[str, dict[TopicPartition, int]] = {}
    for number, row in enumerate(rows, start=1):
        cells = _split_csv(row)
        where = f"--from-file {source} line {number}"
        if single:
            if len(cells) != 3:
                raise UsageError(f"{where}: expected 3 columns (topic,partition,offset), found {len(cells)}")
            group, (topic, partition, offset) = groups[0], cells
        else:
            if len(cells) != 4:
                raise UsageError(
                    f"{where}: expected 4 columns (group,topic,partition,offset), found {len(cells)}"
                )
            group, topic, partition, offset = cells
        if not _is_int(partition) or not _is_int(offset):
            raise UsageError(
                f"{where}: partition and offset must be whole numbers, got '{partition}', '{offset}'"
            )
        if groups and group not in groups:
            raise UsageError(f"{where}: group '{group}' is not one of the groups being reset")
        tp = (topic, int(partition))
        if tp in plan.setdefault(group, {}):
            raise UsageError(f"{where}: {topic}-{partition} of group '{group}' appears twice")
        plan[group][tp] = int(offset)
    return plan


def _is_int(text: str) -> bool:
    return re.fullmatch(r"[+-]?[0-9]+", text) is not None


def _split_csv(line: str) -> list[str]:
    import csv

    return next(csv.reader([line]), [])


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
