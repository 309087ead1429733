"""``kafka-streams-groups --describe`` output: the Apache layouts of the offsets, members and
state views (with KIP-1282's GROUP-CREATION-TIME in ``--state --verbose``), and richer forms."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kafka_groups.core.streams import (
    Assignment,
    DescribedStreamsGroup,
    StreamsDescribeResult,
    StreamsGroup,
    StreamsOffsetRow,
    Tasks,
    assignment_text,
    shows_rows,
    state_notice,
)
from kafka_groups.core.times import iso_utc_ms
from kafka_groups.render.describe import MEMBERS_WIDTH
from kafka_groups.render.describe_json import offset_json

if TYPE_CHECKING:
    from kafka_groups.render.table import TableSpec

JSON_SCHEMA = "kafka-group-tools/streams-group-describe/v1"
MISSING = "-"


def _s(value: object | None) -> str:
    return MISSING if value is None else str(value)


def _line(cells: list[str], widths: list[int], sep: str = " ") -> str:
    """Java's ``%-Ns`` cells joined by spaces; the last cell is never padded."""
    return sep.join(c.ljust(w) for c, w in zip(cells[:-1], widths, strict=True)) + sep + cells[-1] + "\n"


def apache_error(message: str) -> str:
    """The streams tool prints its notices on stdout: an empty line, then ``Error: ...``."""
    return f"\nError: {message}\n"


def _notice(group: StreamsGroup) -> str:
    notice = state_notice(group)
    return apache_error(notice) if notice else ""


