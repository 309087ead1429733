"""``kafka-streams-groups list`` (Apache: ``--list [--state [S]]``)."""

from __future__ import annotations

from typing import Annotated

import typer

from kafka_groups.cli.options import (
    BootstrapOpt,
    CommandConfigOpt,
    DebugOpt,
    OutputOpt,
    WatchOpt,
    connection,
    watch_interval,
)
from kafka_groups.cli.runner import perform
from kafka_groups.commands.list_groups import ListGroupsRequest
from kafka_groups.render import OutputFormat

STREAMS_TIMEOUT_MS = 30000


def list_command(
    bootstrap_server: BootstrapOpt = None,
    command_config: CommandConfigOpt = None,
    timeout: Annotated[
        int, typer.Option("--timeout", help="Timeout for each request, in ms.")
    ] = STREAMS_TIMEOUT_MS,
    state: Annotated[
        str | None,
        typer.Option(
            "--state",
            help="Only groups in these states (comma-separated); adds the STATE column.",
            show_default=False,
        ),
    ] = None,
    show_state: Annotated[bool, typer.Option("--show-state", help="Add the STATE column.")] = False,
    output: OutputOpt = OutputFormat.AUTO,
    watch: WatchOpt = None,
    debug: DebugOpt = False,
) -> None:
    """List streams groups (KIP-1071).

    Example: kafka-streams-groups list --bootstrap-server localhost:9092 --state stable
    """
    request = ListGroupsRequest(
        connection(bootstrap_server, command_config, timeout, debug),
        state=state,
        show_state=show_state,
        streams=True,
        output=output,
        watch=watch_interval(watch),
    )
    perform(request)
