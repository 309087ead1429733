"""``--list`` output."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kafka_groups.core.groups import GroupListResult

if TYPE_CHECKING:
    from kafka_groups.render.table import TableSpec

JSON_SCHEMA = "kafka-group-tools/group-list/v1"
_STATE_STYLE = {"Stable": "green", "Empty": "dim", "Dead": "red"}


def text(result: GroupListResult) -> str:
    """The Apache layout: bare ids, or padded columns when --type or --state is given."""
    if not (result.show_type or result.show_state):
        return "".join(f"{g.group_id}\n" for g in result.groups)
    if result.streams:
        # kafka-streams-groups: "%-{max(15, longest)}s %s"
        width = max([15, *(len(g.group_id) for g in result.groups)])
        rows = [("GROUP", "STATE"), *((g.group_id, g.state) for g in result.groups)]
        return "".join(f"{group.ljust(width)} {state}\n" for group, state in rows)
    width = max([15, *(len(g.group_id) for g in result.groups)]) + 10

    def line(group: str, group_type: str, state: str) -> str:
        out = group.ljust(width)
        if result.show_type:
            out += " " + group_type.ljust(20)
        if result.show_state:
            out += " " + state.ljust(20)
        return out + "\n"

    return line("GROUP", "TYPE", "STATE") + "".join(line(g.group_id, g.type, g.state) for g in result.groups)


def table(result: GroupListResult) -> TableSpec:
    from kafka_groups.render.table import TableSpec

    groups = sorted(result.groups, key=lambda g: g.group_id)  # a person reads a sorted list
    return TableSpec(
        title=f"{len(result.groups)} {'streams' if result.streams else 'consumer'} group(s)",
        columns=("GROUP", "TYPE", "STATE"),
        rows=[(g.group_id, g.type, g.state) for g in groups],
        row_styles=[_STATE_STYLE.get(g.state, "") for g in groups],
        empty_message="No consumer groups.",
    )


def json(result: GroupListResult) -> dict[str, Any]:
    return {
        "schema": JSON_SCHEMA,
        "groups": [{"group": g.group_id, "type": g.type, "state": g.state} for g in result.groups],
    }


def csv(result: GroupListResult) -> list[list[str]]:
    return [["group", "type", "state"], *([g.group_id, g.type, g.state] for g in result.groups)]
