"""Property-based argv fuzzing of the three tools against a live broker with committed offsets.

Every argv is built from the tools' real flags (the Apache flag form's option tables and the
Typer subcommands' parameters), with values that include the names of the existing topics and
groups, empty and blank strings, Unicode, control characters, numbers beyond Java's Long and
negative numbers, and repeated flags. Each tool runs in-process through ``run_tool`` (what its
``main`` runs) with stdout and stderr captured. For every example:

- no traceback and no ``unexpected failure``;
- a usage error (exit 2) is one line on stderr;
- no AdminClient is left for the garbage collector to free (kafka_groups/access/clients.py);
- after any non-zero exit, the committed offsets, the topics (with their partition counts) and
  the groups are exactly as before. After exit 0 the cluster may have changed (a valid write):
  it is snapshotted again, and the fixture topics and offsets are put back if they went.

In-process state between runs: the Typer command is rebuilt on every run, outputs resolve
``sys.stdout`` when they print, and caches are keyed by their inputs. ``--debug`` is left out:
it installs a root logging handler bound to the stderr of the run that set it up. So is
``--watch``: a valid one refreshes until it is interrupted, which an in-process run never is
(tests/kafka/test_watch.py runs it in a process of its own and stops it).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

from kafka_groups.apache_argv import Arg, Opt
from kafka_groups.cli import consumer_groups, consumer_groups_flags, streams_groups, streams_groups_flags
from kafka_groups.cli.runner import run_tool
from kafka_topics import cli as topics_cli
from kafka_topics import flags as topics_flags
from kafka_topics.core import INTERNAL_TOPICS
from tests.client_lifetimes import tracked_admin_clients, without_collector
from tests.kafka_helpers import admin, commit_offsets, committed_of, create_topic, produce_n, unique

pytestmark = pytest.mark.kafka

LEFT_OUT = {"debug", "install-completion", "show-completion", "watch"}
MAX_EXAMPLES = int(os.environ.get("ARGV_FUZZ_EXAMPLES", "300"))


@dataclass(frozen=True)
class Tool:
    prog: str
    subcommands: Sequence[str]
    translate: Callable[[Sequence[str]], Any]
    load_app: Callable[[], Any]
    options: tuple[Opt, ...]  # the flag form
    actions: Sequence[str]

    def __repr__(self) -> str:
        return self.prog


TOOLS = (
    Tool(
        consumer_groups.PROG,
        consumer_groups.SUBCOMMANDS,
        consumer_groups_flags.translate,
        consumer_groups.load_app,
        consumer_groups_flags.OPTIONS,
        consumer_groups_flags.ACTIONS,
    ),
    Tool(
        streams_groups.PROG,
        streams_groups.SUBCOMMANDS,
        streams_groups_flags.translate,
        streams_groups.load_app,
        streams_groups_flags.OPTIONS,
        streams_groups_flags.ACTIONS,
    ),
    Tool(
        topics_cli.PROG,
        topics_cli.SUBCOMMANDS,
        topics_flags.translate,
        topics_cli.load_app,
        topics_flags.OPTIONS,
        topics_flags.ACTIONS,
    ),
)


def _subcommand_options(tool: Tool) -> dict[str, list[tuple[str, bool]]]:
    """Each subcommand's options as (flag, takes a value), read from the Typer app."""
    import typer

    command: Any = typer.main.get_command(tool.load_app())
    found: dict[str, list[tuple[str, bool]]] = {}
    for name, sub in command.commands.items():
        found[name] = [
            (flag, not getattr(param, "is_flag", False))
            for param in sub.params
            for flag in param.opts
            if flag.lstrip("-") not in LEFT_OUT
        ]
    return found


SUBCOMMAND_OPTIONS = {tool.prog: _subcommand_options(tool) for tool in TOOLS}


# -- the cluster the examples run against -------------------------------------------------------
@dataclass
class Fixture:
    bootstrap: str
    topics: tuple[str, ...]
    groups: dict[str, dict[tuple[str, int], int]]  # group -> the offsets it starts with
    files: tuple[str, ...]  # paths the file options may be given


