"""Against a Kafka 3.9 broker (KRaft): classic groups only, no streams groups. Every action of the three
tools beside the pinned Apache tool (tests/compat_cases.py, class TestOn39), and the checks below."""

from __future__ import annotations

import pytest

from infra.kafka import COMPAT_VERSION
from tests.compat_cases import CompatCases
from tests.kafka_helpers import ActiveConsumer, consume_and_commit, create_topic, produce_n, unique

pytestmark = [pytest.mark.kafka, pytest.mark.compat, pytest.mark.compat_39]
BROKER_VERSION = COMPAT_VERSION


class TestOn39(CompatCases):
    pass


@pytest.fixture(scope="module")
def classic_group(compat_broker):
    bs = compat_broker.bootstrap
    topic = create_topic(bs, unique("compat"), partitions=2)
    produce_n(bs, topic, {0: 2, 1: 2})
    group = unique("compat-classic")
    assert consume_and_commit(bs, group, [topic], expected=4, protocol="classic") == 4
    return group


@pytest.mark.parametrize("filters", [[], ["--state"], ["--type"], ["--state", "empty", "--type"]])
def test_list_on_39_matches_the_apache_tool(compat_broker, classic_group, apache, ours, filters):
    bs = compat_broker.bootstrap
    theirs = apache("kafka-consumer-groups", "--bootstrap-server", bs, "--list", *filters)
    mine = ours("kafka-consumer-groups", "--bootstrap-server", bs, "--list", *filters)
    assert mine.returncode == 0, mine.stderr
    assert classic_group in mine.stdout
    assert mine.stdout == theirs.stdout


@pytest.mark.parametrize(
    "view",
    [[], ["--offsets", "--verbose"], ["--members"], ["--members", "--verbose"], ["--state"]],
    ids=lambda v: " ".join(v) or "default",
)
def test_describe_on_39_matches_the_apache_tool(compat_broker, classic_group, apache, ours, view):
    bs = compat_broker.bootstrap
    theirs = apache(
        "kafka-consumer-groups", "--bootstrap-server", bs, "--describe", "--group", classic_group, *view
    )
    mine = ours(
        "kafka-consumer-groups", "--bootstrap-server", bs, "--describe", "--group", classic_group, *view
    )
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout == theirs.stdout


def test_describe_active_group_on_39(compat_broker, classic_group, apache, ours):
    bs = compat_broker.bootstrap
    topic = create_topic(bs, unique("compat-active"), partitions=3)
    group = unique("compat-active")
    with ActiveConsumer(bs, group, [topic]):
        for view in ([], ["--members", "--verbose"], ["--state"]):
            theirs = apache(
                "kafka-consumer-groups", "--bootstrap-server", bs, "--describe", "--group", group, *view
            )
            mine = ours(
                "kafka-consumer-groups", "--bootstrap-server", bs, "--describe", "--group", group, *view
            )
            assert mine.returncode == 0, mine.stderr
            assert mine.stdout == theirs.stdout


def test_missing_group_on_39(compat_broker, ours):
    missing = unique("compat-missing")
    mine = ours(
        "kafka-consumer-groups",
        "--bootstrap-server",
        compat_broker.bootstrap,
        "--describe",
        "--group",
        missing,
    )
    assert mine.returncode == 1
    assert mine.stderr.strip() == f"Error: Consumer group '{missing}' does not exist."


@pytest.mark.parametrize(
    "scenario",
    [["--to-earliest"], ["--to-latest"], ["--shift-by", "-1"], ["--to-datetime", "2020-01-01T00:00:00.000"]],
    ids=" ".join,
)
def test_reset_plans_on_39_match_the_apache_tool(compat_broker, classic_group, apache, ours, scenario):
    bs = compat_broker.bootstrap
    args = ["--bootstrap-server", bs, "--group", classic_group, "--reset-offsets", *scenario, "--all-topics"]
    theirs = apache("kafka-consumer-groups", *args, "--dry-run")
    mine = ours("kafka-consumer-groups", *args, "--dry-run")
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout == theirs.stdout


def test_reset_executes_on_39(compat_broker, ours, tmp_path):
    from tests.kafka_helpers import commit_offsets, committed

    bs = compat_broker.bootstrap
    topic = create_topic(bs, unique("compat-reset"), partitions=2)
    produce_n(bs, topic, {0: 3, 1: 3})
    group = unique("compat-reset")
    commit_offsets(bs, group, {(topic, 0): 3, (topic, 1): 2})
    mine = ours(
        "kafka-consumer-groups",
        "--bootstrap-server",
        bs,
        "--group",
        group,
        "--reset-offsets",
        "--to-earliest",
        "--all-topics",
        "--execute",
        "--backup-dir",
        str(tmp_path),
    )
    assert mine.returncode == 0, mine.stderr
    assert committed(bs, group) == {(topic, 0): 0, (topic, 1): 0}
