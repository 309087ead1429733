"""Which renderer prints which result type, and :func:`deliver`, the one place a command's
:class:`~kafka_groups.render.outcome.Outcome` is printed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kafka_groups.render.outcome import Outcome

if TYPE_CHECKING:  # made and drawn only for a terminal (render/table.py, with Rich)
    from kafka_groups.render.table import TableSpec


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
    The failure, if any, is the runner's to print: it is the last line. When stdout cannot be
    written (closed, full, its reader gone), what goes to stderr is still printed, and then
    :class:`~kafka_groups.render.stdio.StdoutFailed` is raised for the runner to report."""
    import sys

    from kafka_groups.render import emit, say, stdout_line
    from kafka_groups.render.stdio import stdout_failed

    say(outcome.warnings)
    result = outcome.result
    lost = None
    try:
        for line in outcome.preface:
            stdout_line(line)
        if result is not None and not outcome.shown:
            emit(result, outcome.output)  # flushes
        elif outcome.preface:
            sys.stdout.flush()
    except (OSError, ValueError) as exc:
        lost = stdout_failed(exc)
        if lost is None:
            raise
    if not (outcome.before_write or outcome.streamed):
        after = renderer_for(result).after(result) if result is not None else []
        say([*after, *outcome.notices], escape=False)
    if lost is not None:
        raise lost


def renderer_for(result: object) -> Renderer:
    """The renderer of a result, found by the name of its type: finding it loads the one
    renderer module it needs and no other command's result types."""
    kind = type(result)
    make = _RENDERERS.get(f"{kind.__module__}.{kind.__qualname__}")
    if make is None:
        raise TypeError(f"no renderer for {kind.__name__}")
    return make()


_FORMS = ("text", "table", "json", "csv")


def _forms(module: str, prefix: str = "") -> Callable[[], Renderer]:
    """A renderer made of ``kafka_groups.render.<module>``'s ``<prefix>text``, ``table``,
    ``json`` and ``csv``, the module loaded when it is made."""

    def make() -> Renderer:
        # The import statement's own path (importlib.import_module's is not what
        # ``python -X importtime`` reports, which the import budget tests read).
        renders = __import__(f"kafka_groups.render.{module}", fromlist=["text"])
        return Renderer(*(getattr(renders, prefix + form) for form in _FORMS))

    return make


def _regex() -> Renderer:
    from kafka_groups.render import regex

    return Renderer(regex.text, regex.table, regex.json, regex.csv, terminal_text=regex.terminal_text)


def _describe() -> Renderer:
    from kafka_groups.render import describe, describe_json

    return Renderer(describe.text, describe.table, describe_json.json, describe.csv, describe.notices, True)


def _reset() -> Renderer:
    from kafka_groups.render import reset

    return Renderer(reset.text, reset.table, reset.json, reset.csv, reset.notices, after=reset.after)


# Each result type, by module and name, and how to make its renderer.
_RENDERERS: dict[str, Callable[[], Renderer]] = {
    "kafka_groups.core.re2j.RegexVerdict": _regex,
    "kafka_groups.core.groups.GroupListResult": _forms("groups_list"),
    "kafka_groups.core.describe.DescribeResult": _describe,
    "kafka_groups.core.topic_states.TopicListResult": _forms("topics_list"),
    "kafka_groups.core.streams.StreamsDescribeResult": _forms("streams"),
    "kafka_groups.core.health.HealthResult": _forms("health"),
    "kafka_groups.core.reset_plan.ResetResult": _reset,
    "kafka_groups.core.delete.OffsetDeleteResult": _forms("delete", "offsets_"),
    "kafka_groups.core.delete.OffsetDeleteBatch": _forms("delete", "batch_"),
    "kafka_groups.core.delete.GroupDeleteResult": _forms("delete", "groups_"),
    "kafka_groups.core.topics.TopicDescribeResult": _forms("topics", "describe_"),
    "kafka_groups.core.topics.CreateResult": _forms("topics", "create_"),
    "kafka_groups.core.topics.AlterResult": _forms("topics", "alter_"),
    "kafka_groups.core.topics.DeleteResult": _forms("topics", "delete_"),
    "kafka_groups.core.clusters.ClusterListResult": _forms("clusters", "list_"),
    "kafka_groups.core.clusters.ClusterShowResult": _forms("clusters", "show_"),
    "kafka_groups.core.clusters.ClusterCheckResult": _forms("clusters", "check_"),
}
