"""--delete-offsets / --delete outcomes and layouts, with plain data.

The expected texts are outputs of the pinned Apache tool (4.3.1) captured on a real broker."""

from __future__ import annotations

import pytest

from kafka_groups.core.delete import (
    WHOLE_TOPIC,
    GroupDeleteResult,
    OffsetDeleteBatch,
    OffsetDeleteResult,
    Outcome,
    first_partition_error,
    split_topic_args,
)
from kafka_groups.core.kafka_errors import error_info
from kafka_groups.errors import UsageError
from kafka_groups.render import delete as render

UNKNOWN = error_info(3)
SUBSCRIBED = error_info(86)
NOT_FOUND = error_info(69)
NOT_EMPTY = error_info(68)


def test_topic_args_split_into_partitions_and_whole_topics():
    explicit, whole = split_topic_args(["t:0,1", "u", "t:1,2", "u", "v"])
    assert explicit == [("t", 0), ("t", 1), ("t", 2)]
    assert whole == ["u", "v"]


@pytest.mark.parametrize("arg", ["t:x", "t:1,", "t:0:1", "t:99999999999"])
def test_bad_topic_args_are_usage_errors(arg):
    with pytest.raises(UsageError):
        split_topic_args([arg])


def test_rows_sort_by_topic_and_partition_as_one_string():
    result = OffsetDeleteResult(
        "g", None, {("t", 2): None, ("t", 10): None, ("t", WHOLE_TOPIC): UNKNOWN, ("s", 0): None}
    )
    # "t-1" < "t10" < "t2": the Apache tool compares the joined strings.
    assert [(t, p) for t, p, _ in result.rows()] == [("s", 0), ("t", -1), ("t", 10), ("t", 2)]


def test_partial_delete_text_is_the_apache_layout():
    result = OffsetDeleteResult(
        "g",
        UNKNOWN,
        {
            ("t2-e5a88ad6", 0): None,
            ("t2-e5a88ad6", 1): None,
            ("nosuch", WHOLE_TOPIC): UNKNOWN,
            ("t1-a64f3dcc", 7): UNKNOWN,
        },
    )
    assert render.offsets_text(result) == (
        "\nError: Encountered some partition-level error, see the follow-up details.\n"
        "\nTOPIC           PARTITION  STATUS         "
        "\nnosuch          -          Error: org.apache.kafka.common.errors.UnknownTopicOrPartitionException:"
        " This server does not host this topic-partition."
        "\nt1-a64f3dcc     7          Error: org.apache.kafka.common.errors.UnknownTopicOrPartitionException:"
        " This server does not host this topic-partition."
        "\nt2-e5a88ad6     0          Successful     "
        "\nt2-e5a88ad6     1          Successful     \n"
    )
    assert result.outcome is Outcome.PARTIAL
    assert result.deleted == [("t2-e5a88ad6", 0), ("t2-e5a88ad6", 1)]
    assert result.problem() == (
        "the offsets of 2 of 4 partitions were not deleted "
        "(nosuch: This server does not host this topic-partition.)"
    )


def test_long_topic_names_widen_the_topic_column():
    result = OffsetDeleteResult("g", None, {("a-rather-long-topic-name", 0): None})
    assert render.offsets_text(result) == (
        "Request succeeded for deleting offsets from group g.\n"
        "\nTOPIC                    PARTITION  STATUS         "
        "\na-rather-long-topic-name 0          Successful     \n"
    )


@pytest.mark.parametrize(
    ("error", "headline"),
    [
        (None, "Request succeeded for deleting offsets from group g."),
        (NOT_FOUND, "\nError: The group id does not exist."),
        (NOT_EMPTY, "\nError: The group is not empty."),
        (error_info(24), "\nError: The group id is invalid."),
        (error_info(30), "\nError: Group authorization failed."),
        (SUBSCRIBED, "\nError: Encountered some partition-level error, see the follow-up details."),
        (error_info(29), "\nError: Encountered some partition-level error, see the follow-up details."),
        (UNKNOWN, "\nError: Encountered some partition-level error, see the follow-up details."),
        (error_info(7), "\nError: Encountered some unknown error: REQUEST_TIMED_OUT"),
    ],
)
def test_headline_by_top_level_error(error, headline):
    assert OffsetDeleteResult("g", error, {}).headline() == headline


def test_a_group_level_error_fails_the_whole_request():
    result = OffsetDeleteResult("g", NOT_FOUND, {("t", 1): NOT_FOUND})
    assert result.outcome is Outcome.FAILED
    assert result.problem() == "no offsets of group 'g' were deleted: The group id does not exist."
    assert "GroupIdNotFoundException: The group id does not exist." in render.offsets_text(result)


def test_every_partition_deleted_is_done():
    result = OffsetDeleteResult("g", None, {("t", 0): None, ("t", 1): None})
    assert result.outcome is Outcome.DONE
    assert result.problem() is None


def test_only_unknown_topics_is_a_failure_though_the_request_succeeded():
    result = OffsetDeleteResult("g", None, {("nosuch", WHOLE_TOPIC): UNKNOWN})
    assert result.headline().startswith("Request succeeded")
    assert result.outcome is Outcome.FAILED


