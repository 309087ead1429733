"""What the loss radar reads besides offsets: each topic's retention settings
(DescribeConfigs) and, for topics with ``retention.bytes`` set, their partitions' sizes on the
leaders (DescribeLogDirs)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kafka_groups.core.describe import TopicPartition

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess


@dataclass(frozen=True)
class Retention:
    ms: int | None  # negative: unlimited
    bytes: int | None  # negative: unlimited


def _int(entry: Any) -> int | None:
    try:
        return int(entry.value) if entry is not None and entry.value is not None else None
    except ValueError:
        return None


def retention_of(access: KafkaAccess, topics: Iterable[str]) -> dict[str, Retention]:
    """retention.ms and retention.bytes of each topic (one DescribeConfigs for them all); a
    topic whose configs cannot be read is left out (its partitions are then never at risk by
    retention: the radar says what it knows)."""
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import ConfigResource, ResourceType  # type: ignore[attr-defined]

    names = sorted(set(topics))
    if not names:
        return {}
    futures = access._admin.describe_configs(
        [ConfigResource(ResourceType.TOPIC, t) for t in names], request_timeout=access.settings.timeout_s
    )
    found: dict[str, Retention] = {}
    for resource, future in futures.items():
        try:
            entries = future.result()
        except KafkaException:
            continue
        found[resource.name] = Retention(
            _int(entries.get("retention.ms")), _int(entries.get("retention.bytes"))
        )
    return found


def partition_sizes(
    access: KafkaAccess, partitions: Mapping[TopicPartition, int]
) -> dict[TopicPartition, int]:
    """The size in bytes of each partition on its leader (``partitions``: partition -> leader
    id), one DescribeLogDirs per leader; what cannot be read is left out."""
    if not partitions:
        return {}
    by_leader: dict[int, dict[str, list[int]]] = {}
    for (topic, partition), leader in partitions.items():
        by_leader.setdefault(leader, {}).setdefault(topic, []).append(partition)
    sizes: dict[TopicPartition, int] = {}
    for leader, topics in sorted(by_leader.items()):
        try:
            answers = access._protocol.admin.describe_log_dirs(topic_partitions=topics, brokers=[leader])
        except Exception:  # best effort: the byte check is then skipped
            continue
        for answer in answers if isinstance(answers, list) else [answers]:
            for result in _as_list(_get(answer, "log_dirs") or _get(answer, "results")):
                for topic in _as_list(_get(result, "topics")):
                    name = _get(topic, "name")
                    for p in _as_list(_get(topic, "partitions")):
                        index, size = _get(p, "partition_index"), _get(p, "partition_size")
                        if name is not None and index is not None and size is not None:
                            tp = (str(name), int(index))
                            if tp in partitions:
                                sizes[tp] = max(sizes.get(tp, 0), int(size))
    return sizes


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _as_list(obj: Any) -> list[Any]:
    return list(obj) if obj is not None else []
