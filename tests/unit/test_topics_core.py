import pytest

from kafka_groups.errors import CliError
from kafka_topics.core import select_topics

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
