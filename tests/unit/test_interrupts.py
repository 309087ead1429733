"""SIGINT and SIGTERM as the tools take them (kafka_groups/interrupts.py), at each phase of a
write: real signals sent to this process's main thread while the write discipline
(commands/guard.Write) runs with stand-ins for the cluster. The same against a real broker, with
the tools as processes: tests/kafka/test_signals.py."""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass

import pytest

from kafka_groups import interrupts
from kafka_groups.cli.runner import run_tool
from kafka_groups.commands.guard import (
    ABANDONED_READ,
    ABANDONED_SEND,
    NOT_SENT,
    Landed,
    Verdict,
    Write,
    delete_topics,
)
from kafka_groups.core.re2j import RegexVerdict
from kafka_groups.errors import ExitCode
from kafka_groups.render import OutputFormat
from kafka_groups.render.outcome import Outcome, Show
from kafka_groups.settings import ConnectionSettings

pytestmark = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(), reason="signals reach the main thread only"
)


class _Stand:
    """Stands in for KafkaAccess: the write reads its settings; a topic deletion is counted."""

    def __init__(self, timeout_ms: int = 5000) -> None:
        self.settings = ConnectionSettings("127.0.0.1:1", timeout_ms)
        self.deleted: list[list[str]] = []
        self.write_target_named = True  # the cluster line is said once per command: said already

    def delete_topics(self, names: list[str]) -> None:
        self.deleted.append(names)

    def list_topics(self) -> list[str]:
        return []

    def close(self) -> None:
        pass


def _interrupt(*signums: int) -> None:
    """Send the signals to the main thread, each handled before the next is sent."""
    for signum in signums:
        signal.pthread_kill(threading.main_thread().ident or 0, signum)
        _wait(0.05)


