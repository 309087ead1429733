"""Shell completion for both forms of the three tools: what TAB offers.

The shell scripts in ``completions/`` run the tool itself with ``_KAFKA_TOOLS_COMPLETE`` set
to the shell's name; the entry points hand over to :func:`run` before importing anything
heavy, since every TAB starts a process. The Apache flag form is completed here from the
tables below (the options valid for the action already typed, value hints, and live group
and topic names from the cluster named on the line); the subcommand form is completed by
Click from the Typer app.

Output protocol (stdout, one item a line): the first line is ``files`` (let the shell
complete file names) or ``plain``; each further line is a candidate, as the shell wants it
(bash: the value; zsh: ``value:description`` with colons in the value escaped; fish:
``value<TAB>description``). Any error prints nothing at all.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

ENV_COMPLETE = "_KAFKA_TOOLS_COMPLETE"
SHELLS = ("bash", "zsh", "fish")

COMMON = ("bootstrap-server", "command-config", "timeout", "output", "debug")
SCENARIOS = (
    "to-earliest",
    "to-latest",
    "to-current",
    "to-offset",
    "to-datetime",
    "by-duration",
    "shift-by",
    "from-file",
    "to-start-time",
    "to-nearest",
    "to-group",
)
# Ours: selecting groups by regex (describe, delete, reset).
SELECT = ("group-pattern", "exclude-group")
RESET_SCOPE = ("group", "all-groups", *SELECT, "skip-active", "dry-run", "execute", "export", "backup-dir")


@dataclass(frozen=True)
class ToolSpec:
    """One tool's flag form as completion sees it."""

    subcommands: tuple[str, ...]
    actions: tuple[str, ...]
    per_action: Mapping[str, tuple[str, ...]]
    valued: frozenset[str]  # options that take a value
    common: tuple[str, ...] = COMMON
    # Options given at most once among each of these sets.
    exclusive: tuple[tuple[str, ...], ...] = ()
    repeatable: frozenset[str] = frozenset({"group", "topic", "input-topic", "config", *SELECT})
    optional_value: frozenset[str] = frozenset({"state", "type"})

    def options(self) -> set[str]:
        return {*self.actions, *self.common, *(o for opts in self.per_action.values() for o in opts)}


_GROUP_EXCLUSIVE = (
    SCENARIOS,
    ("dry-run", "execute"),
    ("group", "all-groups", "group-pattern"),
    ("members", "offsets", "state"),
)
_CG_VALUED = frozenset(
    {"bootstrap-server", "command-config", "group", "topic", "timeout", "output", "backup-dir"}
    | {"to-offset", "from-file", "to-datetime", "by-duration", "shift-by", "validate-regex"}
    | {"to-group", *SELECT}
)

