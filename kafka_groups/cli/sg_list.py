"""``kafka-streams-groups list`` (Apache: ``--list [--state [S]]``)."""

from __future__ import annotations

from typing import Annotated

import typer

from kafka_groups.cli.options import (
    BootstrapOpt,
    ClusterOpt,
    CommandConfigOpt,
    DebugOpt,
    OutputOpt,
    StreamsTimeoutOpt,
    WatchOpt,
    streams_connection,
    watch_interval,
)
from kafka_groups.cli.runner import perform
from kafka_groups.commands.list_groups import ListGroupsRequest
from kafka_groups.render import OutputFormat


def list_command(
    bootstrap_server: BootstrapOpt = None,
    cluster: ClusterOpt = None,
    command_config: CommandConfigOpt = None,
    timeout: StreamsTimeoutOpt = None,
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
        streams_connection(bootstrap_server, command_config, timeout, debug, cluster=cluster),
        state=state,
        show_state=show_state,
        streams=True,
        output=output,
        watch=watch_interval(watch),
    )
    perform(request)
