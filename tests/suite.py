"""The suite's runner (`scripts/test`): pytest in three pytest-xdist workers that take whole modules,
the longest first (tests/conftest.py says why three on two cores), or in one
process with KAFKA_TEST_WORKERS=1, ``--fast``, ``--pdb``, ``--trace`` or ``-p no:xdist`` (an ``-n`` in
the arguments is left as given); then, if some tests failed, those tests once more, alone, after
the rest.

Why the second run. The real-broker tests wait for brokers with time limits. A machine whose
CPU is taken away for minutes (a loaded CI host: a local broker that did not answer a
FindCoordinator for 30 s) fails a run of such tests at once, and that says nothing of the tools.
A test that fails for a reason of its own fails again when it runs alone; one that passes then is
named, as flaky, in the run's last lines (a test that skips when alone has not passed). Apache
Kafka's own build retries its failed tests the same way.

There is no second run when it could hide something: a run stopped early (-x, --maxfail, Ctrl-C),
a worker that crashed (a crash is no time limit), a module that failed to collect, a failed
fixture teardown (pytest blames it on whichever test ran last), more than
KAFKA_TEST_RETRY_LIMIT failures (default 30: that many is a broken change, not a slow machine),
or a first run that took longer than KAFKA_TEST_RETRY_WITHIN_S (default 2700 s, so that CI's
time limit is not spent on it). KAFKA_TEST_RETRY_LIMIT=0 turns the second run off.

This module is also the pytest plugin (``-p tests.suite``) that records the first run's failures
and narrows the second run to exactly them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_groups.timeouts import whole_ms

WORKERS_ENV = "KAFKA_TEST_WORKERS"
WORKERS = 3  # on two cores: tests/conftest.py says why
RETRY_LIMIT_ENV = "KAFKA_TEST_RETRY_LIMIT"
RETRY_WITHIN_ENV = "KAFKA_TEST_RETRY_WITHIN_S"
RETRY_LIMIT = 30
RETRY_WITHIN_S = 2700
# The plugin's files: where the first run records, and which tests the second run keeps.
RECORD_ENV = "KAFKA_TEST_RECORD_FILE"
KEEP_ENV = "KAFKA_TEST_KEEP_FILE"
PLUGIN = "tests.suite"  # this module by its import name (run as a script, its __name__ is __main__)
# First words of the record's lines.
FAILED, PASSED, NO_RETRY = "failed", "passed", "no-retry"


class SuiteError(Exception):
    """A setting this runner cannot use: one line, exit 2, nothing run."""


def _whole(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    value = whole_ms(raw, 99999, least=0)
    if value is None:
        raise SuiteError(f"{name} must be a whole number from 0 to 99999, not {raw!r}")
    return value


def _words(argv: Sequence[str], env: Mapping[str, str]) -> list[str]:
    return [*argv, *env.get("PYTEST_ADDOPTS", "").split()]


def _xdist_off(words: Sequence[str]) -> bool:
    return any("no:xdist" in w for w in words)


# One process for these: --fast (its few real-broker tests give a second worker nothing to do) and
# the debugger (pytest-xdist refuses --pdb and --trace); workers the user chose are left as given.
ONE_PROCESS = ("--fast", "--pdb", "--trace")
OWN_WORKERS = ("-n", "--numprocesses")


def first_run_args(argv: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """pytest's arguments for the whole run: ``-n N`` for more than one worker, unless xdist is off,
    one of ONE_PROCESS is given, or the arguments choose their own workers."""
    workers = _whole(env, WORKERS_ENV, WORKERS)
    if workers == 0:
        raise SuiteError(f"{WORKERS_ENV} must be 1 or more, not 0")
    plugin = ["-p", PLUGIN]
    words = _words(argv, env)
    own = any(w.startswith(OWN_WORKERS) for w in words)
    if workers == 1 or own or _xdist_off(words) or any(w in ONE_PROCESS for w in words):
        return [*plugin, *argv]
    return [*plugin, "-n", str(workers), *argv]


def retry_args(argv: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """The same run, in one process (the plugin narrows it to the failed tests)."""
    serial = [] if _xdist_off(_words(argv, env)) else ["-n", "0"]
    return ["-p", PLUGIN, *argv, *serial]


@dataclass
class Record:
    """What one pytest run recorded (the plugin below writes it, a line each)."""

    failed: list[str] = field(default_factory=list)
    passed: set[str] = field(default_factory=set)
    reasons: list[str] = field(default_factory=list)  # not to run the failed tests again


def read_record(path: Path) -> Record:
    record = Record()
    try:
        lines = path.read_text().splitlines()
    except OSError:
        record.reasons.append("pytest recorded nothing (it did not get to the end of the run)")
        return record
    for line in lines:
        kind, _, rest = line.partition(" ")
        if kind == FAILED:
            record.failed.append(rest)
        elif kind == PASSED:
            record.passed.add(rest)
        else:
            record.reasons.append(rest)
    record.failed = sorted(set(record.failed))
    return record


def run(argv: Sequence[str], env: Mapping[str, str], root: Path, python: str = sys.executable) -> int:
    limit = _whole(env, RETRY_LIMIT_ENV, RETRY_LIMIT)
    within = _whole(env, RETRY_WITHIN_ENV, RETRY_WITHIN_S)
    first = first_run_args(argv, env)
    with tempfile.TemporaryDirectory(prefix="kafka-test-") as scratch:
        began = time.monotonic()
        code = _pytest(python, first, {**env, RECORD_ENV: f"{scratch}/first"}, root)
        took = time.monotonic() - began
        if code != 1 or limit == 0:
            return code
        record = read_record(Path(scratch) / "first")
        failed, reasons = record.failed, record.reasons
        if len(failed) > limit:
            reasons.append(f"{len(failed)} tests failed, more than {RETRY_LIMIT_ENV}={limit}")
        if took > within:
            reasons.append(f"the run took {took:.0f} s, more than {RETRY_WITHIN_ENV}={within}")
        if not failed or reasons:
            _say("not run again: " + "; ".join(reasons or ["no failed test was recorded"]) + ".")
            return code
        _say(f"{len(failed)} test(s) failed; running them once more, alone, after the rest:", failed)
        keep = Path(scratch) / "keep"
        keep.write_text("".join(f"{n}\n" for n in failed))
        env_again = {**env, KEEP_ENV: str(keep), RECORD_ENV: f"{scratch}/again"}
        again = _pytest(python, retry_args(argv, env), env_again, root)
        second = read_record(Path(scratch) / "again")
        # Passed, each of them: a test that skips or is deselected when alone proves nothing.
        unproven = [n for n in failed if n not in second.passed]
        if again == 0 and not unproven and not second.failed:
            _say(f"flaky: these {len(failed)} test(s) failed in the run and passed alone:", failed)
            return 0
        if second.failed:
            _say(f"{len(second.failed)} test(s) failed again, alone:", second.failed)
        else:
            _say(f"the second run ended with exit {again}; not passed alone:", unproven)
        return again or code


def _pytest(python: str, args: Sequence[str], env: Mapping[str, str], root: Path) -> int:
    """pytest in a child process, given the time to tear down its brokers when this one is
    interrupted or terminated: Ctrl-C reaches it too (the same process group), SIGTERM is passed
    on, and the plugin makes either end its session as an interruption does."""
    child: subprocess.Popen[bytes] | None = None

    def forward(signum: int, _frame: object) -> None:
        if child is not None:
            child.send_signal(signum)

    before = signal.signal(signal.SIGTERM, forward)
    try:
        child = subprocess.Popen([python, "-m", "pytest", *args], cwd=root, env=dict(env))
        while True:
            try:
                code = child.wait()
                break
            except KeyboardInterrupt:
                continue  # pytest has it as well, and ends its session
    finally:
        signal.signal(signal.SIGTERM, before)
    return 128 - code if code < 0 else code


def _say(line: str, names: Sequence[str] = ()) -> None:
    print(f"\nscripts/test: {line}", *(f"  {n}" for n in names), sep="\n", flush=True)


# -- the pytest plugin -------------------------------------------------------------------------

_RECORD: list[str] = []  # this pytest process's record lines


def pytest_configure(config: Any) -> None:
    if os.environ.get(RECORD_ENV):  # run by this runner: SIGTERM ends the session as Ctrl-C does
        signal.signal(signal.SIGTERM, _interrupt)


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    path = os.environ.get(KEEP_ENV)
    if not path:
        return
    wanted = set(Path(path).read_text().splitlines()) - {""}
    missing = wanted - {item.nodeid for item in items}
    if missing:
        import pytest

        raise pytest.UsageError(f"the failed tests are not there to run again: {', '.join(sorted(missing))}")
    config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in wanted])
    items[:] = [item for item in items if item.nodeid in wanted]


def pytest_collectreport(report: Any) -> None:
    if report.failed:
        _RECORD.append(f"{NO_RETRY} {report.nodeid or 'the run'} failed to collect")


# Seconds of setup, call and teardown per test module and pytest-xdist worker (a module split in
# units, SPLIT in tests/conftest.py, can run on two): the run's last lines name the longest modules
# and each worker's total, the figures LONGEST in tests/conftest.py is kept in order by.
_MODULE_SECONDS: dict[tuple[str, str], float] = {}
LONGEST_SHOWN = 15


def pytest_runtest_logreport(report: Any) -> None:
    module = report.nodeid.split("::", 1)[0]
    node = getattr(report, "node", None)  # the worker that ran it, on pytest-xdist's controller
    gateway = getattr(node, "gateway", None)
    key = (module, "-" if gateway is None else str(gateway.id))
    _MODULE_SECONDS[key] = _MODULE_SECONDS.get(key, 0.0) + float(getattr(report, "duration", 0.0))
    if report.passed and report.when == "call":
        _RECORD.append(f"{PASSED} {report.nodeid}")
    if not report.failed:
        return
    if "crashed while running" in str(report.longrepr):  # pytest-xdist's report of a dead worker
        _RECORD.append(f"{NO_RETRY} a worker crashed while running {report.nodeid}")
    if report.when == "teardown":
        # pytest blames a module's or session's fixture teardown on the last test that ran,
        # which may not use it: that test alone would prove nothing.
        _RECORD.append(f"{NO_RETRY} a teardown failed after {report.nodeid}")
    _RECORD.append(f"{FAILED} {report.nodeid}")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if hasattr(terminalreporter.config, "workerinput") or not _MODULE_SECONDS:
        return
    longest = sorted(_MODULE_SECONDS.items(), key=lambda kv: -kv[1])[:LONGEST_SHOWN]
    write = terminalreporter.write_line
    terminalreporter.section("the longest modules (seconds of their tests, worker)")
    for (module, worker), seconds in longest:
        write(f"{seconds:8.1f}  {worker:4}  {module}")
    busy: dict[str, float] = {}
    for (_module, worker), seconds in _MODULE_SECONDS.items():
        if worker != "-":
            busy[worker] = busy.get(worker, 0.0) + seconds
    if busy:
        write("workers: " + ", ".join(f"{w} {busy[w]:.0f} s" for w in sorted(busy)))


def pytest_sessionfinish(session: Any) -> None:
    path = os.environ.get(RECORD_ENV)
    if not path or hasattr(session.config, "workerinput"):  # an xdist worker: its controller writes
        return
    stopped = session.shouldfail or session.shouldstop
    if stopped:
        _RECORD.append(f"{NO_RETRY} the run stopped early ({stopped})")
    Path(path).write_text("".join(f"{line}\n" for line in _RECORD))


def main() -> int:
    try:
        return run(sys.argv[1:], os.environ, Path.cwd())
    except SuiteError as error:
        print(f"scripts/test: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # between the two runs
        return 130


if __name__ == "__main__":
    sys.exit(main())
