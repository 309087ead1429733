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
