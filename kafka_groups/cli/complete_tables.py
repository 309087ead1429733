"""What completion knows of each tool's flag form: its actions, the options each action takes,
which options take a value, which exclude each other, and a short description of each.

Pure data, read by :mod:`kafka_groups.cli.complete` (which holds the logic: reading the line,
choosing candidates, live names, the shells' output). A new flag goes here: in ``per_action``
of its tool, in ``valued`` when it takes a value, and in ``DESCRIPTIONS``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

COMMON = ("bootstrap-server", "command-config", "cluster", "timeout", "output", "debug")
SCENARIOS = (
    "to-earliest",
    "to-latest",
    "to-current",
    "to-offset",
    "to-datetime",
    "by-duration",
    "shift-by",
    "from-file",
    "to-start-time",
    "to-nearest",
    "to-group",
)
# Ours: selecting groups by regex (describe, delete, reset).
SELECT = ("group-pattern", "exclude-group")
RESET_SCOPE = (
    "group",
    "all-groups",
    *SELECT,
    "skip-active",
    "dry-run",
    "execute",
    "export",
    "backup-dir",
    "allow-non-atomic",
    "yes",
)


@dataclass(frozen=True)
class ToolSpec:
    """One tool's flag form as completion sees it."""

    subcommands: tuple[str, ...]
    actions: tuple[str, ...]
    per_action: Mapping[str, tuple[str, ...]]
    valued: frozenset[str]  # options that take a value
    common: tuple[str, ...] = COMMON
    # Options given at most once among each of these sets.
    exclusive: tuple[tuple[str, ...], ...] = ()
    repeatable: frozenset[str] = frozenset({"group", "topic", "input-topic", "config", *SELECT})
    optional_value: frozenset[str] = frozenset({"state", "type"})

    def options(self) -> set[str]:
        return {*self.actions, *self.common, *(o for opts in self.per_action.values() for o in opts)}


_GROUP_EXCLUSIVE = (
    SCENARIOS,
    ("dry-run", "execute"),
    ("group", "all-groups", "group-pattern"),
    ("members", "offsets", "state"),
)
_CG_VALUED = frozenset(
    {"bootstrap-server", "command-config", "cluster", "group", "topic", "timeout", "output", "backup-dir"}
    | {"to-offset", "from-file", "to-datetime", "by-duration", "shift-by", "validate-regex"}
    | {"to-group", *SELECT}
)

# What describe takes in both group tools (kafka-consumer-groups adds --lag-time).
_DESCRIBE = ("group", "all-groups", *SELECT, "members", "offsets", "state", "verbose", "health")

