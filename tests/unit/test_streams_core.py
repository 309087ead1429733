"""Streams groups (KIP-1071) with plain data: the protocol decode, the describe rows and
layouts, internal-topic inference, and the kafka-streams-groups flag checks."""

from __future__ import annotations

import pytest

from kafka_groups.access.cluster import _streams_group
from kafka_groups.access.messages import StreamsGroupDescribeResponse as R
from kafka_groups.cli.streams_groups_flags import translate
from kafka_groups.commands.delete_streams import precheck_error
from kafka_groups.core.describe import Committed, Coordinator
from kafka_groups.core.streams import (
    Assignment,
    DescribedStreamsGroup,
    StreamsDescribeResult,
    StreamsGroup,
    StreamsMember,
    Subtopology,
    Tasks,
    UnknownSubtopology,
    active_partitions,
    assignment_text,
    input_partitions,
    internal_topics,
    is_internal_topic,
    offset_rows,
)
from kafka_groups.errors import UsageError
from kafka_groups.render import streams as render

COORD = Coordinator("127.0.0.1", 9092, 1)
APP = "app"
REPART = f"{APP}-STORE-repartition"
CHANGELOG = f"{APP}-STORE-changelog"
SUBTOPOLOGIES = (
    Subtopology("0", ("in",), repartition_sink_topics=(REPART,)),
    Subtopology("1", (), changelog_topics=(CHANGELOG,), repartition_source_topics=(REPART,)),
)


def _member(member_id="m1", active=(("0", (0, 1)), ("1", (0, 1))), target=None, classic=False):
    assignment = Assignment(active=Tasks(active))
    return StreamsMember(
        member_id=member_id,
        member_epoch=7,
        client_id=f"{APP}-client",
        client_host="/127.0.0.1",
        process_id="p-1",
        topology_epoch=0,
        assignment=assignment,
        target_assignment=target or assignment,
        is_classic=classic,
    )


def _group(state="Stable", members=None, creation=None):
    return StreamsGroup(
        group_id=APP,
        state=state,
        group_epoch=3,
        target_assignment_epoch=3,
        topology_epoch=0,
        subtopologies=SUBTOPOLOGIES,
        members=(_member(),) if members is None else members,
        coordinator=COORD,
        creation_time_ms=creation,
    )


# -- protocol ------------------------------------------------------------------------------
def _wire_group():
    topic = R.DescribedGroup.Topology.Subtopology.TopicInfo
    subtopology = R.DescribedGroup.Topology.Subtopology
    tasks = R.DescribedGroup.Member.Assignment.TaskIds
    assignment = R.DescribedGroup.Member.Assignment(
        active_tasks=[tasks(subtopology_id="0", partitions=[0, 1])], standby_tasks=[], warmup_tasks=[]
    )
    member = R.DescribedGroup.Member(
        member_id="m1",
        member_epoch=7,
        instance_id=None,
        rack_id=None,
        client_id="c",
        client_host="/127.0.0.1",
        topology_epoch=0,
        process_id="p-1",
        user_endpoint=None,
        client_tags=[],
        task_offsets=[],
        task_end_offsets=[],
        assignment=assignment,
        target_assignment=assignment,
        is_classic=False,
    )
    return R.DescribedGroup(
        error_code=0,
        error_message=None,
        group_id=APP,
        group_state="Stable",
        group_epoch=3,
        assignment_epoch=3,
        topology=R.DescribedGroup.Topology(
            epoch=0,
            subtopologies=[
                subtopology(
                    subtopology_id="0",
                    source_topics=["in"],
                    repartition_sink_topics=[REPART],
                    state_changelog_topics=[],
                    repartition_source_topics=[],
                ),
                subtopology(
                    subtopology_id="1",
                    source_topics=[],
                    repartition_sink_topics=[],
                    state_changelog_topics=[
                        topic(name=CHANGELOG, partitions=0, replication_factor=0, topic_configs=[])
                    ],
                    repartition_source_topics=[
                        topic(name=REPART, partitions=2, replication_factor=0, topic_configs=[])
                    ],
                ),
            ],
        ),
        members=[member],
        authorized_operations=-2147483648,
    )


def test_v0_response_round_trip_and_no_creation_time():
    encoded = R(version=0, throttle_time_ms=0, groups=[_wire_group()]).encode()
    decoded = R[0].decode(encoded)
    group = _streams_group(decoded.groups[0], COORD)
    assert group.subtopologies == SUBTOPOLOGIES
    assert group.members[0].assignment.active.entries == (("0", (0, 1)),)
    # v0 has no creation-time field: nothing is shown and --to-start-time is unsupported.
    assert group.creation_time_ms is None


