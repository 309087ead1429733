"""``kafka-topics --list`` output."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kafka_groups.core.topic_states import TopicListResult
    from kafka_groups.render.table import TableSpec

JSON_SCHEMA = "kafka-group-tools/topic-list/v1"


def text(result: TopicListResult) -> str:
    # The Apache tool prints the names joined by newlines with println: an empty list
    # still gives one empty line.
    return "\n".join(result.topics) + "\n"


def table(result: TopicListResult) -> TableSpec:
    from kafka_groups.render.table import TableSpec

    return TableSpec(
        title=f"{len(result.topics)} topic(s)",
        columns=("TOPIC",),
        rows=[(t,) for t in sorted(result.topics)],
        empty_message="No topics.",
    )


def json(result: TopicListResult) -> dict[str, Any]:
    return {"schema": JSON_SCHEMA, "topics": list(result.topics)}


def csv(result: TopicListResult) -> list[list[str]]:
    return [["topic"], *([t] for t in result.topics)]
