"""The only code that talks to Kafka.

Clients are created lazily, on first use, so ``--help`` and argument errors never connect.
confluent-kafka's AdminClient is the primary client; kafka-python's protocol layer serves
the requests confluent-kafka does not expose (ListGroups with protocol type and every
KIP-848 state name, OffsetDelete, StreamsGroupDescribe, ...).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import time
from collections import defaultdict
from functools import cached_property
from typing import Any

from kafka_groups.access.config import kafka_python_config, librdkafka_config, security_of, warn_unmapped
from kafka_groups.access.diagnose import ConnectionWatch, listening_address, refused_addresses, tls_failure
from kafka_groups.access.retry import (
    Deadline,
    NotAvailableInTime,
    Unavailable,
    describe_error,
    is_retriable,
    is_sentinel,
    retriable_code,
    retry_until,
)
from kafka_groups.client_config import ScrubFilter
from kafka_groups.core.describe import Committed, Coordinator, GroupDescription, Member, TopicPartition
from kafka_groups.core.groups import (
    CONSUMER_GROUP_TYPES,
    GroupListing,
    select_consumer_groups,
    select_streams_groups,
)
from kafka_groups.core.kafka_errors import (
    AUTHORIZATION_RESOURCES,
    RETRIABLE_COORDINATOR_ERRORS,
    KafkaErrorInfo,
    denied,
    error_info,
)
from kafka_groups.core.streams import Assignment, StreamsGroup, StreamsMember, Subtopology, Tasks
from kafka_groups.core.topics import (
    NO_LEADER,
    ConfigValue,
    PartitionState,
    Reassignment,
    TopicState,
    kafka_uuid,
)
from kafka_groups.errors import CliError, ClusterError, ConfigError, TopicCommandError
from kafka_groups.settings import ConnectionSettings

LIST_GROUPS_API_KEY = 16
LIST_GROUPS_TYPES_VERSION = 5  # KIP-848: ListGroups v5 carries and filters the group type
_FEW_TOPICS = 8  # up to this many topics, metadata is asked for per topic
_NAMED = 5  # partitions named in a message; the rest are counted
_TIMEOUT_CODES = frozenset({-185, 7, -195})  # _TIMED_OUT, REQUEST_TIMED_OUT, _TRANSPORT
# An OffsetCommit refused with these wrote nothing: the coordinator is loading, gone or moved.
COORDINATOR_MOVING = frozenset({14, 15, 16})


def _quiet_client_logs(settings: ConnectionSettings) -> None:
    level = logging.DEBUG if settings.debug else logging.CRITICAL + 1
    logging.getLogger("kafka").setLevel(level)
    logging.getLogger("kafka_groups.librdkafka").setLevel(level)
    if settings.debug:
        logging.basicConfig(level=logging.DEBUG)
        for handler in logging.getLogger().handlers:
            if not any(isinstance(f, ScrubFilter) for f in handler.filters):
                handler.addFilter(ScrubFilter(settings.secrets))


class KafkaAccess:
    """Batched reads and writes against one cluster."""

    def __init__(self, settings: ConnectionSettings) -> None:
        self.settings = settings
        self._cached_metadata: Any = None
        self._topic_metadata: dict[str, Any] = {}  # per-topic metadata, when only a few are needed
        self._watch = ConnectionWatch()  # the first authentication or TLS failure librdkafka reports
        self._deadline: Deadline | None = None  # the running operation's, while it runs
        self._silent_nodes: set[int] = set()  # brokers that did not answer (any broker would do)
        _quiet_client_logs(settings)
        warn_unmapped(settings)

    # -- clients -------------------------------------------------------------------------
    @cached_property
    def _protocol(self) -> Any:
        from kafka.admin import KafkaAdminClient
        from kafka.errors import KafkaError

        if self._secured:
            _ = self._admin  # which has seen authentication and TLS through, or named why not
        config = kafka_python_config(self.settings)
        if self._deadline is not None:  # first needed within an operation: what is left of it
            config["bootstrap_timeout_ms"] = max(self._deadline.remaining_ms(), 1)
        try:
            return KafkaAdminClient(**config)
        except KafkaError as exc:
            raise self._unreachable(exc) from None

    @property
    def _secured(self) -> bool:
        return security_of(self.settings).protocol != "PLAINTEXT"

    def _unreachable(self, exc: BaseException) -> ClusterError:
        security = security_of(self.settings)
        if self._watch.failed:
            return ClusterError(self._watch.explain(security, self.settings.timeout_s))
        if security.uses_tls and "Handshake failed" in str(exc):
            address = listening_address(self.settings.bootstrap_servers)
            return ClusterError(tls_failure(address, security, str(exc), self.settings.timeout_s))
        refused = refused_addresses(self.settings.bootstrap_servers)
        detail = f" ({exc})" if self.settings.debug else ""
        if len(refused) == 1:
            detail = ": connection refused"
        elif refused:
            detail = ": connection refused by each address"
        return ClusterError(
            f"cannot reach the cluster at {self.settings.bootstrap_servers} "
            f"within {self.settings.timeout_ms} ms{detail}"
        )

    def _via_protocol(
        self,
        what: str,
        call: Any,
        *args: Any,
        needs: dict[str, str] | None = None,
        retry: bool = True,
        on_retry: Any = None,
    ) -> Any:
        """Run a protocol-layer call; its failures become one-line ClusterErrors (``needs``:
        the ACLs the call takes, named when the broker refuses one). ``retry``: retriable
        failures are tried again (kafka_groups/access/retry.py) after fresh metadata and
        ``on_retry``; a write passes False and retries only what the broker refused
        (``Unavailable`` raised by the call itself)."""
        from kafka.errors import KafkaError

        def refresh(missing: Unavailable) -> None:
            self._refresh_protocol_metadata()
            if on_retry is not None:
                on_retry(missing)

        try:
            return self._retrying(
                f"an answer for {what}",
                lambda _deadline: call(*args),
                refresh,
                retriable=None if retry else (lambda exc: isinstance(exc, Unavailable)),
            )
        except KafkaError as exc:
            if self._deadline is not None and is_retriable(exc):
                raise  # the enclosing operation's attempt: it retries
            reason = denied(getattr(exc, "errno", None), needs or {}) or str(exc)
            raise ClusterError(f"{what} failed: {reason}") from None

    def _retrying(self, what: str, attempt: Any, on_retry: Any = None, retriable: Any = None) -> Any:
        """Run ``attempt(deadline)`` under the retry policy (kafka_groups/access/retry.py) with
        a deadline of ``--timeout``. A deadline passed without any bootstrap address accepting
        a connection is "cannot reach the cluster"; otherwise the error names what was missing."""

        if self._deadline is not None:  # within another operation's attempt: it retries
            return attempt(self._deadline)

        def refresh(missing: Unavailable) -> None:
            self.forget_metadata()
            if on_retry is not None:
                on_retry(missing)

        deadline = self._deadline = Deadline(self.settings.timeout_ms)
        try:
            return retry_until(attempt, deadline, what, on_retry=refresh, retriable=retriable)
        except NotAvailableInTime as exc:
            if refused_addresses(self.settings.bootstrap_servers):
                raise self._unreachable(exc) from None
            raise
        finally:
            self._deadline = None

    def _refresh_protocol_metadata(self) -> None:
        from kafka.errors import KafkaError

        # A failed refresh is left to the next attempt, which meets whatever is wrong and names it.
        with contextlib.suppress(KafkaError):
            self._run(self._protocol._manager.cluster.refresh_metadata)

    def _broker_api_version(self, api_key: int) -> int:
        """The highest version of an API that the brokers support (-1: none).

        Read from the negotiated ApiVersions table itself: kafka-python's ``api_versions()``
        fails on API keys newer than it knows, which recent brokers send."""
        versions = self._protocol._manager.broker_version_data.api_versions
        low_high = versions.get(api_key)
        return int(low_high[1]) if low_high else -1

    @cached_property
    def _admin(self) -> Any:
        from confluent_kafka import KafkaException
        from confluent_kafka.admin import AdminClient

        config = librdkafka_config(self.settings)
        config["logger"] = logging.getLogger("kafka_groups.librdkafka")
        config["error_cb"] = self._watch.on_error
        try:
            admin = AdminClient(config)
        except KafkaException as exc:  # settings librdkafka refuses, e.g. a mechanism it was built without
            raise ConfigError(f"the Kafka client refuses these settings: {_error_text(exc)}") from None
        if self._secured:
            self._await_connection(admin)
        return admin

    def _await_connection(self, admin: Any) -> None:
        """On a secured listener, see one request through before any other, so that refused
        credentials or a failed TLS handshake end the command at once, named, where the requests
        themselves would wait out the timeout. Costs one round trip on a connection every
        command opens anyway."""
        future = admin.describe_cluster(request_timeout=self.settings.timeout_s)
        deadline = time.monotonic() + self.settings.timeout_s
        while not future.done() and time.monotonic() < deadline:
            admin.poll(0)  # serves error_cb
            if self._watch.failed:
                raise ClusterError(self._watch.explain(security_of(self.settings), self.settings.timeout_s))
            concurrent.futures.wait([future], timeout=0.01)
        if not future.done():
            raise self._unreachable(TimeoutError())

    def close(self) -> None:
        if "_protocol" in self.__dict__:
            self._protocol.close()

    # -- topics --------------------------------------------------------------------------
    def list_topics(self) -> list[str]:
        """Every topic name the cluster metadata reports, internal ones included."""
        return list(self._metadata().topics)

    def topic_layout(self) -> tuple[dict[str, tuple[int, str]], frozenset[int]]:
        """Every topic (internal ones included) with its partition count and id, and the live
        broker ids: one Metadata request through the protocol layer."""
        layout: tuple[dict[str, tuple[int, str]], frozenset[int]] = self._via_protocol(
            "reading the cluster metadata", self._run, self._topic_layout
        )
        return layout

    async def _topic_layout(self) -> tuple[dict[str, tuple[int, str]], frozenset[int]]:
        from kafka.protocol.metadata import MetadataRequest

        response = await self._protocol._manager.send(
            MetadataRequest(topics=None, allow_auto_topic_creation=False)
        )
        topics = {
            t.name: (len(t.partitions), kafka_uuid(getattr(t, "topic_id", None)))
            for t in response.topics
            if t.error_code == 0
        }
        return topics, frozenset(b.node_id for b in response.brokers)

    def describe_topics(
        self, counts: dict[str, int], live_brokers: frozenset[int]
    ) -> tuple[dict[str, TopicState], dict[tuple[str, int], Reassignment]]:
        """Partition states (DescribeTopicPartitions, v1 with KIP-1327 creation times when the
        brokers have it), every config (DescribeConfigs) and ongoing reassignments of the named
        topics; the requests go out together, partitions in pages of 2,000."""
        if not counts:
            return {}, {}
        described: tuple[dict[str, TopicState], dict[tuple[str, int], Reassignment]] = self._via_protocol(
            "describing topics", self._run, self._describe_topics, counts, live_brokers
        )
        return described

    async def _describe_topics(
        self, counts: dict[str, int], live_brokers: frozenset[int]
    ) -> tuple[dict[str, TopicState], dict[tuple[str, int], Reassignment]]:
        from kafka.admin import ConfigResource, ConfigResourceType

        from kafka_groups.access.messages import DescribeTopicPartitionsRequest

        client = self._protocol
        manager = client._manager
        if self._broker_api_version(DESCRIBE_TOPIC_PARTITIONS_API_KEY) < 0:
            raise ClusterError("the brokers do not support DescribeTopicPartitions (Kafka 3.7 or later)")
        batches: list[list[str]] = [[]]
        size = 0
        for name in sorted(counts):
            if batches[-1] and size + counts[name] > DESCRIBE_PAGE:
                batches.append([])
                size = 0
            batches[-1].append(name)
            size += counts[name]

        # Any broker answers these; spread the pages over the live ones, named explicitly (the
        # protocol layer cannot pick a node for requests sent before its first connection).
        # A broker that did not answer an earlier attempt is left out while others remain.
        answering = sorted(live_brokers - self._silent_nodes) or sorted(live_brokers)
        nodes: list[int | None] = [*answering] or [None]

        async def answer(node: int | None, future: Any) -> Any:
            try:
                return await self._answer(future, f"an answer from broker {self._broker_label(node)}")
            except Unavailable:
                if node is not None:
                    self._silent_nodes.add(node)
                raise

        # First, on its own: it finds the controller with a request the protocol layer routes
        # itself, which fails while the pages below fill the connection.
        reassignments = await self._reassignments()

        def page(index: int, names: list[str], cursor: Any = None) -> Any:
            request = DescribeTopicPartitionsRequest(
                topics=[DescribeTopicPartitionsRequest.TopicRequest(name=n) for n in names],
                response_partition_limit=DESCRIBE_PAGE,
                cursor=cursor,
            )
            return manager.send(request, node_id=nodes[index % len(nodes)])

        pending = [(i, names, page(i, names)) for i, names in enumerate(batches)]
        # what each page went to, to name a broker that does not answer
        node_of = {index: nodes[index % len(nodes)] for index, _, _ in pending}
        resources = [ConfigResource(ConfigResourceType.TOPIC, name) for name in sorted(counts)]
        configs_future = manager.send(client._describe_configs_request(resources), node_id=nodes[0])

        partitions: dict[str, list[PartitionState]] = defaultdict(list)
        ids: dict[str, str] = {}
        while pending:
            index, names, future = pending.pop(0)
            response = await answer(node_of[index], future)
            for topic in response.topics:
                if topic.error_code:
                    raise _topic_error(topic.name, topic.error_code)
                ids[topic.name] = kafka_uuid(topic.topic_id)
                partitions[topic.name].extend(
                    _partition_state(p, response.API_VERSION, live_brokers) for p in topic.partitions
                )
            cursor = response.next_cursor
            if cursor is not None:
                position = DescribeTopicPartitionsRequest.Cursor(
                    topic_name=cursor.topic_name, partition_index=cursor.partition_index
                )
                pending.append((index, names, page(index, names, position)))

        configs: dict[str, tuple[ConfigValue, ...]] = {}
        for result in (await answer(nodes[0], configs_future)).results:
            if result.error_code:
                needs = {"topic": f"DESCRIBE_CONFIGS on topic '{result.resource_name}'"}
                reason = denied(result.error_code, needs) or _protocol_error(result.error_code).message
                raise ClusterError(f"describing the configs of '{result.resource_name}' failed: {reason}")
            configs[result.resource_name] = tuple(
                ConfigValue(c.name, c.value, _config_is_default(c)) for c in result.configs
            )
        states = {
            name: TopicState(
                name,
                ids[name],
                tuple(sorted(partitions[name], key=lambda p: p.partition)),
                configs.get(name, ()),
            )
            for name in counts
            if name in ids
        }
        return states, reassignments

    async def _reassignments(self) -> dict[tuple[str, int], Reassignment]:
        """Ongoing partition reassignments; none when the cluster will not say (as the Apache
        tool treats an unsupported or unauthorized request)."""
        from kafka.errors import ClusterAuthorizationFailedError, KafkaError, UnsupportedVersionError
        from kafka.protocol.admin import ListPartitionReassignmentsRequest

        request = ListPartitionReassignmentsRequest(timeout_ms=self.settings.timeout_ms, topics=None)
        try:
            response = await self._protocol._send_request_to_controller(request)
        except (UnsupportedVersionError, ClusterAuthorizationFailedError):
            return {}
        except KafkaError as exc:
            if not is_retriable(exc):
                raise
            self._protocol._controller_id = None  # ask for the controller again next time
            raise Unavailable("the ongoing partition reassignments", describe_error(exc)) from None
        if response.error_code in (UNSUPPORTED_VERSION, CLUSTER_AUTHORIZATION_FAILED):
            return {}
        return {
            (topic.name, p.partition_index): Reassignment(
                tuple(p.replicas), tuple(p.adding_replicas), tuple(p.removing_replicas)
            )
            for topic in response.topics
            for p in topic.partitions
        }

    def create_topic(
        self,
        name: str,
        partitions: int | None,
        replication_factor: int | None,
        assignment: list[list[int]],
        configs: dict[str, str],
        tolerate_exists: bool = False,
    ) -> bool:
        """CreateTopics for one topic; False when it exists and ``tolerate_exists``."""
        from confluent_kafka import KafkaException
        from confluent_kafka.admin import NewTopic  # type: ignore[attr-defined]

        if assignment:
            # confluent-kafka wants the count with an assignment (-1 is refused).
            topic = NewTopic(
                name, num_partitions=len(assignment), replica_assignment=assignment, config=configs
            )
        else:
            topic = NewTopic(
                name,
                num_partitions=-1 if partitions is None else partitions,
                replication_factor=-1 if replication_factor is None else replication_factor,
                config=configs,
            )
        futures = self._admin.create_topics([topic], request_timeout=self.settings.timeout_s)
        try:
            futures[name].result()
        except KafkaException as exc:
            error = exc.args[0]
            if error.code() == TOPIC_ALREADY_EXISTS and tolerate_exists:
                return False
            raise self._topic_command_error(exc, f"CREATE on topic '{name}' or on the cluster") from None
        return True

    def create_partitions(
        self, targets: dict[str, tuple[int, list[list[int]] | None]], validate_only: bool = False
    ) -> None:
        """CreatePartitions for every topic at once: topic -> (new total, new replica lists).
        Sent as given (through the protocol layer): the broker judges counts that do not grow."""
        request = {
            name: {"count": total, "assignments": assignment} if assignment else total
            for name, (total, assignment) in targets.items()
        }
        response = self._via_protocol(
            "adding partitions",
            lambda: self._protocol.create_partitions(
                request, timeout_ms=self.settings.timeout_ms, validate_only=validate_only, raise_errors=False
            ),
            retry=False,
        )
        for result in response.results:
            if result.error_code:
                info = _protocol_error(result.error_code)
                message = result.error_message or info.message
                raise TopicCommandError(
                    _topic_denied(result.error_code, message, f"ALTER on topic '{result.name}'"),
                    result.error_code,
                )

    def delete_topics(self, names: list[str]) -> None:
        from confluent_kafka import KafkaException

        futures = self._admin.delete_topics(names, request_timeout=self.settings.timeout_s)
        for name, future in futures.items():
            try:
                future.result()
            except KafkaException as exc:
                raise self._topic_command_error(exc, f"DELETE on topic '{name}'") from None

    def _topic_command_error(self, exc: BaseException, needs: str) -> CliError:
        error = exc.args[0] if exc.args else exc
        code = getattr(error, "code", lambda: None)()
        if code in _TIMEOUT_CODES:
            return self._unreachable(exc)
        return TopicCommandError(_topic_denied(code, _error_text(exc), needs), code)

    def committed_offsets_on(self, topics: set[str]) -> dict[str, tuple[str, list[TopicPartition]]]:
        """Every consumer group with committed offsets on ``topics``: its state and those partitions."""
        listed = self.list_groups(frozenset(CONSUMER_GROUP_TYPES))
        groups = {g.group_id: g.state for g in select_consumer_groups(listed, frozenset(), frozenset())}
        if not groups:
            return {}
        offsets = self.committed_offsets(list(groups), many=True)
        found = {}
        for group, held in offsets.items():
            on = [tp for tp in held if tp[0] in topics]
            if on:
                found[group] = (groups[group], on)
        return found

    # -- groups --------------------------------------------------------------------------
    def list_groups(self, types: frozenset[str] = frozenset()) -> list[GroupListing]:
        """ListGroups on every broker, asking for ``types`` when the brokers know group types.

        Brokers older than ListGroups v5 have classic groups only, so their groups are
        reported as Classic, as the Apache Admin client does.
        """
        typed = self._broker_api_version(LIST_GROUPS_API_KEY) >= LIST_GROUPS_TYPES_VERSION
        raw = self._via_protocol(
            "listing groups",
            self._run,
            self._list_groups,
            [t.lower() for t in sorted(types)] if typed and types else None,
        )
        listings = []
        for g in raw:
            group_type = g.get("group_type") or ""
            listings.append(
                GroupListing(
                    group_id=g["group_id"],
                    type=group_type.capitalize()
                    if typed and group_type
                    else ("Unknown" if typed else "Classic"),
                    state=g.get("group_state") or "Unknown",
                    protocol_type=g.get("protocol_type") or "",
                )
            )
        return listings

    def consumer_group_ids(self) -> list[str]:
        """Every consumer group (classic and consumer protocol), as ``--all-groups`` means it."""
        listed = self.list_groups(frozenset(CONSUMER_GROUP_TYPES))
        return [g.group_id for g in select_consumer_groups(listed, frozenset(), frozenset())]

    # -- describe ------------------------------------------------------------------------
    def describe_groups(
        self, group_ids: list[str], detailed: bool = False
    ) -> tuple[dict[str, GroupDescription], list[str]]:
        """Describe consumer groups; returns the descriptions and the ids of missing groups.

        confluent-kafka's DescribeConsumerGroups serves the common case. ``detailed`` (epochs,
        member types, KIP-1282 creation time) and states confluent-kafka cannot name
        (``Assigning``, ``Reconciling``) go through the protocol layer instead.
        """
        if detailed:
            return self.describe_groups_detailed(group_ids)
        if not group_ids:
            return {}, []
        from confluent_kafka import KafkaException

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
        coordinator."""
        if not group_ids:
            return {}, []
        ids = list(dict.fromkeys(group_ids))
        described: tuple[dict[str, GroupDescription], list[str]] = self._via_protocol(
            "describing groups",
            self._run,
            self._describe_groups,
            ids,
            needs=_describe_groups_acl(ids),
            on_retry=lambda _missing: self._forget_coordinators(ids),
        )
        return described

    def streams_group_ids(self) -> list[str]:
        """Every streams group, as ``--all-groups`` means it (in the order ``--list`` shows them)."""
        listed = self.list_groups(frozenset({"Streams"}))
        return [g.group_id for g in select_streams_groups(listed, frozenset())]

    def describe_streams_groups(self, group_ids: list[str]) -> tuple[dict[str, StreamsGroup], dict[str, str]]:
        """StreamsGroupDescribe (KIP-1071) to each coordinator once for all its groups.

        Returns the descriptions and, for groups the broker does not know as streams groups,
        its message (``Group g not found.``, ``Group g is not a streams group.``)."""
        if not group_ids:
            return {}, {}
        if self._broker_api_version(STREAMS_GROUP_DESCRIBE_API_KEY) < 0:
            raise ClusterError(
                "The broker does not support streams groups (StreamsGroupDescribe); "
                "they need Kafka 4.2 or newer"
            )
        ids = list(dict.fromkeys(group_ids))
        described: tuple[dict[str, StreamsGroup], dict[str, str]] = self._via_protocol(
            "describing streams groups",
            self._run,
            self._describe_streams,
            ids,
            needs=_describe_groups_acl(ids),
            on_retry=lambda _missing: self._forget_coordinators(ids),
        )
        return described

    def committed_offsets(
        self, group_ids: list[str], many: bool = False
    ) -> dict[str, dict[TopicPartition, Committed]]:
        """Every committed offset of each group (OffsetFetch; the requests go out together).

        ``many``: the groups may hold thousands of offsets; the protocol layer decodes them
        several times faster than confluent-kafka builds its per-partition objects."""
        if many and group_ids:
            raw = self._via_protocol(
                "fetching committed offsets",
                self._protocol.list_group_offsets,
                {g: None for g in group_ids},
                needs=_describe_groups_acl(group_ids),
                on_retry=lambda _missing: self._forget_coordinators(group_ids),
            )
            return {
                group: {
                    (tp.topic, tp.partition): Committed(
                        om.offset, om.leader_epoch if om.leader_epoch >= 0 else None
                    )
                    for tp, om in offsets.items()
                    if om.offset >= 0
                }
                for group, offsets in raw.items()
            }
        return {
            group: {(tp.topic, tp.partition): Committed(tp.offset, tp.leader_epoch) for tp in listed}
            for group, listed in self._listed_offsets(group_ids).items()
        }

    def committed_with_metadata(self, group_id: str) -> dict[TopicPartition, tuple[int, str]]:
        """The group's committed offsets with the metadata string each was committed with."""
        listed = self._listed_offsets([group_id])[group_id]
        return {(tp.topic, tp.partition): (tp.offset, tp.metadata or "") for tp in listed}

    def _listed_offsets(self, group_ids: list[str]) -> dict[str, list[Any]]:
        """OffsetFetch per group through confluent-kafka (the requests go out together): the
        partitions that hold a committed offset, as confluent-kafka's TopicPartitions."""
        from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException

        result: dict[str, list[Any]] = {}

        def attempt(deadline: Deadline) -> None:
            pending = {
                g: self._admin.list_consumer_group_offsets(
                    [ConsumerGroupTopicPartitions(g)], request_timeout=_seconds_left(deadline)
                )[g]
                for g in group_ids
                if g not in result
            }
            waiting: list[str] = []
            reason = ""
            for group_id, future in pending.items():
                try:
                    listed = future.result()
                except KafkaException as exc:
                    if not is_retriable(exc):
                        raise self._admin_error(
                            exc,
                            f"fetching the committed offsets of '{group_id}'",
                            _describe_groups_acl([group_id]),
                        ) from None
                    waiting.append(group_id)
                    reason = describe_error(exc)
                    continue
                unsure = [tp for tp in listed.topic_partitions if tp.error is not None]
                if unsure and retriable_code(unsure[0].error.code()):
                    waiting.append(group_id)
                    reason = f"{unsure[0].topic}-{unsure[0].partition}: {unsure[0].error.str()}"
                    continue
                result[group_id] = [
                    tp for tp in listed.topic_partitions if tp.offset >= 0 and tp.error is None
                ]
            if waiting:
                raise Unavailable(f"the committed offsets of {_groups_named(waiting)}", reason)

        self._retrying("the committed offsets", attempt)
        return result

    def log_offsets(
        self, partitions: set[TopicPartition], earliest: bool = False, latest: bool = True
    ) -> tuple[dict[TopicPartition, int | None], dict[TopicPartition, int | None]]:
        """Log end offsets (``latest``) and log start offsets (``earliest``): one Metadata
        request, then ListOffsets for the partitions that have a leader (one request per
        leader and kind). A partition the metadata does not know maps to None.

        A partition that exists but whose offset cannot be read now (no leader, a leader that
        does not answer or is no longer the leader, a sentinel such as -1001 in place of an
        offset) is asked again, after fresh metadata, until ``--timeout``; then the error
        names the partitions. A sentinel is never returned as an offset."""
        ends: dict[TopicPartition, int | None] = dict.fromkeys(partitions) if latest else {}
        starts: dict[TopicPartition, int | None] = dict.fromkeys(partitions) if earliest else {}
        if not partitions or not (earliest or latest):
            return ends, starts
        absent: set[TopicPartition] = set()
        kinds = [("end", ends)] if latest else []
        kinds += [("start", starts)] if earliest else []

        def attempt(deadline: Deadline) -> None:
            todo = {tp for _, target in kinds for tp, offset in target.items() if offset is None} - absent
            if not todo:
                return
            leaders, leaderless, unknown = self._leadership(todo)
            absent.update(unknown)
            failures: dict[tuple[str, TopicPartition], str] = {
                (kind, tp): "no leader" for kind, target in kinds for tp in leaderless if tp in target
            }
            if leaders and len(partitions) > PROTOCOL_LAYER_THRESHOLD:
                # confluent-kafka makes a Python future per partition, which costs more than the
                # requests themselves on thousands of partitions; the protocol layer decodes the
                # per-leader responses directly.
                self._via_protocol(
                    "listing partition offsets",
                    self._run,
                    self._log_offsets,
                    leaders,
                    [(kind, target) for kind, target in kinds],
                    failures,
                    retry=False,
                )
            elif leaders:
                self._list_offsets(leaders, kinds, failures, deadline)
            if failures:
                raise Unavailable(_offsets_missing(failures), _common_reason(failures))

        self._retrying("the log offsets", attempt)
        return ends, starts

    def _list_offsets(
        self,
        leaders: dict[int, list[TopicPartition]],
        kinds: list[tuple[str, dict[TopicPartition, int | None]]],
        failures: dict[tuple[str, TopicPartition], str],
        deadline: Deadline,
    ) -> None:
        """ListOffsets through confluent-kafka for the partitions of ``kinds`` still unknown;
        what cannot be read now goes to ``failures``."""
        from confluent_kafka import KafkaException
        from confluent_kafka import TopicPartition as ConfluentTP
        from confluent_kafka.admin._listoffsets import OffsetSpec

        led = sorted(tp for tps in leaders.values() for tp in tps)
        leader_of = {tp: leader for leader, tps in leaders.items() for tp in tps}
        specs = {"end": OffsetSpec.latest(), "start": OffsetSpec.earliest()}  # type: ignore[no-untyped-call]
        pending = [
            (
                kind,
                target,
                self._admin.list_offsets(
                    {ConfluentTP(t, p): specs[kind] for t, p in led if target.get((t, p), 0) is None},
                    request_timeout=_seconds_left(deadline),
                ),
            )
            for kind, target in kinds
        ]
        for kind, target, futures in pending:
            for tp, future in futures.items():
                key = (tp.topic, tp.partition)
                try:
                    offset = future.result().offset
                except KafkaException as exc:
                    if not is_retriable(exc):
                        raise self._admin_error(
                            exc, f"reading the log {kind} offset of {tp.topic}-{tp.partition}"
                        ) from None
                    failures[(kind, key)] = f"leader broker {leader_of[key]}: {describe_error(exc)}"
                    continue
                if is_sentinel(offset):
                    failures[(kind, key)] = (
                        f"leader broker {leader_of[key]} answered {offset} instead of an offset"
                    )
                else:
                    target[key] = offset

    def _leadership(
        self, partitions: set[TopicPartition]
    ) -> tuple[dict[int, list[TopicPartition]], list[TopicPartition], list[TopicPartition]]:
        """The partitions by leader id; those that exist without a leader; those the metadata
        does not know (cached metadata)."""
        metadata = self._metadata({t for t, _ in partitions})
        leaders: dict[int, list[TopicPartition]] = defaultdict(list)
        leaderless: list[TopicPartition] = []
        unknown: list[TopicPartition] = []
        for tp in sorted(partitions):
            topic = metadata.topics.get(tp[0])
            partition = topic.partitions.get(tp[1]) if topic is not None else None
            if partition is None:
                unknown.append(tp)
            elif partition.leader >= 0:
                leaders[partition.leader].append(tp)
            else:
                leaderless.append(tp)
        return leaders, leaderless, unknown

    def _metadata(self, topics: set[str] | None = None) -> Any:
        """Cluster metadata, fetched once per command. With a few ``topics`` named, and no full
        metadata at hand, only those topics are asked for (one small request each): a
        cluster's full metadata can be thousands of partitions."""
        if self._cached_metadata is None and topics is not None and len(topics) <= _FEW_TOPICS:
            from types import SimpleNamespace

            def by_topic(deadline: Deadline) -> None:
                for name in sorted(topics - set(self._topic_metadata)):
                    found = self._admin_call(
                        "the cluster metadata", self._admin.list_topics, topic=name, deadline=deadline
                    )
                    self._topic_metadata[name] = found.topics[name]

            self._retrying("the cluster metadata", by_topic)
            return SimpleNamespace(topics={n: self._topic_metadata[n] for n in topics})
        if self._cached_metadata is None:

            def whole(deadline: Deadline) -> None:
                self._cached_metadata = self._admin_call(
                    "the cluster metadata", self._admin.list_topics, deadline=deadline
                )

            self._retrying("the cluster metadata", whole)
        return self._cached_metadata

    def _admin_call(self, missing: str, call: Any, deadline: Deadline, **kwargs: Any) -> Any:
        """A blocking confluent-kafka call given what is left of ``deadline``; a retriable
        failure is ``Unavailable`` naming ``missing``, any other the caller's to word."""
        from confluent_kafka import KafkaException

        try:
            return call(timeout=_seconds_left(deadline), **kwargs)
        except KafkaException as exc:
            if is_retriable(exc):
                raise Unavailable(missing, describe_error(exc)) from None
            raise self._unreachable(exc) from None

    def forget_metadata(self) -> None:
        """The next read fetches metadata again (partitions may have been added)."""
        self._cached_metadata = None
        self._topic_metadata.clear()

    def partition_count(self) -> int:
        """How many partitions the cluster has (from the cached metadata)."""
        return sum(len(t.partitions) for t in self._metadata().topics.values())

    def topic_partitions(self, topics: set[str]) -> dict[str, dict[int, int]]:
        """Partition -> leader id (-1: none) for each named topic that exists. A topic the
        principal may not describe is an error naming that ACL (the broker would otherwise
        make it look absent)."""
        metadata = self._metadata(topics)
        found: dict[str, dict[int, int]] = {}
        for name in sorted(topics):
            topic = metadata.topics.get(name)
            if topic is not None and topic.error is None:
                found[name] = {p.id: p.leader for p in topic.partitions.values()}
            elif topic is not None:
                hint = denied(topic.error.code(), {"topic": f"DESCRIBE on topic '{name}'"})
                if hint:
                    raise ClusterError(f"reading the partitions of topic '{name}' failed: {hint}")
        return found

    def offsets_for_time(
        self, partitions: set[TopicPartition], timestamp_ms: int
    ) -> dict[TopicPartition, int | None]:
        """The first offset at or after ``timestamp_ms`` per partition; None where no record is."""
        from confluent_kafka import KafkaException
        from confluent_kafka import TopicPartition as ConfluentTP
        from confluent_kafka.admin._listoffsets import OffsetSpec

        if not partitions:
            return {}
        # Before 1970 means "from the first record": negative values are ListOffsets sentinels.
        spec = OffsetSpec.for_timestamp(max(timestamp_ms, 0))  # type: ignore[no-untyped-call]
        found: dict[TopicPartition, int | None] = {}

        def attempt(deadline: Deadline) -> None:
            todo = sorted(tp for tp in partitions if tp not in found)
            futures = self._admin.list_offsets(
                {ConfluentTP(t, p): spec for t, p in todo}, request_timeout=_seconds_left(deadline)
            )
            failures: dict[tuple[str, TopicPartition], str] = {}
            for tp, future in futures.items():
                key = (tp.topic, tp.partition)
                try:
                    offset = future.result().offset
                except KafkaException as exc:
                    if not is_retriable(exc):
                        raise self._admin_error(
                            exc, f"looking up {tp.topic}-{tp.partition} by timestamp"
                        ) from None
                    failures[("by-time", key)] = describe_error(exc)
                    continue
                if offset == NO_OFFSET_FOR_TIME:  # no record at or after the time
                    found[key] = None
                elif is_sentinel(offset):
                    failures[("by-time", key)] = f"the leader answered {offset} instead of an offset"
                else:
                    found[key] = offset
            if failures:
                raise Unavailable(_offsets_missing(failures), _common_reason(failures))

        self._retrying("the offsets by timestamp", attempt)
        return found

    def alter_offsets(
        self,
        plans: dict[str, dict[TopicPartition, int]],
        many: bool = False,
        metadata: dict[TopicPartition, str] | None = None,
    ) -> dict[str, str | None]:
        """Commit new offsets for each (inactive) group; the requests go out together.
        Returns, per group, None on success or the broker's error. ``many``: thousands of
        partitions, sent through the protocol layer (one OffsetCommit per group).
        ``metadata``: the metadata string to commit with each partition's offset."""
        for group, offsets in plans.items():  # a sentinel reaching here is a bug: send nothing
            bad = sorted((tp, o) for tp, o in offsets.items() if is_sentinel(o))
            if bad:
                (topic, partition), offset = bad[0]
                raise ClusterError(
                    f"not committing {offset} for {topic}-{partition} of group '{group}': it is not an "
                    "offset (nothing was written)"
                )
        if many:
            return self._alter_offsets_protocol(plans)
        notes = metadata or {}
        from confluent_kafka import (
            ConsumerGroupTopicPartitions,
            KafkaException,
        )
        from confluent_kafka import (
            TopicPartition as ConfluentTP,
        )

        outcome: dict[str, str | None] = {}

        def attempt(deadline: Deadline) -> None:
            # Groups whose coordinator is loading or moving refused the commit (nothing was
            # written): only those are sent again. A lost answer is not retried here; the write
            # guard reads the offsets back instead.
            waiting = {g: o for g, o in plans.items() if o and outcome.get(g, "") is not None}
            pending = {
                group: self._admin.alter_consumer_group_offsets(
                    [
                        ConsumerGroupTopicPartitions(
                            group,
                            [
                                ConfluentTP(t, p, o, notes[(t, p)])
                                if (t, p) in notes
                                else ConfluentTP(t, p, o)
                                for (t, p), o in offsets.items()
                            ],
                        )
                    ],
                    request_timeout=max(0.1, deadline.remaining_s()),
                )[group]
                for group, offsets in waiting.items()
            }
            moving = []
            for group, future in pending.items():
                try:
                    result = future.result()
                    errors = [tp for tp in result.topic_partitions if tp.error is not None]
                    if errors:
                        first = errors[0]
                        if first.error.code() in COORDINATOR_MOVING:
                            moving.append(group)
                        needs = _commit_acl(group, first.topic)
                        reason = denied(first.error.code(), needs) or first.error.str()
                        outcome[group] = f"{first.topic}-{first.partition}: {reason}"
                    else:
                        outcome[group] = None
                except KafkaException as exc:
                    outcome[group] = _error_text(exc, _commit_acl(group, None))
            if moving:
                raise Unavailable(_coordinator_of(moving), "it refused the commit while moving or loading")

        with contextlib.suppress(NotAvailableInTime):  # then each group's last refusal stands
            self._retrying("the offset commit", attempt)
        return outcome

    def commit_offsets(self, group_id: str, offsets: dict[TopicPartition, tuple[int, str]]) -> None:
        """Commit (offset, metadata) per partition for a group without members; a partition
        that does not take its offset is an error."""
        if not offsets:
            return
        plan = {tp: offset for tp, (offset, _) in offsets.items()}
        notes = {tp: note for tp, (_, note) in offsets.items()}
        failure = self.alter_offsets({group_id: plan}, metadata=notes).get(group_id)
        if failure:
            raise ClusterError(f"committing the offsets of '{group_id}' failed: {failure}")

    def _alter_offsets_protocol(self, plans: dict[str, dict[TopicPartition, int]]) -> dict[str, str | None]:
        from kafka.errors import KafkaError
        from kafka.structs import OffsetAndMetadata
        from kafka.structs import TopicPartition as KafkaTP

        outcome: dict[str, str | None] = {}
        for group, offsets in plans.items():
            if not offsets:
                continue
            try:
                result = self._protocol.alter_group_offsets(
                    group, {KafkaTP(t, p): OffsetAndMetadata(o, "", -1) for (t, p), o in offsets.items()}
                )
            except KafkaError as exc:
                outcome[group] = denied(getattr(exc, "errno", None), _commit_acl(group, None)) or str(exc)
                continue
            errors = [(tp, err) for tp, err in result.items() if getattr(err, "errno", 0)]
            if errors:
                tp, err = errors[0]
                reason = denied(err.errno, _commit_acl(group, tp.topic)) or err.__name__
                outcome[group] = f"{tp.topic}-{tp.partition}: {reason}"
            else:
                outcome[group] = None
        return outcome

    def delete_offsets(
        self, group_id: str, partitions: list[TopicPartition]
    ) -> tuple[KafkaErrorInfo | None, dict[TopicPartition, KafkaErrorInfo | None]]:
        """OffsetDelete (KIP-496): the group-level error and each partition's (None: deleted).
        A group-level error is every partition's error, as the Apache Admin client reports it.

        The request goes out even with no partitions (the group-level answer still tells
        whether the group exists), as the Apache Admin client sends it."""
        top, codes = self._via_protocol(
            "deleting offsets",
            self._run,
            self._delete_offsets,
            group_id,
            partitions,
            retry=False,
            on_retry=lambda _missing: self._forget_coordinators([group_id]),
        )
        if top:
            return _protocol_error(top), dict.fromkeys(partitions, _protocol_error(top))
        return None, {tp: _protocol_error(code) if code else None for tp, code in codes.items()}

    async def _delete_offsets(
        self, group_id: str, partitions: list[TopicPartition]
    ) -> tuple[int, dict[TopicPartition, int]]:
        from kafka.structs import TopicPartition as KafkaTP

        client = self._protocol
        request = client._delete_group_offsets_request(group_id, [KafkaTP(t, p) for t, p in partitions])
        coordinator = (await self._coordinators_of([group_id]))[group_id]
        response = await client._manager.send(request, node_id=coordinator)
        if response.error_code in RETRIABLE_COORDINATOR_ERRORS:  # refused, not written: try again
            raise Unavailable(_coordinator_of([group_id]), _protocol_error(response.error_code).name)
        if response.error_code:
            return response.error_code, {}
        codes = {
            (topic.name, p.partition_index): p.error_code
            for topic in response.topics
            for p in topic.partitions
        }
        return 0, {tp: codes.get(tp, 0) for tp in partitions}

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
                if error.code() in _TIMEOUT_CODES:
                    raise self._unreachable(exc) from None
                answers[group_id] = error_info(error.code(), error.name(), error.str())
        return answers

    def supports_group_creation_time(self) -> bool:
        """KIP-1282: does every broker speak ConsumerGroupDescribe v2 (GroupCreationTimeMs)?"""
        return (
            self._broker_api_version(CONSUMER_GROUP_DESCRIBE_API_KEY)
            >= CONSUMER_GROUP_DESCRIBE_CREATION_TIME_VERSION
        )

    def supports_partition_creation_time(self) -> bool:
        """KIP-1327: does every broker speak DescribeTopicPartitions v1 (CreationTimeMs)?"""
        return (
            self._broker_api_version(DESCRIBE_TOPIC_PARTITIONS_API_KEY)
            >= DESCRIBE_TOPIC_PARTITIONS_CREATION_TIME_VERSION
        )

    def _admin_error(
        self, exc: BaseException, what: str, needs: dict[str, str] | None = None
    ) -> ClusterError:
        error = exc.args[0] if exc.args else exc
        code = getattr(error, "code", lambda: None)()
        if code in _TIMEOUT_CODES:
            return self._unreachable(exc)
        return ClusterError(f"{what} failed: {_error_text(exc, needs)}")

    # -- protocol work, run on kafka-python's network thread ------------------------------
    def _run(self, coro: Any, *args: Any) -> Any:
        return self._protocol._manager.run(coro, *args)

    def _broker_label(self, node_id: Any) -> str:
        """``2 (127.0.0.1:9092)``: a broker as messages name it."""
        broker = self._protocol._manager.cluster.broker_metadata(node_id)
        return f"{node_id} ({broker.host}:{broker.port})" if broker is not None else str(node_id)

    @staticmethod
    async def _answer(future: Any, missing: str) -> Any:
        """Await a protocol-layer request; a retriable failure (connection refused, timed out,
        stale metadata) becomes ``Unavailable`` naming what it would have brought."""
        from kafka.errors import KafkaError

        try:
            return await future
        except KafkaError as exc:
            if is_retriable(exc):
                raise Unavailable(missing, describe_error(exc)) from None
            raise

    async def _coordinators_of(self, group_ids: list[str]) -> dict[str, Any]:
        """FindCoordinator for the groups; a coordinator not yet elected or loading is
        ``Unavailable`` naming the group."""
        from kafka.errors import KafkaError

        try:
            found: dict[str, Any] = await self._protocol._find_coordinator_ids(group_ids)
        except KafkaError as exc:
            if is_retriable(exc):
                raise Unavailable(_coordinator_of(group_ids), describe_error(exc)) from None
            raise
        return found

    def _forget_coordinators(self, group_ids: list[str]) -> None:
        """Drop the protocol layer's cached coordinators, so the next attempt asks again."""
        from kafka.protocol.metadata import CoordinatorType

        cache = self._protocol._manager.cluster._coordinators
        for group_id in group_ids:
            cache.pop((CoordinatorType.GROUP, group_id), None)

    def _coordinator(self, node_id: int) -> Coordinator:
        broker = self._protocol._manager.cluster.broker_metadata(node_id)
        return Coordinator(broker.host, broker.port, node_id)

    async def _describe_groups(self, group_ids: list[str]) -> tuple[dict[str, GroupDescription], list[str]]:
        from kafka.protocol.admin import DescribeGroupsRequest

        from kafka_groups.access.messages import ConsumerGroupDescribeRequest

        client = self._protocol
        manager = client._manager
        coordinators = await self._coordinators_of(group_ids)
        by_node: dict[int, list[str]] = defaultdict(list)
        for group_id in group_ids:
            by_node[coordinators[group_id]].append(group_id)

        found: dict[str, GroupDescription] = {}
        classic: dict[int, list[str]] = defaultdict(list)
        if self._broker_api_version(CONSUMER_GROUP_DESCRIBE_API_KEY) >= 0:
            pending = [
                (
                    node,
                    manager.send(
                        ConsumerGroupDescribeRequest(group_ids=ids, include_authorized_operations=False),
                        node_id=node,
                    ),
                )
                for node, ids in by_node.items()
            ]
            for node, future in pending:
                response = await self._answer(future, _coordinator_of(by_node[node]))
                for group in response.groups:
                    _raise_if_retriable(group.group_id, group.error_code)
                    if group.error_code == 0:
                        found[group.group_id] = _consumer_group(
                            group, self._coordinator(node), response.API_VERSION
                        )
                    elif group.error_code in (GROUP_ID_NOT_FOUND, UNSUPPORTED_VERSION):
                        # Not a consumer-protocol group, or a broker with KIP-848 switched
                        # off (3.x): DescribeGroups knows the rest.
                        classic[node].append(group.group_id)
                    else:
                        raise _group_error(group.group_id, group.error_code, group.error_message)
        else:
            classic = by_node

        missing: list[str] = []
        pending_classic = [
            (
                node,
                manager.send(
                    DescribeGroupsRequest(groups=ids, include_authorized_operations=False), node_id=node
                ),
            )
            for node, ids in classic.items()
        ]
        for node, future in pending_classic:
            response = await self._answer(future, _coordinator_of(classic[node]))
            for group in response.groups:
                _raise_if_retriable(group.group_id, group.error_code)
                if group.error_code == GROUP_ID_NOT_FOUND or (
                    group.error_code == 0 and group.group_state == "Dead"
                ):
                    missing.append(group.group_id)
                elif group.error_code != 0:
                    raise _group_error(
                        group.group_id, group.error_code, getattr(group, "error_message", None)
                    )
                elif group.protocol_type not in ("consumer", ""):
                    missing.append(group.group_id)
                else:
                    found[group.group_id] = _classic_group(group, self._coordinator(node))
        return found, missing

    async def _list_groups(self, types: list[str] | None) -> list[dict[str, Any]]:
        """ListGroups to every broker at once. The raw type names go on the wire: the
        library's own helper only knows the types it has names for (not ``streams``)."""
        from kafka.protocol.admin import ListGroupsRequest

        client = self._protocol
        brokers = [b.node_id for b in client._manager.cluster.brokers()]
        request = ListGroupsRequest(types_filter=types, min_version=5) if types else ListGroupsRequest()
        sent = [(node, client._manager.send(request, node_id=node)) for node in brokers]
        groups: list[dict[str, Any]] = []
        for node, future in sent:
            # Every broker must answer: each coordinates its own share of the groups.
            missing = f"the list of groups on broker {self._broker_label(node)}"
            response = await self._answer(future, missing)
            if retriable_code(response.error_code):
                raise Unavailable(missing, _protocol_error(response.error_code).name)
            if response.error_code:
                raise ClusterError(f"listing groups failed: {_protocol_error(response.error_code).message}")
            groups.extend(g.to_dict() for g in response.groups)
        return groups

    async def _describe_streams(self, group_ids: list[str]) -> tuple[dict[str, StreamsGroup], dict[str, str]]:
        from kafka_groups.access.messages import StreamsGroupDescribeRequest

        client = self._protocol
        found: dict[str, StreamsGroup] = {}
        missing: dict[str, str] = {}
        coordinators = await self._coordinators_of(group_ids)
        by_node: dict[int, list[str]] = defaultdict(list)
        for group_id in group_ids:
            by_node[coordinators[group_id]].append(group_id)
        sent = [
            (
                node,
                client._manager.send(
                    StreamsGroupDescribeRequest(group_ids=ids, include_authorized_operations=False),
                    node_id=node,
                ),
            )
            for node, ids in by_node.items()
        ]
        for node, future in sent:
            response = await self._answer(future, _coordinator_of(by_node[node]))
            for group in response.groups:
                code = group.error_code
                _raise_if_retriable(group.group_id, code)
                if code == 0 and group.topology is not None:
                    found[group.group_id] = _streams_group(group, self._coordinator(node))
                elif code == GROUP_ID_NOT_FOUND:
                    missing[group.group_id] = group.error_message or f"Group {group.group_id} not found."
                elif code == 0:
                    raise ClusterError(f"group '{group.group_id}': the broker sent no topology")
                else:
                    raise _group_error(group.group_id, code, group.error_message)
        return found, missing

    async def _log_offsets(
        self,
        leaders: dict[int, list[TopicPartition]],
        kinds: list[tuple[str, dict[TopicPartition, int | None]]],
        failures: dict[tuple[str, TopicPartition], str],
    ) -> None:
        """Fill the targets of ``kinds`` (log "end" / "start" offsets) with one ListOffsets per
        leader and kind, all in flight together; what cannot be read now goes to ``failures``."""
        from kafka.admin import OffsetSpec
        from kafka.structs import TopicPartition as KafkaTP

        client = self._protocol
        specs = {"end": OffsetSpec.LATEST, "start": OffsetSpec.EARLIEST}
        pending = []
        for leader, tps in leaders.items():
            for kind, target in kinds:
                wanted = {KafkaTP(t, p): specs[kind] for t, p in tps if target.get((t, p), 0) is None}
                if wanted:
                    request = client._list_partition_offsets_request(wanted, 0)
                    pending.append((leader, tps, kind, target, client._manager.send(request, node_id=leader)))
        for leader, tps, kind, target, future in pending:
            try:
                response = await self._answer(future, f"leader {leader}")
            except Unavailable as exc:
                failures.update(
                    {(kind, tp): f"leader broker {leader}: {exc.reason}" for tp in tps if tp in target}
                )
                continue
            for topic in response.topics:
                for p in topic.partitions:
                    key = (topic.name, p.partition_index)
                    if p.error_code == 0 and not is_sentinel(p.offset):
                        target[key] = p.offset
                    elif p.error_code == 0 or retriable_code(p.error_code):
                        failures[(kind, key)] = (
                            f"leader broker {leader}: {_protocol_error(p.error_code).name}"
                        )
                    else:
                        reason = _protocol_error(p.error_code).message
                        name = f"{topic.name}-{p.partition_index}"
                        raise ClusterError(f"reading the log {kind} offset of {name} failed: {reason}")


