"""``kafka-consumer-groups list`` (Apache: ``--list [--state [S]] [--type [T]]``)."""

from __future__ import annotations

from typing import Annotated

import typer

from kafka_groups.cli.options import (
    BootstrapOpt,
    ClusterOpt,
    CommandConfigOpt,
    DebugOpt,
    OutputOpt,
    TimeoutOpt,
    WatchOpt,
    connection,
    watch_interval,
)
from kafka_groups.cli.runner import perform
from kafka_groups.commands.list_groups import ListGroupsRequest
from kafka_groups.render import OutputFormat


def list_command(
    bootstrap_server: BootstrapOpt = None,
    cluster: ClusterOpt = None,
    command_config: CommandConfigOpt = None,
    timeout: TimeoutOpt = None,
    state: Annotated[
        str | None,
        typer.Option(
            "--state",
            help="Only groups in these states (comma-separated, e.g. stable,empty); adds the STATE column.",
            show_default=False,
        ),
    ] = None,
    show_state: Annotated[bool, typer.Option("--show-state", help="Add the STATE column.")] = False,
    group_type: Annotated[
        str | None,
        typer.Option(
            "--type",
            help="Only groups of these types (classic, consumer); adds the TYPE column.",
            show_default=False,
        ),
    ] = None,
    show_type: Annotated[bool, typer.Option("--show-type", help="Add the TYPE column.")] = False,
    output: OutputOpt = OutputFormat.AUTO,
    watch: WatchOpt = None,
    debug: DebugOpt = False,
) -> None:
    """List consumer groups (classic and consumer protocol).

    Example: kafka-consumer-groups list --bootstrap-server localhost:9092 --state stable,empty
    """
    request = ListGroupsRequest(
        connection(bootstrap_server, command_config, timeout, debug, cluster=cluster),
        state=state,
        show_state=show_state,
        group_type=group_type,
        show_type=show_type,
        output=output,
        watch=watch_interval(watch),
    )
    perform(request)
