"""``kafka-consumer-groups describe`` (Apache: ``--describe --group G | --all-groups
[--offsets | --members | --state] [--verbose]``)."""

from __future__ import annotations

from typing import Annotated

import typer

from kafka_groups.cli.options import (
    BootstrapOpt,
    ClusterOpt,
    CommandConfigOpt,
    DebugOpt,
    HealthOpt,
    OutputOpt,
    TimeoutOpt,
    WatchOpt,
    connection,
    watch_interval,
)
from kafka_groups.cli.runner import perform
from kafka_groups.cli.select_options import ExcludeGroupOpt, GroupPatternOpt
from kafka_groups.commands.describe_groups import DescribeGroupsRequest
from kafka_groups.core.selectors import check_groups
from kafka_groups.render import OutputFormat


def describe_command(
    bootstrap_server: BootstrapOpt = None,
    cluster: ClusterOpt = None,
    command_config: CommandConfigOpt = None,
    timeout: TimeoutOpt = None,
    group: Annotated[
        list[str] | None,
        typer.Option("--group", help="A group to describe; repeat for several.", show_default=False),
    ] = None,
    all_groups: Annotated[bool, typer.Option("--all-groups", help="Describe every consumer group.")] = False,
    group_pattern: GroupPatternOpt = None,
    exclude_group: ExcludeGroupOpt = None,
    offsets: Annotated[
        bool,
        typer.Option("--offsets", help="Committed offsets, log end offsets and lag per partition (default)."),
    ] = False,
    members: Annotated[bool, typer.Option("--members", help="The members and their assignments.")] = False,
    state: Annotated[
        bool, typer.Option("--state", help="Coordinator, assignment strategy, state and member count.")
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            help="More columns: leader epochs (offsets), epochs and target assignments (members), "
            "epochs and GROUP-CREATION-TIME (state).",
        ),
    ] = False,
    health: HealthOpt = False,
    lag_time: Annotated[
        bool,
        typer.Option(
            "--lag-time",
            help="Ours: how far behind each partition with lag is in time (now minus the timestamp of "
            "the next record to read); piped, a LAG-TIME-MS column at the end.",
        ),
    ] = False,
    output: OutputOpt = OutputFormat.AUTO,
    watch: WatchOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Describe consumer groups: lag per partition, members, or state.

    Example: kafka-consumer-groups describe --bootstrap-server localhost:9092 --group billing --members
    """
    check_groups(group or ())
    request = DescribeGroupsRequest(
        connection(bootstrap_server, command_config, timeout, debug, cluster=cluster),
        groups=tuple(group or ()),
        all_groups=all_groups,
        offsets=offsets,
        members=members,
        state=state,
        verbose=verbose,
        output=output,
        group_patterns=tuple(group_pattern or ()),
        exclude_groups=tuple(exclude_group or ()),
        health=health,
        lag_time=lag_time,
        watch=watch_interval(watch),
    )
    perform(request)
