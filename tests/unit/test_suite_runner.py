"""scripts/test's runner (tests/suite.py): one process unless asked for workers, and the tests
that failed run once more, alone, against a real pytest on a small suite of its own."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests import suite

# A failure the first time and a pass the second (a marker file tells them apart), a test that
# always fails, and one that always passes.
SMALL_SUITE = """
from pathlib import Path

def test_passes():
    pass

def test_flaky():
    seen = Path(__file__).with_name("seen")
    first = not seen.exists()
    seen.touch()
    assert not first

def test_broken():
    assert {broken}
"""


def _suite(root: Path, broken: bool) -> Path:
    (root / "test_small.py").write_text(SMALL_SUITE.format(broken="False" if broken else "True"))
    (root / "pytest.ini").write_text("[pytest]\n")
    return root


def _run(root: Path, capsys: pytest.CaptureFixture[str], **env: str) -> tuple[int, str]:
    code = suite.run(["-q"], {"PATH": "/usr/bin:/bin", **env}, root, sys.executable)
    return code, capsys.readouterr().out


def test_a_test_that_passes_alone_is_named_flaky_and_the_run_passes(tmp_path, capsys):
    code, out = _run(_suite(tmp_path, broken=False), capsys)
    assert code == 0
    assert "flaky: these 1 test(s) failed in the run and passed alone:\n  test_small.py::test_flaky" in out
    assert (tmp_path / "seen").exists()


def test_a_test_that_fails_again_fails_the_run(tmp_path, capsys):
    code, out = _run(_suite(tmp_path, broken=True), capsys)
    assert code == 1
    assert "1 test(s) failed again, alone:\n  test_small.py::test_broken" in out
    assert "2 test(s) failed; running them once more" in out and "flaky:" not in out


@pytest.mark.parametrize("limit", ["0", "1"])
def test_no_second_run_when_it_is_off_or_too_many_failed(tmp_path, capsys, limit):
    code, out = _run(_suite(tmp_path, broken=True), capsys, KAFKA_TEST_RETRY_LIMIT=limit)
    assert code == 1
    assert "alone" not in out
    assert ("more than KAFKA_TEST_RETRY_LIMIT=1: not run again" in out) == (limit == "1")


def test_a_stale_record_of_failures_is_not_run_again(tmp_path, capsys):
    root = _suite(tmp_path, broken=False)
    (root / "seen").touch()  # test_flaky passes first time
    record = root / suite.LAST_FAILED
    record.parent.mkdir(parents=True)
    record.write_text('{"test_small.py::test_passes": true}')
    code, out = _run(root, capsys)
    assert code == 0 and "scripts/test:" not in out


@given(st.integers(min_value=2, max_value=9999), st.lists(st.sampled_from(["-x", "-k", "t", "--fast"])))
def test_workers_only_when_more_than_one(workers, argv):
    env = {suite.WORKERS_ENV: str(workers)}
    args = suite.first_run_args(argv, env)
    if "--fast" in argv:
        assert args == argv
    else:
        assert args == ["-n", str(workers), *argv]
    assert suite.first_run_args(argv, {}) == argv


@pytest.mark.parametrize("raw", ["0", "two", "-1", "1.5", "99999", "²"])
def test_a_worker_count_that_is_not_usable_is_refused(raw):
    with pytest.raises(suite.SuiteError, match=suite.WORKERS_ENV):
        suite.first_run_args([], {suite.WORKERS_ENV: raw})


@pytest.mark.parametrize("raw", ["", " "])
def test_a_blank_worker_count_is_the_default(raw):
    assert suite.first_run_args(["-x"], {suite.WORKERS_ENV: raw}) == ["-x"]


def test_the_second_run_is_one_process_unless_xdist_is_off():
    assert suite.retry_args(["-x"])[:3] == ["-x", "-n", "0"]
    assert "-n" not in suite.retry_args(["-p", "no:xdist"])
