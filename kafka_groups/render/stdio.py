"""The standard streams as the tools use them, whatever state they were left in.

* stdout can fail: closed (the process was started with ``>&-``; Python then has no
  ``sys.stdout``), full (``>/dev/full``, a full disk) or a reader gone (``| head``). Printing a
  command's output turns each into a :class:`StdoutFailed` (``render/registry.deliver``), which
  the entry point reports once: a read exits 1 with one line (a reader gone is no error, as
  ever); a write says on stderr that its output is lost, and its exit status still says what
  the cluster holds.
* stderr never stops a command: a write to it that fails is dropped (and remembered), so that
  an error line, a warning or a traceback under ``--debug`` cannot become a failure of its own.
  Only the announcement before a write insists: when the backup, its undo or what is about to
  be sent cannot be said, nothing is sent (``commands/guard.announce``).
* Text that the output's encoding cannot hold (``PYTHONIOENCODING=ascii`` and a group id with
  an accent) is written with backslash escapes instead of failing.

The entry point puts these in place for the command (:func:`standard_streams`) and the
process boundary (``cli/process.py``) for what runs around it.
"""

from __future__ import annotations

import errno
import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kafka_groups.errors import CliError

# How a write fails on a full device: no space, over quota, past the size limit.
FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
_reported = False  # a StdoutFailed was raised: the entry point has said it


class StreamClosed(OSError):
    """A write to a standard stream the process was started without."""


class StdoutFailed(CliError):
    """The command's output could not be written to stdout."""

    def __init__(self, reason: str, broken_pipe: bool = False, consequence: str = "") -> None:
        super().__init__(f"the output could not be written to stdout ({reason}){consequence}")
        self.reason = reason
        self.broken_pipe = broken_pipe  # the reader went away (| head): not an error for a read


def stdout_failed(exc: BaseException) -> StdoutFailed | None:
    """What a failed write to stdout was, or None when ``exc`` is no such failure."""
    global _reported
    if isinstance(exc, BrokenPipeError):
        failed = StdoutFailed("the reader went away", broken_pipe=True)
    elif isinstance(exc, OSError):
        failed = StdoutFailed(exc.strerror or str(exc))
    elif isinstance(exc, ValueError) and getattr(sys.stdout, "closed", False):
        failed = StdoutFailed("stdout is closed")
    else:
        return None
    _reported = True
    return failed


def stdout_reported() -> bool:
    """Whether a failure of stdout was raised for the entry point to report (once)."""
    return _reported


def report_stdout_failure() -> None:
    """The entry point reported a failure of stdout itself: the final flush says nothing more."""
    global _reported
    _reported = True


class Closed(io.TextIOBase):
    """A standard stream the process was started without (``>&-``, ``2>&-``): not a
    terminal, and every write fails as a closed descriptor would."""

    def __init__(self, name: str) -> None:
        self._name = name

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def write(self, text: str) -> int:
        raise StreamClosed(errno.EBADF, f"{self._name} is closed")

    def isatty(self) -> bool:
        return False


class Forgiving:
    """stderr that never raises: a write or flush that fails is dropped, and the first
    failure's reason is kept (:attr:`failure`)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.failure: str | None = None

    def write(self, text: str) -> int:
        try:
            return int(self._stream.write(text))
        except (OSError, ValueError) as exc:
            self._failed(exc)
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except (OSError, ValueError) as exc:
            self._failed(exc)

    def isatty(self) -> bool:
        try:
            return bool(self._stream.isatty())
        except (OSError, ValueError):
            return False

    def _failed(self, exc: BaseException) -> None:
        if self.failure is None:
            self.failure = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def stderr_failure() -> str | None:
    """Why the last writes to stderr were dropped, if they were."""
    return getattr(sys.stderr, "failure", None)


@contextmanager
def standard_streams() -> Iterator[None]:
    """stdout and stderr as described above, for one command; as they were after it."""
    global _reported
    _reported = False
    saved = sys.stdout, sys.stderr
    if sys.stdout is None:
        sys.stdout = Closed("stdout")
    sys.stderr = Forgiving(sys.stderr if sys.stderr is not None else Closed("stderr"))  # type: ignore[assignment]
    escaped = _escape_unencodable(sys.stdout)
    try:
        yield
    finally:
        if escaped:
            _reconfigure(saved[0], "strict")
        sys.stdout, sys.stderr = saved  # type: ignore[assignment]


def _escape_unencodable(stream: Any) -> bool:
    """A stream that fails on a character its encoding lacks writes it as an escape instead."""
    if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
        return _reconfigure(stream, "backslashreplace")
    return False


def _reconfigure(stream: Any, errors: str) -> bool:
    try:
        stream.reconfigure(errors=errors)
    except (OSError, ValueError, AttributeError):
        return False
    return True
