"""Run one of our tools inside the test process, as if it were a fresh process with piped output.

Used by the ``ours`` fixture: the tests that are about a tool's behaviour (what it prints, what it
writes, its exit code) run it through its console entry point (``main(argv)``) with argv, an empty
stdin and stdout/stderr captured as pipes (not terminals), which saves a Python start-up and the
imports per call. Output written straight to file descriptors 1 and 2 is captured as well. What a
fresh process would not share with the previous run is reset around each call: os.environ (the
overrides are applied, then the old environment comes back), the secrets collected for scrubbing,
the module-level caches of our packages, logging handlers and levels, and signal handlers. The
``ours_process`` fixture keeps the real subprocess for the tests about the process boundary
(console scripts, signals, stdin, terminals).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import locale
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Iterator, Mapping

OUR_TOOLS = {
    "kafka-consumer-groups": "kafka_groups.cli.consumer_groups",
    "kafka-streams-groups": "kafka_groups.cli.streams_groups",
    "kafka-topics": "kafka_topics.cli",
}
OUR_PACKAGES = ("kafka_groups", "kafka_topics")
# Read by the tools from the environment; the suite's own setting must not leak in (the subprocess
# form drops it too).
DROPPED_ENV = ("KAFKA_TOOLS_OUTPUT", "KAFKA_TOOLS_CLUSTER")
_SIGNALS = tuple(s for s in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGHUP) if s)

_lock = threading.Lock()


def _pipe(data: bytes = b"") -> tuple[io.BytesIO, io.TextIOWrapper]:
    """A text stream over bytes, set up the way Python sets up a piped standard stream."""
    raw = io.BytesIO(data)
    encoding = os.environ.get("PYTHONIOENCODING") or locale.getpreferredencoding(False)
    return raw, io.TextIOWrapper(raw, encoding=encoding, errors="strict", write_through=False)


def decode(data: bytes) -> str:
    """Bytes to text as subprocess.run(text=True) decodes a child's output (universal newlines)."""
    return io.TextIOWrapper(io.BytesIO(data), encoding=locale.getpreferredencoding(False)).read()


@contextlib.contextmanager
def _file_descriptors(captured: list[bytes]) -> Iterator[None]:
    """Whatever reaches file descriptors 1 and 2 directly (a C library's own prints, for example
    librdkafka's when no logger is set) is caught too: a process's pipes would hold it."""
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            yield
        finally:
            for fd, old in ((1, saved[0]), (2, saved[1])):
                os.dup2(old, fd)
                os.close(old)
            for file in (out, err):
                file.seek(0)
                captured.append(file.read())


@contextlib.contextmanager
def _environment(overrides: Mapping[str, str] | None) -> Iterator[None]:
    saved = dict(os.environ)
    try:
        for name in DROPPED_ENV:
            os.environ.pop(name, None)
        os.environ.update(overrides or {})
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _logging_state() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    levels = {
        name: logger.level
        for name, logger in logging.Logger.manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }
    try:
        yield
    finally:
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
        for name, logger in logging.Logger.manager.loggerDict.items():
            if isinstance(logger, logging.Logger):
                logger.setLevel(levels.get(name, logging.NOTSET))


@contextlib.contextmanager
def _signal_handlers() -> Iterator[None]:
    saved = {s: signal.getsignal(s) for s in _SIGNALS}
    try:
        yield
    finally:
        for s, handler in saved.items():
            if handler is not None:
                signal.signal(s, handler)


def _forget_process_state() -> None:
    """What a new process would start without: collected secrets and our modules' caches."""
    from kafka_groups import client_config

    secrets = getattr(client_config, "KNOWN_SECRETS", None)
    if isinstance(secrets, set):
        secrets.clear()
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(OUR_PACKAGES):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, functools._lru_cache_wrapper):
                value.cache_clear()


def run(tool: str, *args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``tool`` with ``args`` in this process; the result is what ``subprocess.run`` would give."""
    entry = importlib.import_module(OUR_TOOLS[tool]).main
    out_raw, out = _pipe()
    err_raw, err = _pipe()
    _, stdin = _pipe()
    raw_fds: list[bytes] = []
    with _lock, _file_descriptors(raw_fds), _environment(env), _logging_state(), _signal_handlers():
        _forget_process_state()
        saved = sys.stdin, sys.stdout, sys.stderr, sys.argv
        sys.stdin, sys.stdout, sys.stderr = stdin, out, err
        sys.argv = [tool, *args]
        code: int
        try:
            entry(list(args))
            code = 0
        except SystemExit as exc:
            if exc.code is None:
                code = 0
            elif isinstance(exc.code, int):
                code = exc.code
            else:
                print(exc.code, file=err)
                code = 1
        except Exception:  # what the interpreter does with an uncaught exception
            traceback.print_exc(file=err)
            code = 1
        finally:
            for stream in (out, err):
                with contextlib.suppress(ValueError):
                    stream.flush()
            sys.stdin, sys.stdout, sys.stderr, sys.argv = saved
            _forget_process_state()
    stdout = out_raw.getvalue() + raw_fds[0]
    stderr = err_raw.getvalue() + raw_fds[1]
    return subprocess.CompletedProcess([tool, *args], code % 256, decode(stdout), decode(stderr))
