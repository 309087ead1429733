"""The Apache ``kafka-topics.sh`` flag form: validated in its order, translated to subcommands."""

from __future__ import annotations

from collections.abc import Sequence

from kafka_groups.apache_argv import Arg, Opt, Parsed, parse, parse_long
from kafka_groups.cli.consumer_groups_flags import bootstrap_from_environment, connection_args, output_format
from kafka_groups.cli.runner import HELP, VERSION, Request
from kafka_groups.core.selectors import check_topic_regex
from kafka_groups.errors import UsageError
from kafka_groups.render import stderr_line, stdout_line

ACTIONS = ("list", "describe", "create", "alter", "delete")
OPTIONS: tuple[Opt, ...] = (
    Opt("bootstrap-server", Arg.REQUIRED),
    Opt("command-config", Arg.REQUIRED),
    *(Opt(a) for a in ACTIONS),
    Opt("topic", Arg.REQUIRED),
    Opt("topic-id", Arg.REQUIRED),
    Opt("partitions", Arg.REQUIRED),
    Opt("replication-factor", Arg.REQUIRED),
    Opt("replica-assignment", Arg.REQUIRED),
    Opt("config", Arg.REQUIRED),
    Opt("delete-config", Arg.REQUIRED),
    Opt("under-replicated-partitions"),
    Opt("under-min-isr-partitions"),
    Opt("at-min-isr-partitions"),
    Opt("unavailable-partitions"),
    Opt("topics-with-overrides"),
    Opt("if-exists"),
    Opt("if-not-exists"),
    Opt("exclude-internal"),
    Opt("partition-size-limit-per-response", Arg.REQUIRED),
    Opt("help"),
    Opt("version"),
    # Ours, accepted in the flag form too.
    Opt("dry-run"),  # --alter: show the change without making it
    Opt("output", Arg.REQUIRED),
    Opt("o", Arg.REQUIRED),  # short for --output
    Opt("debug"),
    Opt("cluster", Arg.REQUIRED),  # a cluster of clusters.toml
    Opt("yes"),  # a write to a protected cluster, confirmed beforehand
)


REPORTS = (
    "under-replicated-partitions",
    "under-min-isr-partitions",
    "at-min-isr-partitions",
    "unavailable-partitions",
)
# The Apache tool's set of actions, in the order its checks name an offending one.
_ACTION_ORDER = ("alter", "create", "describe", "list", "delete")


def _conflict(used: str, other: str) -> UsageError:
    return UsageError(f'Option "[{used}]" can\'t be used with option "[{other}]"')


def _check(p: Parsed, option: str, allowed: tuple[str, ...], extra: tuple[str, ...] = ()) -> None:
    """``option`` may not appear with any action outside ``allowed``, nor with ``extra``."""
    if not p.has(option):
        return
    for other in (*[a for a in _ACTION_ORDER if a not in allowed], *extra):
        if p.has(other):
            raise _conflict(option, other)


def validate(p: Parsed) -> str:
    """The Apache tool's checks, in its order and with its messages; returns the action."""
    actions = p.present(ACTIONS)
    if len(actions) != 1:
        raise UsageError(
            "Command must include exactly one action: --list, --describe, --create, --alter or --delete"
        )
    if p.has("delete-config"):
        stderr_line(
            "delete-config option is no longer supported and deprecated since version 4.0. "
            "The config will be fully removed in future releases.",
        )
    if not p.present(("bootstrap-server", "cluster")) and not bootstrap_from_environment():
        raise UsageError("--bootstrap-server must be specified")
    if p.has("describe") and p.has("if-exists") and not p.has("topic") and not p.has("topic-id"):
        raise UsageError("--topic or --topic-id is required to describe a topic")
    if not p.has("list") and not p.has("describe") and not p.has("topic"):
        raise UsageError('Missing required argument "[topic]"')
    if p.has("alter"):
        if p.has("config"):
            raise UsageError(
                'Option combination "[[bootstrap-server], [config]]" can\'t be used with option "[alter]" '
                "(To alter topic configurations, the kafka-configs tool can be used.)"
            )
        if not p.has("partitions"):
            raise UsageError('Missing required argument "[partitions]"')
    _check(p, "config", ("alter", "create"))
    _check(p, "partitions", ("alter", "create"))
    _check(p, "replication-factor", ("create",))
    _check(p, "replica-assignment", ("alter", "create"))
    if p.has("create") and p.has("replica-assignment"):
        for other in ("partitions", "replication-factor"):
            if p.has(other):
                raise _conflict("replica-assignment", other)
    for report in REPORTS:
        _check(p, report, ("describe",), ("topics-with-overrides",))
    _check(p, "topics-with-overrides", ("describe",), REPORTS)
    _check(p, "if-exists", ("alter", "delete", "describe"))
    _check(p, "if-not-exists", ("create",))
    _check(p, "exclude-internal", ("list", "describe"))
    _check(p, "dry-run", ("alter",))
    return actions[0]


