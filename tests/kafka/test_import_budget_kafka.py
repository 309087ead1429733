"""The import budget against a real broker: a describe, a list and kafka-topics --list that
succeed, with piped output, load none of the modules their paths do not use (the lists are
tests/unit/test_import_budget.py's)."""

from __future__ import annotations

import pytest

from tests.kafka_helpers import TOOL_TIMEOUT_MS, commit_offsets, create_topic, unique
from tests.unit.test_import_budget import (
    CLIENTS,
    CONFLUENT_SERDE,
    GROUP_LISTINGS,
    GROUP_VALUES,
    HEALTH_VIEW,
    HEAVY,
    KAFKA_PYTHON_ADMIN,
    KAFKA_PYTHON_CLIENTS,
    OTHER_COMMANDS,
    SECURE_SETTINGS,
    WRITE_GUARD,
    forbidden_in,
    loaded_by,
)

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def group(broker):
    topic = create_topic(broker.bootstrap, unique("budget"), partitions=3)
    name = unique("budget-group")
    commit_offsets(broker.bootstrap, name, {(topic, p): 0 for p in range(3)})
    return name, topic


@pytest.mark.parametrize(
    ("argv", "rendered_by"),
    [
        (("--describe", "--group", "GROUP"), "kafka_groups.render.describe"),
        (("--describe", "--all-groups"), "kafka_groups.render.describe"),
        (("--list",), "kafka_groups.render.groups_list"),
    ],
)
def test_group_reads_load_only_what_they_use(broker, group, argv, rendered_by):
    name, _ = group
    args = [a.replace("GROUP", name) for a in argv]
    loaded, proc = loaded_by(
        "kafka-consumer-groups",
        "--bootstrap-server",
        broker.bootstrap,
        *args,
        *("--timeout", TOOL_TIMEOUT_MS),
    )
    assert proc.returncode == 0, proc.stderr[-800:]
    assert name in proc.stdout
    assert rendered_by in loaded
    # The committed offsets and the group listing need the protocol layer: its connection
    # manager loads here, without the rest of kafka-python and without its admin client.
    assert {"kafka.net.manager", "kafka.protocol.admin.groups"} <= loaded
    forbidden = HEAVY | OTHER_COMMANDS | KAFKA_PYTHON_CLIENTS | KAFKA_PYTHON_ADMIN | SECURE_SETTINGS
    # A list makes no group description; neither makes a topic state; a describe of a named
    # group lists none.
    made = {"kafka_groups.core.describe"} if argv[0] == "--describe" else set()
    if "--group" in argv:
        forbidden |= GROUP_LISTINGS
    assert forbidden_in(loaded, forbidden | CONFLUENT_SERDE | HEALTH_VIEW | (GROUP_VALUES - made)) == []


def test_topics_list_loads_no_protocol_layer(broker, group):
    _, topic = group
    loaded, proc = loaded_by(
        "kafka-topics", "--bootstrap-server", broker.bootstrap, "--list", api_timeout_ms=int(TOOL_TIMEOUT_MS)
    )
    assert proc.returncode == 0, proc.stderr[-800:]
    assert topic in proc.stdout.split()
    # The package itself is registered without an import (kafka_groups/access/packages.py),
    # so -X importtime names only the modules loaded from it.
    assert "confluent_kafka.admin" in loaded
    forbidden = HEAVY | (CLIENTS - {"confluent_kafka"}) | CONFLUENT_SERDE | {"kafka_topics.commands"}
    forbidden |= {"kafka_groups.core.topics", "ssl"}  # the other commands' results; TLS diagnosis
    assert forbidden_in(loaded, forbidden) == []


# The result types of the commands that are not running: the renderer of a result is found by
# its type's name (kafka_groups/render/registry.py), not by loading the others to compare.
RESULTS = {
    "streams": "kafka_groups.core.streams",
    "health": "kafka_groups.core.health",
    "reset": "kafka_groups.core.reset_plan",
    "delete": "kafka_groups.core.delete",
}


def test_topics_describe_loads_no_other_command_results(broker, group):
    _, topic = group
    argv = ("--bootstrap-server", broker.bootstrap, "--describe", "--topic", topic)
    loaded, proc = loaded_by("kafka-topics", *argv, api_timeout_ms=int(TOOL_TIMEOUT_MS))
    assert proc.returncode == 0, proc.stderr[-800:]
    assert f"Topic: {topic}\t" in proc.stdout
    assert "kafka_groups.render.topics" in loaded
    others = frozenset(RESULTS.values()) | {"kafka_groups.core.reset", "kafka_groups.commands.backup"}
    assert forbidden_in(loaded, HEAVY | others | CONFLUENT_SERDE | HEALTH_VIEW) == []


def test_reset_dry_run_loads_no_other_command_results(broker, group):
    name, topic = group
    reset = ("--reset-offsets", "--group", name, "--topic", topic, "--to-earliest", "--dry-run")
    loaded, proc = loaded_by(
        "kafka-consumer-groups", "--bootstrap-server", broker.bootstrap, *reset, "--timeout", TOOL_TIMEOUT_MS
    )
    assert proc.returncode == 0, proc.stderr[-800:]
    assert name in proc.stdout
    assert {RESULTS["reset"], "kafka_groups.render.reset"} <= loaded
    others = frozenset(RESULTS.values()) - {RESULTS["reset"]}
    forbidden = HEAVY | others | CONFLUENT_SERDE | HEALTH_VIEW | WRITE_GUARD | {"kafka_topics"}
    assert forbidden_in(loaded, forbidden) == []