TOOLS: dict[str, ToolSpec] = {
    "kafka-consumer-groups": ToolSpec(
        subcommands=("list", "describe", "reset-offsets", "delete-offsets", "delete"),
        actions=("list", "describe", "reset-offsets", "delete-offsets", "delete", "validate-regex"),
        per_action={
            "list": ("state", "type", "watch"),
            "describe": (
                "group",
                "all-groups",
                *SELECT,
                "members",
                "offsets",
                "state",
                "verbose",
                "health",
                "lag-time",
                "watch",
            ),
            "reset-offsets": (*RESET_SCOPE, "topic", "all-topics", *SCENARIOS),
            "delete-offsets": ("group", "topic", "backup-dir"),
            "delete": ("group", "all-groups", *SELECT, "backup-dir"),
            "validate-regex": (),
        },
        valued=_CG_VALUED,
        exclusive=(*_GROUP_EXCLUSIVE, ("topic", "all-topics")),
        optional_value=frozenset({"state", "type", "watch"}),
    ),
    "kafka-streams-groups": ToolSpec(
        subcommands=("list", "describe", "reset-offsets", "delete-offsets", "delete"),
        actions=("list", "describe", "reset-offsets", "delete-offsets", "delete"),
        per_action={
            "list": ("state", "watch"),
            "describe": (
                "group",
                "all-groups",
                *SELECT,
                "members",
                "offsets",
                "state",
                "verbose",
                "health",
                "watch",
            ),
            "reset-offsets": (*RESET_SCOPE, "input-topic", "all-input-topics", *SCENARIOS),
            "delete-offsets": ("group", "input-topic", "all-input-topics", "backup-dir"),
            "delete": (
                "group",
                "all-groups",
                *SELECT,
                "delete-internal-topic",
                "delete-all-internal-topics",
                "backup-dir",
            ),
        },
        valued=(_CG_VALUED - {"topic", "validate-regex"}) | {"input-topic", "delete-internal-topic"},
        exclusive=(
            *_GROUP_EXCLUSIVE,
            ("input-topic", "all-input-topics"),
            ("delete-internal-topic", "delete-all-internal-topics"),
        ),
        repeatable=frozenset({"group", "input-topic", "delete-internal-topic", *SELECT}),
        optional_value=frozenset({"state", "watch"}),
    ),
    "kafka-topics": ToolSpec(
        subcommands=("list", "describe", "create", "alter", "delete"),
        actions=("list", "describe", "create", "alter", "delete"),
        per_action={
            "list": ("topic", "exclude-internal"),
            "describe": (
                "topic",
                "topic-id",
                "exclude-internal",
                "under-replicated-partitions",
                "under-min-isr-partitions",
                "at-min-isr-partitions",
                "unavailable-partitions",
                "topics-with-overrides",
                "if-exists",
                "partition-size-limit-per-response",
            ),
            "create": (
                "topic",
                "partitions",
                "replication-factor",
                "replica-assignment",
                "config",
                "if-not-exists",
            ),
            "alter": ("topic", "partitions", "replica-assignment", "if-exists", "dry-run"),
            "delete": ("topic", "topic-id", "if-exists"),
        },
        valued=frozenset(
            {"bootstrap-server", "command-config", "output", "topic", "topic-id", "partitions"}
            | {"replication-factor", "replica-assignment", "config", "partition-size-limit-per-response"}
        ),
        common=("bootstrap-server", "command-config", "output", "debug"),
        exclusive=(
            (
                "under-replicated-partitions",
                "under-min-isr-partitions",
                "at-min-isr-partitions",
                "unavailable-partitions",
                "topics-with-overrides",
            ),
            ("topic", "topic-id"),
        ),
        repeatable=frozenset({"config"}),
        optional_value=frozenset(),
    ),
}

DESCRIPTIONS = {
    "list": "list groups or topics",
    "describe": "describe groups or topics",
    "reset-offsets": "reset committed offsets (dry run unless --execute)",
    "delete-offsets": "delete a group's committed offsets for topics",
    "delete": "delete groups or topics",
    "validate-regex": "check a topic regex as the broker reads it",
    "create": "create a topic",
    "alter": "add partitions to a topic",
    "bootstrap-server": "host:port[,host:port] of the cluster",
    "command-config": "client properties file (security, SASL, TLS)",
    "timeout": "milliseconds to wait for the cluster",
    "output": "text, table, json or csv (ours)",
    "debug": "tracebacks and client logs (ours)",
    "group": "a group id",
    "all-groups": "every group",
    "group-pattern": "groups whose whole id matches a regex (ours)",
    "exclude-group": "leave out groups matching a regex (ours)",
    "skip-active": "reset the inactive groups, name the active ones (ours)",
    "topic": "a topic (topic:partitions for resets)",
    "all-topics": "every topic the group has offsets for",
    "input-topic": "an input topic of the streams application",
    "dry-run": "show the new offsets without changing them",
    "execute": "change the offsets",
    "export": "print the plan as CSV for --from-file",
    "backup-dir": "where the backup of the current state goes (ours)",
    "to-earliest": "the log start",
    "to-latest": "the log end",
    "to-current": "the committed offsets (re-commit)",
    "to-offset": "one offset for every partition",
    "to-datetime": "the first offset at or after a time",
    "by-duration": "the first offset at or after now minus a duration",
    "shift-by": "move by N (negative: back)",
    "from-file": "a CSV plan (--export)",
    "to-start-time": "the group's start time (KIP-1282, ours)",
    "to-nearest": "the nearest offset still in the log (KIP-842, ours)",
    "to-group": "another group's committed offsets (ours)",
    "members": "the members of each group",
    "offsets": "the offsets of each group (the default)",
    "state": "the group state",
    "verbose": "more detail",
    "health": "the loss radar: lost and at-risk records (ours)",
    "lag-time": "the lag in time of each partition (ours)",
    "type": "the group type",
    "watch": "refresh every N seconds: live view, JSON Lines when piped (ours)",
}