def _int(p: Parsed, name: str) -> int | None:
    raw = p.one(name)
    if raw is None:
        return None
    value = parse_long(raw, name)
    if not -(2**31) <= value < 2**31:
        raise UsageError(f"Cannot parse argument '{raw}' of option {name}")
    return value


def translate(argv: Sequence[str]) -> Request | tuple[str, ...]:
    p = parse(argv, OPTIONS)
    if p.has("help") or not argv:
        return HELP
    if p.has("version"):
        return VERSION
    action = validate(p)
    # The requests' modules load here, each in its branch: help and usage errors load none.
    from dataclasses import replace

    from kafka_topics.list_request import TOPICS_TIMEOUT_MS, ListTopicsRequest

    # kafka-topics has no --timeout, and KAFKA_TOOLS_TIMEOUT_MS is the group tools' only.
    connection = replace(connection_args(p, TOPICS_TIMEOUT_MS), timeout_ms=TOPICS_TIMEOUT_MS)
    output = output_format(p)
    if action == "list":
        return ListTopicsRequest(
            connection, topic=p.one("topic"), exclude_internal=p.has("exclude-internal"), output=output
        )
    if action == "describe":
        from kafka_topics.commands import DescribeTopicsRequest
        from kafka_topics.describe import DescribeFilters

        if p.has("topic") and p.has("topic-id") and p.has("if-exists"):
            stdout_line(
                "Only topic id will be used when both --topic and --topic-id are specified "
                "and topicId is not Uuid.ZERO_UUID"
            )
        return DescribeTopicsRequest(
            connection,
            topic=p.one("topic"),
            topic_id=p.one("topic-id"),
            exclude_internal=p.has("exclude-internal"),
            if_exists=p.has("if-exists"),
            filters=DescribeFilters(
                under_replicated=p.has("under-replicated-partitions"),
                under_min_isr=p.has("under-min-isr-partitions"),
                at_min_isr=p.has("at-min-isr-partitions"),
                unavailable=p.has("unavailable-partitions"),
                with_overrides=p.has("topics-with-overrides"),
            ),
            output=output,
        )
    from kafka_topics.commands import AlterTopicRequest, CreateTopicRequest, DeleteTopicsRequest

    topic = p.one("topic") or ""
    if action in ("alter", "delete"):
        check_topic_regex(topic, action)
    if action == "create":
        return CreateTopicRequest(
            connection,
            topic=topic,
            partitions=_int(p, "partitions"),
            replication_factor=_int(p, "replication-factor"),
            replica_assignment=p.one("replica-assignment"),
            configs=tuple(p.all("config")),
            if_not_exists=p.has("if-not-exists"),
            output=output,
        )
    if action == "alter":
        return AlterTopicRequest(
            connection,
            topic=topic,
            partitions=_int(p, "partitions") or 0,
            replica_assignment=p.one("replica-assignment"),
            if_exists=p.has("if-exists"),
            dry_run=p.has("dry-run"),
            output=output,
        )
    return DeleteTopicsRequest(connection, topic=topic, if_exists=p.has("if-exists"), output=output)