# Above this many partitions, log offsets are read through the protocol layer (see log_offsets).
PROTOCOL_LAYER_THRESHOLD = 2000
NO_OFFSET_FOR_TIME = -1  # ListOffsets by timestamp: no record at or after it

DESCRIBE_TOPIC_PARTITIONS_API_KEY = 75
DESCRIBE_TOPIC_PARTITIONS_CREATION_TIME_VERSION = 1  # KIP-1327: CreationTimeMs per partition
DESCRIBE_PAGE = 2000  # partitions per DescribeTopicPartitions response, as the Apache tool asks
DEFAULT_CONFIG_SOURCE = 5  # DescribeConfigs ConfigSource.DEFAULT_CONFIG
CLUSTER_AUTHORIZATION_FAILED = 31
TOPIC_ALREADY_EXISTS = 36
GROUP_ID_NOT_FOUND = 69  # error codes
UNSUPPORTED_VERSION = 35
CONSUMER_GROUP_DESCRIBE_API_KEY = 69
STREAMS_GROUP_DESCRIBE_API_KEY = 89
CONSUMER_GROUP_DESCRIBE_CREATION_TIME_VERSION = 2  # KIP-1282: GroupCreationTimeMs


def _protocol_error(code: int) -> KafkaErrorInfo:
    """Error ``code`` in the Apache wording, or the protocol library's for codes we do not list."""
    from kafka.errors import for_code

    known = for_code(code)
    return error_info(code, getattr(known, "message", ""), getattr(known, "description", ""))