_NOW_HINT_FORMAT = "%Y-%m-%dT%H:%M:%S.000"


@dataclass
class Line:
    """A command line read up to the cursor: the words before the one being completed."""

    words: list[str]
    incomplete: str
    given: dict[str, int] = field(default_factory=dict)
    values: dict[str, str] = field(default_factory=dict)


def split_line(line: str) -> tuple[list[str], str]:
    """Shell words of ``line`` (the text before the cursor) and the word being typed.
    An open quote is closed for the split; a trailing blank starts a new, empty word."""
    for closing in ("", '"', "'"):
        try:
            words = shlex.split(line + closing)
            break
        except ValueError:
            continue
    else:
        return [], ""
    if not line or (line[-1].isspace() and not closing):
        return words, ""
    return words[:-1], words[-1] if words else ""


def _option_name(token: str) -> str | None:
    if not token.startswith("-") or token in ("-", "--"):
        return None
    return (token[2:] if token.startswith("--") else token[1:]).partition("=")[0]


def read_line(spec: ToolSpec, words: Sequence[str], incomplete: str) -> tuple[Line, str | None]:
    """Which options are on the line (and the values of the connection ones), and which option
    awaits a value in the word being typed (None when an option name or nothing is due)."""
    line = Line(list(words), incomplete)
    pending: str | None = None
    for token in words:
        if pending is not None:
            line.values.setdefault(pending, token)
            pending = None
            continue
        name = _option_name(token)
        if name is None:
            continue
        if name == "o":
            name = "output"
        line.given[name] = line.given.get(name, 0) + 1
        if "=" in token:
            line.values.setdefault(name, token.partition("=")[2])
        elif name in spec.valued:
            pending = name
        elif name in spec.optional_value:
            pending = name  # taken only when the next word is no option
    if pending in spec.optional_value and (
        incomplete.startswith("-") or ("describe" in line.given and pending != "watch")
    ):
        pending = None  # --describe --state takes no value
    return line, pending


def offered_options(spec: ToolSpec, line: Line) -> list[str]:
    """The option names valid after what is on the line, in a teaching order: the action
    first, then what that action takes, then the connection options."""
    actions = [a for a in spec.actions if a in line.given]
    if not actions:
        names = [*spec.actions, *spec.common]
    else:
        names = [*spec.per_action.get(actions[0], ()), *spec.common]
    taken = set(line.given)
    out = []
    for name in names:
        if name in taken and name not in spec.repeatable:
            continue
        if any(name in group and (taken & set(group)) - {name} for group in spec.exclusive):
            continue
        out.append(name)
    return list(dict.fromkeys(out))


@dataclass(frozen=True)
class Answer:
    candidates: list[tuple[str, str]]  # (value, description)
    files: bool = False


def _datetime_hints() -> list[tuple[str, str]]:
    import time

    now = time.localtime()
    midnight = time.strftime("%Y-%m-%dT00:00:00.000", now)
    return [
        (time.strftime(_NOW_HINT_FORMAT, now), "now (YYYY-MM-DDTHH:mm:SS.sss, local time)"),
        (midnight, "today 00:00 local; append Z or +HH:mm for another zone"),
    ]


def complete_value(prog: str, option: str, incomplete: str, line: Line, names: NameSource | None) -> Answer:
    if option in ("command-config", "from-file", "backup-dir", "replica-assignment"):
        return Answer([], files=option != "replica-assignment")
    if option == "output":
        return Answer([(f, "") for f in ("table", "text", "json", "csv")])
    if option == "to-datetime":
        return Answer(_datetime_hints())
    if option == "by-duration":
        return Answer([("PT15M", "15 minutes"), ("PT1H", "one hour"), ("P1D", "one day")])
    if option == "state":
        if prog == "kafka-streams-groups":
            states: tuple[str, ...] = ("Empty", "NotReady", "Assigning", "Reconciling", "Stable", "Dead")
        else:
            states = ("Stable", "Empty", "PreparingRebalance", "CompletingRebalance", "Assigning")
            states += ("Reconciling", "Dead")
        return Answer([(s, "") for s in states])
    if option == "type":
        return Answer([("consumer", ""), ("classic", "")])
    if option == "watch":
        return Answer([("2", "seconds between refreshes (the default)"), ("5", "seconds"), ("10", "seconds")])
    if names is None:
        return Answer([])
    if option in ("group", "to-group"):  # --to-group: the source, any group on the cluster
        kind = "streams-groups" if prog == "kafka-streams-groups" else "groups"
        return Answer([(g, "group") for g in names.lookup(kind, line)])
    if option in ("topic", "input-topic", "delete-internal-topic"):
        topics = names.topics(line)
        if ":" in incomplete and prog != "kafka-topics":
            topic = incomplete.partition(":")[0]
            count = topics.get(topic, 0)
            return Answer([(f"{topic}:{p}", f"partition {p}") for p in range(count)])
        return Answer([(t, f"{n} partition(s)") for t, n in sorted(topics.items())])
    return Answer([])


