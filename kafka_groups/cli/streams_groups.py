"""``kafka-streams-groups``: the Typer app and its entry point."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from kafka_groups.cli import sg_list
from kafka_groups.cli.common import new_app, run, version_callback
from kafka_groups.cli.streams_groups_flags import translate

PROG = "kafka-streams-groups"

app = new_app(
    PROG,
    "List, describe, reset and delete Kafka Streams groups (KIP-1071).\n\n"
    "Accepts the Apache kafka-streams-groups.sh flags unchanged "
    "(kafka-streams-groups --bootstrap-server B --list) as well as subcommands "
    "(kafka-streams-groups list --bootstrap-server B).",
)


@app.callback()
def _root(
    version: Annotated[
        bool | None,
        typer.Option("--version", callback=version_callback(PROG), is_eager=True, help="Show the version."),
    ] = None,
) -> None:
    """Streams group administration."""


app.command("list")(sg_list.list_command)


def main(argv: Sequence[str] | None = None) -> None:
    sys.exit(run(app, PROG, sys.argv[1:] if argv is None else argv, translate))


if __name__ == "__main__":
    main()
