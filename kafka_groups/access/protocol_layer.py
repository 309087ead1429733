"""kafka-python's protocol layer, loaded without the rest of kafka-python.

The package's ``__init__`` imports its consumer, producer, serializers and record formats
before anything else, none of which the tools use; its two message packages (``kafka.protocol.admin``
and ``kafka.protocol.consumer``) import every request they hold, and its admin client imports
both whole. :func:`prepare` and :func:`prepare_messages` register the three packages without
running their ``__init__`` (packages.py says how, and what an application that imports
kafka-python itself then gets), and :class:`ProtocolClient` opens a connection with the
library's connection manager alone, so that a command loads the requests it sends and no others.
:class:`~kafka_groups.access.connection.Connection` registers the package when it is made, so
that an application that builds one (``PolicyConsumer`` does) and then imports kafka-python
itself gets this package.
"""

from __future__ import annotations

import logging
import sys
from functools import cached_property
from typing import Any

from kafka_groups.access.packages import defer_init

PACKAGE = "kafka"
# The message packages, with the names the tools and the library's connection modules take
# from them, each from the module that defines it; any other name runs the package's __init__.
MESSAGES: dict[str, dict[str, str]] = {
    "kafka.protocol.admin": {
        "DescribeGroupsRequest": "groups",
        "ListGroupsRequest": "groups",
        "ListPartitionReassignmentsRequest": "topics",
    },
    "kafka.protocol.consumer": {
        "OffsetFetchRequest": "group",
        "OffsetCommitRequest": "group",
        "DEFAULT_GENERATION_ID": "group",
        "UNKNOWN_MEMBER_ID": "group",
        "FetchRequest": "fetch",
    },
}


def prepare() -> None:
    """Register kafka-python's package, its ``__init__`` not yet run (a no-op once imported)."""
    if PACKAGE in sys.modules:
        return
    defer_init(PACKAGE)
    # What the package's __init__ does first: its loggers stay quiet unless configured.
    logging.getLogger(PACKAGE).addHandler(logging.NullHandler())


def prepare_messages() -> None:
    """Register the message packages too (a no-op for one imported already). Done when a
    :class:`ProtocolClient` opens, not with :func:`prepare`: registering a subpackage imports
    its parent, which a command that does not use the layer never loads."""
    prepare()
    for package, names in MESSAGES.items():
        defer_init(package, names)


