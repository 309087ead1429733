"""The Apache ``kafka-consumer-groups.sh`` flag form, validated in the Apache tool's order
with its messages, and translated into our subcommand form. No logic beyond that lives here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kafka_groups.apache_argv import Arg, Opt, Parsed, parse, parse_long
from kafka_groups.cli.runner import HELP, VERSION, Request
from kafka_groups.core.selectors import check_groups, check_topic_args
from kafka_groups.errors import CliError, UsageError
from kafka_groups.render import OutputFormat
from kafka_groups.settings import ConnectionArgs
from kafka_groups.timeouts import GROUPS_TIMEOUT_MS

if TYPE_CHECKING:  # core.reset loads with the reset command only
    from kafka_groups.core.reset import Scenario

ACTIONS = ("list", "describe", "delete", "reset-offsets", "delete-offsets", "validate-regex")
SCENARIOS_CHECK_ORDER = (
    "to-offset",
    "to-datetime",
    "by-duration",
    "to-earliest",
    "to-latest",
    "to-current",
    "shift-by",
    "from-file",
    "to-start-time",  # ours (KIP-1282)
    "to-nearest",  # ours (KIP-842)
    "to-group",  # ours (as rpk group seek --to-group)
)
# The iteration order of the Apache tool's scenario set, which decides which conflict it names.
SCENARIOS_SET_ORDER = (
    "to-offset",
    "to-current",
    "to-datetime",
    "from-file",
    "by-duration",
    "to-earliest",
    "to-latest",
    "shift-by",
    "to-start-time",
    "to-nearest",
    "to-group",
)
VALUED_SCENARIOS = frozenset({"to-offset", "from-file", "to-datetime", "by-duration", "shift-by", "to-group"})
# Ours: group selection by regex, for the actions that take several groups.
SELECTING = ("describe", "delete", "reset-offsets")
SELECTORS = ("group", "all-groups", "group-pattern")

OPTIONS: tuple[Opt, ...] = (
    Opt("bootstrap-server", Arg.REQUIRED),
    Opt("command-config", Arg.REQUIRED),
    Opt("group", Arg.REQUIRED),
    Opt("all-groups"),
    Opt("topic", Arg.REQUIRED),
    Opt("all-topics"),
    Opt("list"),
    Opt("describe"),
    Opt("delete"),
    Opt("reset-offsets"),
    Opt("delete-offsets"),
    Opt("validate-regex", Arg.REQUIRED),
    Opt("timeout", Arg.REQUIRED),
    Opt("dry-run"),
    Opt("execute"),
    Opt("export"),
    Opt("to-offset", Arg.REQUIRED),
    Opt("from-file", Arg.REQUIRED),
    Opt("to-datetime", Arg.REQUIRED),
    Opt("by-duration", Arg.REQUIRED),
    Opt("to-earliest"),
    Opt("to-latest"),
    Opt("to-current"),
    Opt("shift-by", Arg.REQUIRED),
    Opt("to-start-time"),
    Opt("to-nearest"),
    Opt("to-group", Arg.REQUIRED),
    Opt("group-pattern", Arg.REQUIRED, available_if=SELECTING),
    Opt("exclude-group", Arg.REQUIRED, available_if=SELECTING),
    Opt("skip-active", available_if=("reset-offsets",)),
    Opt("allow-non-atomic", available_if=("reset-offsets",)),  # ours
    Opt("backup-dir", Arg.REQUIRED),
    Opt("members", available_if=("describe",)),
    Opt("offsets", available_if=("describe",)),
    Opt("verbose", available_if=("describe",)),
    Opt("health", available_if=("describe",)),  # ours: the loss radar
    Opt("lag-time", available_if=("describe",)),  # ours
    Opt("state", Arg.OPTIONAL, available_if=("describe", "list")),
    Opt("type", Arg.OPTIONAL, available_if=("list",)),
    Opt("help"),
    Opt("version"),
    # Ours, accepted in the flag form too.
    Opt("output", Arg.REQUIRED),
    Opt("o", Arg.REQUIRED),  # short for --output
    Opt("debug"),
    Opt("cluster", Arg.REQUIRED),  # a cluster of clusters.toml
    Opt("yes"),  # a write to a protected cluster, confirmed beforehand
    Opt("watch", Arg.OPTIONAL, available_if=("describe", "list")),  # ours
)


def _conflict(used: str, other: str) -> UsageError:
    return UsageError(f'Option "[{used}]" can\'t be used with option "[{other}]"')


def no_selector(p: Parsed, action: str) -> UsageError:
    """The Apache tool's message when no group is named (ours when only --exclude-group is)."""
    from kafka_groups.core.group_select import GroupSelection

    selection = GroupSelection(excludes=tuple(p.all("exclude-group")))
    try:
        selection.check(action)
    except UsageError as exc:
        return exc
    raise AssertionError("a selection without groups is refused")  # pragma: no cover


