"""``--describe`` output: the Apache layouts of the offsets, members and state views, the Rich
tables and CSV (the JSON document is describe_json.py)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from kafka_groups.core.describe import (
    MISSING,
    DescribedGroup,
    DescribeResult,
    GroupDescription,
    LagTimes,
    Member,
    OffsetRow,
    View,
    assignment_string,
    state_notice,
)
from kafka_groups.core.lagtime import human_duration, lag_time_ms
from kafka_groups.core.start_time import GroupStart, choose_start
from kafka_groups.core.times import iso_utc_ms

if TYPE_CHECKING:
    from kafka_groups.render.table import TableSpec

# --state --verbose: KIP-1282 appends GROUP-CREATION-TIME after #MEMBERS, which then needs a width.
MEMBERS_WIDTH = 10


def _s(value: object | None) -> str:
    return MISSING if value is None else str(value)


def _pad(value: str, width: int) -> str:
    return value.ljust(width)


def creation_time(desc: GroupDescription) -> str:
    """KIP-1282 GROUP-CREATION-TIME: ISO-8601 UTC with milliseconds, ``-`` when unknown."""
    return iso_utc_ms(desc.creation_time_ms)


def group_start(group: DescribedGroup) -> GroupStart | None:
    """The group's start for the richer views: the broker's creation time, else the start
    kafka-group-tools recorded (the text layout shows the broker's value only, as KIP-1282)."""
    return choose_start(group.description.creation_time_ms, group.recorded_start_ms)


def _start_cell(group: DescribedGroup) -> str:
    start = group_start(group)
    return MISSING if start is None else f"{iso_utc_ms(start.time_ms)} ({start.source})"


def _should_print(group: DescribedGroup, rows: int) -> bool:
    return group.description.state != "Dead" and rows > 0


# -- offsets ----------------------------------------------------------------------------
def lag_ms(lag_times: LagTimes | None, r: OffsetRow) -> int | None:
    """--lag-time: now minus the timestamp of the row's next record (None: no lag or unknown)."""
    if lag_times is None:
        return None
    return lag_time_ms(lag_times.timestamps.get((r.group, r.topic, r.partition)), lag_times.now_ms)


def _offset_cells(
    rows: Iterable[OffsetRow], verbose: bool, lag_times: LagTimes | None
) -> Iterator[tuple[str, ...]]:
    """The text cells of each row, made as they are laid out (a describe of many groups prints
    hundreds of thousands of rows, and this is most of its own time): the rows hold offsets or
    None (offset_rows leaves no sentinel), so the lag is their difference where both are known."""
    for r in rows:
        group_id, topic, partition, epoch, current, end, consumer, host, client, _start = r
        lag = MISSING if current is None or end is None else str(end - current)
        row: tuple[str, ...] = (
            group_id,
            topic,
            str(partition),
            MISSING if current is None else str(current),
            MISSING if end is None else str(end),
            lag,
            MISSING if consumer is None else consumer,
            MISSING if host is None else host,
            MISSING if client is None else client,
        )
        if verbose:  # LEADER-EPOCH after PARTITION
            row = (*row[:3], MISSING if epoch is None else str(epoch), *row[3:])
        if lag_times is not None:  # --lag-time (ours): LAG-TIME-MS after CLIENT-ID
            row = (*row, _s(lag_ms(lag_times, r)))
        yield row


def _width(values: set[str | None]) -> int:
    """A column's width: 15, or its longest cell (``-`` for a missing value); given the
    column's distinct values (a few, where the rows are thousands)."""
    return max([15, *(len(MISSING) if v is None else len(v) for v in values)])


def _offsets_text(group: DescribedGroup, verbose: bool, lag_times: LagTimes | None = None) -> str:
    if not verbose and lag_times is None:
        return _plain_offsets_text(group.rows)
    return _offsets_text_of(group.rows, verbose, lag_times)


def _plain_offsets_text(rows: tuple[OffsetRow, ...]) -> str:
    """The Apache layout without --verbose or --lag-time: what a describe of many groups prints
    for each of thousands of groups. The same text as :func:`_offsets_text_of` (a unit test
    holds them equal) for less work per group and row: the formats for a group's widths made
    once and kept, the group's cell written into them, the numbers given to ``%s`` as they are
    (an int's digits, as ``str``), and the rows of a group no member owns (a group at rest)
    made in one pass; a row with an offset unknown takes the general path."""
    groups = {r.group for r in rows}
    if len(groups) != 1:  # (the rows of one group, as offset_rows makes them)
        return _offsets_text_of(rows, False, None)
    (group,) = groups
    owners = {(r.consumer_id, r.host, r.client_id) for r in rows}
    consumer = _width({who for who, _, _ in owners})
    host = _width({where for _, where, _ in owners})
    topic = _width({r.topic for r in rows})
    header, general, numbers = _formats(max(15, len(group)), topic, consumer, host)
    cell = f"\n{group:<15} ".replace("%", "%%")
    idle = cell + numbers + f"{MISSING:<{consumer}} {MISSING:<{host}} {MISSING}"
    known = None not in {r.current_offset for r in rows} and None not in {r.log_end_offset for r in rows}
    if known and owners == {(None, None, None)}:
        body = [idle % (r[1], r[2], r[4], r[5], r[5] - r[4]) for r in rows]  # type: ignore[operator]
        return header + "".join(body) + "\n"
    owned = cell + numbers + f"%-{consumer}s %-{host}s %s"
    lines = [header]
    add = lines.append
    for r in rows:
        _group, name, partition, _epoch, current, end, who, where, client, _start = r
        if current is None or end is None:
            add(general % next(_offset_cells((r,), False, None)))
        elif who is None and where is None and client is None:
            add(idle % (name, partition, current, end, end - current))
        else:
            add(owned % (name, partition, current, end, end - current, _s(who), _s(where), _s(client)))
    lines.append("\n")
    return "".join(lines)


_FORMATS: dict[tuple[int, int, int, int], tuple[str, str, str]] = {}


def _formats(group: int, topic: int, consumer: int, host: int) -> tuple[str, str, str]:
    """For a group's column widths: its header line, the format of a whole row of cells, and
    the format of a row's topic, partition and three numbers."""
    known = _FORMATS.get((group, topic, consumer, host))
    if known is None:
        widths = [group, topic, 10, 15, 15, 15, consumer, host]
        general = "\n" + "".join(f"%-{w}s " for w in widths) + "%s"
        cells = ("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG")
        header = general % (*cells, "CONSUMER-ID", "HOST", "CLIENT-ID")
        known = (header, general, f"%-{topic}s %-10s %-15s %-15s %-15s ")
        _FORMATS[(group, topic, consumer, host)] = known
    return known


def _offsets_text_of(rows: tuple[OffsetRow, ...], verbose: bool, lag_times: LagTimes | None) -> str:
    # --lag-time (ours): LAG-TIME-MS after CLIENT-ID, which then needs a width.
    extra = [_width({r.client_id for r in rows})] if lag_times is not None else []
    consumer, host = _width({r.consumer_id for r in rows}), _width({r.host for r in rows})
    widths = [_width({r.group for r in rows}), _width({r.topic for r in rows}), 10] + (
        [15] if verbose else []
    )
    widths += [15, 15, 15, consumer, host, *extra]
    # Every cell left-aligned in its width but the last, as one format for all the rows.
    template = "\n" + "".join(f"%-{w}s " for w in widths) + "%s"

    header = ["GROUP", "TOPIC", "PARTITION"] + (["LEADER-EPOCH"] if verbose else [])
    header += ["CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"]
    header += ["LAG-TIME-MS"] if lag_times is not None else []
    lines = [template % c for c in _offset_cells(rows, verbose, lag_times)]
    return template % tuple(header) + "".join(lines) + "\n"


# -- members ----------------------------------------------------------------------------
def _members_text(group: DescribedGroup, verbose: bool, printable: bool) -> str:
    desc = group.description
    members = desc.members
    gw, cw, iw, hw, lw, ca, ta = 15, 15, 17, 15, 15, 20, 20
    with_instance = False
    has_classic = has_consumer = False
    if printable:
        for m in members:
            gw = max(gw, len(desc.group_id))
            cw = max(cw, len(m.member_id))
            iw = max(iw, len(m.instance_id or ""))
            hw = max(hw, len(m.host))
            lw = max(lw, len(m.client_id))
            with_instance = with_instance or bool(m.instance_id)
            ca = max(ca, len(assignment_string(m.assignment)))
            ta = max(ta, len(assignment_string(m.target_assignment)))
            has_classic = has_classic or m.upgraded is False
            has_consumer = has_consumer or m.upgraded is True
    migrating = has_classic and has_consumer

    def base(cells: list[str]) -> str:
        widths = [gw, cw] + ([iw] if with_instance else []) + [hw, lw, 15]
        return " ".join(_pad(v, w) for v, w in zip(cells, widths, strict=True)) + " "

    def extra(cells: list[str]) -> str:
        text = f"{_pad(cells[0], 15)} {_pad(cells[1], ca)} {_pad(cells[2], 15)} {_pad(cells[3], ta)}"
        return text + (f" {cells[4]}" if migrating else "")

    header = ["GROUP", "CONSUMER-ID"] + (["GROUP-INSTANCE-ID"] if with_instance else [])
    out = "\n" + base([*header, "HOST", "CLIENT-ID", "#PARTITIONS"])
    if verbose:
        out += extra(["CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT", "UPGRADED"])
    out += "\n"
    for m in members:
        cells = [desc.group_id, m.member_id] + ([m.instance_id or ""] if with_instance else [])
        out += base([*cells, m.host, m.client_id, str(len(m.assignment))])
        if verbose:
            out += extra(
                [
                    _s(m.member_epoch),
                    assignment_string(m.assignment),
                    _s(desc.target_assignment_epoch),
                    assignment_string(m.target_assignment),
                    _s(m.upgraded).lower() if m.upgraded is not None else MISSING,
                ]
            )
        out += "\n"
    return out


# -- state ------------------------------------------------------------------------------
def _state_text(group: DescribedGroup, verbose: bool) -> str:
    desc = group.description
    coordinator = desc.coordinator.label
    gw = max(15, len(desc.group_id))
    kw = max(25, len(coordinator))
    assignor = desc.assignor or MISSING
    if verbose:
        # The Apache layout plus KIP-1282's GROUP-CREATION-TIME, the last column.
        widths = [gw, kw, 20, 20, 15, 25, MEMBERS_WIDTH]
        header = ["GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "GROUP-EPOCH"]
        header += ["TARGET-ASSIGNMENT-EPOCH", "#MEMBERS", "GROUP-CREATION-TIME"]
        values = [desc.group_id, coordinator, assignor, desc.state, _s(desc.group_epoch)]
        values += [_s(desc.target_assignment_epoch), str(len(desc.members)), creation_time(desc)]
    else:
        widths = [gw, kw, 20, 20]
        header = ["GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS"]
        values = [desc.group_id, coordinator, assignor, desc.state, str(len(desc.members))]

    def line(cells: list[str]) -> str:
        return "\n" + " ".join(_pad(v, w) for v, w in zip(cells[:-1], widths, strict=True)) + " " + cells[-1]

    return line(header) + line(values) + "\n"


def text(result: DescribeResult) -> str:
    out = []
    for group in result.groups:
        if result.view is View.OFFSETS:
            if _should_print(group, len(group.rows)):
                out.append(_offsets_text(group, result.verbose, result.lag_times))
        elif result.view is View.MEMBERS:
            printable = _should_print(group, len(group.description.members))
            out.append(_members_text(group, result.verbose, printable))
        elif _should_print(group, 1):
            out.append(_state_text(group, result.verbose))
    return "".join(out)


# -- table, JSON, CSV -------------------------------------------------------------------
def _row_cells(r: OffsetRow) -> list[str]:
    return [
        r.group,
        r.topic,
        str(r.partition),
        _s(r.current_offset),
        _s(r.log_end_offset),
        _s(r.lag),
        _s(r.consumer_id),
        _s(r.host),
        _s(r.client_id),
    ]


def _member_cells(desc: GroupDescription, m: Member) -> list[str]:
    return [
        desc.group_id,
        m.member_id,
        m.instance_id or "",
        m.host,
        m.client_id,
        str(len(m.assignment)),
        assignment_string(m.assignment),
    ]


def _member_verbose_cells(desc: GroupDescription, m: Member) -> list[str]:
    return [
        _s(m.member_epoch),
        _s(desc.target_assignment_epoch),
        assignment_string(m.target_assignment),
        _s(m.upgraded).lower() if m.upgraded is not None else MISSING,
    ]


def table(result: DescribeResult) -> TableSpec:
    from kafka_groups.render.table import TableSpec

    if result.view is View.OFFSETS:
        rows, styles = [], []
        marked = 0
        for group in result.groups:
            for r in group.rows:
                cells = _row_cells(r)
                risk = group.risks.get((r.topic, r.partition), "")
                marked += bool(risk)
                if r.out_of_range:
                    cells[3] += " (out of range)"
                elif risk.startswith("at-risk"):  # the loss radar's rule (commands/health.risk_marks)
                    cells[5] += " (at risk)"
                if result.verbose:  # as the Apache layout: the leader epoch after the partition
                    cells.insert(3, _s(r.leader_epoch))
                if result.lag_times is not None:  # --lag-time: after LAG
                    cells.insert(-3, human_duration(lag_ms(result.lag_times, r)))
                rows.append(cells)
                styles.append(
                    "red"
                    if r.out_of_range or risk.startswith("lost")
                    else ("magenta" if risk else ("yellow" if (r.lag or 0) > 0 else ""))
                )
        columns = ["GROUP", "TOPIC", "PARTITION"] + (["LEADER EPOCH"] if result.verbose else [])
        columns += ["CURRENT", "LOG END", "LAG"] + (["LAG TIME"] if result.lag_times is not None else [])
        columns += ["CONSUMER-ID", "HOST", "CLIENT-ID"]
        title = f"{marked} partition(s) lost or at risk: --describe --health says why" if marked else ""
        return TableSpec(title, columns, rows, styles, "No committed offsets or assignments.")
    if result.view is View.MEMBERS:
        members = [(g.description, m) for g in result.groups for m in g.description.members]
        # INSTANCE-ID only when a member has one, as the Apache layout's GROUP-INSTANCE-ID.
        with_instance = any(m.instance_id for _, m in members)
        rows = []
        for desc, m in members:
            cells = _member_cells(desc, m)
            if not with_instance:
                del cells[2]
            rows.append(cells + (_member_verbose_cells(desc, m) if result.verbose else []))
        columns = ["GROUP", "CONSUMER-ID"] + (["INSTANCE-ID"] if with_instance else [])
        columns += ["HOST", "CLIENT-ID", "PARTITIONS", "ASSIGNMENT"]
        if result.verbose:  # the Apache --verbose columns
            columns += ["EPOCH", "TARGET EPOCH", "TARGET ASSIGNMENT", "UPGRADED"]
        return TableSpec("", columns, rows, (), "No active members.")
    rows = []
    for g in result.groups:
        d = g.description
        rows.append(
            [
                d.group_id,
                d.coordinator.label,
                d.assignor or MISSING,
                d.state,
                d.type,
                _s(d.group_epoch),
                _s(d.target_assignment_epoch),
                str(len(d.members)),
                _start_cell(g),
            ]
        )
    columns = ["GROUP", "COORDINATOR (ID)", "STRATEGY", "STATE", "TYPE", "EPOCH"]
    columns += ["TARGET EPOCH", "MEMBERS", "CREATED"]
    return TableSpec("", columns, rows, (), "No groups.")


def csv(result: DescribeResult) -> list[list[str]]:
    if result.view is View.OFFSETS:
        header = ["group", "topic", "partition", "current_offset", "log_end_offset", "lag"]
        header += ["consumer_id", "host", "client_id"]
        rows = [[c if c != MISSING else "" for c in _row_cells(r)] for g in result.groups for r in g.rows]
        return [header, *rows]
    if result.view is View.MEMBERS:
        header = [
            "group",
            "consumer_id",
            "group_instance_id",
            "host",
            "client_id",
            "partitions",
            "assignment",
        ]
        return [
            header,
            *(_member_cells(g.description, m) for g in result.groups for m in g.description.members),
        ]
    header = ["group", "coordinator_id", "coordinator", "assignment_strategy", "state", "type", "members"]
    rows = [
        [
            g.description.group_id,
            str(g.description.coordinator.node_id),
            f"{g.description.coordinator.host}:{g.description.coordinator.port}",
            g.description.assignor,
            g.description.state,
            g.description.type,
            str(len(g.description.members)),
        ]
        for g in result.groups
    ]
    return [header, *rows]


def notices(result: DescribeResult) -> list[str]:
    """Per-group state notices for stderr (no active members, rebalancing), in group order."""
    found = (state_notice(g.group_id, g.description.state) for g in result.groups)
    return [n for n in found if n]
