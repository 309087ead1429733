"""kafka-topics --list, ours beside the pinned Apache tool."""

from __future__ import annotations

import pytest

from tests.kafka_helpers import create_topic, unique

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def topics(broker):
    prefix = unique("tlist")
    return [create_topic(broker.bootstrap, f"{prefix}.{n}") for n in ("a", "b", "c")], prefix


@pytest.mark.parametrize(
    "extra", [[], ["--exclude-internal"], ["--topic", "PREFIX.*"], ["--topic", "PREFIX\\.a,PREFIX\\.c"]]
)
@pytest.mark.smoke
def test_list_matches_the_apache_tool(broker, topics, apache, ours, extra):
    names, prefix = topics
    extra = [e.replace("PREFIX", prefix) for e in extra]
    theirs = apache("kafka-topics", "--bootstrap-server", broker.bootstrap, "--list", *extra)
    mine = ours("kafka-topics", "--bootstrap-server", broker.bootstrap, "--list", *extra)
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout == theirs.stdout
    if extra[:1] == ["--topic"]:
        assert set(mine.stdout.split()) <= set(names)
        assert mine.stdout.strip()
