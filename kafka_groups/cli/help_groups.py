"""The flag form's ``--help`` texts of kafka-consumer-groups and kafka-streams-groups.

Every option of the Apache help text is here with at least what that text says (it is the
floor). A new option goes in the section of the action it serves, or in ``ours``.
"""

from __future__ import annotations

from kafka_groups.cli.help_model import Section, ToolHelp
from kafka_groups.timeouts import ENV_TIMEOUT, GROUPS_TIMEOUT_MS, STREAMS_TIMEOUT_MS


def _connection(default_timeout_ms: int) -> Section:
    return Section(
        "Connection (every action)",
        (
            (
                "--bootstrap-server <host:port,...>",
                "REQUIRED: the server(s) to connect to (or set KAFKA_BOOTSTRAP_SERVERS).",
            ),
            (
                "--command-config <file>",
                "Property file with configs for the Admin client and consumer: security, SASL, TLS "
                "(or set KAFKA_COMMAND_CONFIG; KAFKA_CLIENT_<KEY> variables set one property each).",
            ),
            (
                "--timeout <ms>",
                "How long to wait for the cluster, e.g. for a group to stabilize when it was just "
                f"created or is changing (default: {default_timeout_ms}, or set {ENV_TIMEOUT}).",
            ),
            CLUSTER_OPTION,
            YES_OPTION,
        ),
    )


# Ours, in every tool: a named cluster of clusters.toml, and a write to a protected one confirmed.
CLUSTER_OPTION = (
    "--cluster <name>",
    "Ours: a cluster named in $XDG_CONFIG_HOME/kafka-group-tools/clusters.toml (its servers, "
    "properties and default timeout; or set KAFKA_TOOLS_CLUSTER). --bootstrap-server and "
    "--command-config given too win over it. `clusters list|show|check` shows them.",
)
YES_OPTION = (
    "--yes",
    "Ours: with a write to a cluster marked protected, confirm without being asked to type its "
    "name (required where there is no terminal to ask on).",
)


_SCENARIOS = (
    ("--to-earliest", "Reset to the earliest offset (the log start)."),
    ("--to-latest", "Reset to the latest offset (the log end)."),
    ("--to-current", "Reset to the current (committed) offset."),
    ("--to-offset <offset>", "Reset to this offset in every partition."),
    (
        "--to-datetime <datetime>",
        "Reset to the first offset at or after a time. Format: 'YYYY-MM-DDTHH:mm:SS.sss', "
        "optionally followed by Z or a zone offset such as +02:00 (local time otherwise).",
    ),
    (
        "--by-duration <duration>",
        "Reset to the first offset at or after now minus a duration. Format: 'PnDTnHnMnS' (e.g. PT1H).",
    ),
    ("--shift-by <n>", "Shift the current offset by n, positive or negative."),
    ("--from-file <csv>", "Reset to the offsets in a CSV file (as written by --export)."),
)
_RESET_EXECUTION = (
    ("--dry-run", "Only show the new offsets; change nothing (the default)."),
    ("--execute", "Change the offsets."),
    ("--export", "Print the plan as CSV, to replay later with --from-file."),
)
_RESET_NOTE = (
    "Reset the committed offsets of a group. Its members must be inactive. Choose one reset "
    "specification and one scope (none with --from-file)."
)

_WATCH = (
    "--watch [seconds]",
    "With --describe (offsets) or --list: refresh every few seconds (default 2; fractions "
    "from 0.5). A live view on a terminal with lag deltas, consume and produce rates and a "
    "time to catch up; one JSON document per refresh when piped (JSON Lines). Ctrl-C stops "
    "it (exit 0).",
)