Snapshot = tuple[dict[str, int], frozenset[str], dict[str, dict[tuple[str, int], int]]]


ADMINS: dict[str, Any] = {}


def snapshot(bs: str) -> Snapshot:
    """Topics (partition counts), groups, and every group's committed offsets (asked for all
    groups at once, through one client)."""
    client = ADMINS.setdefault(bs, admin(bs))
    topics = {name: len(t.partitions) for name, t in client.list_topics(timeout=30).topics.items()}
    for _ in range(10):
        # A listing that failed is empty with the error beside (a busy broker): not the groups.
        listed = client.list_consumer_groups(request_timeout=30).result()
        if not listed.errors:
            break
        time.sleep(1)
    assert not listed.errors, listed.errors
    groups = frozenset(g.group_id for g in listed.valid)
    return topics, groups, committed_of(bs, sorted(groups))


def settled(bs: str) -> Snapshot:
    """A snapshot once the cluster has stopped moving (topic deletion and creation reach the
    metadata a moment after the command returns)."""
    last = snapshot(bs)
    for _ in range(40):
        time.sleep(0.25)
        now = snapshot(bs)
        if now == last:
            return now
        last = now
    return last


def _make(fx: Fixture, topic: str) -> None:
    create_topic(fx.bootstrap, topic, partitions=2)
    produce_n(fx.bootstrap, topic, {0: 4, 1: 4})


def restore(fx: Fixture, state: Snapshot) -> Snapshot:
    """Put back fixture topics and offsets a successful write took away."""
    topics, _, offsets = state
    changed = False
    for topic in fx.topics:
        if topic not in topics:
            _make(fx, topic)
            changed = True
    for group, wanted in fx.groups.items():
        if offsets.get(group) != wanted:
            commit_offsets(fx.bootstrap, group, wanted)
            changed = True
    if changed:
        SEEN["fixture restored"] = SEEN.get("fixture restored", 0) + 1
    return settled(fx.bootstrap) if changed else state


@pytest.fixture(scope="module")
def fixture(broker, tmp_path_factory) -> Fixture:
    bs = broker.bootstrap
    prefix = unique("fz")
    topics = (f"{prefix}-orders", f"{prefix}-pay.ments", f"{prefix}-x")
    fx = Fixture(bs, topics, {}, ())
    for topic in topics:
        _make(fx, topic)
    fx.groups = {
        f"{prefix}-billing": {(topics[0], 0): 2, (topics[0], 1): 3, (topics[1], 0): 1},
        f"{prefix}-audit": {(topics[1], 1): 4, (topics[2], 0): 0},
    }
    for group, offsets in fx.groups.items():
        commit_offsets(bs, group, offsets)
    folder = tmp_path_factory.mktemp("fuzz-files")
    plan = folder / "plan.csv"
    plan.write_text(f"{topics[0]},0,1\n{topics[0]},1,2\n")
    garbage = folder / "garbage.csv"
    garbage.write_bytes(b"\xff\xfe,\x00,\n,,,\n")
    props = folder / "client.properties"
    props.write_text("client.id=fuzz\n")
    fx.files = (str(plan), str(garbage), str(props), str(folder), str(folder / "missing"))
    return fx


