"""What a landing run does per partition, on plain data."""

from __future__ import annotations

from kafka_pipeline.plan import PartitionPlan, Range, own_metadata, plan_partition


def own(offset: int) -> tuple[int, str]:
    return (offset, own_metadata(offset))


def test_first_run_lands_from_the_policy_start():
    assert plan_partition(None, 0, [], 50) == PartitionPlan(0, 50, resumed=False)


def test_a_normal_run_lands_after_its_own_commit():
    plan = plan_partition(own(30), 30, [Range(0, 30)], 45)
    assert plan == PartitionPlan(30, 45, resumed=False)
    assert plan.lands


def test_nothing_new_lands_nothing():
    plan = plan_partition(own(30), 30, [Range(0, 30)], 30)
    assert not plan.lands and plan.supersede == () and plan.trim is None


def test_ranges_published_after_the_own_commit_are_adopted():
    """A run stopped between publishing and committing: resume after its ranges."""
    plan = plan_partition(own(30), 30, [Range(0, 30), Range(30, 40), Range(40, 48)], 60)
    assert plan == PartitionPlan(48, 60, resumed=True)


def test_a_reset_supersedes_the_ranges_from_the_new_start():
    published = [Range(0, 30), Range(30, 40), Range(40, 48)]
    plan = plan_partition((30, ""), 30, published, 60)  # a reset to exactly 30: not the pipeline's commit
    assert plan == PartitionPlan(30, 60, resumed=False, supersede=(Range(30, 40), Range(40, 48)))


def test_a_reset_into_a_range_cuts_it_back():
    plan = plan_partition((25, ""), 25, [Range(0, 30), Range(30, 40)], 40)
    assert plan.start == 25 and plan.end == 40
    assert plan.trim == Range(0, 30)
    assert plan.supersede == (Range(30, 40),)


def test_a_reset_forward_leaves_the_earlier_ranges():
    plan = plan_partition((70, ""), 70, [Range(0, 30)], 80)
    assert plan == PartitionPlan(70, 80, resumed=False)


def test_a_policy_start_that_differs_from_the_commit_is_a_reset():
    """The committed offset left the log (truncation): the policy's start wins and nothing is adopted."""
    plan = plan_partition(own(10), 30, [Range(0, 10)], 60)
    assert plan == PartitionPlan(30, 60, resumed=False)


def test_another_clients_metadata_is_not_the_pipelines():
    plan = plan_partition((30, "kafka-to-parquet:29"), 30, [Range(30, 40)], 40)
    assert plan.supersede == (Range(30, 40),) and not plan.resumed


def test_the_sinks_listing_is_read_from_the_one_string_the_jvm_gives():
    """Sink.published takes the ranges of a topic from Scala's rendering of the listed paths."""
    from kafka_pipeline.sink import _LISTED

    listed = (
        "Array(file:/data/o/topic=t/partition=0/offsets=0-30, "
        "hdfs://nn:8020/o/topic=t/partition=12/offsets=30-45, "
        "file:/data/o/topic=t/partition=1/offsets=5-9x, file:/data/o/topic=t/partition=1/offsets=9-12)"
    )
    assert _LISTED.findall(listed) == [("0", "0", "30"), ("12", "30", "45"), ("1", "9", "12")]
    assert _LISTED.findall("Array()") == []
