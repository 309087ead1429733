"""``--help`` for the Apache flag form: the Apache options grouped by the action they serve,
one example per action, and our additions named as ours.

Every option of the Apache help text is here with at least what that text says (it is the
floor); the subcommand form keeps Typer's help (``kafka-consumer-groups list --help``).
Pure data and text: no Typer, no Rich, so ``--help`` starts as fast as the flag form.
"""

from __future__ import annotations

import os
import textwrap
from typing import NamedTuple

# (flag with its argument, description)
Entry = tuple[str, str]


# Named tuples, not dataclasses: help loads no dataclasses (and its inspect) at start-up.
class Section(NamedTuple):
    title: str
    entries: tuple[Entry, ...]
    example: str = ""


class ToolHelp(NamedTuple):
    about: str
    sections: tuple[Section, ...]
    ours: tuple[Entry, ...]
    subcommands: tuple[str, ...]


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
                f"created or is changing (default: {default_timeout_ms}).",
            ),
        ),
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

CONSUMER_GROUPS = ToolHelp(
    about="List all consumer groups, describe a consumer group, delete consumer group info, "
    "or reset consumer group offsets.",
    sections=(
        _connection(5000),
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
        ("--to-start-time", "Reset to the group's creation time, when the broker records it (KIP-1282)."),
        (
            "--to-nearest",
            "Move only committed offsets outside the log to the nearer log bound (from KIP-842).",
        ),
        ("--debug", "Tracebacks and client logs on errors."),
        ("--show-completion <shell>", "Print the completion script for bash, zsh or fish."),
        ("--install-completion <shell>", "Install it for your user."),
    ),
    subcommands=("list", "describe", "reset-offsets", "delete-offsets", "delete"),
)

