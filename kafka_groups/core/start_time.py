"""A group's start time for ``--to-start-time`` and ``--describe --state``: where it comes from.

KIP-1282 has the broker record each group's creation time (ConsumerGroupDescribe v2,
StreamsGroupDescribe v1); no released broker does yet. Until then the project's own consumer
helper (``PolicyConsumer``) and ``kafka-to-parquet`` record the start of each group they
create in ``_kgt_group_start_times`` (see docs/policies.md). The broker's time wins where it
has one; the recorded start is the fallback; the KIP's error only when neither exists.
Pure code: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kafka_groups.core.times import iso_utc_ms
from kafka_groups.errors import CliError

BROKER = "broker"  # the group coordinator's GroupCreationTimeMs (KIP-1282)
RECORDED = "recorded"  # the start kafka-group-tools recorded in _kgt_group_start_times

START_TIME_HINT = (
    "Hint: without a creation time from the broker, --to-start-time uses the start kafka-group-tools "
    "records (topic _kgt_group_start_times) when a group is first started by its consumer helper "
    "(PolicyConsumer) or by kafka-to-parquet; none is recorded for this group."
)


@dataclass(frozen=True)
class GroupStart:
    time_ms: int
    source: str  # BROKER or RECORDED


def broker_start(creation_time_ms: int | None) -> GroupStart | None:
    """The broker's creation time as a start, when it sent a real one (not -1, not absent)."""
    if creation_time_ms is None or creation_time_ms < 0:
        return None
    return GroupStart(creation_time_ms, BROKER)


def choose_start(broker_ms: int | None, recorded_ms: int | None) -> GroupStart | None:
    """The broker's creation time first, else the recorded start."""
    found = broker_start(broker_ms)
    if found is None and recorded_ms is not None:
        found = GroupStart(recorded_ms, RECORDED)
    return found


def start_time_refusal(group: str, broker_supports: bool) -> CliError:
    """Neither source has the group's start: the KIP's error (the unsupported-broker text when
    the broker cannot report creation times at all), and the hint on a second line."""
    from kafka_groups.core.reset import START_TIME_UNSUPPORTED, start_time_unavailable  # reset paths only

    message = start_time_unavailable(group) if broker_supports else START_TIME_UNSUPPORTED
    return CliError(message, detail=START_TIME_HINT)


def _names(groups: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(f"'{g}'" for g in groups[:limit])
    return shown + (f" and {len(groups) - limit:,} more" if len(groups) > limit else "")


def source_notice(starts: Mapping[str, GroupStart]) -> str:
    """One line for stderr saying which source ``--to-start-time`` used, for every group."""
    if len(starts) == 1:
        [(group, start)] = starts.items()
        when = iso_utc_ms(start.time_ms)
        if start.source == BROKER:
            return f"Notice: --to-start-time for group '{group}' uses the broker's creation time, {when}."
        return (
            f"Notice: --to-start-time for group '{group}' uses the start kafka-group-tools recorded for it "
            f"(_kgt_group_start_times), {when}; the broker reports no creation time."
        )
    by_source = {s: [g for g, start in starts.items() if start.source == s] for s in (BROKER, RECORDED)}
    parts = []
    if by_source[BROKER]:
        parts.append(
            f"the broker's creation time for {len(by_source[BROKER])} group(s) ({_names(by_source[BROKER])})"
        )
    if by_source[RECORDED]:
        parts.append(
            f"the start kafka-group-tools recorded (_kgt_group_start_times) for {len(by_source[RECORDED])} "
            f"group(s) ({_names(by_source[RECORDED])})"
        )
    return "Notice: --to-start-time uses " + " and ".join(parts) + "."
