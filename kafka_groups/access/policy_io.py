"""The Kafka side of the offset-reset policies: the facts a policy decides on (log bounds,
partition ages, the group's start) and turning its targets into offsets. The durable records
those facts fall back on are kafka_groups/access/registry.py."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence

from kafka_groups.access.cluster import KafkaAccess
from kafka_groups.access.registry import CreationRegistry
from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.policy import AtTime, PartitionFacts, Policy, Resolver, Target
from kafka_groups.core.start_time import GroupStart, broker_start, choose_start
from kafka_groups.errors import ClusterError
from kafka_groups.settings import ConnectionSettings


def group_resolver(
    access: KafkaAccess, registry: CreationRegistry, policy: Policy, group: str, has_offsets: bool
) -> Resolver:
    """The policy bound to the group's start time: the broker's when it records one, else the
    recorded one. A group with no committed offsets and no record is being created now, so
    its start is recorded now, whatever the policy (once: later runs and restarts read it
    back, and a later switch to ``to_start_time`` finds it). A group that has offsets only
    needs its start time for ``to_start_time``. The policy is recorded as the group's (for
    kafka-topics' partition-expansion guard); failing to record it fails nothing."""
    try:
        registry.record_group_policy(group, policy)
    except Exception as exc:  # best effort: the guard then recommends the reset, as before
        logging.getLogger(__name__).warning("recording the policy of group %r failed: %s", group, exc)
    if has_offsets and not policy.needs_group_start:
        return Resolver(policy, group, None)
    start = broker_group_creation_time(access, group) if policy.needs_group_start else None
    if start is None:
        start = registry.group_start_time(group)
    if start is None and not has_offsets:
        start = registry.record_group_start(group)
    return Resolver(policy, group, start)


def group_starts(
    settings: ConnectionSettings, groups: Sequence[str], broker_times: Mapping[str, int | None]
) -> dict[str, GroupStart]:
    """The start time of each group and where it comes from: the broker's creation time
    (``broker_times``, KIP-1282) when it reports one, else the start our consumer helper or
    pipeline recorded. Groups with neither are left out. The records are read only when some
    group has no time from the broker."""
    starts = {g: s for g in groups if (s := broker_start(broker_times.get(g))) is not None}
    rest = [g for g in groups if g not in starts]
    if rest:
        recorded = CreationRegistry(settings).group_start_times(rest)
        starts.update({g: s for g in rest if (s := choose_start(None, recorded.get(g))) is not None})
    return starts


def broker_group_creation_time(access: KafkaAccess, group: str) -> int | None:
    """KIP-1282: the broker's creation time for the group, where the broker records it."""
    if not access.supports_group_creation_time():
        return None
    described, _ = access.describe_groups_detailed([group])
    created = described[group].creation_time_ms if group in described else None
    return created if created is not None and created >= 0 else None


def partition_ages(
    access: KafkaAccess, registry: CreationRegistry, topics: set[str]
) -> dict[TopicPartition, int]:
    """Creation time per partition of ``topics``: the broker's where it reports one (KIP-1327),
    else the registry's record for the topic's current id."""
    layout, live = access.topic_layout()
    present = {t: layout[t] for t in topics if t in layout}
    found: dict[TopicPartition, int] = {}
    if access.supports_partition_creation_time():
        states, _ = access.describe_topics({t: count for t, (count, _) in present.items()}, live)
        for topic, state in states.items():
            for p in state.partitions:
                if p.creation_time_ms is not None and p.creation_time_ms >= 0:
                    found[(topic, p.partition)] = p.creation_time_ms
    if any((t, p) not in found for t, (count, _) in present.items() for p in range(count)):
        recorded = registry.partition_creation_times({t: tid for t, (_, tid) in present.items()})
        for tp, created in recorded.items():
            found.setdefault(tp, created)
    return found


def gather_facts(
    access: KafkaAccess,
    committed: Mapping[TopicPartition, int],
    partitions: set[TopicPartition],
    created: Mapping[TopicPartition, int] | None = None,
) -> dict[TopicPartition, PartitionFacts]:
    """Log bounds for ``partitions`` (batched ListOffsets, both kinds together)."""
    ends, starts = access.log_offsets(partitions, earliest=True, latest=True)
    facts: dict[TopicPartition, PartitionFacts] = {}
    for tp in partitions:
        end, start = ends.get(tp), starts.get(tp)
        if end is None or start is None:
            raise ClusterError(f"{tp[0]}-{tp[1]} has no leader; its offsets cannot be read")
        facts[tp] = PartitionFacts(committed.get(tp), start, end, (created or {}).get(tp))
    return facts


def resolve_offsets(
    access: KafkaAccess, resolver: Resolver, facts: Mapping[TopicPartition, PartitionFacts], now_ms: int
) -> tuple[dict[TopicPartition, int], dict[TopicPartition, Target]]:
    """The start offset of each partition under the policy, and the target behind it.
    Timestamp targets are looked up together, one ListOffsets per distinct instant."""
    targets = {tp: resolver.target(tp, f, now_ms) for tp, f in facts.items()}
    by_time: dict[int, set[TopicPartition]] = {}
    for tp, target in targets.items():
        if isinstance(target, AtTime):
            by_time.setdefault(target.timestamp_ms, set()).add(tp)
    found: dict[TopicPartition, int | None] = {}
    for at, tps in by_time.items():
        found.update(access.offsets_for_time(tps, at))
    offsets = {tp: resolver.settle(target, found.get(tp), facts[tp]) for tp, target in targets.items()}
    return offsets, targets


def now_ms() -> int:
    return int(time.time() * 1000)