STREAMS_GROUPS = ToolHelp(
    about="List, describe, reset and delete streams groups (KIP-1071) and their internal topics.",
    sections=(
        _connection(30000),
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
    ours=CONSUMER_GROUPS.ours,
    subcommands=("list", "describe", "reset-offsets", "delete-offsets", "delete"),
)

_REPORTS = (
    (
        "--under-replicated-partitions",
        "Only partitions whose ISR is smaller than their replica set (under-replicated).",
    ),
    ("--under-min-isr-partitions", "Only partitions whose ISR count is below the configured minimum."),
    ("--at-min-isr-partitions", "Only partitions whose ISR count equals the configured minimum."),
    ("--unavailable-partitions", "Only partitions whose leader is not available."),
    ("--topics-with-overrides", "Only topics that have overridden configs."),
)
_TOPIC = (
    "--topic <topic>",
    "The topic; a regular expression too, except with --create. Quote it and escape regular "
    "expression symbols with '\\', e.g. \"test\\.topic\".",
)

TOPICS = ToolHelp(
    about="Create, delete, describe, or change a topic.",
    sections=(
        Section(
            "Connection (every action)",
            (
                ("--bootstrap-server <host:port,...>", "REQUIRED: the Kafka server to connect to."),
                ("--command-config <file>", "Property file with configs for the Admin client."),
            ),
        ),
        Section(
            "--list: list all available topics",
            (_TOPIC, ("--exclude-internal", "Leave out internal topics (included by default).")),
            "kafka-topics --bootstrap-server localhost:9092 --list --exclude-internal",
        ),
        Section(
            "--describe: list details for the given topics",
            (
                _TOPIC,
                ("--topic-id <id>", "The topic id to describe."),
                ("--exclude-internal", "Leave out internal topics (included by default)."),
                *_REPORTS,
                ("--if-exists", "Only describe when the topic exists."),
                (
                    "--partition-size-limit-per-response <n>",
                    "The most partitions in one DescribeTopicPartitions response.",
                ),
            ),
            "kafka-topics --bootstrap-server localhost:9092 --describe --topic orders",
        ),
        Section(
            "--create: create a new topic",
            (
                ("--topic <topic>", "The topic to create."),
                ("--partitions <n>", "The number of partitions (the cluster default when left out)."),
                (
                    "--replication-factor <n>",
                    "The replication factor of each partition (the cluster default when left out).",
                ),
                (
                    "--replica-assignment <b1:b2,b3:b4,...>",
                    "Manual partition-to-broker assignments: replicas of one partition joined by ':', "
                    "partitions by ','.",
                ),
                (
                    "--config <name=value>",
                    "A topic config override (repeat for more), e.g. cleanup.policy, retention.ms, "
                    "min.insync.replicas; see the Kafka documentation for all topic configs. Only with "
                    "--create (to alter configs, use kafka-configs).",
                ),
                ("--if-not-exists", "Only create when the topic does not exist yet."),
            ),
            "kafka-topics --bootstrap-server localhost:9092 --create --topic orders --partitions 6 "
            "--replication-factor 3 --config retention.ms=604800000",
        ),
        Section(
            "--alter: alter the number of partitions and the replica assignment",
            (
                ("--topic <topic>", "The topic (or a regular expression)."),
                (
                    "--partitions <n>",
                    "The new number of partitions. WARNING: if the topic has keys, adding "
                    "partitions changes which partition a key goes to, and so message order.",
                ),
                ("--replica-assignment <b1:b2,...>", "Assignments for the partitions added."),
                ("--if-exists", "Only alter when the topic exists."),
            ),
            "kafka-topics --bootstrap-server localhost:9092 --alter --topic orders --partitions 12",
        ),
        Section(
            "--delete: delete a topic",
            (
                ("--topic <topic>", "The topic (or a regular expression)."),
                ("--topic-id <id>", "The topic id."),
                ("--if-exists", "Only delete when the topic exists."),
            ),
            "kafka-topics --bootstrap-server localhost:9092 --delete --topic orders",
        ),
        Section(
            "Other",
            (
                ("--delete-config <name>", "No longer supported (deprecated since Kafka 4.0)."),
                ("--help", "Print this help."),
                ("--version", "Print the version."),
            ),
        ),
    ),
    ours=(
        (
            "--dry-run",
            "With --alter: show the change, and the groups whose offsets it affects, without making it.",
        ),
        CONSUMER_GROUPS.ours[0],
        CONSUMER_GROUPS.ours[4],
        *CONSUMER_GROUPS.ours[5:],
    ),
    subcommands=("list", "describe", "create", "alter", "delete"),
)

TOOLS = {
    "kafka-consumer-groups": CONSUMER_GROUPS,
    "kafka-streams-groups": STREAMS_GROUPS,
    "kafka-topics": TOPICS,
}

_FLAG_WIDTH = 30


def _entries(entries: tuple[Entry, ...], width: int) -> list[str]:
    out = []
    text_width = max(width - _FLAG_WIDTH - 4, 20)
    for flag, description in entries:
        lines = textwrap.wrap(description, text_width)
        if len(flag) > _FLAG_WIDTH:
            out += textwrap.wrap(
                flag, width, initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False
            )
        else:
            first = lines.pop(0) if lines else ""
            out.append(f"  {flag:<{_FLAG_WIDTH}}  {first}".rstrip())
        out.extend(f"  {'':<{_FLAG_WIDTH}}  {line}" for line in lines)
    return out


def render(prog: str, width: int | None = None) -> str:
    """The flag form's help for ``prog``, wrapped to ``width`` (the terminal's, at most 100)."""
    if width is None:
        try:
            width = min(os.get_terminal_size().columns, 100)
        except OSError:
            width = 100
    width = max(width, 60)
    tool = TOOLS[prog]
    wrap = textwrap.TextWrapper(width, subsequent_indent="  ")
    out = [*wrap.wrap(f"{prog}: {tool.about}"), ""]
    out += textwrap.wrap(
        f"Takes the Apache {prog}.sh options unchanged, one action with the options it takes. "
        f"Subcommands work too ({prog} {tool.subcommands[0]} --bootstrap-server B; "
        f"{prog} COMMAND --help for each).",
        width,
    )
    for section in tool.sections:
        out += ["", *wrap.wrap(section.title), *_entries(section.entries, width)]
        if section.example:
            out += textwrap.wrap(
                f"Example: {section.example}",
                width,
                initial_indent="  ",
                subsequent_indent="      ",
                break_on_hyphens=False,
            )
    out += ["", "Ours (not in the Apache tool)", *_entries(tool.ours, width)]
    out += ["", *textwrap.wrap(f"Subcommands: {', '.join(tool.subcommands)}", width)]
    out += textwrap.wrap(
        "Exit codes: 0 ok, 1 failed, 2 usage error (nothing contacted or written), 3 partial, "
        "4 a write was sent but its outcome could not be verified.",
        width,
    )
    return "\n".join(out) + "\n"
