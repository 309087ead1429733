"""The suite's own runners give what a fresh process gives: our tools run in-process
(tests/inprocess.py) against the same tools run as `python -m`, and the Apache runner's stack-trace
clean-up (infra.apache._unscaffold) on plain text."""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infra import kafka as local_kafka
from infra.apache import _unscaffold
from tests import inprocess
from tests.conftest import ROOT, _subprocess
from tests.forkserver import ForkServer

OFFLINE = [
    ("kafka-consumer-groups", []),
    ("kafka-consumer-groups", ["--version"]),
    ("kafka-consumer-groups", ["--help"]),
    ("kafka-consumer-groups", ["--list"]),
    ("kafka-consumer-groups", ["--bootstrap-server", "127.0.0.1:1", "--describe"]),
    ("kafka-consumer-groups", ["--bootstrap-server", "127.0.0.1:1", "--list", "--state", "Nope"]),
    ("kafka-consumer-groups", ["--bootstrap-server", "127.0.0.1:1", "--reset-offsets", "--group", ""]),
    ("kafka-streams-groups", ["--bootstrap-server", "127.0.0.1:1"]),
    ("kafka-streams-groups", ["--nope"]),
    ("kafka-topics", ["--bootstrap-server", "127.0.0.1:1", "--create", "--topic", "t", "--partitions", "x"]),
    ("kafka-topics", ["--describe"]),
    ("kafka-topics", ["list", "--help"]),
]


