"""``kafka-consumer-groups delete`` and ``delete-offsets`` (Apache: ``--delete``,
``--delete-offsets``)."""

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
    YesOpt,
    connection,
)
from kafka_groups.cli.runner import perform
from kafka_groups.cli.select_options import ExcludeGroupOpt, GroupPatternOpt
from kafka_groups.commands.delete_groups import DeleteGroupsRequest, DeleteOffsetsRequest
from kafka_groups.core.selectors import check_groups, check_topic_args
from kafka_groups.errors import UsageError
from kafka_groups.render import OutputFormat

BackupDirOpt = Annotated[
    str | None,
    typer.Option(
        "--backup-dir", help="Where the offsets about to be deleted are saved first.", show_default=False
    ),
]


def delete_offsets_command(
    group: Annotated[
        list[str] | None,
        typer.Option(
            "--group",
            help="The group whose offsets to delete (with --from-file: one of the file's; repeatable).",
            show_default=False,
        ),
    ] = None,
    topic: Annotated[
        list[str] | None,
        typer.Option(
            "--topic", help="A topic (every partition) or topic:0,1; repeatable.", show_default=False
        ),
    ] = None,
    from_file: Annotated[
        str | None,
        typer.Option(
            "--from-file",
            help="Instead of --topic: the partitions of every group a plan file names (a reset's undo).",
            show_default=False,
        ),
    ] = None,
    bootstrap_server: BootstrapOpt = None,
    cluster: ClusterOpt = None,
    command_config: CommandConfigOpt = None,
    timeout: TimeoutOpt = None,
    backup_dir: BackupDirOpt = None,
    output: OutputOpt = OutputFormat.AUTO,
    yes: YesOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Delete a group's committed offsets for some topics or partitions (KIP-496).

    The group must not be subscribed to them. The offsets are saved to a backup file first;
    the printed command restores them.

    Example: kafka-consumer-groups delete-offsets --bootstrap-server localhost:9092 --group billing
    --topic old-orders
    """
    groups, topics = list(group or ()), list(topic or ())
    check_groups(groups)
    check_topic_args(topics)
    if from_file is not None:
        if topics:
            raise UsageError('Option "[from-file]" can\'t be used with option "[topic]"')
        from kafka_groups.commands.delete_file_offsets import DeleteFileOffsetsRequest

        perform(
            DeleteFileOffsetsRequest(
                connection(bootstrap_server, command_config, timeout, debug, cluster=cluster, assume_yes=yes),
                path=from_file,
                groups=tuple(groups),
                backup_dir=backup_dir,
                output=output,
            )
        )
        return
    if len(groups) > 1:
        raise UsageError("Found multiple arguments for option group, but you asked for only one")
    if not groups or not topics:
        raise UsageError("Option [delete-offsets] takes the following options: [topic], [group]")
    request = DeleteOffsetsRequest(
        connection(bootstrap_server, command_config, timeout, debug, cluster=cluster, assume_yes=yes),
        group=groups[0],
        topics=tuple(topics),
        backup_dir=backup_dir,
        output=output,
    )
    perform(request)


def delete_command(
    bootstrap_server: BootstrapOpt = None,
    cluster: ClusterOpt = None,
    command_config: CommandConfigOpt = None,
    timeout: TimeoutOpt = None,
    group: Annotated[
        list[str] | None,
        typer.Option("--group", help="A group to delete; repeat for several.", show_default=False),
    ] = None,
    all_groups: Annotated[bool, typer.Option("--all-groups", help="Every consumer group.")] = False,
    group_pattern: GroupPatternOpt = None,
    exclude_group: ExcludeGroupOpt = None,
    backup_dir: BackupDirOpt = None,
    output: OutputOpt = OutputFormat.AUTO,
    yes: YesOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Delete empty consumer groups and their committed offsets.

    The offsets are saved to a backup file first; the printed command restores them.

    Example: kafka-consumer-groups delete --bootstrap-server localhost:9092 --group billing
    """
    check_groups(group or ())
    request = DeleteGroupsRequest(
        connection(bootstrap_server, command_config, timeout, debug, cluster=cluster, assume_yes=yes),
        groups=tuple(group or ()),
        all_groups=all_groups,
        backup_dir=backup_dir,
        output=output,
        group_patterns=tuple(group_pattern or ()),
        exclude_groups=tuple(exclude_group or ()),
    )
    perform(request)