def _offsets_text(d: DescribedStreamsGroup, verbose: bool) -> str:
    g = d.group
    if not shows_rows(g):
        return ""
    gw = max(15, len(g.group_id))
    tw = max([15, *(len(r.topic) for r in d.rows)])
    out = [_notice(g)]
    if not verbose:
        widths = [gw, tw, 10]
        out.append(_line(["GROUP", "TOPIC", "PARTITION", "OFFSET-LAG"], widths))
        out.extend(_line([g.group_id, r.topic, str(r.partition), _s(r.lag)], widths) for r in d.rows)
    else:
        # Every cell padded, the last one too (the Apache format ends with %-15s%n).
        widths = [gw, tw, 10, 15, 15, 15, 15]
        header = ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LEADER-EPOCH", "LOG-END-OFFSET"]
        out.append(" ".join(c.ljust(w) for c, w in zip([*header, "OFFSET-LAG"], widths, strict=True)) + "\n")
        for r in d.rows:
            cells = [g.group_id, r.topic, str(r.partition), _s(r.current_offset), _s(r.leader_epoch)]
            cells += [_s(r.log_end_offset), _s(r.lag)]
            out.append(" ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + "\n")
    return "".join(out)


def _members_text(d: DescribedStreamsGroup, verbose: bool) -> str:
    g = d.group
    if not shows_rows(g):
        return ""
    gw = max(15, len(g.group_id))
    mw = max([15, *(len(m.member_id) for m in g.members)])
    pw = max([15, *(len(m.process_id) for m in g.members)])
    cw = max([15, *(len(m.client_id) for m in g.members)])
    out = [_notice(g)]
    if not verbose:
        widths = [gw, mw, pw, cw]
        out.append(_line(["GROUP", "MEMBER", "PROCESS", "CLIENT-ID", "ASSIGNMENTS"], widths))
        for m in g.members:
            cells = [g.group_id, m.member_id, m.process_id, m.client_id, assignment_text(m.assignment)]
            out.append(_line(cells, widths))
        return "".join(out)

    def line(cells: list[str]) -> str:
        # TOPOLOGY-EPOCH and MEMBER are not separated by a space in the Apache format.
        head = f"{cells[0].ljust(gw)} {cells[1].ljust(25)} {cells[2].ljust(15)}"
        return head + _line(cells[3:], [mw, 15, 15, pw, cw])

    out.append(
        line(
            [
                "GROUP",
                "TARGET-ASSIGNMENT-EPOCH",
                "TOPOLOGY-EPOCH",
                "MEMBER",
                "MEMBER-PROTOCOL",
                "MEMBER-EPOCH",
                "PROCESS",
                "CLIENT-ID",
                "ASSIGNMENTS",
            ]
        )
    )
    for m in g.members:
        out.append(
            line(
                [
                    g.group_id,
                    str(g.target_assignment_epoch),
                    str(g.topology_epoch),
                    m.member_id,
                    "classic" if m.is_classic else "streams",
                    str(m.member_epoch),
                    m.process_id,
                    m.client_id,
                    assignment_text(m.assignment, m.target_assignment),
                ]
            )
        )
    return "".join(out)


def creation_time(group: StreamsGroup) -> str:
    """KIP-1282 GROUP-CREATION-TIME: ISO-8601 UTC with milliseconds, ``-`` unless the broker sent one."""
    return iso_utc_ms(group.creation_time_ms)


def _state_text(d: DescribedStreamsGroup, verbose: bool) -> str:
    g = d.group
    gw = max(15, len(g.group_id))
    coordinator = g.coordinator_label
    kw = max(25, len(coordinator))
    if not verbose:
        widths = [gw, kw, 25]
        rows = [
            ["GROUP", "COORDINATOR (ID)", "STATE", "#MEMBERS"],
            [g.group_id, coordinator, g.state, str(len(g.members))],
        ]
    else:
        widths = [gw, kw, 25, 15, 25, MEMBERS_WIDTH]  # KIP-1282's GROUP-CREATION-TIME last
        rows = [
            [
                "GROUP",
                "COORDINATOR (ID)",
                "STATE",
                "GROUP-EPOCH",
                "TARGET-ASSIGNMENT-EPOCH",
                "#MEMBERS",
                "GROUP-CREATION-TIME",
            ],
            [
                g.group_id,
                coordinator,
                g.state,
                str(g.group_epoch),
                str(g.target_assignment_epoch),
                str(len(g.members)),
                creation_time(g),
            ],
        ]
    return _notice(g) + "".join(_line(r, widths) for r in rows)


def text(result: StreamsDescribeResult) -> str:
    view = {"offsets": _offsets_text, "members": _members_text, "state": _state_text}[result.view]
    return "".join(view(d, result.verbose) for d in result.groups)


# -- table, JSON, CSV ---------------------------------------------------------------------
def _offset_cells(group: StreamsGroup, r: StreamsOffsetRow) -> list[str]:
    cells = [group.group_id, r.topic, str(r.partition), _s(r.current_offset), _s(r.log_start_offset)]
    return [*cells, _s(r.log_end_offset), _s(r.lag)]


def table(result: StreamsDescribeResult) -> TableSpec:
    from kafka_groups.render.table import TableSpec

    if result.view == "offsets":
        rows, styles = [], []
        for d in result.groups:
            for r in d.rows:
                cells = _offset_cells(d.group, r)
                if result.verbose:  # the Apache --verbose column
                    cells.insert(4, _s(r.leader_epoch))
                rows.append(cells)
                styles.append("yellow" if (r.lag or 0) > 0 else "")
        columns = ["GROUP", "TOPIC", "PARTITION", "CURRENT"] + (["LEADER EPOCH"] if result.verbose else [])
        columns += ["LOG START", "LOG END", "LAG"]
        return TableSpec("", columns, rows, styles, "No active tasks (is the application running?).")
    if result.view == "members":
        rows = [
            [
                d.group.group_id,
                m.member_id,
                "classic" if m.is_classic else "streams",
                str(m.member_epoch),
                m.process_id,
                m.client_id,
                assignment_text(m.assignment).strip(),
            ]
            + (
                # The Apache --verbose layout: the group's epochs and each member's target.
                [
                    str(d.group.target_assignment_epoch),
                    str(d.group.topology_epoch),
                    assignment_text(m.target_assignment).strip() or "-",
                ]
                if result.verbose
                else []
            )
            for d in result.groups
            for m in d.group.members
        ]
        columns = ["GROUP", "MEMBER", "PROTOCOL", "EPOCH", "PROCESS", "CLIENT-ID", "ASSIGNMENTS"]
        if result.verbose:
            columns += ["TARGET EPOCH", "TOPOLOGY EPOCH", "TARGET ASSIGNMENTS"]
        return TableSpec("", columns, rows, (), "No active members.")
    rows = [
        [
            d.group.group_id,
            d.group.coordinator_label,
            d.group.state,
            str(d.group.group_epoch),
            str(d.group.target_assignment_epoch),
            str(len(d.group.members)),
            creation_time(d.group),
        ]
        for d in result.groups
    ]
    columns = ["GROUP", "COORDINATOR (ID)", "STATE", "EPOCH", "TARGET EPOCH", "MEMBERS", "CREATED"]
    return TableSpec("", columns, rows, (), "No groups.")


def _tasks_json(tasks: Tasks) -> list[dict[str, Any]]:
    return [{"subtopology": s, "partitions": list(ps)} for s, ps in tasks.entries]


def _assignment_json(a: Assignment) -> dict[str, Any]:
    return {
        "active": _tasks_json(a.active),
        "standby": _tasks_json(a.standby),
        "warmup": _tasks_json(a.warmup),
    }


def _group_json(d: DescribedStreamsGroup, view: str) -> dict[str, Any]:
    g = d.group
    doc: dict[str, Any] = {
        "group": g.group_id,
        "state": g.state,
        "coordinator": {"id": g.coordinator.node_id, "host": g.coordinator.host, "port": g.coordinator.port},
        "group_epoch": g.group_epoch,
        "target_assignment_epoch": g.target_assignment_epoch,
        "topology_epoch": g.topology_epoch,
        "subtopologies": [
            {
                "subtopology": s.subtopology_id,
                "source_topics": list(s.source_topics),
                "repartition_source_topics": list(s.repartition_source_topics),
                "repartition_sink_topics": list(s.repartition_sink_topics),
                "changelog_topics": list(s.changelog_topics),
            }
            for s in g.subtopologies
        ],
        "members": [
            {
                "member_id": m.member_id,
                "member_epoch": m.member_epoch,
                "protocol": "classic" if m.is_classic else "streams",
                "process_id": m.process_id,
                "client_id": m.client_id,
                "host": m.client_host,
                "topology_epoch": m.topology_epoch,
                "assignment": _assignment_json(m.assignment),
                "target_assignment": _assignment_json(m.target_assignment),
            }
            for m in g.members
        ],
        "creation_time_ms": g.creation_time_ms
        if g.creation_time_ms is not None and g.creation_time_ms >= 0
        else None,
    }
    if view == "offsets":
        doc["offsets"] = [offset_json(r) for r in d.rows]
    return doc


def json(result: StreamsDescribeResult) -> dict[str, Any]:
    return {
        "schema": JSON_SCHEMA,
        "view": result.view,
        "groups": [_group_json(d, result.view) for d in result.groups],
        "missing_groups": list(result.missing),
    }


def csv(result: StreamsDescribeResult) -> list[list[str]]:
    spec = table(result)
    return [[c.lower().replace(" ", "_") for c in spec.columns], *[list(r) for r in spec.rows]]
