"""The leaders of a reset of many partitions, without a broker: a topic's DescribeTopicPartitions
pages, asked a window at a time, read every partition once whatever the topic's size and the
broker's page size, in far fewer rounds than one page after another. (The reset's ListOffsets and
TxnOffsetCommit bodies are held to kafka-python's bytes in tests/unit/test_partition_answers.py.)"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_groups.access import protocol_layer
from kafka_groups.access.cluster import KafkaAccess
from kafka_groups.access.partition_reads import PAGES_AT_ONCE, PAGES_IN_FLIGHT
from kafka_groups.settings import ConnectionSettings

protocol_layer.prepare_messages()


class Done:
    """A request's answer, already there (awaiting it does not suspend)."""

    def __init__(self, value):
        self.value = value

    def __await__(self):
        return self.value
        yield  # pragma: no cover - makes this a generator


class PagingBroker:
    """Answers DescribeTopicPartitions as a broker does: from the cursor's partition (0 without
    one), at most ``limit`` partitions, and a next cursor when partitions remain; a cursor past
    the last partition answers none. Records each request's cursor, and the most requests that
    were sent without an answer having been taken."""

    def __init__(self, sizes: dict[str, int], limit: int):
        self.sizes, self.limit = sizes, limit
        self.starts: list[tuple[str, int]] = []
        self.outstanding = self.most_outstanding = 0

    def send(self, request, node_id=None):
        name = request.topics[0].name
        start = request.cursor.partition_index if request.cursor is not None else 0
        self.starts.append((name, start))
        self.outstanding += 1
        self.most_outstanding = max(self.most_outstanding, self.outstanding)
        size = self.sizes.get(name)
        # answered as access/partition_answers.py decodes the answer (its own test holds that
        # decoding to kafka-python's)
        if size is None:
            topics = [SimpleNamespace(name=name, error_code=3, partitions=[], leaders=[])]
            return self._answer(topics, None)
        end = min(size, start + self.limit)
        partitions = list(range(start, end))
        cursor = (name, end) if end < size else None
        topic = SimpleNamespace(
            name=name, error_code=0, partitions=partitions, leaders=[p % 3 for p in partitions]
        )
        return self._answer([topic], cursor)

    def _answer(self, topics, cursor):
        broker = self

        class Answer:
            def __await__(self):
                broker.outstanding -= 1
                return SimpleNamespace(topics=topics, next_cursor=cursor)
                yield  # pragma: no cover

        return Answer()


def _leaders(sizes: dict[str, int], limit: int):
    broker = PagingBroker(sizes, limit)
    access = KafkaAccess(ConnectionSettings("127.0.0.1:9", 1000))
    access.__dict__["_protocol"] = SimpleNamespace(manager=broker)
    coro = access._leaders([*sorted(sizes), "missing"])
    with pytest.raises(StopIteration) as done:
        coro.send(None)
    return done.value.value, broker


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), st.integers(0, 12_000), max_size=4),
    st.sampled_from([7, 500, 2000]),
)
def test_paged_leaders_read_every_partition_once_in_few_rounds(sizes, limit):
    tables, broker = _leaders(sizes, limit)
    assert set(tables) == set(sizes)  # a topic of no partitions too; no missing one
    for name, table in tables.items():
        assert [table[p] for p in range(sizes[name])] == [p % 3 for p in range(sizes[name])]
    assert broker.most_outstanding <= PAGES_IN_FLIGHT
    for name, size in sizes.items():
        pages = -(-size // limit)
        asked = [start for topic, start in broker.starts if topic == name]
        assert len(asked) == len(set(asked))  # no page asked twice
        # the first page, then windows: at most a window's worth of pages past the end
        assert len(asked) <= max(pages, 1) + PAGES_AT_ONCE


def test_a_topic_of_30000_partitions_takes_two_rounds_not_fifteen():
    _tables, broker = _leaders({"huge": 30_000}, 2000)
    starts = [start for topic, start in broker.starts if topic == "huge"]
    # round one: page 0; two: the window after it, which reaches past the last partition
    assert starts == [2000 * k for k in range(1 + PAGES_AT_ONCE)]
    assert 2000 * (1 + PAGES_AT_ONCE) >= 30_000


def test_a_broker_that_pages_fewer_than_the_first_page_is_followed_by_its_cursor():
    """A page cut short (another broker of the cluster with a lower page limit) is followed to
    where the next page of the window starts."""

    class Uneven(PagingBroker):
        def send(self, request, node_id=None):
            self.limit = 2000 if request.cursor is None else 500
            return super().send(request, node_id)

    broker = Uneven({"huge": 9000}, 2000)
    access = KafkaAccess(ConnectionSettings("127.0.0.1:9", 1000))
    access.__dict__["_protocol"] = SimpleNamespace(manager=broker)
    coro = access._leaders(["huge"])
    with pytest.raises(StopIteration) as done:
        coro.send(None)
    table = done.value.value["huge"]
    assert [table[p] for p in range(9000)] == [p % 3 for p in range(9000)]
