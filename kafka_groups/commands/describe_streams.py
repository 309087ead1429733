"""``kafka-streams-groups --describe``: the offsets (default), members and state views."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_groups.commands.select import streams_group_ids
from kafka_groups.commands.session import describing
from kafka_groups.core.group_select import GroupSelection
from kafka_groups.core.streams import (
    DescribedStreamsGroup,
    StreamsDescribeResult,
    UnknownSubtopology,
    active_partitions,
    offset_rows,
    shows_rows,
)
from kafka_groups.errors import ClusterError, NotFoundError, PartialFailure, UsageError
from kafka_groups.render import OutputFormat
from kafka_groups.render.outcome import Outcome, Show
from kafka_groups.settings import ConnectionArgs

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess

VIEWS = ("members", "offsets", "state")


@dataclass(frozen=True)
class DescribeStreamsRequest:
    connection: ConnectionArgs
    groups: tuple[str, ...] = ()
    all_groups: bool = False
    view: str = "offsets"
    verbose: bool = False
    output: OutputFormat = OutputFormat.AUTO
    health: bool = False  # ours: the loss radar (kafka_groups/commands/health.py)
    watch: float | None = None  # --watch: seconds between refreshes (commands/watch.py)
    group_patterns: tuple[str, ...] = ()  # --group-pattern
    exclude_groups: tuple[str, ...] = ()  # --exclude-group

    @property
    def selection(self) -> GroupSelection:
        return GroupSelection(self.groups, self.all_groups, self.group_patterns, self.exclude_groups)

    def execute(self, show: Show | None = None) -> Outcome:
        if self.view not in VIEWS:
            raise UsageError(f"Unknown view '{self.view}': choose from {', '.join(VIEWS)}")
        self.selection.check("describe")
        if self.health and self.view != "offsets":
            raise UsageError(f'Option "[health]" can\'t be used with option "[{self.view}]"')
        if self.watch is not None:
            from kafka_groups.commands.watch import watch_streams

            watch_streams(self, self.watch)
            return Outcome()  # the watch printed its refreshes itself
        if self.health:
            return self._health()
        with describing("streams groups", self.connection, self.selection.lists) as access:
            described, missing = self._gather(access)
        result = StreamsDescribeResult(self.view, self.verbose, tuple(described), tuple(missing))
        failure = None
        if missing:
            message = "; ".join(missing.values())
            failure = PartialFailure(message) if described else NotFoundError(message)
        return Outcome(result, self.output, failure=failure)

    def _health(self) -> Outcome:
        """The loss radar (--health): its own gathering and result (kafka_groups/commands/health.py)."""
        from kafka_groups.commands.health import health_outcome, streams_health

        with describing("streams groups", self.connection, self.selection.lists) as access:
            result = streams_health(access, streams_group_ids(access, self.selection))
        return health_outcome(result, self.output)

    def _gather(self, access: KafkaAccess) -> tuple[list[DescribedStreamsGroup], dict[str, str]]:
        # The Apache tool describes the groups in the order given (or listed), repeats included.
        ids = streams_group_ids(access, self.selection)
        found, missing = access.describe_streams_groups(ids)
        present = [g for g in ids if g in found]
        if self.view != "offsets":
            return [DescribedStreamsGroup(found[g]) for g in present], missing
        wanted = [g for g in dict.fromkeys(present) if shows_rows(found[g])]
        try:
            partitions = {g: set(active_partitions(found[g])) for g in wanted}
        except UnknownSubtopology as exc:
            raise ClusterError(str(exc)) from None
        committed = access.committed_offsets(wanted)
        every = {tp for ps in partitions.values() for tp in ps}
        # The lag of a partition with no committed offset counts from the log start.
        ends, starts = access.log_offsets(every, earliest=True)
        described = [
            DescribedStreamsGroup(found[g], tuple(offset_rows(found[g], committed.get(g, {}), ends, starts)))
            for g in present
        ]
        return described, missing
