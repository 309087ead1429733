"""The Apache ``kafka-topics.sh`` flag form: validated in its order, translated to subcommands."""

from __future__ import annotations

from collections.abc import Sequence

from kafka_groups.apache_argv import Arg, Opt, Parsed, parse
from kafka_groups.errors import CliError, UsageError

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
    if not p.has("bootstrap-server") and not _bootstrap_from_environment():
        raise UsageError("--bootstrap-server must be specified")
    return actions[0]


def _bootstrap_from_environment() -> bool:
    import os

    from kafka_groups.settings import ENV_BOOTSTRAP, ENV_COMMAND_CONFIG

    return bool(os.environ.get(ENV_BOOTSTRAP) or os.environ.get(ENV_COMMAND_CONFIG))


def translate(argv: Sequence[str]) -> list[str]:
    p = parse(argv, OPTIONS)
    if p.has("help") or not argv:
        return ["--help"]
    if p.has("version"):
        return ["--version"]
    action = validate(p)
    common: list[str] = []
    for name in ("bootstrap-server", "command-config", "output"):
        if p.has(name):
            common += [f"--{name}", p.one(name) or ""]
    if p.has("debug"):
        common.append("--debug")
    if action == "list":
        if p.has("topic"):
            common += ["--topic", p.one("topic") or ""]
        if p.has("exclude-internal"):
            common.append("--exclude-internal")
        return ["list", *common]
    raise CliError(f"--{action} is not available yet in this version of kafka-topics")