def validate(p: Parsed) -> str:
    """Apply the Apache tool's checks in its order; return the one action requested."""
    # --validate-regex contacts nothing: the Apache tool requires no --bootstrap-server with it.
    if (
        not p.has("validate-regex")
        and not p.present(("bootstrap-server", "cluster"))
        and not bootstrap_from_environment()
    ):
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
        if p.has("topic"):
            raise UsageError(
                "The consumer does not support topic-specific offset deletion from a consumer group."
            )
    if p.has("delete-offsets"):
        if p.has("from-file"):  # ours: the partitions of every group a plan file names
            if p.has("topic"):
                raise _conflict("from-file", "topic")
            if p.has("all-groups"):
                raise _conflict("from-file", "all-groups")
        elif not (p.has("group") and p.has("topic")):
            raise UsageError("Option [delete-offsets] takes the following options: [topic], [group]")
    if p.has("reset-offsets"):
        if p.has("dry-run") and p.has("execute"):
            raise UsageError("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
        if not p.present(SELECTORS):
            raise no_selector(p, "reset-offsets")
        for scenario in SCENARIOS_CHECK_ORDER:
            if p.has(scenario):
                others = [s for s in SCENARIOS_SET_ORDER if s != scenario and p.has(s)]
                if others:
                    raise _conflict(scenario, others[0])
    if p.has("group") and p.has("all-groups"):
        raise _conflict("group", "all-groups")
    if p.has("group") and p.has("list"):
        raise _conflict("group", "list")
    if p.has("topic"):
        for action in ("describe", "list"):
            if p.has(action):
                raise _conflict("topic", action)
    actions = p.present(ACTIONS)
    if len(actions) != 1:
        raise UsageError(
            "Command must include exactly one action: --list, --describe, --delete, --reset-offsets, "
            "--delete-offsets, --validate-regex"
        )
    return actions[0]


def bootstrap_from_environment() -> bool:
    import os

    from kafka_groups.settings import ENV_BOOTSTRAP, ENV_CLUSTER, ENV_COMMAND_CONFIG

    return any(os.environ.get(name, "").strip() for name in (ENV_BOOTSTRAP, ENV_COMMAND_CONFIG, ENV_CLUSTER))


def connection_args(p: Parsed, default_timeout: int = GROUPS_TIMEOUT_MS) -> ConnectionArgs:
    """``default_timeout`` is the tool's: KAFKA_TOOLS_TIMEOUT_MS, when set, comes before it."""
    return ConnectionArgs(
        bootstrap_server=p.one("bootstrap-server"),
        command_config=p.one("command-config"),
        timeout_ms=parse_long(p.one("timeout"), "timeout") if p.has("timeout") else None,
        debug=p.has("debug"),
        default_timeout_ms=default_timeout,
        cluster=p.one("cluster"),
        assume_yes=p.has("yes"),
    )


def output_format(p: Parsed) -> OutputFormat:
    raw = p.one("output")
    if raw is None:
        return OutputFormat.AUTO
    try:
        return OutputFormat(raw.lower())
    except ValueError:
        choices = ", ".join(f.value for f in OutputFormat)
        raise UsageError(f"Invalid value for --output: '{raw}' (choose from {choices})") from None


def watch_interval(p: Parsed) -> float | None:
    """``--watch [SECONDS]``: None without it; the default interval when given no value."""
    if not p.has("watch"):
        return None
    from kafka_groups.core.watch import parse_interval

    return parse_interval(p.one("watch"))


def scenarios_given(p: Parsed) -> tuple[tuple[Scenario, str | None], ...]:
    """The reset scenarios given, with their values, in the order the Apache tool checks them."""
    from kafka_groups.core.reset import Scenario

    return tuple(
        (Scenario(name), p.one(name) if name in VALUED_SCENARIOS else None)
        for name in SCENARIOS_CHECK_ORDER
        if p.has(name)
    )


def translate(argv: Sequence[str]) -> Request | tuple[str, ...]:
    """Apache flag form -> the request our subcommands build (``--list --state`` is
    ``list --show-state``); help and version go to the Typer app. Each request's module is
    imported in its branch, so that a command loads only what it uses."""
    p = parse(argv, OPTIONS)
    if p.has("help"):
        return HELP
    if p.has("version"):
        return VERSION
    action = validate(p)
    if action == "validate-regex":  # other options are ignored, as by the Apache tool
        from kafka_groups.commands.validate_regex import ValidateRegexRequest

        return ValidateRegexRequest(p.one("validate-regex") or "", output=output_format(p))
    check_groups(p.all("group"))
    check_topic_args(p.all("topic"))
    if action == "list":
        state, group_type = p.one("state"), p.one("type")
        from kafka_groups.commands.list_groups import ListGroupsRequest

        return ListGroupsRequest(
            connection_args(p),
            state=state or None,
            show_state=p.has("state"),
            group_type=group_type or None,
            show_type=p.has("type"),
            output=output_format(p),
            watch=watch_interval(p),
        )
    if action == "describe":
        from kafka_groups.commands.describe_groups import DescribeGroupsRequest

        return DescribeGroupsRequest(
            connection_args(p),
            groups=tuple(p.all("group")),
            all_groups=p.has("all-groups"),
            offsets=p.has("offsets"),
            members=p.has("members"),
            state=p.has("state"),
            verbose=p.has("verbose"),
            output=output_format(p),
            group_patterns=tuple(p.all("group-pattern")),
            exclude_groups=tuple(p.all("exclude-group")),
            health=p.has("health"),
            lag_time=p.has("lag-time"),
            watch=watch_interval(p),
        )
    if action == "reset-offsets":
        from kafka_groups.commands.reset_offsets import ResetOffsetsRequest

        return ResetOffsetsRequest(
            connection_args(p),
            groups=tuple(p.all("group")),
            all_groups=p.has("all-groups"),
            topics=tuple(p.all("topic")),
            all_topics=p.has("all-topics"),
            scenarios=scenarios_given(p),
            dry_run=p.has("dry-run"),
            execute_changes=p.has("execute"),
            export=p.has("export"),
            backup_dir=p.one("backup-dir"),
            output=output_format(p),
            skip_active=p.has("skip-active"),
            group_patterns=tuple(p.all("group-pattern")),
            exclude_groups=tuple(p.all("exclude-group")),
            allow_non_atomic=p.has("allow-non-atomic"),
        )
    if action == "delete-offsets" and p.has("from-file"):
        from kafka_groups.commands.delete_file_offsets import DeleteFileOffsetsRequest

        return DeleteFileOffsetsRequest(
            connection_args(p),
            path=p.one("from-file") or "",
            groups=tuple(p.all("group")),
            backup_dir=p.one("backup-dir"),
            output=output_format(p),
        )
    if action == "delete-offsets":
        groups = p.all("group")
        if len(groups) > 1:  # the Apache tool fails here too, with a stack trace
            raise UsageError("Found multiple arguments for option group, but you asked for only one")
        from kafka_groups.commands.delete_groups import DeleteOffsetsRequest

        return DeleteOffsetsRequest(
            connection_args(p),
            group=groups[0],
            topics=tuple(p.all("topic")),
            backup_dir=p.one("backup-dir"),
            output=output_format(p),
        )
    if action == "delete":
        from kafka_groups.commands.delete_groups import DeleteGroupsRequest

        return DeleteGroupsRequest(
            connection_args(p),
            groups=tuple(p.all("group")),
            all_groups=p.has("all-groups"),
            backup_dir=p.one("backup-dir"),
            output=output_format(p),
            group_patterns=tuple(p.all("group-pattern")),
            exclude_groups=tuple(p.all("exclude-group")),
        )
    raise CliError(f"--{action} is not available yet in this version of kafka-consumer-groups")