class ProtocolClient:
    """kafka-python's connection manager with its network thread started and bootstrapped.

    A bootstrap that times out (``bootstrap_timeout_ms``) does not raise: the client is left
    with ``bootstrapped`` false and the error in ``bootstrap_error``, to be bootstrapped again
    (``bootstrap(ms)``, which raises when it times out) or closed; without the setting it gives
    up after 30 s, as kafka-python's admin client does. ``config`` takes the connection manager's
    settings and ``bootstrap_timeout_ms``: any other is refused (a misspelt one is not dropped)."""

    def __init__(self, config: dict[str, Any]) -> None:
        prepare_messages()
        import socket

        from kafka.errors import KafkaConfigurationError, KafkaTimeoutError
        from kafka.net.manager import KafkaConnectionManager
        from kafka.net.selector import NetworkSelector

        # What kafka-python's admin client sets over the connection manager's defaults: answers
        # up to 100 MB (a 10,000-partition OffsetFetch, a cluster's metadata), no TCP keepalive.
        admin_defaults = {
            "receive_message_max_bytes": 100_000_000,
            "socket_options": [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
        }
        settings = {**admin_defaults, **config}
        timeout_ms = settings.pop("bootstrap_timeout_ms", 30_000)
        unknown = set(settings) - set(KafkaConnectionManager.DEFAULT_CONFIG)
        if unknown:
            raise KafkaConfigurationError(f"Unrecognized configs: {sorted(unknown)}")
        self.config = settings
        self.bootstrap_error: Any = None  # the KafkaTimeoutError of a bootstrap that timed out
        self._closed = False
        self._net = NetworkSelector(**settings)
        self.manager = KafkaConnectionManager(self._net, **settings)
        self._net.start()
        try:
            self.manager.bootstrap(timeout_ms)
        except KafkaTimeoutError as exc:
            self.bootstrap_error = exc
        except BaseException:
            self.close()
            raise

    @property
    def bootstrapped(self) -> bool:
        return bool(self.manager.bootstrapped)

    def bootstrap(self, timeout_ms: int) -> None:
        self.manager.bootstrap(timeout_ms)

    async def coordinators(self, group_ids: list[str]) -> dict[str, int]:
        """Each group's coordinator: those not known yet asked in one FindCoordinator (v4,
        Kafka 3.0 and later) or, before, one group after another (sent together, requests beyond
        the connection's ``max_in_flight_requests_per_connection`` would be refused). Each answer
        is kept by the cluster metadata as it comes, which raises an error a group is answered
        with as its ``KafkaError``."""
        from kafka.protocol.metadata import CoordinatorType, FindCoordinatorRequest

        group = CoordinatorType.GROUP
        cluster = self.manager.cluster
        found: dict[str, int] = {}
        for group_id in group_ids:
            known = cluster.get_coordinator(group_id, group)
            if known is not None:
                found[group_id] = known
        unknown = [group_id for group_id in group_ids if group_id not in found]
        if not unknown:
            return found

        def keep(group_id: str, answer: Any) -> None:
            found[group_id] = cluster.add_coordinator(answer, group, group_id, synthesize_node_id=False)

        send = self.manager.send
        if self.manager.broker_version_data.api_version(FindCoordinatorRequest) >= 4:
            from kafka_groups.access.group_answers import answered

            batch = FindCoordinatorRequest(key_type=group.value, coordinator_keys=unknown, min_version=4)
            # Thousands of groups share a few coordinators: the first answer of each is kept
            # by the library (which checks it and notes the broker), the others of the same
            # coordinator are put in its cache as the library puts them.
            kept: dict[tuple[int, str, int], int] = {}
            cache = cluster._coordinators
            for answer in (await send(answered(batch))).coordinators:
                where = (answer.node_id, answer.host, answer.port)
                node = kept.get(where) if answer.error_code == 0 else None
                if node is None:
                    keep(answer.key, answer)
                    if answer.error_code == 0:
                        kept[where] = found[answer.key]
                else:
                    cache[(group, answer.key)] = found[answer.key] = node
            return found
        for group_id in unknown:
            one = FindCoordinatorRequest(key=group_id, key_type=group.value, max_version=3)
            keep(group_id, await send(one))
        return found

    def offset_fetch_requests(self, group_ids: list[str]) -> list[tuple[str | None, Any]]:
        """OffsetFetch of every partition the groups committed: one request for all of them
        (v8, Kafka 3.0 and later) or, before, one per group; each with the group it asks for
        (None: the answer names its groups)."""
        from kafka.protocol.consumer.group import OffsetFetchRequest

        if self.manager.broker_version_data.api_version(OffsetFetchRequest) < 8:
            every = {"topics": None, "min_version": 2, "max_version": 8}  # None: all topics
            return [(g, OffsetFetchRequest(group_id=g, **every)) for g in group_ids]
        group = OffsetFetchRequest.OffsetFetchRequestGroup
        groups: list[Any]
        if [f.name for f in group._struct.untagged_fields(8)] == ["group_id", "topics"]:
            # Each group as the tuple of its v8 fields, which kafka-python encodes by position
            # to the same bytes as its object (half the time for thousands of groups).
            groups = [(g, None) for g in group_ids]
        else:
            groups = [group(group_id=g, topics=None) for g in group_ids]
        return [(None, OffsetFetchRequest(groups=groups, min_version=8, max_version=8))]

    @cached_property
    def admin(self) -> Any:
        """kafka-python's admin client on this connection, for the calls only it has (adding
        partitions, log directories, topic configs, requests to the controller). Its
        constructor would open a connection of its own and log in again, so it is bound to this
        one instead: each attribute the constructor sets is set from here (a test holds the
        list to the constructor's). It is closed with this client."""
        from kafka.admin import KafkaAdminClient
        from kafka.metrics import Metrics
        from kafka.net.compat import KafkaNetClient

        admin = KafkaAdminClient.__new__(KafkaAdminClient)
        admin.config = {**KafkaAdminClient.DEFAULT_CONFIG, **self.config}
        admin._metrics = Metrics()
        admin._client = KafkaNetClient(net=self._net, manager=self.manager)
        admin._manager = self.manager
        admin._net = self._net
        admin._closed = False
        admin._controller_id = None
        return admin

    def close(self) -> None:
        """Close the connections and stop the network thread (as the admin client closes)."""
        if self._closed:
            return
        self._closed = True
        if "admin" in self.__dict__:
            self.admin._closed = True
            self.admin._metrics.close()
        self.manager.close()
        self._net.close()
        self._net.stop()
