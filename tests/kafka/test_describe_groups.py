"""kafka-consumer-groups --describe: every view, ours beside the pinned Apache tool on the
same cluster state (stdout compared byte for byte)."""

from __future__ import annotations

import json

import pytest

from tests.kafka_helpers import (
    ActiveConsumer,
    commit_offsets,
    consume_and_commit,
    create_topic,
    produce_n,
    unique,
)

pytestmark = pytest.mark.kafka

VIEWS = [
    [],
    ["--offsets"],
    ["--offsets", "--verbose"],
    ["--members"],
    ["--members", "--verbose"],
    ["--state"],
    ["--state", "--verbose"],
]


@pytest.fixture(scope="module")
def topics(broker):
    bs = broker.bootstrap
    orders = create_topic(bs, unique("d-orders"), partitions=3)
    payments = create_topic(bs, unique("d-payments"), partitions=2)
    produce_n(bs, orders, {0: 5, 1: 3, 2: 1})
    produce_n(bs, payments, {0: 4, 1: 2})
    return orders, payments


@pytest.fixture(scope="module")
def empty_group(broker, topics):
    group = unique("d-empty")
    consume_and_commit(broker.bootstrap, group, list(topics), expected=15)
    return group


def _both(apache, ours, bs, *args):
    theirs = apache("kafka-consumer-groups", "--bootstrap-server", bs, "--describe", *args)
    mine = ours("kafka-consumer-groups", "--bootstrap-server", bs, "--describe", *args)
    return theirs, mine


def with_creation_time_column(apache_text: str) -> str:
    """The Apache --state --verbose layout with KIP-1282's GROUP-CREATION-TIME appended after
    #MEMBERS, as ours prints it on a broker that cannot report creation times (``-``)."""
    from kafka_groups.render.describe import MEMBERS_WIDTH

    lines = apache_text.split("\n")
    out = []
    at = None
    for line in lines:
        if "#MEMBERS" in line:
            at = line.index("#MEMBERS")
            out.append(line[:at] + "#MEMBERS".ljust(MEMBERS_WIDTH) + " GROUP-CREATION-TIME")
        elif at is not None and line:
            out.append(line[:at] + line[at:].ljust(MEMBERS_WIDTH) + " -")
        else:
            out.append(line)
    return "\n".join(out)


def _same(theirs, mine, view=()):
    assert theirs.returncode == 0, theirs.stderr
    assert mine.returncode == 0, mine.stderr
    expected = theirs.stdout
    if "--state" in view and "--verbose" in view:
        expected = with_creation_time_column(expected)
    assert mine.stdout == expected


@pytest.mark.parametrize("view", VIEWS, ids=lambda v: " ".join(v) or "default")
def test_empty_group(broker, empty_group, apache, ours, view):
    theirs, mine = _both(apache, ours, broker.bootstrap, "--group", empty_group, *view)
    _same(theirs, mine, view)
    assert f"Consumer group '{empty_group}' has no active members." in mine.stderr


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
def test_active_groups_every_view(broker, topics, apache, ours, protocol):
    bs = broker.bootstrap
    group = unique(f"d-active-{protocol}")
    consume_and_commit(bs, group, list(topics), expected=15, protocol=protocol)
    commit_offsets(bs, group, {(topics[0], 0): 2})  # lag on one partition
    with (
        ActiveConsumer(bs, group, list(topics), protocol=protocol),
        ActiveConsumer(bs, group, list(topics), protocol=protocol),
    ):
        for view in VIEWS:
            theirs, mine = _both(apache, ours, bs, "--group", group, *view)
            _same(theirs, mine, view)


def test_offsets_rows_include_uncommitted_and_unassigned(broker, topics, apache, ours):
    """A member owns partitions with no commit; the group also has commits for a topic no
    member reads: both blocks, in the Apache order."""
    bs = broker.bootstrap
    group = unique("d-mixed")
    commit_offsets(bs, group, {(topics[1], 0): 1, (topics[1], 1): 2})
    with ActiveConsumer(bs, group, [topics[0]]):
        theirs, mine = _both(apache, ours, bs, "--group", group)
        _same(theirs, mine)
        lines = mine.stdout.strip().splitlines()
        assert len(lines) == 1 + 3 + 2
        assert all(" - " in line for line in lines[1:4])  # no committed offset yet: CURRENT-OFFSET -


def test_several_groups_are_sorted(broker, topics, empty_group, apache, ours):
    bs = broker.bootstrap
    other = unique("d-aaa")
    consume_and_commit(bs, other, [topics[0]], expected=9)
    for view in VIEWS:
        theirs, mine = _both(apache, ours, bs, "--group", empty_group, "--group", other, *view)
        _same(theirs, mine, view)


@pytest.mark.smoke
def test_all_groups(broker, empty_group, apache, ours):
    for view in (["--state"], ["--members"], []):
        theirs, mine = _both(apache, ours, broker.bootstrap, "--all-groups", *view)
        _same(theirs, mine)
        if view != ["--members"]:  # an Empty group has a members header but no rows
            assert empty_group in mine.stdout


