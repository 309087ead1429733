"""``kafka-topics describe | create | alter | delete`` (Apache: ``--describe``, ``--create``,
``--alter``, ``--delete``)."""

from __future__ import annotations

from typing import Annotated

import typer

from kafka_groups.cli.options import (
    BootstrapOpt,
    ClusterOpt,
    CommandConfigOpt,
    DebugOpt,
    OutputOpt,
    YesOpt,
    connection,
)
from kafka_groups.cli.runner import perform
from kafka_groups.core.selectors import check_topic_regex
from kafka_groups.render import OutputFormat
from kafka_topics.commands import (
    AlterTopicRequest,
    CreateTopicRequest,
    DeleteTopicsRequest,
    DescribeTopicsRequest,
)
from kafka_topics.describe import DescribeFilters
from kafka_topics.list_request import TOPICS_TIMEOUT_MS

RegexOpt = Annotated[
    str | None,
    typer.Option(
        "--topic", help="Topics whose whole name matches this regular expression.", show_default=False
    ),
]
IfExistsOpt = Annotated[bool, typer.Option("--if-exists", help="No error when no topic matches.")]
ExcludeInternalOpt = Annotated[
    bool, typer.Option("--exclude-internal", help="Leave out internal topics such as __consumer_offsets.")
]
AssignmentOpt = Annotated[
    str | None,
    typer.Option(
        "--replica-assignment",
        help="Broker ids per partition: 1:2,2:3 puts partition 0 on 1 and 2, partition 1 on 2 and 3.",
        show_default=False,
    ),
]


def describe_command(
    bootstrap_server: BootstrapOpt = None,
    cluster: ClusterOpt = None,
    command_config: CommandConfigOpt = None,
    topic: RegexOpt = None,
    topic_id: Annotated[
        str | None, typer.Option("--topic-id", help="Describe the topic with this id.")
    ] = None,
    exclude_internal: ExcludeInternalOpt = False,
    if_exists: IfExistsOpt = False,
    under_replicated: Annotated[
        bool,
        typer.Option("--under-replicated-partitions", help="Only partitions with fewer in-sync replicas."),
    ] = False,
    under_min_isr: Annotated[
        bool, typer.Option("--under-min-isr-partitions", help="Only partitions below min.insync.replicas.")
    ] = False,
    at_min_isr: Annotated[
        bool, typer.Option("--at-min-isr-partitions", help="Only partitions exactly at min.insync.replicas.")
    ] = False,
    unavailable: Annotated[
        bool, typer.Option("--unavailable-partitions", help="Only partitions without a live leader.")
    ] = False,
    with_overrides: Annotated[
        bool,
        typer.Option("--topics-with-overrides", help="Only topics with overridden configs (no partitions)."),
    ] = False,
    output: OutputOpt = OutputFormat.AUTO,
    debug: DebugOpt = False,
) -> None:
    """Describe topics and their partitions (KIP-1327 creation times where the broker sends them).

    Example: kafka-topics describe --bootstrap-server localhost:9092 --under-replicated-partitions
    """
    request = DescribeTopicsRequest(
        connection(bootstrap_server, command_config, TOPICS_TIMEOUT_MS, debug, cluster=cluster),
        topic=topic,
        topic_id=topic_id,
        exclude_internal=exclude_internal,
        if_exists=if_exists,
        filters=DescribeFilters(under_replicated, under_min_isr, at_min_isr, unavailable, with_overrides),
        output=output,
    )
    perform(request)


def create_command(
    topic: Annotated[str, typer.Option("--topic", help="The topic to create (a name, not a pattern).")],
    bootstrap_server: BootstrapOpt = None,
    cluster: ClusterOpt = None,
    command_config: CommandConfigOpt = None,
    partitions: Annotated[
        int | None,
        typer.Option("--partitions", help="Partitions (default: the broker's).", show_default=False),
    ] = None,
    replication_factor: Annotated[
        int | None,
        typer.Option(
            "--replication-factor", help="Replicas per partition (default: the broker's).", show_default=False
        ),
    ] = None,
    replica_assignment: AssignmentOpt = None,
    config: Annotated[
        list[str] | None,
        typer.Option("--config", help="A topic config, name=value; repeatable.", show_default=False),
    ] = None,
    if_not_exists: Annotated[bool, typer.Option("--if-not-exists", help="No error when it exists.")] = False,
    output: OutputOpt = OutputFormat.AUTO,
    yes: YesOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Create a topic.

    Example: kafka-topics create --bootstrap-server localhost:9092 --topic orders --partitions 6
    --replication-factor 3 --config retention.ms=86400000
    """
    request = CreateTopicRequest(
        connection(
            bootstrap_server, command_config, TOPICS_TIMEOUT_MS, debug, cluster=cluster, assume_yes=yes
        ),
        topic=topic,
        partitions=partitions,
        replication_factor=replication_factor,
        replica_assignment=replica_assignment,
        configs=tuple(config or ()),
        if_not_exists=if_not_exists,
        output=output,
    )
    perform(request)


def alter_command(
    topic: Annotated[
        str, typer.Option("--topic", help="Topics whose whole name matches this regular expression.")
    ],
    partitions: Annotated[
        int, typer.Option("--partitions", help="The new partition count (only increases).")
    ],
    bootstrap_server: BootstrapOpt = None,
    cluster: ClusterOpt = None,
    command_config: CommandConfigOpt = None,
    replica_assignment: AssignmentOpt = None,
    if_exists: IfExistsOpt = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Check the change with the broker and show it; change nothing.")
    ] = False,
    output: OutputOpt = OutputFormat.AUTO,
    yes: YesOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Add partitions to topics, and name the consumer groups whose consumers could miss records
    written to the new partitions (with the reset that prevents it for empty groups).

    Example: kafka-topics alter --bootstrap-server localhost:9092 --topic orders --partitions 12 --dry-run
    """
    check_topic_regex(topic, "alter")
    request = AlterTopicRequest(
        connection(
            bootstrap_server, command_config, TOPICS_TIMEOUT_MS, debug, cluster=cluster, assume_yes=yes
        ),
        topic=topic,
        partitions=partitions,
        replica_assignment=replica_assignment,
        if_exists=if_exists,
        dry_run=dry_run,
        output=output,
    )
    perform(request)


def delete_command(
    topic: Annotated[
        str, typer.Option("--topic", help="Topics whose whole name matches this regular expression.")
    ],
    bootstrap_server: BootstrapOpt = None,
    cluster: ClusterOpt = None,
    command_config: CommandConfigOpt = None,
    if_exists: IfExistsOpt = False,
    output: OutputOpt = OutputFormat.AUTO,
    yes: YesOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Delete topics.

    Example: kafka-topics delete --bootstrap-server localhost:9092 --topic 'scratch-.*'
    """
    check_topic_regex(topic, "delete")
    request = DeleteTopicsRequest(
        connection(
            bootstrap_server, command_config, TOPICS_TIMEOUT_MS, debug, cluster=cluster, assume_yes=yes
        ),
        topic=topic,
        if_exists=if_exists,
        output=output,
    )
    perform(request)
