"""Empty and blank selectors: pure checks, and every tool refusing them in both forms before
anything is contacted."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.cli import consumer_groups, streams_groups
from kafka_groups.core.reset import parse_topic_arg
from kafka_groups.core.selectors import (
    check_groups,
    check_names,
    check_topic_args,
    check_topic_regex,
    is_blank,
    topic_regex_names_nothing,
)
from kafka_groups.errors import ExitCode, UsageError
from kafka_topics import cli as topics_cli
from kafka_topics.core import INTERNAL_TOPICS, select_topics

BLANKS = ["", " ", "\t", "\n", "  \t ", "\u00a0", "\u3000"]
# Topic names as Kafka allows them (never empty).
topic_names = st.text(alphabet="abcxyz._-09", min_size=1, max_size=12)
blank = st.sampled_from(BLANKS)
nonblank = st.text(min_size=1).filter(lambda s: s.strip() != "")


# -- kafka-topics --topic ------------------------------------------------------------------
@given(st.lists(topic_names, max_size=8), st.sampled_from(["", " ", ",", " , ", '""', "''", "|", ",,"]))
def test_a_topic_regex_naming_nothing_selects_no_topic(names, raw):
    assert topic_regex_names_nothing(raw)
    assert select_topics(names, raw, exclude_internal=False) == ()
    assert select_topics([*names, *INTERNAL_TOPICS], raw, exclude_internal=True) == ()


@given(st.lists(topic_names, max_size=8), st.booleans())
def test_no_topic_option_selects_every_topic(names, exclude_internal):
    # The one way to select everything is to give no --topic at all.
    assert select_topics(names, None, exclude_internal) == tuple(sorted(names))


@given(st.lists(topic_names, min_size=1, max_size=8))
def test_a_named_topic_selects_only_itself(names):
    wanted = names[0]
    chosen = select_topics(names, wanted.replace(".", r"\."), exclude_internal=False)
    assert chosen == (wanted,) * names.count(wanted)


@given(st.text(max_size=6))
def test_names_nothing_means_it_matches_no_name(raw):
    # Whatever names nothing (by the Apache reading) can match no non-empty topic name.
    if topic_regex_names_nothing(raw):
        assert select_topics(["a", "b.c", "__consumer_offsets"], raw, exclude_internal=False) == ()


@pytest.mark.parametrize("raw", ["a,", ",a", "a|", ".*", "a b"])
def test_a_regex_with_one_real_alternative_is_accepted(raw):
    assert not topic_regex_names_nothing(raw)
    check_topic_regex(raw, "delete")


@pytest.mark.parametrize(
    ("raw", "words"),
    [("", "'' is empty"), (" ", "' ' is blank"), (",", "',' has only empty alternatives")],
)
def test_alter_and_delete_refuse_a_regex_naming_nothing(raw, words):
    with pytest.raises(UsageError) as info:
        check_topic_regex(raw, "delete")
    assert info.value.message == (
        f"--topic {words}: it names no topic to delete (an empty value never means every topic)"
    )


# -- group names and topic scopes -------------------------------------------------------------
@given(st.lists(nonblank, max_size=4), blank, st.integers(min_value=0, max_value=4))
def test_one_blank_group_among_good_ones_is_refused(good, bad, at):
    groups = [*good[:at], bad, *good[at:]]
    with pytest.raises(UsageError) as info:
        check_groups(groups)
    assert info.value.exit_code == ExitCode.USAGE
    assert info.value.message.startswith(f"--group {bad!r} is ")
    assert "\n" not in info.value.message


@given(st.lists(nonblank, max_size=4))
def test_named_groups_pass(groups):
    check_groups(groups)
    check_names(groups, "--delete-internal-topic", "topic")


@given(blank, st.sampled_from(["", ":0", ":0,1", ":"]))
def test_a_scope_without_a_topic_is_refused(topic, partitions):
    with pytest.raises(UsageError, match="never means every topic"):
        check_topic_args(["orders", f"{topic}{partitions}"], "--input-topic")


@given(nonblank.filter(lambda s: ":" not in s), st.sampled_from(["", ":0", ":0,1"]))
def test_a_scope_with_a_topic_passes(topic, partitions):
    check_topic_args([f"{topic}{partitions}"])


@given(st.text())
def test_blank_is_what_strip_leaves_empty(value):
    assert is_blank(value) == (value.strip() == "")


# -- the tools, both forms: refused before anything is contacted -----------------------------
B = ["--bootstrap-server", "127.0.0.1:9"]
REFUSED = [
    (topics_cli.main, [*B, "--delete", "--topic", ""]),
    (topics_cli.main, [*B, "--delete", "--topic", " ", "--if-exists"]),
    (topics_cli.main, [*B, "--alter", "--topic", "", "--partitions", "2", "--dry-run"]),
    (topics_cli.main, [*B, "--alter", "--topic", ",", "--partitions", "2"]),
    (topics_cli.main, ["delete", *B, "--topic", ""]),
    (topics_cli.main, ["alter", *B, "--topic", "\t", "--partitions", "2"]),
    (consumer_groups.main, [*B, "--describe", "--group", ""]),
    (consumer_groups.main, [*B, "--describe", "--group", "g", "--group", " "]),
    (consumer_groups.main, [*B, "--delete", "--group", ""]),
    (consumer_groups.main, [*B, "--reset-offsets", "--group", "", "--all-topics", "--to-earliest"]),
    (consumer_groups.main, [*B, "--reset-offsets", "--group", "g", "--topic", "", "--to-earliest"]),
    (
        consumer_groups.main,
        [*B, "--reset-offsets", "--group", "g", "--topic", ":0", "--to-latest", "--execute"],
    ),
    (consumer_groups.main, [*B, "--delete-offsets", "--group", "g", "--topic", " "]),
    (consumer_groups.main, [*B, "--delete-offsets", "--group", "", "--topic", "t"]),
    (consumer_groups.main, ["describe", *B, "--group", ""]),
    (consumer_groups.main, ["delete", *B, "--group", " "]),
    (consumer_groups.main, ["reset-offsets", *B, "--group", "g", "--topic", ":1", "--to-earliest"]),
    (consumer_groups.main, ["delete-offsets", *B, "--group", "", "--topic", "t"]),
    (consumer_groups.main, ["delete-offsets", *B, "--group", "g", "--topic", ""]),
    (streams_groups.main, [*B, "--describe", "--group", ""]),
    (streams_groups.main, [*B, "--delete", "--group", ""]),
    (
        streams_groups.main,
        [*B, "--reset-offsets", "--group", "a", "--input-topic", "", "--to-earliest", "--dry-run"],
    ),
    (
        streams_groups.main,
        [
            *B,
            "--reset-offsets",
            "--group",
            "a",
            "--all-input-topics",
            "--to-earliest",
            "--execute",
            "--delete-internal-topic",
            "",
        ],
    ),
    (streams_groups.main, [*B, "--delete-offsets", "--group", "a", "--input-topic", ":0"]),
    (streams_groups.main, ["describe", *B, "--group", " "]),
    (streams_groups.main, ["delete", *B, "--group", ""]),
    (streams_groups.main, ["reset-offsets", *B, "--group", "", "--all-input-topics", "--to-earliest"]),
    (
        streams_groups.main,
        [
            "reset-offsets",
            *B,
            "--group",
            "a",
            "--all-input-topics",
            "--to-earliest",
            "--execute",
            "--delete-internal-topic",
            " ",
        ],
    ),
    (streams_groups.main, ["delete-offsets", *B, "--group", "a", "--input-topic", ""]),
]


@pytest.fixture
def no_cluster(monkeypatch):
    """Any attempt to reach a cluster fails the test."""
    from kafka_groups.access import cluster

    def refuse(*_args, **_kwargs):
        raise AssertionError("a cluster was contacted")

    monkeypatch.setattr(cluster.KafkaAccess, "__init__", refuse)


@pytest.mark.parametrize(("main", "argv"), REFUSED)
def test_the_tools_refuse_an_empty_selector_before_connecting(main, argv, no_cluster, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    out, err = capsys.readouterr()
    assert info.value.code == ExitCode.USAGE, err
    assert out == ""
    assert err.count("\n") == 1
    assert "never means every" in err


@pytest.mark.parametrize("arg", ["t:,", "t:,,", ":", "t:"])
def test_a_partition_list_naming_no_partition_is_refused(arg):
    # Never "every partition of t": an empty list is a usage error.
    with pytest.raises(UsageError):
        parse_topic_arg(arg)
