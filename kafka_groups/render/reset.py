"""``--reset-offsets`` output: the Apache plan table or CSV export, and richer forms."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kafka_groups.core.plan_file import export_csv
from kafka_groups.core.reset_plan import ResetResult, skipped_line, uncopied_line
from kafka_groups.escape import escape_controls

if TYPE_CHECKING:
    from kafka_groups.render.table import TableSpec

JSON_SCHEMA = "kafka-group-tools/reset-plan/v1"


def text(result: ResetResult) -> str:
    out = "".join(
        f"\nWarn: Partition {p} from topic {t} is empty. Falling back to latest known offset.\n"
        for plan in result.plan.groups
        for t, p in plan.fallbacks
    )
    if result.streams:
        out = "".join(f"\nError: {m}\n" for m in result.messages) + out
    if result.export:
        return out + export_csv(result.plan.groups, result.single_group)
    if result.streams:
        return out + _streams_table(result)
    groups = [p.group for p in result.plan.groups] + [g for g, _ in result.plan.refused]
    if not groups:
        return out + "\n"
    gw = max([15, *(len(g) for g in groups)])
    tw = max([15, *(len(t) for p in result.plan.groups for t, _ in p.offsets)])

    parts = [out, f"\n{'GROUP'.ljust(gw)} {'TOPIC'.ljust(tw)} {'PARTITION'.ljust(10)} NEW-OFFSET"]
    for plan in result.plan.groups:
        # The group's and each topic's padded cells made once, not once a row (a plan of
        # 30,000 rows is printed before the commit waits for it).
        head = f"\n{plan.group.ljust(gw)} "
        padded: dict[str, str] = {}
        for (t, p), o in plan.offsets.items():
            cell = padded.get(t)
            if cell is None:
                cell = padded[t] = f"{head}{t.ljust(tw)} "
            parts.append(f"{cell}{str(p).ljust(10)} {o}")
    parts.append("\n")
    return "".join(parts)


def _streams_table(result: ResetResult) -> str:
    """The streams tool's plan layout: fixed widths, every cell padded but the last."""

    def line(group: str, topic: str, partition: str, offset: str) -> str:
        return f"\n{group.ljust(30)} {topic.ljust(30)} {partition.ljust(10)} {offset.ljust(15)}"

    if not result.plan.groups and not result.plan.refused:
        return "\n"
    parts = [line("GROUP", "TOPIC", "PARTITION", "NEW-OFFSET")]
    for plan in result.plan.groups:
        parts.extend(line(plan.group, t, str(p), str(o)) for (t, p), o in plan.offsets.items())
    return "".join(parts) + "\n"


def notices(result: ResetResult) -> list[str]:
    warnings = [f"Warning: {w}" for plan in result.plan.groups for w in plan.warnings]
    uncopied = uncopied_line(result.plan)
    return warnings + ([uncopied] if uncopied else [])


def _rows(result: ResetResult) -> list[tuple[str, str, int, int | None, int]]:
    current = result.plan.current
    return [
        (plan.group, topic, partition, current.get(plan.group, {}).get((topic, partition)), offset)
        for plan in result.plan.groups
        for (topic, partition), offset in sorted(plan.offsets.items())
    ]


def table(result: ResetResult) -> TableSpec:
    from kafka_groups.render.table import TableSpec

    rows, styles = [], []
    for group, topic, partition, current, new in _rows(result):
        change = "" if current is None else f"{new - current:+d}"
        rows.append(
            [group, topic, str(partition), "-" if current is None else str(current), str(new), change]
        )
        styles.append("" if current == new else "bold")
    verb = "Reset" if result.executed else "Plan (dry run; add --execute to apply)"
    return TableSpec(
        f"{verb}: {len(rows)} partition(s) in {len(result.plan.groups)} group(s)",
        ["GROUP", "TOPIC", "PARTITION", "CURRENT", "NEW", "CHANGE"],
        rows,
        styles,
        "Nothing to reset.",
    )


def json(result: ResetResult) -> dict[str, Any]:
    return {
        "schema": JSON_SCHEMA,
        "executed": result.executed,
        "backup": result.backup,
        "groups": [
            {
                "group": plan.group,
                "partitions": [
                    {
                        "topic": topic,
                        "partition": partition,
                        "current_offset": result.plan.current.get(plan.group, {}).get((topic, partition)),
                        "new_offset": offset,
                        "log_start_offset": result.plan.starts.get((topic, partition)),
                        "log_end_offset": result.plan.ends.get((topic, partition)),
                    }
                    for (topic, partition), offset in sorted(plan.offsets.items())
                ],
                "warnings": list(plan.warnings),
                "fell_back_to_latest": [{"topic": t, "partition": p} for t, p in plan.fallbacks],
                "not_committed_by_source": [{"topic": t, "partition": p} for t, p in plan.uncopied],
            }
            for plan in result.plan.groups
        ],
        "refused": [{"group": g, "state": s} for g, s in result.plan.refused],
        "skipped_active": [{"group": g, "state": s} for g, s in result.plan.skipped],
        "source_group": result.plan.source,
        "failed": [{"group": g, "reason": r} for g, r in result.failed],
    }


def csv(result: ResetResult) -> list[list[str]]:
    header = ["group", "topic", "partition", "current_offset", "new_offset"]
    return [header] + [[g, t, str(p), "" if c is None else str(c), str(n)] for g, t, p, c, n in _rows(result)]


def after(result: ResetResult) -> list[str]:
    """After the plan (or what the commit did): the read-back notes, then, as the Apache tool,
    one error line per active consumer group that was not reset (streams print theirs above)."""
    skipped = skipped_line(result.plan.skipped)  # --skip-active: names groups, so escaped
    refused = () if result.streams else result.plan.refused
    return [
        *result.notes,
        *([escape_controls(skipped)] if skipped else []),
        *(
            f"Error: Assignments can only be reset if the group '{group}' is inactive, "
            f"but the current state is {state}."
            for group, state in refused
        ),
    ]
