"""``kafka-consumer-groups``: the Typer app and its entry point."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from kafka_groups.cli import cg_describe, cg_list
from kafka_groups.cli.common import new_app, run, version_callback
from kafka_groups.cli.consumer_groups_flags import translate

PROG = "kafka-consumer-groups"

app = new_app(
    PROG,
    "List, describe, reset and delete consumer groups.\n\n"
    "Accepts the Apache kafka-consumer-groups.sh flags unchanged "
    "(kafka-consumer-groups --bootstrap-server B --list) as well as subcommands "
    "(kafka-consumer-groups list --bootstrap-server B).",
)


@app.callback()
def _root(
    version: Annotated[
        bool | None,
        typer.Option("--version", callback=version_callback(PROG), is_eager=True, help="Show the version."),
    ] = None,
) -> None:
    """Consumer group administration."""


app.command("list")(cg_list.list_command)
app.command("describe")(cg_describe.describe_command)


def main(argv: Sequence[str] | None = None) -> None:
    sys.exit(run(app, PROG, sys.argv[1:] if argv is None else argv, translate))


if __name__ == "__main__":
    main()
