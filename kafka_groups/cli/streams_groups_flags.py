"""The Apache ``kafka-streams-groups.sh`` flag form, validated and translated to subcommands."""

from __future__ import annotations

from collections.abc import Sequence

from kafka_groups.apache_argv import Arg, Opt, parse
from kafka_groups.cli.consumer_groups_flags import bootstrap_from_environment, connection_args, output_format
from kafka_groups.cli.runner import HELP, VERSION, Request
from kafka_groups.commands.list_groups import ListGroupsRequest
from kafka_groups.errors import CliError, UsageError

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
    Opt("topology", available_if=("describe",)),
    Opt("state", Arg.OPTIONAL, available_if=("describe", "list")),
    Opt("input-topic", Arg.REQUIRED),
    Opt("all-input-topics"),
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
    Opt("delete-internal-topic", Arg.REQUIRED),
    Opt("delete-all-internal-topics"),
    Opt("help"),
    Opt("version"),
    Opt("output", Arg.REQUIRED),
    Opt("o", Arg.REQUIRED),  # short for --output
    Opt("debug"),
)
DEFAULT_TIMEOUT_MS = 30000


def translate(argv: Sequence[str]) -> Request | tuple[str, ...]:
    p = parse(argv, OPTIONS)
    if p.has("help"):
        return HELP
    if p.has("version"):
        return VERSION
    if not p.has("bootstrap-server") and not bootstrap_from_environment():
        raise UsageError('Missing required argument "[bootstrap-server]"')
    actions = p.present(ACTIONS)
    if len(actions) != 1:
        raise UsageError(
            "Command must include exactly one action: --list, --describe, --reset-offsets, --delete, "
            "--delete-offsets"
        )
    if actions[0] == "list":
        state = p.one("state")
        return ListGroupsRequest(
            connection_args(p, DEFAULT_TIMEOUT_MS),
            state=state or None,
            show_state=p.has("state"),
            streams=True,
            output=output_format(p),
        )
    raise CliError(f"--{actions[0]} is not available yet in this version of kafka-streams-groups")
