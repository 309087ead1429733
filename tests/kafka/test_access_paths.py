"""The ways the access layer reads and writes offsets give the same answers: committed offsets
with and without metadata, log and by-time offsets in one ListOffsets call or several, commits
through confluent-kafka and, for thousands of partitions, through the protocol layer."""

from __future__ import annotations

import pytest
from confluent_kafka.admin import AdminClient

from kafka_groups.access import connection, offsets
from kafka_groups.access.cluster import KafkaAccess
from kafka_groups.access.config import MAX_IN_FLIGHT
from kafka_groups.access.protocol_layer import ProtocolClient
from kafka_groups.errors import ClusterError
from kafka_groups.settings import resolve_settings
from tests.kafka_helpers import (
    ActiveConsumer,
    Record,
    add_partitions,
    commit_offsets,
    committed,
    create_topic,
    delete_records_before,
    produce,
    unique,
)

pytestmark = pytest.mark.kafka


@pytest.fixture
def access(broker):
    client = KafkaAccess(resolve_settings(broker.bootstrap, None, 10000))
    yield client
    client.close()


def test_committed_offsets_agree(broker, access):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("ap"), partitions=4)
    group = unique("ap")
    commit_offsets(bs, group, {(topic, 0): 3, (topic, 2): 9})
    held = access.committed_offsets([group])
    assert {tp: c.offset for tp, c in held[group].items()} == {(topic, 0): 3, (topic, 2): 9}
    assert access.committed_with_metadata(group) == {(topic, 0): (3, ""), (topic, 2): (9, "")}
    none = unique("ap-none")
    assert access.committed_offsets([none]) == {none: {}}