@pytest.mark.parametrize(("tool", "args"), OFFLINE, ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_in_process_runs_give_what_a_process_gives(tool, args):
    alone = _subprocess(tool, *args)
    inside = inprocess.run(tool, *args)
    assert (inside.returncode, inside.stdout, inside.stderr) == (alone.returncode, alone.stdout, alone.stderr)


@pytest.fixture(scope="module")
def forked():
    server = ForkServer(str(ROOT))
    yield server.run
    server.close()


@pytest.mark.parametrize(("tool", "args"), OFFLINE, ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_forked_runs_give_what_a_process_gives(forked, tool, args):
    alone = _subprocess(tool, *args)
    child = forked(tool, *args)
    assert (child.returncode, child.stdout, child.stderr) == (alone.returncode, alone.stdout, alone.stderr)


def test_forked_runs_take_env_and_the_working_directory(forked, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["--bootstrap-server", "127.0.0.1:1", "--reset-offsets", "--group", "g", "--from-file", "plan.csv"]
    env = {"KAFKA_TOOLS_STATE_DIR": str(tmp_path / "state")}
    for present in (False, True):
        if present:
            (tmp_path / "plan.csv").write_text("not,a,plan\n")
        child, alone = (
            forked("kafka-consumer-groups", *args, env=env),
            _subprocess("kafka-consumer-groups", *args, env=env),
        )
        assert (child.returncode, child.stdout, child.stderr) == (
            alone.returncode,
            alone.stdout,
            alone.stderr,
        )


def test_in_process_runs_apply_env_and_put_the_environment_back(tmp_path, monkeypatch):
    monkeypatch.setenv("KAFKA_TOOLS_OUTPUT", "json")  # the suite's own setting never leaks in
    before = dict(os.environ)
    config = tmp_path / "client.properties"
    config.write_text("security.protocol=PLAINTEXT\n")
    env = {"KAFKA_TOOLS_STATE_DIR": str(tmp_path / "state")}
    args = ["--bootstrap-server", "127.0.0.1:1", "--list", "--state", "Nope"]
    inside = inprocess.run("kafka-consumer-groups", *args, env=env)
    alone = _subprocess("kafka-consumer-groups", *args, env=env)
    assert (inside.returncode, inside.stdout, inside.stderr) == (alone.returncode, alone.stdout, alone.stderr)
    assert dict(os.environ) == before


FRESH = (
    "java.lang.RuntimeException: java.nio.file.NoSuchFileException: /x\n"
    "\tat org.example.Service.<init>(Service.java:193)\n"
    "\tat org.example.Tool.main(Tool.java:109)\n"
    "Caused by: java.nio.file.NoSuchFileException: /x\n"
    "\tat java.base/sun.nio.fs.UnixException.translate(UnixException.java:92)\n"
    "\tat org.example.Service.<init>(Service.java:190)\n"
    "\t... 1 more\n"
)
RUNNER_FRAMES = (
    "\tat java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)\n"
    "\tat java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke(NativeMethodAccessorImpl.java:77)\n"
    "\tat java.base/jdk.internal.reflect.DelegatingMethodAccessorImpl.invoke(Delegating.java:43)\n"
    "\tat java.base/java.lang.reflect.Method.invoke(Method.java:569)\n"
    "\tat ApacheToolRunner.run(ApacheToolRunner.java:240)\n"
    "\tat ApacheToolRunner.main(ApacheToolRunner.java:200)\n"
)
MAIN_FRAME = "\tat org.example.Tool.main(Tool.java:109)\n"
IN_RUNNER = FRESH.replace(MAIN_FRAME, MAIN_FRAME + RUNNER_FRAMES).replace("\t... 1 more\n", "\t... 7 more\n")


def test_runner_frames_are_taken_out_of_a_trace():
    assert _unscaffold(IN_RUNNER, 6) == FRESH


def test_a_cause_sharing_only_the_runner_frames_loses_its_more_line():
    head, cause = "E\n\tat a.B.main(B.java:1)\n", "Caused by: C\n\tat x.Y.z(Y.java:2)\n"
    assert _unscaffold(head + RUNNER_FRAMES + cause + "\t... 6 more\n", 6) == head + cause


@given(st.text(alphabet=st.characters(blacklist_characters="\t"), max_size=200))
def test_text_without_frames_is_left_alone(text):
    assert _unscaffold(text, 6) == text


def test_output_written_straight_to_the_descriptors_is_caught():
    caught: list[bytes] = []
    with inprocess._file_descriptors(caught):
        os.write(1, b"to fd 1\n")
        os.write(2, b"to fd 2\n")
    assert caught == [b"to fd 1\n", b"to fd 2\n"]


@pytest.mark.parametrize(("raw", "expected"), [("", 90.0), (" ", 90.0), ("300", 300.0), ("2.5", 2.5)])
def test_the_ready_timeout_comes_from_the_environment(monkeypatch, raw, expected):
    monkeypatch.setenv(local_kafka.READY_TIMEOUT_ENV, raw)
    assert local_kafka.ready_timeout() == expected
    monkeypatch.delenv(local_kafka.READY_TIMEOUT_ENV)
    assert local_kafka.ready_timeout() == local_kafka.READY_TIMEOUT_S == 90.0


@pytest.mark.parametrize("raw", ["abc", "0", "-5", "nan", "inf"])
def test_a_ready_timeout_that_is_not_a_positive_number_of_seconds_is_refused(monkeypatch, raw):
    monkeypatch.setenv(local_kafka.READY_TIMEOUT_ENV, raw)
    with pytest.raises(local_kafka.KafkaInfraError, match=local_kafka.READY_TIMEOUT_ENV):
        local_kafka.ready_timeout()


def test_a_split_module_part_names_tests_of_that_module():
    """A name in tests/conftest.py's SPLIT that the module does not define would leave the module in
    one unit, silently: each must be a test function or class there, and each part a LONGEST unit."""
    import importlib

    from tests import conftest

    for path, (part, names) in conftest.SPLIT.items():
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        assert all(name.startswith("Test") or name.startswith("test_") for name in names)
        assert all(hasattr(module, name) for name in names), (path, names)
        assert f"{path}::{part}" in conftest.LONGEST
        some = sorted(names)[0]
        assert conftest._unit(f"{path}::{some}[x]") == f"{path}::{part}"
        assert conftest._unit(f"{path}::{some}::test_y") == f"{path}::{part}"
        assert conftest._unit(f"{path}::test_not_in_the_part") == path


def test_each_session_cluster_is_started_by_one_unit():
    """A module that takes a session cluster (three_nodes, secure_cluster, compat_broker) outside the
    unit that starts it (TOGETHER in tests/conftest.py) makes each worker's collection refuse the run,
    which xdist reports only as a worker that finished with a test pending. Collected here as a
    worker collects, so the unit tests catch it."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests/kafka"],
        cwd=ROOT,
        env={**os.environ, "PYTEST_XDIST_WORKER": "gw0"},  # the check runs where a worker collects
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
