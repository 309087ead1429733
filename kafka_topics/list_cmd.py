"""``kafka-topics list`` (Apache: ``--list [--topic REGEX] [--exclude-internal]``)."""

from __future__ import annotations

from typing import Annotated

import typer

from kafka_groups.cli.common import BootstrapOpt, CommandConfigOpt, DebugOpt, OutputOpt, settings_from
from kafka_groups.render import OutputFormat, emit
from kafka_topics.core import TopicListResult, select_topics

# kafka-topics.sh sets no per-call timeout; its Admin client waits up to 60 s.
TOPICS_TIMEOUT_MS = 60000


def list_command(
    bootstrap_server: BootstrapOpt = None,
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
    settings = settings_from(bootstrap_server, command_config, TOPICS_TIMEOUT_MS, debug)
    from kafka_groups.access.cluster import KafkaAccess

    names = KafkaAccess(settings).list_topics()
    emit(TopicListResult(select_topics(names, topic, exclude_internal)), output)
