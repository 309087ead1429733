"""``kafka-streams-groups --describe``: the offsets (default), members and state views."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_groups.commands.session import cluster_session
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
from kafka_groups.render.progress import working
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

    def execute(self, show: Show | None = None) -> Outcome:
        if self.view not in VIEWS:
            raise UsageError(f"Unknown view '{self.view}': choose from {', '.join(VIEWS)}")
        if not self.groups and not self.all_groups:
            raise UsageError("Option [describe] takes one of these options: [all-groups], [group]")
        if self.groups and self.all_groups:
            raise UsageError('Option "[group]" can\'t be used with option "[all-groups]"')
        with (
            cluster_session(self.connection) as access,
            working("Describing streams groups…", enabled=self.all_groups),
        ):
            described, missing = self._gather(access)
        result = StreamsDescribeResult(self.view, self.verbose, tuple(described), tuple(missing))
        failure = None
        if missing:
            message = "; ".join(missing.values())
            failure = PartialFailure(message) if described else NotFoundError(message)
        return Outcome(result, self.output, failure=failure)

    def _gather(self, access: KafkaAccess) -> tuple[list[DescribedStreamsGroup], dict[str, str]]:
        # The Apache tool describes the groups in the order given (or listed), repeats included.
        ids = access.streams_group_ids() if self.all_groups else list(self.groups)
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
