"""``--list`` for consumer groups and streams groups."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_groups.commands.session import cluster_session
from kafka_groups.core.groups import (
    CONSUMER_GROUP_TYPES,
    GroupListing,
    GroupListResult,
    parse_state_filter,
    parse_streams_state_filter,
    parse_type_filter,
    select_consumer_groups,
    select_streams_groups,
)
from kafka_groups.render import OutputFormat
from kafka_groups.render.outcome import Outcome, Show
from kafka_groups.settings import ConnectionArgs

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess


@dataclass(frozen=True)
class ListGroupsRequest:
    connection: ConnectionArgs
    state: str | None = None  # filter (adds the STATE column)
    show_state: bool = False
    group_type: str | None = None  # filter (adds the TYPE column); consumer groups only
    show_type: bool = False
    streams: bool = False  # kafka-streams-groups
    output: OutputFormat = OutputFormat.AUTO
    watch: float | None = None  # --watch: seconds between refreshes (commands/watch.py)

    def execute(self, show: Show | None = None) -> Outcome:
        if self.streams:
            states = parse_streams_state_filter(self.state)
            types = frozenset({"Streams"})
        else:
            states = parse_state_filter(self.state)
            types = parse_type_filter(self.group_type)
        if self.watch is not None:
            from kafka_groups.commands.watch import watch_list

            watch_list(self, states, types, self.watch)
            return Outcome()  # the watch printed its refreshes itself
        with cluster_session(self.connection) as access:
            chosen = self._chosen(access, states, types)
        return Outcome(
            GroupListResult(
                groups=chosen,
                show_type=self.show_type or self.group_type is not None,
                show_state=self.show_state or self.state is not None,
                streams=self.streams,
            ),
            self.output,
        )

    def _chosen(
        self, access: KafkaAccess, states: frozenset[str], types: frozenset[str]
    ) -> tuple[GroupListing, ...]:
        listings = access.list_groups(types or frozenset(CONSUMER_GROUP_TYPES), states)
        if self.streams:
            return tuple(select_streams_groups(listings, states))
        return tuple(select_consumer_groups(listings, states, types))
