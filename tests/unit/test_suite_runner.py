"""scripts/test's runner (tests/suite.py): three workers unless asked for one process, and the tests
that failed run once more, alone, against a real pytest on a small suite of its own (in one process
unless a test asks for workers)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests import suite
from tests.conftest import ROOT

# A failure the first time and a pass the second (a marker file tells them apart), a test that
# fails or passes as the suite is written, and one that counts its runs.
SMALL_SUITE = """
import os
from pathlib import Path

HERE = Path(__file__).parent

def test_counts():
    with (HERE / "runs").open("a") as runs:
        runs.write("run\\n")

def test_flaky():
    seen = HERE / "seen"
    first = not seen.exists()
    seen.touch()
    assert not first

def test_broken():
    {broken}
"""


def _suite(root: Path, broken: str = "pass") -> Path:
    (root / "test_small.py").write_text(SMALL_SUITE.format(broken=broken))
    (root / "pytest.ini").write_text("[pytest]\n")
    return root


def _module(root: Path, name: str, source: str) -> Path:
    """A suite of one module of its own."""
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / name).write_text(source)
    return root


def _failed_without_second_chance(code: int, out: str, said: str) -> None:
    assert code == 1
    assert said in out
    assert "running them once more" not in out and "flaky:" not in out


# The small suites use no property tests: their pytest (and each of its workers) does not load
# Hypothesis' plugin, which is about half of a pytest start-up here; the runner is the same.
LIGHT = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")


def _env(**extra: str) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), suite.WORKERS_ENV: "1", **extra}


def _run(root: Path, capsys: pytest.CaptureFixture[str], *argv: str, **env: str) -> tuple[int, str]:
    code = suite.run(["-q", *LIGHT, *argv], _env(**env), root, sys.executable)
    return code, capsys.readouterr().out


def test_a_test_that_passes_alone_is_named_flaky_and_the_run_passes(tmp_path, capsys):
    code, out = _run(_suite(tmp_path), capsys)
    assert code == 0
    assert "1 test(s) failed; running them once more, alone" in out
    assert "flaky: these 1 test(s) failed in the run and passed alone:\n  test_small.py::test_flaky" in out
    assert (tmp_path / "runs").read_text() == "run\n"  # the second run ran the failed test only


def test_the_runner_as_scripts_test_starts_it(tmp_path):
    """``python -m tests.suite``, as scripts/test runs it: its pytest loads the plugin by name."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.suite", "-q", *LIGHT],
        cwd=_suite(tmp_path),
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    flaky = "flaky: these 1 test(s) failed in the run and passed alone:\n  test_small.py::test_flaky"
    assert flaky in done.stdout


def test_a_test_that_fails_again_fails_the_run(tmp_path, capsys):
    code, out = _run(_suite(tmp_path, broken="assert False"), capsys)
    assert code == 1
    assert "2 test(s) failed; running them once more" in out
    assert "1 test(s) failed again, alone:\n  test_small.py::test_broken" in out
    assert "flaky:" not in out


@pytest.mark.parametrize(
    ("argv", "env", "why"),
    [
        ((), {"KAFKA_TEST_RETRY_LIMIT": "0"}, None),
        ((), {"KAFKA_TEST_RETRY_LIMIT": "1"}, "2 tests failed, more than KAFKA_TEST_RETRY_LIMIT=1"),
        ((), {"KAFKA_TEST_RETRY_WITHIN_S": "0"}, "more than KAFKA_TEST_RETRY_WITHIN_S=0"),
        (("-x",), {}, "the run stopped early"),
        (("--maxfail", "1"), {}, "the run stopped early"),
        ((), {"PYTEST_ADDOPTS": "--exitfirst"}, "the run stopped early"),
    ],
)
def test_no_second_run_where_it_could_hide_something(tmp_path, capsys, argv, env, why):
    code, out = _run(_suite(tmp_path, broken="assert False"), capsys, *argv, **env)
    if why is None:
        _failed_without_second_chance(code, out, "")
        assert "scripts/test:" not in out
    else:
        _failed_without_second_chance(code, out, "scripts/test: not run again: ")
        assert why in out


def test_a_module_that_does_not_collect_is_not_run_again(tmp_path, capsys):
    _suite(tmp_path)
    (tmp_path / "test_broken_module.py").write_text("import nowhere_to_be_found\n")
    code, out = _run(tmp_path, capsys, "--continue-on-collection-errors")
    _failed_without_second_chance(code, out, "not run again: test_broken_module.py failed to collect")


def test_a_failed_teardown_is_not_run_again(tmp_path, capsys):
    """pytest blames a module fixture's failed teardown on the module's last test, which passes
    alone whether or not the fixture is fixed."""
    source = (
        "import pytest\n\n"
        "@pytest.fixture(scope='module')\ndef shared():\n    yield\n    raise RuntimeError('left behind')\n\n"
        "def test_uses(shared):\n    pass\n\n"
        "def test_last():\n    pass\n"
    )
    code, out = _run(_module(tmp_path, "test_teardown.py", source), capsys)
    said = "not run again: a teardown failed after test_teardown.py::test_last"
    _failed_without_second_chance(code, out, said)


def test_a_test_that_skips_when_alone_is_no_pass(tmp_path, capsys):
    source = (
        "import pytest\nfrom pathlib import Path\n\n"
        "def test_fails_then_skips():\n"
        "    seen = Path(__file__).with_name('seen')\n"
        "    if seen.exists():\n        pytest.skip('alone')\n"
        "    seen.touch()\n    assert False\n"
    )
    code, out = _run(_module(tmp_path, "test_skips.py", source), capsys)
    assert code == 1
    assert "exit 0; not passed alone:\n  test_skips.py::test_fails_then_skips" in out
    assert "flaky:" not in out


