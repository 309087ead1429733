"""The requests confluent-kafka lacks, sent through kafka-python's protocol layer: what they
share (running a coroutine on the layer's network thread, coordinators, the brokers' API
versions, how a broker is named), kept in one place with the layer's internals they use.
:class:`~kafka_groups.access.connection.Connection` opens the layer's client on first use."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from kafka_groups.access.decode import (
    CONSUMER_GROUP_DESCRIBE_API_KEY,
    CONSUMER_GROUP_DESCRIBE_CREATION_TIME_VERSION,
    DESCRIBE_TOPIC_PARTITIONS_API_KEY,
    DESCRIBE_TOPIC_PARTITIONS_CREATION_TIME_VERSION,
)
from kafka_groups.access.naming import _coordinator_of
from kafka_groups.access.retry import Unavailable, describe_error, is_retriable
from kafka_groups.errors import UnsupportedByBroker

if TYPE_CHECKING:  # the group descriptions load where they are made (decode.py says why)
    from kafka_groups.core.capabilities import Capability
    from kafka_groups.core.describe import Coordinator


class ProtocolCalls:
    """The protocol layer's shared steps, for the access classes built on ``Connection``."""

    @property
    def _protocol(self) -> Any:
        """The protocol layer's client, logged in (``Connection`` opens it)."""
        raise NotImplementedError

    def _run(self, coro: Any, *args: Any) -> Any:
        return self._protocol.manager.run(coro, *args)

    def _broker_label(self, node_id: Any) -> str:
        """``2 (127.0.0.1:9092)``: a broker as messages name it."""
        broker = self._protocol.manager.cluster.broker_metadata(node_id)
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

    async def _version_on(self, node: int, request: Any) -> int | None:
        """The version ``request`` goes out in on the connection to ``node``, once that
        connection is logged in (its brokers' ApiVersions are known); None where it cannot be
        told (the connection fails, which the send itself then meets and reports). A request
        whose body is written for one version must be sent in it: the caller sets its
        ``API_VERSION``."""
        from kafka.errors import KafkaError

        try:
            connection = self._protocol.manager.get_connection(node)
            await connection
            versions = connection.broker_version_data
            return None if versions is None else int(versions.api_version(request))
        except KafkaError:
            return None

    async def _coordinators_of(self, group_ids: list[str]) -> dict[str, Any]:
        """FindCoordinator for the groups; a coordinator not yet elected or loading is
        ``Unavailable`` naming the group."""
        from kafka.errors import KafkaError

        try:
            found: dict[str, Any] = await self._protocol.coordinators(group_ids)
        except KafkaError as exc:
            if is_retriable(exc):
                raise Unavailable(_coordinator_of(group_ids), describe_error(exc)) from None
            raise
        return found

    def _forget_coordinators(self, group_ids: list[str]) -> None:
        """Drop the protocol layer's cached coordinators, so the next attempt asks again."""
        from kafka.protocol.metadata import CoordinatorType

        cache = self._protocol.manager.cluster._coordinators
        for group_id in group_ids:
            cache.pop((CoordinatorType.GROUP, group_id), None)

    def _coordinator(self, node_id: int) -> Coordinator:
        from kafka_groups.core.describe import Coordinator

        broker = self._protocol.manager.cluster.broker_metadata(node_id)
        return Coordinator(broker.host, broker.port, node_id)

    def _refresh_protocol_metadata(self) -> None:
        from kafka.errors import KafkaError

        # A failed refresh is left to the next attempt, which meets whatever is wrong and names it.
        with contextlib.suppress(KafkaError):
            self._run(self._protocol.manager.cluster.refresh_metadata)

    def _broker_api_version(self, api_key: int) -> int:
        """The highest version of an API that the brokers support (-1: none).

        Read from the negotiated ApiVersions table itself: kafka-python's ``api_versions()``
        fails on API keys newer than it knows, which recent brokers send."""
        versions = self._protocol.manager.broker_version_data.api_versions
        low_high = versions.get(api_key)
        return int(low_high[1]) if low_high else -1

    def supports(self, capability: Capability) -> bool:
        """Whether the broker has a capability (core/capabilities.py), from its ApiVersions answer."""
        from kafka_groups.core.capabilities import has

        return has({capability.key: self._broker_api_version(capability.key)}, capability)

    def require_streams_groups(self) -> None:
        """Refuse, naming the API and the release that brings it, where the broker cannot have
        streams groups: a listing or description would otherwise be empty, not true."""
        from kafka_groups.core.capabilities import STREAMS_GROUPS, streams_refusal

        if not self.supports(STREAMS_GROUPS):
            raise UnsupportedByBroker(streams_refusal())

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