# -- the values -------------------------------------------------------------------------------
EDGE_VALUES = [
    "",
    " ",
    "  ",
    "\t",
    "\n",
    ",",
    ",,",
    ":",
    ":0",
    "-",
    "--",
    "=",
    '""',
    "''",
    "0",
    "1",
    "2",
    "-1",
    "-0",
    "+1",
    "2147483648",
    "-2147483649",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "99999999999999999999999999",
    "1e3",
    "0x10",
    "1_000",
    "\uff11",  # a full-width digit one
    "\x00",
    "\x1b[31mred",
    "a\nb",
    "caf\u00e9",
    "\u7fa4\u7d44",
    "\u202eevil",
    "\U0001f600",
    "P1D",
    "PT0S",
    "-PT1H",
    "2024-01-01T00:00:00.000",
    "2024-01-01T00:00:00.000Z",
    "9999-99-99T99:99:99.999",
    "text",
    "json",
    "csv",
    "table",
    "stable,empty",
    "Empty",
    "classic",
    "consumer",
    "streams",
    "1:1,1:1",
    "retention.ms=1000",
    "min.insync.replicas=-1",
]
# Selectors that name nothing, drawn often in the selector places of the commands.
EMPTYISH = ["", "", "", " ", "\t", ",", '""', ":0", " :0", "\u3000"]
# Small counts only: a --partitions of thousands would be a real (slow) change on the test broker.
NUMBERS = st.one_of(
    st.integers(-3, 5),
    st.integers(2**31, 2**80),
    st.integers(-(2**80), -(2**31) - 1),
).map(str)


def values(fx: Fixture) -> st.SearchStrategy[str]:
    names = [*fx.topics, *fx.groups]
    scoped = [f"{t}{suffix}" for t in fx.topics for suffix in (":0", ":0,1", ":", ":,", ":-1", ":99", ":0,")]
    regexes = [f"{fx.topics[0][:11]}.*", f"{fx.topics[0]},{fx.topics[1]}", " " + fx.topics[2]]
    return st.one_of(
        st.sampled_from(names),
        st.sampled_from(scoped + regexes),
        st.sampled_from(EDGE_VALUES),
        st.sampled_from(fx.files),
        NUMBERS,
        st.text(max_size=10),
    )


# Commands that work, per tool: the fuzz mutates them (values swapped, flags added, repeated or
# dropped), so that most examples reach the broker. G, T, F, N and V are drawn placeholders.
TEMPLATES: dict[str, list[list[str]]] = {
    consumer_groups.PROG: [
        ["--list"],
        ["--list", "--state", "V"],
        ["list", "--type", "V"],
        ["--describe", "--group", "G"],
        ["--describe", "--group", "G", "--members", "--verbose"],
        ["describe", "--group", "G", "--state"],
        ["--reset-offsets", "--group", "G", "--topic", "T", "--to-earliest"],
        ["--reset-offsets", "--group", "G", "--all-topics", "--shift-by", "V", "--dry-run"],
        ["--reset-offsets", "--group", "G", "--topic", "T", "--to-offset", "N", "--execute"],
        ["--reset-offsets", "--group", "G", "--from-file", "F", "--dry-run"],
        ["--reset-offsets", "--group", "G", "--topic", "T", "--to-datetime", "V", "--export"],
        ["reset-offsets", "--group", "G", "--topic", "T", "--by-duration", "V", "--execute"],
        ["--delete-offsets", "--group", "G", "--topic", "T"],
        ["delete-offsets", "--group", "G", "--topic", "T"],
        ["--delete", "--group", "G"],
        ["delete", "--group", "G", "--group", "G"],
    ],
    streams_groups.PROG: [
        ["--list", "--state", "V"],
        ["--describe", "--group", "G"],
        ["describe", "--group", "G", "--members"],
        ["--reset-offsets", "--group", "G", "--input-topic", "T", "--to-earliest", "--dry-run"],
        ["reset-offsets", "--group", "G", "--all-input-topics", "--to-offset", "N", "--execute"],
        ["--delete-offsets", "--group", "G", "--input-topic", "T"],
        ["--delete", "--group", "G"],
        ["delete", "--group", "G"],
    ],
    topics_cli.PROG: [
        ["--list", "--topic", "V"],
        ["list", "--exclude-internal"],
        ["--describe", "--topic", "T"],
        ["describe", "--topic", "V", "--topic-id", "V"],
        ["--create", "--topic", "V", "--partitions", "N"],
        ["create", "--topic", "V", "--replication-factor", "N", "--config", "V"],
        ["--alter", "--topic", "T", "--partitions", "N", "--dry-run"],
        ["--alter", "--topic", "T", "--partitions", "N"],
        ["--delete", "--topic", "T"],
        ["delete", "--topic", "T", "--if-exists"],
    ],
}


