"""The flag form's ``--help`` text of kafka-topics.

Every option of the Apache help text is here with at least what that text says (it is the
floor). A new option goes in the section of the action it serves, or in ``ours``.
"""

from __future__ import annotations

from kafka_groups.cli.help_groups import CLUSTER_OPTION, CONSUMER_GROUPS, YES_OPTION
from kafka_groups.cli.help_model import Section, ToolHelp

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
                CLUSTER_OPTION,
                YES_OPTION,
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
        # The options of ours that kafka-topics shares with the group tools, by name.
        *(
            e
            for e in CONSUMER_GROUPS.ours
            if e[0].split()[0].rstrip(",")
            in ("--output", "--debug", "--show-completion", "--install-completion")
        ),
    ),
    subcommands=("list", "describe", "create", "alter", "delete", "clusters"),
)
