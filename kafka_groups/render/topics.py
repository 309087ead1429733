"""``kafka-topics`` describe, create, alter and delete output: the Apache layouts and richer forms."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kafka_groups.core.times import iso_utc_ms
from kafka_groups.core.topic_states import NO_LEADER, ZERO_UUID
from kafka_groups.core.topics import (
    AlterResult,
    CreateResult,
    DeleteResult,
    TopicDescribeResult,
    partition_line,
    topic_line,
)

if TYPE_CHECKING:
    from kafka_groups.render.table import TableSpec

SCHEMA = "kafka-group-tools/{}/v1"


# -- --describe ---------------------------------------------------------------------------
def describe_text(result: TopicDescribeResult) -> str:
    out = []
    for topic, with_line, partitions in result.shown():
        if with_line:
            out.append(topic_line(result, topic) + "\n")
        out.extend(partition_line(result, topic, p) + "\n" for p in partitions)
    return "".join(out)


def _ids(ids: tuple[int, ...] | None) -> str:
    return "-" if ids is None else ",".join(map(str, ids)) or "-"


def _elr(ids: tuple[int, ...] | None) -> str:
    return "N/A" if ids is None else _ids(ids)  # N/A: the broker does not send ELR (as the text)


def describe_table(result: TopicDescribeResult) -> TableSpec:
    """Everything the text layout shows: a row per topic (id, partition count, replication
    factor, configs) above a row per partition (ELR, last known ELR, a reassignment's moves,
    KIP-1327 creation time when the broker sends it)."""
    from kafka_groups.render.table import TableSpec

    shown = list(result.shown())
    creation = any(p.creation_time_ms is not None for t in result.topics for p in t.partitions)
    moving = any(result.reassignment(t.name, p.partition) for t, _, parts in shown for p in parts)
    columns = ["TOPIC", "PARTITION", "LEADER", "REPLICAS", "ISR"]
    columns += (["ADDING", "REMOVING"] if moving else []) + ["ELR", "LAST KNOWN ELR"]
    columns += ["CREATED"] if creation else []
    rows, styles = [], []
    shown_topics = 0
    for topic, _, partitions in shown:
        shown_topics += bool(partitions)
        for p in partitions:
            row = [
                topic.name,
                str(p.partition),
                "none" if p.leader == NO_LEADER else str(p.leader),
                _ids(p.replicas),
                _ids(p.isr),
            ]
            if moving:
                change = result.reassignment(topic.name, p.partition)
                row += [_ids(change.adding), _ids(change.removing)] if change else ["-", "-"]
            row += [_elr(p.elr), _elr(p.last_known_elr)]
            if creation:
                row.append(iso_utc_ms(p.creation_time_ms))
            rows.append(row)
            short = p.leader == NO_LEADER or len(p.isr) < len(p.replicas)
            styles.append("bold red" if short else "")
    title = f"{len(rows)} partition(s) of {shown_topics} topic(s)"
    return TableSpec(title, columns, rows, styles, "No partitions to show.", _topics_table(result))


def _topics_table(result: TopicDescribeResult) -> TableSpec:
    from kafka_groups.render.table import TableSpec

    rows = []
    for topic, with_line, _ in result.shown():
        if not with_line:
            continue
        first = topic.partitions[0] if topic.partitions else None
        rf = first.replication_factor(result.reassignment(topic.name, first.partition)) if first else 0
        configs = ", ".join(f"{c.name}={c.value}" for c in topic.overrides) or "-"
        topic_id = "-" if topic.topic_id == ZERO_UUID else topic.topic_id
        rows.append([topic.name, topic_id, str(len(topic.partitions)), str(rf), configs])
    columns = ["TOPIC", "TOPIC ID", "PARTITIONS", "REPLICATION FACTOR", "CONFIGS"]
    return TableSpec(f"{len(rows)} topic(s)", columns, rows)


def describe_json(result: TopicDescribeResult) -> dict[str, Any]:
    topics = []
    for topic, _, partitions in result.shown():
        first = topic.partitions[0] if topic.partitions else None
        topics.append(
            {
                "topic": topic.name,
                "topic_id": None if topic.topic_id == ZERO_UUID else topic.topic_id,
                "partition_count": len(topic.partitions),
                "replication_factor": first.replication_factor(
                    result.reassignment(topic.name, first.partition)
                )
                if first
                else 0,
                "configs": {c.name: c.value for c in topic.overrides},
                "partitions": [
                    {
                        "partition": p.partition,
                        "leader": None if p.leader == NO_LEADER else p.leader,
                        "replicas": list(p.replicas),
                        "isr": list(p.isr),
                        "elr": None if p.elr is None else list(p.elr),
                        "last_known_elr": None if p.last_known_elr is None else list(p.last_known_elr),
                        "creation_time_ms": p.creation_time_ms,
                    }
                    for p in partitions
                ],
            }
        )
    return {"schema": SCHEMA.format("topic-describe"), "topics": topics}


def describe_csv(result: TopicDescribeResult) -> list[list[str]]:
    rows = [["topic", "partition", "leader", "replicas", "isr", "elr", "creation_time_ms"]]
    for topic, _, partitions in result.shown():
        for p in partitions:
            rows.append(
                [
                    topic.name,
                    str(p.partition),
                    "" if p.leader == NO_LEADER else str(p.leader),
                    " ".join(str(i) for i in p.replicas),
                    " ".join(str(i) for i in p.isr),
                    "" if p.elr is None else " ".join(str(i) for i in p.elr),
                    "" if p.creation_time_ms is None else str(p.creation_time_ms),
                ]
            )
    return rows


# -- --create, --alter, --delete ----------------------------------------------------------
def create_text(result: CreateResult) -> str:
    return f"Created topic {result.topic}.\n" if result.created else ""


def create_table(result: CreateResult) -> TableSpec:
    from kafka_groups.render.table import TableSpec

    status = "created" if result.created else "already exists (--if-not-exists)"
    return TableSpec(f"Topic {result.topic}", ["TOPIC", "STATUS"], [[result.topic, status]])


def create_json(result: CreateResult) -> dict[str, Any]:
    return {"schema": SCHEMA.format("topic-create"), "topic": result.topic, "created": result.created}


def create_csv(result: CreateResult) -> list[list[str]]:
    return [["topic", "created"], [result.topic, str(result.created).lower()]]


def alter_text(result: AlterResult) -> str:
    if not result.dry_run:
        return ""  # as the Apache tool: nothing on success
    return "".join(
        f"Dry run: topic {t} would go from {before} to {after} partitions; nothing was changed.\n"
        for t, before, after in result.changes
    )


def alter_table(result: AlterResult) -> TableSpec:
    from kafka_groups.render.table import TableSpec

    rows = [
        [t, str(b), str(a), ", ".join(g.group for g in result.groups if t in g.topics) or "-"]
        for t, b, a in result.changes
    ]
    title = "Dry run: nothing was changed" if result.dry_run else "Partitions added"
    return TableSpec(
        title, ["TOPIC", "BEFORE", "AFTER", "GROUPS WITH OFFSETS"], rows, (), "No topic matched."
    )


def alter_json(result: AlterResult) -> dict[str, Any]:
    return {
        "schema": SCHEMA.format("topic-alter"),
        "dry_run": result.dry_run,
        "topics": [
            {"topic": t, "partitions_before": b, "partitions_after": a, "new_partitions": list(range(b, a))}
            for t, b, a in result.changes
        ],
        "groups": [
            {"group": g.group, "state": g.state, "topics": list(g.topics), "resettable": g.resettable}
            for g in result.groups
        ],
    }


def alter_csv(result: AlterResult) -> list[list[str]]:
    return [["topic", "partitions_before", "partitions_after"]] + [
        [t, str(b), str(a)] for t, b, a in result.changes
    ]


def delete_text(result: DeleteResult) -> str:
    return ""  # as the Apache tool: nothing on success


def delete_table(result: DeleteResult) -> TableSpec:
    from kafka_groups.render.table import TableSpec

    return TableSpec("Topics deleted", ["TOPIC"], [[t] for t in result.topics], (), "No topic matched.")


def delete_json(result: DeleteResult) -> dict[str, Any]:
    return {"schema": SCHEMA.format("topic-delete"), "deleted": list(result.topics)}


def delete_csv(result: DeleteResult) -> list[list[str]]:
    return [["topic"]] + [[t] for t in result.topics]
