"""A tool run as a whole process (its installed command, or ``python -m``): the process ends as
soon as the tool is done.

By the time a tool's ``main`` returns or exits, its output is written and every client it
opened is closed and freed (``runner.run_tool`` sweeps and settles last). What the interpreter's
own shutdown would still do is collect every object the run made and tear down each module it
loaded: 15-30 ms of a command that takes a hundred, spent on nothing the user sees. So the
process runs the exit handlers (logging's flush among them), flushes stdout and stderr and
leaves with the tool's status. A flush that fails for another reason than a reader that went
away, and a thread of its own still running (no tool leaves one), take Python's own exit, which
reports the one and waits for the other.

The collector is off from the start (``runner.run_tool`` keeps it off for the command itself;
a ``--watch`` turns it back on): before the command, the imports would only trigger passes over
the modules they load. A tool's ``main`` called from Python (tests, an application) still
raises ``SystemExit`` and leaves the collector as it was.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
from collections.abc import Callable
from typing import NoReturn


def run_as_process(main: Callable[[], object]) -> NoReturn:
    gc.disable()
    try:
        main()
        code: str | int | None = 0
    except SystemExit as exc:
        code = exc.code
    if code is None:
        code = 0
    if not isinstance(code, int) or _threads_running():
        sys.exit(code)  # Python's own exit: it prints a message code, or waits for the threads
    atexit._run_exitfuncs()  # first, as Python's own exit: what they write is flushed below
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except BrokenPipeError:
            pass  # the reader went away (| head): the status stands, as in runner.run_tool
        except (OSError, ValueError):
            sys.exit(code)  # a disk full or a closed stream: Python's own exit reports it
    os._exit(code & 0xFF)


def _threads_running() -> bool:
    threading = sys.modules.get("threading")  # never loaded: no thread was ever started
    if threading is None:
        return False
    main = threading.main_thread()
    return any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate())