def _option_pool(tool: Tool, sub: str | None) -> list[tuple[str, bool]]:
    """The real flags of a form: (flag, takes a value)."""
    if sub is not None:
        return SUBCOMMAND_OPTIONS[tool.prog][sub]
    return [(f"--{o.name}", o.arg is not Arg.NONE) for o in tool.options if o.name not in LEFT_OUT]


@st.composite
def argvs(draw: st.DrawFn, fx: Fixture) -> tuple[Tool, list[str]]:
    tool = draw(st.sampled_from(TOOLS))
    value = values(fx)
    groups = st.one_of(st.sampled_from(sorted(fx.groups)), st.sampled_from(EMPTYISH), value)
    topics = st.one_of(
        st.sampled_from(fx.topics),
        st.sampled_from([f"{fx.topics[0]}:0", f"{fx.topics[1]}:0,1"]),
        st.sampled_from(EMPTYISH),
        value,
    )
    fill = {"G": groups, "T": topics, "F": st.sampled_from(fx.files), "N": NUMBERS, "V": value}
    template = draw(st.sampled_from(TEMPLATES[tool.prog]))
    argv = [draw(fill[t]) if t in fill else t for t in template]
    sub = argv[0] if argv[0] in tool.subcommands else None
    if sub is None:  # the flag form also takes -name and --name=value
        for i, token in enumerate(argv):
            if token.startswith("--") and draw(st.integers(0, 14)) == 0:
                argv[i] = token[1:]
    pool = _option_pool(tool, sub)
    for _ in range(draw(st.integers(0, 3))):
        mutation = draw(st.sampled_from(["add", "add", "repeat", "swap", "drop", "stray"]))
        low = 1 if sub else 0
        at = draw(st.integers(low, max(len(argv) - 1, low)))
        if mutation == "add":
            flag, takes = draw(st.sampled_from(pool))
            argv += [flag, draw(value)] if takes else [flag]
        elif mutation == "repeat" and at < len(argv) and argv[at].startswith("-"):
            argv += argv[at : at + 2]
        elif mutation == "swap" and at < len(argv) and not argv[at].startswith("-"):
            argv[at] = draw(value)
        elif mutation == "drop" and at < len(argv) and at > 0:
            del argv[at]
        elif mutation == "stray":
            argv.insert(draw(st.integers(1 if sub else 0, len(argv))), draw(value))
    if draw(st.integers(0, 19)) != 0:
        where = 1 if sub else 0
        argv[where:where] = ["--bootstrap-server", fx.bootstrap]
    return tool, _pin_bootstrap(argv, fx.bootstrap)


def _pin_bootstrap(argv: list[str], live: str) -> list[str]:
    """Every --bootstrap-server names the live broker or is empty. (An address that parses but
    leads nowhere is waited for, 60 s for kafka-topics: those belong to the bootstrap checks.)"""
    pinned = list(argv)
    for i, token in enumerate(pinned):
        if token.lstrip("-") == "bootstrap-server" and token.startswith("-") and i + 1 < len(pinned):
            if pinned[i + 1] not in (live, ""):
                pinned[i + 1] = live
        elif token.lstrip("-").startswith("bootstrap-server="):
            flag, _, given = token.partition("=")
            if given not in (live, ""):
                pinned[i] = f"{flag}={live}"
    return pinned


# -- running ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str
    clients_left: int  # AdminClients the command left to the garbage collector


