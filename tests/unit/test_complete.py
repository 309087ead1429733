"""What TAB offers, from plain data: the completion tables agree with the flag-form parsers,
the offers follow the action typed, values are hinted, and the shells get their formats."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.apache_argv import did_you_mean
from kafka_groups.cli import complete, consumer_groups_flags, name_cache, streams_groups_flags
from kafka_groups.cli.complete import TOOLS, Answer, Line, render, split_line
from kafka_groups.core.reset import parse_datetime, parse_duration_ms
from kafka_topics import flags as topics_flags
from tests.conftest import ROOT

FLAG_OPTIONS = {
    "kafka-consumer-groups": consumer_groups_flags.OPTIONS,
    "kafka-streams-groups": streams_groups_flags.OPTIONS,
    "kafka-topics": topics_flags.OPTIONS,
}
NOT_OFFERED = {"help", "version", "o", "delete-config"}  # short or deprecated forms


@pytest.mark.parametrize("prog", sorted(TOOLS))
def test_completion_knows_every_flag_form_option_and_no_other(prog):
    parsed = {o.name for o in FLAG_OPTIONS[prog]} - NOT_OFFERED
    assert TOOLS[prog].options() == parsed


@pytest.mark.parametrize("prog", sorted(TOOLS))
def test_options_that_take_a_value_are_known_as_such(prog):
    from kafka_groups.apache_argv import Arg

    spec = TOOLS[prog]
    for opt in FLAG_OPTIONS[prog]:
        if opt.name in NOT_OFFERED:
            continue
        assert (opt.name in spec.valued) == (opt.arg is Arg.REQUIRED), opt.name


def offers(prog: str, line: str) -> list[str]:
    words, incomplete = split_line(line)
    return [v for v, _ in complete.complete(prog, words, incomplete).candidates if v.startswith(incomplete)]


def test_a_prefix_of_an_action_completes_to_it():
    assert offers("kafka-consumer-groups", "--res") == ["--reset-offsets"]
    assert offers("kafka-topics", "--desc") == ["--describe"]


def test_after_reset_offsets_the_scenarios_and_scopes_are_offered_and_no_other_action():
    offered = offers("kafka-consumer-groups", "--bootstrap-server b --reset-offsets ")
    assert {"--to-earliest", "--to-datetime", "--group", "--all-groups", "--topic", "--execute"} <= set(
        offered
    )
    assert "--describe" not in offered and "--list" not in offered and "--members" not in offered
    assert "--bootstrap-server" not in offered  # given already


def test_one_scenario_and_one_scope_at_a_time():
    offered = offers("kafka-consumer-groups", "--reset-offsets --to-latest --all-groups --dry-run ")
    assert not {"--to-earliest", "--to-offset", "--group", "--execute", "--to-latest"} & set(offered)
    assert "--topic" in offered


def test_group_and_topic_may_be_given_again():
    offered = offers("kafka-consumer-groups", "--reset-offsets --group a --topic t ")
    assert {"--group", "--topic"} <= set(offered)


def test_streams_offers_input_topics_and_topics_its_own_options():
    offered = offers("kafka-streams-groups", "--delete ")
    assert "--delete-all-internal-topics" in offered and "--topic" not in offered
    described = offers("kafka-topics", "--describe ")
    assert "--under-replicated-partitions" in described and "--partitions" not in described


def test_to_datetime_hints_are_values_the_tool_accepts():
    hints = offers("kafka-consumer-groups", "--reset-offsets --to-datetime ")
    assert len(hints) == 2
    for hint in hints:
        parse_datetime(hint)  # raises on a value the tool would refuse


def test_by_duration_hints_are_values_the_tool_accepts():
    hints = offers("kafka-consumer-groups", "--reset-offsets --by-duration ")
    assert hints
    for hint in hints:
        assert parse_duration_ms(hint) > 0


def test_list_state_offers_states_but_describe_state_takes_none():
    assert "Stable" in offers("kafka-consumer-groups", "--list --state ")
    assert "NotReady" in offers("kafka-streams-groups", "--list --state ")
    assert "Stable" not in offers("kafka-consumer-groups", "--describe --state ")


def test_a_file_is_due_after_command_config():
    words, incomplete = split_line("--bootstrap-server b --list --command-config ")
    assert complete.complete("kafka-consumer-groups", words, incomplete).files


def test_first_word_offers_subcommands_or_flags():
    assert offers("kafka-topics", "de") == ["describe", "delete"]
    assert "--list" in offers("kafka-topics", "")
    assert "list" in offers("kafka-topics", "")


class FakeNames(complete.NameSource):
    """Names as a cluster would give them (tests/unit may stand in for Kafka)."""

    def __init__(self) -> None:
        self.lines: list[Line] = []

    def lookup(self, kind: str, line: Line) -> list[str]:
        self.lines.append(line)
        return ["billing", "audit"] if kind == "groups" else ["app"]

    def topics(self, line: Line) -> dict[str, int]:
        self.lines.append(line)
        return {"orders": 3, "payments": 1}


def test_live_names_come_from_the_cluster_on_the_line():
    names = FakeNames()
    words, incomplete = split_line(
        "--bootstrap-server k1:9092 --command-config c.properties --describe --group "
    )
    answer = complete.complete("kafka-consumer-groups", words, incomplete, names)
    assert [v for v, _ in answer.candidates] == ["billing", "audit"]
    assert names.lines[0].values == {"bootstrap-server": "k1:9092", "command-config": "c.properties"}


def test_topic_partitions_after_a_colon_and_the_equals_form():
    names = FakeNames()
    words, incomplete = split_line("--reset-offsets --topic orders:")
    answer = complete.complete("kafka-consumer-groups", words, incomplete, names)
    assert [v for v, _ in answer.candidates] == ["orders:0", "orders:1", "orders:2"]
    words, incomplete = split_line("--describe --group=b")
    answer = complete.complete("kafka-consumer-groups", words, incomplete, names)
    assert "--group=billing" in [v for v, _ in answer.candidates]


def test_streams_groups_ask_for_streams_groups_and_subcommands_get_live_names():
    names = FakeNames()
    answer = complete.complete("kafka-streams-groups", ["--describe", "--group"], "", names)
    assert [v for v, _ in answer.candidates] == ["app"]
    answer = complete.complete("kafka-consumer-groups", ["describe", "--group"], "", names)
    assert [v for v, _ in answer.candidates] == ["billing", "audit"]


def test_cluster_names_come_from_the_clusters_file(tmp_path, monkeypatch):
    folder = tmp_path / "kafka-group-tools"
    folder.mkdir()
    (folder / "clusters.toml").write_text(
        '[clusters.prod]\nbootstrap-server = "p:9093"\n[clusters.staging]\nbootstrap-server = "s:9092"\n'
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    for prog in sorted(TOOLS):
        answer = complete.complete(prog, ["--list", "--cluster"], "")
        assert answer.candidates == [("prod", "p:9093"), ("staging", "s:9092")]
    answer = complete.complete("kafka-consumer-groups", ["describe", "--cluster"], "")
    assert [v for v, _ in answer.candidates] == ["prod", "staging"]
    from kafka_groups.cli.complete import _click_completions

    assert _click_completions("kafka-topics", ["clusters", "show"], "st") == [("staging", "s:9092")]
    (folder / "clusters.toml").write_text("[clusters.bad\n")
    assert complete.complete("kafka-topics", ["--list", "--cluster"], "").candidates == []  # never an error


def test_bash_gets_the_part_after_a_word_break():
    answer = Answer([("orders:0", ""), ("orders:1", ""), ("other", "")])
    assert render("bash", answer, "orders:").splitlines() == ["plain", "0", "1"]
    assert render("bash", Answer([("--group=billing", "")]), "--group=b").splitlines() == ["plain", "billing"]


def test_zsh_escapes_colons_and_fish_gets_descriptions():
    answer = Answer([("orders:0", "partition 0")])
    assert render("zsh", answer, "").splitlines() == ["plain", "orders\\:0:partition 0"]
    assert render("fish", answer, "").splitlines() == ["plain", "orders:0\tpartition 0"]
    assert render("fish", Answer([], files=True), "").splitlines() == ["files"]


@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1), max_size=6))
def test_split_line_reads_back_any_quoted_words(words):
    line = shlex.join(words)
    assert split_line(line + " ") == (words, "")
    assert split_line(line) == (words[:-1], words[-1]) if words else ([], "")


def test_split_line_survives_an_open_quote():
    assert split_line("--group 'my gro") == (["--group"], "my gro")


SCRAM_JAAS = (
    'org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="{}";'
)


def _connection(bootstrap: str = "k1:9092", password: str | None = None, **props: str):
    from kafka_groups.settings import ConnectionSettings

    if password is not None:
        props |= {"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512"}
        props["sasl.jaas.config"] = SCRAM_JAAS.format(password)
    return ConnectionSettings(bootstrap, 1000, props)


def test_name_cache_expires_and_keeps_no_secret(tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    key = name_cache.key_of(_connection(password="s3cret-pw"))
    name_cache.write(key, "groups", ["billing"], env)
    assert name_cache.read(key, "groups", env) == ["billing"]
    assert name_cache.read(name_cache.key_of(_connection("k2:9092", "s3cret-pw")), "groups", env) is None
    files = list(tmp_path.rglob("*.json"))
    assert len(files) == 1 and files[0].stat().st_mode & 0o077 == 0
    assert files[0].parent.stat().st_mode & 0o077 == 0
    stored = json.loads(files[0].read_text())
    assert set(stored) == {"at", "names"} and "k1" not in files[0].name and "s3cret" not in files[0].name
    later = stored["at"] + name_cache.TTL_S + 1
    assert name_cache.read(key, "groups", env, now=later) is None


def test_the_name_cache_key_is_everything_that_decides_what_the_cluster_shows():
    """Another password, user, mechanism, protocol or truststore is another key: a TAB with
    wrong credentials is never offered what right ones listed."""
    base = _connection(password="right-pw")
    others = [
        _connection(password="wrong-pw"),
        _connection("k2:9092", password="right-pw"),
        _connection(password="right-pw", **{"ssl.truststore.location": "/etc/other-ca.pem"}),
        _connection(password="right-pw", **{"ssl.endpoint.identification.algorithm": ""}),
        _connection(**{"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
                       "sasl.jaas.config": SCRAM_JAAS.format("right-pw").replace("alice", "bob")}),
        _connection(),
    ]  # fmt: skip
    keys = {name_cache.key_of(s) for s in [base, *others]}
    assert len(keys) == len(others) + 1
    assert name_cache.key_of(_connection(password="right-pw")) == name_cache.key_of(base)
    assert all("right-pw" not in k for k in keys)


def test_a_refused_login_forgets_the_names_kept_for_those_settings(tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    key, other = (
        name_cache.key_of(_connection(password="pw-1")),
        name_cache.key_of(_connection(password="pw-2")),
    )
    for kind in ("groups", "topics"):
        name_cache.write(key, kind, ["x"], env)
        name_cache.write(other, kind, ["y"], env)
    name_cache.forget(key, env)
    assert name_cache.read(key, "groups", env) is None and name_cache.read(key, "topics", env) is None
    assert name_cache.read(other, "groups", env) == ["y"]


def test_a_lookup_the_cluster_refuses_offers_nothing_and_forgets(tmp_path, monkeypatch):
    """The names cached for the settings on the line are dropped when a lookup with them is
    refused (credentials revoked since they were listed), and nothing is offered."""
    from kafka_groups.access import names as access_names

    env = {"XDG_CACHE_HOME": str(tmp_path), "_KAFKA_TOOLS_COMPLETE": "bash"}
    key = name_cache.key_of(_connection("127.0.0.1:9"))
    name_cache.write(key, "topics", {"orders": 3}, env)
    monkeypatch.setattr(access_names, "list_names", lambda *_: access_names.REFUSED)
    monkeypatch.setattr("kafka_groups.cli.complete_names._hard_stop", lambda _s: None)
    source = complete.NameSource(env)
    words, incomplete = split_line("--bootstrap-server 127.0.0.1:9 --describe --group ")
    assert complete.complete("kafka-consumer-groups", words, incomplete, source).candidates == []
    assert name_cache.read(key, "topics", env) is None


def test_the_name_cache_never_reads_a_fifo_put_in_its_place(tmp_path):
    import os

    env = {"XDG_CACHE_HOME": str(tmp_path)}
    key = name_cache.key_of(_connection())
    name_cache.write(key, "groups", ["billing"], env)
    path = next(tmp_path.rglob("*.json"))
    path.unlink()
    os.mkfifo(path)
    assert name_cache.read(key, "groups", env) is None  # at once: a FIFO is never opened


def test_the_completion_path_loads_no_kafka_client_nor_typer_without_a_lookup():
    code = (
        "import os, sys\n"
        "os.environ.update(_KAFKA_TOOLS_COMPLETE='fish')\n"
        "import kafka_groups.cli.complete as c\n"
        "ans = c.complete('kafka-consumer-groups', ['--bootstrap-server', 'b', '--reset-offsets'], '--to')\n"
        "print(sorted(m for m in ('confluent_kafka', 'kafka', 'typer', 'rich', 'cryptography')"
        " if m in sys.modules), len(ans.candidates) > 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.stdout.strip() == "[] True", proc.stderr


def test_an_unreachable_cluster_offers_nothing_and_says_nothing(tmp_path):
    env = {
        "_KAFKA_TOOLS_COMPLETE": "bash",
        "COMP_LINE": "kafka-consumer-groups --bootstrap-server 127.0.0.1:1 --describe --group ",
        "COMP_POINT": "200",
        "XDG_CACHE_HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "PATH": "/usr/bin:/bin",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "kafka_groups.cli.consumer_groups"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert proc.returncode == 0
    assert proc.stdout in ("", "plain\n")
    assert proc.stderr == ""
    assert not list(tmp_path.rglob("*.json"))  # a failure is never cached


@pytest.mark.parametrize("kind", ["groups", "streams-groups"])
@pytest.mark.parametrize("budget_s", [0.2, 0.6])
def test_a_lookup_that_gets_no_answer_is_none_never_an_empty_list(kind, budget_s):
    """librdkafka answers a group listing that timed out with no groups and the error beside:
    that is no list of the groups (an empty one would be cached and offered for minutes)."""
    import socket
    import time

    from kafka_groups.access.names import list_names
    from kafka_groups.settings import ConnectionSettings

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    assert list_names(ConnectionSettings(address, 1000), kind, time.monotonic() + budget_s) is None


@pytest.mark.parametrize(("errors", "expected"), [([], ["billing"]), (["_TIMED_OUT"], None)])
def test_a_group_listing_with_an_error_is_no_answer(monkeypatch, errors, expected):
    """Whatever the timing: a listing that came back with an error beside it is not the groups."""
    import concurrent.futures
    import time
    from types import SimpleNamespace

    import confluent_kafka.admin

    from kafka_groups.access.names import list_names
    from kafka_groups.settings import ConnectionSettings

    class Answering:
        def __init__(self, config: dict) -> None:
            pass

        def list_consumer_groups(self, request_timeout: float) -> concurrent.futures.Future:
            future: concurrent.futures.Future = concurrent.futures.Future()
            group = SimpleNamespace(group_id="billing", type=SimpleNamespace(name="CONSUMER"))
            future.set_result(SimpleNamespace(valid=[group], errors=errors))
            return future

    monkeypatch.setattr(confluent_kafka.admin, "AdminClient", Answering)
    found = list_names(ConnectionSettings("127.0.0.1:9", 1000), "groups", time.monotonic() + 1)
    assert found == expected


@pytest.mark.parametrize(
    ("word", "choices", "hint"),
    [
        ("describ", ["describe", "delete"], " (did you mean --describe?)"),
        ("lst", ["list", "describe"], " (did you mean --list?)"),
        ("res", ["reset-offsets", "describe"], " (did you mean --reset-offsets?)"),
        ("xyz", ["list", "describe"], ""),
    ],
)
def test_did_you_mean(word, choices, hint):
    assert did_you_mean(word, choices) == hint


@pytest.mark.parametrize(
    ("shell", "where"),
    [
        ("bash", "data/bash-completion/completions/kafka-topics"),
        ("zsh", "home/.zfunc/_kafka-topics"),
        ("fish", "config/fish/completions/kafka-topics.fish"),
    ],
)
def test_show_and_install_completion_give_the_checked_in_script(shell, where, tmp_path):
    from kafka_groups.cli.completions import SHELLS

    checked_in = (ROOT / "completions" / shell / SHELLS[shell].format(prog="kafka-topics")).read_text()
    env = {
        "PYTHONPATH": str(ROOT),
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    run = [sys.executable, "-m", "kafka_topics.cli"]
    shown = subprocess.run([*run, "--show-completion", shell], capture_output=True, text=True, env=env)
    assert shown.returncode == 0 and shown.stdout == checked_in
    installed = subprocess.run([*run, "--install-completion", shell], capture_output=True, text=True, env=env)
    assert installed.returncode == 0, installed.stderr
    assert (tmp_path / where).read_text() == checked_in
    assert str(tmp_path / where) in installed.stdout


def test_completion_for_an_unknown_shell_is_a_usage_error():
    proc = subprocess.run(
        [sys.executable, "-m", "kafka_topics.cli", "--show-completion", "tcsh"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "Error: Completion is available for bash, zsh and fish, not 'tcsh': name the shell"
    ]


def test_the_subcommand_form_completes_through_the_click_typer_is_built_on():
    # Typer 0.21 and later carry their own Click (no `click` package is installed with them):
    # the subcommand form's candidates come from whichever Click the app is built on.
    from kafka_groups.cli.complete import _click_completions

    assert _click_completions("kafka-consumer-groups", ["describe"], "--gr") == [
        ("--group", "A group to describe; repeat for several."),
        (
            "--group-pattern",
            "Groups whose whole id matches this regex (Python re, full match); repeatable. "
            "Instead of --group/--all-groups.",
        ),
    ]
    assert {"list", "describe", "create", "alter", "delete"} <= {
        value for value, _ in _click_completions("kafka-topics", [], "")
    }
