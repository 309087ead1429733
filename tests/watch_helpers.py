"""Running a watch (``--watch``) as a process of its own, piped: its JSON Lines read as they come,
and a signal to end it."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from tests.conftest import OUR_TOOLS, ROOT
from tests.inprocess import DROPPED_ENV

Doc = dict[str, Any]
WAIT_S = 60.0


class Watch:
    """``kafka-consumer-groups ARGS`` (or another of our tools) with stdout on a pipe; every
    line it writes is kept."""

    def __init__(
        self, args: Sequence[str], env: dict[str, str] | None = None, tool: str = "kafka-consumer-groups"
    ) -> None:
        # PYTHONFAULTHANDLER: a watch that does not end is made to print where each thread is.
        full_env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONFAULTHANDLER": "1", **(env or {})}
        for name in DROPPED_ENV:
            full_env.pop(name, None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", OUR_TOOLS[tool], *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=full_env,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self.raw: list[str] = []  # every line, as written
        self.docs: list[Doc] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def next_line(self, timeout: float = WAIT_S) -> str:
        line = self._lines.get(timeout=timeout)
        assert line is not None, f"the watch ended: {self.proc.wait()} {self._stderr()}"
        self.raw.append(line)
        return line

    def next_doc(self, timeout: float = WAIT_S) -> Doc:
        line = self._lines.get(timeout=timeout)
        assert line is not None, f"the watch ended: {self.proc.wait()} {self._stderr()}"
        self.raw.append(line)
        doc: Doc = json.loads(line)
        self.docs.append(doc)
        return doc

    def until(self, done: Callable[[Doc], bool], what: str, timeout: float = WAIT_S) -> Doc:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            doc = self.next_doc(timeout=max(0.1, deadline - time.monotonic()))
            if done(doc):
                return doc
        raise AssertionError(f"no document showed {what}")

    def stop(self, signum: int = signal.SIGINT) -> tuple[int, str]:
        """Signal it; its exit status and stderr. The lines written up to the end are kept."""
        self.proc.send_signal(signum)
        try:
            code = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGABRT)  # the fault handler prints every thread's stack
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)
            stacks = self._stderr()[-6000:]
            raise AssertionError(f"the watch did not end within 60 s of {signum!r}:\n{stacks}") from None
        self._reader.join(30)
        while True:
            line = self._lines.get_nowait()
            if line is None:
                break
            self.raw.append(line)
        return code, self._stderr()

    def _stderr(self) -> str:
        assert self.proc.stderr is not None
        return self.proc.stderr.read() if self.proc.poll() is not None else ""

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)


def partitions_of(doc: Doc, group: str) -> dict[tuple[str, int], Doc]:
    for g in doc["groups"] or ():
        if g["group"] == group:
            return {(p["topic"], p["partition"]): p for p in g["partitions"]}
    return {}
