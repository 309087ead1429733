"""kafka-consumer-groups --list, ours beside the pinned Apache tool on the same broker."""

from __future__ import annotations

import json

import pytest

from tests.kafka_helpers import (
    ActiveConsumer,
    commit_offsets,
    consume_and_commit,
    create_topic,
    produce_n,
    unique,
)

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def groups(broker):
    """A topic with an Empty classic group, an Empty consumer-protocol group, and a simple
    group (offsets committed without joining)."""
    bs = broker.bootstrap
    topic = create_topic(bs, unique("list"), partitions=2)
    produce_n(bs, topic, {0: 3, 1: 2})
    made = {
        "classic": unique("list-classic"),
        "consumer": unique("list-consumer"),
        "simple": unique("list-simple"),
    }
    assert consume_and_commit(bs, made["classic"], [topic], expected=5, protocol="classic") == 5
    assert consume_and_commit(bs, made["consumer"], [topic], expected=5, protocol="consumer") == 5
    commit_offsets(bs, made["simple"], {(topic, 0): 1})
    return {"topic": topic, **made}


def _cg(runner, bs, *args):
    return runner("kafka-consumer-groups", "--bootstrap-server", bs, *args)


@pytest.mark.smoke
def test_list_matches_the_apache_tool(broker, groups, apache, ours):
    theirs = _cg(apache, broker.bootstrap, "--list")
    mine = _cg(ours, broker.bootstrap, "--list")
    assert theirs.returncode == 0, theirs.stderr
    assert mine.returncode == 0, mine.stderr
    for name in ("classic", "consumer", "simple"):
        assert groups[name] in mine.stdout.splitlines()
    assert mine.stdout == theirs.stdout


@pytest.mark.parametrize(
    "filters",
    [
        ["--state"],
        ["--type"],
        ["--state", "--type"],
        ["--type", "classic"],
        ["--type", "consumer"],
        ["--state", "empty"],
        ["--state", "Stable,Empty", "--type", "consumer,classic"],
    ],
)
def test_list_filters_match_the_apache_tool(broker, groups, apache, ours, filters):
    theirs = _cg(apache, broker.bootstrap, "--list", *filters)
    mine = _cg(ours, broker.bootstrap, "--list", *filters)
    assert theirs.returncode == 0, theirs.stderr
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout == theirs.stdout


def test_list_shows_types_and_states(broker, groups, ours):
    doc = json.loads(_cg(ours, broker.bootstrap, "--list", "--output", "json").stdout)
    by_id = {g["group"]: g for g in doc["groups"]}
    assert by_id[groups["classic"]] == {"group": groups["classic"], "type": "Classic", "state": "Empty"}
    assert by_id[groups["consumer"]] == {"group": groups["consumer"], "type": "Consumer", "state": "Empty"}
    assert by_id[groups["simple"]]["type"] == "Classic"


def test_state_filter_follows_a_live_group(broker, groups, ours):
    bs = broker.bootstrap
    group = unique("list-live")
    with ActiveConsumer(bs, group, [groups["topic"]], protocol="consumer"):
        stable = ours("kafka-consumer-groups", "list", "--bootstrap-server", bs, "--state", "stable")
        assert stable.returncode == 0, stable.stderr
        assert group in stable.stdout
    empty = _cg(ours, bs, "--list", "--state", "stable").stdout
    assert group not in empty


def test_subcommand_form_equals_flag_form(broker, groups, ours):
    flag = _cg(ours, broker.bootstrap, "--list", "--state", "--type")
    sub = ours(
        "kafka-consumer-groups", "list", "--bootstrap-server", broker.bootstrap, "--show-state", "--show-type"
    )
    assert sub.returncode == 0
    assert sub.stdout == flag.stdout


def test_invalid_state_is_a_usage_error_before_connecting(broker, ours):
    result = _cg(ours, broker.bootstrap, "--list", "--state", "bogus")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("Error: Invalid state list 'bogus'. Valid states are: ")
