"""The Apache ``kafka-topics.sh`` flag form: validated in its order, translated to subcommands."""

from __future__ import annotations

from collections.abc import Sequence

from kafka_groups.apache_argv import Arg, Opt, Parsed, parse
from kafka_groups.cli.consumer_groups_flags import bootstrap_from_environment, connection_args, output_format
from kafka_groups.cli.runner import HELP, VERSION, Request
from kafka_groups.errors import CliError, UsageError
from kafka_topics.list_request import TOPICS_TIMEOUT_MS, ListTopicsRequest

ACTIONS = ("list", "describe", "create", "alter", "delete")
OPTIONS: tuple[Opt, ...] = (
    Opt("bootstrap-server", Arg.REQUIRED),
    Opt("command-config", Arg.REQUIRED),
    *(Opt(a) for a in ACTIONS),
    Opt("topic", Arg.REQUIRED),
    Opt("topic-id", Arg.REQUIRED),
    Opt("partitions", Arg.REQUIRED),
    Opt("replication-factor", Arg.REQUIRED),
    Opt("replica-assignment", Arg.REQUIRED),
    Opt("config", Arg.REQUIRED),
    Opt("delete-config", Arg.REQUIRED),
    Opt("under-replicated-partitions"),
    Opt("under-min-isr-partitions"),
    Opt("at-min-isr-partitions"),
    Opt("unavailable-partitions"),
    Opt("topics-with-overrides"),
    Opt("if-exists"),
    Opt("if-not-exists"),
    Opt("exclude-internal"),
    Opt("partition-size-limit-per-response", Arg.REQUIRED),
    Opt("help"),
    Opt("version"),
    Opt("output", Arg.REQUIRED),
    Opt("o", Arg.REQUIRED),  # short for --output
    Opt("debug"),
)


def validate(p: Parsed) -> str:
    actions = p.present(ACTIONS)
    if len(actions) != 1:
        raise UsageError(
            "Command must include exactly one action: --list, --describe, --create, --alter or --delete"
        )
    if not p.has("bootstrap-server") and not bootstrap_from_environment():
        raise UsageError("--bootstrap-server must be specified")
    return actions[0]


def translate(argv: Sequence[str]) -> Request | tuple[str, ...]:
    p = parse(argv, OPTIONS)
    if p.has("help") or not argv:
        return HELP
    if p.has("version"):
        return VERSION
    action = validate(p)
    if action == "list":
        return ListTopicsRequest(
            connection_args(p, TOPICS_TIMEOUT_MS),
            topic=p.one("topic"),
            exclude_internal=p.has("exclude-internal"),
            output=output_format(p),
        )
    raise CliError(f"--{action} is not available yet in this version of kafka-topics")
