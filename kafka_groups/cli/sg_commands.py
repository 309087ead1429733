"""``kafka-streams-groups describe | reset-offsets | delete-offsets | delete`` (Apache:
``--describe``, ``--reset-offsets``, ``--delete-offsets``, ``--delete``)."""

from __future__ import annotations

from typing import Annotated

import typer

from kafka_groups.cli.cg_delete import BackupDirOpt
from kafka_groups.cli.cg_reset import scenarios_given
from kafka_groups.cli.options import (
    BootstrapOpt,
    ClusterOpt,
    CommandConfigOpt,
    DebugOpt,
    HealthOpt,
    OutputOpt,
    StreamsTimeoutOpt,
    WatchOpt,
    YesOpt,
    streams_connection,
    watch_interval,
)
from kafka_groups.cli.runner import perform
from kafka_groups.cli.select_options import (
    AllowNonAtomicOpt,
    ExcludeGroupOpt,
    GroupPatternOpt,
    SkipActiveOpt,
    ToGroupOpt,
)
from kafka_groups.commands.delete_groups import DeleteOffsetsRequest
from kafka_groups.commands.delete_streams import DeleteStreamsGroupsRequest
from kafka_groups.commands.describe_streams import DescribeStreamsRequest
from kafka_groups.commands.reset_offsets import ResetOffsetsRequest
from kafka_groups.core.selectors import check_groups, check_names, check_topic_args
from kafka_groups.errors import UsageError
from kafka_groups.render import OutputFormat

GroupsOpt = Annotated[
    list[str] | None,
    typer.Option("--group", help="A streams group (the application.id); repeatable.", show_default=False),
]
AllGroupsOpt = Annotated[bool, typer.Option("--all-groups", help="Every streams group.")]
InputTopicOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--input-topic",
        help="Scope: a source topic, or topic:0,1,2 for some partitions; repeatable.",
        show_default=False,
    ),
]
AllInputTopicsOpt = Annotated[
    bool, typer.Option("--all-input-topics", help="Scope: every committed partition of the source topics.")
]


def describe_command(
    bootstrap_server: BootstrapOpt = None,
    cluster: ClusterOpt = None,
    command_config: CommandConfigOpt = None,
    timeout: StreamsTimeoutOpt = None,
    group: GroupsOpt = None,
    all_groups: AllGroupsOpt = False,
    group_pattern: GroupPatternOpt = None,
    exclude_group: ExcludeGroupOpt = None,
    offsets: Annotated[
        bool, typer.Option("--offsets", help="Lag per partition of the active tasks (default).")
    ] = False,
    members: Annotated[bool, typer.Option("--members", help="Members and their task assignments.")] = False,
    state: Annotated[bool, typer.Option("--state", help="Coordinator, state and member count.")] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            help="More columns: offsets and leader epochs (offsets), epochs and target assignments "
            "(members), epochs and GROUP-CREATION-TIME (state).",
        ),
    ] = False,
    health: HealthOpt = False,
    output: OutputOpt = OutputFormat.AUTO,
    watch: WatchOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Describe streams groups: lag of the active tasks, members, or state.

    Example: kafka-streams-groups describe --bootstrap-server localhost:9092 --group my-app --members
    """
    check_groups(group or ())
    views = [v for v, on in (("members", members), ("offsets", offsets), ("state", state)) if on]
    if len(views) > 1:
        raise UsageError(
            "Option [describe] takes at most one of these options: [members], [offsets], [state]"
        )
    request = DescribeStreamsRequest(
        streams_connection(bootstrap_server, command_config, timeout, debug, cluster=cluster),
        groups=tuple(group or ()),
        all_groups=all_groups,
        view=views[0] if views else "offsets",
        verbose=verbose,
        output=output,
        group_patterns=tuple(group_pattern or ()),
        exclude_groups=tuple(exclude_group or ()),
        health=health,
        watch=watch_interval(watch),
    )
    perform(request)


def reset_command(
    bootstrap_server: BootstrapOpt = None,
    cluster: ClusterOpt = None,
    command_config: CommandConfigOpt = None,
    timeout: StreamsTimeoutOpt = None,
    group: GroupsOpt = None,
    all_groups: AllGroupsOpt = False,
    group_pattern: GroupPatternOpt = None,
    exclude_group: ExcludeGroupOpt = None,
    skip_active: SkipActiveOpt = False,
    input_topic: InputTopicOpt = None,
    all_input_topics: AllInputTopicsOpt = False,
    to_offset: Annotated[
        int | None, typer.Option("--to-offset", help="Scenario: this offset (clamped).")
    ] = None,
    to_earliest: Annotated[bool, typer.Option("--to-earliest", help="Scenario: the log start.")] = False,
    to_latest: Annotated[bool, typer.Option("--to-latest", help="Scenario: the log end.")] = False,
    to_current: Annotated[bool, typer.Option("--to-current", help="Scenario: the committed offset.")] = False,
    shift_by: Annotated[
        int | None, typer.Option("--shift-by", help="Scenario: committed offset + N (clamped).")
    ] = None,
    to_datetime: Annotated[
        str | None, typer.Option("--to-datetime", help="Scenario: the first offset at or after this time.")
    ] = None,
    by_duration: Annotated[
        str | None,
        typer.Option("--by-duration", help="Scenario: as --to-datetime, this long ago (PnDTnHnMnS)."),
    ] = None,
    from_file: Annotated[
        str | None,
        typer.Option("--from-file", help="Scenario: the offsets in this CSV (an --export or backup)."),
    ] = None,
    to_start_time: Annotated[
        bool, typer.Option("--to-start-time", help="Scenario (KIP-1282): the group's creation time.")
    ] = False,
    to_nearest: Annotated[
        bool,
        typer.Option(
            "--to-nearest", help="Scenario (ours, KIP-842): out-of-range offsets to the nearer bound."
        ),
    ] = False,
    to_group: ToGroupOpt = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only show the plan (the default).")] = False,
    execute: Annotated[
        bool, typer.Option("--execute", help="Commit the plan (backup first, read back after).")
    ] = False,
    export: Annotated[bool, typer.Option("--export", help="Print the plan as CSV.")] = False,
    delete_internal_topic: Annotated[
        list[str] | None,
        typer.Option(
            "--delete-internal-topic", help="With --execute: delete this internal topic.", show_default=False
        ),
    ] = None,
    delete_all_internal_topics: Annotated[
        bool,
        typer.Option(
            "--delete-all-internal-topics", help="With --execute: delete the group's internal topics."
        ),
    ] = False,
    backup_dir: BackupDirOpt = None,
    allow_non_atomic: AllowNonAtomicOpt = False,
    output: OutputOpt = OutputFormat.AUTO,
    yes: YesOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Reset the committed offsets of inactive streams groups (dry run unless --execute).

    Example: kafka-streams-groups reset-offsets --bootstrap-server localhost:9092 --group my-app
    --all-input-topics --to-earliest --execute
    """
    if (delete_internal_topic or delete_all_internal_topics) and not execute:
        raise UsageError("Deleting internal topics takes --execute")
    check_groups(group or ())
    check_topic_args(input_topic or (), "--input-topic")
    check_names(delete_internal_topic or (), "--delete-internal-topic", "topic")
    request = ResetOffsetsRequest(
        streams_connection(bootstrap_server, command_config, timeout, debug, cluster=cluster, assume_yes=yes),
        groups=tuple(group or ()),
        all_groups=all_groups,
        topics=tuple(input_topic or ()),
        all_topics=all_input_topics,
        scenarios=scenarios_given(
            to_offset,
            to_datetime,
            by_duration,
            to_earliest,
            to_latest,
            to_current,
            shift_by,
            from_file,
            to_start_time,
            to_nearest,
            to_group,
        ),
        dry_run=dry_run,
        execute_changes=execute,
        export=export,
        backup_dir=backup_dir,
        output=output,
        warn_no_execute=False,
        streams=True,
        delete_internal_topics=tuple(delete_internal_topic or ()),
        delete_all_internal_topics=delete_all_internal_topics,
        group_patterns=tuple(group_pattern or ()),
        exclude_groups=tuple(exclude_group or ()),
        skip_active=skip_active,
        allow_non_atomic=allow_non_atomic,
        friendly_times=True,
    )
    perform(request)


