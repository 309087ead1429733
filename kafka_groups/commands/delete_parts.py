"""Deleting more offsets than one batch of ``__consumer_offsets`` holds.

The group coordinator writes an OffsetDelete, and a DeleteGroups with all the group's offsets,
as one batch of tombstones, all or nothing: one larger than the topic's ``max.message.bytes``
fails whole with UNKNOWN_SERVER_ERROR (measured on Kafka 4.3.1 with the limit at 20,000 bytes:
600 tombstones went through, 1,000 did not, for OffsetDelete and DeleteGroups alike). There is
no transaction for tombstones, so such a delete goes out in parts of one batch each, in order:
``--delete-offsets`` as several OffsetDeletes, ``--delete`` of such a group as its offsets in
OffsetDeletes and then the DeleteGroups of what is left. Each part is all or nothing; the
parts together are not. The report says, per partition or per group, what was deleted (after
a lost answer, as read back), and the backup holds everything that was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafka_groups.commands.guard import fault_point
from kafka_groups.core.commit_batches import (
    DEFAULT_MAX_MESSAGE_BYTES,
    chunks,
    fits,
    group_records,
    tombstone_records,
)
from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.kafka_errors import KafkaErrorInfo
from kafka_groups.errors import CliError

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess

# Under this many bytes a delete fits one batch under any limit a cluster sets: the limit is
# not read (a delete of up to about 400 offsets asks nothing more).
SURELY_FITS = 16_384


@dataclass
class Limit:
    """The offsets topic's max.message.bytes, read once when first needed."""

    access: KafkaAccess
    value: int | None = None

    def get(self) -> int:
        if self.value is None:
            self.value = self.access.offsets_topic_limit() or DEFAULT_MAX_MESSAGE_BYTES
        return self.value


def offset_parts(limit: Limit, group: str, partitions: list[TopicPartition]) -> list[list[TopicPartition]]:
    """The OffsetDeletes that delete ``partitions``: one, unless its tombstones are more than
    one batch holds."""
    records = list(tombstone_records(group, partitions))
    if fits(records, SURELY_FITS) or fits(records, limit.get()):
        return [partitions]
    return chunks(records, limit.get())


def group_fits(limit: Limit, group: str, partitions: list[TopicPartition]) -> bool:
    """Whether one DeleteGroups removes the group with all its offsets in one batch."""
    records = list(tombstone_records(group, partitions))
    reserve = group_records(group)
    return fits(records, SURELY_FITS, reserve) or fits(records, limit.get(), reserve)


@dataclass
class PartsDeleted:
    """What the parts of one group's offset deletion answered."""

    top: KafkaErrorInfo | None = None  # a group-level error: no part was deleted
    answers: dict[TopicPartition, KafkaErrorInfo | None] = field(default_factory=dict)
    doubtful: list[TopicPartition] = field(default_factory=list)  # the part whose answer was lost
    unsent: list[TopicPartition] = field(default_factory=list)  # the parts after a failed one
    error: str | None = None  # why the doubtful part has no answer
    parts: int = 0

    @property
    def complete(self) -> bool:
        return self.top is None and not self.doubtful and not self.unsent

    def stopped_at(self) -> str:
        """Which part stopped the deletion, and why, for the notes."""
        return self.error or "a part was refused"


def delete_in_parts(access: KafkaAccess, group: str, parts: list[list[TopicPartition]]) -> PartsDeleted:
    """OffsetDelete of each part in order, with the write guard's ``between-chunks`` fault
    point between them. A group-level error (no such group, members) stops at the first part
    and stands for every partition; a part refused for some partitions goes on to the next (as
    one request would have answered them); a part whose answer is lost stops the deletion, its
    partitions in doubt and the later ones unsent."""
    done = PartsDeleted(parts=len(parts))
    for number, part in enumerate(parts):
        if number:
            fault_point("between-chunks")
        try:
            top, answers = access.delete_offsets(group, part)
        except CliError as exc:
            done.doubtful = list(part)
            done.unsent = [tp for later in parts[number + 1 :] for tp in later]
            done.error = f"part {number + 1} of {len(parts)}: {exc.message}"
            return done
        if top is not None:
            if number == 0:
                done.top = top
                done.answers = dict.fromkeys((tp for p in parts for tp in p), top)
                return done
            done.answers.update(dict.fromkeys(part, top))
            done.unsent = [tp for later in parts[number + 1 :] for tp in later]
            done.error = f"part {number + 1} of {len(parts)} was refused: {top.name}"
            return done
        done.answers.update(answers)
    return done
