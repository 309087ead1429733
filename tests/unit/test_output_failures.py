"""Output that cannot be written (render/stdio.py): a closed, full or abandoned stdout, a stderr
that fails, an encoding that lacks a character, and KAFKA_TOOLS_OUTPUT's values. In process,
with streams that fail as the real ones do; as whole processes: tests/unit/test_process_exit.py,
and against a broker: tests/kafka/test_signals.py."""

from __future__ import annotations

import errno
import io
import sys
from dataclasses import dataclass

import pytest

from kafka_groups import interrupts
from kafka_groups.cli.runner import run_tool
from kafka_groups.commands.guard import Write, announce
from kafka_groups.core.re2j import RegexVerdict
from kafka_groups.errors import CliError, ExitCode, OutcomeUnknown
from kafka_groups.render import OutputFormat, check_output_env, resolve_format
from kafka_groups.render.outcome import Outcome, Show
from kafka_groups.render.registry import deliver
from kafka_groups.render.stdio import Closed, StdoutFailed, standard_streams
from kafka_groups.render.watch_sinks import JsonLines, Live, TextBlocks, sink_for
from kafka_groups.settings import ConnectionSettings

VALID = RegexVerdict("orders-.*", None)
VALID_LINE = "The regular expression `orders-.*` is valid.\n"


class Failing(io.TextIOWrapper):
    """A stdout over a device that refuses every byte (/dev/full), or whose reader is gone."""

    def __init__(self, error: OSError) -> None:
        super().__init__(_Refusing(error), encoding="utf-8")


class _Refusing(io.RawIOBase):
    def __init__(self, error: OSError) -> None:
        self.error = error

    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int:
        raise self.error


FULL = OSError(errno.ENOSPC, "No space left on device")
GONE = BrokenPipeError(errno.EPIPE, "Broken pipe")


@pytest.mark.parametrize(
    ("stream", "reason"),
    [(Closed("stdout"), "stdout is closed"), (Failing(FULL), "No space left on device")],
)
def test_a_stdout_that_fails_still_gets_the_notices_on_stderr_then_says_so(
    monkeypatch, capsys, stream, reason
):
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdout", stream)
    with pytest.raises(StdoutFailed) as failed:
        deliver(Outcome(VALID, OutputFormat.TEXT, warnings=("Warning: w",), notices=("Note: n",)))
    assert failed.value.message == f"the output could not be written to stdout ({reason})"
    assert capsys.readouterr().err == "Warning: w\nNote: n\n"


def test_a_reader_that_went_away_is_told_apart(monkeypatch):
    monkeypatch.setattr(sys, "stdout", Failing(GONE))
    with pytest.raises(StdoutFailed) as failed:
        deliver(Outcome(VALID, OutputFormat.TEXT))
    assert failed.value.broken_pipe


@dataclass(frozen=True)
class Scripted:
    """A command: shows ``before`` (as the reset shows its plan), writes (through the write
    discipline) when ``writes``, and returns ``after``."""

    after: Outcome
    writes: bool = False
    before: Outcome | None = None
    sent: list[str] | None = None  # what was sent, for the test to see

    def execute(self, show: Show | None = None) -> Outcome:
        if self.before is not None and show is not None:
            show(self.before)
        if self.writes:
            stand = _Stand()
            Write(
                stand,
                send=lambda: self.sent.append("sent") if self.sent is not None else None,
                read_back=dict,
                what="deletion",
            ).run()  # type: ignore[arg-type]
        return self.after


class _Stand:
    def __init__(self) -> None:
        self.settings = ConnectionSettings("127.0.0.1:1", 5000)


def _run(request: Scripted, stdout: io.TextIOBase, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    saved = sys.stdout
    sys.stdout = stdout  # type: ignore[assignment]
    try:
        code = run_tool("prog", ["--flag"], (), lambda _argv: request, lambda: None)
    finally:
        sys.stdout = saved
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("stream", "reason"),
    [(Closed("stdout"), "stdout is closed"), (Failing(FULL), "No space left on device")],
)
def test_a_read_that_cannot_print_is_one_error_line_and_exit_1(capsys, stream, reason):
    code, err = _run(Scripted(Outcome(VALID, OutputFormat.TEXT)), stream, capsys)
    assert (code, err) == (ExitCode.ERROR, f"Error: the output could not be written to stdout ({reason})\n")


def test_a_read_whose_reader_went_away_keeps_its_status(capsys):
    assert _run(Scripted(Outcome(VALID, OutputFormat.TEXT)), Failing(GONE), capsys) == (ExitCode.OK, "")
    code, err = _run(
        Scripted(Outcome(VALID, OutputFormat.TEXT, failure=CliError("missing"))), Failing(GONE), capsys
    )
    assert (code, err) == (ExitCode.ERROR, "Error: missing\n")


@pytest.mark.parametrize("stream", [Closed("stdout"), Failing(FULL), Failing(GONE)])
def test_a_write_that_landed_is_done_whatever_became_of_its_output(capsys, stream):
    code, err = _run(Scripted(Outcome(VALID, OutputFormat.JSON), writes=True), stream, capsys)
    assert code == ExitCode.OK
    assert err.startswith("Note: the deletion is done, but its output could not be written to stdout (")
    assert len(err.splitlines()) == 1


def test_a_write_in_doubt_keeps_its_status_and_its_last_line(capsys):
    unknown = OutcomeUnknown("outcome unknown: check with: X")
    code, err = _run(
        Scripted(Outcome(VALID, OutputFormat.TEXT, failure=unknown), writes=True), Failing(FULL), capsys
    )
    assert code == ExitCode.UNKNOWN
    assert err.splitlines() == [
        "Note: the output of the deletion could not be written to stdout (No space left on device).",
        "Error: outcome unknown: check with: X",
    ]


