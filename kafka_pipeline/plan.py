"""What one landing run does on each partition: pure decisions on plain data.

The sink holds, per partition, published offset ranges ``[start, end)``. The consumer group
holds the next offset to land. The pipeline marks its own commits with metadata naming the
offset (:func:`own_metadata`), which tells its own progress apart from an operator's reset:

- the group's offset is the pipeline's own commit: ranges published from there on were landed
  by a run that stopped before committing. They are kept, and landing resumes after them
  (nothing is read twice, nothing is skipped);
- otherwise (a ``--reset-offsets``, a first run, an offset the policy chose because the committed
  one left the log): the run lands from that offset, and the published ranges at or after it are
  superseded (moved aside); a range that straddles it is cut back to end there. The sink then
  never holds an offset twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_groups.core.policy import Policy, Start

OWN_PREFIX = "kafka-to-parquet:"
# Added to the pipeline's commits when its policy starts partitions created after the group at
# their beginning, so that `kafka-topics --alter --partitions` can tell the group is safe.
NEW_FROM_START = "new-partitions=beginning"


def own_metadata(offset: int, new_from_start: bool = False) -> str:
    return f"{OWN_PREFIX}{offset}" + (f";{NEW_FROM_START}" if new_from_start else "")


def own_offset(metadata: str) -> int | None:
    """The offset a commit of the pipeline names; None for any other commit."""
    if not metadata.startswith(OWN_PREFIX):
        return None
    head = metadata[len(OWN_PREFIX) :].split(";")[0]
    return int(head) if head.isascii() and head.isdigit() else None


def starts_new_partitions_at_beginning(metadata: str) -> bool:
    """A commit of the pipeline whose policy lands every record of a partition added later."""
    return own_offset(metadata) is not None and NEW_FROM_START in metadata.split(";")[1:]


def policy_starts_new_partitions_at_beginning(policy: Policy) -> bool:
    """``earliest`` (and ``earliest_on_start``) start a partition without a committed offset at its
    log start; ``to_start_time`` at the group's start, before any record of a partition added since.
    ``latest`` with a max age and ``by_duration`` do so only while the partition is young enough."""
    return policy.start in (Start.EARLIEST, Start.EARLIEST_ON_START, Start.TO_START_TIME)


@dataclass(frozen=True, order=True)
class Range:
    """A published range of one partition: offsets ``start`` to ``end`` (exclusive)."""

    start: int
    end: int


@dataclass(frozen=True)
class PartitionPlan:
    start: int  # the first offset this run lands
    end: int  # the log end: the offset committed when the run is done
    resumed: bool  # ranges a stopped run published were adopted
    supersede: tuple[Range, ...] = ()  # published ranges to move aside
    trim: Range | None = None  # a published range to cut back to end at ``start``

    @property
    def lands(self) -> bool:
        return self.start < self.end


def plan_partition(
    committed: tuple[int, str] | None, start: int, published: list[Range], log_end: int
) -> PartitionPlan:
    """``committed``: the group's (offset, metadata) or None; ``start``: where the policy says
    this partition starts (the committed offset when that is valid); ``published``: the ranges
    in the sink."""
    ordered = sorted(published)
    own = committed is not None and committed[0] == start and own_offset(committed[1]) == start
    position, resumed = start, False
    if own:
        for published_range in ordered:
            if published_range.start == position and published_range.end > position:
                position, resumed = published_range.end, True
    supersede = tuple(r for r in ordered if r.start >= position)
    straddling = [r for r in ordered if r.start < position < r.end]
    return PartitionPlan(
        start=position,
        end=max(position, log_end),
        resumed=resumed,
        supersede=supersede,
        trim=straddling[0] if straddling else None,
    )
