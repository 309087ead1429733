"""What a broker can do, as its ApiVersions answer tells (pure).

Each capability is an API, or a version of one, that a feature needs. The access layer looks it up
in the ApiVersions answer of the broker it is connected to (one answer per connection), never in a
release number: a broker says what it speaks. The first Kafka release that has it is only for the
wording of a refusal. (A default partition count or replication factor, KIP-464, needs CreateTopics
v4, 2.4: librdkafka refuses one before sending from the ApiVersions it holds, and access/topics.py and
access/registry.py act on that refusal.)

| capability | API (key), version | first release |
|---|---|---|
| ``OFFSET_DELETE``: ``--delete-offsets`` (KIP-496) | OffsetDelete (47) | 2.4 |
| ``LIST_GROUPS_BY_STATE``: ListGroups states and their filter (KIP-518) | ListGroups (16) v4 | 2.6 |
| ``LIST_GROUPS_BY_TYPE``: ListGroups types and their filter (KIP-848) | ListGroups (16) v5 | 3.8 |
| ``DESCRIBE_TOPIC_PARTITIONS``: partitions with ELR (KIP-966) | DescribeTopicPartitions (75) | 3.8 |
| ``CONSUMER_GROUPS``: the consumer protocol's groups (KIP-848) | ConsumerGroupDescribe (69) | 4.0 |
| ``STREAMS_GROUPS``: streams groups (KIP-1071) | StreamsGroupDescribe (89) | 4.2 |
| ``TRANSACTIONS``: resets beyond a batch | InitProducerId, AddOffsetsToTxn, EndTxn, TxnOffsetCommit | 0.11 |
| ``STABLE_OFFSET_FETCH``: its stable read-back (KIP-447) | OffsetFetch (9) v8 | 3.0 |
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Capability:
    api: str  # the API as the protocol names it
    key: int  # its API key
    version: int  # the first version of the API that has the capability
    release: str  # the first Kafka release whose brokers have it


OFFSET_DELETE = Capability("OffsetDelete", 47, 0, "2.4")
LIST_GROUPS_BY_STATE = Capability("ListGroups", 16, 4, "2.6")
LIST_GROUPS_BY_TYPE = Capability("ListGroups", 16, 5, "3.8")
DESCRIBE_TOPIC_PARTITIONS = Capability("DescribeTopicPartitions", 75, 0, "3.8")
CONSUMER_GROUPS = Capability("ConsumerGroupDescribe", 69, 0, "4.0")
STREAMS_GROUPS = Capability("StreamsGroupDescribe", 89, 0, "4.2")
TRANSACTIONS = (
    Capability("InitProducerId", 22, 0, "0.11"),
    Capability("AddOffsetsToTxn", 25, 0, "0.11"),
    Capability("EndTxn", 26, 0, "0.11"),
    Capability("TxnOffsetCommit", 28, 0, "0.11"),
)
STABLE_OFFSET_FETCH = Capability("OffsetFetch", 9, 8, "3.0")

# The group types a ListGroups type filter may name on a broker that cannot filter by type, and
# which one it must name: every group there is a classic group, so a filter naming Classic (with
# or without Consumer) is left out, as the Apache Admin client's ListGroupsRequest.Builder does.
UNFILTERED_TYPES = frozenset({"Classic", "Consumer"})


def has(versions: dict[int, int], capability: Capability) -> bool:
    """Whether a broker whose highest version of each API is ``versions`` (API key -> version,
    from its ApiVersions answer) has the capability."""
    return versions.get(capability.key, -1) >= capability.version


def streams_refusal() -> str:
    return (
        f"The broker does not support streams groups ({STREAMS_GROUPS.api}); "
        f"they need Kafka {STREAMS_GROUPS.release} or newer"
    )


def transaction_refusal(lacking: Capability) -> str:
    """Why a reset larger than one batch cannot be one transaction on these brokers."""
    if lacking is STABLE_OFFSET_FETCH:
        return (
            f"the brokers cannot read back offsets a transaction commits ({lacking.api} v{lacking.version}); "
            f"that needs Kafka {lacking.release} or newer"
        )
    return f"the brokers do not support transactions ({lacking.api})"


def offset_delete_refusal() -> str:
    return (
        f"The broker does not support deleting committed offsets ({OFFSET_DELETE.api}, KIP-496); "
        f"it needs Kafka {OFFSET_DELETE.release} or newer. Nothing was deleted."
    )


def list_filter_refusal(
    list_groups_version: int, states: frozenset[str], types: frozenset[str]
) -> str | None:
    """The Apache Admin client's refusal of a ListGroups filter the broker cannot apply
    (ListGroupsRequest.Builder, word for word), or None when the request can go out. States are
    checked first, as there."""
    if states and list_groups_version < LIST_GROUPS_BY_STATE.version:
        return (
            f"The broker only supports ListGroups v{list_groups_version}, but we need "
            f"v{LIST_GROUPS_BY_STATE.version} or newer to request groups by states."
        )
    if types and list_groups_version < LIST_GROUPS_BY_TYPE.version and not can_leave_out_types(types):
        return (
            f"The broker only supports ListGroups v{list_groups_version}, but we need "
            f"v{LIST_GROUPS_BY_TYPE.version} or newer to request groups by type. "
            f"Requested group types: [{', '.join(sorted(types))}]."
        )
    return None


def can_leave_out_types(types: frozenset[str]) -> bool:
    """Whether a type filter may be left out on a broker before ListGroups v5 (see UNFILTERED_TYPES)."""
    return "Classic" in types and types <= UNFILTERED_TYPES
