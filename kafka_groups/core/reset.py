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
- ``--to-group SOURCE`` (ours, as ``rpk group seek --to-group``): the source group's committed
  offsets, clamped as ``--to-offset``; partitions in scope the source has not committed are
  left out (and named in a notice).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafka_groups.core import plan_file
from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.javaorder import hashmap_order, string_keys_order, topic_partition_hash
from kafka_groups.core.plan_file import (  # noqa: F401 (the names callers import from here)
    ENV_MAX_PLAN_ROWS,
    FEW,
    MAX_PLAN_LINE_BYTES,
    MAX_PLAN_ROWS,
    backup_csv,
    export_csv,
    few,
    max_plan_rows,
    parse_plan_csv,
    plan_lines,
    read_plan,
)
from kafka_groups.core.reset_args import (  # noqa: F401 (the names callers import from here)
    BEFORE_EPOCH,
    DATETIME_FORMAT,
    JAVA_INT_MAX,
    JAVA_LONG_MAX,
    JAVA_LONG_MIN,
    by_duration_timestamp,
    parse_datetime,
    parse_duration_ms,
    parse_topic_arg,
)
from kafka_groups.errors import UsageError

if TYPE_CHECKING:
    from kafka_groups.core.offset_table import OffsetTable


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
    TO_GROUP = "to-group"


# Scenarios whose targets are clamped to [log start, log end].
CLAMPED = frozenset({Scenario.TO_OFFSET, Scenario.SHIFT_BY, Scenario.FROM_FILE, Scenario.TO_GROUP})
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


# -- planning ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ResetSpec:
    scenario: Scenario
    offset: int | None = None  # --to-offset
    shift: int | None = None  # --shift-by
    timestamp_ms: int | None = None  # --to-datetime / --by-duration, computed once
    plan: Mapping[str, Mapping[TopicPartition, int]] | None = None  # --from-file
    skipped_rows: Mapping[str, int] = field(default_factory=dict)  # --from-file rows of other groups
    source: str | None = None  # --to-group: the group whose committed offsets are copied


@dataclass(frozen=True)
class PartitionOffsets:
    """What the broker says about the partitions a group's reset touches."""

    committed: Mapping[TopicPartition, int]
    starts: Mapping[TopicPartition, int] = field(default_factory=dict)
    ends: Mapping[TopicPartition, int] = field(default_factory=dict)
    by_time: Mapping[TopicPartition, int | None] = field(default_factory=dict)  # None: no such record
    source: Mapping[TopicPartition, int] = field(default_factory=dict)  # --to-group: the source's offsets


@dataclass(frozen=True)
class GroupPlan:
    group: str
    offsets: Mapping[TopicPartition, int]  # in the Apache tool's order
    warnings: tuple[str, ...] = ()  # clamping (stderr)
    fallbacks: tuple[TopicPartition, ...] = ()  # timestamp lookups with no record (stdout "Warn:")
    uncopied: tuple[TopicPartition, ...] = ()  # --to-group: in scope, not committed by the source


def clamp(
    requested: Mapping[TopicPartition, int], data: PartitionOffsets
) -> tuple[dict[TopicPartition, int], list[str]]:
    out: dict[TopicPartition, int] = {}
    warnings = _clamp_into(out, requested.items(), data)
    return out, warnings


# Plans of more partitions than this are held compactly (core/offset_table.py): what a plan of
# 100,000 partitions holds then fits a few MB; smaller ones stay plain dicts.
COMPACT_ABOVE = 2000


