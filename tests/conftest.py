"""Shared fixtures: the real local broker (started once per session), the pinned Apache
tools beside it, and our own tools run through their real entry points.

Set KAFKA_TEST_BOOTSTRAP to run the Kafka tests against a broker that is already running
(for example one started with ``python -m infra.kafka start``).

Process start-up is most of the suite's time, so by default:
- ``apache`` runs the Apache tools in one long-lived JVM per release (infra/ApacheToolRunner.java);
  KAFKA_TEST_APACHE_FRESH_JVM=1 starts a JVM per call instead, as the release's bin/*.sh scripts do;
- ``ours`` runs each call of our tools as a process forked from a server that imported them once
  (tests/forkserver.py); KAFKA_TEST_OURS_SUBPROCESS=1 starts ``python -m`` per call, and
  KAFKA_TEST_OURS_INPROCESS=1 runs them inside the test process (tests/inprocess.py).
  ``ours_process`` is always a ``python -m`` process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

# The compatibility cases live outside the test modules that run them: their asserts are rewritten
# too, so that a failure shows the two outputs.
pytest.register_assert_rewrite("tests.compat_cases")

# Hypothesis' per-example deadline is a timed assertion: on a shared 2-core machine a busy moment
# fails a correct property. The properties keep their example counts; they lose only the clock.
settings.register_profile("kafka-group-tools", deadline=None)
settings.load_profile("kafka-group-tools")

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from infra import cds  # noqa: E402
from infra import kafka as local_kafka  # noqa: E402
from tests import forkserver, inprocess  # noqa: E402

OUR_TOOLS = inprocess.OUR_TOOLS

# The brokers, the Apache tools, the Streams app and the Spark JVMs (drivers through SPARK_SUBMIT_OPTS;
# the standalone cluster's daemons and executors in test_pipeline_cluster) the suite starts run without
# the optimising JIT compiler (infra/jars.py, JVM_OPTS_ENV): set it to "" to run them as released.
os.environ.setdefault(local_kafka.JVM_OPTS_ENV, "-XX:TieredStopAtLevel=1")
# Spark's driver JVMs also map the class-data sharing archive `python -m infra.kafka cds` made for the
# installed pyspark (scripts/setup makes it; infra/cds.py), when there is a current one; the brokers
# get theirs from infra itself. KAFKA_INFRA_CDS=0 turns both off.
# .ci/run makes the archives while the tests run (KAFKA_SETUP_CDS=0 for scripts/setup): a module that
# starts after the driver's archive is made gets it (_spark_archive_once_made, below).
_SUITE_SPARK_OPTS = "SPARK_SUBMIT_OPTS" not in os.environ  # not the user's own


def _spark_submit_opts() -> str:
    return " ".join([os.environ[local_kafka.JVM_OPTS_ENV], *cds.spark_driver_opts()]).strip()


os.environ.setdefault("SPARK_SUBMIT_OPTS", _spark_submit_opts())
# Every broker start and restart in the suite may take 300 s, not the infra's 90: on a loaded 2-core CI
# machine a three-node start and a killed broker's restart have both taken longer than 90 s.
os.environ.setdefault(local_kafka.READY_TIMEOUT_ENV, "300")
# Our group tools' --timeout, where a test does not give one, is 30 s (KAFKA_TOOLS_TIMEOUT_MS), not
# the Apache tools' 5 s: on that machine a coordinator lookup has taken longer than 5 s. Tests of what
# a timeout does give --timeout themselves; tests/unit/test_time_limits.py covers the default.
os.environ.setdefault("KAFKA_TOOLS_TIMEOUT_MS", "30000")


@dataclass(frozen=True)
class Broker:
    bootstrap: str
    version: str


def session_workdir(name: str) -> Path:
    """A session cluster's work directory: one per pytest-xdist worker, so that the workers of
    ``scripts/test`` never start a broker in each other's directory. Session clusters are killed at
    the end (``stop(grace=0)``): their data is deleted, so a controlled shutdown is only a wait."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return local_kafka.RUN_DIR / (f"{name}-{worker}" if worker else name)


def _start(version: str, env_var: str) -> Iterator[Broker]:
    external = os.environ.get(env_var)
    if external:
        yield Broker(external, version)
        return
    # Its own work directory, so a broker a developer started with `python -m infra.kafka start`
    # keeps running while the suite runs.
    cluster = local_kafka.start(nodes=1, version=version, workdir=session_workdir(f"pytest-{version}"))
    try:
        yield Broker(cluster.bootstrap, version)
    finally:
        cluster.stop(grace=0)


@pytest.fixture(scope="module", autouse=True)
def _spark_archive_once_made() -> None:
    """SPARK_SUBMIT_OPTS as above, read again at each module: with the driver's archive once it exists."""
    if _SUITE_SPARK_OPTS:
        os.environ["SPARK_SUBMIT_OPTS"] = _spark_submit_opts()


@pytest.fixture(scope="session")
def broker() -> Iterator[Broker]:
    """The pinned Kafka 4.x broker."""
    yield from _start(local_kafka.KAFKA_VERSION, "KAFKA_TEST_BOOTSTRAP")