# -- describe rows -------------------------------------------------------------------------
def test_active_partitions_cover_source_and_repartition_topics():
    assert active_partitions(_group()) == [("in", 0), ("in", 1), (REPART, 0), (REPART, 1)]


def test_unknown_subtopology_is_an_error():
    group = _group(members=(_member(active=(("9", (0,)),)),))
    with pytest.raises(UnknownSubtopology, match="Subtopology 9 not found"):
        active_partitions(group)


def test_lag_counts_from_commit_or_log_start():
    committed = {("in", 0): Committed(4, 0), (REPART, 1): Committed(2, 1)}
    ends = {("in", 0): 10, ("in", 1): 10, (REPART, 0): 6, (REPART, 1): 6}
    starts = {("in", 0): 0, ("in", 1): 3, (REPART, 0): 1, (REPART, 1): 0}
    rows = {(r.topic, r.partition): r for r in offset_rows(_group(), committed, ends, starts)}
    assert rows[("in", 0)].lag == 6 and rows[("in", 0)].current_offset == 4
    assert rows[("in", 1)].lag == 7 and rows[("in", 1)].current_offset is None  # from log start 3
    assert rows[(REPART, 1)].lag == 4 and rows[(REPART, 1)].leader_epoch == 1
    assert rows[(REPART, 0)].lag == 5


def test_rows_in_java_hashmap_order():
    # The order the pinned tool printed for a real group: the repartition topic's partitions
    # by hash bucket, then the source topic's (captured from kafka-streams-groups 4.3.1).
    group = StreamsGroup(
        group_id="sgx-stable-939d7397",
        state="Stable",
        group_epoch=3,
        target_assignment_epoch=3,
        topology_epoch=0,
        subtopologies=(
            Subtopology("0", ("sgx-in-939d7397",)),
            Subtopology(
                "1",
                (),
                repartition_source_topics=(
                    "sgx-stable-939d7397-KSTREAM-AGGREGATE-STATE-STORE-0000000002-repartition",
                ),
            ),
        ),
        members=(_member(active=(("0", (0, 1, 2)), ("1", (0, 1, 2)))),),
        coordinator=COORD,
    )
    rows = offset_rows(group, {}, {}, {})
    repart = "sgx-stable-939d7397-KSTREAM-AGGREGATE-STATE-STORE-0000000002-repartition"
    expected = [
        (repart, 2),
        (repart, 1),
        (repart, 0),
        ("sgx-in-939d7397", 2),
        ("sgx-in-939d7397", 0),
        ("sgx-in-939d7397", 1),
    ]
    assert [(r.topic, r.partition) for r in rows] == expected


def test_assignment_text():
    current = Assignment(active=Tasks((("0", (0, 1)),)), standby=Tasks((("1", (2,)),)))
    target = Assignment(active=Tasks((("0", (0,)),)))
    assert assignment_text(current) == "ACTIVE: 0:[0,1]; STANDBY: 1:[2]; "
    assert assignment_text(current, target) == "ACTIVE: 0:[0,1]; STANDBY: 1:[2]; TARGET-ACTIVE: 0:[0]; "
    assert assignment_text(Assignment()) == ""


# -- layouts -------------------------------------------------------------------------------
def _text(view, verbose, group, rows=()):
    return render.text(StreamsDescribeResult(view, verbose, (DescribedStreamsGroup(group, tuple(rows)),)))


def test_state_layouts_and_kip1282_column():
    plain = _text("state", False, _group())
    assert plain == (
        "GROUP           COORDINATOR (ID)          STATE                     #MEMBERS\n"
        "app             127.0.0.1:9092 (1)        Stable                    1\n"
    )
    verbose = _text("state", True, _group(creation=1_767_225_600_123))
    header, row = verbose.rstrip("\n").split("\n")
    at = header.index("GROUP-CREATION-TIME")
    assert header.endswith("#MEMBERS   GROUP-CREATION-TIME")  # KIP-1282: appended, the last column
    assert row.endswith(" 2026-01-01T00:00:00.123Z")
    assert row[at:].split()[0] == "2026-01-01T00:00:00.123Z"
    for unknown in (None, -1):  # not sent, or sent as unknown: never a made-up time
        header, row = _text("state", True, _group(creation=unknown)).rstrip("\n").split("\n")
        assert row[header.index("GROUP-CREATION-TIME") :].split()[0] == "-"


