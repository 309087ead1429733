"""No command leaves an AdminClient for Python's garbage collector to free.

A client left in a reference cycle is freed by the collector on whatever thread runs it; when
that is the client's own librdkafka background thread, delivering a late answer, librdkafka
aborts the process (kafka_groups/access/clients.py). A command whose request failed used to
leave its client so: a future that raised keeps the frames that held it. Each command here runs
inside the test process with the collector off, so that such a client is still there to count
when the command returns; after it, none may be."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tests import inprocess
from tests.client_lifetimes import tracked_admin_clients, without_collector
from tests.kafka_helpers import commit_offsets, create_topic, produce_n, unique

pytestmark = pytest.mark.kafka

TOOLS = {"groups": "kafka-consumer-groups", "streams": "kafka-streams-groups", "topics": "kafka-topics"}
TIMEOUT = ["--timeout", "1500"]


def run(tool: str, argv: list[str]) -> tuple[int, str]:
    done = without_collector(lambda: inprocess.run(TOOLS[tool], *argv))
    return done.returncode, done.stderr


def commands(group: str, topic: str, props: str) -> list[tuple[str, list[str]]]:
    reset = ["--reset-offsets", "--group", group, "--topic", topic, "--to-earliest", "--dry-run"]
    return [
        ("groups", ["--describe", "--group", group, "--offsets", *TIMEOUT]),
        ("groups", ["--describe", "--all-groups", "--members", *TIMEOUT]),
        ("groups", [*reset, *TIMEOUT]),
        ("groups", ["--delete-offsets", "--group", group, "--topic", topic, *TIMEOUT]),
        ("groups", ["--list", "--state", *TIMEOUT]),
        ("streams", ["--describe", "--group", group, *TIMEOUT]),
        ("topics", ["--describe", "--topic", topic, "--command-config", props]),
    ]


@pytest.fixture
def props(tmp_path) -> str:
    path = tmp_path / "client.properties"
    path.write_text("default.api.timeout.ms=1500\n")
    return str(path)


@pytest.fixture
def silent_listener() -> Iterator[str]:
    """An address that accepts connections and never answers (a broker that hangs)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        yield f"127.0.0.1:{listener.getsockname()[1]}"


@pytest.fixture
def refused() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"  # closed again: connections are refused


@pytest.mark.parametrize("address", ["refused", "silent_listener"])
def test_a_cluster_that_cannot_be_reached_leaves_no_client(address, request, props):
    bootstrap = request.getfixturevalue(address)
    with tracked_admin_clients() as tracker:
        for tool, argv in commands("g", "t", props):
            code, err = run(tool, ["--bootstrap-server", bootstrap, *argv])
            assert code == 1, (tool, argv, err)
            assert tracker.alive() == 0, f"{tool} {argv} left a client to the collector: {err}"
        assert tracker.opened, "no command opened a client: the check proved nothing"


def test_commands_on_a_live_cluster_leave_no_client(broker, props):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("life"), partitions=2)
    produce_n(bs, topic, {0: 3, 1: 3})
    group = unique("life-g")
    commit_offsets(bs, group, {(topic, 0): 1, (topic, 1): 2})
    # The answers a live cluster gives, and the failures: a missing topic, a missing group.
    cases = commands(group, topic, props) + commands(unique("none"), unique("none"), props)
    with tracked_admin_clients() as tracker:
        for tool, argv in cases:
            code, err = run(tool, ["--bootstrap-server", bs, *argv])
            assert code in (0, 1), (tool, argv, err)
            assert tracker.alive() == 0, f"{tool} {argv} left a client to the collector: {err}"
        assert tracker.opened, "no command opened a client: the check proved nothing"
