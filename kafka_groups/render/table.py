"""Rich tables for a person at a terminal (``NO_COLOR`` is honoured by Rich)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from kafka_groups.escape import escape_controls


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


def print_table(spec: TableSpec, stream: TextIO, width: int | None = None) -> None:
    # On a terminal Rich fits the terminal; elsewhere (a forced table into a pipe) nothing is
    # cut: the table gets the width it needs.
    if width is None and not stream.isatty():
        width = 100_000
    console = Console(file=stream, width=width, highlight=False, soft_wrap=False)
    if spec.before is not None and spec.before.rows:
        _print(console, spec.before)
        if not spec.rows:  # the rows above say it all (kafka-topics --topics-with-overrides)
            return
    _print(console, spec)


def _print(console: Console, spec: TableSpec) -> None:
    if not spec.rows and spec.empty_message:
        console.print(_plain(spec.empty_message))
        return
    table = Table(title=_plain(spec.title) if spec.title else None, box=box.SIMPLE_HEAD, title_justify="left")
    # Headers keep their words whole when they fit side by side; long cells fold instead, so
    # the table fits the terminal (columns never drop out).
    whole = sum(len(name) + 3 for name in spec.columns) <= console.width
    for name in spec.columns:
        table.add_column(name, overflow="fold", min_width=len(name) if whole else None)
    for i, row in enumerate(spec.rows):
        style = spec.row_styles[i] if i < len(spec.row_styles) else None
        table.add_row(*(_plain(cell) for cell in row), style=style or None)
    console.print(table)


def _plain(text: str) -> Text:
    # Names come from the broker and from files: shown as they are, never read as Rich markup
    # ("[red]"), and with control characters escaped so none acts on the terminal.
    return Text(escape_controls(text))
