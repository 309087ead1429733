"""Streams groups (KIP-1071): their ids and StreamsGroupDescribe."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_groups.access.decode import (
    GROUP_ID_NOT_FOUND,
    _group_error,
    _streams_group,
)
from kafka_groups.access.groups import GroupsAccess
from kafka_groups.access.naming import _raise_if_retriable
from kafka_groups.errors import ClusterError

if TYPE_CHECKING:  # core.streams loads when a streams group is decoded (access.decode)
    from kafka_groups.core.streams import StreamsGroup


class StreamsAccess(GroupsAccess):
    def streams_group_ids(self) -> list[str]:
        """Every streams group, as ``--all-groups`` means it (in the order ``--list`` shows them)."""
        from kafka_groups.core.groups import select_streams_groups

        listed = self.list_groups(frozenset({"Streams"}))
        return [g.group_id for g in select_streams_groups(listed, frozenset())]

    def describe_streams_groups(self, group_ids: list[str]) -> tuple[dict[str, StreamsGroup], dict[str, str]]:
        """StreamsGroupDescribe (KIP-1071) to each coordinator once for all its groups (in
        batches of at most ``GROUPS_PER_REQUEST`` groups, each under a deadline of its own).

        Returns the descriptions and, for groups the broker does not know as streams groups,
        its message (``Group g not found.``, ``Group g is not a streams group.``)."""
        if not group_ids:
            return {}, {}
        self.require_streams_groups()
        found: dict[str, StreamsGroup] = {}
        missing: dict[str, str] = {}
        for described, gone in self._read_groups(
            "describing streams groups", self._describe_streams, group_ids
        ):
            found.update(described)
            missing.update(gone)
        return found, missing

    async def _describe_streams(self, group_ids: list[str]) -> tuple[dict[str, StreamsGroup], dict[str, str]]:
        from kafka_groups.access.messages import StreamsGroupDescribeRequest

        found: dict[str, StreamsGroup] = {}
        missing: dict[str, str] = {}
        describe = StreamsGroupDescribeRequest
        asked = self._per_coordinator(
            await self._by_coordinator(group_ids),
            lambda ids: describe(group_ids=ids, include_authorized_operations=False),
        )
        async for node, response in asked:
            for group in response.groups:
                code = group.error_code
                _raise_if_retriable(group.group_id, code)
                if code == 0 and group.topology is not None:
                    found[group.group_id] = _streams_group(group, self._coordinator(node))
                elif code == GROUP_ID_NOT_FOUND:
                    missing[group.group_id] = group.error_message or f"Group {group.group_id} not found."
                elif code == 0:
                    raise ClusterError(f"group '{group.group_id}': the broker sent no topology")
                else:
                    raise _group_error(group.group_id, code, group.error_message)
        return found, missing
