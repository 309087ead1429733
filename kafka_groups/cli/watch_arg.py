"""``--watch [SECONDS]`` in the subcommand form. Typer has no option whose value may be left
out, so before Typer reads the line a bare ``--watch`` (last, or followed by another option)
gets the default interval written after it. Pure, and free of Typer: the entry point calls it."""

from __future__ import annotations

from collections.abc import Sequence

WATCHING_SUBCOMMANDS = ("describe", "list")


def with_watch_default(argv: Sequence[str], subcommands: Sequence[str] = WATCHING_SUBCOMMANDS) -> list[str]:
    args = list(argv)
    if not args or args[0] not in subcommands or "--watch" not in args:
        return args  # the flag form reads an optional value itself
    from kafka_groups.core.watch import DEFAULT_INTERVAL_S

    out: list[str] = []
    for i, token in enumerate(args):
        if token == "--":
            return out + args[i:]
        out.append(token)
        following = args[i + 1] if i + 1 < len(args) else None
        if token == "--watch" and (following is None or (following.startswith("-") and following != "-")):
            out.append(f"{DEFAULT_INTERVAL_S:g}")
    return out
