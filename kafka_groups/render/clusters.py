"""``clusters list``, ``clusters show`` and ``clusters check`` output (secrets arrive masked)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kafka_groups.core.clusters import ClusterCheckResult, ClusterListResult, ClusterShowResult
    from kafka_groups.render.table import TableSpec

LIST_SCHEMA = "kafka-group-tools/cluster-list/v1"
SHOW_SCHEMA = "kafka-group-tools/cluster/v1"
CHECK_SCHEMA = "kafka-group-tools/cluster-check/v1"


def _columns(rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns, two spaces apart, the last one unpadded."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=False))
        + ("  " if len(row) > 1 else "")
        + row[-1]
        + "\n"
        for row in rows
    )


def _timeout(ms: int | None) -> str:
    return "-" if ms is None else str(ms)


# -- list ----------------------------------------------------------------------------------
_LIST_COLUMNS = ("NAME", "BOOTSTRAP", "PROTECTED", "TIMEOUT-MS", "PROPERTIES")


def _list_rows(result: ClusterListResult) -> list[tuple[str, ...]]:
    return [
        (
            f"{r.name}{' *' if r.current else ''}",
            r.bootstrap,
            "yes" if r.protected else "no",
            _timeout(r.timeout_ms),
            r.config,
        )
        for r in result.rows
    ]


def list_text(result: ClusterListResult) -> str:
    if not result.rows:
        return ""
    return _columns([_LIST_COLUMNS, *_list_rows(result)])


def list_table(result: ClusterListResult) -> TableSpec:
    from kafka_groups.render.table import TableSpec

    return TableSpec(
        title=f"{len(result.rows)} cluster(s) in {result.path} (* KAFKA_TOOLS_CLUSTER)",
        columns=_LIST_COLUMNS,
        rows=_list_rows(result),
        row_styles=["bold red" if r.protected else "" for r in result.rows],
        empty_message=f"No clusters in {result.path}.",
    )


def list_json(result: ClusterListResult) -> dict[str, Any]:
    return {
        "schema": LIST_SCHEMA,
        "file": result.path,
        "clusters": [
            {
                "name": r.name,
                "bootstrap_servers": r.bootstrap,
                "protected": r.protected,
                "timeout_ms": r.timeout_ms,
                "properties": r.config,
                "current": r.current,
            }
            for r in result.rows
        ],
    }


def list_csv(result: ClusterListResult) -> list[list[str]]:
    header = ["name", "bootstrap_servers", "protected", "timeout_ms", "properties", "current"]
    return [
        header,
        *(
            [
                r.name,
                r.bootstrap,
                str(r.protected).lower(),
                _timeout(r.timeout_ms),
                r.config,
                str(r.current).lower(),
            ]
            for r in result.rows
        ),
    ]


# -- show ----------------------------------------------------------------------------------
def _show_pairs(result: ClusterShowResult) -> list[tuple[str, str]]:
    pairs = [
        ("name", result.name),
        ("file", result.path),
        ("bootstrap-server", result.bootstrap),
        ("protected", "yes" if result.protected else "no"),
        ("timeout", "-" if result.timeout_ms is None else f"{result.timeout_ms} ms"),
    ]
    if result.command_config:
        pairs.append(("command-config", result.command_config))
    return pairs


def show_text(result: ClusterShowResult) -> str:
    lines = [f"{k}: {v}" for k, v in _show_pairs(result)]
    if result.properties:
        lines.append("properties:")
        lines += [f"  {p.key} = {p.value}  ({p.source})" for p in result.properties]
    lines += [f"problem: {p}" for p in result.problems]
    return "\n".join(lines) + "\n"


def show_table(result: ClusterShowResult) -> TableSpec:
    from kafka_groups.render.table import TableSpec

    return TableSpec(
        title=f"Cluster '{result.name}' ({result.path})",
        columns=("SETTING", "VALUE", "FROM"),
        rows=[
            *((k, v, "") for k, v in _show_pairs(result)[1:]),
            *((p.key, p.value, p.source) for p in result.properties),
            *(("problem", p, "") for p in result.problems),
        ],
    )


def show_json(result: ClusterShowResult) -> dict[str, Any]:
    return {
        "schema": SHOW_SCHEMA,
        "name": result.name,
        "file": result.path,
        "bootstrap_servers": result.bootstrap,
        "protected": result.protected,
        "timeout_ms": result.timeout_ms,
        "command_config": result.command_config,
        "properties": [{"key": p.key, "value": p.value, "from": p.source} for p in result.properties],
        "problems": list(result.problems),
    }


def show_csv(result: ClusterShowResult) -> list[list[str]]:
    return [
        ["setting", "value", "from"],
        *([k, v, ""] for k, v in _show_pairs(result)),
        *([p.key, p.value, p.source] for p in result.properties),
    ]


# -- check ---------------------------------------------------------------------------------
_CHECK_COLUMNS = ("NAME", "BOOTSTRAP", "CLUSTER-ID", "BROKERS", "STATUS")


def _check_rows(result: ClusterCheckResult) -> list[tuple[str, ...]]:
    return [
        (
            r.name,
            r.bootstrap,
            r.cluster_id or "-",
            "-" if r.brokers is None else str(r.brokers),
            "ok" if r.error is None else r.error,
        )
        for r in result.rows
    ]


def check_text(result: ClusterCheckResult) -> str:
    return _columns([_CHECK_COLUMNS, *_check_rows(result)])


def check_table(result: ClusterCheckResult) -> TableSpec:
    from kafka_groups.render.table import TableSpec

    return TableSpec(
        title=f"{len(result.rows) - len(result.failed)} of {len(result.rows)} cluster(s) answered",
        columns=_CHECK_COLUMNS,
        rows=_check_rows(result),
        row_styles=["" if r.error is None else "red" for r in result.rows],
    )


def check_json(result: ClusterCheckResult) -> dict[str, Any]:
    return {
        "schema": CHECK_SCHEMA,
        "clusters": [
            {
                "name": r.name,
                "bootstrap_servers": r.bootstrap,
                "cluster_id": r.cluster_id,
                "brokers": r.brokers,
                "error": r.error,
            }
            for r in result.rows
        ],
    }


def check_csv(result: ClusterCheckResult) -> list[list[str]]:
    return [
        ["name", "bootstrap_servers", "cluster_id", "brokers", "error"],
        *(
            [
                r.name,
                r.bootstrap,
                r.cluster_id or "",
                "" if r.brokers is None else str(r.brokers),
                r.error or "",
            ]
            for r in result.rows
        ),
    ]
