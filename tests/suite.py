"""The suite's runner (`scripts/test`): pytest in one process, or in pytest-xdist workers when
KAFKA_TEST_WORKERS asks for more than one; then, if some tests failed, those tests once more,
alone, after the rest.

Why the second run. The real-broker tests wait for brokers with time limits. A machine whose
CPU is taken away for minutes (a loaded CI host: a local broker that did not answer a
FindCoordinator for 30 s) fails a run of such tests at once, and that says nothing of the tools.
A test that fails for a reason of its own fails again when it runs alone; one that passes then is
named, as flaky, in the run's last lines. Apache Kafka's own build retries its failed tests the
same way. More than KAFKA_TEST_RETRY_LIMIT failures (default 30) are not run again: that many is
a broken change, not a slow machine. KAFKA_TEST_RETRY_LIMIT=0 turns the second run off.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

WORKERS_ENV = "KAFKA_TEST_WORKERS"
RETRY_LIMIT_ENV = "KAFKA_TEST_RETRY_LIMIT"
RETRY_LIMIT = 30
# pytest's own record of the tests that failed (its cache plugin, the one --last-failed reads).
LAST_FAILED = Path(".pytest_cache") / "v" / "cache" / "lastfailed"


class SuiteError(Exception):
    """A setting this runner cannot use: one line, exit 2, nothing run."""


def _whole(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 4):
        raise SuiteError(f"{name} must be a whole number from 0 to 9999, not {raw!r}")
    return int(raw)


def first_run_args(argv: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """pytest's arguments for the whole run: ``-n N`` only for more than one worker (``--fast``
    always runs in one process: its few real-broker tests give a second worker nothing to do)."""
    workers = _whole(env, WORKERS_ENV, 1)
    if workers == 0:
        raise SuiteError(f"{WORKERS_ENV} must be 1 or more, not 0")
    if workers == 1 or "--fast" in argv:
        return list(argv)
    return ["-n", str(workers), *argv]


def retry_args(argv: Sequence[str]) -> list[str]:
    """The same run, narrowed to the tests that failed, in one process."""
    serial = [] if any("no:xdist" in a for a in argv) else ["-n", "0"]
    return [*argv, *serial, "--last-failed", "--last-failed-no-failures", "none"]


def failed_tests(root: Path) -> list[str]:
    """The tests pytest recorded as failed, sorted (none when it recorded nothing)."""
    try:
        recorded = json.loads((root / LAST_FAILED).read_text())
    except (OSError, ValueError):
        return []
    return sorted(k for k, v in recorded.items() if v) if isinstance(recorded, dict) else []


def run(argv: Sequence[str], env: Mapping[str, str], root: Path, python: str = sys.executable) -> int:
    limit = _whole(env, RETRY_LIMIT_ENV, RETRY_LIMIT)
    first = first_run_args(argv, env)
    # Only this run's failures: pytest keeps the record of tests this run does not reach.
    (root / LAST_FAILED).unlink(missing_ok=True)
    code = subprocess.call([python, "-m", "pytest", *first], cwd=root, env=dict(env))
    if code != 1 or limit == 0:
        return code
    failed = failed_tests(root)
    if not failed:
        return code
    if len(failed) > limit:
        _say(f"{len(failed)} tests failed, more than {RETRY_LIMIT_ENV}={limit}: not run again.")
        return code
    _say(f"{len(failed)} test(s) failed; running them once more, alone, after the rest:", failed)
    again = subprocess.call([python, "-m", "pytest", *retry_args(argv)], cwd=root, env=dict(env))
    if again == 0:
        _say(f"flaky: these {len(failed)} test(s) failed in the run and passed alone:", failed)
        return 0
    still = failed_tests(root)
    _say(f"{len(still)} test(s) failed again, alone:", still)
    return again if again != 5 else code


def _say(line: str, names: Sequence[str] = ()) -> None:
    print(f"\nscripts/test: {line}", *(f"  {n}" for n in names), sep="\n", flush=True)


def main() -> int:
    try:
        return run(sys.argv[1:], os.environ, Path.cwd())
    except SuiteError as error:
        print(f"scripts/test: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # pytest, in the same process group, stopped on it too
        return 130


if __name__ == "__main__":
    sys.exit(main())