def _partition_state(p: Any, version: int, live_brokers: frozenset[int]) -> PartitionState:
    """A DescribeTopicPartitions partition; the creation time only from a v1 response (KIP-1327).
    A leader that is not a live broker counts as none, as the Apache Admin client maps it."""
    return PartitionState(
        partition=p.partition_index,
        leader=p.leader_id if p.leader_id in live_brokers else NO_LEADER,
        replicas=tuple(p.replica_nodes),
        isr=tuple(p.isr_nodes),
        elr=None if p.eligible_leader_replicas is None else tuple(p.eligible_leader_replicas),
        last_known_elr=None if p.last_known_elr is None else tuple(p.last_known_elr),
        creation_time_ms=p.creation_time_ms
        if version >= DESCRIBE_TOPIC_PARTITIONS_CREATION_TIME_VERSION
        else None,
    )


def _config_is_default(config: Any) -> bool:
    source = getattr(config, "config_source", None)
    if source is not None and source >= 0:
        return bool(source == DEFAULT_CONFIG_SOURCE)
    return bool(getattr(config, "is_default", False))


def _topic_denied(code: int | None, message: str, needs: str) -> str:
    """A kafka-topics refusal in the Apache wording, with the ACL it lacks when it is one."""
    if code not in AUTHORIZATION_RESOURCES:
        return message
    return f"{message.removeprefix('Broker: ').rstrip('.')}: the principal needs {needs}"


