"""``--describe`` for consumer groups."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypeVar

from kafka_groups.commands.select import as_given, consumer_group_ids, unordered_consumer_group_ids
from kafka_groups.commands.session import cluster_session, describing
from kafka_groups.core.describe import (
    DescribedGroup,
    DescribeResult,
    GroupDescription,
    LagTimes,
    TopicPartition,
    View,
    java_sorted,
    offset_rows,
    partitions_to_look_up,
)
from kafka_groups.core.group_select import GroupSelection
from kafka_groups.errors import CliError, NotFoundError, PartialFailure, UsageError
from kafka_groups.render import OutputFormat, resolve_format, wants_detail
from kafka_groups.render.outcome import Outcome, Show
from kafka_groups.settings import ConnectionArgs

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess

T = TypeVar("T")
R = TypeVar("R")

# The Apache text layout prints one block per group, one after another in the order of the
# group ids: a describe in that layout reads and prints the groups this many at a time, so that
# its memory stays bounded whatever the number of groups (50,000 groups of 10 partitions: one
# chunk's rows at a time, not 500,000).
STREAM_CHUNK = 1000
# The log end offsets read for earlier chunks are kept for later ones (groups share topics);
# beyond this many partitions the memory is given back and they are read again.
KEPT_LOG_ENDS = 200_000


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
    health: bool = False  # ours: the loss radar (kafka_groups/commands/health.py)
    lag_time: bool = False  # ours: the lag in time of each partition with lag
    group_patterns: tuple[str, ...] = ()  # --group-pattern
    exclude_groups: tuple[str, ...] = ()  # --exclude-group

    @property
    def selection(self) -> GroupSelection:
        return GroupSelection(self.groups, self.all_groups, self.group_patterns, self.exclude_groups)

    watch: float | None = None  # --watch: seconds between refreshes (commands/watch.py)

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
        for ours in ("health", "lag-time") if views and views[0] is not View.OFFSETS else ():
            if getattr(self, ours.replace("-", "_")):
                raise UsageError(f'Option "[{ours}]" can\'t be used with option "[{views[0].value}]"')
        return views[0] if views else View.OFFSETS

    def execute(self, show: Show | None = None) -> Outcome:
        view = self.view()
        warnings: list[str] = []
        self.selection.check("describe")
        if self.watch is not None:
            from kafka_groups.commands.watch import watch_describe

            watch_describe(self, view, self.watch)
            return Outcome()  # the watch printed its refreshes itself
        if self.health:
            return self._health(show)
        if show is not None and resolve_format(self.output, sys.stdout) is OutputFormat.TEXT:
            return self._streamed(view, show)
        with describing("consumer groups", self.connection, self.selection.lists) as access:
            described, missing, lag_times = self._gather(access, view, warnings)
        result = DescribeResult(view, self.verbose, tuple(described), tuple(missing), lag_times)
        failure = None
        if missing:
            message = _missing_message(missing) or ""
            failure = PartialFailure(message) if len(described) else NotFoundError(message)
        return Outcome(result, self.output, warnings=tuple(warnings), failure=failure)

    def _streamed(self, view: View, show: Show) -> Outcome:
        """The Apache text layout, printed ``STREAM_CHUNK`` groups at a time as they are read: in
        the Apache tool's order (its TreeMap of group ids), since the chunks are consecutive
        runs of the sorted ids. While one chunk is printed the next is read, on a thread of its
        own (the only one using the access meanwhile), so that the requests to the coordinators
        and leaders are in flight while the rows are written. A failure after the first chunks
        were printed ends the output there, with the error line and its exit status. No
        spinner: the rows are the progress."""
        missing: list[str] = []
        described = 0
        ends: dict[TopicPartition, int | None] = {}
        with cluster_session(self.connection) as access:
            given, listed = unordered_consumer_group_ids(access, self.selection)
            ids = java_sorted(given)
            chunks = [ids[start : start + STREAM_CHUNK] for start in range(0, len(ids), STREAM_CHUNK)]
            if len(chunks) > 1:
                access.locate_coordinators(ids)

            def read(chunk: list[str]) -> tuple[list[DescribedGroup], list[str], LagTimes | None]:
                if len(ends) > KEPT_LOG_ENDS:
                    ends.clear()
                # One chunk (a few large groups) keeps its log ends as read (compact tables
                # beyond BULK_OFFSETS_ABOVE partitions), not copied into a dict for later chunks.
                return self._gather_groups(access, chunk, view, [], ends if len(chunks) > 1 else None)

            last: Outcome | None = None
            for index, (groups, gone, lag_times) in enumerate(_ahead(read, chunks)):
                missing.extend(gone)
                described += len(groups)
                if groups:
                    chunk = DescribeResult(view, self.verbose, tuple(groups), (), lag_times)
                    last = Outcome(chunk, self.output, streamed=True)
                    if index < len(chunks) - 1:
                        show(last)
                        last = None
        # The last chunk (the only one, for a few groups) is printed once the clients are closed,
        # as the whole describe is: their memory is given back before its rows are laid out.
        if last is not None:
            show(last)
        as_given(missing, given, listed)  # named as the whole describe names them
        failure = None
        if missing:
            message = _missing_message(missing) or ""
            failure = PartialFailure(message) if described else NotFoundError(message)
        result = DescribeResult(view, self.verbose, (), tuple(missing))
        return Outcome(result, self.output, failure=failure, shown=True)

    def _recorded_starts(
        self, access: KafkaAccess, found: dict[str, GroupDescription], warnings: list[str]
    ) -> dict[str, int]:
        """For the Rich and JSON state views: the starts kafka-group-tools recorded for groups
        the broker gives no creation time (the text layout stays KIP-1282's: broker or -)."""
        lacking = [g for g, d in found.items() if d.creation_time_ms is None or d.creation_time_ms < 0]
        if not lacking or not wants_detail(self.output):
            return {}
        from kafka_groups.access.registry import CreationRegistry

        try:
            return CreationRegistry(access.settings).group_start_times(lacking)
        except CliError as exc:
            note = f"Note: the recorded group start times could not be read ({exc.message})"
            warnings.append(note)
            return {}

    def _health(self, show: Show | None) -> Outcome:
        """The loss radar (--health): its own gathering and result (kafka_groups/commands/health.py).
        Its text layout is one block per group too: streamed, as the plain describe's."""
        from kafka_groups.commands.health import consumer_health, health_outcome, streamed_consumer_health

        if show is not None and resolve_format(self.output, sys.stdout) is OutputFormat.TEXT:
            with cluster_session(self.connection) as access:
                ids, listed = unordered_consumer_group_ids(access, self.selection)
                result = streamed_consumer_health(
                    access,
                    ids,
                    _missing_message,
                    lambda chunk: show(Outcome(chunk, self.output, streamed=True)),
                    STREAM_CHUNK,
                    listed,
                )
            return replace(health_outcome(result, self.output), shown=True)
        with describing("consumer groups", self.connection, self.selection.lists) as access:
            result = consumer_health(access, consumer_group_ids(access, self.selection), _missing_message)
        return health_outcome(result, self.output)

    def _gather(
        self, access: KafkaAccess, view: View, warnings: list[str]
    ) -> tuple[list[DescribedGroup], list[str], LagTimes | None]:
        ids = consumer_group_ids(access, self.selection)
        return self._gather_groups(access, ids, view, warnings)

    def _gather_groups(
        self,
        access: KafkaAccess,
        ids: list[str],
        view: View,
        warnings: list[str],
        known_ends: dict[TopicPartition, int | None] | None = None,
    ) -> tuple[list[DescribedGroup], list[str], LagTimes | None]:
        """The described groups of ``ids``, in the Apache order; ``known_ends``: log end offsets
        read before, used and added to (a streamed describe's chunks share them)."""
        if view is not View.OFFSETS:
            # Epochs, member types and creation times come only with the protocol layer.
            found, missing = access.describe_groups(ids, detailed=self.verbose)
            recorded = self._recorded_starts(access, found, warnings) if view is View.STATE else {}
            return (
                [DescribedGroup(found[g], recorded_start_ms=recorded.get(g)) for g in java_sorted(found)],
                missing,
                None,
            )
        # The offsets read with the descriptions (of many groups, each batch's together).
        found, missing, committed = access.described_with_offsets(ids)
        needed = partitions_to_look_up(found.values(), committed)
        # Log start offsets only serve the out-of-range flag of the richer outputs. Thousands of
        # partitions are read through the protocol layer (access.log_offsets_bulk): a watch
        # would otherwise keep librdkafka's metadata of their topics for as long as it runs.
        if known_ends is None or wants_detail(self.output):
            ends, starts = access.log_offsets_bulk(needed, earliest=wants_detail(self.output))
        else:
            new_ends, starts = access.log_offsets_bulk(needed - known_ends.keys())
            known_ends.update(new_ends)
            ends = known_ends
        described = [
            DescribedGroup(found[g], offset_rows(found[g], committed.get(g, {}), ends, starts))
            for g in java_sorted(found)
        ]
        read: LagTimes | None = None  # the next records' timestamps, once read
        if resolve_format(self.output, sys.stdout) is OutputFormat.TABLE:
            # A terminal: the loss radar's marks on lost and at-risk rows (piped text stays Apache's).
            from kafka_groups.commands.health import risk_marks

            described, read = risk_marks(access, described, warnings)
        if not self.lag_time:
            return described, missing, None
        if read is None:
            from kafka_groups.commands.health import lag_times

            read = lag_times(access, described)
        return described, missing, read


def _ahead(read: Callable[[T], R], items: Sequence[T]) -> Iterator[R]:
    """``read`` of each item in turn, the next one read on a worker thread while the caller
    uses the one yielded (one read at a time: the reads need not be thread-safe, only callable
    from another thread). Its failure is raised where its result would have been yielded; one
    item is read on the caller's thread."""
    if len(items) <= 1:
        yield from (read(item) for item in items)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1, thread_name_prefix="read-ahead") as worker:
        pending = worker.submit(read, items[0])
        for item in items[1:]:
            done = pending.result()
            pending = worker.submit(read, item)
            yield done
        yield pending.result()


def _missing_message(missing: Sequence[str]) -> str | None:
    if not missing:
        return None
    names = ", ".join(f"'{g}'" for g in missing)
    noun, verb = ("Consumer group", "does") if len(missing) == 1 else ("Consumer groups", "do")
    return f"{noun} {names} {verb} not exist."
