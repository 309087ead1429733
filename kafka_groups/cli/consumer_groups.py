"""``kafka-consumer-groups``: the entry point."""

from __future__ import annotations

import os
import sys

# The console script imports this module before the tool handles Ctrl-C: kept light (not even
# typing, whose imports take most of this module's time).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, NoReturn

PROG = "kafka-consumer-groups"
SUBCOMMANDS = ("list", "describe", "reset-offsets", "delete-offsets", "delete", "validate-regex", "clusters")


def load_app() -> Any:
    from kafka_groups.cli.consumer_groups_app import app

    return app


def main(argv: Sequence[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if os.environ.get("_KAFKA_TOOLS_COMPLETE"):  # a TAB: answer before importing anything heavy
        from kafka_groups.cli.complete import run

        sys.exit(run(PROG, args))
    from kafka_groups.cli.quick import help_only

    if help_only(PROG, args):
        sys.exit(0)
    from kafka_groups.cli.consumer_groups_flags import translate
    from kafka_groups.cli.runner import run_tool
    from kafka_groups.cli.watch_arg import with_watch_default

    sys.exit(run_tool(PROG, with_watch_default(args), SUBCOMMANDS, translate, load_app))


def console() -> NoReturn:
    """The installed command (and ``python -m``): :func:`main` as the whole process, which
    ends as soon as the tool is done (kafka_groups/cli/process.py)."""
    from kafka_groups.cli.process import run_as_process

    run_as_process(main)


if __name__ == "__main__":
    console()