def _raise_if_retriable(group_id: str, code: int) -> None:
    """A group-level error that passes by itself (its coordinator is loading or moved)."""
    if retriable_code(code):
        raise Unavailable(_coordinator_of([group_id]), _protocol_error(code).name)


def _seconds_left(deadline: Deadline) -> float:
    """A confluent-kafka request timeout: what is left of the deadline (never 0, which it
    reads as "no timeout")."""
    return max(deadline.remaining_s(), 0.001)


def _offsets_missing(failures: dict[tuple[str, TopicPartition], str]) -> str:
    """``the log end offsets of orders-0, orders-4``: what a log offset lookup lacks."""
    parts = []
    for kind in ("end", "start", "by-time"):
        names = sorted({f"{t}-{p}" for (k, (t, p)) in failures if k == kind})
        if names:
            shown = ", ".join(names[:_NAMED]) + (
                f" and {len(names) - _NAMED} more" if len(names) > _NAMED else ""
            )
            plural = "s" if len(names) > 1 else ""
            noun = (
                f"the offset{plural} by timestamp" if kind == "by-time" else f"the log {kind} offset{plural}"
            )
            parts.append(f"{noun} of {shown}")
    return " and ".join(parts)


def _common_reason(failures: dict[tuple[str, TopicPartition], str]) -> str:
    reasons = sorted(set(failures.values()), key=lambda r: (-list(failures.values()).count(r), r))
    return reasons[0] + (f"; {len(reasons) - 1} other reason(s)" if len(reasons) > 1 else "")


