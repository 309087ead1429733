"""``--watch [SECONDS]`` on the command line, before it is parsed. Typer has no option whose
value may be left out, so in the subcommand form a bare ``--watch`` (last, or followed by
another option) gets the default interval written after it. In both forms ``--watch -1`` is
read as the (refused) interval -1, not as an unknown option ``-1``. Pure, and free of Typer:
the entry point calls it."""

from __future__ import annotations

import re
from collections.abc import Sequence

_NEGATIVE = re.compile(r"-[0-9.]+")

WATCHING_SUBCOMMANDS = ("describe", "list")


def with_watch_default(argv: Sequence[str], subcommands: Sequence[str] = WATCHING_SUBCOMMANDS) -> list[str]:
    args = list(argv)
    if "--watch" not in args:
        return args
    from kafka_groups.core.watch import DEFAULT_INTERVAL_S

    subcommand = bool(args) and args[0] in subcommands
    out: list[str] = []
    skip = False
    for i, token in enumerate(args):
        if skip:
            skip = False
            continue
        if token == "--":
            return out + args[i:]
        following = args[i + 1] if i + 1 < len(args) else None
        if token == "--watch" and following is not None and _NEGATIVE.fullmatch(following):
            # A negative interval is a bad interval, not an unknown option named "-1".
            out.append(f"--watch={following}")
            skip = True
            continue
        out.append(token)
        if subcommand and token == "--watch" and (following is None or _is_option(following)):
            out.append(f"{DEFAULT_INTERVAL_S:g}")
    return out


def _is_option(token: str) -> bool:
    return token.startswith("-") and token != "-"
