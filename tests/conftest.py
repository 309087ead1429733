"""Shared fixtures: the real local broker (started once per session), the pinned Apache
tools beside it, and our own tools run through their real entry points.

Set KAFKA_TEST_BOOTSTRAP to run the Kafka tests against a broker that is already running
(for example one started with ``python -m infra.kafka start``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from infra import kafka as local_kafka  # noqa: E402

OUR_TOOLS = {
    "kafka-consumer-groups": "kafka_groups.cli.consumer_groups",
    "kafka-streams-groups": "kafka_groups.cli.streams_groups",
    "kafka-topics": "kafka_topics.cli",
}


@dataclass(frozen=True)
class Broker:
    bootstrap: str
    version: str


def _start(version: str, env_var: str) -> Iterator[Broker]:
    external = os.environ.get(env_var)
    if external:
        yield Broker(external, version)
        return
    # Its own work directory, so a broker a developer started with `python -m infra.kafka start`
    # keeps running while the suite runs.
    cluster = local_kafka.start(nodes=1, version=version, workdir=local_kafka.RUN_DIR / f"pytest-{version}")
    try:
        yield Broker(cluster.bootstrap, version)
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def broker() -> Iterator[Broker]:
    """The pinned Kafka 4.x broker."""
    yield from _start(local_kafka.KAFKA_VERSION, "KAFKA_TEST_BOOTSTRAP")


@pytest.fixture(scope="session")
def compat_broker() -> Iterator[Broker]:
    """A Kafka 3.9 broker: classic groups only, no KIP-848 APIs."""
    yield from _start(local_kafka.COMPAT_VERSION, "KAFKA_TEST_COMPAT_BOOTSTRAP")


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
        nodes=1, version=local_kafka.KAFKA_VERSION, workdir=local_kafka.RUN_DIR / "pytest-secure", secure=True
    )
    try:
        yield cluster
    finally:
        cluster.stop()


RunResult = subprocess.CompletedProcess


@pytest.fixture(scope="session")
def apache() -> Callable[..., RunResult[str]]:
    """Run a pinned Apache tool: apache("kafka-consumer-groups", "--bootstrap-server", bs, "--list")."""

    def run(tool: str, *args: str, version: str = local_kafka.KAFKA_VERSION) -> RunResult[str]:
        return local_kafka.run_apache(tool, list(args), version=version)

    return run


@pytest.fixture(scope="session")
def ours() -> Callable[..., RunResult[str]]:
    """Run one of our tools through its real entry point, as a separate process (piped output)."""

    def run(tool: str, *args: str, env: dict[str, str] | None = None) -> RunResult[str]:
        full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        full_env.pop("KAFKA_TOOLS_OUTPUT", None)
        return subprocess.run(
            [sys.executable, "-m", OUR_TOOLS[tool], *args],
            capture_output=True,
            text=True,
            timeout=120,
            env=full_env,
            stdin=subprocess.DEVNULL,
        )

    return run


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden", action="store_true", help="rewrite tests/golden/ from the current output"
    )
