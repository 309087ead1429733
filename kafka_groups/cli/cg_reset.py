"""``kafka-consumer-groups reset-offsets`` (Apache: ``--reset-offsets``)."""

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
from kafka_groups.cli.select_options import (
    AllowNonAtomicOpt,
    ExcludeGroupOpt,
    GroupPatternOpt,
    SkipActiveOpt,
    ToGroupOpt,
)
from kafka_groups.commands.reset_offsets import ResetOffsetsRequest
from kafka_groups.core.reset import Scenario
from kafka_groups.core.selectors import check_groups, check_topic_args
from kafka_groups.render import OutputFormat


def reset_command(
    bootstrap_server: BootstrapOpt = None,
    cluster: ClusterOpt = None,
    command_config: CommandConfigOpt = None,
    timeout: TimeoutOpt = None,
    group: Annotated[
        list[str] | None,
        typer.Option("--group", help="A group to reset; repeat for several.", show_default=False),
    ] = None,
    all_groups: Annotated[bool, typer.Option("--all-groups", help="Every consumer group.")] = False,
    group_pattern: GroupPatternOpt = None,
    exclude_group: ExcludeGroupOpt = None,
    skip_active: SkipActiveOpt = False,
    topic: Annotated[
        list[str] | None,
        typer.Option(
            "--topic",
            help="Scope: a topic, or topic:0,1,2 for some partitions; repeatable.",
            show_default=False,
        ),
    ] = None,
    all_topics: Annotated[
        bool, typer.Option("--all-topics", help="Scope: every partition the group has committed offsets for.")
    ] = False,
    to_offset: Annotated[
        int | None, typer.Option("--to-offset", help="Scenario: this offset (clamped to the log).")
    ] = None,
    to_earliest: Annotated[
        bool, typer.Option("--to-earliest", help="Scenario: the log start offset.")
    ] = False,
    to_latest: Annotated[bool, typer.Option("--to-latest", help="Scenario: the log end offset.")] = False,
    to_current: Annotated[
        bool, typer.Option("--to-current", help="Scenario: keep the committed offset.")
    ] = False,
    shift_by: Annotated[
        int | None,
        typer.Option("--shift-by", help="Scenario: committed offset + N (N may be negative; clamped)."),
    ] = None,
    to_datetime: Annotated[
        str | None,
        typer.Option(
            "--to-datetime",
            help="Scenario: the first offset at or after this time: YYYY-MM-DDTHH:mm:SS.sss, or what "
            "python-dateutil reads ('2026-01-31 12:00', 'Jan 31 2026 12:00 UTC', '...+05:30'); UTC unless "
            "a zone is given. The instant taken is said on stderr.",
        ),
    ] = None,
    by_duration: Annotated[
        str | None,
        typer.Option(
            "--by-duration", help="Scenario: as --to-datetime, this long ago (ISO-8601 PnDTnHnMnS)."
        ),
    ] = None,
    from_file: Annotated[
        str | None,
        typer.Option("--from-file", help="Scenario: the offsets in this CSV (an --export or a backup file)."),
    ] = None,
    to_start_time: Annotated[
        bool,
        typer.Option(
            "--to-start-time",
            help="Scenario (KIP-1282): the group's creation time, when the broker records it.",
        ),
    ] = False,
    to_nearest: Annotated[
        bool,
        typer.Option(
            "--to-nearest",
            help="Scenario (ours, KIP-842): move only out-of-range offsets to the nearer log bound.",
        ),
    ] = False,
    to_group: ToGroupOpt = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only show the plan (the default).")] = False,
    execute: Annotated[
        bool,
        typer.Option(
            "--execute", help="Commit the plan: back up the current offsets first, read them back after."
        ),
    ] = False,
    export: Annotated[
        bool, typer.Option("--export", help="Print the plan as CSV (the Apache format).")
    ] = False,
    backup_dir: Annotated[
        str | None,
        typer.Option(
            "--backup-dir", help="Where --execute saves the offsets it replaces.", show_default=False
        ),
    ] = None,
    allow_non_atomic: AllowNonAtomicOpt = False,
    output: OutputOpt = OutputFormat.AUTO,
    yes: YesOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Reset the committed offsets of inactive groups (dry run unless --execute).

    Example: kafka-consumer-groups reset-offsets --bootstrap-server localhost:9092 --group billing
    --topic orders --to-datetime 2024-01-31T00:00:00.000 --execute
    """
    check_groups(group or ())
    check_topic_args(topic or ())
    given = scenarios_given(
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
    )
    request = ResetOffsetsRequest(
        connection(bootstrap_server, command_config, timeout, debug, cluster=cluster, assume_yes=yes),
        groups=tuple(group or ()),
        all_groups=all_groups,
        topics=tuple(topic or ()),
        all_topics=all_topics,
        scenarios=given,
        dry_run=dry_run,
        execute_changes=execute,
        export=export,
        backup_dir=backup_dir,
        output=output,
        group_patterns=tuple(group_pattern or ()),
        exclude_groups=tuple(exclude_group or ()),
        skip_active=skip_active,
        allow_non_atomic=allow_non_atomic,
        friendly_times=True,
    )
    perform(request)


def scenarios_given(
    to_offset: int | None,
    to_datetime: str | None,
    by_duration: str | None,
    to_earliest: bool,
    to_latest: bool,
    to_current: bool,
    shift_by: int | None,
    from_file: str | None,
    to_start_time: bool,
    to_nearest: bool,
    to_group: str | None = None,
) -> tuple[tuple[Scenario, str | None], ...]:
    """The scenario options given, in the order the Apache tool checks them."""
    given: list[tuple[Scenario, str | None]] = []
    for scenario, value, on in (
        (Scenario.TO_OFFSET, to_offset, to_offset is not None),
        (Scenario.TO_DATETIME, to_datetime, to_datetime is not None),
        (Scenario.BY_DURATION, by_duration, by_duration is not None),
        (Scenario.TO_EARLIEST, None, to_earliest),
        (Scenario.TO_LATEST, None, to_latest),
        (Scenario.TO_CURRENT, None, to_current),
        (Scenario.SHIFT_BY, shift_by, shift_by is not None),
        (Scenario.FROM_FILE, from_file, from_file is not None),
        (Scenario.TO_START_TIME, None, to_start_time),
        (Scenario.TO_NEAREST, None, to_nearest),
        (Scenario.TO_GROUP, to_group, to_group is not None),
    ):
        if on:
            given.append((scenario, None if value is None else str(value)))
    return tuple(given)
