"""``kafka-topics list`` (Apache: ``--list [--topic REGEX] [--exclude-internal]``)."""

from __future__ import annotations

from typing import Annotated

import typer

from kafka_groups.cli.options import (
    BootstrapOpt,
    ClusterOpt,
    CommandConfigOpt,
    DebugOpt,
    OutputOpt,
    connection,
)
from kafka_groups.cli.runner import perform
from kafka_groups.render import OutputFormat
from kafka_topics.list_request import TOPICS_TIMEOUT_MS, ListTopicsRequest


def list_command(
    bootstrap_server: BootstrapOpt = None,
    cluster: ClusterOpt = None,
    command_config: CommandConfigOpt = None,
    topic: Annotated[
        str | None,
        typer.Option(
            "--topic",
            help="Only topics whose whole name matches this regular expression.",
            show_default=False,
        ),
    ] = None,
    exclude_internal: Annotated[
        bool, typer.Option("--exclude-internal", help="Leave out internal topics such as __consumer_offsets.")
    ] = False,
    output: OutputOpt = OutputFormat.AUTO,
    debug: DebugOpt = False,
) -> None:
    """List topic names, sorted.

    Example: kafka-topics list --bootstrap-server localhost:9092 --topic 'orders.*'
    """
    request = ListTopicsRequest(
        connection(bootstrap_server, command_config, TOPICS_TIMEOUT_MS, debug, cluster=cluster),
        topic=topic,
        exclude_internal=exclude_internal,
        output=output,
    )
    perform(request)
