"""``--describe --health`` output (ours, no Apache equivalent).

Text (piped): per group, a fixed-column table whose cells hold no blanks except the last,
DETAIL, so that ``awk``/``cut`` read it; then one ``SUMMARY`` line of ``key=value`` fields
whose last field, ``policy=``, runs to the end of the line. Durations are milliseconds and
times ISO-8601 UTC. The Rich view (a terminal) shows a summary table of the groups above the
partitions, lost rows red and at-risk rows yellow. JSON carries every field (docs/json.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kafka_groups.core.health import GroupHealth, HealthResult, PartitionHealth, Severity, Status
from kafka_groups.core.lagtime import human_duration
from kafka_groups.core.times import iso_utc_ms

if TYPE_CHECKING:
    from kafka_groups.render.table import TableSpec

JSON_SCHEMA = "kafka-group-tools/group-health/v1"
MISSING = "-"
COLUMNS = (
    "GROUP",
    "TOPIC",
    "PARTITION",
    "STATUS",
    "CURRENT-OFFSET",
    "LOG-START-OFFSET",
    "LOG-END-OFFSET",
    "LAG",
    "LAG-TIME-MS",
    "LOST-RECORDS",
    "DELETE-IN-MS",
    "CREATED",
    "DETAIL",
)
# The narrowest each column gets, as the Apache layouts give 15 to names (the header otherwise).
_MIN_WIDTH = {"GROUP": 15, "TOPIC": 15, "CREATED": 24}


def _s(value: object | None) -> str:
    return MISSING if value is None else str(value)


def _lag(p: PartitionHealth) -> int | None:
    """The records left to read; without a committed offset, the records the partition holds."""
    return p.records if p.facts.committed is None else p.lag


def _cells(group: GroupHealth, p: PartitionHealth) -> list[str]:
    f = p.facts
    return [
        group.group_id,
        f.topic,
        str(f.partition),
        p.status.value,
        _s(f.committed),
        _s(f.log_start),
        _s(f.log_end),
        _s(_lag(p)),
        _s(p.lag_ms),
        _s(p.lost_records),
        _s(p.deleted_in_ms),
        iso_utc_ms(f.created_ms),
        p.detail or MISSING,
    ]


def _start(group: GroupHealth) -> str:
    return MISSING if group.start_ms is None else f"{iso_utc_ms(group.start_ms)}({group.start_source})"


def summary_line(group: GroupHealth) -> str:
    fields = [
        ("group", group.group_id),
        ("kind", group.kind),
        ("state", group.state),
        ("severity", group.severity.label),
        ("partitions", len(group.partitions)),
        ("lost", group.count(Status.LOST)),
        ("lost-records", group.lost_records),
        ("at-risk", group.count(Status.AT_RISK)),
        ("unknown", group.count(Status.UNKNOWN)),
        ("uncommitted", group.uncommitted),
        ("uncommitted-records", group.unconsumed_records),
        ("max-lag-time-ms", _s(group.max_lag_ms)),
        ("start", _start(group)),
        ("policy", group.policy.policy if group.policy else MISSING),
    ]
    return "SUMMARY " + " ".join(f"{k}={v}" for k, v in fields)


def text(result: HealthResult) -> str:
    out = []
    for group in result.groups:
        rows = [_cells(group, p) for p in group.partitions]
        if rows:
            widths = [
                max([_MIN_WIDTH.get(name, len(name)), *(len(r[i]) for r in rows)])
                for i, name in enumerate(COLUMNS[:-1])
            ]

            def line(cells: list[str], widths: list[int] = widths) -> str:
                return " ".join(c.ljust(w) for c, w in zip(cells[:-1], widths, strict=True)) + " " + cells[-1]

            out.append("\n" + line(list(COLUMNS)))
            out.extend(line(r) for r in rows)
        out.append(("" if rows else "\n") + summary_line(group))
    return "\n".join(out) + "\n" if out else ""


_STYLE = {Severity.LOST: "red", Severity.AT_RISK: "yellow"}


def table(result: HealthResult) -> TableSpec:
    from kafka_groups.render.table import TableSpec

    groups = [
        [
            g.group_id,
            g.state,
            g.severity.label,
            f"{g.count(Status.LOST)} ({g.lost_records} records)" if g.count(Status.LOST) else "0",
            str(g.count(Status.AT_RISK)),
            f"{g.uncommitted} ({g.unconsumed_records} records)" if g.uncommitted else "0",
            human_duration(g.max_lag_ms),
            g.policy.policy if g.policy else MISSING,
            _start(g).replace("(", " (") if g.start_ms is not None else MISSING,
        ]
        for g in result.groups
    ]
    before = TableSpec(
        "",
        ["GROUP", "STATE", "HEALTH", "LOST", "AT RISK", "UNCOMMITTED", "MAX LAG TIME", "POLICY", "START"],
        groups,
        [_STYLE.get(g.severity, "green") for g in result.groups],
        "No groups.",
    )
    rows, styles = [], []
    for g in result.groups:
        for p in g.partitions:
            if p.severity is Severity.HEALTHY and p.status is Status.OK and not p.lag:
                continue  # caught up: the summary counts it
            f = p.facts
            rows.append(
                [
                    g.group_id,
                    f.topic,
                    str(f.partition),
                    p.status.value,
                    _s(f.committed),
                    f"{_s(f.log_start)}..{_s(f.log_end)}",
                    _s(_lag(p)),
                    human_duration(p.lag_ms),
                    iso_utc_ms(f.created_ms),
                    p.detail,
                ]
            )
            styles.append(_STYLE.get(p.severity, "dim" if p.status is Status.UNCONSUMED else ""))
    columns = ["GROUP", "TOPIC", "PARTITION", "STATUS", "CURRENT", "LOG RANGE", "LAG", "LAG TIME", "CREATED"]
    return TableSpec("", [*columns, "DETAIL"], rows, styles, "Every partition is caught up.", before=before)


def _partition_json(p: PartitionHealth) -> dict[str, Any]:
    f = p.facts
    return {
        "topic": f.topic,
        "partition": f.partition,
        "status": p.status.value,
        "severity": p.severity.label,
        "current_offset": f.committed,
        "log_start_offset": f.log_start,
        "log_end_offset": f.log_end,
        "lag": p.lag,
        "records": p.records,
        "lag_ms": p.lag_ms,
        "next_record_timestamp_ms": f.next_timestamp_ms,
        "lost_records": p.lost_records,
        "retention_ms": f.retention_ms,
        "retention_bytes": f.retention_bytes,
        "size_bytes": f.size_bytes,
        "deleted_in_ms": p.deleted_in_ms,
        "created_ms": f.created_ms,
        "protected_by": f.protected_by,
        "member_id": f.member_id,
        "detail": p.detail or None,
    }


def _group_json(g: GroupHealth) -> dict[str, Any]:
    return {
        "group": g.group_id,
        "kind": g.kind,
        "state": g.state,
        "severity": g.severity.label,
        "policy": None
        if g.policy is None
        else {"policy": g.policy.policy, "new_partitions_from_start": g.policy.new_partitions_from_start},
        "start": None if g.start_ms is None else {"time_ms": g.start_ms, "source": g.start_source},
        "summary": {
            "partitions": len(g.partitions),
            "lost": g.count(Status.LOST),
            "lost_records": g.lost_records,
            "at_risk": g.count(Status.AT_RISK),
            "unknown": g.count(Status.UNKNOWN),
            "uncommitted": g.uncommitted,
            "uncommitted_records": g.unconsumed_records,
            "max_lag_ms": g.max_lag_ms,
        },
        "partitions": [_partition_json(p) for p in g.partitions],
    }


def json(result: HealthResult) -> dict[str, Any]:
    return {
        "schema": JSON_SCHEMA,
        "now_ms": result.now_ms,
        "severity": result.severity.label,
        "groups": [_group_json(g) for g in result.groups],
        "missing_groups": list(result.missing),
    }


def csv(result: HealthResult) -> list[list[str]]:
    header = [c.lower().replace("-", "_") for c in COLUMNS]
    rows = [[c if c != MISSING else "" for c in _cells(g, p)] for g in result.groups for p in g.partitions]
    return [header, *rows]