CONSUMER_GROUPS = ToolHelp(
    about="List all consumer groups, describe a consumer group, delete consumer group info, "
    "or reset consumer group offsets.",
    sections=(
        _connection(GROUPS_TIMEOUT_MS),
        Section(
            "--list: list all consumer groups",
            (
                (
                    "--state [states]",
                    "Show the state of every group; with a value, list only the groups in those "
                    "states (comma-separated, e.g. stable,empty).",
                ),
                (
                    "--type [types]",
                    "Show the type of every group; with a value, list only the groups of those "
                    "types (classic, consumer).",
                ),
            ),
            "kafka-consumer-groups --bootstrap-server localhost:9092 --list --state stable,empty",
        ),
        Section(
            "--describe: describe groups and their offset lag (messages not yet processed)",
            (
                ("--group <group>", "The group to act on; repeat for more (--group g1 --group g2)."),
                ("--all-groups", "Apply to all consumer groups."),
                (
                    "--offsets",
                    "Every topic partition of the group with its offset lag (the default view).",
                ),
                ("--members", "The members of the group."),
                ("--state", "The state of the group."),
                (
                    "--verbose",
                    "More detail where there is any (leader epochs, member epochs and target "
                    "assignments, group epochs); with --offsets, --members or --state.",
                ),
            ),
            "kafka-consumer-groups --bootstrap-server localhost:9092 --describe --group group1 --members",
        ),
        Section(
            "--reset-offsets: " + _RESET_NOTE,
            (
                ("--group <group> | --all-groups", "The groups to reset."),
                (
                    "--topic <topic[:partitions]> | --all-topics",
                    "The scope: a topic, or some of its partitions as topic1:0,1,2 (repeat for more "
                    "topics), or every topic the group has offsets for.",
                ),
                *_SCENARIOS,
                *_RESET_EXECUTION,
            ),
            "kafka-consumer-groups --bootstrap-server localhost:9092 --reset-offsets --group group1 "
            "--topic orders --to-datetime 2024-05-01T00:00:00.000 --dry-run",
        ),
        Section(
            "--delete-offsets: delete a group's committed offsets (one group, one or more topics)",
            (
                ("--group <group>", "The group."),
                ("--topic <topic[:partitions]>", "The topic, or some of its partitions; repeat for more."),
            ),
            "kafka-consumer-groups --bootstrap-server localhost:9092 --delete-offsets --group group1 "
            "--topic orders",
        ),
        Section(
            "--delete: delete groups with their offsets and ownership information",
            (("--group <group> | --all-groups", "The groups to delete (--group g1 --group g2)."),),
            "kafka-consumer-groups --bootstrap-server localhost:9092 --delete --group group1",
        ),
        Section(
            "--validate-regex <regex>: check a regular expression for a consumer subscription "
            "(KIP-848, RE2J syntax) without touching any group",
            (),
            "kafka-consumer-groups --bootstrap-server localhost:9092 --validate-regex 'orders\\..*'",
        ),
        Section(
            "Other",
            (("--help", "Print this help."), ("--version", "Print the version.")),
        ),
    ),
    ours=(
        (
            "--output, -o text|table|json|csv",
            "text is the Apache layout (the default when piped); table is Rich (the default on a "
            "terminal); json is versioned (docs/json.md).",
        ),
        ("--backup-dir <dir>", "Where the backup of the state before a write goes (printed with its undo)."),
        (
            "--delete-offsets --from-file <file>",
            "Instead of --topic: the partitions of every group a plan file names (--group keeps only "
            "those groups); a reset's undo deletes the offsets the reset created with it.",
        ),
        ("--to-start-time", "Reset to the group's creation time, when the broker records it (KIP-1282)."),
        (
            "--to-nearest",
            "Move only committed offsets outside the log to the nearer log bound (from KIP-842).",
        ),
        ("--to-group <group>", "Reset to another group's committed offsets (clamped to the log)."),
        (
            "--group-pattern <regex>",
            "With --describe, --delete, --reset-offsets: the groups whose whole id matches (Python re, "
            "full match); repeatable; instead of --group/--all-groups.",
        ),
        ("--exclude-group <regex>", "Leave out the selected groups whose whole id matches; repeatable."),
        ("--skip-active", "With --reset-offsets: reset the inactive groups, name the active ones (exit 0)."),
        (
            "--allow-non-atomic",
            "With --reset-offsets --execute: where a group's offsets need more than one commit (more than "
            "one batch of __consumer_offsets) and the cluster refuses the transaction that keeps them "
            "atomic, commit them in steps, each recorded in a journal beside the backup.",
        ),
        ("--debug", "Tracebacks and client logs on errors."),
        (
            "--health",
            "With --describe: the loss radar, per partition and per group: lost (committed offset "
            "outside the log, with how many records), at risk (the next record near deletion by "
            "retention.ms or retention.bytes; records on a partition without a committed offset), "
            "unconsumed new partitions, the lag in time, the recorded policy and start. Exit status: "
            "0 healthy, 5 at risk, 6 lost (the worst group decides).",
        ),
        (
            "--lag-time",
            "With --describe: how far behind each partition with lag is in time (now minus the "
            "timestamp of the next record to read); piped, a LAG-TIME-MS column at the end.",
        ),
        ("--show-completion <shell>", "Print the completion script for bash, zsh or fish."),
        ("--install-completion <shell>", "Install it for your user."),
        _WATCH,
    ),
    subcommands=("list", "describe", "reset-offsets", "delete-offsets", "delete", "clusters"),
)

