"""Against a Kafka 3.9 broker: classic groups only, no ListGroups v5 (group types)."""

from __future__ import annotations

import pytest

from tests.kafka_helpers import consume_and_commit, create_topic, produce_n, unique

pytestmark = [pytest.mark.kafka, pytest.mark.compat]


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
