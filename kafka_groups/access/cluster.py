"""The only code that talks to Kafka: ``KafkaAccess``, one object per command.

Each concern is a room of its own: topics.py, groups.py, streams.py, offsets.py (reads) and
commits.py (writes), all on the clients of connection.py (one AdminClient; the protocol layer
opened only by the calls confluent-kafka lacks, whose shared steps are protocol_calls.py);
transactions.py commits the offsets of a reset too large for one OffsetCommit; decode.py turns
protocol responses into the core dataclasses and naming.py words what a failure lacks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_groups.access.commits import COMMIT_THROUGH_PROTOCOL_ABOVE, CommitsAccess
from kafka_groups.access.decode import _consumer_group, _partition_states, _streams_group
from kafka_groups.access.offsets import OffsetsAccess
from kafka_groups.access.partition_reads import PartitionReads
from kafka_groups.access.streams import StreamsAccess
from kafka_groups.access.transactions import TransactionsAccess

if TYPE_CHECKING:
    from kafka_groups.core.describe import TopicPartition

__all__ = [
    "COMMIT_THROUGH_PROTOCOL_ABOVE",
    "KafkaAccess",
    "_consumer_group",
    "_partition_states",
    "_streams_group",
]


class KafkaAccess(PartitionReads, StreamsAccess, OffsetsAccess, CommitsAccess, TransactionsAccess):
    """Batched reads and writes against one cluster."""

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