TOOLS: dict[str, ToolSpec] = {
    "kafka-consumer-groups": ToolSpec(
        subcommands=("list", "describe", "reset-offsets", "delete-offsets", "delete", "clusters"),
        actions=("list", "describe", "reset-offsets", "delete-offsets", "delete", "validate-regex"),
        per_action={
            "list": ("state", "type", "watch"),
            "describe": (*_DESCRIBE, "lag-time", "watch"),
            "reset-offsets": (*RESET_SCOPE, "topic", "all-topics", *SCENARIOS),
            "delete-offsets": ("group", "topic", "from-file", "backup-dir", "yes"),
            "delete": ("group", "all-groups", *SELECT, "backup-dir", "yes"),
            "validate-regex": (),
        },
        valued=_CG_VALUED,
        exclusive=(*_GROUP_EXCLUSIVE, ("topic", "all-topics")),
        optional_value=frozenset({"state", "type", "watch"}),
    ),
    "kafka-streams-groups": ToolSpec(
        subcommands=("list", "describe", "reset-offsets", "delete-offsets", "delete", "clusters"),
        actions=("list", "describe", "reset-offsets", "delete-offsets", "delete"),
        per_action={
            "list": ("state", "watch"),
            "describe": (*_DESCRIBE, "watch"),
            "reset-offsets": (*RESET_SCOPE, "input-topic", "all-input-topics", *SCENARIOS),
            "delete-offsets": ("group", "input-topic", "all-input-topics", "backup-dir", "yes"),
            "delete": (
                "group",
                "all-groups",
                *SELECT,
                "delete-internal-topic",
                "delete-all-internal-topics",
                "backup-dir",
                "yes",
            ),
        },
        valued=(_CG_VALUED - {"topic", "validate-regex"}) | {"input-topic", "delete-internal-topic"},
        exclusive=(
            *_GROUP_EXCLUSIVE,
            ("input-topic", "all-input-topics"),
            ("delete-internal-topic", "delete-all-internal-topics"),
        ),
        repeatable=frozenset({"group", "input-topic", "delete-internal-topic", *SELECT}),
        optional_value=frozenset({"state", "watch"}),
    ),
    "kafka-topics": ToolSpec(
        subcommands=("list", "describe", "create", "alter", "delete", "clusters"),
        actions=("list", "describe", "create", "alter", "delete"),
        per_action={
            "list": ("topic", "exclude-internal"),
            "describe": (
                "topic",
                "topic-id",
                "exclude-internal",
                "under-replicated-partitions",
                "under-min-isr-partitions",
                "at-min-isr-partitions",
                "unavailable-partitions",
                "topics-with-overrides",
                "if-exists",
                "partition-size-limit-per-response",
            ),
            "create": (
                "topic",
                "partitions",
                "replication-factor",
                "replica-assignment",
                "config",
                "if-not-exists",
                "yes",
            ),
            "alter": ("topic", "partitions", "replica-assignment", "if-exists", "dry-run", "yes"),
            "delete": ("topic", "topic-id", "if-exists", "yes"),
        },
        valued=frozenset(
            {"bootstrap-server", "command-config", "cluster", "output", "topic", "topic-id", "partitions"}
            | {"replication-factor", "replica-assignment", "config", "partition-size-limit-per-response"}
        ),
        common=("bootstrap-server", "command-config", "cluster", "output", "debug"),
        exclusive=(
            (
                "under-replicated-partitions",
                "under-min-isr-partitions",
                "at-min-isr-partitions",
                "unavailable-partitions",
                "topics-with-overrides",
            ),
            ("topic", "topic-id"),
        ),
        repeatable=frozenset({"config"}),
        optional_value=frozenset(),
    ),
}

DESCRIPTIONS = {
    "list": "list groups or topics",
    "describe": "describe groups or topics",
    "reset-offsets": "reset committed offsets (dry run unless --execute)",
    "delete-offsets": "delete a group's committed offsets for topics",
    "delete": "delete groups or topics",
    "validate-regex": "check a topic regex as the broker reads it",
    "create": "create a topic",
    "alter": "add partitions to a topic",
    "bootstrap-server": "host:port[,host:port] of the cluster",
    "command-config": "client properties file (security, SASL, TLS)",
    "cluster": "a cluster named in clusters.toml (ours)",
    "yes": "confirm a write to a protected cluster without a prompt (ours)",
    "timeout": "milliseconds to wait for the cluster",
    "output": "text, table, json or csv (ours)",
    "debug": "tracebacks and client logs (ours)",
    "group": "a group id",
    "all-groups": "every group",
    "group-pattern": "groups whose whole id matches a regex (ours)",
    "exclude-group": "leave out groups matching a regex (ours)",
    "skip-active": "reset the inactive groups, name the active ones (ours)",
    "allow-non-atomic": "commit a group too large for one commit in steps if transactions are refused (ours)",
    "topic": "a topic (topic:partitions for resets)",
    "all-topics": "every topic the group has offsets for",
    "input-topic": "an input topic of the streams application",
    "dry-run": "show the new offsets without changing them",
    "execute": "change the offsets",
    "export": "print the plan as CSV for --from-file",
    "backup-dir": "where the backup of the current state goes (ours)",
    "to-earliest": "the log start",
    "to-latest": "the log end",
    "to-current": "the committed offsets (re-commit)",
    "to-offset": "one offset for every partition",
    "to-datetime": "the first offset at or after a time",
    "by-duration": "the first offset at or after now minus a duration",
    "shift-by": "move by N (negative: back)",
    "from-file": "a CSV plan (--export)",
    "to-start-time": "the group's start time (KIP-1282, ours)",
    "to-nearest": "the nearest offset still in the log (KIP-842, ours)",
    "to-group": "another group's committed offsets (ours)",
    "members": "the members of each group",
    "offsets": "the offsets of each group (the default)",
    "state": "the group state",
    "verbose": "more detail",
    "health": "the loss radar: lost and at-risk records (ours)",
    "lag-time": "the lag in time of each partition (ours)",
    "type": "the group type",
    "watch": "refresh every N seconds: live view, JSON Lines when piped (ours)",
}