@pytest.fixture(scope="session")
def compat_broker() -> Iterator[Broker]:
    """A Kafka 3.9 broker: classic groups only, no KIP-848 APIs."""
    yield from _start(local_kafka.COMPAT_VERSION, "KAFKA_TEST_COMPAT_BOOTSTRAP")


@pytest.fixture(scope="module")
def line(request: pytest.FixtureRequest) -> Iterator[Broker]:
    """The broker of a compatibility module (tests/kafka/test_compat_<line>.py), of the release its
    ``BROKER_VERSION`` names: the pinned one and 3.9 are the session's brokers; an older line is
    started for the module alone (KAFKA_TEST_BOOTSTRAP_<major><minor>, e.g. _28, reuses a running one)."""
    version: str = request.module.BROKER_VERSION
    if version == local_kafka.KAFKA_VERSION:
        yield request.getfixturevalue("broker")
    elif version == local_kafka.COMPAT_VERSION:
        yield request.getfixturevalue("compat_broker")
    else:
        digits = "".join(version.split(".")[:2])
        yield from _start(version, f"KAFKA_TEST_BOOTSTRAP_{digits}")


@pytest.fixture(scope="session")
def secure_cluster() -> Iterator[local_kafka.Cluster]:
    """A Kafka 4.x broker with SASL_SSL (SCRAM), SASL_PLAINTEXT (PLAIN, OAUTHBEARER), mTLS and the
    standard authorizer (infra/security.py); TLS certificates and passwords are made at start.
    KAFKA_TEST_SECURE_WORKDIR reuses one started with `python -m infra.kafka start --secure`."""
    external = os.environ.get("KAFKA_TEST_SECURE_WORKDIR")
    if external:
        yield local_kafka.Cluster.load(external)
        return
    cluster = local_kafka.start(
        nodes=1, version=local_kafka.KAFKA_VERSION, workdir=session_workdir("pytest-secure"), secure=True
    )
    try:
        yield cluster
    finally:
        cluster.stop(grace=0)


@pytest.fixture(scope="session")
def three_nodes() -> Iterator[local_kafka.Cluster]:
    """One three-node 4.x cluster for every module that needs several brokers. A module that stops
    or kills nodes calls kafka_helpers.restore_nodes before it uses the cluster and when it is done;
    names are unique per test, so modules do not see each other's topics or groups by name."""
    cluster = local_kafka.start(
        nodes=3, version=local_kafka.KAFKA_VERSION, workdir=session_workdir("pytest-3n")
    )
    try:
        yield cluster
    finally:
        cluster.stop(grace=0)


RunResult = subprocess.CompletedProcess


def _flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


@pytest.fixture(scope="session")
def apache() -> Iterator[Callable[..., RunResult[str]]]:
    """Run a pinned Apache tool: apache("kafka-consumer-groups", "--bootstrap-server", bs, "--list")."""
    fresh_jvm = _flag("KAFKA_TEST_APACHE_FRESH_JVM")
    runners: dict[str, local_kafka.ApacheRunner] = {}

    def run(tool: str, *args: str, version: str = local_kafka.KAFKA_VERSION) -> RunResult[str]:
        if fresh_jvm:
            return local_kafka.run_apache(tool, list(args), version=version)
        release = local_kafka.tools_version(version)
        if release not in runners:
            runners[release] = local_kafka.ApacheRunner(release, log_dir=local_kafka.RUN_DIR)
        return runners[release].run(tool, list(args))

    try:
        yield run
    finally:
        for runner in runners.values():
            runner.close()


def _subprocess(tool: str, *args: str, env: dict[str, str] | None = None) -> RunResult[str]:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name in inprocess.DROPPED_ENV:
        full_env.pop(name, None)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", OUR_TOOLS[tool], *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=full_env,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(scope="session")
def ours() -> Iterator[Callable[..., RunResult[str]]]:
    """Run one of our tools through its real entry point with piped output, each run its own
    process forked from a server that imported the tools once (tests/forkserver.py).
    KAFKA_TEST_OURS_SUBPROCESS=1 starts `python -m` per run instead; KAFKA_TEST_OURS_INPROCESS=1
    runs the tools inside the test process (tests/inprocess.py)."""
    if _flag("KAFKA_TEST_OURS_SUBPROCESS"):
        yield _subprocess
        return
    if _flag("KAFKA_TEST_OURS_INPROCESS"):
        yield inprocess.run
        return
    server = forkserver.ForkServer(str(ROOT))
    try:
        yield server.run  # type: ignore[misc]
    finally:
        server.close()