def test_a_plan_that_cannot_be_shown_before_the_write_sends_nothing(capsys):
    sent: list[str] = []
    request = Scripted(
        Outcome(VALID), writes=True, before=Outcome(VALID, OutputFormat.TEXT, before_write=True), sent=sent
    )
    code, err = _run(request, Failing(FULL), capsys)
    assert (code, sent) == (ExitCode.ERROR, [])
    assert (
        err
        == "Error: the output could not be written to stdout (No space left on device); nothing was sent\n"
    )


def test_a_plan_whose_reader_went_away_goes_on_to_the_write(capsys):
    sent: list[str] = []
    request = Scripted(
        Outcome(VALID, OutputFormat.TEXT, shown=True),
        writes=True,
        before=Outcome(VALID, OutputFormat.TEXT, before_write=True),
        sent=sent,
    )
    code, _err = _run(request, Failing(GONE), capsys)
    assert (code, sent) == (ExitCode.OK, ["sent"])


def test_a_stderr_that_fails_never_raises_and_the_status_stands(monkeypatch):
    monkeypatch.setattr(sys, "stderr", Failing(FULL))
    request = Scripted(Outcome(VALID, OutputFormat.TEXT, failure=CliError("x"), warnings=("w",)))
    assert run_tool("prog", ["--flag"], (), lambda _argv: request, lambda: None) == ExitCode.ERROR


@pytest.mark.parametrize("stream", [None, Failing(FULL)])
def test_nothing_is_sent_when_the_announcement_cannot_be_said(monkeypatch, stream):
    monkeypatch.setattr(sys, "stderr", stream)
    with standard_streams(), interrupts.handling():
        with pytest.raises(CliError, match=r"^nothing was sent: .* could not be said on stderr"):
            announce("Undo: ...")
        # After a write was sent, what follows it never turns it into a failure.
        Write(_Stand(), send=lambda: None, read_back=dict).run()  # type: ignore[arg-type]
        announce("Undo: ...")


def test_a_character_the_output_encoding_lacks_is_escaped(capsys):
    raw = io.BytesIO()
    ascii_out = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    code, _err = _run(Scripted(Outcome(RegexVerdict("grüppe", None), OutputFormat.TEXT)), ascii_out, capsys)
    assert code == ExitCode.OK
    assert raw.getvalue() == b"The regular expression `gr\\xfcppe` is valid.\n"
    assert ascii_out.errors == "strict"  # as it was


# --- KAFKA_TOOLS_OUTPUT ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["bogus", " ", "jsonl", "text "])
def test_a_kafka_tools_output_that_names_no_format_is_refused(monkeypatch, value):
    monkeypatch.setenv("KAFKA_TOOLS_OUTPUT", value)
    with pytest.raises(CliError) as refused:
        check_output_env()
    assert refused.value.exit_code == ExitCode.USAGE
    assert refused.value.message == (
        f"KAFKA_TOOLS_OUTPUT={value!r} is not an output format (choose from auto, text, table, json, csv, "
        "or leave it empty)"
    )


def test_a_bad_kafka_tools_output_stops_the_command_before_it_runs(monkeypatch, capsys):
    monkeypatch.setenv("KAFKA_TOOLS_OUTPUT", "bogus")
    ran: list[str] = []

    class Request:
        def execute(self, show: Show | None = None) -> Outcome:
            ran.append("ran")
            return Outcome()

    assert run_tool("prog", ["--flag"], (), lambda _argv: Request(), lambda: None) == ExitCode.USAGE
    assert ran == []
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize(
    ("value", "fmt"),
    [
        ("", OutputFormat.TEXT),
        ("auto", OutputFormat.TEXT),
        ("JSON", OutputFormat.JSON),
        ("csv", OutputFormat.CSV),
    ],
)
def test_kafka_tools_output_is_the_default_of_output(monkeypatch, value, fmt):
    monkeypatch.setenv("KAFKA_TOOLS_OUTPUT", value)
    check_output_env()
    assert resolve_format(OutputFormat.AUTO, io.StringIO()) is fmt
    assert resolve_format(OutputFormat.TABLE, io.StringIO()) is OutputFormat.TABLE  # --output wins


@pytest.mark.parametrize(
    ("value", "sink"),
    [
        ("", JsonLines),  # piped: JSON Lines, as without it
        ("auto", JsonLines),
        ("json", JsonLines),
        ("text", TextBlocks),
        ("table", Live),  # Rich tables, one block per refresh off a terminal
        ("csv", JsonLines),  # the shell's default for other commands; a watch cannot write it
    ],
)
def test_a_piped_watch_writes_what_kafka_tools_output_says(monkeypatch, value, sink):
    monkeypatch.setenv("KAFKA_TOOLS_OUTPUT", value)
    assert type(sink_for(OutputFormat.AUTO, io.StringIO())) is sink


def test_a_watch_asked_for_csv_is_refused(monkeypatch):
    monkeypatch.delenv("KAFKA_TOOLS_OUTPUT", raising=False)
    with pytest.raises(CliError, match="not csv"):
        sink_for(OutputFormat.CSV, io.StringIO())


def test_a_table_watch_off_a_terminal_prints_each_refresh(monkeypatch):
    from kafka_groups.core.watch import ListFrame

    out = io.StringIO()
    with Live(out) as live:
        live.show(ListFrame(1_000, 0.0, 2.0, ()), None)
        first = out.getvalue()
        live.show(ListFrame(3_000, 2.0, 2.0, ()), None)
    assert "Every 2s" in first and out.getvalue().count("Every 2s") == 2
