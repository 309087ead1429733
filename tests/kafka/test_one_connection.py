"""One client, one login per command (issue 18): on the SCRAM-over-TLS listener, each command
of the list below authenticates as often as one Kafka client does, counted by the broker
itself (``successful-authentication-total`` of the listener's network processors, read over
JMX from the running broker).

What one client costs: librdkafka authenticates its bootstrap connection and then one
connection per broker it sends requests to, so on this one-broker cluster a command on one
client authenticates once or twice; a second client (the protocol layer beside the
AdminClient) adds its own bootstrap and broker connections, four in all, which fails here."""

from __future__ import annotations

import re
import socket
import subprocess

import pytest

from kafka_groups.commands.reset_gather import BULK_READS_ABOVE
from tests.kafka_helpers import (
    Record,
    admin,
    commit_offsets,
    create_topic,
    produce,
    unique,
    wait_until_led,
)
from tests.watch_helpers import Watch

pytestmark = pytest.mark.kafka

LISTENER = "SASL_SSL"
JMX_TOOL = "org.apache.kafka.tools.JmxTool"
COUNTER = "successful-authentication-total"
RECORD_CREATION_OFF = {"KAFKA_GROUP_TOOLS_RECORD_CREATION": "0"}


class Authentications:
    """The broker's count of successful SASL authentications on one listener, read with the Apache
    JmxTool in the suite's long-lived tool JVM (``apache``): the module reads it twice a command,
    and a JVM of its own each time was about half of the module's time."""

    def __init__(self, pid: int, listener: str, apache) -> None:
        self.listener = listener
        self.url = f"service:jmx:rmi:///jndi/rmi://127.0.0.1:{_jmx_port(pid)}/jmxrmi"
        self.apache = apache

    def count(self) -> int:
        objects = f"kafka.server:type=socket-server-metrics,listener={self.listener},networkProcessor=*"
        args = ["--jmx-url", self.url, "--object-name", objects, "--attributes", COUNTER,
                "--one-time", "true", "--report-format", "properties"]  # fmt: skip
        result = self.apache(JMX_TOOL, *args)
        values = re.findall(rf"{COUNTER}=([0-9.]+)", result.stdout)
        assert values, f"no authentication counter read: {result.stdout}{result.stderr}"
        return round(sum(float(v) for v in values))


def _jmx_port(pid: int) -> int:
    """The port of the broker JVM's remote JMX agent, started now unless it runs already."""
    status = subprocess.run(["jcmd", str(pid), "ManagementAgent.status"], capture_output=True, text=True)
    found = re.search(r"jmxremote\.port = (\d+)", status.stdout)
    if found:
        return int(found.group(1))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    options = [f"jmxremote.port={port}", "jmxremote.host=127.0.0.1", "jmxremote.authenticate=false",
               "jmxremote.ssl=false"]  # fmt: skip
    started = subprocess.run(
        ["jcmd", str(pid), "ManagementAgent.start", *options], capture_output=True, text=True
    )
    assert started.returncode == 0, started.stdout + started.stderr
    return port


@pytest.fixture(scope="module")
def logins(secure_cluster, apache):
    if subprocess.run(["which", "jcmd"], capture_output=True).returncode != 0:
        pytest.skip("jcmd (the JDK's) is needed to read the broker's authentication count")
    return Authentications(secure_cluster.node_list[0].pid, LISTENER, apache)


@pytest.fixture(scope="module")
def data(secure_cluster):
    """A topic of 10 partitions with records and a group with offsets on every partition."""
    plain = secure_cluster.bootstrap
    topic, group = create_topic(plain, unique("one"), partitions=10), unique("one")
    produce(plain, topic, [Record(p, "x") for p in range(10) for _ in range(3)])
    commit_offsets(plain, group, {(topic, p): 1 for p in range(10)})
    return topic, group


def _authentications(logins, secure_cluster, ours, tool: str, *args: str, env=None) -> int:
    bootstrap = secure_cluster.bootstrap_for(LISTENER)
    config = str(secure_cluster.client_config(LISTENER, "admin"))
    before = logins.count()
    result = ours(tool, "--bootstrap-server", bootstrap, "--command-config", config, *args, env=env)
    after = logins.count()
    assert result.returncode == 0, result.stderr
    return after - before


def _one_client(count: int, brokers: int) -> bool:
    """One bootstrap connection and at most one connection per broker, each authenticated once."""
    return 1 <= count <= 1 + brokers


def _two_clients(count: int, brokers: int) -> bool:
    """The AdminClient and the protocol layer, each as :func:`_one_client` counts it."""
    return 1 + brokers < count <= 2 * (1 + brokers)


