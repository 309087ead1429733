"""The Apache ``kafka-streams-groups.sh`` flag form, validated and translated to subcommands."""

from __future__ import annotations

from collections.abc import Sequence

from kafka_groups.apache_argv import Arg, Opt, parse
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


def translate(argv: Sequence[str]) -> list[str]:
    p = parse(argv, OPTIONS)
    if p.has("help"):
        return ["--help"]
    if p.has("version"):
        return ["--version"]
    if not p.has("bootstrap-server"):
        from kafka_groups.cli.consumer_groups_flags import _bootstrap_from_environment

        if not _bootstrap_from_environment():
            raise UsageError('Missing required argument "[bootstrap-server]"')
    actions = p.present(ACTIONS)
    if len(actions) != 1:
        raise UsageError(
            "Command must include exactly one action: --list, --describe, --reset-offsets, --delete, "
            "--delete-offsets"
        )
    common: list[str] = []
    for name in ("bootstrap-server", "command-config", "output"):
        if p.has(name):
            common += [f"--{name}", p.one(name) or ""]
    common += ["--timeout", str(p.number("timeout", DEFAULT_TIMEOUT_MS))]
    if p.has("debug"):
        common.append("--debug")
    if actions[0] == "list":
        if p.has("state"):
            value = p.one("state")
            common += ["--state", value] if value else ["--show-state"]
        return ["list", *common]
    raise CliError(f"--{actions[0]} is not available yet in this version of kafka-streams-groups")
