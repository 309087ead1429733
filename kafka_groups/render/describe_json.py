"""``--describe --output json``: the ``group-describe/v1`` document (docs/json.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kafka_groups.core.describe import DescribedGroup, DescribeResult, LagTimes, OffsetRow, View
from kafka_groups.render.describe import group_start, lag_ms

if TYPE_CHECKING:
    from kafka_groups.core.streams import StreamsOffsetRow

JSON_SCHEMA = "kafka-group-tools/group-describe/v1"


def offset_json(r: OffsetRow | StreamsOffsetRow) -> dict[str, Any]:
    """The keys of an offsets row that consumer and streams groups share (docs/json.md)."""
    return {
        "topic": r.topic,
        "partition": r.partition,
        "current_offset": r.current_offset,
        "leader_epoch": r.leader_epoch,
        "log_start_offset": r.log_start_offset,
        "log_end_offset": r.log_end_offset,
        "lag": r.lag,
    }


def _group_json(group: DescribedGroup, view: View, lag_times: LagTimes | None = None) -> dict[str, Any]:
    d = group.description
    doc: dict[str, Any] = {
        "group": d.group_id,
        "state": d.state,
        "type": d.type,
        "coordinator": {"id": d.coordinator.node_id, "host": d.coordinator.host, "port": d.coordinator.port},
        "assignment_strategy": d.assignor or None,
        "group_epoch": d.group_epoch,
        "target_assignment_epoch": d.target_assignment_epoch,
        "members": [
            {
                "member_id": m.member_id,
                "group_instance_id": m.instance_id,
                "client_id": m.client_id,
                "host": m.host,
                "member_epoch": m.member_epoch,
                "upgraded": m.upgraded,
                "assignment": [{"topic": t, "partition": p} for t, p in sorted(set(m.assignment))],
                "target_assignment": [
                    {"topic": t, "partition": p} for t, p in sorted(set(m.target_assignment))
                ],
            }
            for m in d.members
        ],
        "creation_time_ms": d.creation_time_ms
        if d.creation_time_ms is not None and d.creation_time_ms >= 0
        else None,
        "start": None
        if (start := group_start(group)) is None
        else {"time_ms": start.time_ms, "source": start.source},
    }
    if view is View.OFFSETS:
        doc["offsets"] = [
            {
                **offset_json(r),
                "out_of_range": r.out_of_range,
                "member_id": r.consumer_id,
                "host": r.host,
                "client_id": r.client_id,
            }
            for r in group.rows
        ]
        if lag_times is not None:  # --lag-time: two keys more per row
            for row, r in zip(doc["offsets"], group.rows, strict=True):
                row["next_record_timestamp_ms"] = lag_times.timestamps.get((r.group, r.topic, r.partition))
                row["lag_ms"] = lag_ms(lag_times, r)
    return doc


def json(result: DescribeResult) -> dict[str, Any]:
    return {
        "schema": JSON_SCHEMA,
        "view": result.view.value,
        "groups": [_group_json(g, result.view, result.lag_times) for g in result.groups],
        "missing_groups": list(result.missing),
    }
