"""--group-pattern, --exclude-group and --group/--all-groups as one pure selection, and the
--skip-active summary line."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.core.group_select import GroupSelection, announce_matches
from kafka_groups.core.reset_plan import skipped_line
from kafka_groups.errors import ExitCode, NotFoundError, UsageError

IDS = st.lists(st.text(alphabet="ab-1.", min_size=1, max_size=6), max_size=12)
LISTED = ["orders-a", "orders-b", "orders-ab", "billing", "orders", "xorders-a"]


def test_a_pattern_matches_the_whole_id_as_java_pattern_matches():
    assert GroupSelection(patterns=("orders-.",)).pick(LISTED) == ["orders-a", "orders-b"]
    assert GroupSelection(patterns=("orders",)).pick(LISTED) == ["orders"]


def test_several_patterns_select_the_union_in_listing_order():
    picked = GroupSelection(patterns=("billing", "orders-a")).pick(LISTED)
    assert picked == ["orders-a", "billing"]


def test_exclusions_narrow_every_kind_of_selection():
    assert GroupSelection(patterns=("orders.*",), excludes=("orders-a.*",)).pick(LISTED) == [
        "orders-b",
        "orders",
    ]
    assert GroupSelection(all_groups=True, excludes=("orders.*",)).pick(LISTED) == ["billing", "xorders-a"]
    assert GroupSelection(groups=("orders-a", "billing"), excludes=("bill.*",)).pick() == ["orders-a"]


@given(IDS, st.sampled_from(["a.*", ".*-.*", "[ab]+", "a|b", "a-1"]), st.sampled_from(["", ".*b", "a"]))
def test_selection_is_exactly_the_full_matches_less_the_excluded(listed, pattern, exclude):
    excludes = (exclude,) if exclude else ()
    picked = GroupSelection(patterns=(pattern,), excludes=excludes).pick(listed)
    expected = [
        g
        for g in dict.fromkeys(listed)
        if re.fullmatch(pattern, g) and not (exclude and re.fullmatch(exclude, g))
    ]
    assert picked == expected
    assert set(picked) <= set(listed)


@given(IDS)
def test_explicit_groups_need_no_listing_and_keep_their_order(groups):
    selection = GroupSelection(groups=tuple(groups))
    assert not selection.lists
    assert selection.pick(["never", "read"]) == groups


@pytest.mark.parametrize(
    ("selection", "message"),
    [
        (GroupSelection(), "Option [describe] takes one of these options: [all-groups], [group]"),
        (GroupSelection(excludes=("x",)), "--exclude-group only narrows a selection"),
        (GroupSelection(groups=("g",), patterns=("x",)), 'Option "[group-pattern]" can\'t be used'),
        (GroupSelection(all_groups=True, patterns=("x",)), 'with option "[all-groups]"'),
        (GroupSelection(patterns=("",)), "--group-pattern '' is empty"),
        (GroupSelection(patterns=(" \t",)), "--group-pattern ' \\t' is blank"),
        (GroupSelection(all_groups=True, excludes=(" ",)), "--exclude-group ' ' is blank"),
        (GroupSelection(patterns=("ab[c",)), "not a valid regular expression: unterminated character set"),
    ],
)
def test_usage_errors_are_one_line_before_anything_is_contacted(selection, message):
    with pytest.raises(UsageError) as caught:
        selection.check("describe")
    assert message in caught.value.message
    assert "\n" not in caught.value.message
    assert caught.value.exit_code is ExitCode.USAGE


def test_an_invalid_pattern_names_the_position():
    with pytest.raises(UsageError, match=r"at position 6$"):
        GroupSelection(patterns=("orders(",)).check("delete")


def test_a_pattern_that_selects_nothing_is_refused_like_a_missing_group():
    selection = GroupSelection(patterns=("nothing-.*",))
    with pytest.raises(
        NotFoundError, match=re.escape("No consumer group matches --group-pattern 'nothing-.*'")
    ):
        selection.require_some(selection.pick(LISTED))
    excluded = GroupSelection(groups=("billing",), excludes=("b.*",))
    with pytest.raises(NotFoundError, match="Every streams group selected is excluded by --exclude-group"):
        excluded.require_some(excluded.pick(), "streams group")


def test_all_groups_on_an_empty_cluster_stays_as_today():
    GroupSelection(all_groups=True).require_some([])  # nothing to refuse: no pattern was given


def test_the_groups_a_pattern_deletes_are_named_first():
    assert announce_matches(GroupSelection(groups=("a",)), ["a"], "consumer group") is None
    line = announce_matches(GroupSelection(patterns=("a.*",)), ["a2", "a1"], "consumer group")
    assert line == "Selected 2 consumer group(s): a1, a2"


def test_the_skip_active_summary_is_one_line_grouped_by_state():
    assert skipped_line([]) is None
    assert skipped_line([("a", "Stable")]) == "Skipped 1 active group: a (Stable)"
    line = skipped_line([("a", "Stable"), ("c", "PreparingRebalance"), ("b", "Stable")])
    assert line == "Skipped 3 active groups: a, b (Stable); c (PreparingRebalance)"


def test_to_group_completes_live_group_names_in_both_forms():
    from kafka_groups.cli import complete

    class Names(complete.NameSource):
        def __init__(self):
            pass

        def lookup(self, kind, line):
            return ["billing", "audit"] if kind == "groups" else []

        def topics(self, line):
            return {}

    for words in (["--reset-offsets", "--group", "x", "--to-group"], ["reset-offsets", "--to-group"]):
        answer = complete.complete("kafka-consumer-groups", words, "", Names())
        assert [v for v, _ in answer.candidates] == ["billing", "audit"]
    answer = complete.complete("kafka-consumer-groups", ["--describe"], "--gr", Names())
    assert "--group-pattern" in [v for v, _ in answer.candidates]


@given(
    st.lists(st.text("abcé-", min_size=1, max_size=6), min_size=1, max_size=40, unique=True),
    st.sampled_from([None, "a.*", ".*b.*", "[ab]+"]),
    st.data(),
)
def test_missing_groups_are_named_in_the_listing_order_without_it_being_made(names, pattern, data):
    """A describe of many groups takes the listing in the brokers' order (the Apache order is a
    HashMap's, costly for 50,000 names) and sorts the groups itself; groups gone meanwhile are
    still named in the order the ordered listing would have given them."""
    from kafka_groups.commands.select import as_given, consumer_group_ids, unordered_consumer_group_ids
    from kafka_groups.core.groups import GroupListing, select_consumer_groups

    listings = [GroupListing(n, "Classic", "Empty", "consumer") for n in names]

    class Listing:  # the access's listing, from plain data
        def consumer_group_ids(self, ordered: bool = True) -> list[str]:
            return [g.group_id for g in select_consumer_groups(listings, frozenset(), frozenset(), ordered)]

    selection = GroupSelection((), pattern is None, (pattern,) if pattern else ())
    try:
        ordered = consumer_group_ids(Listing(), selection)  # type: ignore[arg-type]
    except NotFoundError:
        return
    ids, listed = unordered_consumer_group_ids(Listing(), selection)  # type: ignore[arg-type]
    assert sorted(ids) == sorted(ordered) and listed == names
    missing = data.draw(st.lists(st.sampled_from(ids), unique=True))
    expected = sorted(missing, key=ordered.index)
    as_given(missing, ids, listed)
    assert missing == expected