@pytest.fixture(scope="session")
def ours_process() -> Callable[..., RunResult[str]]:
    """Run one of our tools as a separate process (``python -m``, piped output, empty stdin): for
    what only a process shows (exit status as the shell sees it, signals, a clean interpreter)."""
    return _subprocess


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden", action="store_true", help="rewrite tests/golden/ from the current output"
    )
    parser.addoption(
        "--fast",
        action="store_true",
        help="the inner loop: the unit tests and the smoke tests (one real-broker test per command)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # The tests on the shared three-node cluster run together (in their usual order): last in one
    # process, so that its three broker JVMs start only when they are needed; under pytest-xdist, last
    # in their unit (below), which goes out early, and the cluster stays up until that worker's end.
    items.sort(key=lambda item: "three_nodes" in item.fixturenames)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        _one_unit_per_session_cluster(items)
        # The order the controller hands the units out in (pytest_xdist_make_scheduler).
        items.sort(key=lambda item: _rank(_unit(item.nodeid)))
    if not config.getoption("--fast"):
        return
    unit = ROOT / "tests" / "unit"
    keep, drop = [], []
    for item in items:
        if item.path.is_relative_to(unit) or item.get_closest_marker("smoke") is not None:
            keep.append(item)
        else:
            drop.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


# Under pytest-xdist (scripts/test's default: three workers on two cores) each module is a unit of
# work that one worker runs whole, so that its module cluster starts once. The units go out longest
# first (LONGEST, as measured on this project's suite; every other module follows in collection
# order), so that a worker that finishes early picks up short modules and none starts a long one
# near the end. Three workers, not two: with two, the cores were busy only about half of the run
# (much of the suite waits: on a paused, killed, fenced or unreachable broker, on consumer groups
# settling, on a watch's next refresh), and a third worker fills that time. Modules that share a
# session cluster other than the plain broker are one unit (TOGETHER), so that one worker starts it.
# A module too long for one unit is split: the tests named here (by their name in the module, before
# any parameters) are a unit of their own, "<module>::<part>", which another worker may take at the
# same time; each unit starts the module's own cluster. tests/kafka/test_faults.py alone was 381 s of
# one worker, a third of the run: its writes in several parts (a 400-partition topic, and the kills
# that restart the broker with it) and its 2,100-partition reset are the second part.
SPLIT = {
    "tests/kafka/test_faults.py": (
        "parts",
        {"TestInParts", "test_many_partitions_paused_before_the_commit"},
    ),
}


LONGEST = tuple(
    f"tests/kafka/{name}.py"
    for name in (
        "test_faults",
        "test_signals",
        "test_failover",
        "test_security",
        "test_pipeline_cluster",
        "test_pipeline",
        "test_pipeline_service",
        "test_pipeline_clusters",
        "test_policies",
        "test_pipeline_setup",
        "test_reset_offsets",
        "test_streams_groups",
        "test_client_lifetime",
        "test_describe_groups",
        # Each starts a broker of its own line for its 70 cases (tests/compat_cases.py).
        "test_compat_28",
        "test_compat_21",
        "test_compat_36",
        "test_compat_39",  # the 3.9 session broker, which only it uses
    )
)
# A split module's parts go out right after it.
LONGEST = tuple(unit for m in LONGEST for unit in (m, *([f"{m}::{SPLIT[m][0]}"] if m in SPLIT else [])))
TOGETHER = {
    "tests/kafka/test_one_connection.py": "tests/kafka/test_security.py",  # secure_cluster
    "tests/kafka/test_secret_files.py": "tests/kafka/test_security.py",  # secure_cluster
    "tests/kafka/test_clusters_secure.py": "tests/kafka/test_security.py",  # secure_cluster
    "tests/kafka/test_infra.py": "tests/kafka/test_failover.py",  # three_nodes
    "tests/kafka/test_many_groups.py": "tests/kafka/test_failover.py",  # three_nodes
    "tests/kafka/test_describe_large.py": "tests/kafka/test_failover.py",  # three_nodes
    "tests/kafka/test_clusters.py": "tests/kafka/test_compat_39.py",  # compat_broker, the second cluster
}
SESSION_CLUSTERS = ("three_nodes", "secure_cluster", "compat_broker")  # the plain broker is on every worker
assert all((ROOT / p.split("::")[0]).is_file() for p in LONGEST), "LONGEST names a missing module"
assert all((ROOT / p).is_file() for pair in TOGETHER.items() for p in pair), "TOGETHER names a missing module"


def _unit(nodeid: str) -> str:
    path, _, rest = nodeid.partition("::")
    if path in SPLIT:
        part, names = SPLIT[path]
        if rest.split("[", 1)[0].split("::", 1)[0] in names:
            return f"{path}::{part}"
    return TOGETHER.get(path, path)


def _rank(unit: str) -> int:
    return LONGEST.index(unit) if unit in LONGEST else len(LONGEST)


def _one_unit_per_session_cluster(items: list[pytest.Item]) -> None:
    """A session cluster used by modules in two units would start on two workers: refuse the run."""
    for name in SESSION_CLUSTERS:
        units = sorted({_unit(item.nodeid) for item in items if name in item.fixturenames})
        if len(units) > 1:
            raise pytest.UsageError(
                f"{name} is used by {', '.join(units)}: join them in TOGETHER (tests/conftest.py)"
            )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    from xdist.scheduler import LoadScopeScheduling

    class ModuleGroups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _unit(nodeid)

    # In the order the workers collected them in (pytest_collection_modifyitems), not re-sorted by
    # how many tests each unit has (xdist's default).
    config.option.loadscopereorder = False
    return ModuleGroups(config, log)  # type: ignore[arg-type]