def complete_flag_form(prog: str, words: Sequence[str], incomplete: str, names: NameSource | None) -> Answer:
    spec = TOOLS[prog]
    if incomplete.startswith("--") and "=" in incomplete:
        name, _, value = incomplete[2:].partition("=")
        line, _ = read_line(spec, words, value)
        if name in spec.valued or name in spec.optional_value:
            inner = complete_value(prog, name, value, line, names)
            return Answer([(f"--{name}={v}", d) for v, d in inner.candidates], inner.files)
        return Answer([])
    line, pending = read_line(spec, words, incomplete)
    if pending is not None:
        return complete_value(prog, pending, incomplete, line, names)
    if incomplete and not incomplete.startswith("-"):
        return Answer([])
    return Answer([(f"--{o}", DESCRIPTIONS.get(o, "")) for o in offered_options(spec, line)])


def complete(prog: str, words: Sequence[str], incomplete: str, names: NameSource | None = None) -> Answer:
    """What TAB offers for ``incomplete`` after ``words`` (the words after the program name)."""
    spec = TOOLS[prog]
    if words and words[0] in spec.subcommands:
        # Names after --group/--topic come live in this form too; the rest comes from Click.
        previous = _option_name(words[-1]) if len(words) > 1 and "=" not in words[-1] else None
        if previous in ("group", "to-group", "topic", "input-topic") and not incomplete.startswith("-"):
            line, _ = read_line(spec, words[1:], incomplete)
            return complete_value(prog, previous, incomplete, line, names)
        return Answer(_click_completions(prog, list(words), incomplete))
    if not words and incomplete and not incomplete.startswith("-"):
        return Answer([(s, "subcommand") for s in spec.subcommands])
    answer = complete_flag_form(prog, words, incomplete, names)
    if not words and not incomplete:
        return Answer([*answer.candidates, *((s, "subcommand") for s in spec.subcommands)])
    return answer


def _click_completions(prog: str, args: list[str], incomplete: str) -> list[tuple[str, str]]:
    import importlib

    import typer

    module = {
        "kafka-consumer-groups": "kafka_groups.cli.consumer_groups_app",
        "kafka-streams-groups": "kafka_groups.cli.streams_groups_app",
        "kafka-topics": "kafka_topics.app",
    }[prog]
    command = typer.main.get_command(importlib.import_module(module).app)
    shell_complete = _shell_completion_of(command)
    items = shell_complete(command, {}, prog, ENV_COMPLETE).get_completions(args, incomplete)
    return [(str(item.value), item.help or "") for item in items if item.type == "plain"]


def _shell_completion_of(command: object) -> Any:
    """A ``ShellComplete`` of the Click the command is built on (the ``click`` package up to
    Typer 0.20, the copy Typer carries from 0.21 on, when no ``click`` is installed), made
    concrete: only its ``get_completions`` is used, which every shell's completion shares."""
    import importlib

    for cls in type(command).__mro__:
        package, _, leaf = cls.__module__.rpartition(".")
        if leaf == "core" and package and package != "typer":
            base = importlib.import_module(f"{package}.shell_completion").ShellComplete

            class Lister(base):  # type: ignore[misc, valid-type]
                name = "kafka-tools"
                source_template = ""

                def source_vars(self) -> dict[str, Any]:
                    return {}

                def get_completion_args(self) -> tuple[list[str], str]:
                    return [], ""

                def format_completion(self, item: Any) -> str:
                    return str(item.value)

            return Lister
    raise LookupError(f"no Click under {type(command).__name__}")