def _groups_named(group_ids: list[str]) -> str:
    shown = ", ".join(f"'{g}'" for g in group_ids[:_NAMED])
    more = f" and {len(group_ids) - _NAMED} more" if len(group_ids) > _NAMED else ""
    return f"group{'s' if len(group_ids) > 1 else ''} {shown}{more}"


def _coordinator_of(group_ids: list[str]) -> str:
    noun = "coordinator" if len(group_ids) == 1 else "coordinators"
    return f"the {noun} of {_groups_named(group_ids)}"


def _describe_groups_acl(group_ids: list[str]) -> dict[str, str]:
    named = f"group '{group_ids[0]}'" if len(group_ids) == 1 else "each group"
    return {"group": f"DESCRIBE on {named}"}


def _commit_acl(group: str, topic: str | None) -> dict[str, str]:
    """What committing offsets (a reset) takes: READ on the group and on each topic."""
    return {
        "group": f"READ on group '{group}'",
        "topic": f"READ on topic '{topic}'" if topic else "READ on the topics",
    }


def _topic_error(topic: str, code: int) -> ClusterError:
    info = _protocol_error(code)
    return ClusterError(f"describing topic '{topic}' failed: {info.message}")


def _error_text(exc: BaseException, needs: dict[str, str] | None = None) -> str:
    error = exc.args[0] if exc.args else exc
    code = error.code() if hasattr(error, "code") else None
    hint = denied(code, needs) if needs is not None else None
    if hint:
        return hint
    text = error.str() if hasattr(error, "str") else str(error)
    return str(text)


