import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.errors import CliError
from kafka_topics.core import INTERNAL_TOPICS, refuse_internal, select_topics

NAMES = ["orders", "kafka.testTopic1", "oooof.testTopic1", "__consumer_offsets", "testXtopic", "test.topic"]


def test_sorted_and_internal_included_by_default():
    assert select_topics(NAMES, None, False)[0] == "__consumer_offsets"
    assert list(select_topics(NAMES, None, False)) == sorted(NAMES)


def test_exclude_internal():
    assert "__consumer_offsets" not in select_topics(NAMES, None, True)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("kafka.*", ["kafka.testTopic1"]),
        ("test.topic", ["test.topic", "testXtopic"]),
        ("test\\.topic", ["test.topic"]),
        (" orders , testXtopic ", ["orders", "testXtopic"]),
        ("'orders'", ["orders"]),
        ("order", []),
    ],
)
def test_topic_filter_matches_whole_names(pattern, expected):
    assert list(select_topics(NAMES, pattern, False)) == expected


def test_invalid_regex():
    with pytest.raises(CliError, match=r"\[bad is an invalid regex."):
        select_topics(NAMES, "[bad", False)


@given(st.lists(st.sampled_from(["orders", "audit", *sorted(INTERNAL_TOPICS)]), unique=True))
def test_alter_and_delete_refuse_exactly_the_selections_with_an_internal_topic(names):
    internal = [n for n in names if n in INTERNAL_TOPICS]
    if not internal:
        refuse_internal(names, ".*", "delete")  # nothing internal: allowed
        return
    with pytest.raises(CliError) as info:
        refuse_internal(names, ".*", "delete")
    assert all(n in info.value.message for n in internal)
    assert "nothing was changed" in info.value.message
