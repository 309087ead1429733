"""``kafka-streams-groups list`` (Apache: ``--list [--state [S]]``)."""

from __future__ import annotations

from typing import Annotated

import typer

from kafka_groups.cli.common import BootstrapOpt, CommandConfigOpt, DebugOpt, OutputOpt, settings_from
from kafka_groups.core.groups import GroupListResult, parse_streams_state_filter, select_streams_groups
from kafka_groups.render import OutputFormat, emit

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
    debug: DebugOpt = False,
) -> None:
    """List streams groups (KIP-1071).

    Example: kafka-streams-groups list --bootstrap-server localhost:9092 --state stable
    """
    states = parse_streams_state_filter(state)
    settings = settings_from(bootstrap_server, command_config, timeout, debug)
    from kafka_groups.access.cluster import KafkaAccess

    access = KafkaAccess(settings)
    try:
        listings = access.list_groups(frozenset({"Streams"}))
    finally:
        access.close()
    emit(
        GroupListResult(
            groups=select_streams_groups(listings, states),
            show_type=False,
            show_state=show_state or state is not None,
            streams=True,
        ),
        output,
    )