def delete_offsets_command(
    group: Annotated[str, typer.Option("--group", help="The streams group whose offsets to delete.")],
    bootstrap_server: BootstrapOpt = None,
    cluster: ClusterOpt = None,
    command_config: CommandConfigOpt = None,
    timeout: StreamsTimeoutOpt = None,
    input_topic: InputTopicOpt = None,
    all_input_topics: AllInputTopicsOpt = False,
    backup_dir: BackupDirOpt = None,
    output: OutputOpt = OutputFormat.AUTO,
    yes: YesOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Delete a streams group's committed offsets for some input topics (KIP-496).

    The offsets are saved to a backup file first; the printed command restores them.

    Example: kafka-streams-groups delete-offsets --bootstrap-server localhost:9092 --group my-app
    --input-topic old-input
    """
    check_groups([group])
    check_topic_args(input_topic or (), "--input-topic")
    request = DeleteOffsetsRequest(
        streams_connection(bootstrap_server, command_config, timeout, debug, cluster=cluster, assume_yes=yes),
        group=group,
        topics=tuple(input_topic or ()),
        all_input_topics=all_input_topics,
        streams=True,
        backup_dir=backup_dir,
        output=output,
    )
    perform(request)


def delete_command(
    bootstrap_server: BootstrapOpt = None,
    cluster: ClusterOpt = None,
    command_config: CommandConfigOpt = None,
    timeout: StreamsTimeoutOpt = None,
    group: GroupsOpt = None,
    all_groups: AllGroupsOpt = False,
    group_pattern: GroupPatternOpt = None,
    exclude_group: ExcludeGroupOpt = None,
    delete_all_internal_topics: Annotated[
        bool, typer.Option("--delete-all-internal-topics", help="Also delete the groups' internal topics.")
    ] = False,
    backup_dir: BackupDirOpt = None,
    output: OutputOpt = OutputFormat.AUTO,
    yes: YesOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Delete Empty streams groups (and, if asked, their internal topics).

    The committed offsets are saved to a backup file first; the printed command restores them.

    Example: kafka-streams-groups delete --bootstrap-server localhost:9092 --group my-app
    """
    check_groups(group or ())
    request = DeleteStreamsGroupsRequest(
        streams_connection(bootstrap_server, command_config, timeout, debug, cluster=cluster, assume_yes=yes),
        groups=tuple(group or ()),
        all_groups=all_groups,
        delete_all_internal_topics=delete_all_internal_topics,
        backup_dir=backup_dir,
        output=output,
        group_patterns=tuple(group_pattern or ()),
        exclude_groups=tuple(exclude_group or ()),
    )
    perform(request)