# Commands that read committed offsets open the protocol layer beside the AdminClient: librdkafka's
# ListConsumerGroupOffsets crashes the process (a NULL consumer-group handle, librdkafka issue
# #5040) when the coordinator answers NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE, as a new or
# moving coordinator does, so OffsetFetch goes through the protocol layer. Two clients, not more.
CASES = {
    "consumer-groups --reset-offsets --dry-run": (_one_client, (
        "kafka-consumer-groups", "--reset-offsets", "--group", "{group}", "--topic", "{topic}",
        "--to-earliest", "--dry-run",
    )),
    "topics --list": (_one_client, ("kafka-topics", "--list")),
    "consumer-groups --describe": (
        _two_clients, ("kafka-consumer-groups", "--describe", "--group", "{group}"),
    ),
    "consumer-groups --reset-offsets --execute": (_two_clients, (
        "kafka-consumer-groups", "--reset-offsets", "--group", "{group}", "--topic", "{topic}",
        "--to-latest", "--execute",
    )),
    # These read only through the protocol layer (ListGroups with the streams type and the
    # KIP-848 states; Metadata with topic ids and DescribeTopicPartitions v1): on a secured
    # listener it logs in alone, and the AdminClient is asked only when that login has not
    # come through within access/connection.FIRST_LOGIN_MS.
    "consumer-groups --list": (_one_client, ("kafka-consumer-groups", "--list")),
    "streams-groups --list": (_one_client, ("kafka-streams-groups", "--list")),
    "topics --describe": (_one_client, ("kafka-topics", "--describe", "--topic", "{topic}")),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_a_command_logs_in_as_few_clients_as_it_needs(case, logins, data, secure_cluster, ours):
    topic, group = data
    expected, argv = CASES[case]
    tool, *args = (a.format(topic=topic, group=group) for a in argv)
    count = _authentications(logins, secure_cluster, ours, tool, *args)
    assert expected(count, secure_cluster.nodes), f"{case}: {count} authentications"


WIDE = BULK_READS_ABOVE + 1000  # a reset of this many reads leaders and log offsets in bulk


@pytest.fixture(scope="module")
def wide(secure_cluster):
    """A topic of WIDE partitions, led (see wait_until_led), and a group with an offset on one of
    them (so its coordinator is up; its reset commits offsets on all). The topic is deleted
    afterwards, so the other modules on this cluster do not carry it."""
    plain = secure_cluster.bootstrap
    topic, group = create_topic(plain, unique("one-wide"), partitions=WIDE), unique("one-wide")
    wait_until_led(plain, topic, WIDE)
    commit_offsets(plain, group, {(topic, 0): 0})
    yield topic, group
    client = admin(plain)  # alive until its future resolves
    client.delete_topics([topic], operation_timeout=60)[topic].result(timeout=60)


@pytest.mark.parametrize("mode", ["--dry-run", "--execute"])
def test_a_reset_of_thousands_of_partitions_logs_in_as_two_clients(logins, wide, secure_cluster, ours, mode):
    """Above BULK_READS_ABOVE partitions a reset reads leaders and log offsets through the
    protocol layer, into compact tables (librdkafka's metadata alone would hold about 2 KB a
    partition), beside the AdminClient that describes the group; ``--execute`` reads the
    committed offsets there too. Two clients whatever the size: not one per call."""
    topic, group = wide
    args = ("--reset-offsets", "--group", group, "--topic", topic, "--to-latest", mode)
    count = _authentications(logins, secure_cluster, ours, "kafka-consumer-groups", *args)
    assert _two_clients(count, secure_cluster.nodes), f"{mode} of {WIDE:,} partitions: {count} logins"


def test_topic_create_alter_and_delete_log_in_once_each(logins, secure_cluster, ours):
    """Without recording creation times (the registry is a producer of its own)."""
    name = unique("one-new")
    steps = {
        "--create": ("--create", "--topic", name, "--partitions", "2"),
        "--alter": ("--alter", "--topic", name, "--partitions", "3"),
        "--delete": ("--delete", "--topic", name),
    }
    for step, args in steps.items():
        count = _authentications(logins, secure_cluster, ours, "kafka-topics", *args, env=RECORD_CREATION_OFF)
        assert _one_client(count, secure_cluster.nodes), f"{step}: {count} authentications"


def test_group_delete_logs_in_as_two_clients(logins, secure_cluster, ours):
    """The backup reads the group's committed offsets (see READ_COMMITTED)."""
    plain = secure_cluster.bootstrap
    topic, group = create_topic(plain, unique("one-del"), partitions=2), unique("one-del")
    commit_offsets(plain, group, {(topic, 0): 0})
    count = _authentications(
        logins, secure_cluster, ours, "kafka-consumer-groups", "--delete", "--group", group
    )
    assert _two_clients(count, secure_cluster.nodes), f"--delete: {count} authentications"


def test_the_count_tells_a_second_client(logins, data, secure_cluster, ours):
    """The count tells two clients from one: ``--describe`` reads committed offsets through the
    protocol layer beside the AdminClient (librdkafka issue #5040, see above)."""
    _topic, group = data
    args = ("--describe", "--group", group)
    count = _authentications(logins, secure_cluster, ours, "kafka-consumer-groups", *args)
    assert count > 1 + secure_cluster.nodes, f"--describe: {count} authentications"


def test_a_watch_logs_in_as_one_describe_does_for_all_its_refreshes(logins, data, secure_cluster, ours):
    """Watch mode opens its session once: five refreshes cost the logins of one --describe."""
    _topic, group = data
    describe = ("kafka-consumer-groups", "--describe", "--group", group)
    single = _authentications(logins, secure_cluster, ours, *describe)
    config = str(secure_cluster.client_config(LISTENER, "admin"))
    args = ["--bootstrap-server", secure_cluster.bootstrap_for(LISTENER), "--command-config", config]
    before = logins.count()
    watch = Watch([*args, *describe[1:], "--watch", "0.5"])
    try:
        docs = [watch.next_doc() for _ in range(5)]
        code, stderr = watch.stop()
    finally:
        watch.close()
    after = logins.count()
    assert code == 0, stderr
    assert all(d["error"] is None and d["groups"] for d in docs), docs
    assert after - before == single, f"a watch of 5 refreshes: {after - before}; one describe: {single}"