def test_missing_group_is_an_error_with_non_zero_exit(broker, apache, ours):
    missing = unique("d-missing")
    theirs, mine = _both(apache, ours, broker.bootstrap, "--group", missing)
    assert f"Group {missing} not found." in theirs.stdout  # the Apache tool: stdout, exit 0
    assert theirs.returncode == 0
    assert mine.returncode == 1
    assert mine.stdout == ""
    assert mine.stderr.strip() == f"Error: Consumer group '{missing}' does not exist."


def test_missing_among_existing_is_a_partial_failure(broker, empty_group, ours):
    missing = unique("d-missing")
    mine = ours(
        "kafka-consumer-groups",
        "--bootstrap-server",
        broker.bootstrap,
        "--describe",
        "--group",
        empty_group,
        "--group",
        missing,
        "--state",
    )
    assert mine.returncode == 3
    assert empty_group in mine.stdout
    assert mine.stderr.strip().endswith(f"Error: Consumer group '{missing}' does not exist.")


def test_json_describes_offsets_with_ranges(broker, empty_group, topics, ours):
    mine = ours(
        "kafka-consumer-groups",
        "--bootstrap-server",
        broker.bootstrap,
        "--describe",
        "--group",
        empty_group,
        "--output",
        "json",
    )
    assert mine.returncode == 0, mine.stderr
    doc = json.loads(mine.stdout)
    assert doc["schema"] == "kafka-group-tools/group-describe/v1"
    (group,) = doc["groups"]
    assert group["group"] == empty_group
    assert group["state"] == "Empty"
    assert group["type"] == "Classic"
    by_tp = {(o["topic"], o["partition"]): o for o in group["offsets"]}
    assert by_tp[(topics[0], 0)]["current_offset"] == 5
    assert by_tp[(topics[0], 0)]["log_end_offset"] == 5
    assert by_tp[(topics[0], 0)]["log_start_offset"] == 0
    assert by_tp[(topics[0], 0)]["lag"] == 0
    assert not any(o["out_of_range"] for o in group["offsets"])


def test_committed_offset_beyond_the_log_end_is_flagged(broker, topics, ours):
    bs = broker.bootstrap
    group = unique("d-range")
    commit_offsets(bs, group, {(topics[1], 1): 500})
    mine = ours("kafka-consumer-groups", "describe", "--bootstrap-server", bs, "--group", group, "-o", "json")
    (row,) = json.loads(mine.stdout)["groups"][0]["offsets"]
    assert row["out_of_range"] is True
    assert row["lag"] == 2 - 500


def test_group_creation_time_is_dash_when_the_broker_cannot_tell(broker, empty_group, ours):
    mine = ours(
        "kafka-consumer-groups",
        "--bootstrap-server",
        broker.bootstrap,
        "--describe",
        "--group",
        empty_group,
        "--state",
        "--verbose",
        "--output",
        "table",
    )
    assert mine.returncode == 0, mine.stderr
    assert "CREATED" in mine.stdout
    data_line = next(line for line in mine.stdout.splitlines() if empty_group in line)
    assert " - " in data_line


def test_unreachable_cluster_fails_within_the_timeout(ours):
    mine = ours(
        "kafka-consumer-groups",
        "--bootstrap-server",
        "127.0.0.1:1",
        "--describe",
        "--group",
        "g",
        "--timeout",
        "500",
    )
    assert mine.returncode == 1
    assert (
        mine.stderr.strip()
        == "Error: cannot reach the cluster at 127.0.0.1:1 within 500 ms: connection refused"
    )


def test_groups_listed_with_another_type_are_described_as_they_are(broker, topics, empty_group):
    """A describe of many groups asks each group only with the API of the type the listing gave
    it (access/groups._describe_groups); a group whose type is not what the listing said (it
    changed since, or it is gone) is asked with the other API, and comes out as a describe
    that asks both describes it: a consumer-protocol group said to be classic, classic groups
    said to be consumer groups, groups that do not exist said to be either."""
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.settings import ConnectionArgs

    bs = broker.bootstrap
    orders, payments = topics
    classic = [unique("d-typed") for _ in range(10)]
    for group in classic:
        commit_offsets(bs, group, {(orders, 0): 1})
    active = unique("d-typed-consumer")
    gone = [unique("d-typed-gone"), unique("d-typed-gone")]
    ids = [active, empty_group, *classic, *gone]
    access = KafkaAccess(ConnectionArgs(bootstrap_server=bs).resolve())
    try:
        with ActiveConsumer(bs, active, [payments], protocol="consumer"):
            truth, truth_gone = access.describe_groups(ids)  # nothing listed: both APIs
            access._listed_types = {
                active: "Classic",
                empty_group: "Consumer",
                **dict.fromkeys(classic[:5], "Consumer"),
                **dict.fromkeys(classic[5:], "Classic"),
                gone[0]: "Classic",
                gone[1]: "Consumer",
            }
            routed, routed_gone = access.describe_groups(ids)
    finally:
        access.close()

    def summary(found):
        return {g: (d.type, d.state, d.coordinator, len(d.members)) for g, d in found.items()}

    assert truth_gone == routed_gone == gone
    assert summary(routed) == summary(truth)
    assert truth[active].type == "Consumer" and truth[empty_group].type == "Classic"
    assert set(routed) == {active, empty_group, *classic}
