"""``kafka-topics --create``, ``--alter`` and ``--delete``: argument parsing with the Apache
tool's rules and messages, the results, and the partition-expansion guard. Pure code."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from kafka_groups.core.topics import (
    EMPTY_STATES,
    AlterResult,
    CreateResult,
    DeleteResult,
    ExpansionGroup,
    expansion_groups,
)
from kafka_groups.errors import TopicUsageError

BAD_CONFIG = (
    'requirement failed: Invalid topic config: all configs to be added must be in the format "key=val".'
)

# The names other modules import from here (several now live in kafka_groups.core.topics).
__all__ = [
    "BAD_CONFIG",
    "EMPTY_STATES",
    "AlterResult",
    "CreateResult",
    "DeleteResult",
    "ExpansionGroup",
    "expansion_groups",
    "has_collision_chars",
    "new_partition_assignment",
    "parse_configs",
    "parse_replica_assignment",
]


def has_collision_chars(topic: str) -> bool:
    return "." in topic or "_" in topic


def _java_int(raw: str) -> int:
    text = raw.strip()
    if not re.fullmatch(r"[+-]?[0-9]+", text) or not -(2**31) <= int(text) < 2**31:
        raise TopicUsageError(f'For input string: "{text}"')
    return int(text)


def parse_replica_assignment(raw: str) -> list[list[int]]:
    """``--replica-assignment 1:2,2:3``: broker ids per partition, partition 0 first.
    An empty value means no assignment."""
    if not raw:
        return []
    items = _java_split(raw, ",")
    assignment: list[list[int]] = []
    for i, item in enumerate(items):
        brokers = [_java_int(b) for b in _java_split(item, ":")]
        seen: set[int] = set()
        duplicates = [b for b in brokers if b in seen or seen.add(b)]  # type: ignore[func-returns-value]
        if duplicates:
            listed = ",".join(str(b) for b in dict.fromkeys(duplicates))
            raise TopicUsageError(f"Partition replica lists may not contain duplicate entries: {listed}")
        assignment.append(brokers)
        if len(brokers) != len(assignment[0]):
            raise TopicUsageError(
                f"Partition {i} has different replication factor: [{', '.join(str(b) for b in brokers)}]"
            )
    return assignment


def _java_split(text: str, sep: str) -> list[str]:
    """``String.split``: trailing empty strings dropped (a plain separator, or a regex)."""
    parts = text.split(sep) if len(sep) == 1 else re.split(sep, text)
    while len(parts) > 1 and parts[-1] == "":
        parts.pop()
    return parts


def parse_configs(values: Iterable[str]) -> dict[str, str]:
    """``--config k=v`` (repeatable): split on ``=`` with optional spaces around it, as the Apache
    tool does; ``a=b=c`` and ``a=`` are refused with its message. Names and values are checked
    by the broker."""
    configs: dict[str, str] = {}
    for value in values:
        parts = _java_split(value, r"\s*=\s*")
        if len(parts) != 2:
            raise TopicUsageError(BAD_CONFIG)
        configs[parts[0].strip()] = parts[1].strip()
    return configs


def new_partition_assignment(assignment: Sequence[Sequence[int]], current: int) -> list[list[int]] | None:
    """The replica lists of the partitions an ``--alter`` adds: the entries from the current
    partition count on (the Apache rule); None without ``--replica-assignment``."""
    if not assignment:
        return None
    return [list(a) for a in assignment[current:]]
