"""The connection to one cluster: its clients (created lazily, on first use, so ``--help`` and
argument errors never connect), the retry policy of retry.py, cluster metadata and the
translation of client failures into one-line errors.

confluent-kafka's AdminClient is the primary client; kafka-python's protocol layer serves
the requests confluent-kafka does not expose and is opened only by the calls that need it
(what those requests share, ApiVersions among it, is protocol_calls.py)."""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import time
from collections import defaultdict
from functools import cached_property
from typing import TYPE_CHECKING, Any

from kafka_groups.access import clients, packages, protocol_layer
from kafka_groups.access.config import kafka_python_config, librdkafka_config, security_of, warn_unmapped
from kafka_groups.access.diagnose import ConnectionWatch, listening_address, refused_addresses, tls_failure
from kafka_groups.access.naming import _describe_groups_acl, _error_text, _seconds_left
from kafka_groups.access.protocol_calls import ProtocolCalls
from kafka_groups.access.retry import (
    Deadline,
    NotAvailableInTime,
    Unavailable,
    describe_error,
    is_retriable,
    retry_until,
)
from kafka_groups.core.kafka_errors import denied
from kafka_groups.errors import ClusterError, ConfigError
from kafka_groups.settings import ConnectionSettings

if TYPE_CHECKING:
    from kafka_groups.core.describe import TopicPartition

# librdkafka's log lines go to this logger; a library sets no level and no output of its own
# (the tools' entry point, kafka_groups/cli/runner.py, configures logging).
logging.getLogger("kafka_groups.librdkafka").addHandler(logging.NullHandler())

_FEW_TOPICS = 8  # up to this many topics, metadata is asked for per topic
TIMEOUT_CODES = frozenset({-185, 7, -195})  # _TIMED_OUT, REQUEST_TIMED_OUT, _TRANSPORT
# How long the protocol layer tries to log in on its own before the AdminClient is asked why not
# (see Connection._protocol): a healthy SASL/TLS login takes well under a second.
FIRST_LOGIN_MS = 2000
# How long the protocol layer may log in when it starts early, while an AdminClient request is in
# flight (see Connection._start_protocol_early): that request's retries wait meanwhile.
EARLY_LOGIN_MS = 1000
# A read of many groups goes out in requests of at most this many groups, one batch after
# another, each under a deadline of its own (Connection._read_groups): the Apache tool's
# --timeout bounds each of its calls, and a read of thousands of groups that raced one
# deadline failed on a busy machine. 5,000 groups described in batches of 500 take as long as
# in one (2.3 s on a busy two-core machine); batches of 100 take a third longer.
GROUPS_PER_REQUEST = 500


