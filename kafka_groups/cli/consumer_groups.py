"""``kafka-consumer-groups``: the entry point."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from kafka_groups.cli.consumer_groups_flags import translate
from kafka_groups.cli.runner import run_tool

PROG = "kafka-consumer-groups"
SUBCOMMANDS = ("list", "describe", "reset-offsets", "delete-offsets", "delete", "validate-regex")


def load_app() -> Any:
    from kafka_groups.cli.consumer_groups_app import app

    return app


def main(argv: Sequence[str] | None = None) -> None:
    sys.exit(run_tool(PROG, sys.argv[1:] if argv is None else argv, SUBCOMMANDS, translate, load_app))


if __name__ == "__main__":
    main()
