"""What a broker can do, decided from its ApiVersions answer (core/capabilities.py), the listing rule
for brokers that do not report group types, and how infra/ fetches and runs the older lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infra import jars, nodes
from kafka_groups.core import capabilities as caps
from kafka_groups.core.groups import GroupListing, select_consumer_groups

# Each line's highest ListGroups version, as its broker's ApiVersions answer says (seen on 2.1.1,
# 2.8.2, 3.6.2, 3.9.2 and 4.3.1).
LIST_GROUPS = {"2.1": 2, "2.8": 4, "3.6": 4, "3.9": 5, "4.3": 5}


@pytest.mark.parametrize(
    ("line", "states", "types", "expected"),
    [
        ("2.1", {"Stable"}, set(), "v4 or newer to request groups by states."),
        ("2.1", {"Stable"}, {"Consumer"}, "v4 or newer to request groups by states."),  # states first
        (
            "2.1",
            set(),
            {"Consumer"},
            "v5 or newer to request groups by type. Requested group types: [Consumer].",
        ),
        (
            "2.8",
            set(),
            {"Streams"},
            "v5 or newer to request groups by type. Requested group types: [Streams].",
        ),
        ("2.1", set(), {"Classic"}, None),
        ("2.1", set(), {"Classic", "Consumer"}, None),
        ("2.8", {"Empty"}, {"Classic"}, None),
        ("3.9", {"Stable"}, {"Consumer"}, None),
        ("4.3", set(), {"Streams"}, None),
    ],
)
def test_list_filters_are_refused_in_the_apache_words(line, states, types, expected):
    refusal = caps.list_filter_refusal(LIST_GROUPS[line], frozenset(states), frozenset(types))
    if expected is None:
        assert refusal is None
    else:
        assert refusal == f"The broker only supports ListGroups v{LIST_GROUPS[line]}, but we need {expected}"


@given(st.frozensets(st.sampled_from(["Classic", "Consumer", "Streams", "Share"])))
def test_a_type_filter_is_left_out_only_when_every_group_it_asks_for_is_classic(types):
    leave_out = caps.can_leave_out_types(types)
    assert leave_out == ("Classic" in types and not (types - {"Classic", "Consumer"}))
    assert (caps.list_filter_refusal(4, frozenset(), types) is None) == (leave_out or not types)


def test_capabilities_come_from_the_api_versions_answer():
    answer_21 = {16: 2, 19: 3, 3: 7}
    answer_28 = {16: 4, 19: 6, 3: 11, 47: 0}
    assert not caps.has(answer_21, caps.OFFSET_DELETE) and caps.has(answer_28, caps.OFFSET_DELETE)
    assert caps.has(answer_28, caps.LIST_GROUPS_BY_STATE) and not caps.has(
        answer_28, caps.LIST_GROUPS_BY_TYPE
    )
    for answer in (answer_21, answer_28):
        assert not caps.has(answer, caps.DESCRIBE_TOPIC_PARTITIONS)
        assert not caps.has(answer, caps.STREAMS_GROUPS)


def test_refusals_name_the_api_and_the_release():
    assert caps.streams_refusal() == (
        "The broker does not support streams groups (StreamsGroupDescribe); they need Kafka 4.2 or newer"
    )
    assert "(OffsetDelete, KIP-496); it needs Kafka 2.4 or newer" in caps.offset_delete_refusal()


def test_groups_of_an_untyped_broker_are_listed_whatever_the_type_filter():
    """Before ListGroups v5 every group is of type Unknown: the type filters the broker cannot
    apply are refused earlier, and Classic (the only kind such a broker has) keeps them all."""
    listings = [
        GroupListing("old-classic", "Unknown", "Empty", "consumer"),
        GroupListing("old-simple", "Unknown", "Unknown", ""),
        GroupListing("old-connect", "Unknown", "Stable", "connect"),
    ]
    for types in (frozenset(), frozenset({"Classic"}), frozenset({"Classic", "Consumer"})):
        chosen = {g.group_id for g in select_consumer_groups(listings, frozenset(), types)}
        assert chosen == {"old-classic", "old-simple"}
    chosen = select_consumer_groups(listings, frozenset({"Empty"}), frozenset())
    assert [g.group_id for g in chosen] == ["old-classic"]


# -- infra: the older lines ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "pom", "props", "zookeeper"),
    [
        (
            "2.1.1",
            "pom-legacy.xml",
            {"kafka.version": "2.1.1", "scala.binary.version": "2.12", "zookeeper.version": "3.5.9"},
            True,
        ),
        ("2.8.2", "pom-legacy.xml", {"kafka.version": "2.8.2", "scala.binary.version": "2.13"}, True),
        ("3.0.2", "pom-legacy.xml", {"kafka.version": "3.0.2", "scala.binary.version": "2.13"}, True),
        ("3.3.2", "pom-legacy.xml", {"kafka.version": "3.3.2", "scala.binary.version": "2.13"}, False),
        ("3.6.2", "pom-legacy.xml", {"kafka.version": "3.6.2", "scala.binary.version": "2.13"}, False),
        ("3.9.2", "pom-3.9.xml", {"kafka.version": "3.9.2"}, False),
        ("4.3.1", "pom.xml", {"kafka.version": "4.3.1"}, False),
    ],
)
def test_each_line_has_its_jars_and_its_mode(version, pom, props, zookeeper):
    path, given_props = jars._maven_props(version)
    assert (path.name, given_props) == (pom, props)
    assert jars.is_zookeeper(version) is zookeeper
    expected_tools = version if version.startswith(("3.9", "4.")) else jars.KAFKA_VERSION
    assert jars.tools_version(version) == expected_tools


@pytest.mark.parametrize("version", ["2.2.0", "3.5.1", "1.1.1", "2.8", "x.y.z"])
def test_untried_lines_are_refused(version):
    with pytest.raises(jars.KafkaInfraError, match="unsupported Kafka version"):
        jars._line(version)


def test_compat_lines_are_startable():
    for version in (*jars.COMPAT_LINES, jars.COMPAT_VERSION):
        jars._line(version)


def test_server_properties_of_each_mode(tmp_path: Path):
    node = nodes.Node(1, 9092, 9093)
    on_zk = nodes._server_properties("2.8.2", node, [node], tmp_path, "127.0.0.1:2181")
    assert on_zk["zookeeper.connect"] == "127.0.0.1:2181" and on_zk["broker.id"] == 1
    assert "process.roles" not in on_zk and not any(k.startswith("group.consumer") for k in on_zk)
    kraft_36 = nodes._server_properties("3.6.2", node, [node], tmp_path)
    assert kraft_36["process.roles"] == "broker,controller"
    assert not any(k.startswith("group.consumer") for k in kraft_36)  # KIP-848's settings come in 3.7
    kraft_39 = nodes._server_properties("3.9.2", node, [node], tmp_path)
    assert kraft_39["group.consumer.min.session.timeout.ms"] == 6000


# A reset beyond one batch is one transaction where its stable read-back can be asked: OffsetFetch
# v8 (Kafka 3.0; require_stable came in v7, the groups array in v8, which the read-back sends).
@pytest.mark.parametrize(("version", "able"), [(-1, False), (5, False), (7, False), (8, True), (10, True)])
def test_a_transactional_reset_needs_the_stable_read_back(version, able):
    versions = {c.key: 3 for c in caps.TRANSACTIONS} | {caps.STABLE_OFFSET_FETCH.key: version}
    assert all(caps.has(versions, c) for c in caps.TRANSACTIONS)
    assert caps.has(versions, caps.STABLE_OFFSET_FETCH) is able
    assert not caps.has({caps.STABLE_OFFSET_FETCH.key: 8}, caps.TRANSACTIONS[0])


def test_the_transaction_refusal_names_what_is_missing():
    assert (
        caps.transaction_refusal(caps.TRANSACTIONS[3])
        == "the brokers do not support transactions (TxnOffsetCommit)"
    )
    stable = caps.transaction_refusal(caps.STABLE_OFFSET_FETCH)
    assert "OffsetFetch v8" in stable and "Kafka 3.0 or newer" in stable