def test_first_partition_error_follows_the_java_hash_set():
    errors = {("a", 0): None, ("b", 0): SUBSCRIBED, ("c", 0): UNKNOWN}
    # TopicPartition hashes: b-0 falls in bucket 3, c-0 in bucket 4, so b-0 comes first.
    assert first_partition_error(errors) == SUBSCRIBED
    assert first_partition_error({("a", 0): None}) is None
    # Independent of insertion order, as a HashSet is.
    assert first_partition_error(errors) == first_partition_error(dict(reversed(errors.items())))


def test_group_delete_texts_are_the_apache_layouts():
    done = GroupDeleteResult.of({"gdel-86ce7c69": None, "gdel-c8f5566f": None})
    assert render.groups_text(done) == (
        "Deletion of requested consumer groups ('gdel-c8f5566f', 'gdel-86ce7c69') was successful.\n"
    )
    assert done.outcome is Outcome.DONE
    mixed = GroupDeleteResult.of(
        {"gactclassic-7a04a467": NOT_EMPTY, "missing-x": NOT_FOUND, "gempty-e416a503": None}
    )
    assert render.groups_text(mixed) == (
        "\nError: Deletion of some consumer groups failed:\n"
        "* Group 'missing-x' could not be deleted due to: "
        "org.apache.kafka.common.errors.GroupIdNotFoundException: The group id does not exist.\n"
        "* Group 'gactclassic-7a04a467' could not be deleted due to: "
        "org.apache.kafka.common.errors.GroupNotEmptyException: The group is not empty.\n"
        "\nThese consumer groups were deleted successfully: 'gempty-e416a503'\n"
    )
    assert mixed.outcome is Outcome.PARTIAL
    assert mixed.problem() == "2 of 3 groups were not deleted ('missing-x': The group id does not exist.)"


def test_no_groups_to_delete():
    empty = GroupDeleteResult.of({})
    assert render.groups_text(empty) == "Deletion of requested consumer groups () was successful.\n"
    assert empty.outcome is Outcome.DONE


def test_json_forms():
    offsets = render.offsets_json(
        OffsetDeleteResult("g", None, {("t", 0): None, ("u", WHOLE_TOPIC): UNKNOWN})
    )
    assert offsets["outcome"] == "partial"
    assert offsets["partitions"][1] == {
        "topic": "u",
        "partition": None,
        "deleted": False,
        "error": {"code": 3, "name": "UNKNOWN_TOPIC_OR_PARTITION", "message": UNKNOWN.message},
    }
    groups = render.groups_json(GroupDeleteResult.of({"a": None, "b": NOT_EMPTY}))
    assert groups["deleted"] == ["a"]
    assert groups["failed"] == [
        {"group": "b", "error": {"code": 68, "name": "NON_EMPTY_GROUP", "message": NOT_EMPTY.message}}
    ]


def test_codes_we_do_not_list_keep_the_library_name():
    info = error_info(999, "SOMETHING_NEW", "Something new happened.")
    assert (info.name, info.exception, info.message) == (
        "SOMETHING_NEW",
        "SomethingNewException",
        "Something new happened.",
    )


def _documented_keys(schema: str) -> set[str]:
    """The top-level keys docs/json.md lists for ``schema``."""
    from pathlib import Path

    text = Path(__file__).parents[2].joinpath("docs", "json.md").read_text()
    section = text.split(f"## `kafka-group-tools/{schema}`", 1)[1].split("\n## ", 1)[0]
    return {line.split("`")[1].removesuffix("[]") for line in section.splitlines() if line.startswith("| `")}


def test_json_keys_are_the_documented_ones():
    offsets = render.offsets_json(OffsetDeleteResult("g", None, {("t", 0): None}, "/b.csv"))
    assert set(offsets) - {"schema"} == _documented_keys("offset-delete/v1")
    assert offsets["schema"] == "kafka-group-tools/offset-delete/v1"
    groups = render.groups_json(GroupDeleteResult.of({"a": None}))
    assert set(groups) - {"schema"} == _documented_keys("group-delete/v1")
    assert groups["schema"] == "kafka-group-tools/group-delete/v1"


def test_a_batch_of_offset_deletions():
    """--delete-offsets --from-file: each group's block in the Apache layout, an outcome over all
    of them, and the groups not sent named in the problem line."""
    done = OffsetDeleteResult("a", None, {("t", 0): None})
    refused = OffsetDeleteResult("b", NOT_FOUND, {("t", 1): NOT_FOUND})
    batch = OffsetDeleteBatch((done, refused), "/b.csv")
    assert batch.outcome is Outcome.PARTIAL
    assert batch.problem() == refused.problem()
    assert render.batch_text(batch) == render.offsets_text(done) + "\n" + render.offsets_text(refused)
    assert OffsetDeleteBatch((done,)).outcome is Outcome.DONE and OffsetDeleteBatch((done,)).problem() is None
    unsent = OffsetDeleteBatch((done,), unsent=("c", "d"))
    assert unsent.outcome is Outcome.PARTIAL
    assert unsent.problem() == "the offsets of group(s) 'c', 'd' were not sent for deletion"
    assert OffsetDeleteBatch((refused,), unsent=("c",)).outcome is Outcome.FAILED
    document = render.batch_json(batch)
    assert set(document) - {"schema"} == _documented_keys("offset-delete-batch/v1")
    assert document["schema"] == "kafka-group-tools/offset-delete-batch/v1"
    assert [g["group"] for g in document["groups"]] == ["a", "b"]
    assert render.batch_csv(batch)[1:] == [
        ["a", "t", "0", "true", ""],
        ["b", "t", "1", "false", "GROUP_ID_NOT_FOUND"],
    ]