def test_a_crashed_worker_is_not_run_again(tmp_path, capsys):
    _suite(tmp_path)
    (tmp_path / "test_crash.py").write_text(
        "import os, signal\n\ndef test_dies():\n    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    code, out = _run(tmp_path, capsys, KAFKA_TEST_WORKERS="2")
    _failed_without_second_chance(code, out, "a worker crashed while running test_crash.py::test_dies")


def test_the_second_run_refuses_a_failed_test_it_cannot_find(tmp_path):
    _suite(tmp_path)
    keep = tmp_path / "keep"
    keep.write_text("test_small.py::test_gone\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.suite", *LIGHT],
        cwd=tmp_path,
        env=_env(**{suite.KEEP_ENV: str(keep)}),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 4
    assert "the failed tests are not there to run again: test_small.py::test_gone" in done.stderr


SLOW_SUITE = """
import os, time
from pathlib import Path

import pytest

@pytest.fixture(scope="session")
def broker():
    yield
    Path("torn-down").touch()

def test_waits(broker):
    Path("pid").write_text(str(os.getpid()))
    time.sleep(120)
"""


def _ctrl_c_as_in_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("how", ["SIGTERM to the runner", "Ctrl-C to the process group"])
def test_a_stopped_run_tears_down_and_takes_its_pytest_with_it(tmp_path, how):
    """A session fixture's teardown stops the suite's brokers: it runs, and pytest ends."""
    _module(tmp_path, "test_slow.py", SLOW_SUITE)
    runner = subprocess.Popen(
        [sys.executable, "-m", "tests.suite", *LIGHT],
        cwd=tmp_path,
        env=_env(),
        start_new_session=True,
        # As a terminal's foreground job has it: a suite started in the background of a script
        # (`scripts/test &`) inherits SIGINT ignored, and so would the runner and its pytest.
        preexec_fn=_ctrl_c_as_in_a_terminal,
    )
    child = None
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "pid").exists() or not (tmp_path / "pid").read_text():
            assert time.monotonic() < deadline and runner.poll() is None
            time.sleep(0.05)
        child = int((tmp_path / "pid").read_text())
        if how.startswith("SIGTERM"):
            runner.send_signal(signal.SIGTERM)
        else:
            os.killpg(runner.pid, signal.SIGINT)
        assert runner.wait(timeout=60) == 2  # pytest's "interrupted"
        assert (tmp_path / "torn-down").exists()
        with pytest.raises(ProcessLookupError):
            for _ in range(100):
                os.kill(child, 0)
                time.sleep(0.1)
    finally:
        if runner.poll() is None:
            os.killpg(runner.pid, signal.SIGKILL)
        if child is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)


@given(st.integers(min_value=2, max_value=99999), st.lists(st.sampled_from(["-x", "-k", "t", "--fast"])))
def test_workers_unless_one_or_fast(workers, argv):
    plugin = ["-p", "tests.suite"]
    args = suite.first_run_args(argv, {suite.WORKERS_ENV: str(workers)})
    assert args == [*plugin, *argv] if "--fast" in argv else args == [*plugin, "-n", str(workers), *argv]
    default = suite.first_run_args(argv, {})
    workers_of_ours = [] if "--fast" in argv else ["-n", str(suite.WORKERS)]
    assert default == [*plugin, *workers_of_ours, *argv]
    assert suite.first_run_args(argv, {suite.WORKERS_ENV: "1"}) == [*plugin, *argv]


@pytest.mark.parametrize(
    ("argv", "env"),
    [
        (["-p", "no:xdist"], {}),
        (["-x"], {"PYTEST_ADDOPTS": "-p no:xdist --tb=short"}),
        (["--pdb"], {}),
        (["-k", "t", "--trace"], {}),
        (["-x"], {"PYTEST_ADDOPTS": "--fast"}),
        (["-n", "3"], {}),
        (["-n3"], {}),
        (["--numprocesses=auto"], {}),
        (["-x"], {"PYTEST_ADDOPTS": "-n 4"}),
    ],
)
def test_one_process_or_the_workers_asked_for_are_left_as_they_are(argv, env):
    """xdist off, the debugger, --fast, or workers chosen in the arguments: no -n of ours."""
    assert suite.first_run_args(argv, env) == ["-p", "tests.suite", *argv]


def test_a_flaky_test_under_the_default_workers_is_run_again_alone(tmp_path, capsys):
    code, out = _run(_suite(tmp_path), capsys, KAFKA_TEST_WORKERS="")
    assert code == 0
    assert "flaky: these 1 test(s) failed in the run and passed alone:\n  test_small.py::test_flaky" in out
    assert (tmp_path / "runs").read_text() == "run\n"


@pytest.mark.parametrize("raw", ["0", "two", "-1", "1.5", "999999", "²"])
def test_a_worker_count_that_is_not_usable_is_refused(raw):
    with pytest.raises(suite.SuiteError, match=suite.WORKERS_ENV):
        suite.first_run_args([], {suite.WORKERS_ENV: raw})


@pytest.mark.parametrize("raw", ["", " "])
def test_a_blank_worker_count_is_the_default(raw):
    default = ["-p", "tests.suite", "-n", str(suite.WORKERS), "-x"]
    assert suite.first_run_args(["-x"], {suite.WORKERS_ENV: raw}) == default


def test_the_second_run_is_one_process_unless_xdist_is_off():
    assert suite.retry_args(["-x"], {}) == ["-p", "tests.suite", "-x", "-n", "0"]
    assert "-n" not in suite.retry_args(["-p", "no:xdist"], {})
    assert "-n" not in suite.retry_args([], {"PYTEST_ADDOPTS": "-p no:xdist"})
