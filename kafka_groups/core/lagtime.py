"""Lag in time: how far behind a group is, measured in time rather than records (pure).

The access side (:func:`kafka_groups.access.lagtime.next_record_timestamps`) reads, for each
partition with lag, the timestamp of the next record the group will read (the record at its
committed offset, or the next one where compaction removed that offset). The lag in time is
then *now minus that timestamp*: how long ago the oldest record the group has not read yet
was written (CreateTime topics: stamped by the producer; LogAppendTime topics: by the broker).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kafka_groups.core.describe import TopicPartition


@dataclass(frozen=True)
class NextRecord:
    """The next record a group will read on a partition."""

    offset: int  # at or after the committed offset (compaction may have removed the latter)
    timestamp_ms: int
    log_append_time: bool = False  # stamped by the broker, not by the producer


def lag_time_ms(timestamp_ms: int | None, now_ms: int) -> int | None:
    """Now minus the record's timestamp, never negative (a producer's clock ahead of ours
    reads as no lag, not as a lag from the future); None when there is no timestamp (no lag,
    or a record without one: timestamps below zero are Kafka's "none")."""
    if timestamp_ms is None or timestamp_ms < 0:
        return None
    return max(now_ms - timestamp_ms, 0)


def lag_times(
    next_records: Mapping[TopicPartition, NextRecord | None], now_ms: int
) -> dict[TopicPartition, int]:
    """The lag in time of each partition whose next record is known; the others are left out."""
    found: dict[TopicPartition, int] = {}
    for tp, record in next_records.items():
        lag = lag_time_ms(record.timestamp_ms if record is not None else None, now_ms)
        if lag is not None:
            found[tp] = lag
    return found


def human_duration(ms: int | None) -> str:
    """``4d 3h``, ``2h 05m``, ``7m 12s``, ``850 ms``: two units at most, for people; ``-`` for
    None."""
    if ms is None:
        return "-"
    if ms < 1000:
        return f"{ms} ms"
    seconds = ms // 1000
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m {secs:02d}s"
    return f"{secs}s"
