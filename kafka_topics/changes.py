"""``kafka-topics --create``, ``--alter`` and ``--delete``: argument parsing with the Apache
tool's rules and messages, the results, and the partition-expansion guard. Pure code."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kafka_groups.core.describe import TopicPartition
from kafka_groups.errors import TopicUsageError
from kafka_groups.settings import ConnectionArgs

BAD_CONFIG = (
    'requirement failed: Invalid topic config: all configs to be added must be in the format "key=val".'
)
EMPTY_STATES = frozenset({"Empty"})  # groups whose offsets a reset may change


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


# -- results ------------------------------------------------------------------------------
@dataclass(frozen=True)
class CreateResult:
    topic: str
    created: bool  # False: it existed and --if-not-exists said that is fine


@dataclass(frozen=True)
class DeleteResult:
    topics: tuple[str, ...]


@dataclass(frozen=True)
class ExpansionGroup:
    """A group with committed offsets on a topic whose partitions grow."""

    group: str
    state: str
    topics: tuple[str, ...]
    new_from_start: bool = False  # its recorded policy starts new partitions at their beginning
    recorded_policy: str | None = None  # that policy, when the policy library recorded it

    @property
    def resettable(self) -> bool:
        return self.state in EMPTY_STATES and not self.new_from_start


def expansion_groups(
    offsets: Mapping[str, tuple[str, Iterable[TopicPartition]]],
    changes: Mapping[str, tuple[int, int]],
    new_from_start: frozenset[str] = frozenset(),
    recorded_policies: Mapping[str, str] | None = None,
) -> list[ExpansionGroup]:
    """The groups (id -> state and committed partitions) with offsets on the topics that grow;
    ``new_from_start``: the groups whose commits (kafka-to-parquet's) record a policy that lands
    new partitions from their start; ``recorded_policies``: group -> such a policy, as the
    policy library recorded it (PolicyConsumer)."""
    policies = recorded_policies or {}
    found = []
    for group in sorted(offsets):
        state, partitions = offsets[group]
        topics = sorted({t for t, _ in partitions if t in changes and changes[t][1] > changes[t][0]})
        if topics:
            safe = group in new_from_start or group in policies
            recorded = None if group in new_from_start else policies.get(group)
            found.append(ExpansionGroup(group, state, tuple(topics), safe, recorded))
    return found


@dataclass(frozen=True)
class AlterResult:
    changes: tuple[tuple[str, int, int], ...]  # (topic, partitions before, partitions after)
    groups: tuple[ExpansionGroup, ...]
    dry_run: bool = False

    def new_partitions(self, topic: str) -> list[int]:
        for name, before, after in self.changes:
            if name == topic:
                return list(range(before, after))
        return []

    def reset_command(self, connection: ConnectionArgs) -> str | None:
        """The command that starts the empty groups at the beginning of the new partitions."""
        empty = [g for g in self.groups if g.resettable]
        if not empty:
            return None
        flags = ""
        if connection.bootstrap_server:
            flags += f" --bootstrap-server {connection.bootstrap_server}"
        if connection.command_config:
            flags += f" --command-config {connection.command_config}"
        groups = " ".join(f"--group {g.group}" for g in empty)
        topics = sorted({t for g in empty for t in g.topics})
        scope = " ".join(
            f"--topic {t}:{','.join(str(p) for p in self.new_partitions(t))}"
            for t in topics
            if self.new_partitions(t)
        )
        return f"kafka-consumer-groups{flags} {groups} --reset-offsets {scope} --to-earliest --execute"

    def guard_lines(self, connection: ConnectionArgs) -> list[str]:
        """The partition-expansion guard, for stderr."""
        if not self.groups:
            return []
        verb = "would get" if self.dry_run else "got"
        grown = ", ".join(f"{t} {verb} partitions {b}-{a - 1}" for t, b, a in self.changes if a > b)
        at_risk = [g for g in self.groups if not g.new_from_start]
        lines = []
        if at_risk:
            lines.append(
                f"Warning: {grown}. "
                "These consumer groups have committed offsets on it: "
                + ", ".join(f"{g.group} ({g.state})" for g in at_risk)
                + ". Consumers using auto.offset.reset=latest skip every record written to a new partition "
                "before they discover it."
            )
        safe = [g.group for g in self.groups if g.new_from_start and g.recorded_policy is None]
        for g in self.groups:
            if g.recorded_policy is not None:
                lines.append(
                    f"No reset needed for {g.group}: its kafka-group-tools consumer last started with the "
                    f"policy {g.recorded_policy}, which starts new partitions at their beginning."
                )
        if safe:
            lines.append(
                f"No reset needed for {', '.join(safe)}: kafka-to-parquet recorded a policy that lands new "
                "partitions from their beginning."
            )
        command = self.reset_command(connection)
        if command:
            lines.append(f"To read the new partitions from their start, run: {command}")
        busy = [g.group for g in at_risk if not g.resettable]
        if busy:
            lines.append(
                f"Groups with active members ({', '.join(busy)}) cannot be reset now; stop them first, "
                "or give their consumers a policy that starts new partitions at the beginning."
            )
        return lines
