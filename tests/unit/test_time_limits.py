"""The environment's say over time limits (plain data): KAFKA_TOOLS_TIMEOUT_MS, the default of
the group tools' --timeout, and KAFKA_TOOLS_TAB_BUDGET_MS, how long a TAB may ask the cluster."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.cli import consumer_groups_flags, streams_groups_flags
from kafka_groups.cli.complete_names import TAB_BUDGET_S, tab_budget_s
from kafka_groups.errors import ConfigError
from kafka_groups.settings import ConnectionArgs, resolve_settings
from kafka_groups.timeouts import ENV_TIMEOUT

BS = "b:9092"


def timeout_of(given: int | None, environ: dict[str, str], tool_default: int = 5000) -> int:
    return resolve_settings(BS, None, given, environ=environ, default_timeout_ms=tool_default).timeout_ms


@given(st.integers(min_value=1, max_value=2**31 - 1), st.sampled_from([5000, 30000]))
def test_the_variable_replaces_the_tools_default(ms: int, tool_default: int) -> None:
    assert timeout_of(None, {ENV_TIMEOUT: str(ms)}, tool_default) == ms
    assert timeout_of(None, {ENV_TIMEOUT: f" {ms}\n"}, tool_default) == ms


@given(st.integers(min_value=1, max_value=10**6), st.integers(min_value=1, max_value=10**6))
def test_a_given_timeout_wins_over_the_variable(flag: int, env: int) -> None:
    assert timeout_of(flag, {ENV_TIMEOUT: str(env)}) == flag


@pytest.mark.parametrize("tool_default", [5000, 30000])
@pytest.mark.parametrize("environ", [{}, {ENV_TIMEOUT: ""}, {ENV_TIMEOUT: "  "}])
def test_unset_or_empty_keeps_the_tools_default(environ: dict[str, str], tool_default: int) -> None:
    assert timeout_of(None, environ, tool_default) == tool_default


@pytest.mark.parametrize("raw", ["0", "-5", "5s", "1e4", "2147483648", "٣٠٠٠", "30 000", "5000\x1b[2J"])
def test_a_variable_that_is_not_a_positive_whole_number_is_refused(raw: str) -> None:
    with pytest.raises(ConfigError) as refused:
        timeout_of(None, {ENV_TIMEOUT: raw})
    message = str(refused.value)
    assert message.startswith(f"{ENV_TIMEOUT} must be a whole number of milliseconds from 1 to 2147483647")
    assert "\x1b" not in message and "\n" not in message


def test_a_given_timeout_does_not_read_a_bad_variable() -> None:
    assert timeout_of(7000, {ENV_TIMEOUT: "soon"}) == 7000


def test_the_flag_forms_leave_an_absent_timeout_to_the_environment() -> None:
    cg = consumer_groups_flags.translate(["--bootstrap-server", BS, "--list"])
    sg = streams_groups_flags.translate(["--bootstrap-server", BS, "--list"])
    assert cg.connection == ConnectionArgs(BS, None, None, False, 5000)
    assert sg.connection == ConnectionArgs(BS, None, None, False, 30000)
    given_cg = consumer_groups_flags.translate(["--bootstrap-server", BS, "--list", "--timeout", "250"])
    assert given_cg.connection.timeout_ms == 250


def test_kafka_topics_does_not_read_the_variable(monkeypatch) -> None:
    """kafka-topics has no --timeout: its 60 s stays whatever the group tools' variable says."""
    from kafka_topics import flags as topics_flags
    from kafka_topics.list_request import TOPICS_TIMEOUT_MS

    monkeypatch.setenv(ENV_TIMEOUT, "1234")
    request = topics_flags.translate(["--bootstrap-server", BS, "--list"])
    assert request.connection.resolve().timeout_ms == TOPICS_TIMEOUT_MS == 60000
    monkeypatch.setenv(ENV_TIMEOUT, "soon")  # not even read, so not refused
    assert (
        topics_flags.translate(["--bootstrap-server", BS, "--list"]).connection.resolve().timeout_ms == 60000
    )


def test_the_streams_flag_form_keeps_a_given_timeout(monkeypatch) -> None:
    monkeypatch.setenv(ENV_TIMEOUT, "42000")
    given = streams_groups_flags.translate(["--bootstrap-server", BS, "--list", "--timeout", "700"])
    assert given.connection.resolve().timeout_ms == 700
    assert (
        streams_groups_flags.translate(["--bootstrap-server", BS, "--list"]).connection.resolve().timeout_ms
        == 42000
    )


def test_the_subcommands_leave_an_absent_timeout_to_the_environment(monkeypatch) -> None:
    """Through the Typer subcommands: what reaches the command is the variable's value."""
    from typer.testing import CliRunner

    from kafka_groups.cli import consumer_groups, streams_groups

    seen: list[int] = []

    def capture(request):
        seen.append(request.connection.resolve().timeout_ms)
        return 0

    monkeypatch.setattr("kafka_groups.cli.runner.perform", capture)
    for module in ("cg_list", "sg_list"):
        monkeypatch.setattr(f"kafka_groups.cli.{module}.perform", capture)
    runner = CliRunner()
    for app, expected in ((consumer_groups.load_app(), 5000), (streams_groups.load_app(), 30000)):
        seen.clear()
        runner.invoke(app, ["list", "--bootstrap-server", BS], env={ENV_TIMEOUT: ""})
        assert seen == [expected]
        seen.clear()
        runner.invoke(app, ["list", "--bootstrap-server", BS], env={ENV_TIMEOUT: "42000"})
        assert seen == [42000]
        seen.clear()
        runner.invoke(app, ["list", "--bootstrap-server", BS, "--timeout", "9"], env={ENV_TIMEOUT: "42000"})
        assert seen == [9]


@given(st.integers(min_value=1, max_value=600_000))
def test_the_tab_budget_is_read_in_milliseconds(ms: int) -> None:
    assert tab_budget_s({"KAFKA_TOOLS_TAB_BUDGET_MS": str(ms)}) == ms / 1000


@pytest.mark.parametrize("raw", ["", " ", "0", "-1", "1.5", "abc", "٣", "600001", "99999999999999999999"])
def test_a_tab_budget_that_is_not_usable_leaves_the_default(raw: str) -> None:
    # A TAB never prints an error: the default applies instead.
    assert tab_budget_s({"KAFKA_TOOLS_TAB_BUDGET_MS": raw}) == TAB_BUDGET_S
