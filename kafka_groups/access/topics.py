"""Topics: listing, describing (DescribeTopicPartitions, or Metadata on brokers before 3.8;
DescribeConfigs, reassignments), creating, adding partitions and deleting."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from kafka_groups.access.connection import TIMEOUT_CODES, Connection
from kafka_groups.access.decode import (
    CLUSTER_AUTHORIZATION_FAILED,
    DESCRIBE_PAGE,
    TOPIC_ALREADY_EXISTS,
    UNSUPPORTED_VERSION,
    _config_is_default,
    _partition_states,
    _protocol_error,
)
from kafka_groups.access.naming import _error_text, _topic_denied, _topic_error
from kafka_groups.access.retry import Unavailable, describe_error, is_retriable
from kafka_groups.core.kafka_errors import denied
from kafka_groups.errors import CliError, ClusterError, TopicCommandError

# The topic states load where they are made: the groups tools' commands mostly make none, and
# every command loads this module (tests/unit/test_import_budget.py).
if TYPE_CHECKING:
    from kafka_groups.core.topic_states import ConfigValue, PartitionState, Reassignment, TopicState


class TopicsAccess(Connection):
    # -- topics --------------------------------------------------------------------------
    def list_topics(self) -> list[str]:
        """Every topic name the cluster metadata reports, internal ones included."""
        return list(self._metadata().topics)

    def cluster_summary(self) -> tuple[str | None, int]:
        """The cluster's id and how many brokers it has: one DescribeCluster."""

        def ask(deadline: Any) -> Any:
            future = self._admin.describe_cluster(request_timeout=max(deadline.remaining_ms(), 1) / 1000)
            try:
                return future.result()
            except Exception as exc:
                if is_retriable(exc):
                    raise Unavailable("the cluster's description", describe_error(exc)) from None
                raise self._admin_error(exc, "describing the cluster") from None

        described = self._retrying("the cluster's description", ask)
        return described.cluster_id or None, len(described.nodes)

    def topic_layout(self) -> tuple[dict[str, tuple[int, str]], frozenset[int]]:
        """Every topic (internal ones included) with its partition count and id, and the live
        broker ids: one Metadata request through the protocol layer."""
        layout: tuple[dict[str, tuple[int, str]], frozenset[int]] = self._via_protocol(
            "reading the cluster metadata", self._run, self._topic_layout
        )
        return layout

    async def _topic_layout(self) -> tuple[dict[str, tuple[int, str]], frozenset[int]]:
        from kafka.protocol.metadata import MetadataRequest

        from kafka_groups.core.topic_states import kafka_uuid

        response = await self._protocol.manager.send(
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
        brokers have it; Metadata on brokers before 3.8, which lack it), every config
        (DescribeConfigs) and ongoing reassignments of the named topics; the requests go out
        together, partitions in pages of 2,000."""
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
        from kafka_groups.core.capabilities import DESCRIBE_TOPIC_PARTITIONS
        from kafka_groups.core.topic_states import MIN_ISR, ConfigValue, TopicState, kafka_uuid

        client = self._protocol
        manager = client.manager
        # Brokers before 3.8 lack DescribeTopicPartitions: the partitions come from Metadata, as the
        # Apache Admin client falls back to it (its partitions then carry no ELR: "Elr: N/A").
        by_metadata = not self.supports(DESCRIBE_TOPIC_PARTITIONS)
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

        pending = [] if by_metadata else [(i, names, page(i, names)) for i, names in enumerate(batches)]
        # what each page went to, to name a broker that does not answer
        node_of = {index: nodes[index % len(nodes)] for index, _, _ in pending}
        resources = [ConfigResource(ConfigResourceType.TOPIC, name) for name in sorted(counts)]
        configs_future = manager.send(client.admin._describe_configs_request(resources), node_id=nodes[0])

        partitions: dict[str, list[PartitionState]] = defaultdict(list)
        ids: dict[str, str] = {}
        if by_metadata:
            ids, by_topic = await self._partitions_by_metadata(sorted(counts), nodes[0], live_brokers)
            partitions.update(by_topic)
        while pending:
            index, names, future = pending.pop(0)
            response = await answer(node_of[index], future)
            for topic in response.topics:
                if topic.error_code:
                    raise _topic_error(topic.name, topic.error_code)
                ids[topic.name] = kafka_uuid(topic.topic_id)
                partitions[topic.name].extend(
                    _partition_states(topic.partitions, response.API_VERSION, live_brokers)
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
            # Kept: what the output shows (the overrides) and what the reports read
            # (min.insync.replicas, whatever its source). A topic has some thirty configs, nearly
            # all defaults: on 1,000 topics that is 30,000 values no one would look at.
            configs[result.resource_name] = tuple(
                ConfigValue(c.name, c.value, is_default)
                for c in result.configs
                if not (is_default := _config_is_default(c)) or c.name == MIN_ISR
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

    async def _partitions_by_metadata(
        self, names: list[str], node: int | None, live_brokers: frozenset[int]
    ) -> tuple[dict[str, str], dict[str, list[PartitionState]]]:
        """Topic ids and partition states from one Metadata request (brokers without
        DescribeTopicPartitions). A leader that is not a live broker counts as none, as the
        Apache Admin client maps it; no ELR (None: "N/A")."""
        from kafka.protocol.metadata import MetadataRequest

        from kafka_groups.core.topic_states import NO_LEADER, PartitionState, kafka_uuid

        request = MetadataRequest(
            topics=[MetadataRequest.MetadataRequestTopic(name=n) for n in names],
            allow_auto_topic_creation=False,
        )
        missing = (
            f"an answer from broker {self._broker_label(node)}"
            if node is not None
            else "the topics' metadata"
        )
        response = await self._answer(self._protocol.manager.send(request, node_id=node), missing)
        ids: dict[str, str] = {}
        partitions: dict[str, list[PartitionState]] = {}
        for topic in response.topics:
            if topic.error_code:
                raise _topic_error(topic.name, topic.error_code)
            ids[topic.name] = kafka_uuid(getattr(topic, "topic_id", None))
            partitions[topic.name] = [
                PartitionState(
                    partition=p.partition_index,
                    leader=p.leader_id if p.leader_id in live_brokers else NO_LEADER,
                    replicas=tuple(p.replica_nodes),
                    isr=tuple(p.isr_nodes),
                )
                for p in topic.partitions
            ]
        return ids, partitions

    async def _reassignments(self) -> dict[tuple[str, int], Reassignment]:
        """Ongoing partition reassignments; none when the cluster will not say (as the Apache
        tool treats an unsupported or unauthorized request)."""
        from kafka.errors import ClusterAuthorizationFailedError, KafkaError, UnsupportedVersionError
        from kafka.protocol.admin import ListPartitionReassignmentsRequest

        from kafka_groups.core.topic_states import Reassignment

        request = ListPartitionReassignmentsRequest(timeout_ms=self.settings.timeout_ms, topics=None)
        try:
            response = await self._protocol.admin._send_request_to_controller(request)
        except (UnsupportedVersionError, ClusterAuthorizationFailedError):
            return {}
        except KafkaError as exc:
            if not is_retriable(exc):
                raise
            self._protocol.admin._controller_id = None  # ask for the controller again next time
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
        """CreateTopics for one topic; False when it exists and ``tolerate_exists``. A default
        partition count or replication factor (KIP-464) is refused, as the Apache Admin client
        refuses it, where the broker's CreateTopics is older than v4."""
        from confluent_kafka import KafkaError, KafkaException
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
            if error.code() == KafkaError._UNSUPPORTED_FEATURE and "KIP-464" in error.str():
                # A default partition count or replication factor where the broker's CreateTopics
                # is older than v4 (before 2.4): librdkafka refuses it before sending, from the
                # ApiVersions it holds (no connection of ours to ask), as the Apache Admin client does.
                raise TopicCommandError(
                    "Creating topics with default partitions/replication factor are only supported in "
                    "CreateTopicRequest version 4+. The following topics need values for partitions and "
                    f"replicas: [{name}]"
                ) from None
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
            lambda: self._protocol.admin.create_partitions(
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
        if code in TIMEOUT_CODES:
            return self._unreachable(exc)
        return TopicCommandError(_topic_denied(code, _error_text(exc), needs), code)

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