def plan_group(
    group: str,
    spec: ResetSpec,
    partitions: Sequence[TopicPartition],
    data: PartitionOffsets,
    compact: bool | None = None,
) -> GroupPlan:
    """The new offsets for one group (the partitions come from the scope, in scope order).
    ``compact``: held in a compact table (None: when the group has more than COMPACT_ABOVE)."""
    from kafka_groups.core.offset_table import OffsetTable

    s = spec.scenario
    scope = list(dict.fromkeys(partitions))
    fallbacks: list[TopicPartition] = []
    warnings: list[str] = []
    uncopied: list[TopicPartition] = []
    offsets: dict[TopicPartition, int] | OffsetTable = {}
    order: Iterable[TopicPartition] = scope  # the order the Apache tool puts them in its map
    requested_rows = len((spec.plan or {}).get(group, {})) if s is Scenario.FROM_FILE else 0
    if compact or (compact is None and max(len(scope), requested_rows) > COMPACT_ABOVE):
        offsets = OffsetTable()
    if s is Scenario.FROM_FILE:
        requested = (spec.plan or {}).get(group, {})
        warnings = _clamp_into(offsets, requested.items(), data)
        order = requested
    elif s is Scenario.TO_OFFSET:
        assert spec.offset is not None
        warnings = _clamp_into(offsets, ((tp, spec.offset) for tp in scope), data)
    elif s is Scenario.SHIFT_BY:
        assert spec.shift is not None
        missing = [tp for tp in scope if tp not in data.committed]
        if missing:
            t, p = missing[0]
            raise UsageError(
                f"Cannot shift offset for partition {t}-{p} since there is no current committed offset"
            )
        shift = spec.shift
        warnings = _clamp_into(offsets, ((tp, data.committed[tp] + shift) for tp in scope), data)
    elif s is Scenario.TO_GROUP:
        uncopied = sorted(tp for tp in scope if tp not in data.source)
        source = data.source
        warnings = _clamp_into(offsets, ((tp, source[tp]) for tp in scope if tp in source), data)
    elif s is Scenario.TO_EARLIEST:
        starts = data.starts
        for tp in scope:
            offsets[tp] = starts[tp]
    elif s is Scenario.TO_LATEST:
        ends = data.ends
        for tp in scope:
            offsets[tp] = ends[tp]
    elif s in BY_TIME:
        for tp in scope:
            found = data.by_time.get(tp)
            if found is None:
                fallbacks.append(tp)
            offsets[tp] = data.ends[tp] if found is None else found
    elif s is Scenario.TO_CURRENT:
        for tp in scope:
            offsets[tp] = data.committed[tp] if tp in data.committed else data.ends[tp]
    elif s is Scenario.TO_NEAREST:
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
    fallback_order = hashmap_order(fallbacks, lambda tp: topic_partition_hash(*tp))
    if isinstance(offsets, dict):
        ordered = hashmap_order(offsets, lambda tp: topic_partition_hash(*tp))
        planned: Mapping[TopicPartition, int] = {tp: offsets[tp] for tp in ordered}
    else:
        from kafka_groups.core.javaorder import string_hash
        from kafka_groups.core.offset_table import OrderedOffsets, apache_order

        table = offsets.settle()
        planned = OrderedOffsets(table, apache_order([tp for tp in order if tp in table], string_hash))
    return GroupPlan(group, planned, tuple(warnings), tuple(fallback_order), tuple(uncopied))


def _clamp_into(
    out: dict[TopicPartition, int] | OffsetTable,
    requested: Iterable[tuple[TopicPartition, int]],
    data: PartitionOffsets,
) -> list[str]:
    """:func:`clamp`, into ``out``; returns the warnings."""
    warnings: list[str] = []
    ends, starts = data.ends, data.starts
    for tp, offset in requested:
        end, start = ends[tp], starts[tp]
        if offset > end:
            warnings.append(
                f"New offset ({offset}) is higher than latest offset for topic partition {tp[0]}-{tp[1]}. "
                f"Value will be set to {end}"
            )
            out[tp] = end
        elif offset < start:
            warnings.append(
                f"New offset ({offset}) is lower than earliest offset for topic partition {tp[0]}-{tp[1]}. "
                f"Value will be set to {start}"
            )
            out[tp] = start
        else:
            out[tp] = offset
    return warnings


def order_groups(plans: Iterable[GroupPlan]) -> list[GroupPlan]:
    """Groups in the order the Apache tool prints them (a HashMap keyed by group id)."""
    by_id = {p.group: p for p in plans}
    return [by_id[g] for g in string_keys_order(by_id)]


def parse_plan(
    lines: Iterable[str],
    groups: Sequence[str],
    source: str,
    max_rows: int | None = None,
    skipped: dict[str, int] | None = None,
) -> dict[str, Mapping[TopicPartition, int]]:
    """:func:`kafka_groups.core.plan_file.parse_plan`, limited by this module's
    :data:`MAX_PLAN_ROWS` unless ``max_rows`` is given."""
    limit = MAX_PLAN_ROWS if max_rows is None else max_rows
    return plan_file.parse_plan(lines, groups, source, limit, skipped)
