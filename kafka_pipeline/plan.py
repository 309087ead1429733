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

OWN_PREFIX = "kafka-to-parquet:"


def own_metadata(offset: int) -> str:
    return f"{OWN_PREFIX}{offset}"


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
    own = committed is not None and committed[0] == start and committed[1] == own_metadata(start)
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