@pytest.mark.parametrize(
    ("api_version", "requests"),
    [(None, 2), ((2, 8), 6)],
    ids=["batched", "one_request_per_group"],
)
def test_committed_offsets_of_several_groups_in_one_read(broker, monkeypatch, api_version, requests):
    """One FindCoordinator and one OffsetFetch for all the groups on brokers that take them
    batched (FindCoordinator v4, OffsetFetch v8, Kafka 3.0 and later); one of each per group on
    older ones (the protocol layer told it speaks to Kafka 2.8)."""
    if api_version is not None:
        config = connection.kafka_python_config
        pinned = lambda settings: {**config(settings), "api_version": api_version}  # noqa: E731
        monkeypatch.setattr(connection, "kafka_python_config", pinned)
    bs = broker.bootstrap
    topic = create_topic(bs, unique("ap-groups"), partitions=3)
    groups = [unique("ap-groups") for _ in range(3)]
    commit_offsets(bs, groups[0], {(topic, 0): 5, (topic, 2): 7})
    commit_offsets(bs, groups[1], {(topic, 1): 6})
    access = KafkaAccess(resolve_settings(bs, None, 10000))
    try:
        layer = access._protocol
        sent: list[str] = []
        send = layer.manager.send

        def counted(request, **kwargs):
            # a request whose answer a decoder of ours reads goes out inside access/answers.Decoded
            sent.append(type(getattr(request, "request", request)).__name__)
            return send(request, **kwargs)

        asked = ("FindCoordinatorRequest", "OffsetFetchRequest")  # not a metadata refresh

        monkeypatch.setattr(layer.manager, "send", counted)
        held = access.committed_offsets(groups)
    finally:
        access.close()
    assert {g: {tp: c.offset for tp, c in held[g].items()} for g in groups} == {
        groups[0]: {(topic, 0): 5, (topic, 2): 7},
        groups[1]: {(topic, 1): 6},
        groups[2]: {},
    }
    assert sorted(n for n in sent if n in asked) == sorted([*asked] * (requests // 2))


def test_coordinators_of_more_groups_than_a_connection_takes_in_flight(broker):
    """Before Kafka 3.0 (no batched FindCoordinator) each group is asked on its own: more groups
    than the connection takes requests in flight are asked one after another, on a connection
    already open and on a new one, not refused or left waiting."""
    settings = {
        "bootstrap_servers": [broker.bootstrap],
        "api_version": (2, 8),
        "max_in_flight_requests_per_connection": MAX_IN_FLIGHT,
        "request_timeout_ms": 10000,
        "bootstrap_timeout_ms": 30000,
    }
    many = [unique("ap-coord") for _ in range(2 * MAX_IN_FLIGHT + 10)]
    # The group coordinators loaded first (a new broker answers COORDINATOR_NOT_AVAILABLE until then).
    commit_offsets(broker.bootstrap, many[0], {(create_topic(broker.bootstrap, unique("ap-coord"), 1), 0): 0})
    for first in ([], many[:1]):  # a new connection; one already open
        client = ProtocolClient(settings)
        try:
            if first:
                client.manager.run(client.coordinators, first)
            found = client.manager.run(client.coordinators, many)
            brokers = {b.node_id for b in client.manager.cluster.brokers()}
        finally:
            client.close()
        assert set(found) == set(many)
        assert set(found.values()) <= brokers


def test_a_describe_before_the_committed_offsets_opens_the_protocol_layer_while_in_flight(
    broker, access, monkeypatch
):
    """``offsets_next``: the protocol layer opens after the group descriptions are asked for
    and before their answers are waited for; the descriptions are those of a plain describe."""
    bs = broker.bootstrap
    topic = create_topic(bs, unique("ap-early"), partitions=2)
    group = unique("ap-early")
    commit_offsets(bs, group, {(topic, 0): 1, (topic, 1): 2})
    events: list[str] = []

    class Recorded(ProtocolClient):
        def __init__(self, config):
            events.append("opened")
            super().__init__(config)

    monkeypatch.setattr(connection.protocol_layer, "ProtocolClient", Recorded)
    config = connection.kafka_python_config
    built: list[int] = []  # the settings, built once (with TLS they hold an SSL context)
    monkeypatch.setattr(
        connection, "kafka_python_config", lambda settings: built.append(1) or config(settings)
    )
    admin = access._admin
    ask = admin.describe_consumer_groups

    def asked(*args, **kwargs):
        futures = ask(*args, **kwargs)
        events.append("asked")
        for future in futures.values():  # each answer waited for: recorded first
            wait = future.result
            future.result = lambda *a, _wait=wait, **k: (events.append("waited"), _wait(*a, **k))[1]
        return futures

    monkeypatch.setattr(admin, "describe_consumer_groups", asked)
    found, missing = access.describe_groups([group], offsets_next=True)
    assert events == ["asked", "opened", "waited"]
    assert missing == []
    plain = KafkaAccess(resolve_settings(bs, None, 10000))
    try:
        assert plain.describe_groups([group]) == (found, missing)
        assert "_protocol" not in vars(plain)  # without offsets_next, not opened
    finally:
        plain.close()
    held = access.committed_offsets([group])
    assert {tp: c.offset for tp, c in held[group].items()} == {(topic, 0): 1, (topic, 1): 2}
    assert events.count("opened") == 1
    assert built == [1]


def test_a_protocol_layer_that_fails_to_open_early_fails_where_first_used(broker, monkeypatch):
    """Started early and not logged in (here: kafka-python alone pointed at a port that
    refuses), the descriptions still come back; the first read that uses the layer goes on with
    the same client for its own time and fails with the words it would have had without the
    early start. A later read (a watch's next refresh) starts the layer again."""
    config = connection.kafka_python_config
    refused = lambda settings: {**config(settings), "bootstrap_servers": ["127.0.0.1:1"]}  # noqa: E731
    monkeypatch.setattr(connection, "kafka_python_config", refused)
    opened: list[int] = []

    class Counted(ProtocolClient):
        def __init__(self, config):
            opened.append(1)
            super().__init__(config)

    monkeypatch.setattr(connection.protocol_layer, "ProtocolClient", Counted)
    group = unique("ap-early-refused")
    topic = create_topic(broker.bootstrap, unique("ap-early-refused"), partitions=1)
    commit_offsets(broker.bootstrap, group, {(topic, 0): 0})
    access = KafkaAccess(resolve_settings(broker.bootstrap, None, 1500))
    try:
        found, missing = access.describe_groups([group], offsets_next=True)
        assert list(found) == [group] and missing == []
        assert opened == [1]
        with pytest.raises(ClusterError, match=r"cannot reach the cluster at .* within 1500 ms"):
            access.committed_offsets([group])
        assert opened == [1]
        monkeypatch.setattr(connection, "kafka_python_config", config)  # the cluster reachable again
        held = access.committed_offsets([group])
        assert {tp: c.offset for tp, c in held[group].items()} == {(topic, 0): 0}
        assert opened == [1, 1]
    finally:
        access.close()


def test_an_early_start_that_cannot_log_in_leaves_the_describe_time_to_retry(broker, monkeypatch):
    """The early start's login is bounded (EARLY_LOGIN_MS): a group description whose first
    answer asks for a retry (the coordinator loading) gets it, though kafka-python cannot log
    in (a port that refuses); with the describe's whole deadline the retry would not happen."""
    from concurrent.futures import Future

    from confluent_kafka import KafkaError, KafkaException

    config = connection.kafka_python_config
    refused = lambda settings: {**config(settings), "bootstrap_servers": ["127.0.0.1:1"]}  # noqa: E731
    monkeypatch.setattr(connection, "kafka_python_config", refused)
    group = unique("ap-early-retry")
    topic = create_topic(broker.bootstrap, unique("ap-early-retry"), partitions=1)
    commit_offsets(broker.bootstrap, group, {(topic, 0): 0})
    timeout_ms = 3 * connection.EARLY_LOGIN_MS
    access = KafkaAccess(resolve_settings(broker.bootstrap, None, timeout_ms))
    try:
        admin = access._admin
        ask = admin.describe_consumer_groups
        calls: list[int] = []

        def loading_first(ids, **kwargs):
            calls.append(1)
            if len(calls) > 1:
                return ask(ids, **kwargs)
            answers = {}
            for group_id in ids:
                answers[group_id] = Future()
                answers[group_id].set_exception(
                    KafkaException(KafkaError(KafkaError.COORDINATOR_LOAD_IN_PROGRESS))
                )
            return answers

        monkeypatch.setattr(admin, "describe_consumer_groups", loading_first)
        found, missing = access.describe_groups([group], offsets_next=True)
        assert list(found) == [group] and missing == []
        assert len(calls) == 2
    finally:
        access.close()


def test_the_admin_client_on_the_connection_has_what_its_constructor_sets(broker):
    """The calls only kafka-python's admin client has go through one bound to the command's
    connection (its constructor would log in again): it has each attribute the constructor
    sets, and works there."""
    from kafka.admin import KafkaAdminClient

    own = KafkaAdminClient(bootstrap_servers=broker.bootstrap, request_timeout_ms=10000)
    constructed = set(vars(own))
    own.close()
    client = ProtocolClient(
        {"bootstrap_servers": [broker.bootstrap], "request_timeout_ms": 10000, "bootstrap_timeout_ms": 30000}
    )
    assert client.bootstrapped
    try:
        admin = client.admin
        assert set(vars(admin)) == constructed
        assert admin._manager is client.manager
        brokers = {b.node_id for b in client.manager.cluster.brokers()}
        assert client.manager.run(admin._refresh_controller_id, 10000) in brokers
    finally:
        client.close()
    assert admin._closed


@pytest.mark.parametrize("many", [False, True])
def test_commit_metadata_reads_back_as_written(broker, access, many):
    # kafka-to-parquet marks its commits in the metadata string; librdkafka stores it with a C
    # terminator, which must not reach the reader (the expansion guard compares its fields).
    topic = create_topic(broker.bootstrap, unique("ap-md"), partitions=2)
    group = unique("ap-md")
    written = {(topic, 0): "kgt-pipeline;new-from-start", (topic, 1): ""}
    assert access.alter_offsets({group: {(topic, 0): 5, (topic, 1): 0}}, many=many, metadata=written) == {
        group: None
    }
    assert access.committed_with_metadata(group) == {
        (topic, 0): (5, written[(topic, 0)]),
        (topic, 1): (0, ""),
    }


def _binding_of_another_form(*_args, **_kwargs):
    raise TypeError("list_offsets() takes 2 positional arguments but 3 were given")


@pytest.mark.parametrize("call", [1, 2, 250])
@pytest.mark.parametrize("binding", ["batched", "public call"])
def test_log_offsets_in_calls_of_any_size(broker, access, monkeypatch, call, binding):
    """Large sets go out as several ListOffsets calls (LIST_OFFSETS_CALL): 1 and 2 split these
    three partitions, 250 does not. Where confluent-kafka's binding does not take the batched
    form, AdminClient.list_offsets answers the same."""
    monkeypatch.setattr("kafka_groups.access.offsets.LIST_OFFSETS_CALL", call)
    sizes: list[int] = []
    if binding == "public call":
        monkeypatch.setattr("kafka_groups.access.offsets._binding_list_offsets", _binding_of_another_form)
    else:
        batched = offsets._binding_list_offsets

        def counted(admin, requested, answer, timeout):
            sizes.append(len(requested))
            batched(admin, requested, answer, timeout)

        def unused(*_args, **_kwargs):
            raise AssertionError("the public AdminClient.list_offsets was called")

        monkeypatch.setattr("kafka_groups.access.offsets._binding_list_offsets", counted)
        monkeypatch.setattr(AdminClient, "list_offsets", unused)
    bs = broker.bootstrap
    topic = create_topic(bs, unique("ap"), partitions=3)
    produce(bs, topic, [Record(p, "x") for p in range(3) for _ in range(p + 2)])
    delete_records_before(bs, topic, 2, 3)
    gone = unique("ap-none")
    partitions = {(topic, p) for p in range(3)} | {(topic, 7), (gone, 0)}  # two that do not exist
    ends, starts = access.log_offsets(partitions, earliest=True)
    assert ends == {(topic, 0): 2, (topic, 1): 3, (topic, 2): 4, (topic, 7): None, (gone, 0): None}
    assert starts == {(topic, 0): 0, (topic, 1): 0, (topic, 2): 3, (topic, 7): None, (gone, 0): None}
    existing = {(topic, p) for p in range(3)}
    assert access.offsets_for_time(existing, 0) == {(topic, 0): 0, (topic, 1): 0, (topic, 2): 3}
    assert access.offsets_for_time(existing, 2**62) == dict.fromkeys(existing)
    if binding == "batched":
        # Each partition asked once per kind (five for each log kind, one attempt), then three by
        # time, twice; several calls for the log offsets begin with one partition of each topic.
        assert sum(sizes) == 2 * 5 + 2 * 3 and max(sizes) <= call, sizes
        fewest = 2 * -(-5 // call) + 2 * -(-3 // call)
        assert len(sizes) <= fewest + 2, sizes


def test_log_offsets_of_partitions_added_since_the_connection_read_the_topic(broker, access):
    """librdkafka keeps the topic's old partition count in its metadata and answers that a new
    partition is unknown; the cluster metadata read to explain that brings it up to date, and
    the next attempt reads the offsets (a PolicyConsumer's long-lived connection meets this
    each time the topic grows)."""
    bs = broker.bootstrap
    topic = create_topic(bs, unique("ap-grow"), partitions=2)
    produce(bs, topic, [Record(p, "x") for p in range(2)])
    assert access.log_offsets({(topic, 0), (topic, 1)})[0] == {(topic, 0): 1, (topic, 1): 1}
    add_partitions(bs, topic, 4)
    produce(bs, topic, [Record(p, "x") for p in (2, 3) for _ in range(2)])
    access.forget_metadata()
    ends, starts = access.log_offsets({(topic, p) for p in range(4)}, earliest=True)
    assert ends == {(topic, 0): 1, (topic, 1): 1, (topic, 2): 2, (topic, 3): 2}
    assert starts == dict.fromkeys(ends, 0)


@pytest.mark.parametrize("many", [False, True])
def test_alter_offsets_both_ways(broker, access, many):
    bs = broker.bootstrap
    topic = create_topic(bs, unique("ap"), partitions=2)
    produce(bs, topic, [Record(p, "x") for p in range(2) for _ in range(5)])
    group = unique("ap")
    commit_offsets(bs, group, {(topic, 0): 1, (topic, 1): 1})
    assert access.alter_offsets({group: {(topic, 0): 4, (topic, 1): 2}}, many=many) == {group: None}
    assert committed(bs, group) == {(topic, 0): 4, (topic, 1): 2}


@pytest.mark.parametrize("many", [False, True])
def test_a_refused_commit_names_the_partition_and_writes_nothing(broker, access, many):
    """A group with a live member refuses a commit from outside it: both ways report the first
    refused partition with the broker's reason, and the member's offsets stay."""
    bs = broker.bootstrap
    topic = create_topic(bs, unique("ap-live"), partitions=2)
    produce(bs, topic, [Record(p, "x") for p in range(2) for _ in range(3)])
    group = unique("ap-live")
    commit_offsets(bs, group, {(topic, 0): 1, (topic, 1): 1})
    with ActiveConsumer(bs, group, [topic]):
        outcome = access.alter_offsets({group: {(topic, 0): 3, (topic, 1): 3}}, many=many)
        held = access.committed_positions([group])
    failure = outcome[group]
    assert failure is not None and failure.startswith(f"{topic}-"), outcome
    assert failure.split(": ", 1)[1].strip(), outcome
    assert held == {group: {(topic, 0): 1, (topic, 1): 1}}