def _wait(seconds: float) -> None:
    """Python code running (as a send waiting on a future would): a signal is handled in here."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.005)


def _send(*signums: int, answer: object = "ok"):  # type: ignore[no-untyped-def]
    def send() -> object:
        _interrupt(*signums)
        _wait(0.1)
        return answer

    return send


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_before_anything_is_sent_an_interrupt_stops_the_command(signum, code):
    with interrupts.handling(), pytest.raises(interrupts.Interrupted) as stopped:
        _interrupt(signum)
        _wait(1)
    assert (stopped.value.signum, stopped.value.exit_code) == (signum, code)
    assert interrupts.sent() == []


def test_the_first_interrupt_during_the_send_is_noted_and_the_write_goes_on(capfd):
    with interrupts.handling():
        sent = Write(_Stand(), send=_send(signal.SIGTERM), read_back=lambda r: {}, what="reset").run()
        assert interrupts.requested() and interrupts.sent() == ["reset"]
    assert (sent.answer, sent.send_error, sent.state, sent.read_error) == ("ok", None, None, None)
    told = capfd.readouterr().err  # written to the descriptor by the handler
    assert told.startswith(
        "Interrupted (SIGTERM): the reset may have reached the cluster; waiting for its answer"
    )
    assert "Interrupt again to stop now" in told


def test_a_second_interrupt_stops_the_wait_and_nothing_is_known():
    with interrupts.handling():
        sent = Write(_Stand(), send=_send(signal.SIGINT, signal.SIGINT), read_back=lambda r: {}).run()
    assert (sent.answer, sent.send_error, sent.state, sent.read_error) == (
        None,
        ABANDONED_SEND,
        None,
        ABANDONED_READ,
    )


def test_a_second_interrupt_during_the_read_back_keeps_the_answer():
    """An acknowledged send stays acknowledged (a done write): only the read-back is lost."""

    def read(_reader: object) -> dict[str, int]:
        _interrupt(signal.SIGINT, signal.SIGINT)
        _wait(1)
        return {"t": 1}

    with interrupts.handling():
        sent = Write(_Stand(), send=lambda: {"g": None}, read_back=read, verify_always=True).run()
    assert (sent.answer, sent.send_error, sent.state, sent.read_error) == (
        {"g": None},
        None,
        None,
        ABANDONED_READ,
    )


def test_after_a_write_an_interrupt_is_noted_and_never_raised(capfd):
    with interrupts.handling():
        Write(_Stand(), send=lambda: "ok", read_back=lambda r: {}, what="deletion").run()
        _interrupt(signal.SIGINT, signal.SIGINT, signal.SIGTERM)
        _wait(0.2)
        assert interrupts.requested()
    told = capfd.readouterr().err.splitlines()
    assert told == [
        "Interrupted (SIGINT): the deletion is over; reporting what it did, sending nothing more."
    ]


def test_once_interrupted_a_later_write_is_not_sent():
    """Internal topics are deleted after a reset: not once the user asked the tool to stop."""
    stand = _Stand()
    with interrupts.handling():
        Write(stand, send=_send(signal.SIGINT), read_back=lambda r: {}).run()
        assert delete_topics(stand, ["app-repartition"]) == (Landed.NOT_APPLIED, NOT_SENT)  # type: ignore[arg-type]
    assert stand.deleted == []
    with interrupts.handling():
        assert delete_topics(stand, ["app-repartition"])[0] is Landed.DONE  # type: ignore[arg-type]
    assert stand.deleted == [["app-repartition"]]


def test_the_previous_handlers_come_back():
    before = {s: signal.getsignal(s) for s in interrupts.SIGNALS}
    with interrupts.handling():
        assert all(signal.getsignal(s) is not before[s] for s in interrupts.SIGNALS)
    assert {s: signal.getsignal(s) for s in interrupts.SIGNALS} == before


def test_off_the_main_thread_nothing_is_installed():
    seen = []

    def run() -> None:
        with interrupts.handling():
            seen.append(signal.getsignal(signal.SIGINT))

    before = signal.getsignal(signal.SIGINT)
    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    assert seen == [before]


# --- the runner: what is said, and the exit status ------------------------------------------------

VALID = RegexVerdict("orders-.*", None)


@dataclass(frozen=True)
class Writing:
    """A request that writes (through the discipline) and is interrupted at a chosen moment."""

    before: tuple[int, ...] = ()  # interrupts before the send
    during: tuple[int, ...] = ()  # while the send waits for its answer
    answer: object = "ok"

    def execute(self, show: Show | None = None) -> Outcome:
        _interrupt(*self.before)
        _wait(0.1)
        sent = Write(
            _Stand(), send=_send(*self.during, answer=self.answer), read_back=lambda r: {}, what="reset"
        ).run()
        landed = Landed.DONE if sent.answer == "ok" else Landed.UNKNOWN
        verdict = Verdict(
            "reset", {"group 'g'": landed}, {"group 'g'": sent.send_error or ""}, "CHECK", "UNDO"
        )
        return Outcome(VALID, OutputFormat.TEXT, failure=verdict.failure())


def _run(request: Writing) -> int:
    return run_tool("prog", ["--flag"], (), lambda _argv: request, lambda: None)


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupted_before_the_send_nothing_is_sent_and_the_status_says_so(capfd, signum, code):
    assert _run(Writing(before=(signum,))) == code
    out, err = capfd.readouterr()
    name = signal.Signals(signum).name
    assert out == ""
    assert err == f"Interrupted ({name}): stopped before any change was sent; nothing changed.\n"


def test_interrupted_during_the_send_the_write_is_reported_as_done(capfd):
    assert _run(Writing(during=(signal.SIGINT,))) == ExitCode.OK
    out, err = capfd.readouterr()
    assert out == "The regular expression `orders-.*` is valid.\n"
    lines = err.splitlines()
    assert lines[0].startswith("Interrupted (SIGINT): the reset may have reached the cluster")
    assert lines[-1] == "The reset is done (the interrupt came after it was sent)."
    assert "Aborted" not in err and "Traceback" not in err


def test_interrupted_twice_the_outcome_is_unknown_with_the_check_and_the_undo(capfd):
    assert _run(Writing(during=(signal.SIGINT, signal.SIGINT))) == ExitCode.UNKNOWN
    last = capfd.readouterr().err.splitlines()[-1]
    assert last == (
        "Error: outcome unknown: the reset of group 'g' was sent and could not be verified: "
        f"{ABANDONED_SEND}; check with: CHECK; undo: UNDO"
    )


def test_a_tool_left_running_keeps_no_handler_of_ours():
    _run(Writing())
    assert signal.getsignal(signal.SIGINT) is not interrupts._on_signal
    assert os.getpid()  # the test process itself was never stopped


def test_a_signal_the_process_ignores_stays_ignored():
    """A job started in the background by a non-interactive shell ignores Ctrl-C: so do we."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with interrupts.handling():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_the_subcommand_form_reports_an_interrupt_as_the_flag_form_does(capfd):
    """Typer turns a KeyboardInterrupt into a quiet status 130 (or "Aborted!", by version): the
    runner hands it an error instead, and the line and the status are the flag form's."""
    import typer

    from kafka_groups.cli.runner import perform

    app = typer.Typer()

    @app.command()
    def write() -> None:
        perform(Writing(before=(signal.SIGTERM,)))

    @app.command()
    def other() -> None:
        pass

    assert run_tool("prog", ["write"], ("write", "other"), lambda _argv: ("write",), lambda: app) == 143
    assert (
        capfd.readouterr().err
        == "Interrupted (SIGTERM): stopped before any change was sent; nothing changed.\n"
    )


def test_a_tool_that_asks_for_none_keeps_pythons_own_handling():
    """kafka-to-parquet: its landing is not under the write discipline."""
    seen = []

    class Request:
        def execute(self, show: Show | None = None) -> Outcome:
            seen.append(signal.getsignal(signal.SIGINT))
            return Outcome()

    before = signal.getsignal(signal.SIGINT)
    assert run_tool("prog", ["--flag"], (), lambda _argv: Request(), lambda: None, signals=False) == 0
    assert seen == [before]
