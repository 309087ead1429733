"""``kafka-topics``: the entry point."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from kafka_groups.cli.runner import run_tool
from kafka_topics.flags import translate

PROG = "kafka-topics"
SUBCOMMANDS = ("list", "describe", "create", "alter", "delete")


def load_app() -> Any:
    from kafka_topics.app import app

    return app


def main(argv: Sequence[str] | None = None) -> None:
    sys.exit(run_tool(PROG, sys.argv[1:] if argv is None else argv, SUBCOMMANDS, translate, load_app))


if __name__ == "__main__":
    main()