class Connection(ProtocolCalls):
    """Clients, retries and error translation for one cluster, shared by every concern."""

    def __init__(self, settings: ConnectionSettings) -> None:
        # Before any of our ``kafka.*`` and ``confluent_kafka.*`` imports: the ones that come
        # first in a method (an error class, a message) would otherwise run the package's whole
        # __init__, its serializing clients included (packages.py).
        protocol_layer.prepare()
        packages.prepare_client()
        self.settings = settings
        self._cached_metadata: Any = None
        self._topic_metadata: dict[str, Any] = {}  # per-topic metadata, when only a few are needed
        self._watch = ConnectionWatch()  # the first authentication or TLS failure librdkafka reports
        self._deadline: Deadline | None = None  # the running operation's, while it runs
        self._silent_nodes: set[int] = set()  # brokers that did not answer (any broker would do)
        self._early_protocol: Any = None  # the protocol layer's client, started early, not yet used
        self.write_target_named = False  # the command said which cluster it writes to (commands/target.py)
        warn_unmapped(settings)

    # -- clients -------------------------------------------------------------------------
    @cached_property
    def _protocol(self) -> Any:
        """The protocol layer's client, logged in. On a secured listener a command that has not
        opened the AdminClient logs in with this client alone: one login, not two. kafka-python
        retries refused credentials or a failed TLS handshake until its timeout without saying
        which, so when the first ``FIRST_LOGIN_MS`` pass without a login the AdminClient is asked
        (it names either at once); if it gets through, the cluster was only slow, and the
        protocol layer goes on for what is left of the timeout. A client started early whose
        login has not finished finishes it here, with this operation's time."""
        # Before the settings: an OAuth token provider's base class is kafka-python's, and the
        # message packages are registered without their __init__ only if nothing loaded them yet.
        protocol_layer.prepare_messages()
        from kafka.errors import KafkaError

        # First needed within an operation: what is left of it; else the whole timeout.
        left = self._deadline.remaining_ms() if self._deadline is not None else self.settings.timeout_ms
        total_ms = max(left, 1)
        client, self._early_protocol = self._early_protocol, None
        early = client is not None
        alone = not early and self._secured and "_admin" not in self.__dict__
        began = time.monotonic()
        if client is None:
            config = kafka_python_config(self.settings)
            config["bootstrap_timeout_ms"] = min(total_ms, FIRST_LOGIN_MS) if alone else total_ms
            client = protocol_layer.ProtocolClient(config)
        try:
            if not client.bootstrapped:
                if early:  # its login started early and has not finished: this operation's time
                    client.bootstrap(total_ms)
                elif not alone or total_ms <= FIRST_LOGIN_MS:
                    raise client.bootstrap_error
                else:
                    _ = self._admin  # which names refused credentials or TLS, or gets through
                    client.bootstrap(max(total_ms - int((time.monotonic() - began) * 1000), 1))
        except KafkaError as exc:
            client.close()
            raise self._unreachable(exc) from None
        except BaseException:
            client.close()
            raise
        return client

    def _start_protocol_early(self) -> None:
        """Start the protocol layer now, while an AdminClient request is in flight: loading
        kafka-python and logging in take longer than a group description's round trips, which
        librdkafka makes on threads of its own. The login gets about ``EARLY_LOGIN_MS`` here
        (that request's retries wait meanwhile; kafka-python looks at the time between its
        steps, so a broker that stalls within one can hold it up to its request timeout). What
        is left of the login is finished at the first use, with that operation's time, and
        whatever fails is met and raised there, as without this step."""
        if "_protocol" in self.__dict__ or self._early_protocol is not None:
            return
        protocol_layer.prepare_messages()
        left_ms = self._deadline.remaining_ms() if self._deadline is not None else EARLY_LOGIN_MS
        # A setting refused or a client that cannot start: the first use meets it and raises it.
        with contextlib.suppress(Exception):
            config = kafka_python_config(self.settings)
            config["bootstrap_timeout_ms"] = max(min(left_ms, EARLY_LOGIN_MS), 1)
            self._early_protocol = protocol_layer.ProtocolClient(config)

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

    def _read_groups(self, what: str, read: Any, group_ids: list[str]) -> list[Any]:
        """A protocol-layer read of many groups (``read``, a coroutine given a list of group
        ids): in batches of at most ``GROUPS_PER_REQUEST`` groups, one after another, each a
        read of its own under ``--timeout`` (its own deadline and retries, as each request of
        the protocol layer has its own timeout), so that no group waits for the time the
        groups before it took. A batch whose coordinators change is asked again after they are
        forgotten. Returns each batch's answer, in order; the first batch that fails raises."""
        ids = list(dict.fromkeys(group_ids))
        batches = [ids[i : i + GROUPS_PER_REQUEST] for i in range(0, len(ids), GROUPS_PER_REQUEST)]
        return [
            self._via_protocol(
                what,
                self._run,
                read,
                batch,
                needs=_describe_groups_acl(ids),
                on_retry=lambda _missing, batch=batch: self._forget_coordinators(batch),
            )
            for batch in batches
        ]

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
            try:
                self._await_connection(admin)
            except BaseException:
                clients.retire(admin)  # never cached: close() would not see it
                raise
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
        try:
            if self._early_protocol is not None:  # started early, never used
                self._early_protocol.close()
            if "_protocol" in self.__dict__:
                self._protocol.close()
        finally:
            if "_admin" in self.__dict__:
                clients.retire(self.__dict__.pop("_admin"))
            clients.sweep(wait=False)  # freed while the command goes on to print

    def _leadership(
        self, partitions: set[TopicPartition]
    ) -> tuple[dict[int, list[TopicPartition]], list[TopicPartition], list[TopicPartition]]:
        """The partitions by leader id; those that exist without a leader; those the metadata
        does not know (cached metadata)."""
        metadata = self._metadata({t for t, _ in partitions})
        leaders: dict[int, list[TopicPartition]] = defaultdict(list)
        leaderless: list[TopicPartition] = []
        unknown: list[TopicPartition] = []
        described: dict[str, Any] = {}  # per topic: its partitions' metadata ({}: not known)
        for tp in sorted(partitions):
            known = described.get(tp[0])
            if known is None:
                topic = metadata.topics.get(tp[0])
                known = described[tp[0]] = topic.partitions if topic is not None else {}
            partition = known.get(tp[1])
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

    def cluster_id(self) -> str | None:
        """The cluster's id (None from a broker that gives none), from the metadata this
        connection's clients already read: the protocol layer's, the metadata of a listing, or
        what librdkafka keeps from the AdminClient's first metadata answer (that answer is what
        a connection that has sent nothing yet waits for)."""
        if "_protocol" in self.__dict__:
            known = self._protocol.manager.cluster.cluster_id
            if known:
                return str(known)
        listed = getattr(self._cached_metadata, "cluster_id", None)
        if listed:
            return str(listed)

        def ask(deadline: Deadline) -> Any:
            return self._admin_call("the cluster id", self._admin.cluster_id, deadline=deadline)

        found = self._retrying("the cluster id", ask)
        return str(found) if found else None

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

    def _knows(self, topic: str) -> bool:
        """Whether this connection has read the topic's metadata (and so has librdkafka)."""
        cached = self._cached_metadata
        return topic in self._topic_metadata or (cached is not None and topic in cached.topics)

    def forget_metadata(self) -> None:
        """The next read fetches metadata again (partitions may have been added)."""
        self._cached_metadata = None
        self._topic_metadata.clear()

    def _admin_error(
        self, exc: BaseException, what: str, needs: dict[str, str] | None = None
    ) -> ClusterError:
        error = exc.args[0] if exc.args else exc
        code = getattr(error, "code", lambda: None)()
        if code in TIMEOUT_CODES:
            return self._unreachable(exc)
        return ClusterError(f"{what} failed: {_error_text(exc, needs)}")
