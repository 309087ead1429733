"""The import budget: what each command's path may not load (a list of modules, not a timing).

Start-up is most of a short command's time, and most of start-up is imports. Each case runs a
tool as ``python -X importtime -m ...`` and reads the modules it imported from the interpreter's
own report. The network paths run against a port that refuses at once (127.0.0.1:1): the
command loads everything it needs up to the first connection, then fails with one line.
tests/kafka/test_import_budget_kafka.py checks the same lists against a real broker.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Never on a path that does not use them: the subcommand form's and the terminal's libraries,
# the datetime parser, PKCS12 and encrypted keys, the pipeline's Spark, javaproperties' XML
# form (urllib and email come with it), the OAuth token fetch.
HEAVY = frozenset(
    {
        "typer",
        "click",
        "rich",
        "dateutil",
        "cryptography",
        "pyspark",
        "pyarrow",
        "javaproperties",
        "urllib.request",
        "email",
    }
)
# The other commands' modules: a describe or a list loads none of them.
OTHER_COMMANDS = frozenset(
    {
        "kafka_groups.commands.reset_offsets",
        "kafka_groups.commands.delete_groups",
        "kafka_groups.commands.delete_streams",
        "kafka_groups.commands.backup",
        "kafka_groups.core.reset",
        "kafka_groups.core.streams",
        "kafka_topics",
    }
)
CLIENTS = frozenset({"confluent_kafka", "kafka"})
# kafka-python's own consumer and producer: its package __init__ loads them, the protocol layer
# (kafka_groups/access/protocol_layer.py) does not.
KAFKA_PYTHON_CLIENTS = frozenset({"kafka.consumer", "kafka.producer"})
# kafka-python's admin client, and the requests a group read does not send: the protocol layer
# opens its connection with the library's connection manager alone, and its message packages
# load only the modules asked for (kafka_groups/access/protocol_layer.py).
KAFKA_PYTHON_ADMIN = frozenset(
    {
        "kafka.admin",
        "kafka.protocol.admin.acl",
        "kafka.protocol.admin.client_quotas",
        "kafka.protocol.admin.cluster",
        "kafka.protocol.admin.configs",
        "kafka.protocol.admin.topics",
        "kafka.protocol.admin.transactions",
        "kafka.protocol.admin.users",
        "kafka.protocol.consumer.fetch",
    }
)
# What confluent-kafka's package __init__ loads beside the clients the tools use: its
# serializing producer and consumer and asyncio (kafka_groups/access/packages.py registers the
# package without running it; the small serialization module loads, as the error module needs).
CONFLUENT_SERDE = frozenset(
    {
        "confluent_kafka.deserializing_consumer",
        "confluent_kafka.serializing_producer",
        "asyncio",
    }
)
# The values a group read does not make: a group list makes no group description and no topic
# state, a group describe no topic state (kafka_groups/access/decode.py loads them where made).
GROUP_VALUES = frozenset({"kafka_groups.core.describe", "kafka_groups.core.topic_states"})
# The group listings (--list, --all-groups, patterns): a describe of named groups makes none.
GROUP_LISTINGS = frozenset({"kafka_groups.core.groups"})
# The write guard, its backups and the reset's commit: a dry run loads none of them.
WRITE_GUARD = frozenset(
    {"kafka_groups.commands.guard", "kafka_groups.commands.backup", "kafka_groups.commands.reset_apply"}
)
# The TLS stores and the OAUTHBEARER login: a connection whose properties set neither loads them.
SECURE_SETTINGS = frozenset({"kafka_groups.client_secure"})
# The loss radar (--health), which a plain describe or list does not show.
HEALTH_VIEW = frozenset(
    {"kafka_groups.core.health", "kafka_groups.commands.health", "kafka_groups.render.health"}
)

TOOLS = {
    "kafka-consumer-groups": "kafka_groups.cli.consumer_groups",
    "kafka-streams-groups": "kafka_groups.cli.streams_groups",
    "kafka-topics": "kafka_topics.cli",
}
_LINE = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|( *)(\S+)$")
REFUSED = ("--bootstrap-server", "127.0.0.1:1", "--timeout", "300")


def parse_importtime(stderr: str) -> set[str]:
    """The modules named by ``-X importtime`` lines (other stderr lines are the tool's own)."""
    return {m.group(2) for line in stderr.splitlines() if (m := _LINE.match(line))}


def loaded_by(
    tool: str, *argv: str, api_timeout_ms: int = 300
) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    # kafka-topics has no --timeout: it waits default.api.timeout.ms (60 s unless set), set
    # here the way a user sets any client property without a file.
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KAFKA_CLIENT_DEFAULT_API_TIMEOUT_MS": str(api_timeout_ms)}
    env.pop("KAFKA_TOOLS_OUTPUT", None)
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", TOOLS[tool], *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    return parse_importtime(proc.stderr), proc


def forbidden_in(loaded: set[str], forbidden: frozenset[str]) -> list[str]:
    """The loaded modules that are, or are inside, a forbidden package."""
    return sorted(m for m in loaded if m in forbidden or any(m.startswith(f + ".") for f in forbidden))


def test_parse_importtime_reads_nested_names_and_skips_other_lines():
    stderr = (
        "import time: self [us] | cumulative | imported package\n"
        "import time:       120 |        300 |   kafka_groups.core.reset\n"
        "Error: cannot reach the cluster\n"
        "import time:        80 |         80 | rich\n"
    )
    assert parse_importtime(stderr) == {"kafka_groups.core.reset", "rich"}


def test_forbidden_in_matches_packages_and_their_modules_only():
    loaded = {"rich", "rich.console", "richer", "kafka_groups.core.reset_args", "kafka.protocol"}
    assert forbidden_in(loaded, frozenset({"rich", "kafka_groups.core.reset", "kafka"})) == [
        "kafka.protocol",
        "rich",
        "rich.console",
    ]


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_help_loads_no_client_and_no_command(tool):
    loaded, proc = loaded_by(tool, "--help")
    assert proc.returncode == 0, proc.stderr[-500:]
    assert "kafka_groups.cli.flag_help" in loaded  # the report was read
    own = {"kafka_topics"} if tool == "kafka-topics" else set()
    assert forbidden_in(loaded, HEAVY | CLIENTS | (OTHER_COMMANDS - own) | {"kafka_groups.access"}) == []
    assert forbidden_in(loaded, frozenset({"kafka_topics.commands", "kafka_topics.list_request"})) == []
    # Help answers before the argument parser and the settings load (cli/quick.py).
    assert (
        forbidden_in(loaded, frozenset({"dataclasses", "kafka_groups.apache_argv", "kafka_groups.settings"}))
        == []
    )


@pytest.mark.parametrize(
    ("tool", "argv", "command_module"),
    [
        ("kafka-consumer-groups", ("--describe", "--group", "g"), "kafka_groups.commands.describe_groups"),
        ("kafka-consumer-groups", ("--describe", "--all-groups"), "kafka_groups.commands.describe_groups"),
        ("kafka-consumer-groups", ("--list",), "kafka_groups.commands.list_groups"),
        ("kafka-streams-groups", ("--describe", "--group", "g"), "kafka_groups.commands.describe_streams"),
        ("kafka-streams-groups", ("--list",), "kafka_groups.commands.list_groups"),
        ("kafka-topics", ("--list",), "kafka_topics.list_request"),
    ],
)
def test_read_paths_load_only_what_they_use(tool, argv, command_module):
    refused = REFUSED[:2] if tool == "kafka-topics" else REFUSED  # kafka-topics has no --timeout
    loaded, proc = loaded_by(tool, *refused, *argv)
    assert proc.returncode == 1, proc.stderr[-500:]  # refused at the first connection
    assert {command_module, "kafka_groups.access.cluster"} <= loaded
    own = {"kafka_topics"} if tool == "kafka-topics" else set()
    if command_module == "kafka_groups.commands.describe_streams":
        own.add("kafka_groups.core.streams")  # a Streams group's topology and tasks
    if command_module != "kafka_groups.commands.list_groups":
        own.add("kafka_groups.core.describe")  # the group descriptions
    if tool == "kafka-topics":
        own.add("kafka_groups.core.topic_states")  # --list's result
    forbidden = HEAVY | (OTHER_COMMANDS - own) | KAFKA_PYTHON_CLIENTS | KAFKA_PYTHON_ADMIN | SECURE_SETTINGS
    if "--group" in argv:
        forbidden |= GROUP_LISTINGS
    assert forbidden_in(loaded, forbidden | CONFLUENT_SERDE | HEALTH_VIEW | (GROUP_VALUES - own)) == []


def test_the_protocol_layer_under_oauth_loads_only_the_requests_it_sends(tmp_path):
    """An OAUTHBEARER token provider's base class is kafka-python's: building the protocol
    layer's settings must not load its message packages whole before they are registered."""
    config = tmp_path / "oauth.properties"
    config.write_text(
        "security.protocol=SASL_PLAINTEXT\n"
        "sasl.mechanism=OAUTHBEARER\n"
        "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required"
        ' unsecuredLoginStringClaim_sub="alice";\n'
    )
    loaded, proc = loaded_by("kafka-consumer-groups", *REFUSED, "--command-config", str(config), "--list")
    assert proc.returncode == 1, proc.stderr[-500:]  # refused at the first connection
    assert {"kafka.net.sasl.oauth", "kafka.net.manager"} <= loaded
    assert forbidden_in(loaded, KAFKA_PYTHON_ADMIN) == []


def test_topics_list_loads_no_topic_results_and_no_tls():
    """``--list`` prints names: the ``--describe``, ``--create`` and ``--alter`` results
    (core/topics.py) stay unloaded, and so does Python's ssl, which only a failed TLS handshake's
    diagnosis uses (librdkafka has its own)."""
    loaded, proc = loaded_by("kafka-topics", *REFUSED[:2], "--list")
    assert proc.returncode == 1, proc.stderr[-500:]
    assert "kafka_groups.core.topic_states" in loaded
    assert forbidden_in(loaded, frozenset({"kafka_groups.core.topics", "ssl", "datetime"})) == []


def test_the_budget_sees_what_a_path_does_load():
    """The reset path loads the reset modules: the same reading that finds them absent on
    the describe path finds them here."""
    loaded, proc = loaded_by(
        "kafka-consumer-groups", *REFUSED, "--reset-offsets", "--group", "g", "--all-topics", "--to-earliest"
    )
    assert proc.returncode == 1, proc.stderr[-500:]
    assert {"kafka_groups.core.reset", "kafka_groups.commands.reset_offsets"} <= loaded
    assert forbidden_in(loaded, HEAVY | CONFLUENT_SERDE) == []


def test_usage_error_loads_no_client():
    loaded, proc = loaded_by("kafka-consumer-groups", "--describe")
    assert proc.returncode == 2
    assert forbidden_in(loaded, HEAVY | CLIENTS | {"kafka_groups.access"}) == []
