"""The one step that turns a command's group options into group ids: the cluster's list is
read only when ``--all-groups`` or ``--group-pattern`` needs it (one ListGroups call), the
rest is :class:`~kafka_groups.core.group_select.GroupSelection`'s pure choice."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_groups.core.group_select import GroupSelection

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess


def consumer_group_ids(access: KafkaAccess, selection: GroupSelection) -> list[str]:
    ids = selection.pick(access.consumer_group_ids() if selection.lists else ())
    selection.require_some(ids, "consumer group")
    return ids


def streams_group_ids(access: KafkaAccess, selection: GroupSelection) -> list[str]:
    ids = selection.pick(access.streams_group_ids() if selection.lists else ())
    selection.require_some(ids, "streams group")
    return ids
