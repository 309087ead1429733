"""Renderers: the only code that prints results.

Every command returns a frozen result object; :func:`emit` prints it in the chosen format:
``text`` (the Apache tool's layout, the default when stdout is not a terminal), ``table``
(Rich, the default on a terminal), ``json`` (versioned, documented in docs/json.md) or
``csv``. Rich is imported only for ``table``.
"""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Iterable
from typing import TextIO

from kafka_groups.escape import escape_controls


class OutputFormat(str, enum.Enum):
    AUTO = "auto"
    TEXT = "text"
    TABLE = "table"
    JSON = "json"
    CSV = "csv"


OUTPUT_ENV = "KAFKA_TOOLS_OUTPUT"  # the default of --output, for a shell or a CI job


def _env_format() -> OutputFormat | None:
    """``KAFKA_TOOLS_OUTPUT`` as ``--output`` takes it; ``auto`` when unset or empty; None when
    it names no format."""
    raw = os.environ.get(OUTPUT_ENV, "")
    try:
        return OutputFormat(raw.lower()) if raw else OutputFormat.AUTO
    except ValueError:
        return None


def check_output_env() -> None:
    """Refuse a ``KAFKA_TOOLS_OUTPUT`` that names no format; the entry point asks before
    anything is contacted (a bad value is never taken for the default)."""
    if _env_format() is None:
        from kafka_groups.errors import UsageError

        choices = ", ".join(f.value for f in OutputFormat)
        raise UsageError(
            f"{OUTPUT_ENV}={os.environ[OUTPUT_ENV]!r} is not an output format "
            f"(choose from {choices}, or leave it empty)"
        )


def output_default() -> OutputFormat:
    """The format ``KAFKA_TOOLS_OUTPUT`` sets (``auto``: none)."""
    return _env_format() or OutputFormat.AUTO


def resolve_format(requested: OutputFormat, stream: TextIO | None) -> OutputFormat:
    """``auto`` means ``KAFKA_TOOLS_OUTPUT``'s format when it sets one, else Rich tables on a
    terminal and the Apache text layout otherwise (a closed stdout is no terminal)."""
    if requested is not OutputFormat.AUTO:
        return requested
    default = output_default()
    if default is not OutputFormat.AUTO:
        return default
    return OutputFormat.TABLE if stream is not None and stream.isatty() else OutputFormat.TEXT


def wants_detail(requested: OutputFormat) -> bool:
    """Whether the output shows more than the Apache text layout (log bounds, current offsets),
    so commands fetch that data only when it will be shown."""
    return resolve_format(requested, sys.stdout) is not OutputFormat.TEXT


def say(lines: Iterable[str], escape: bool = True) -> None:
    """Lines on stderr that must reach the user now (a warning before the cluster is contacted;
    a backup and its undo before anything is sent), each flushed as it is printed. A stderr that
    cannot be written drops them (render/stdio.py); ``render.stdio.stderr_failure`` says so."""
    for line in lines:
        print(escape_controls(line, keep_newlines=True) if escape else line, file=sys.stderr, flush=True)


def ask(question: str) -> str | None:
    """Ask the operator on the terminal: the question on stderr, one line read from stdin
    (None at its end)."""
    print(escape_controls(question), end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline() if sys.stdin is not None else ""
    return answer.rstrip("\r\n") if answer else None


def stderr_line(text: str) -> None:
    """One line on stderr, as given (a warning or note whose wording the tests pin)."""
    print(text, file=sys.stderr, flush=True)


def stdout_line(text: str) -> None:
    """One line on stdout before the result (the Apache tools print some warnings there)."""
    print(text)


def emit(result: object, requested: OutputFormat, stream: TextIO | None = None) -> None:
    """Print ``result`` in the requested format."""
    from kafka_groups.render import registry

    out = stream if stream is not None else sys.stdout
    fmt = resolve_format(requested, out)
    renderer = registry.renderer_for(result)
    if fmt in (OutputFormat.TEXT, OutputFormat.TABLE):
        # As the Apache tool: each notice on stderr, after an empty line in its layout.
        # In one write: a describe of many groups has a notice for each empty one.
        gap = "\n" if fmt is OutputFormat.TEXT and renderer.notice_gap else ""
        notices = "".join(
            f"{gap}{escape_controls(n, keep_newlines=True)}\n" for n in renderer.notices(result)
        )
        if notices:
            sys.stderr.write(notices)
    if fmt is OutputFormat.TEXT:
        out.write(renderer.text(result))
    elif fmt is OutputFormat.JSON:
        import json

        json.dump(renderer.json(result), out, indent=2, sort_keys=False)
        out.write("\n")
    elif fmt is OutputFormat.CSV:
        import csv

        writer = csv.writer(out, lineterminator="\n")
        writer.writerows(renderer.csv(result))
    elif renderer.terminal_text is not None:
        out.write(renderer.terminal_text(result))
    else:
        from kafka_groups.render.table import print_table

        print_table(renderer.table(result), out)
    out.flush()
