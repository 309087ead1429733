"""The pipeline's commit metadata and what `kafka-topics --alter --partitions` makes of it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.core.policy import Policy
from kafka_groups.settings import ConnectionArgs
from kafka_pipeline.plan import (
    own_metadata,
    own_offset,
    policy_starts_new_partitions_at_beginning,
    starts_new_partitions_at_beginning,
)
from kafka_topics.changes import AlterResult, expansion_groups


@given(st.integers(min_value=0, max_value=2**63 - 1), st.booleans())
def test_own_metadata_round_trips(offset, mark):
    metadata = own_metadata(offset, mark)
    assert own_offset(metadata) == offset
    assert starts_new_partitions_at_beginning(metadata) is mark


@given(st.text(max_size=40))
def test_other_commits_are_not_the_pipelines(text):
    if not text.startswith("kafka-to-parquet:"):
        assert own_offset(text) is None and not starts_new_partitions_at_beginning(text)


def test_older_and_malformed_pipeline_commits():
    assert own_offset("kafka-to-parquet:42") == 42  # before the policy mark existed
    assert not starts_new_partitions_at_beginning("kafka-to-parquet:42")
    for bad in ("kafka-to-parquet:", "kafka-to-parquet:-1", "kafka-to-parquet:x;new-partitions=beginning"):
        assert own_offset(bad) is None and not starts_new_partitions_at_beginning(bad)
    assert not starts_new_partitions_at_beginning("someone:1;new-partitions=beginning")


def test_which_policies_land_new_partitions_from_their_beginning():
    marked = {
        spec: policy_starts_new_partitions_at_beginning(Policy.parse(spec, "same", age))
        for spec, age in [
            ("earliest", None),
            ("earliest_on_start", None),
            ("to_start_time", None),
            ("latest", None),
            ("latest", "PT10M"),
            ("latest_on_start", None),
            ("by_duration:PT1H", None),
            ("none", None),
        ]
    }
    assert {s for s, m in marked.items() if m} == {"earliest", "earliest_on_start", "to_start_time"}


CONNECTION = ConnectionArgs(bootstrap_server="b:9092")


def _result(safe: frozenset[str]) -> AlterResult:
    offsets = {
        "landing": ("Empty", [("t", 0), ("t", 1)]),
        "app": ("Empty", [("t", 0)]),
        "live": ("Stable", [("t", 1)]),
    }
    return AlterResult((("t", 2, 4),), tuple(expansion_groups(offsets, {"t": (2, 4)}, safe)))


def test_the_guard_calls_a_group_with_a_recorded_beginning_policy_safe():
    lines = _result(frozenset({"landing"})).guard_lines(CONNECTION)
    assert lines[0].startswith("Warning: t got partitions 2-3. ")
    assert "app (Empty), live (Stable)." in lines[0] and "landing" not in lines[0]
    assert lines[1] == (
        "No reset needed for landing: kafka-to-parquet recorded a policy that lands new partitions "
        "from their beginning."
    )
    assert lines[2].endswith("--group app --reset-offsets --topic t:2,3 --to-earliest --execute")
    assert "landing" not in lines[2] and "landing" not in lines[3]


def test_without_recorded_policies_the_guard_is_unchanged():
    lines = _result(frozenset()).guard_lines(CONNECTION)
    assert "committed offsets on it: app (Empty), landing (Empty), live (Stable)." in lines[0]
    assert "--group app --group landing --reset-offsets" in lines[1]
    assert not any(line.startswith("No reset needed") for line in lines)


def test_only_safe_groups_give_no_warning():
    offsets = {"landing": ("Empty", [("t", 0)])}
    result = AlterResult(
        (("t", 1, 3),), tuple(expansion_groups(offsets, {"t": (1, 3)}, frozenset({"landing"})))
    )
    assert result.guard_lines(CONNECTION) == [
        "No reset needed for landing: kafka-to-parquet recorded a policy that lands new partitions "
        "from their beginning."
    ]
    assert result.reset_command(CONNECTION) is None


def test_a_group_whose_policy_library_record_starts_new_partitions_at_the_beginning_is_safe():
    offsets = {
        "rewinder": ("Empty", [("t", 0)]),
        "live": ("Stable", [("t", 1)]),
        "app": ("Empty", [("t", 0)]),
    }
    groups = expansion_groups(offsets, {"t": (2, 4)}, frozenset(), {"rewinder": "to_start_time"})
    result = AlterResult((("t", 2, 4),), tuple(groups))
    lines = result.guard_lines(CONNECTION)
    assert "app (Empty), live (Stable)." in lines[0] and "rewinder" not in lines[0]
    assert lines[1] == (
        "No reset needed for rewinder: its kafka-group-tools consumer last started with the policy "
        "to_start_time, which starts new partitions at their beginning."
    )
    command = result.reset_command(CONNECTION)
    assert command is not None and "--group app " in command and "rewinder" not in command


def test_the_pipelines_commit_marker_keeps_its_own_line_when_both_say_safe():
    offsets = {"landing": ("Empty", [("t", 0)])}
    groups = expansion_groups(offsets, {"t": (1, 3)}, frozenset({"landing"}), {"landing": "earliest"})
    assert AlterResult((("t", 1, 3),), tuple(groups)).guard_lines(CONNECTION) == [
        "No reset needed for landing: kafka-to-parquet recorded a policy that lands new partitions "
        "from their beginning."
    ]
