import pytest

from kafka_groups.core.groups import (
    GroupListing,
    parse_state_filter,
    parse_streams_state_filter,
    parse_type_filter,
    select_consumer_groups,
    select_streams_groups,
    split_java,
)
from kafka_groups.errors import UsageError


def test_java_split_drops_only_trailing_empty_items():
    assert split_java("a,,b,,") == ["a", "", "b"]
    assert split_java(",a") == ["", "a"]
    assert split_java("") == []


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Dead,CompletingRebalance,", {"Dead", "CompletingRebalance"}),
        ("stable, assigning", {"Stable", "Assigning"}),
        ("EMPTY", {"Empty"}),
        ("", set()),
        (None, set()),
    ],
)
def test_state_filter(raw, expected):
    assert parse_state_filter(raw) == expected


@pytest.mark.parametrize("raw", ["  bad, Stable", "   ,   ,", ",stable", "notready"])
def test_invalid_state_lists(raw):
    with pytest.raises(UsageError) as info:
        parse_state_filter(raw)
    assert info.value.message == (
        f"Invalid state list '{raw}'. Valid states are: "
        "PreparingRebalance, Stable, Reconciling, CompletingRebalance, Dead, Assigning, Empty"
    )


def test_type_filter():
    assert parse_type_filter("classic,Consumer") == {"Classic", "Consumer"}
    with pytest.raises(UsageError) as info:
        parse_type_filter("share")
    assert info.value.message == "Invalid types list 'share'. Valid types are: Consumer, Classic"


def test_streams_state_filter_has_its_own_states():
    assert parse_streams_state_filter("notready,stable") == {"NotReady", "Stable"}
    with pytest.raises(UsageError):
        parse_streams_state_filter("PreparingRebalance")


G = [
    GroupListing("classic-simple", "Classic", "Empty", ""),
    GroupListing("classic", "Classic", "Stable", "consumer"),
    GroupListing("connect", "Classic", "Stable", "connect"),
    GroupListing("kip848", "Consumer", "Reconciling", "consumer"),
    GroupListing("app", "Streams", "Stable", "streams"),
    GroupListing("share", "Share", "Empty", "share"),
]


def test_consumer_groups_exclude_other_protocols_and_types():
    ids = [g.group_id for g in select_consumer_groups(G, frozenset(), frozenset())]
    assert sorted(ids) == ["classic", "classic-simple", "kip848"]


def test_listing_order_is_the_apache_tools_hashmap_order():
    # Order printed by the pinned Apache tool for these four groups on one broker.
    names = ["list-consumer-7301bd3b", "list-simple-cfff7e2c", "list-classic-d43f9cf8", "list-live-fe54adb2"]
    listings = [GroupListing(n, "Classic", "Empty", "consumer") for n in names]
    chosen = [g.group_id for g in select_consumer_groups(listings, frozenset(), frozenset())]
    assert chosen == [
        "list-classic-d43f9cf8",
        "list-simple-cfff7e2c",
        "list-consumer-7301bd3b",
        "list-live-fe54adb2",
    ]


def test_consumer_group_filters_combine():
    chosen = select_consumer_groups(G, frozenset({"Stable", "Reconciling"}), frozenset({"Consumer"}))
    assert [g.group_id for g in chosen] == ["kip848"]


def test_streams_selection():
    assert [g.group_id for g in select_streams_groups(G, frozenset())] == ["app"]
    assert select_streams_groups(G, frozenset({"Empty"})) == ()
