"""Group listings and the ``--state`` / ``--type`` filters of ``--list`` (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kafka_groups.core.javaorder import string_keys_order
from kafka_groups.errors import UsageError

# The states a consumer group (classic or consumer protocol) can be in, and its types, in the
# order the pinned Apache tool names them in its error messages.
CONSUMER_GROUP_STATES: tuple[str, ...] = (
    "PreparingRebalance",
    "Stable",
    "Reconciling",
    "CompletingRebalance",
    "Dead",
    "Assigning",
    "Empty",
)
CONSUMER_GROUP_TYPES: tuple[str, ...] = ("Consumer", "Classic")
# The states of a streams group (KIP-1071).
STREAMS_GROUP_STATES: tuple[str, ...] = ("Empty", "NotReady", "Assigning", "Reconciling", "Stable", "Dead")
UNKNOWN = "Unknown"


@dataclass(frozen=True)
class GroupListing:
    """One group as ListGroups reports it."""

    group_id: str
    type: str  # Classic, Consumer, Streams, Share, or Unknown
    state: str  # as the broker names it, or Unknown
    protocol_type: str  # "consumer", "" for simple groups, "connect", ...


@dataclass(frozen=True)
class GroupListResult:
    """What ``--list`` shows."""

    groups: tuple[GroupListing, ...]
    show_type: bool
    show_state: bool
    streams: bool = False  # kafka-streams-groups lays out its list differently


def split_java(value: str, sep: str = ",") -> list[str]:
    """``String.split`` with Java's rule: trailing empty items are dropped."""
    parts = value.split(sep)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _parse_list(raw: str | None, valid: Sequence[str], what: str, message: str) -> frozenset[str]:
    if raw is None or raw == "":
        return frozenset()
    by_lower = {v.lower(): v for v in valid}
    chosen: set[str] = set()
    for item in split_java(raw):
        name = by_lower.get(item.strip().lower())
        if name is None:
            raise UsageError(message.format(raw=raw, valid=", ".join(valid)))
        chosen.add(name)
    if not chosen:
        raise UsageError(message.format(raw=raw, valid=", ".join(valid)))
    return frozenset(chosen)


def parse_state_filter(raw: str | None) -> frozenset[str]:
    """The states named by ``--list --state S``; empty means no filter."""
    return _parse_list(
        raw,
        CONSUMER_GROUP_STATES,
        "state",
        "Invalid state list '{raw}'. Valid states are: {valid}",
    )


def parse_streams_state_filter(raw: str | None) -> frozenset[str]:
    """The states named by ``kafka-streams-groups --list --state S``."""
    return _parse_list(
        raw,
        STREAMS_GROUP_STATES,
        "state",
        "Invalid state list '{raw}'. Valid states are: {valid}",
    )


def select_streams_groups(
    listings: Iterable[GroupListing], states: frozenset[str]
) -> tuple[GroupListing, ...]:
    """Streams groups, narrowed by the state filter."""
    return _java_listing_order(
        [g for g in listings if g.type == "Streams" and (not states or g.state in states)]
    )


def parse_type_filter(raw: str | None) -> frozenset[str]:
    """The types named by ``--list --type T``; empty means no filter."""
    return _parse_list(
        raw,
        CONSUMER_GROUP_TYPES,
        "type",
        "Invalid types list '{raw}'. Valid types are: {valid}",
    )


def select_consumer_groups(
    listings: Iterable[GroupListing],
    states: frozenset[str],
    types: frozenset[str],
    ordered: bool = True,
) -> tuple[GroupListing, ...]:
    """The groups kafka-consumer-groups lists: classic and consumer groups whose protocol
    type is ``consumer`` or empty, narrowed by the state and type filters, in the order the
    Apache tool prints them (its Admin client collects listings in a HashMap by group id), or
    without ``ordered`` in the order given.

    A group of type Unknown comes from a broker before ListGroups v5, which has classic groups
    only and does not say so: it is kept, whatever the type filter (the access layer refuses
    the filters such a broker cannot apply, and leaves out the others, as the Apache tool does).
    """
    chosen = []
    for g in listings:
        untyped = g.type == UNKNOWN
        if not (untyped or g.type in CONSUMER_GROUP_TYPES) or g.protocol_type not in ("", "consumer"):
            continue
        if states and g.state not in states:
            continue
        if types and not untyped and g.type not in types:
            continue
        chosen.append(g)
    return _java_listing_order(chosen) if ordered else tuple(chosen)


def _java_listing_order(listings: list[GroupListing]) -> tuple[GroupListing, ...]:
    by_id = {g.group_id: g for g in listings}
    return tuple(by_id[group_id] for group_id in string_keys_order(by_id))