def run(tool: Tool, argv: Sequence[str]) -> Outcome:
    """The command in this process, with the garbage collector off while it runs: an AdminClient
    it leaves in a reference cycle is still alive when it returns, and counted."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), tracked_admin_clients() as tracker:
        try:
            code = without_collector(
                lambda: run_tool(tool.prog, argv, tool.subcommands, tool.translate, tool.load_app)
            )
        except SystemExit as exc:  # nothing should get here; report it as the code it carries
            code = exc.code if isinstance(exc.code, int) else 1
            print(f"SystemExit escaped run_tool: {exc.code!r}", file=err)
    return Outcome(int(code), out.getvalue(), err.getvalue(), tracker.alive())


def _changes_internal(tool: Tool, argv: Sequence[str]) -> bool:
    """kafka-topics --delete or --alter whose --topic could match an internal topic: the broker
    lets it through (as for the Apache tool), and losing or regrouping __consumer_offsets would
    end the run."""
    writes = ("--delete", "-delete", "delete", "--alter", "-alter", "alter")
    if tool.prog != topics_cli.PROG or not any(a in writes for a in argv):
        return False
    for raw in argv:
        pattern = raw.strip().replace(",", "|").replace(" ", "").strip("\"'")
        with contextlib.suppress(re.error):
            if any(re.fullmatch(pattern, name) for name in INTERNAL_TOPICS):
                return True
        if raw.startswith("--topic="):
            return _changes_internal(tool, ["--delete", raw.split("=", 1)[1]])
    return False


def _names(raw: str, name: str) -> bool:
    """Whether an argv value could name ``name``: it contains it, or read as the kafka-topics
    --topic regex it matches it."""
    if name in raw:
        return True
    value = raw.split("=", 1)[1] if raw.startswith("-") and "=" in raw else raw
    pattern = value.strip().replace(",", "|").replace(" ", "").strip("\"'")
    try:
        return re.fullmatch(pattern, name) is not None
    except re.error:
        return False


def _assert_touched_only_what_it_names(
    before: Snapshot, after: Snapshot, argv: list[str], shown: str
) -> None:
    """A command that succeeded removed or changed only topics and groups its argv names (or
    every group, with --all-groups): an empty or odd selector never widens to everything."""
    topics, groups, offsets = before
    gone = [t for t in topics if t not in after[0] and t not in INTERNAL_TOPICS]
    for topic in gone:
        assert any(_names(a, topic) for a in argv), f"topic {topic} went\n{shown}"
    if any(a.lstrip("-") == "all-groups" for a in argv):
        return
    kept = set(after[0])  # a deleted topic takes its committed offsets with it

    def held(state: dict[str, dict[tuple[str, int], int]], group: str) -> dict[tuple[str, int], int]:
        return {tp: o for tp, o in state.get(group, {}).items() if tp[0] in kept}

    for group in groups:
        if held(after[2], group) != held(offsets, group):
            assert any(_names(a, group) for a in argv), f"group {group} changed\n{shown}"


def _usage_lines(err: str) -> list[str]:
    """The lines of a usage error (split at line feeds, as a terminal or a log shows them),
    less the notices the Apache tool prints before it too: --delete-config's deprecation, and
    the reset's "no action without --execute" (printed before the --command-config is read)."""
    notices = ("delete-config option is no longer supported", "WARN: No action will be performed")
    return [line for line in err.rstrip("\n").split("\n") if not line.startswith(notices)]


# Failures that belong to work outside this branch, by class: reported with xfail, not hidden.
SEEN: dict[str, int] = {}  # (tool, form, exit code) -> examples: what the run covered
TIMES: list[tuple[float, str]] = []  # how long each command ran, for the slowest few


def check(fx: Fixture, state: dict[str, Snapshot], tool: Tool, argv: list[str]) -> None:
    assume(not _changes_internal(tool, argv))
    before = state["now"]
    started = time.monotonic()
    result = run(tool, argv)
    TIMES.append((time.monotonic() - started, f"{tool.prog} {argv!r} -> {result.code}"))
    event(f"{tool.prog} exit {result.code}")
    key = f"{tool.prog} {'sub' if argv[:1] and argv[0] in tool.subcommands else 'flags'} exit {result.code}"
    SEEN[key] = SEEN.get(key, 0) + 1
    shown = f"{tool.prog} {argv!r} -> {result.code}\nstdout: {result.out!r}\nstderr: {result.err!r}"
    assert "Traceback" not in result.err, shown
    assert "unexpected failure" not in result.err, shown
    assert "SystemExit escaped" not in result.err, shown
    assert result.code in (0, 1, 2, 3, 4), shown
    assert result.clients_left == 0, f"AdminClients left to the garbage collector\n{shown}"
    if result.code == 2:
        assert len(_usage_lines(result.err)) == 1, f"a usage error is one line on stderr\n{shown}"
    if result.code in (0, 3, 4):  # a write may have landed: look again
        after = settled(fx.bootstrap)
        state["now"] = restore(fx, after)
        _assert_touched_only_what_it_names(before, after, argv, shown)
        return
    after = snapshot(fx.bootstrap)
    if after != before:  # a write that lands a moment late would show on the next look too
        after = settled(fx.bootstrap)
    assert after == before, shown


