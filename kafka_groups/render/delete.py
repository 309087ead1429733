"""``--delete-offsets`` and ``--delete`` output: the Apache layouts and richer forms."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kafka_groups.core.delete import WHOLE_TOPIC, GroupDeleteResult, OffsetDeleteBatch, OffsetDeleteResult
from kafka_groups.core.kafka_errors import KafkaErrorInfo

if TYPE_CHECKING:
    from kafka_groups.render.table import TableSpec

OFFSETS_SCHEMA = "kafka-group-tools/offset-delete/v1"
BATCH_SCHEMA = "kafka-group-tools/offset-delete-batch/v1"
GROUPS_SCHEMA = "kafka-group-tools/group-delete/v1"


def _error_json(error: KafkaErrorInfo | None) -> dict[str, Any] | None:
    if error is None:
        return None
    return {"code": error.code, "name": error.name, "message": error.message}


def _partition(partition: int) -> str:
    return "-" if partition == WHOLE_TOPIC else str(partition)


# -- --delete-offsets ---------------------------------------------------------------------
def offsets_text(result: OffsetDeleteResult) -> str:
    rows = result.rows()
    width = max([15, *(len(t) for t, _, _ in rows)])

    def line(topic: str, partition: str, status: str) -> str:
        return f"\n{topic.ljust(width)} {partition.ljust(10)} {status.ljust(15)}"

    out = [result.headline(), "\n", line("TOPIC", "PARTITION", "STATUS")]
    out += [line(t, _partition(p), "Successful" if e is None else f"Error: {e.java}") for t, p, e in rows]
    out.append("\n")
    return "".join(out)


def offsets_table(result: OffsetDeleteResult) -> TableSpec:
    from kafka_groups.render.table import TableSpec

    rows = result.rows()
    title = (
        f"Offsets deleted from group {result.group}"
        if result.top_level is None
        else f"Group {result.group}: {result.top_level.message}"
    )
    return TableSpec(
        title,
        ["TOPIC", "PARTITION", "STATUS"],
        [[t, _partition(p), "deleted" if e is None else f"{e.name}: {e.message}"] for t, p, e in rows],
        ["green" if e is None else "red" for _, _, e in rows],
        "No partitions.",
    )


def offsets_json(result: OffsetDeleteResult) -> dict[str, Any]:
    return {
        "schema": OFFSETS_SCHEMA,
        "group": result.group,
        "outcome": result.outcome.value,
        "error": _error_json(result.top_level),
        "backup": result.backup,
        "partitions": [
            {
                "topic": t,
                "partition": None if p == WHOLE_TOPIC else p,
                "deleted": e is None,
                "error": _error_json(e),
            }
            for t, p, e in result.rows()
        ],
    }


def offsets_csv(result: OffsetDeleteResult) -> list[list[str]]:
    return [["topic", "partition", "deleted", "error"]] + [
        [t, "" if p == WHOLE_TOPIC else str(p), str(e is None).lower(), "" if e is None else e.name]
        for t, p, e in result.rows()
    ]


# -- --delete-offsets --from-file (several groups) ---------------------------------------------------
def batch_text(batch: OffsetDeleteBatch) -> str:
    """Each group's block in the Apache layout, an empty line between them."""
    return "\n".join(offsets_text(result) for result in batch.results)


def batch_table(batch: OffsetDeleteBatch) -> TableSpec:
    from kafka_groups.render.table import TableSpec

    rows = [(r.group, t, p, e) for r in batch.results for t, p, e in r.rows()]
    deleted = sum(1 for *_, e in rows if e is None)
    return TableSpec(
        f"Deleted the offsets of {deleted} of {len(rows)} partition(s) in {len(batch.results)} group(s)",
        ["GROUP", "TOPIC", "PARTITION", "STATUS"],
        [[g, t, _partition(p), "deleted" if e is None else f"{e.name}: {e.message}"] for g, t, p, e in rows],
        ["green" if e is None else "red" for *_, e in rows],
        "No partitions.",
    )


def batch_json(batch: OffsetDeleteBatch) -> dict[str, Any]:
    groups = []
    for result in batch.results:
        document = offsets_json(result)
        del document["schema"], document["backup"]
        groups.append(document)
    return {
        "schema": BATCH_SCHEMA,
        "outcome": batch.outcome.value,
        "backup": batch.backup,
        "groups": groups,
        "unsent": list(batch.unsent),
    }


def batch_csv(batch: OffsetDeleteBatch) -> list[list[str]]:
    return [["group", "topic", "partition", "deleted", "error"]] + [
        [r.group, *row] for r in batch.results for row in offsets_csv(r)[1:]
    ]


# -- --delete -----------------------------------------------------------------------------
def groups_text(result: GroupDeleteResult) -> str:
    kind = result.kind
    if not result.failed:
        # The streams tool quotes the joined list as a whole: no groups print as ('').
        if kind == "streams":
            names = "'" + "', '".join(result.deleted) + "'"
        else:
            names = ", ".join(f"'{g}'" for g in result.deleted)
        out = [f"Deletion of requested {kind} groups ({names}) was successful.\n"]
    else:
        out = [f"\nError: Deletion of some {kind} groups failed:\n"]
        out += [f"* Group '{g}' could not be deleted due to: {e.java}\n" for g, e in result.failed]
        if result.deleted:
            names = ", ".join(f"'{g}'" for g in result.deleted)
            end = "." if kind == "streams" else ""
            out.append(f"\nThese {kind} groups were deleted successfully: {names}{end}\n")
    if result.internal_deleted is not None and result.deleted:
        if not result.internal_failed:
            names = "', '".join(result.internal_deleted)
            out.append(
                f"Deletion of associated internal topics of the streams groups ('{names}') was successful.\n"
            )
        else:
            out.append("Deletion of some associated internal topics failed:\n")
            out += [
                f"* Internal topics of the streams group '{g}' could not be deleted due to: {e}\n"
                for g, e in result.internal_failed
            ]
    return "".join(out)


def groups_table(result: GroupDeleteResult) -> TableSpec:
    from kafka_groups.render.table import TableSpec

    rows = [[g, "deleted"] for g in result.deleted] + [
        [g, f"{e.name}: {e.message}"] for g, e in result.failed
    ]
    styles = ["green"] * len(result.deleted) + ["red"] * len(result.failed)
    title = f"Deleted {len(result.deleted)} of {len(rows)} group(s)"
    return TableSpec(title, ["GROUP", "STATUS"], rows, styles, "No groups to delete.")


def groups_json(result: GroupDeleteResult) -> dict[str, Any]:
    return {
        "schema": GROUPS_SCHEMA,
        "outcome": result.outcome.value,
        "backup": result.backup,
        "deleted": list(result.deleted),
        "failed": [{"group": g, "error": _error_json(e)} for g, e in result.failed],
    }


def groups_csv(result: GroupDeleteResult) -> list[list[str]]:
    return [["group", "deleted", "error"]] + (
        [[g, "true", ""] for g in result.deleted] + [[g, "false", e.name] for g, e in result.failed]
    )
