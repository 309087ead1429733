"""``kafka-consumer-groups list`` (Apache: ``--list [--state [S]] [--type [T]]``)."""

from __future__ import annotations

from typing import Annotated

import typer

from kafka_groups.cli.common import BootstrapOpt, CommandConfigOpt, DebugOpt, OutputOpt, settings_from
from kafka_groups.core.groups import (
    CONSUMER_GROUP_TYPES,
    GroupListResult,
    parse_state_filter,
    parse_type_filter,
    select_consumer_groups,
)
from kafka_groups.render import OutputFormat, emit


def list_command(
    bootstrap_server: BootstrapOpt = None,
    command_config: CommandConfigOpt = None,
    timeout: Annotated[int, typer.Option("--timeout", help="Timeout for each request, in ms.")] = 5000,
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
    debug: DebugOpt = False,
) -> None:
    """List consumer groups (classic and consumer protocol).

    Example: kafka-consumer-groups list --bootstrap-server localhost:9092 --state stable,empty
    """
    states = parse_state_filter(state)
    types = parse_type_filter(group_type)
    settings = settings_from(bootstrap_server, command_config, timeout, debug)
    from kafka_groups.access.cluster import KafkaAccess

    access = KafkaAccess(settings)
    try:
        listings = access.list_groups(types or frozenset(CONSUMER_GROUP_TYPES))
    finally:
        access.close()
    result = GroupListResult(
        groups=select_consumer_groups(listings, states, types),
        show_type=show_type or group_type is not None,
        show_state=show_state or state is not None,
    )
    emit(result, output)