def test_empty_group_notice_goes_to_stdout_and_rows_need_members():
    empty = _group(state="Empty", members=())
    assert _text("state", False, empty).startswith("\nError: Streams group 'app' has no active members.\n")
    assert _text("offsets", False, empty) == ""
    assert _text("members", True, empty) == ""


def test_members_verbose_has_no_space_before_member():
    text = _text("members", True, _group())
    header, row = text.rstrip("\n").split("\n")
    assert "TOPOLOGY-EPOCH MEMBER" in header  # 14 letters padded to 15, then the member column
    assert row.split()[1:4] == ["3", "0", "m1"]
    assert row.endswith("TARGET-ACTIVE: 0:[0,1]; 1:[0,1]; ")


def test_offsets_verbose_pads_every_cell():
    rows = offset_rows(_group(), {}, dict.fromkeys(active_partitions(_group()), 5), {})
    text = _text("offsets", True, _group(), rows)
    assert all(line.endswith(" ") for line in text.rstrip("\n").split("\n"))
    assert "OFFSET-LAG     \n" in text


# -- scopes and internal topics -----------------------------------------------------------------
def test_input_partitions_are_source_topics_only():
    committed = [("in", 0), ("in", 1), (REPART, 0), ("elsewhere", 0)]
    assert input_partitions(_group(), committed) == [("in", 0), ("in", 1)]


def test_internal_topic_inference():
    found = internal_topics(_group())
    assert found.deletable == (REPART, CHANGELOG)
    assert is_internal_topic(f"{APP}-x-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000007-topic", APP)
    assert not is_internal_topic("other-STORE-changelog", APP)
    assert not is_internal_topic(f"{APP}-plain", APP)


def test_delete_prechecks_word_the_apache_exceptions():
    assert precheck_error("g", None).java == (
        "java.lang.IllegalArgumentException: Group 'g' does not exist or is not a streams group."
    )
    assert precheck_error("g", "Stable").java == (
        "org.apache.kafka.common.errors.GroupNotEmptyException: Streams group 'g' is not EMPTY."
    )
    assert precheck_error("g", "Empty") is None


# -- flags ----------------------------------------------------------------------------------
BS = ["--bootstrap-server", "b:9092"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "Command must include exactly one action"),
        (["--describe", "--group", "g", "--members", "--state"], "takes at most one of these options"),
        (["--reset-offsets", "--group", "g", "--to-earliest"], "takes the option: [execute] or [dry-run]"),
        (
            ["--delete", "--group", "g", "--all-input-topics"],
            "does not support topic-specific offset deletion",
        ),
        (["--delete-offsets", "--group", "g"], "takes the [group] and one of these options"),
        (
            ["--delete-internal-topic", "t", "--delete", "--group", "g"],
            "takes [reset-offsets] when [execute]",
        ),
        (["--describe", "--group", "g", "--input-topic", "t"], 'Option "[input-topic]" can\'t be used'),
    ],
)
def test_flag_checks(args, message):
    with pytest.raises(UsageError) as caught:
        translate([*BS, *args])
    assert message in caught.value.message


def test_flags_translate_to_requests():
    request = translate(
        [
            *BS,
            "--reset-offsets",
            "--group",
            "g",
            "--input-topic",
            "t:0",
            "--to-latest",
            "--execute",
            "--delete-all-internal-topics",
        ]
    )
    assert request.streams and request.topics == ("t:0",) and request.delete_all_internal_topics
    describe = translate([*BS, "--describe", "--all-groups", "--members", "--verbose"])
    assert describe.view == "members" and describe.verbose and describe.all_groups


def test_delete_report_wording():
    from kafka_groups.core.delete import GroupDeleteResult
    from kafka_groups.render.delete import groups_text

    assert groups_text(GroupDeleteResult.of({}, kind="streams")) == (
        "Deletion of requested streams groups ('') was successful.\n"
    )
    assert groups_text(GroupDeleteResult.of({}, kind="consumer")) == (
        "Deletion of requested consumer groups () was successful.\n"
    )
    partly = GroupDeleteResult.of({"a": None, "b": precheck_error("b", None)}, kind="streams")
    assert groups_text(partly).endswith("\nThese streams groups were deleted successfully: 'a'.\n")