@pytest.fixture
def quiet_env(monkeypatch, tmp_path):
    """Backups and relative paths land in a temporary folder; nothing reads a terminal; the tools'
    own default timeouts (a timeout is an exit 1 that changed nothing, which the checks accept)."""
    from kafka_groups.settings import ENV_BOOTSTRAP, ENV_COMMAND_CONFIG
    from kafka_groups.timeouts import ENV_TIMEOUT

    for name in ("KAFKA_TOOLS_OUTPUT", ENV_BOOTSTRAP, ENV_COMMAND_CONFIG, ENV_TIMEOUT):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KAFKA_TOOLS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    return tmp_path


# Hundreds of commands against the broker: about a minute on a quiet machine, many on a busy one.
# The suite's 600 s limit would stop it mid-example, inside a client's start, a signal that has
# brought the whole worker down.
@pytest.mark.timeout(1800)
def test_argv_fuzz(fixture, quiet_env):
    state = {"now": settled(fixture.bootstrap)}

    bs = fixture.bootstrap
    topics, groups = TOOLS[2], TOOLS[0]
    billing = sorted(fixture.groups)[1]
    reset = ["--reset-offsets", "--group", billing, "--topic", ":0", "--to-latest", "--execute"]

    # The selectors that once widened to everything run in every run, beside the drawn ones.
    @example((topics, ["--bootstrap-server", bs, "--delete", "--topic", ""]))
    @example((topics, ["delete", "--bootstrap-server", bs, "--topic", " ", "--if-exists"]))
    @example((topics, ["--bootstrap-server", bs, "--alter", "--topic", "", "--partitions", "4"]))
    @example((groups, ["--bootstrap-server", bs, "--delete", "--group", ""]))
    @example((groups, ["--bootstrap-server", bs, *reset]))
    @example((TOOLS[1], ["--bootstrap-server", bs, "--delete-offsets", "--group", "", "--input-topic", "x"]))
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
        derandomize=False,
        database=None,
    )
    @given(argvs(fixture))
    def one(case: tuple[Tool, list[str]]) -> None:
        tool, argv = case
        check(fixture, state, tool, argv)

    one()
    print("\n".join(f"{n:4d}  {k}" for k, n in sorted(SEEN.items())))
    print("\n".join(f"{t:6.2f}s {what}" for t, what in sorted(TIMES, reverse=True)[:8]))
    # Not a vacuous run: examples failed as usage errors, failed on the cluster, and succeeded.
    codes = {int(k.rsplit(" ", 1)[1]) for k in SEEN if " exit " in k}
    assert {0, 1, 2} <= codes, SEEN


def test_the_generator_builds_requests_for_every_tool(fixture):
    """The fuzz is worth running only if its argvs mix usage errors with commands that reach
    the broker: a sample of them, translated offline, must include requests of every tool."""
    from hypothesis import find

    for tool in TOOLS:
        find(
            argvs(fixture),
            lambda case, tool=tool: case[0] is tool and _translates(case),
            settings=settings(max_examples=2000, database=None),
        )


def _translates(case: tuple[Tool, list[str]]) -> bool:
    tool, argv = case
    if argv[:1] and argv[0] in tool.subcommands:
        return False
    try:
        return not isinstance(tool.translate(argv), tuple)
    except Exception:
        return False
