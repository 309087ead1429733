"""The Apache ``kafka-streams-groups.sh`` flag form, validated in the Apache tool's order with
its messages, and translated into our subcommand form. No logic beyond that lives here."""

from __future__ import annotations

from collections.abc import Sequence

from kafka_groups.apache_argv import Arg, Opt, Parsed, parse
from kafka_groups.cli.consumer_groups_flags import (
    SCENARIOS_CHECK_ORDER,
    SELECTING,
    SELECTORS,
    VALUED_SCENARIOS,
    bootstrap_from_environment,
    connection_args,
    no_selector,
    output_format,
    scenarios_given,
    watch_interval,
)
from kafka_groups.cli.runner import HELP, VERSION, Request
from kafka_groups.core.selectors import check_groups, check_names, check_topic_args
from kafka_groups.errors import UsageError
from kafka_groups.timeouts import STREAMS_TIMEOUT_MS

ACTIONS = ("list", "describe", "reset-offsets", "delete", "delete-offsets")

OPTIONS: tuple[Opt, ...] = (
    Opt("bootstrap-server", Arg.REQUIRED),
    Opt("command-config", Arg.REQUIRED),
    Opt("group", Arg.REQUIRED),
    Opt("all-groups"),
    *(Opt(a) for a in ACTIONS),
    Opt("timeout", Arg.REQUIRED),
    Opt("members", available_if=("describe",)),
    Opt("offsets", available_if=("describe",)),
    Opt("verbose", available_if=("describe",)),
    Opt("health", available_if=("describe",)),  # ours: the loss radar
    Opt("state", Arg.OPTIONAL, available_if=("describe", "list")),
    Opt("watch", Arg.OPTIONAL, available_if=("describe", "list")),  # ours
    Opt("input-topic", Arg.REQUIRED),
    Opt("all-input-topics"),
    Opt("dry-run"),
    Opt("execute"),
    Opt("export"),
    *(Opt(s, Arg.REQUIRED if s in VALUED_SCENARIOS else Arg.NONE) for s in SCENARIOS_CHECK_ORDER),
    Opt("delete-internal-topic", Arg.REQUIRED),
    Opt("delete-all-internal-topics"),
    Opt("help"),
    Opt("version"),
    # Ours, accepted in the flag form too.
    Opt("backup-dir", Arg.REQUIRED),
    Opt("group-pattern", Arg.REQUIRED, available_if=SELECTING),
    Opt("exclude-group", Arg.REQUIRED, available_if=SELECTING),
    Opt("skip-active", available_if=("reset-offsets",)),
    Opt("allow-non-atomic", available_if=("reset-offsets",)),
    Opt("output", Arg.REQUIRED),
    Opt("o", Arg.REQUIRED),  # short for --output
    Opt("debug"),
    Opt("cluster", Arg.REQUIRED),  # a cluster of clusters.toml
    Opt("yes"),  # a write to a protected cluster, confirmed beforehand
)
SCOPES = "[all-groups], [group]"


def _conflict(used: str, other: str) -> UsageError:
    return UsageError(f'Option "[{used}]" can\'t be used with option "[{other}]"')


