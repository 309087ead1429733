"""Empty and blank selectors on the real broker, beside the Apache tool.

Read-only commands do what the Apache tool does (an empty ``--topic`` regex matches no topic).
Commands that write refuse an empty or blank selector with exit 2 and one line on stderr, and
the cluster is left exactly as it was: no topic deleted or grown, no offset moved.
"""

from __future__ import annotations

import pytest

from tests.kafka_helpers import admin, commit_offsets, committed, create_topic, produce_n, unique

pytestmark = pytest.mark.kafka


def _layout(bs: str) -> dict[str, int]:
    """Every topic and its partition count."""
    return {name: len(t.partitions) for name, t in admin(bs).list_topics(timeout=10).topics.items()}


@pytest.fixture(scope="module")
def cluster_state(broker):
    bs = broker.bootstrap
    prefix = unique("empty-sel")
    topics = [create_topic(bs, f"{prefix}-{n}", partitions=2) for n in ("a", "b")]
    for topic in topics:
        produce_n(bs, topic, {0: 3, 1: 3})
    group = f"{prefix}-g"
    commit_offsets(bs, group, {(topics[0], 0): 2, (topics[0], 1): 1, (topics[1], 0): 3})
    return bs, topics, group


@pytest.mark.parametrize(
    "args",
    [
        ["--list", "--topic", ""],
        ["--list", "--topic", " "],
        ["--list", "--topic", ","],
        ["--list", "--topic", "", "--exclude-internal"],
        ["--describe", "--topic", ""],
        ["--describe", "--topic", " "],
        ["--describe", "--topic", "", "--exclude-internal"],
    ],
)
def test_read_only_topic_commands_match_the_apache_tool(cluster_state, apache, ours, args):
    bs, _, _ = cluster_state
    theirs = apache("kafka-topics", "--bootstrap-server", bs, *args)
    mine = ours("kafka-topics", "--bootstrap-server", bs, *args)
    assert mine.returncode == theirs.returncode
    if mine.returncode:
        # The Apache tool prints its error on stdout; ours prints the same line on stderr.
        assert (mine.stdout, mine.stderr) == ("", theirs.stdout)
    else:
        assert (mine.stdout, mine.stderr) == (theirs.stdout, "")


@pytest.mark.parametrize(
    "args",
    [
        ["--delete", "--topic", ""],
        ["--delete", "--topic", "", "--if-exists"],
        ["--delete", "--topic", " "],
        ["--delete", "--topic", ","],
        ["--alter", "--topic", "", "--partitions", "5"],
    ],
)
def test_topic_writes_refuse_a_topic_that_names_nothing(cluster_state, apache, ours, args):
    bs, topics, _ = cluster_state
    before = _layout(bs)
    # The Apache tool changes nothing either (it exits 0 for '' and 1 for the others).
    theirs = apache("kafka-topics", "--bootstrap-server", bs, *args)
    assert theirs.returncode in (0, 1)
    assert _layout(bs) == before
    mine = ours("kafka-topics", "--bootstrap-server", bs, *args)
    assert mine.returncode == 2, mine.stderr
    assert mine.stdout == ""
    assert mine.stderr.count("\n") == 1 and "names no topic" in mine.stderr
    assert _layout(bs) == before
    assert all(before[t] == 2 for t in topics)


def test_topic_writes_refuse_in_the_subcommand_form(cluster_state, ours):
    bs, _, _ = cluster_state
    before = _layout(bs)
    for args in (
        ["delete", "--bootstrap-server", bs, "--topic", ""],
        ["alter", "--bootstrap-server", bs, "--topic", " ", "--partitions", "5", "--dry-run"],
    ):
        mine = ours("kafka-topics", *args)
        assert mine.returncode == 2, mine.stderr
        assert "names no topic" in mine.stderr
    assert _layout(bs) == before


@pytest.mark.parametrize(
    "args",
    [
        ["--delete", "--group", ""],
        ["--delete", "--group", "GROUP", "--group", " "],
        ["--reset-offsets", "--group", "", "--all-topics", "--to-earliest", "--execute"],
        ["--reset-offsets", "--group", "GROUP", "--topic", "", "--to-earliest", "--execute"],
        ["--reset-offsets", "--group", "GROUP", "--topic", ":0", "--to-earliest", "--execute"],
        [
            "--reset-offsets",
            "--group",
            "GROUP",
            "--topic",
            "TOPIC",
            "--topic",
            " ",
            "--to-latest",
            "--execute",
        ],
        ["--delete-offsets", "--group", "GROUP", "--topic", ""],
        ["--delete-offsets", "--group", "", "--topic", "TOPIC"],
        ["delete-offsets", "--group", "GROUP", "--topic", ":1"],
        ["reset-offsets", "--group", "GROUP", "--topic", "\t", "--to-earliest", "--execute"],
    ],
)
def test_group_writes_refuse_an_empty_selector(cluster_state, ours, args):
    bs, topics, group = cluster_state
    argv = [a.replace("GROUP", group).replace("TOPIC", topics[0]) for a in args]
    if argv[0].startswith("--"):
        argv = ["--bootstrap-server", bs, *argv]
    else:
        argv = [argv[0], "--bootstrap-server", bs, *argv[1:]]
    before = committed(bs, group)
    mine = ours("kafka-consumer-groups", *argv)
    assert mine.returncode == 2, mine.stderr
    assert mine.stderr.count("\n") == 1 and "never means every" in mine.stderr
    assert committed(bs, group) == before
    assert set(_layout(bs)) >= set(topics)


def test_an_empty_state_filter_lists_as_the_apache_tool_does(cluster_state, apache, ours):
    # --list --state '' is read-only: both tools list every group with its state.
    bs, _, group = cluster_state
    theirs = apache("kafka-consumer-groups", "--bootstrap-server", bs, "--list", "--state", "")
    mine = ours("kafka-consumer-groups", "--bootstrap-server", bs, "--list", "--state", "")
    assert mine.returncode == 0
    assert f"\n{group} " in mine.stdout
    assert sorted(mine.stdout.splitlines()) == sorted(theirs.stdout.splitlines())
