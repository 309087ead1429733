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


def unordered_consumer_group_ids(
    access: KafkaAccess, selection: GroupSelection
) -> tuple[list[str], list[str]]:
    """For a command that sorts the groups itself (a describe of many): the chosen ids, and the
    listing they were chosen from, both in the brokers' order (the Apache listing order is a
    HashMap's, costly to reproduce for 50,000 names and needed only to name missing groups:
    :func:`as_given`)."""
    listed = access.consumer_group_ids(ordered=False) if selection.lists else []
    ids = selection.pick(listed)
    selection.require_some(ids, "consumer group")
    return ids, listed


def as_given(missing: list[str], ids: list[str], listed: list[str]) -> None:
    """Sorts ``missing`` (some of ``ids``) in the order :func:`consumer_group_ids` gives them."""
    if len(missing) < 2:
        return
    if listed:
        from kafka_groups.core.javaorder import string_keys_order

        ids = string_keys_order(listed)
    order = {g: i for i, g in enumerate(dict.fromkeys(ids))}
    missing.sort(key=order.__getitem__)


def streams_group_ids(access: KafkaAccess, selection: GroupSelection) -> list[str]:
    ids = selection.pick(access.streams_group_ids() if selection.lists else ())
    selection.require_some(ids, "streams group")
    return ids