def _confluent_states() -> dict[Any, str]:
    from confluent_kafka import ConsumerGroupState as S

    return {
        S.STABLE: "Stable",
        S.EMPTY: "Empty",
        S.PREPARING_REBALANCING: "PreparingRebalance",
        S.COMPLETING_REBALANCING: "CompletingRebalance",
        S.DEAD: "Dead",
    }


def _group_error(group_id: str, code: int, message: str | None) -> ClusterError:
    from kafka.errors import for_code

    error = for_code(code)
    text = message or getattr(error, "description", "") or error.__name__
    return ClusterError(f"group '{group_id}': {error.__name__}: {text}")


def _partitions(assignment: Any) -> tuple[TopicPartition, ...]:
    if assignment is None:
        return ()
    return tuple((tp.topic_name, p) for tp in assignment.topic_partitions for p in tp.partitions)


def _consumer_group(group: Any, coordinator: Coordinator, version: int) -> GroupDescription:
    members = tuple(
        Member(
            member_id=m.member_id,
            client_id=m.client_id,
            host=m.client_host,
            instance_id=m.instance_id,
            assignment=_partitions(m.assignment),
            target_assignment=_partitions(m.target_assignment),
            member_epoch=m.member_epoch,
            upgraded=None if version < 1 or m.member_type < 0 else m.member_type == 1,
        )
        for m in group.members
    )
    creation = (
        group.group_creation_time_ms if version >= CONSUMER_GROUP_DESCRIBE_CREATION_TIME_VERSION else None
    )
    return GroupDescription(
        group_id=group.group_id,
        state=group.group_state,
        type="Consumer",
        coordinator=coordinator,
        assignor=group.assignor_name,
        members=members,
        group_epoch=group.group_epoch,
        target_assignment_epoch=group.assignment_epoch,
        creation_time_ms=creation,
    )


