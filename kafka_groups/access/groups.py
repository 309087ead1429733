"""Groups: listing (ListGroups on every broker), describing consumer groups and deleting them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from kafka_groups.access.connection import TIMEOUT_CODES, Connection
from kafka_groups.access.decode import (
    GROUP_ID_NOT_FOUND,
    LIST_GROUPS_API_KEY,
    UNSUPPORTED_VERSION,
    _classic_group,
    _confluent_states,
    _consumer_group,
    _group_error,
    _protocol_error,
)
from kafka_groups.access.naming import (
    _coordinator_of,
    _describe_groups_acl,
    _raise_if_retriable,
    _seconds_left,
)
from kafka_groups.access.retry import Deadline, Unavailable, describe_error, is_retriable, retriable_code
from kafka_groups.core.kafka_errors import KafkaErrorInfo, error_info
from kafka_groups.errors import ClusterError, UnsupportedByBroker

if TYPE_CHECKING:  # the group descriptions and listings load where they are made (decode.py says why)
    from kafka_groups.access.group_answers import ListedGroupAnswer
    from kafka_groups.core.describe import Coordinator, GroupDescription
    from kafka_groups.core.groups import GroupListing

# Up to this many groups, a describe goes through confluent-kafka; more, through the protocol
# layer in batches (GroupsAccess.describe_groups says why).
FEW_GROUPS = 8


def _plain(description: GroupDescription) -> GroupDescription:
    """A description from the protocol layer reduced to what confluent-kafka's describe holds
    (no epochs, member types or creation time): the plain views show the same whichever
    client served them (docs/json.md: the epochs come with ``--verbose``)."""
    from dataclasses import replace

    if (
        description.group_epoch is None
        and description.target_assignment_epoch is None
        and description.creation_time_ms is None
        and all(m.member_epoch is None and m.upgraded is None for m in description.members)
    ):
        return description  # a classic group's: nothing to take away (thousands of groups)
    members = tuple(replace(m, member_epoch=None, upgraded=None) for m in description.members)
    return replace(
        description, members=members, group_epoch=None, target_assignment_epoch=None, creation_time_ms=None
    )


class GroupsAccess(Connection):
    # Each group's type as this command's last listing of consumer groups gave it (Classic,
    # Consumer, Unknown): :meth:`_describe_groups` asks each group with the API of its type.
    _listed_types: dict[str, str] = {}  # noqa: RUF012 (replaced, never changed in place)

    def list_groups(
        self, types: frozenset[str] = frozenset(), states: frozenset[str] = frozenset()
    ) -> list[GroupListing]:
        """ListGroups on every broker, asking for ``types`` when the brokers know group types.

        ``states`` are filtered here, not by the broker, but a broker before ListGroups v4 does
        not report states at all: a state filter there is refused, as a type filter is before
        ListGroups v5 unless it names Classic, and nothing besides Consumer (every group there
        is classic, so the filter is left out). The words are the Apache Admin client's
        (core/capabilities.list_filter_refusal). Streams groups are refused where the broker
        cannot have them (no StreamsGroupDescribe), rather than listed as none.

        ListGroups before v5 does not carry a group's type: those groups are listed with the
        type Unknown, which is what the Apache tool prints for them (``--list --type``). They
        are classic groups, as core/groups.select_consumer_groups takes them.
        """
        from kafka_groups.core.capabilities import LIST_GROUPS_BY_TYPE, list_filter_refusal
        from kafka_groups.core.groups import UNKNOWN, GroupListing

        if "Streams" in types:
            self.require_streams_groups()
        version = self._broker_api_version(LIST_GROUPS_API_KEY)
        refusal = list_filter_refusal(version, states, types)
        if refusal is not None:
            raise UnsupportedByBroker(refusal)
        typed = version >= LIST_GROUPS_BY_TYPE.version
        raw = self._via_protocol(
            "listing groups",
            self._run,
            self._list_groups,
            [t.lower() for t in sorted(types)] if typed and types else None,
        )
        return [
            GroupListing(
                group_id=g.group_id,
                type=(g.group_type or "").capitalize() or UNKNOWN,
                state=g.group_state or UNKNOWN,
                protocol_type=g.protocol_type or "",
            )
            for g in raw
        ]

    def consumer_group_ids(self, ordered: bool = True) -> list[str]:
        """Every consumer group (classic and consumer protocol), as ``--all-groups`` means it: in
        the Apache tool's listing order, or (``ordered`` false, for a describe, which sorts them)
        in the brokers' own, which ``core.javaorder.string_keys_order`` turns into the first."""
        from kafka_groups.core.groups import CONSUMER_GROUP_TYPES, select_consumer_groups

        listed = self.list_groups(frozenset(CONSUMER_GROUP_TYPES))
        chosen = select_consumer_groups(listed, frozenset(), frozenset(), ordered)
        # What the listing says of each group's type, for the describe that may follow.
        self._listed_types = {g.group_id: g.type for g in chosen}
        return [g.group_id for g in chosen]

    # -- describe ------------------------------------------------------------------------
    def describe_groups(
        self, group_ids: list[str], detailed: bool = False, offsets_next: bool = False
    ) -> tuple[dict[str, GroupDescription], list[str]]:
        """Describe consumer groups; returns the descriptions and the ids of missing groups.

        confluent-kafka's DescribeConsumerGroups serves a few groups. ``detailed`` (epochs,
        member types, KIP-1282 creation time), states confluent-kafka cannot name
        (``Assigning``, ``Reconciling``) and more than ``FEW_GROUPS`` groups go through the
        protocol layer instead: librdkafka sends a FindCoordinator and a DescribeGroups for
        each group, thousands of requests that raced one timeout (and librdkafka aborts the
        process when a FindCoordinator is answered after its request timed out, librdkafka
        issue #4605), where the protocol layer asks, as the Apache Admin client does, one
        FindCoordinator and one describe per coordinator for each batch of groups
        (:meth:`_read_groups`). Without ``detailed`` a description holds what the
        confluent-kafka one does, whichever served it.

        ``offsets_next``: the committed offsets are read next, through the protocol layer, which
        starts while the first request is in flight (:meth:`_start_protocol_early`).
        """
        if detailed or len(set(group_ids)) > FEW_GROUPS:
            many, gone = self.describe_groups_detailed(group_ids)
            return (many if detailed else {g: _plain(d) for g, d in many.items()}), gone
        if not group_ids:
            return {}, []
        from confluent_kafka import KafkaException

        from kafka_groups.core.describe import Coordinator, GroupDescription, Member

        found: dict[str, GroupDescription] = {}
        missing: list[str] = []
        unnamed: list[str] = []
        described: dict[str, Any] = {}
        not_found: set[str] = set()

        def attempt(deadline: Deadline) -> None:
            ids = [g for g in dict.fromkeys(group_ids) if g not in described and g not in not_found]
            if not ids:
                return
            futures = self._admin.describe_consumer_groups(ids, request_timeout=_seconds_left(deadline))
            if offsets_next:
                self._start_protocol_early()
            waiting: list[str] = []
            reason = ""
            for group_id, future in futures.items():
                try:
                    described[group_id] = future.result()
                except KafkaException as exc:
                    if exc.args[0].code() == GROUP_ID_NOT_FOUND:
                        not_found.add(group_id)
                    elif is_retriable(exc):
                        waiting.append(group_id)
                        reason = describe_error(exc)
                    else:
                        raise self._admin_error(
                            exc, f"describing group '{group_id}'", _describe_groups_acl([group_id])
                        ) from None
            if waiting:
                raise Unavailable(_coordinator_of(waiting), reason)

        self._retrying("the group descriptions", attempt)
        for group_id in dict.fromkeys(group_ids):
            if group_id in not_found:
                missing.append(group_id)
                continue
            d = described[group_id]
            state = _confluent_states().get(d.state)
            if state == "Dead":
                missing.append(group_id)
            elif state is None:
                unnamed.append(group_id)
            else:
                found[group_id] = GroupDescription(
                    group_id=group_id,
                    state=state,
                    type="Consumer" if d.type.name == "CONSUMER" else "Classic",
                    coordinator=Coordinator(d.coordinator.host, d.coordinator.port, d.coordinator.id),
                    assignor=d.partition_assignor or "",
                    members=tuple(
                        Member(
                            member_id=m.member_id,
                            client_id=m.client_id,
                            host=m.host,
                            instance_id=m.group_instance_id,
                            assignment=tuple(
                                (tp.topic, tp.partition) for tp in m.assignment.topic_partitions
                            ),
                            target_assignment=tuple(
                                (tp.topic, tp.partition) for tp in m.target_assignment.topic_partitions
                            )
                            if m.target_assignment
                            else (),
                        )
                        for m in d.members
                    ),
                )
        if unnamed:
            more, gone = self.describe_groups_detailed(unnamed)
            found.update(more)
            missing.extend(gone)
        return found, missing

    def describe_groups_detailed(self, group_ids: list[str]) -> tuple[dict[str, GroupDescription], list[str]]:
        """Describe consumer groups with every field the protocol has, in as few requests as
        it allows: ConsumerGroupDescribe to each coordinator once for all its groups (when the
        brokers have it), then DescribeGroups for the classic groups, again once per
        coordinator, in batches of at most ``GROUPS_PER_REQUEST`` groups, each under a deadline
        of its own. The missing groups come in the order asked."""
        if not group_ids:
            return {}, []
        found: dict[str, GroupDescription] = {}
        missing: list[str] = []
        for described, gone in self._read_groups("describing groups", self._describe_groups, group_ids):
            found.update(described)
            missing.extend(gone)
        order = {g: i for i, g in enumerate(dict.fromkeys(group_ids))}
        return found, sorted(missing, key=order.__getitem__)

    def locate_coordinators(self, group_ids: list[str]) -> None:
        """Look up the coordinators of many groups at once (one FindCoordinator on Kafka 3.0+),
        ahead of reading them in chunks, each of which then finds its groups' coordinators known
        instead of asking for them: one round trip for the whole describe."""
        if not group_ids:
            return
        self._via_protocol(
            "finding the group coordinators",
            self._run,
            self._coordinators_of,
            group_ids,
            needs=_describe_groups_acl(group_ids),
            on_retry=lambda _missing: self._forget_coordinators(group_ids),
        )

    def delete_groups(self, group_ids: list[str]) -> dict[str, KafkaErrorInfo | None]:
        """DeleteGroups: each group's error (None: deleted), one request per coordinator."""
        if not group_ids:
            return {}
        from confluent_kafka import KafkaException

        futures = self._admin.delete_consumer_groups(
            list(dict.fromkeys(group_ids)), request_timeout=self.settings.timeout_s
        )
        answers: dict[str, KafkaErrorInfo | None] = {}
        for group_id, future in futures.items():
            try:
                future.result()
                answers[group_id] = None
            except KafkaException as exc:
                error = exc.args[0]
                if error.code() in TIMEOUT_CODES:
                    raise self._unreachable(exc) from None
                answers[group_id] = error_info(error.code(), error.name(), error.str())
        return answers

    async def _by_coordinator(self, group_ids: list[str]) -> dict[int, list[str]]:
        """The groups by the id of their coordinator (FindCoordinator, cached)."""
        coordinators = await self._coordinators_of(group_ids)
        by_node: dict[int, list[str]] = defaultdict(list)
        for group_id in group_ids:
            by_node[coordinators[group_id]].append(group_id)
        return by_node

    async def _per_coordinator(
        self, by_node: dict[int, list[str]], request: Callable[[list[str]], Any]
    ) -> AsyncIterator[tuple[int, Any]]:
        """One request per coordinator for all its groups, all in flight together; yields each
        coordinator's answer in turn (one that does not answer is ``Unavailable``)."""
        manager = self._protocol.manager
        sent = [(node, manager.send(request(ids), node_id=node)) for node, ids in by_node.items()]
        for node, future in sent:
            yield node, await self._answer(future, _coordinator_of(by_node[node]))

    async def _describe_groups(self, group_ids: list[str]) -> tuple[dict[str, GroupDescription], list[str]]:
        """ConsumerGroupDescribe (when the brokers have it) and DescribeGroups go to every
        coordinator together, each for its groups: the first answers for consumer-protocol
        groups, the second for the rest (which the first does not know). A group the listing
        this command made (``--all-groups``, ``--group-pattern``) says is classic is asked only
        with DescribeGroups, one it says is a consumer group only with ConsumerGroupDescribe
        (a describe of 10,000 groups: 10,000 descriptions fewer for the brokers to make and for
        us to read); a group that API does not find (its type changed since it was listed, or
        it is gone) is asked with the other, in a second round. A group the listing does not
        type is asked with both at once, which costs the brokers a little more and the command
        one round trip less (a describe of many groups in chunks pays it once per chunk)."""
        from kafka_groups.core.capabilities import CONSUMER_GROUPS

        by_node = await self._by_coordinator(group_ids)
        found: dict[str, GroupDescription] = {}
        manager = self._protocol.manager
        with_consumer = self.supports(CONSUMER_GROUPS)
        listed = self._listed_types
        asks = {
            node: (
                [g for g in ids if listed.get(g) != "Classic"] if with_consumer else [],
                [g for g in ids if listed.get(g) != "Consumer" or not with_consumer],
            )
            for node, ids in by_node.items()
        }
        asked_consumer: set[str] = set()
        asked_classic: set[str] = set()
        missing: list[str] = []
        coordinators: dict[int, Coordinator] = {}  # one value for all the groups of a node

        def coordinator(node: int) -> Coordinator:
            known = coordinators.get(node)
            if known is None:
                known = coordinators[node] = self._coordinator(node)
            return known

        while asks:
            sent = [
                (
                    node,
                    manager.send(_consumer_describe(consumer_ids), node_id=node) if consumer_ids else None,
                    manager.send(_classic_describe(classic_ids), node_id=node) if classic_ids else None,
                    frozenset(classic_ids),
                )
                for node, (consumer_ids, classic_ids) in asks.items()
            ]
            for consumer_ids, classic_ids in asks.values():
                asked_consumer.update(consumer_ids)
                asked_classic.update(classic_ids)
            again: dict[int, tuple[list[str], list[str]]] = {}
            for node, consumer_future, classic_future, classic_now in sent:
                missing_what = _coordinator_of(by_node[node])
                retry: tuple[list[str], list[str]] = ([], [])
                if consumer_future is not None:
                    response = await self._answer(consumer_future, missing_what)
                    for group in response.groups:
                        _raise_if_retriable(group.group_id, group.error_code)
                        if group.error_code == 0:
                            found[group.group_id] = _consumer_group(
                                group, coordinator(node), response.API_VERSION
                            )
                        elif group.error_code not in (GROUP_ID_NOT_FOUND, UNSUPPORTED_VERSION):
                            raise _group_error(group.group_id, group.error_code, group.error_message)
                        # Not a consumer-protocol group, or a broker with KIP-848 switched off
                        # (3.x): DescribeGroups answers for it, now or in the next round.
                        elif group.group_id not in classic_now:
                            if group.group_id in asked_classic:
                                missing.append(group.group_id)
                            else:
                                retry[1].append(group.group_id)
                if classic_future is not None:
                    response = await self._answer(classic_future, missing_what)
                    for group in response.groups:
                        if group.group_id in found:  # a consumer-protocol group: described above
                            continue
                        _raise_if_retriable(group.group_id, group.error_code)
                        if group.error_code == GROUP_ID_NOT_FOUND or (
                            group.error_code == 0 and group.group_state == "Dead"
                        ):
                            # Gone, or not a classic group (Kafka 4 answers so; before
                            # DescribeGroups v6 Dead, without an error): ConsumerGroupDescribe's.
                            if with_consumer and group.group_id not in asked_consumer:
                                retry[0].append(group.group_id)
                            else:
                                missing.append(group.group_id)
                        elif group.error_code != 0:
                            raise _group_error(group.group_id, group.error_code, group.error_message)
                        elif group.protocol_type not in ("consumer", ""):
                            missing.append(group.group_id)
                        else:
                            found[group.group_id] = _classic_group(group, coordinator(node))
                if retry[0] or retry[1]:
                    again[node] = retry
            asks = again
        return found, list(dict.fromkeys(missing))

    async def _list_groups(self, types: list[str] | None) -> list[ListedGroupAnswer]:
        """ListGroups to every broker at once, the answers decoded by ours (access/answers.py).
        The raw type names go on the wire: the library's own helper only knows the types it
        has names for (not ``streams``)."""
        from kafka.protocol.admin import ListGroupsRequest

        from kafka_groups.access.group_answers import answered

        client = self._protocol
        brokers = [b.node_id for b in client.manager.cluster.brokers()]
        sent = [
            (
                node,
                client.manager.send(
                    answered(
                        ListGroupsRequest(types_filter=types, min_version=5) if types else ListGroupsRequest()
                    ),
                    node_id=node,
                ),
            )
            for node in brokers
        ]
        groups: list[ListedGroupAnswer] = []
        for node, future in sent:
            # Every broker must answer: each coordinates its own share of the groups.
            missing = f"the list of groups on broker {self._broker_label(node)}"
            response = await self._answer(future, missing)
            if retriable_code(response.error_code):
                raise Unavailable(missing, _protocol_error(response.error_code).name)
            if response.error_code:
                raise ClusterError(f"listing groups failed: {_protocol_error(response.error_code).message}")
            groups.extend(response.groups)
        return groups


def _consumer_describe(group_ids: list[str]) -> Any:
    from kafka_groups.access.messages import ConsumerGroupDescribeRequest

    return ConsumerGroupDescribeRequest(group_ids=group_ids, include_authorized_operations=False)


def _classic_describe(group_ids: list[str]) -> Any:
    from kafka.protocol.admin import DescribeGroupsRequest

    from kafka_groups.access.group_answers import answered

    return answered(DescribeGroupsRequest(groups=group_ids, include_authorized_operations=False))
