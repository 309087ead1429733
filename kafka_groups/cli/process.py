"""A tool run as a whole process (its installed command, or ``python -m``): the process ends as
soon as the tool is done.

By the time a tool's ``main`` returns or exits, its output is written and every client it
opened is closed and freed (``runner.run_tool`` sweeps and settles last). What the interpreter's
own shutdown would still do is collect every object the run made and tear down each module it
loaded: 15-30 ms of a command that takes a hundred, spent on nothing the user sees. So the
process flushes stdout and stderr, runs the exit handlers (logging's flush among them) and
leaves with the tool's status. A thread of its own that is still running (no tool leaves one)
keeps the ordinary shutdown, which waits for it.

The collector is off from the start (``runner.run_tool`` keeps it off for the command itself;
a ``--watch`` turns it back on): before the command, the imports would only trigger passes over
the modules they load. A tool's ``main`` called from Python (tests, an application) still
raises ``SystemExit`` and leaves the collector as it was.
"""

from __future__ import annotations

import atexit
import contextlib
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
    for stream in (sys.stdout, sys.stderr):
        # A reader that went away (| head), or a closed stream: nothing more can be said there.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    atexit._run_exitfuncs()
    os._exit(code & 0xFF)


def _threads_running() -> bool:
    threading = sys.modules.get("threading")  # never loaded: no thread was ever started
    if threading is None:
        return False
    main = threading.main_thread()
    return any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate())