def _tasks(entries: Any) -> Tasks:
    return Tasks(tuple((t.subtopology_id, tuple(t.partitions)) for t in entries or ()))


def _assignment(assignment: Any) -> Assignment:
    if assignment is None:
        return Assignment()
    return Assignment(
        _tasks(assignment.active_tasks), _tasks(assignment.standby_tasks), _tasks(assignment.warmup_tasks)
    )


def _streams_group(group: Any, coordinator: Coordinator) -> StreamsGroup:
    """A decoded StreamsGroupDescribe group. The KIP-1282 creation time is taken only when
    the decoded response has the field: never inferred from a version number."""
    topology = group.topology
    return StreamsGroup(
        group_id=group.group_id,
        state=group.group_state,
        group_epoch=group.group_epoch,
        target_assignment_epoch=group.assignment_epoch,
        topology_epoch=topology.epoch,
        subtopologies=tuple(
            Subtopology(
                subtopology_id=s.subtopology_id,
                source_topics=tuple(s.source_topics),
                repartition_sink_topics=tuple(s.repartition_sink_topics),
                changelog_topics=tuple(t.name for t in s.state_changelog_topics),
                repartition_source_topics=tuple(t.name for t in s.repartition_source_topics),
            )
            for s in topology.subtopologies or ()
        ),
        members=tuple(
            StreamsMember(
                member_id=m.member_id,
                member_epoch=m.member_epoch,
                client_id=m.client_id,
                client_host=m.client_host,
                process_id=m.process_id,
                topology_epoch=m.topology_epoch,
                assignment=_assignment(m.assignment),
                target_assignment=_assignment(m.target_assignment),
                is_classic=bool(m.is_classic),
                instance_id=m.instance_id,
            )
            for m in group.members
        ),
        coordinator=coordinator,
        creation_time_ms=getattr(group, "group_creation_time_ms", None),
    )


def _classic_group(group: Any, coordinator: Coordinator) -> GroupDescription:
    import struct

    from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment

    members = []
    for m in group.members:
        assigned: tuple[TopicPartition, ...] = ()
        if m.member_assignment:
            try:
                assignment = ConsumerProtocolAssignment.decode(m.member_assignment)
            except struct.error:  # not the consumer protocol's layout: nothing to show
                assignment = None
            if assignment is not None:
                assigned = tuple((a.topic, p) for a in assignment.assigned_partitions for p in a.partitions)
        members.append(
            Member(
                member_id=m.member_id,
                client_id=m.client_id,
                host=m.client_host,
                instance_id=m.group_instance_id,
                assignment=assigned,
            )
        )
    return GroupDescription(
        group_id=group.group_id,
        state=group.group_state,
        type="Classic",
        coordinator=coordinator,
        assignor=group.protocol_data or "",
        members=tuple(members),
    )
