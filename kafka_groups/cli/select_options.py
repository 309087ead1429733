"""Typer options of our group selection and ``--to-group`` (shared by both group tools)."""

from typing import Annotated

import typer

GroupPatternOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--group-pattern",
        help="Groups whose whole id matches this regex (Python re, full match); repeatable. "
        "Instead of --group/--all-groups.",
        show_default=False,
    ),
]
ExcludeGroupOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude-group",
        help="Leave out groups whose whole id matches this regex; repeatable.",
        show_default=False,
    ),
]
SkipActiveOpt = Annotated[
    bool,
    typer.Option(
        "--skip-active",
        help="Reset the inactive groups selected and name the active ones in one line (exit 0).",
    ),
]
AllowNonAtomicOpt = Annotated[
    bool,
    typer.Option(
        "--allow-non-atomic",
        help="With --execute: where a group's offsets need more than one commit and the cluster refuses "
        "the transaction that makes them atomic, commit them in steps, with a journal.",
    ),
]
ToGroupOpt = Annotated[
    str | None,
    typer.Option(
        "--to-group",
        help="Scenario (ours): the committed offsets of this other group (clamped to the log).",
        show_default=False,
    ),
]
