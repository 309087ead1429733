"""``kafka-consumer-groups describe`` (Apache: ``--describe --group G | --all-groups
[--offsets | --members | --state] [--verbose]``)."""

from __future__ import annotations

from typing import Annotated, TextIO

import typer

from kafka_groups.cli.common import BootstrapOpt, CommandConfigOpt, DebugOpt, OutputOpt, settings_from
from kafka_groups.core.describe import (
    DescribedGroup,
    DescribeResult,
    View,
    java_sorted,
    offset_rows,
    partitions_to_look_up,
)
from kafka_groups.core.groups import CONSUMER_GROUP_TYPES, select_consumer_groups
from kafka_groups.errors import NotFoundError, PartialFailure, UsageError
from kafka_groups.render import OutputFormat, emit, resolve_format


def describe_command(
    bootstrap_server: BootstrapOpt = None,
    command_config: CommandConfigOpt = None,
    timeout: Annotated[int, typer.Option("--timeout", help="Timeout for each request, in ms.")] = 5000,
    group: Annotated[
        list[str] | None,
        typer.Option("--group", help="A group to describe; repeat for several.", show_default=False),
    ] = None,
    all_groups: Annotated[bool, typer.Option("--all-groups", help="Describe every consumer group.")] = False,
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
    output: OutputOpt = OutputFormat.AUTO,
    debug: DebugOpt = False,
) -> None:
    """Describe consumer groups: lag per partition, members, or state.

    Example: kafka-consumer-groups describe --bootstrap-server localhost:9092 --group billing --members
    """
    views = [v for v, on in ((View.MEMBERS, members), (View.OFFSETS, offsets), (View.STATE, state)) if on]
    if len(views) > 1:
        raise UsageError(
            "Option [describe] takes at most one of these options: [members], [offsets], [state]"
        )
    if not group and not all_groups:
        raise UsageError("Option [describe] takes one of these options: [all-groups], [group]")
    if group and all_groups:
        raise UsageError('Option "[group]" can\'t be used with option "[all-groups]"')
    view = views[0] if views else View.OFFSETS
    settings = settings_from(bootstrap_server, command_config, timeout, debug)
    from kafka_groups.access.cluster import KafkaAccess

    access = KafkaAccess(settings)
    try:
        if all_groups:
            listed = access.list_groups(frozenset(CONSUMER_GROUP_TYPES))
            ids = [g.group_id for g in select_consumer_groups(listed, frozenset(), frozenset())]
        else:
            ids = list(group or [])
        found, missing = access.describe_groups(ids)
        described: list[DescribedGroup] = []
        if view is View.OFFSETS:
            committed = access.committed_offsets(list(found))
            needed = partitions_to_look_up(found.values(), committed)
            with_start = resolve_format(output, _stdout()) is not OutputFormat.TEXT
            ends, starts = access.log_offsets(needed, earliest=with_start)
            for group_id in java_sorted(found):
                rows = offset_rows(found[group_id], committed.get(group_id, {}), ends, starts)
                described.append(DescribedGroup(found[group_id], rows))
        else:
            described = [DescribedGroup(found[g]) for g in java_sorted(found)]
    finally:
        access.close()
    emit(DescribeResult(view, verbose, tuple(described), tuple(missing)), output)
    if missing:
        names = ", ".join(f"'{g}'" for g in missing)
        noun = "Consumer group" if len(missing) == 1 else "Consumer groups"
        verb = "does" if len(missing) == 1 else "do"
        message = f"{noun} {names} {verb} not exist."
        raise PartialFailure(message) if found else NotFoundError(message)


def _stdout() -> TextIO:
    import sys

    return sys.stdout
