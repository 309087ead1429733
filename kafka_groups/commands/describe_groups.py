"""``--describe`` for consumer groups."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_groups.commands.session import cluster_session
from kafka_groups.core.describe import (
    DescribedGroup,
    DescribeResult,
    GroupDescription,
    View,
    java_sorted,
    offset_rows,
    partitions_to_look_up,
)
from kafka_groups.errors import CliError, NotFoundError, PartialFailure, UsageError
from kafka_groups.render import OutputFormat, wants_detail
from kafka_groups.render.outcome import Outcome, Show
from kafka_groups.render.progress import working
from kafka_groups.settings import ConnectionArgs

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess


@dataclass(frozen=True)
class DescribeGroupsRequest:
    connection: ConnectionArgs
    groups: tuple[str, ...] = ()
    all_groups: bool = False
    offsets: bool = False
    members: bool = False
    state: bool = False
    verbose: bool = False
    output: OutputFormat = OutputFormat.AUTO

    def view(self) -> View:
        views = [
            v
            for v, on in (
                (View.MEMBERS, self.members),
                (View.OFFSETS, self.offsets),
                (View.STATE, self.state),
            )
            if on
        ]
        if len(views) > 1:
            raise UsageError(
                "Option [describe] takes at most one of these options: [members], [offsets], [state]"
            )
        return views[0] if views else View.OFFSETS

    def execute(self, show: Show | None = None) -> Outcome:
        view = self.view()
        warnings: list[str] = []
        if not self.groups and not self.all_groups:
            raise UsageError("Option [describe] takes one of these options: [all-groups], [group]")
        if self.groups and self.all_groups:
            raise UsageError('Option "[group]" can\'t be used with option "[all-groups]"')
        with (
            cluster_session(self.connection) as access,
            working("Describing consumer groups…", enabled=self.all_groups),
        ):
            described, missing = self._gather(access, view, warnings)
        result = DescribeResult(view, self.verbose, tuple(described), tuple(missing))
        failure = None
        if missing:
            names = ", ".join(f"'{g}'" for g in missing)
            noun, verb = ("Consumer group", "does") if len(missing) == 1 else ("Consumer groups", "do")
            message = f"{noun} {names} {verb} not exist."
            failure = PartialFailure(message) if len(described) else NotFoundError(message)
        return Outcome(result, self.output, warnings=tuple(warnings), failure=failure)

    def _recorded_starts(
        self, access: KafkaAccess, found: dict[str, GroupDescription], warnings: list[str]
    ) -> dict[str, int]:
        """For the Rich and JSON state views: the starts kafka-group-tools recorded for groups
        the broker gives no creation time (the text layout stays KIP-1282's: broker or -)."""
        lacking = [g for g, d in found.items() if d.creation_time_ms is None or d.creation_time_ms < 0]
        if not lacking or not wants_detail(self.output):
            return {}
        from kafka_groups.access.policy_io import CreationRegistry

        try:
            return CreationRegistry(access.settings).group_start_times(lacking)
        except CliError as exc:
            note = f"Note: the recorded group start times could not be read ({exc.message})"
            warnings.append(note)
            return {}

    def _gather(
        self, access: KafkaAccess, view: View, warnings: list[str]
    ) -> tuple[list[DescribedGroup], list[str]]:
        ids = access.consumer_group_ids() if self.all_groups else list(self.groups)
        # Epochs, member types and creation times come only with the protocol layer.
        detailed = self.verbose and view is not View.OFFSETS
        found, missing = access.describe_groups(ids, detailed=detailed)
        if view is not View.OFFSETS:
            recorded = self._recorded_starts(access, found, warnings) if view is View.STATE else {}
            return [
                DescribedGroup(found[g], recorded_start_ms=recorded.get(g)) for g in java_sorted(found)
            ], missing
        committed = access.committed_offsets(list(found))
        needed = partitions_to_look_up(found.values(), committed)
        # Log start offsets only serve the out-of-range flag of the richer outputs.
        ends, starts = access.log_offsets(needed, earliest=wants_detail(self.output))
        described = [
            DescribedGroup(found[g], offset_rows(found[g], committed.get(g, {}), ends, starts))
            for g in java_sorted(found)
        ]
        return described, missing