def validate(p: Parsed) -> str:
    """Apply the Apache tool's checks in its order; return the one action requested."""
    if not p.present(("bootstrap-server", "cluster")) and not bootstrap_from_environment():
        raise UsageError('Missing required argument "[bootstrap-server]"')
    if p.has("describe"):
        if not p.present(SELECTORS):
            raise no_selector(p, "describe")
        if len(p.present(("members", "offsets", "state"))) > 1:
            raise UsageError(
                "Option [describe] takes at most one of these options: [members], [offsets], [state]"
            )
        if p.has("state") and p.one("state") is not None:
            raise UsageError("Option [describe] does not take a value for [state]")
    if p.has("delete"):
        if not p.present(SELECTORS):
            raise no_selector(p, "delete")
        if p.present(("input-topic", "all-input-topics")):
            raise UsageError(
                "Kafka Streams does not support topic-specific offset deletion from a streams group."
            )
    if p.has("delete-offsets"):
        if not p.present(("input-topic", "all-input-topics")) or not p.has("group"):
            raise UsageError(
                "Option [delete-offsets] takes the [group] and one of these options: "
                "[all-input-topics], [input-topic]"
            )
        if len(p.all("group")) > 1:
            found = ", ".join(p.all("group"))
            raise UsageError(
                f"Option [delete-offsets] supports only one [group] at a time, but found: [{found}]"
            )
    if p.has("reset-offsets"):
        if p.has("dry-run") and p.has("execute"):
            raise UsageError("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
        if not p.has("dry-run") and not p.has("execute"):
            raise UsageError("Option [reset-offsets] takes the option: [execute] or [dry-run]")
        if not p.present(SELECTORS):
            raise no_selector(p, "reset-offsets")
        for scenario in SCENARIOS_CHECK_ORDER:
            others = [s for s in SCENARIOS_CHECK_ORDER if s != scenario and p.has(s)]
            if p.has(scenario) and others:
                raise _conflict(scenario, others[0])
    if p.has("delete-all-internal-topics"):
        if not p.has("reset-offsets") and not p.has("delete"):
            raise UsageError(
                "Option [delete-all-internal-topics] takes one of these options: [delete], [reset-offsets]"
            )
        if p.has("reset-offsets") and not p.has("execute"):
            raise UsageError(
                "Option [delete-all-internal-topics] takes [execute] when [reset-offsets] is used."
            )
    elif p.has("delete-internal-topic") and not (p.has("reset-offsets") and p.has("execute")):
        raise UsageError("Option [delete-internal-topic] takes [reset-offsets] when [execute] is used.")
    if p.present(("dry-run", "execute")) and not p.has("reset-offsets"):
        raise UsageError("Only Option [reset-offsets] accepts [execute] or [dry-run]")
    if p.has("group") and p.has("all-groups"):
        raise _conflict("group", "all-groups")
    if p.has("group") and p.has("list"):
        raise _conflict("group", "list")
    if p.has("input-topic"):
        for action in ("list", "describe", "delete"):
            if p.has(action):
                raise _conflict("input-topic", action)
    actions = p.present(ACTIONS)
    if len(actions) != 1:
        raise UsageError(
            "Command must include exactly one action: --list, --describe, --delete, --reset-offsets, "
            "or --delete-offsets."
        )
    return actions[0]


def translate(argv: Sequence[str]) -> Request | tuple[str, ...]:
    p = parse(argv, OPTIONS)
    if p.has("help"):
        return HELP
    if p.has("version"):
        return VERSION
    action = validate(p)
    check_groups(p.all("group"))
    check_topic_args(p.all("input-topic"), "--input-topic")
    check_names(p.all("delete-internal-topic"), "--delete-internal-topic", "topic")
    connection = connection_args(p, STREAMS_TIMEOUT_MS)
    if action == "list":
        state = p.one("state")
        from kafka_groups.commands.list_groups import ListGroupsRequest

        return ListGroupsRequest(
            connection,
            state=state or None,
            show_state=p.has("state"),
            streams=True,
            output=output_format(p),
            watch=watch_interval(p),
        )
    if action == "describe":
        views = p.present(("members", "state"))
        from kafka_groups.commands.describe_streams import DescribeStreamsRequest

        return DescribeStreamsRequest(
            connection,
            groups=tuple(p.all("group")),
            all_groups=p.has("all-groups"),
            view=views[0] if views else "offsets",
            verbose=p.has("verbose"),
            output=output_format(p),
            group_patterns=tuple(p.all("group-pattern")),
            exclude_groups=tuple(p.all("exclude-group")),
            health=p.has("health"),
            watch=watch_interval(p),
        )
    if action == "reset-offsets":
        from kafka_groups.commands.reset_offsets import ResetOffsetsRequest

        return ResetOffsetsRequest(
            connection,
            groups=tuple(p.all("group")),
            all_groups=p.has("all-groups"),
            topics=tuple(p.all("input-topic")),
            all_topics=p.has("all-input-topics"),
            scenarios=scenarios_given(p),
            dry_run=p.has("dry-run"),
            execute_changes=p.has("execute"),
            export=p.has("export"),
            backup_dir=p.one("backup-dir"),
            output=output_format(p),
            streams=True,
            delete_internal_topics=tuple(p.all("delete-internal-topic")),
            delete_all_internal_topics=p.has("delete-all-internal-topics"),
            group_patterns=tuple(p.all("group-pattern")),
            exclude_groups=tuple(p.all("exclude-group")),
            skip_active=p.has("skip-active"),
            allow_non_atomic=p.has("allow-non-atomic"),
        )
    if action == "delete-offsets":
        from kafka_groups.commands.delete_groups import DeleteOffsetsRequest

        return DeleteOffsetsRequest(
            connection,
            group=p.all("group")[0],
            topics=tuple(p.all("input-topic")),
            all_input_topics=p.has("all-input-topics"),
            streams=True,
            backup_dir=p.one("backup-dir"),
            output=output_format(p),
        )
    from kafka_groups.commands.delete_streams import DeleteStreamsGroupsRequest

    return DeleteStreamsGroupsRequest(
        connection,
        groups=tuple(p.all("group")),
        all_groups=p.has("all-groups"),
        delete_all_internal_topics=p.has("delete-all-internal-topics"),
        backup_dir=p.one("backup-dir"),
        output=output_format(p),
        group_patterns=tuple(p.all("group-pattern")),
        exclude_groups=tuple(p.all("exclude-group")),
    )
