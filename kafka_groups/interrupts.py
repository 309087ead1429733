"""What SIGINT (Ctrl-C) and SIGTERM do while a tool runs, and which writes the run has sent.

The entry point (``cli/runner.run_tool``) installs the handler for the whole command; the write
discipline (``commands/guard.Write``) opens the window in which a request may have reached
the cluster. An interrupt then depends on where the command is:

* **Nothing sent yet** (every read; a write up to its send, the backup and its announcement
  included): the command stops at once with :class:`Interrupted`; the runner says that no
  change was sent and exits 130 (SIGINT) or 143 (SIGTERM).
* **A write in flight** (from the send to the end of its read-back): stopping now would leave
  the user guessing, so the first interrupt is noted, with one line on stderr saying what the
  tool waits for; the write waits for its answer (bounded by the timeout), reads back, and the
  command reports done, not applied or outcome unknown as it always does. A second interrupt
  stops the wait at once (:class:`Abandoned`, caught by the write): what is not known then is
  reported as unknown, with the command that checks it and the undo.
* **After a write was sent**: the report is moments away. An interrupt is noted, never raised;
  the steps that would send or read more (``requested()``: deleting internal topics, recording
  creation times, naming the groups to warn) are skipped, and the report goes out. Its exit
  status says what the cluster holds.

Python runs a signal handler on the main thread between bytecodes. A wait on a future
(confluent-kafka's AdminClient), kafka-python's select and a consumer's poll are interrupted
at once; a metadata request (``list_topics``) holds the signal until it returns, within its
timeout, and two signals that arrive meanwhile count as one.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from kafka_groups.errors import CliError, ExitCode

SIGNALS = (signal.SIGINT, signal.SIGTERM)


def signal_label(signum: int) -> str:
    """``Interrupted (SIGINT)``, ``Interrupted (SIGTERM)``."""
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    return f"Interrupted ({name})"


class Interrupted(KeyboardInterrupt):
    """An interrupt before any change was sent: the command stops, nothing changed."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def stopped(exc: KeyboardInterrupt) -> CliError:
    """The error an interrupt that stopped the command ends it with: 130 (SIGINT) or 143
    (SIGTERM) when no change was sent. One that came after a write was sent is noted by the
    handler, never raised; should one stop the command all the same (a KeyboardInterrupt of
    another origin), the write's outcome is unknown (exit 4)."""
    signum = getattr(exc, "signum", signal.SIGINT)
    label = signal_label(signum)
    if not _run.sent:
        return Stopped(f"{label}: stopped before any change was sent; nothing changed.", 128 + signum)
    return Stopped(
        f"{label}: stopped after the {_run.sent[0]} was sent; its outcome is unknown.", ExitCode.UNKNOWN
    )


class Stopped(CliError):
    """A command stopped by an interrupt, as an error line (no label) and its exit status: an
    error, so that the subcommand form's Typer passes it on as it came."""

    label = ""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[assignment]


class Abandoned(KeyboardInterrupt):
    """A second interrupt while a write waits for its answer or reads it back: stop waiting."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _Run:
    """What one command sent and heard (a plain class: every command imports this module)."""

    def __init__(self) -> None:
        self.sent: list[str] = []  # the writes that may have reached the cluster
        self.in_flight: str | None = None  # the write whose answer is awaited
        self.noted_in_flight = False  # an interrupt was noted during the write in flight
        self.received: list[int] = []  # the interrupts noted (never raised)
        self.done = False  # the command's report is out


_run = _Run()


def _tell(line: str) -> None:
    """One line on stderr from inside the handler: written to the descriptor, since the
    interrupted code may be inside a write to ``sys.stderr`` itself."""
    with contextlib.suppress(OSError):  # stderr closed or full: the report and the exit status follow
        os.write(2, (line + "\n").encode("utf-8", "backslashreplace"))


def _on_signal(signum: int, frame: FrameType | None) -> None:
    run = _run
    if run.done:
        run.received.append(signum)
        return
    if run.in_flight is not None:
        if run.noted_in_flight:
            raise Abandoned(signum)
        run.noted_in_flight = True
        run.received.append(signum)
        _tell(
            f"{signal_label(signum)}: the {run.in_flight} may have reached the cluster; waiting for "
            "its answer and reading it back to report what happened. Interrupt again to stop now "
            "(its outcome then stays unknown)."
        )
        return
    if run.sent:
        if not run.received:
            what = run.sent[0]
            _tell(f"{signal_label(signum)}: the {what} is over; reporting what it did, sending nothing more.")
        run.received.append(signum)
        return
    raise Interrupted(signum)


@contextmanager
def handling(enabled: bool = True) -> Iterator[None]:
    """The handler for SIGINT and SIGTERM while a command runs, and a fresh record of what it
    sent (``enabled`` False: the record only); the previous handlers come back after. A
    signal the process ignores stays ignored;
    off the main thread (a tool called from another thread) signals cannot be handled, and
    nothing is installed."""
    global _run
    _run = _Run()
    previous = {}
    if enabled and threading.current_thread() is threading.main_thread():
        for sig in SIGNALS:
            if signal.getsignal(sig) is not signal.SIG_IGN:  # a background job's ignored Ctrl-C stays so
                previous[sig] = signal.signal(sig, _on_signal)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _run = _Run()  # what the command sent and heard is not the next one's


def finished() -> None:
    """The command's report is out: an interrupt now only ends what is left (freeing clients),
    which changes nothing, so it is noted and the exit status stands."""
    _run.done = True


@contextmanager
def sending(what: str) -> Iterator[None]:
    """The window in which the write ``what`` ("reset", "deletion", ...) may reach the cluster:
    from right before its send to the end of its read-back. The first interrupt inside is noted;
    a second raises :class:`Abandoned` for the write to catch."""
    _run.sent.append(what)
    _run.in_flight, _run.noted_in_flight = what, False
    try:
        yield
    finally:
        _run.in_flight = None


def sent() -> list[str]:
    """The writes of this run that may have reached the cluster, in order."""
    return list(_run.sent)


def requested() -> bool:
    """Whether an interrupt was noted: what would send or read more after a write is skipped."""
    return bool(_run.received)
