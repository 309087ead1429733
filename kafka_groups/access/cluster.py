"""The only code that talks to Kafka.

Clients are created lazily, on first use, so ``--help`` and argument errors never connect.
confluent-kafka's AdminClient is the primary client; kafka-python's protocol layer serves
the requests confluent-kafka does not expose (ListGroups with protocol type and every
KIP-848 state name, OffsetDelete, StreamsGroupDescribe, ...).
"""

from __future__ import annotations

import logging
from functools import cached_property
from typing import Any

from kafka_groups.access.config import kafka_python_config, librdkafka_config, warn_unmapped
from kafka_groups.core.groups import GroupListing
from kafka_groups.errors import ClusterError
from kafka_groups.settings import ConnectionSettings

LIST_GROUPS_API_KEY = 16
LIST_GROUPS_TYPES_VERSION = 5  # KIP-848: ListGroups v5 carries and filters the group type
_TIMEOUT_CODES = frozenset({-185, 7, -195})  # _TIMED_OUT, REQUEST_TIMED_OUT, _TRANSPORT


def _quiet_client_logs(debug: bool) -> None:
    level = logging.DEBUG if debug else logging.CRITICAL + 1
    logging.getLogger("kafka").setLevel(level)
    logging.getLogger("kafka_groups.librdkafka").setLevel(level)
    if debug:
        logging.basicConfig(level=logging.DEBUG)


class KafkaAccess:
    """Batched reads and writes against one cluster."""

    def __init__(self, settings: ConnectionSettings) -> None:
        self.settings = settings
        _quiet_client_logs(settings.debug)
        warn_unmapped(settings)

    # -- clients -------------------------------------------------------------------------
    @cached_property
    def _protocol(self) -> Any:
        from kafka.admin import KafkaAdminClient
        from kafka.errors import KafkaError

        try:
            return KafkaAdminClient(**kafka_python_config(self.settings))
        except KafkaError as exc:
            raise self._unreachable(exc) from None

    def _unreachable(self, exc: BaseException) -> ClusterError:
        detail = f" ({exc})" if self.settings.debug else ""
        return ClusterError(
            f"cannot reach the cluster at {self.settings.bootstrap_servers} "
            f"within {self.settings.timeout_ms} ms{detail}"
        )

    def _broker_api_version(self, api_key: int) -> int:
        """The highest version of an API that the brokers support (-1: none).

        Read from the negotiated ApiVersions table itself: kafka-python's ``api_versions()``
        fails on API keys newer than it knows, which recent brokers send."""
        versions = self._protocol._manager.broker_version_data.api_versions
        low_high = versions.get(api_key)
        return int(low_high[1]) if low_high else -1

    @cached_property
    def _admin(self) -> Any:
        from confluent_kafka.admin import AdminClient

        config = librdkafka_config(self.settings)
        config["logger"] = logging.getLogger("kafka_groups.librdkafka")
        return AdminClient(config)

    def close(self) -> None:
        if "_protocol" in self.__dict__:
            self._protocol.close()

    def _wait(self, future: Any, what: str) -> Any:
        """The result of an AdminClient future, with failures as one-line ClusterErrors."""
        from confluent_kafka import KafkaException

        try:
            return future.result()
        except KafkaException as exc:
            error = exc.args[0] if exc.args else exc
            if getattr(error, "code", lambda: None)() in _TIMEOUT_CODES:
                raise self._unreachable(exc) from None
            raise ClusterError(f"{what} failed: {getattr(error, 'str', lambda: str(error))()}") from None

    # -- topics --------------------------------------------------------------------------
    def list_topics(self) -> list[str]:
        """Every topic name the cluster metadata reports, internal ones included."""
        from confluent_kafka import KafkaException

        try:
            metadata = self._admin.list_topics(timeout=self.settings.timeout_s)
        except KafkaException as exc:
            raise self._unreachable(exc) from None
        return list(metadata.topics)

    # -- groups --------------------------------------------------------------------------
    def list_groups(self, types: frozenset[str] = frozenset()) -> list[GroupListing]:
        """ListGroups on every broker, asking for ``types`` when the brokers know group types.

        Brokers older than ListGroups v5 have classic groups only, so their groups are
        reported as Classic, as the Apache Admin client does.
        """
        from kafka.errors import KafkaError

        try:
            typed = self._broker_api_version(LIST_GROUPS_API_KEY) >= LIST_GROUPS_TYPES_VERSION
            raw = self._protocol.list_groups(
                types_filter=[t.lower() for t in sorted(types)] if typed and types else None
            )
        except KafkaError as exc:
            raise ClusterError(f"listing groups failed: {exc}") from None
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
