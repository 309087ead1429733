"""``kafka-topics``: the Typer app and its entry point."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from kafka_groups.cli.common import new_app, run, version_callback
from kafka_topics import list_cmd
from kafka_topics.flags import translate

PROG = "kafka-topics"

app = new_app(
    PROG,
    "Create, delete, describe, or change a topic.\n\n"
    "Accepts the Apache kafka-topics.sh flags unchanged (kafka-topics --bootstrap-server B --list) "
    "as well as subcommands (kafka-topics list --bootstrap-server B).",
)


@app.callback()
def _root(
    version: Annotated[
        bool | None,
        typer.Option("--version", callback=version_callback(PROG), is_eager=True, help="Show the version."),
    ] = None,
) -> None:
    """Topic administration."""


app.command("list")(list_cmd.list_command)


def main(argv: Sequence[str] | None = None) -> None:
    sys.exit(run(app, PROG, sys.argv[1:] if argv is None else argv, translate))


if __name__ == "__main__":
    main()