class NameSource:
    """Live names for the cluster named on the line (or in the environment), through a short
    on-disk cache; never raises."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ

    def _connection(self, line: Line) -> tuple[str | None, str | None]:
        return line.values.get("bootstrap-server"), line.values.get("command-config")

    def lookup(self, kind: str, line: Line) -> list[str]:
        found = self._fetch(kind, line)
        return sorted(found) if isinstance(found, (list, dict)) else []

    def topics(self, line: Line) -> dict[str, int]:
        found = self._fetch("topics", line)
        return {str(k): int(v) for k, v in found.items()} if isinstance(found, dict) else {}

    def _fetch(self, kind: str, line: Line) -> object:
        from kafka_groups.cli import name_cache

        bootstrap, config = self._connection(line)
        try:
            from kafka_groups.settings import resolve_settings

            settings = resolve_settings(bootstrap, config, 1000, environ=self.environ)
        except Exception:
            return None
        cached = name_cache.read(settings.bootstrap_servers, kind, self.environ)
        if cached is not None:
            return cached
        import time

        left = TAB_BUDGET_S - _process_age_s()
        _hard_stop(max(left, 0.0))
        deadline = time.monotonic() + left - LOOKUP_MARGIN_S
        from kafka_groups.access.names import list_names

        found = list_names(settings, kind, deadline)
        if found is not None:
            name_cache.write(settings.bootstrap_servers, kind, found, self.environ)
        return found


def render(shell: str, answer: Answer, incomplete: str, wordbreaks: str = "=:") -> str:
    lines = ["files" if answer.files else "plain"]
    for value, description in answer.candidates:
        if not value.startswith(incomplete):
            continue
        if shell == "bash":
            # bash splits words at COMP_WORDBREAKS (= and :): it replaces only the part after
            # the last such character, so that is what it is given.
            cut = max((incomplete.rfind(c) for c in wordbreaks if c in "=:"), default=-1)
            lines.append(value[cut + 1 :])
        elif shell == "zsh":
            text = value.replace("\\", "\\\\").replace(":", "\\:")
            lines.append(f"{text}:{description}" if description else text)
        else:
            lines.append(f"{value}\t{description}" if description else value)
    return "\n".join(lines) + "\n"


# The whole TAB, counted from the process start, ends within this; a live lookup gets what
# is left of it less a margin for printing and exiting.
TAB_BUDGET_S = 0.95
LOOKUP_MARGIN_S = 0.15


def _process_age_s() -> float:
    """Seconds since this process started (0 where /proc cannot tell)."""
    try:
        with open("/proc/self/stat") as f:
            started_ticks = int(f.read().rpartition(")")[2].split()[19])
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(uptime - started_ticks / os.sysconf("SC_CLK_TCK"), 0.0)
    except (OSError, ValueError, IndexError):
        return 0.0


def _hard_stop(after_s: float) -> None:
    """Whatever hangs (a paused broker, a slow disk), the shell gets its answer: the process
    ends silently ``after_s`` from now."""
    import threading

    killer = threading.Timer(after_s, lambda: os._exit(0))
    killer.daemon = True
    killer.start()


def run(prog: str, argv: Sequence[str], environ: Mapping[str, str] | None = None) -> int:
    """The hidden entry point: print what TAB offers; print nothing on any error and exit 0."""
    env = os.environ if environ is None else environ
    try:
        shell = env.get(ENV_COMPLETE, "")
        if shell not in SHELLS:
            return 0
        if shell == "bash":
            point = int(env.get("COMP_POINT", "0") or 0)
            words, incomplete = split_line(env.get("COMP_LINE", "")[:point])
            words = words[1:]
        else:
            words, incomplete = list(argv[:-1]), argv[-1] if argv else ""
        names = NameSource(env)
        answer = complete(prog, words, incomplete, names)
        text = render(shell, answer, incomplete, env.get("COMP_WORDBREAKS", "=:"))
        sys.stdout.write(text)
        sys.stdout.flush()
    except BaseException:
        pass
    # Skip the interpreter's teardown (a Kafka client's threads can hold it up).
    os._exit(0)
