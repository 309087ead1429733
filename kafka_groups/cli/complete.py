"""Shell completion for both forms of the three tools: what TAB offers.

The shell scripts in ``completions/`` run the tool itself with ``_KAFKA_TOOLS_COMPLETE`` set
to the shell's name; the entry points hand over to :func:`run` before importing anything
heavy, since every TAB starts a process. The Apache flag form is completed here from the
tables in :mod:`kafka_groups.cli.complete_tables` (the options valid for the action already
typed, value hints) and live group and topic names from the cluster named on the line
(:mod:`kafka_groups.cli.complete_names`); the subcommand form is completed by Click from the
Typer app.

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

from kafka_groups.cli.complete_names import NameSource
from kafka_groups.cli.complete_tables import DESCRIPTIONS, TOOLS, ToolSpec

__all__ = [
    "DESCRIPTIONS",
    "TOOLS",
    "Answer",
    "Line",
    "NameSource",
    "ToolSpec",
    "complete",
    "render",
    "run",
    "split_line",
]

ENV_COMPLETE = "_KAFKA_TOOLS_COMPLETE"
SHELLS = ("bash", "zsh", "fish")

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
    if option == "cluster":  # from the clusters file: nothing contacted, nothing but that file read
        return Answer([(n, bootstrap) for n, bootstrap in _cluster_names()])
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


def _cluster_names() -> list[tuple[str, str]]:
    """The clusters of clusters.toml with their servers; none when the file is absent or wrong (a
    TAB prints no error)."""
    from kafka_groups.clusters import load_clusters
    from kafka_groups.errors import CliError

    try:
        return [(c.name, c.bootstrap_server) for c in load_clusters().clusters.values()]
    except CliError:
        return []


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
        if previous in ("group", "to-group", "topic", "input-topic", "cluster") and not incomplete.startswith(
            "-"
        ):
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
