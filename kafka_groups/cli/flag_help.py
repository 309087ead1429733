"""``--help`` for the Apache flag form: the Apache options grouped by the action they serve,
one example per action, and our additions named as ours.

Every option of the Apache help text is here with at least what that text says (it is the
floor); the subcommand form keeps Typer's help (``kafka-consumer-groups list --help``).
Pure data and text: no Typer, no Rich, so ``--help`` starts as fast as the flag form. This
module lays the help out; the texts are in :mod:`kafka_groups.cli.help_groups` and
:mod:`kafka_groups.cli.help_topics`.
"""

from __future__ import annotations

import os
import textwrap

from kafka_groups.cli.help_groups import CONSUMER_GROUPS, STREAMS_GROUPS
from kafka_groups.cli.help_model import Entry
from kafka_groups.cli.help_topics import TOPICS

TOOLS = {
    "kafka-consumer-groups": CONSUMER_GROUPS,
    "kafka-streams-groups": STREAMS_GROUPS,
    "kafka-topics": TOPICS,
}

_FLAG_WIDTH = 30


def _entries(entries: tuple[Entry, ...], width: int) -> list[str]:
    out = []
    text_width = max(width - _FLAG_WIDTH - 4, 20)
    for flag, description in entries:
        lines = textwrap.wrap(description, text_width)
        if len(flag) > _FLAG_WIDTH:
            out += textwrap.wrap(
                flag, width, initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False
            )
        else:
            first = lines.pop(0) if lines else ""
            out.append(f"  {flag:<{_FLAG_WIDTH}}  {first}".rstrip())
        out.extend(f"  {'':<{_FLAG_WIDTH}}  {line}" for line in lines)
    return out


def render(prog: str, width: int | None = None) -> str:
    """The flag form's help for ``prog``, wrapped to ``width`` (the terminal's, at most 100)."""
    if width is None:
        try:
            width = min(os.get_terminal_size().columns, 100)
        except OSError:
            width = 100
    width = max(width, 60)
    tool = TOOLS[prog]
    wrap = textwrap.TextWrapper(width, subsequent_indent="  ")
    out = [*wrap.wrap(f"{prog}: {tool.about}"), ""]
    out += textwrap.wrap(
        f"Takes the Apache {prog}.sh options unchanged, one action with the options it takes. "
        f"Subcommands work too ({prog} {tool.subcommands[0]} --bootstrap-server B; "
        f"{prog} COMMAND --help for each).",
        width,
    )
    for section in tool.sections:
        out += ["", *wrap.wrap(section.title), *_entries(section.entries, width)]
        if section.example:
            out += textwrap.wrap(
                f"Example: {section.example}",
                width,
                initial_indent="  ",
                subsequent_indent="      ",
                break_on_hyphens=False,
            )
    out += ["", "Ours (not in the Apache tool)", *_entries(tool.ours, width)]
    out += ["", *textwrap.wrap(f"Subcommands: {', '.join(tool.subcommands)}", width)]
    out += textwrap.wrap(
        "Exit codes: 0 ok, 1 failed, 2 usage error (nothing contacted or written), 3 partial, "
        "4 a write was sent but its outcome could not be verified"
        + (
            "; --describe --health: 5 at risk, 6 lost." if any(e[0] == "--health" for e in tool.ours) else "."
        ),
        width,
    )
    return "\n".join(out) + "\n"
