"""Commands return an Outcome; render/registry.deliver prints it and cli/runner.perform turns its
failure into the exit code. What is said, in which stream and in which order, is decided here
and nowhere in the commands."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.cli.runner import perform, run_tool
from kafka_groups.commands.guard import Landed, Verdict
from kafka_groups.commands.validate_regex import ValidateRegexRequest
from kafka_groups.core.re2j import RegexVerdict
from kafka_groups.errors import CliError, ExitCode, OutcomeUnknown, PartialFailure
from kafka_groups.render import OutputFormat
from kafka_groups.render.outcome import Outcome, Show
from kafka_groups.render.registry import deliver

VALID = RegexVerdict("orders-.*", None)
VALID_LINE = "The regular expression `orders-.*` is valid.\n"


def test_deliver_prints_warnings_preface_rows_then_notices(capsys):
    outcome = Outcome(
        VALID, OutputFormat.TEXT, warnings=("Warning: w",), notices=("Note: n",), preface=("P",)
    )
    deliver(outcome)
    out, err = capsys.readouterr()
    assert out == "P\n" + VALID_LINE
    assert err == "Warning: w\nNote: n\n"


def test_an_outcome_shown_before_a_write_prints_its_rows_only(capsys):
    deliver(Outcome(VALID, OutputFormat.TEXT, notices=("Note: after the write",), before_write=True))
    assert capsys.readouterr() == (VALID_LINE, "")


def test_rows_shown_before_the_write_are_not_printed_again(capsys):
    deliver(Outcome(VALID, OutputFormat.TEXT, notices=("Note: done",), shown=True))
    assert capsys.readouterr() == ("", "Note: done\n")


def test_warnings_are_escaped_and_notices_kept_as_worded(capsys):
    deliver(Outcome(warnings=("topic '\x1b[2J'",), notices=("kept",)))
    err = capsys.readouterr().err
    assert "\x1b" not in err.splitlines()[0]
    assert err.splitlines()[1] == "kept"


@pytest.mark.parametrize(
    ("failure", "status"),
    [
        (None, ExitCode.OK),
        (CliError("x"), ExitCode.ERROR),
        (PartialFailure("x"), ExitCode.PARTIAL),
        (OutcomeUnknown("x"), ExitCode.UNKNOWN),
    ],
)
def test_the_status_is_the_failures_exit_code(failure, status):
    assert Outcome(failure=failure).status == status


@dataclass(frozen=True)
class Scripted:
    """A request whose outcome is given, showing one partial outcome before it returns."""

    before: Outcome | None
    after: Outcome

    def execute(self, show: Show | None = None) -> Outcome:
        if self.before is not None and show is not None:
            show(self.before)
        return self.after


def test_the_runner_prints_the_rows_then_the_failure_as_the_last_line(capsys):
    request = Scripted(None, Outcome(VALID, OutputFormat.TEXT, failure=PartialFailure("one group missing")))
    code = run_tool("prog", ["--flag"], (), lambda _argv: request, lambda: None)
    out, err = capsys.readouterr()
    assert code == ExitCode.PARTIAL
    assert out == VALID_LINE
    assert err.splitlines()[-1] == "Error: one group missing"


def test_what_is_shown_before_a_write_comes_before_what_happened(capsys):
    plan = Outcome(VALID, OutputFormat.TEXT, before_write=True)
    done = Outcome(VALID, OutputFormat.TEXT, notices=("Note: committed",), shown=True)
    assert perform(Scripted(plan, done)) == ExitCode.OK
    assert capsys.readouterr() == (VALID_LINE, "Note: committed\n")


def test_validate_regex_returns_its_verdict_and_prints_nothing(capsys):
    outcome = ValidateRegexRequest("(orders", OutputFormat.JSON).execute()
    assert capsys.readouterr() == ("", "")
    assert outcome.result == RegexVerdict("(orders", "missing closing )")
    assert outcome.status == ExitCode.ERROR


LANDED = st.dictionaries(st.sampled_from(["a", "b", "c"]), st.sampled_from(list(Landed)), min_size=1)


@given(LANDED)
def test_a_verdicts_failure_is_what_conclude_raises(units):
    verdict = Verdict("reset", units, {}, "check", "undo")
    failure = verdict.failure()
    try:
        verdict.conclude()
    except CliError as raised:
        assert failure is not None
        assert (type(failure), failure.message) == (type(raised), raised.message)
    else:
        assert failure is None
        assert all(landed is Landed.DONE for landed in units.values())


@dataclass(frozen=True)
class Collecting:
    """A request that notes whether Python's cyclic garbage collector runs while it executes."""

    seen: list[bool]
    watch: float | None = None

    def execute(self, show: Show | None = None) -> Outcome:
        import gc

        self.seen.append(gc.isenabled())
        return Outcome()


@pytest.mark.parametrize(("watch", "collecting"), [(None, False), (2.0, True)])
@pytest.mark.parametrize("before", [True, False])
def test_a_command_runs_without_the_collector_and_a_watch_with_it(watch, collecting, before):
    """A one-shot command pauses the cyclic collector (its many short-lived objects would make it
    run for nothing); --watch runs until stopped and keeps it; either way the runner leaves it as
    it found it."""
    import gc

    seen: list[bool] = []
    (gc.enable if before else gc.disable)()
    try:
        code = run_tool("prog", ["--flag"], (), lambda _argv: Collecting(seen, watch), lambda: None)
        assert code == ExitCode.OK
        assert seen == [collecting]
        assert gc.isenabled() is before
    finally:
        gc.enable()
