"""Topics as the cluster reports them: the names ``kafka-topics --list`` prints, and each
topic's and partition's state as the access layer reads it (``kafka-topics --describe`` and the
groups tools). Apart from core/topics.py's results, so that the access layer and ``--list`` load
none of those."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # uuid (with platform) loads only when a topic id is printed
    import uuid


@dataclass(frozen=True)
class TopicListResult:
    topics: tuple[str, ...]


NO_LEADER = -1
MIN_ISR = "min.insync.replicas"


@dataclass(frozen=True)
class Reassignment:
    replicas: tuple[int, ...]
    adding: tuple[int, ...]
    removing: tuple[int, ...]


@dataclass(frozen=True)
class PartitionState:
    partition: int
    leader: int  # NO_LEADER when there is none or it is not a live broker (as the Admin client maps it)
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    elr: tuple[int, ...] | None = None  # None: the broker did not send ELR (shown as N/A)
    last_known_elr: tuple[int, ...] | None = None
    # KIP-1327: None when the broker does not send the field (DescribeTopicPartitions v0);
    # -1 when it sends "unknown".
    creation_time_ms: int | None = None

    def replication_factor(self, reassignment: Reassignment | None) -> int:
        """The replication factor, not counting replicas a reassignment is adding."""
        if reassignment is not None and set(self.replicas) & (
            set(reassignment.adding) | set(reassignment.removing)
        ):
            return len(reassignment.replicas) - len(reassignment.adding)
        return len(self.replicas)


@dataclass(frozen=True)
class ConfigValue:
    name: str
    value: str | None
    is_default: bool  # the value comes from the default, not from a topic or broker override


@dataclass(frozen=True)
class TopicState:
    name: str
    topic_id: str  # the zero UUID when the broker has none
    partitions: tuple[PartitionState, ...]  # sorted by partition
    # In DescribeConfigs order: the overrides and min.insync.replicas (the defaults the
    # cluster reports besides are not kept).
    configs: tuple[ConfigValue, ...] = ()

    @property
    def overrides(self) -> list[ConfigValue]:
        return [c for c in self.configs if not c.is_default]

    def min_isr(self) -> int:
        for config in self.configs:
            if config.name == MIN_ISR and config.value is not None:
                return int(config.value)
        return 1


ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA"  # Kafka's Uuid.ZERO_UUID as it prints it


def kafka_uuid(raw: uuid.UUID | str | None) -> str:
    """A topic id as Kafka prints it: URL-safe base64 of its 16 bytes, without padding."""
    import base64
    import uuid

    if raw is None:
        return ZERO_UUID
    value = raw if isinstance(raw, uuid.UUID) else uuid.UUID(str(raw))
    return base64.urlsafe_b64encode(value.bytes).decode().rstrip("=")