STREAMS_GROUPS = ToolHelp(
    about="List, describe, reset and delete streams groups (KIP-1071) and their internal topics.",
    sections=(
        _connection(STREAMS_TIMEOUT_MS),
        Section(
            "--list: list all streams groups",
            (("--state [states]", "Show the state of every group; with a value, only those states."),),
            "kafka-streams-groups --bootstrap-server localhost:9092 --list --state",
        ),
        Section(
            "--describe: describe streams groups",
            (
                ("--group <group> | --all-groups", "The groups to describe."),
                ("--offsets", "The offsets and lag of the input topics (the default view)."),
                ("--members", "The members and their tasks."),
                ("--state", "The state of the group."),
                ("--verbose", "More detail where there is any."),
            ),
            "kafka-streams-groups --bootstrap-server localhost:9092 --describe --group app1 --members",
        ),
        Section(
            "--reset-offsets: " + _RESET_NOTE.replace("a group", "a streams group"),
            (
                ("--group <group> | --all-groups", "The groups to reset."),
                (
                    "--input-topic <topic[:partitions]> | --all-input-topics",
                    "The scope: an input topic (or some of its partitions), or all of them.",
                ),
                *_SCENARIOS,
                *_RESET_EXECUTION,
            ),
            "kafka-streams-groups --bootstrap-server localhost:9092 --reset-offsets --group app1 "
            "--all-input-topics --to-earliest --execute",
        ),
        Section(
            "--delete-offsets: delete a group's committed offsets for input topics",
            (
                ("--group <group>", "The group (one)."),
                ("--input-topic <topic> | --all-input-topics", "The input topics."),
            ),
            "kafka-streams-groups --bootstrap-server localhost:9092 --delete-offsets --group app1 "
            "--input-topic orders",
        ),
        Section(
            "--delete: delete streams groups",
            (
                ("--group <group> | --all-groups", "The groups to delete."),
                (
                    "--delete-internal-topic <topic> | --delete-all-internal-topics",
                    "Also delete internal topics of the group (repartition and changelog topics).",
                ),
            ),
            "kafka-streams-groups --bootstrap-server localhost:9092 --delete --group app1",
        ),
        Section("Other", (("--help", "Print this help."), ("--version", "Print the version."))),
    ),
    ours=tuple(e for e in CONSUMER_GROUPS.ours if e[0] != "--lag-time"),  # consumer groups only
    subcommands=("list", "describe", "reset-offsets", "delete-offsets", "delete", "clusters"),
)
