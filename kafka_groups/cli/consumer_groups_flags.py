"""The Apache ``kafka-consumer-groups.sh`` flag form, validated in the Apache tool's order
with its messages, and translated into our subcommand form. No logic beyond that lives here."""

from __future__ import annotations

from collections.abc import Sequence

from kafka_groups.apache_argv import Arg, Opt, Parsed, parse
from kafka_groups.errors import CliError, UsageError

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
)

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
    Opt("members", available_if=("describe",)),
    Opt("offsets", available_if=("describe",)),
    Opt("verbose", available_if=("describe",)),
    Opt("state", Arg.OPTIONAL, available_if=("describe", "list")),
    Opt("type", Arg.OPTIONAL, available_if=("list",)),
    Opt("help"),
    Opt("version"),
    # Ours, accepted in the flag form too.
    Opt("output", Arg.REQUIRED),
    Opt("o", Arg.REQUIRED),  # short for --output
    Opt("debug"),
)

DEFAULT_TIMEOUT_MS = 5000


def _conflict(used: str, other: str) -> UsageError:
    return UsageError(f'Option "[{used}]" can\'t be used with option "[{other}]"')


def validate(p: Parsed) -> str:
    """Apply the Apache tool's checks in its order; return the one action requested."""
    if not p.has("bootstrap-server") and not _bootstrap_from_environment():
        raise UsageError('Missing required argument "[bootstrap-server]"')
    if p.has("describe"):
        if not p.present(("group", "all-groups")):
            raise UsageError("Option [describe] takes one of these options: [all-groups], [group]")
        if len(p.present(("members", "offsets", "state"))) > 1:
            raise UsageError(
                "Option [describe] takes at most one of these options: [members], [offsets], [state]"
            )
        if p.has("state") and p.one("state") is not None:
            raise UsageError("Option [describe] does not take a value for [state]")
    if p.has("delete"):
        if not p.present(("group", "all-groups")):
            raise UsageError("Option [delete] takes one of these options: [all-groups], [group]")
        if p.has("topic"):
            raise UsageError(
                "The consumer does not support topic-specific offset deletion from a consumer group."
            )
    if p.has("delete-offsets") and not (p.has("group") and p.has("topic")):
        raise UsageError("Option [delete-offsets] takes the following options: [topic], [group]")
    if p.has("reset-offsets"):
        if p.has("dry-run") and p.has("execute"):
            raise UsageError("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
        if not p.present(("group", "all-groups")):
            raise UsageError("Option [reset-offsets] takes one of these options: [all-groups], [group]")
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


def _bootstrap_from_environment() -> bool:
    import os

    from kafka_groups.settings import ENV_BOOTSTRAP, ENV_COMMAND_CONFIG

    return bool(os.environ.get(ENV_BOOTSTRAP) or os.environ.get(ENV_COMMAND_CONFIG))


def _common(p: Parsed) -> list[str]:
    args: list[str] = []
    if p.has("bootstrap-server"):
        args += ["--bootstrap-server", p.one("bootstrap-server") or ""]
    if p.has("command-config"):
        args += ["--command-config", p.one("command-config") or ""]
    args += ["--timeout", str(p.number("timeout", DEFAULT_TIMEOUT_MS))]
    if p.has("output"):
        args += ["--output", p.one("output") or ""]
    if p.has("debug"):
        args.append("--debug")
    return args


def translate(argv: Sequence[str]) -> list[str]:
    """Apache flag form -> our subcommand form (``--list --state`` -> ``list --show-state``)."""
    p = parse(argv, OPTIONS)
    if p.has("help"):
        return ["--help"]
    if p.has("version"):
        return ["--version"]
    action = validate(p)
    if action == "list":
        args = ["list", *_common(p)]
        for name in ("state", "type"):
            if p.has(name):
                value = p.one(name)
                args += [f"--{name}", value] if value else [f"--show-{name}"]
        return args
    if action == "describe":
        args = ["describe", *_common(p)]
        for group in p.all("group"):
            args += ["--group", group]
        for flag in ("all-groups", "offsets", "members", "state", "verbose"):
            if p.has(flag):
                args.append(f"--{flag}")
        return args
    raise CliError(f"--{action} is not available yet in this version of kafka-consumer-groups")
