"""The only code that talks to Kafka: ``KafkaAccess``, one object per command.

Each concern is a room of its own: topics.py, groups.py, streams.py, offsets.py (reads) and
commits.py (writes), all on the clients of connection.py (one AdminClient; the protocol layer
opened only by the calls confluent-kafka lacks, whose shared steps are protocol_calls.py);
transactions.py commits the offsets of a reset too large for one OffsetCommit; decode.py turns
protocol responses into the core dataclasses and naming.py words what a failure lacks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kafka_groups.access.commits import COMMIT_THROUGH_PROTOCOL_ABOVE, CommitsAccess
from kafka_groups.access.decode import _consumer_group, _partition_states, _streams_group
from kafka_groups.access.offsets import OffsetsAccess
from kafka_groups.access.partition_reads import BULK_OFFSETS_ABOVE, PartitionReads
from kafka_groups.access.streams import StreamsAccess
from kafka_groups.access.transactions import TransactionsAccess

if TYPE_CHECKING:
    from kafka_groups.core.describe import Committed, GroupDescription, TopicPartition

__all__ = [
    "COMMIT_THROUGH_PROTOCOL_ABOVE",
    "KafkaAccess",
    "_consumer_group",
    "_partition_states",
    "_streams_group",
]


class KafkaAccess(PartitionReads, StreamsAccess, OffsetsAccess, CommitsAccess, TransactionsAccess):
    """Batched reads and writes against one cluster."""

    def log_offsets_bulk(
        self,
        partitions: set[TopicPartition],
        earliest: bool = False,
        latest: bool = True,
        leaders: Mapping[str, Mapping[int, int]] | None = None,
    ) -> tuple[Mapping[TopicPartition, int | None], Mapping[TopicPartition, int | None]]:
        """What :meth:`~kafka_groups.access.offsets.OffsetsAccess.log_offsets` answers, for any
        number of partitions: up to ``BULK_OFFSETS_ABOVE`` (access/partition_reads.py) through
        the AdminClient, as there; beyond, through the protocol layer into compact tables (the
        leaders read with DescribeTopicPartitions, or taken from ``leaders``), so that
        librdkafka never holds the metadata of a topic of thousands of partitions (about 2 KB a
        partition, for the rest of the session). A partition that does not exist is absent
        from the answer, or None in it: either way ``.get`` gives None for it."""
        if len(partitions) <= BULK_OFFSETS_ABOVE:
            return self.log_offsets(partitions, earliest=earliest, latest=latest)
        if leaders is None:
            leaders = self.partition_leaders({t for t, _ in partitions})
        by_topic: dict[str, list[int]] = {}
        for topic, partition in partitions:
            by_topic.setdefault(topic, []).append(partition)
        present: list[TopicPartition] = []
        for topic in sorted(by_topic):
            table = leaders.get(topic)
            if table is not None:
                count = len(table)  # a topic's partitions are 0 to n-1
                present.extend((topic, p) for p in sorted(by_topic[topic]) if 0 <= p < count)
        return self.log_offsets_of(present, leaders, earliest=earliest, latest=latest)

    def committed_offsets_on(self, topics: set[str]) -> dict[str, tuple[str, list[TopicPartition]]]:
        """Every consumer group with committed offsets on ``topics``: its state and those partitions."""
        from kafka_groups.core.groups import CONSUMER_GROUP_TYPES, select_consumer_groups

        listed = self.list_groups(frozenset(CONSUMER_GROUP_TYPES))
        groups = {g.group_id: g.state for g in select_consumer_groups(listed, frozenset(), frozenset())}
        if not groups:
            return {}
        offsets = self.committed_offsets(list(groups))
        found = {}
        for group, held in offsets.items():
            on = [tp for tp in held if tp[0] in topics]
            if on:
                found[group] = (groups[group], on)
        return found

    def described_with_offsets(
        self, group_ids: list[str]
    ) -> tuple[dict[str, GroupDescription], list[str], dict[str, Mapping[TopicPartition, Committed]]]:
        """The plain ``describe_groups`` of the groups and the committed offsets of those found,
        as ``committed_offsets`` reads them. Of many groups (more than ``FEW_GROUPS``, described
        through the protocol layer), each batch's OffsetFetch goes out with its describe
        instead of after its answer: one wait fewer for each batch (a describe of 10,000 groups
        waits for 20 batches of each). Returns the descriptions, the missing groups in the order
        asked, and the found groups' offsets."""
        from kafka_groups.access.groups import FEW_GROUPS, _plain
        from kafka_groups.access.offsets import _committed

        if len(set(group_ids)) <= FEW_GROUPS:
            few, gone = self.describe_groups(group_ids, offsets_next=True)
            return few, gone, self.committed_offsets(list(few))

        found: dict[str, GroupDescription] = {}
        missing: list[str] = []
        fetched = {}
        for (described, gone), offsets in self._read_groups(
            "describing groups", self._describe_and_fetch, group_ids
        ):
            found.update(described)
            missing.extend(gone)
            fetched.update(offsets)
        order = {g: i for i, g in enumerate(dict.fromkeys(group_ids))}
        missing.sort(key=order.__getitem__)
        committed = _committed({g: rows for g, rows in fetched.items() if g in found})
        return {g: _plain(d) for g, d in found.items()}, missing, committed

    async def _describe_and_fetch(self, group_ids: list[str]) -> tuple[Any, Any]:
        """The describe and the OffsetFetch of one batch, both in flight together (the second
        a task of the protocol layer's loop, awaited once the first is answered)."""
        fetching = self._protocol._net.call_soon_with_future(self._offset_fetch, group_ids)
        described = await self._describe_groups(group_ids)
        return described, await fetching
