"""A tool run as a whole process (its installed command, or ``python -m``): the process ends as
soon as the tool is done.

By the time a tool's ``main`` returns or exits, its output is written and every client it
opened is closed and freed (``runner.run_tool`` sweeps and settles last). What the interpreter's
own shutdown would still do is collect every object the run made and tear down each module it
loaded: 15-30 ms of a command that takes a hundred, spent on nothing the user sees. So the
process runs the exit handlers (logging's flush among them), flushes stdout and stderr and
leaves with the tool's status. A thread of its own still running (no tool leaves one) takes
Python's own exit, which waits for it.

What the tool could not print is said once, in one line, never as a traceback: a stdout that
cannot take the rest of the output at the final flush is exit status 1 unless the tool already
reported it (after a write, the status says what the cluster holds: render/stdio.py); a reader
that went away (``| head``) and a stderr that cannot be written leave the status as it is. An
interrupt that comes before the tool's own handler is in place (kafka_groups/interrupts.py) stops
it with nothing sent; one that comes once it is done changes nothing.

The collector is off from the start (``runner.run_tool`` keeps it off for the command itself;
a ``--watch`` turns it back on): before the command, the imports would only trigger passes over
the modules they load. A tool's ``main`` called from Python (tests, an application) still
raises ``SystemExit`` and leaves the collector as it was.
"""

from __future__ import annotations

import atexit
import errno
import gc
import os
import sys

# Imported before the tool handles Ctrl-C (an interrupt then is Python's, with a traceback): only
# modules already loaded at start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NoReturn

# How a write to a stream fails: its reader gone, a full disk, no such descriptor, a device error.
_OUTPUT_ERRORS = frozenset({errno.EPIPE, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EBADF, errno.EIO})


def run_as_process(main: Callable[[], object]) -> NoReturn:
    gc.disable()
    try:
        _standard_streams()
        main()
        code: str | int | None = 0
    except SystemExit as exc:
        code = exc.code
    except KeyboardInterrupt as exc:  # before the tool had its handler (the imports): nothing sent
        code = _report(exc)
    except OSError as exc:  # help (written before the tool runs) into a stdout that fails
        if exc.errno not in _OUTPUT_ERRORS:
            raise
        code = 0 if isinstance(exc, BrokenPipeError) else _say_output_lost(exc.strerror or str(exc))
    if code is None:
        code = 0
    if not isinstance(code, int) or _threads_running():
        sys.exit(code)  # Python's own exit: it prints a message code, or waits for the threads
    try:
        atexit._run_exitfuncs()  # first, as Python's own exit: what they write is flushed below
        code = _flush(code)
    except KeyboardInterrupt:
        pass  # the tool is done and has said what it did: its status stands
    os._exit(code & 0xFF)


def _flush(code: int) -> int:
    """Flush stdout and stderr; the status to leave with. A reader that went away (| head) and
    a stderr that cannot be written change nothing; a stdout that cannot take what is left of
    the output is an error the tool did not report yet (``render/stdio.py`` says when it has)."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        pass  # the reader went away: the status stands, as in runner.run_tool
    except ValueError:
        pass  # closed by the tool itself, which flushed it then
    except OSError as exc:
        stdio = sys.modules.get("kafka_groups.render.stdio")
        if stdio is None or not stdio.stdout_reported():
            failed = _say_output_lost(exc.strerror or str(exc))
            code = code or failed
    try:
        if sys.stderr is not None:
            sys.stderr.flush()
    except (OSError, ValueError):
        pass  # nowhere left to say it
    return code


def _say_output_lost(reason: str | None) -> int:
    """One line for an output the tool could not write; exit status 1."""
    _to_stderr(f"Error: the output could not be written to stdout ({reason})")
    return 1


def _report(exc: KeyboardInterrupt) -> int:
    from kafka_groups.interrupts import SIGNALS, signal_label

    signum = getattr(exc, "signum", SIGNALS[0])
    _to_stderr(f"{signal_label(signum)}: stopped before any change was sent; nothing changed.")
    return 128 + signum


def _to_stderr(line: str) -> None:
    if sys.stderr is None:  # print(file=None) would write to stdout
        return
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        return  # nowhere left to say it


def _standard_streams() -> None:
    """Descriptors 0-2 held (see below), and a closed stdout or stderr that fails as one when
    written to (Python leaves ``sys.stdout`` None, and ``print`` would then drop the output
    without a word)."""
    _occupy_standard_descriptors()
    if sys.stdout is None or sys.stderr is None:
        from kafka_groups.render.stdio import Closed

        sys.stdout = sys.stdout or Closed("stdout")
        sys.stderr = sys.stderr or Closed("stderr")


def _occupy_standard_descriptors() -> None:
    """A process started with stdin, stdout or stderr closed (``>&-``) has that descriptor free,
    and the next file or socket it opens would take it: a backup file or a broker connection
    could then receive what is written to descriptor 1 or 2 (a C library's own messages, the
    interrupt note). /dev/null takes them instead; Python's ``sys.stdout`` stays None, so the
    tool still knows that stdout was closed. Costs one open and one close otherwise."""
    fd = os.open(os.devnull, os.O_RDWR)
    while fd <= 2:
        fd = os.open(os.devnull, os.O_RDWR)
    os.close(fd)


def _threads_running() -> bool:
    threading = sys.modules.get("threading")  # never loaded: no thread was ever started
    if threading is None:
        return False
    main = threading.main_thread()
    return any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate())
