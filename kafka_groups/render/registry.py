"""Which renderer prints which result type, and :func:`deliver`, the one place a command's
:class:`~kafka_groups.render.outcome.Outcome` is printed."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kafka_groups.render.outcome import Outcome


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
    # Lines on stderr after the rows, as worded, in every format (the reset's refusals).
    after: Callable[[Any], list[str]] = lambda _result: []
    # On a terminal, this text instead of a Rich table (a one-line verdict).
    terminal_text: Callable[[Any], str] | None = None


def deliver(outcome: Outcome) -> None:
    """Print a command's outcome: the warnings (stderr), the stdout preface, the rows (unless
    they were shown before a write), the renderer's closing lines and the notices (stderr).
    The failure, if any, is the runner's to print: it is the last line."""
    from kafka_groups.render import emit, say, stdout_line

    say(outcome.warnings)
    for line in outcome.preface:
        stdout_line(line)
    result = outcome.result
    if result is not None and not outcome.shown:
        emit(result, outcome.output)
    if outcome.before_write:
        return
    after = renderer_for(result).after(result) if result is not None else []
    say([*after, *outcome.notices], escape=False)


def renderer_for(result: object) -> Renderer:
    # A verdict of --validate-regex can exist only once its module is loaded: checked first,
    # without loading the result modules of the commands that reach the cluster.
    re2j = sys.modules.get("kafka_groups.core.re2j")
    if re2j is not None and isinstance(result, re2j.RegexVerdict):
        from kafka_groups.render import regex

        return Renderer(regex.text, regex.table, regex.json, regex.csv, terminal_text=regex.terminal_text)
    from kafka_groups.core.groups import GroupListResult

    if isinstance(result, GroupListResult):
        from kafka_groups.render import groups_list

        return Renderer(groups_list.text, groups_list.table, groups_list.json, groups_list.csv)
    from kafka_groups.core.describe import DescribeResult
    from kafka_groups.core.topics import TopicListResult

    if isinstance(result, DescribeResult):
        from kafka_groups.render import describe, describe_json

        return Renderer(
            describe.text, describe.table, describe_json.json, describe.csv, describe.notices, True
        )

    if isinstance(result, TopicListResult):
        from kafka_groups.render import topics_list

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

        return Renderer(reset.text, reset.table, reset.json, reset.csv, reset.notices, after=reset.after)
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
