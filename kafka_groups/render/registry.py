"""Which renderer prints which result type."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kafka_groups.render import describe, groups_list, topics_list


@dataclass(frozen=True)
class TableSpec:
    """A table to draw with Rich: a title, column names, rows of cells, row styles."""

    title: str
    columns: Sequence[str]
    rows: Sequence[Sequence[str]]
    row_styles: Sequence[str] = ()
    empty_message: str = ""
    # A table drawn first (kafka-topics --describe: one row per topic above its partitions).
    before: TableSpec | None = None


@dataclass(frozen=True)
class Renderer:
    text: Callable[[Any], str]
    table: Callable[[Any], TableSpec]
    json: Callable[[Any], dict[str, Any]]
    csv: Callable[[Any], list[list[str]]]
    notices: Callable[[Any], list[str]] = lambda _result: []
    notice_gap: bool = False  # an empty line before each notice in the text layout (as Apache)


def renderer_for(result: object) -> Renderer:
    from kafka_groups.core.groups import GroupListResult

    if isinstance(result, GroupListResult):
        return Renderer(groups_list.text, groups_list.table, groups_list.json, groups_list.csv)
    from kafka_groups.core.describe import DescribeResult
    from kafka_groups.core.topics import TopicListResult

    if isinstance(result, DescribeResult):
        return Renderer(describe.text, describe.table, describe.json, describe.csv, describe.notices, True)

    if isinstance(result, TopicListResult):
        return Renderer(topics_list.text, topics_list.table, topics_list.json, topics_list.csv)
    from kafka_groups.core.streams import StreamsDescribeResult

    if isinstance(result, StreamsDescribeResult):
        from kafka_groups.render import streams

        return Renderer(streams.text, streams.table, streams.json, streams.csv)
    from kafka_groups.core.health import HealthResult

    if isinstance(result, HealthResult):
        from kafka_groups.render import health

        return Renderer(health.text, health.table, health.json, health.csv)
    from kafka_groups.core.reset_plan import ResetResult

    if isinstance(result, ResetResult):
        from kafka_groups.render import reset

        return Renderer(reset.text, reset.table, reset.json, reset.csv, reset.notices)
    from kafka_groups.core.delete import GroupDeleteResult, OffsetDeleteResult

    if isinstance(result, OffsetDeleteResult):
        from kafka_groups.render import delete

        return Renderer(delete.offsets_text, delete.offsets_table, delete.offsets_json, delete.offsets_csv)
    if isinstance(result, GroupDeleteResult):
        from kafka_groups.render import delete

        return Renderer(delete.groups_text, delete.groups_table, delete.groups_json, delete.groups_csv)
    from kafka_groups.core.topics import AlterResult, CreateResult, DeleteResult, TopicDescribeResult

    kinds = {
        TopicDescribeResult: "describe",
        CreateResult: "create",
        AlterResult: "alter",
        DeleteResult: "delete",
    }
    if type(result) in kinds:
        from kafka_groups.render import topics

        kind = kinds[type(result)]
        return Renderer(*(getattr(topics, f"{kind}_{form}") for form in ("text", "table", "json", "csv")))
    raise TypeError(f"no renderer for {type(result).__name__}")
