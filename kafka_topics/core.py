"""Pure topic logic: the ``--topic`` filter with the Apache tool's rules."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from kafka_groups.core.topic_states import TopicListResult
from kafka_groups.errors import CliError

if TYPE_CHECKING:
    from kafka_groups.settings import ConnectionSettings

# The names other modules import from here (several now live in kafka_groups.core).
__all__ = [
    "INTERNAL_TOPICS",
    "TopicListResult",
    "compile_topic_filter",
    "refuse_internal",
    "select_topics",
]

# Topics the broker reports as internal.
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state", "__share_group_state"})


def compile_topic_filter(raw: str) -> re.Pattern[str]:
    """``--topic`` as the Apache tool reads it: trimmed, ``,`` means ``|``, spaces removed,
    surrounding quotes stripped, matched against the whole name."""
    pattern = raw.strip().replace(",", "|").replace(" ", "").strip("\"'")
    try:
        return re.compile(pattern)
    except re.error:
        raise CliError(f"{pattern} is an invalid regex.") from None


def select_topics(names: Iterable[str], topic: str | None, exclude_internal: bool) -> tuple[str, ...]:
    """Sorted names, narrowed by the ``--topic`` regex and ``--exclude-internal``."""
    # An empty --topic is a regex that matches no name, as in the Apache tool: never "no filter".
    pattern = compile_topic_filter(topic) if topic is not None else None
    return tuple(
        name
        for name in sorted(names)
        if not (exclude_internal and name in INTERNAL_TOPICS) and (pattern is None or pattern.fullmatch(name))
    )


def refuse_internal(names: Iterable[str], topic: str, action: str) -> None:
    """``--alter`` and ``--delete`` never touch Kafka's internal topics: deleting
    ``__consumer_offsets`` loses every group's committed offsets, and adding partitions to it
    moves every group to another coordinator partition. (The Apache tool does either when a
    ``--topic`` regex such as ``.*`` matches them.)"""
    internal = sorted(n for n in names if n in INTERNAL_TOPICS)
    if internal:
        listed = ", ".join(internal)
        raise CliError(
            f"--topic '{topic}' matches the internal topic(s) {listed}, which hold Kafka's own state "
            f"(committed offsets, transactions): refusing to {action} them; nothing was changed. "
            "Name only the topics to change."
        )


def api_timeout(settings: ConnectionSettings) -> ConnectionSettings:
    """As kafka-topics.sh's Admin client, each call waits up to ``default.api.timeout.ms`` from
    ``--command-config`` (60 s when not set)."""
    from dataclasses import replace  # dataclasses is loaded by now: the settings are one

    from kafka_groups.client_config import property_ms

    given = settings.properties.get("default.api.timeout.ms", "")
    timeout_ms = property_ms("default.api.timeout.ms", given) if given.strip() else 0
    return replace(settings, timeout_ms=timeout_ms) if timeout_ms > 0 else settings
