"""Rich tables at a fixed width, compared with checked-in files.
Regenerate after a deliberate change with: pytest tests/unit/test_golden_tables.py --update-golden"""

import dataclasses
import io
import re
from dataclasses import replace
from pathlib import Path

import pytest

from kafka_groups.core.describe import (
    Committed,
    Coordinator,
    DescribedGroup,
    DescribeResult,
    GroupDescription,
    Member,
    View,
    offset_rows,
)
from kafka_groups.core.groups import GroupListing, GroupListResult
from kafka_groups.core.health import HealthResult, PartitionFacts, group_health
from kafka_groups.core.reset import GroupPlan
from kafka_groups.core.reset_plan import Plan, ResetResult
from kafka_groups.core.streams import (
    Assignment,
    DescribedStreamsGroup,
    StreamsDescribeResult,
    StreamsGroup,
    StreamsMember,
    StreamsOffsetRow,
    Subtopology,
    Tasks,
)
from kafka_groups.render import registry
from kafka_groups.render.table import print_table
from kafka_groups.render.topics import describe_text
from kafka_topics.describe import (
    NO_LEADER,
    ZERO_UUID,
    ConfigValue,
    DescribeFilters,
    PartitionState,
    Reassignment,
    TopicDescribeResult,
    TopicState,
)

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
WIDTH = 120

COORD = Coordinator("broker-1.example", 9092, 1)
MEMBERS = (
    Member(
        "consumer-1-aaaa", "consumer-1", "/10.0.0.1", None, (("orders", 0), ("orders", 1)), (), None, None
    ),
    Member("consumer-2-bbbb", "consumer-2", "/10.0.0.2", "static-2", (("orders", 2),), (), None, None),
)
STABLE = GroupDescription("billing", "Stable", "Classic", COORD, "range", MEMBERS)
EMPTY = GroupDescription("audit", "Empty", "Consumer", COORD, "", (), 4, 4)
COMMITTED = {("orders", 0): Committed(90), ("orders", 1): Committed(100), ("orders", 2): Committed(500)}
ENDS = {("orders", 0): 100, ("orders", 1): 100, ("orders", 2): 120}
STARTS = {("orders", 0): 0, ("orders", 1): 0, ("orders", 2): 10}
CONSUMER_MEMBERS = (
    Member("m-1", "consumer-1", "/10.0.0.1", None, (("orders", 0),), (("orders", 0), ("orders", 1)), 7, True),
    Member("m-2", "consumer-2", "/10.0.0.2", None, (("orders", 1),), (), 5, False),
)
CONSUMER = GroupDescription("billing", "Reconciling", "Consumer", COORD, "uniform", CONSUMER_MEMBERS, 8, 8)
COMMITTED_EPOCHS = {("orders", 0): Committed(90, 3), ("orders", 1): Committed(100, 4)}

ORDERS = TopicState(
    "orders",
    "r6Cc6yEaQ6-Qh2fxP1EbFA",
    (
        PartitionState(0, 1, (1, 2, 3), (1, 2, 3), (), (), 1700000000000),
        PartitionState(1, 2, (2, 3, 1), (2, 3), (1,), (1,), 1700000000000),
        PartitionState(2, NO_LEADER, (3, 1, 2), (), (), (3,), 1700000000000),
    ),
    (
        ConfigValue("cleanup.policy", "compact", False),
        ConfigValue("min.insync.replicas", "2", False),
        ConfigValue("retention.ms", "604800000", True),
    ),
)
LEGACY = TopicState("legacy", ZERO_UUID, (PartitionState(0, 1, (1,), (1,)),))
TOPICS = TopicDescribeResult(
    (ORDERS, LEGACY),
    live_brokers=frozenset({1, 2, 3}),
    reassignments={("orders", 0): Reassignment((1, 2, 3, 4), (4,), ())},
)
STREAMS_MEMBER = StreamsMember(
    member_id="s-1",
    member_epoch=7,
    client_id="app-client",
    client_host="/10.0.0.3",
    process_id="p-1",
    topology_epoch=2,
    assignment=Assignment(active=Tasks((("0", (0, 1)),))),
    target_assignment=Assignment(active=Tasks((("0", (0, 1, 2)),))),
    is_classic=False,
)
STREAMS = StreamsGroup(
    group_id="app",
    state="Reconciling",
    group_epoch=9,
    target_assignment_epoch=9,
    topology_epoch=2,
    subtopologies=(Subtopology("0", ("orders",)),),
    members=(STREAMS_MEMBER,),
    coordinator=COORD,
    creation_time_ms=None,
)
STREAMS_ROWS = (
    StreamsOffsetRow("orders", 0, 90, 3, 100, 10, 0),
    StreamsOffsetRow("orders", 1, 100, 3, 100, 0, 0),
)

CASES = {
    "list": GroupListResult(
        (
            GroupListing("billing", "Classic", "Stable", "consumer"),
            GroupListing("audit", "Consumer", "Empty", "consumer"),
        ),
        show_type=False,
        show_state=False,
    ),
    "describe-offsets": DescribeResult(
        View.OFFSETS, False, (DescribedGroup(STABLE, offset_rows(STABLE, COMMITTED, ENDS, STARTS)),)
    ),
    "describe-members": DescribeResult(View.MEMBERS, False, (DescribedGroup(STABLE),)),
    "describe-state": DescribeResult(View.STATE, True, (DescribedGroup(EMPTY), DescribedGroup(STABLE))),
    "describe-offsets-verbose": DescribeResult(
        View.OFFSETS,
        True,
        (DescribedGroup(CONSUMER, offset_rows(CONSUMER, COMMITTED_EPOCHS, ENDS, STARTS)),),
    ),
    "describe-members-verbose": DescribeResult(View.MEMBERS, True, (DescribedGroup(CONSUMER),)),
    "streams-offsets-verbose": StreamsDescribeResult(
        "offsets", True, (DescribedStreamsGroup(STREAMS, STREAMS_ROWS),)
    ),
    "streams-members-verbose": StreamsDescribeResult("members", True, (DescribedStreamsGroup(STREAMS),)),
    "topics-describe": TOPICS,
    "topics-describe-overrides": dataclasses.replace(TOPICS, filters=DescribeFilters(with_overrides=True)),
    "topics-describe-under-replicated": dataclasses.replace(
        TOPICS, filters=DescribeFilters(under_replicated=True)
    ),
    # Where the broker gives no creation time, the richer views show the recorded start.
    "describe-state-recorded": DescribeResult(
        View.STATE,
        True,
        (
            DescribedGroup(EMPTY, recorded_start_ms=1_767_225_600_123),
            DescribedGroup(replace(STABLE, creation_time_ms=1_767_225_000_000), recorded_start_ms=1),
            DescribedGroup(replace(EMPTY, group_id="orphan")),
        ),
    ),
}


def _render(result, width=WIDTH):
    out = io.StringIO()
    print_table(registry.renderer_for(result).table(result), out, width=width)
    return out.getvalue()


@pytest.mark.parametrize("name", sorted(CASES))
def test_table_matches_golden_file(name, request):
    path = GOLDEN / f"{name}.txt"
    rendered = _render(CASES[name])
    if request.config.getoption("--update-golden"):
        path.write_text(rendered)
    assert path.exists(), f"missing {path}; run with --update-golden"
    assert rendered == path.read_text()


def test_out_of_range_offsets_are_marked():
    assert "500 (out of range)" in _render(CASES["describe-offsets"])


def test_list_table_is_sorted_while_the_text_keeps_the_apache_order():
    rendered = _render(CASES["list"])
    assert rendered.index("audit") < rendered.index("billing")
    text = registry.renderer_for(CASES["list"]).text(CASES["list"])
    assert text.index("billing") < text.index("audit")


@pytest.mark.parametrize("name", [n for n in sorted(CASES) if n.startswith("topics-")])
def test_every_value_of_the_topics_text_layout_is_in_the_rich_view(name):
    """Each "Key: value" of the Apache text layout (N/A and empty lists as the table shows
    them) appears in the Rich view, the creation time as it is formatted in both."""
    result = CASES[name]
    rendered = _render(result)
    for field in describe_text(result).replace("\n", "\t").split("\t"):
        key, _, value = field.partition(": ")
        if not key or (key in ("Topic", "Partition") and not value):
            continue
        for part in re.split(r",(?=[a-z.]+=)", value) if key == "Configs" else [value]:
            if part:
                assert part in rendered, f"{key}: {part} is missing from the Rich view of {name}"


NOW = 1_800_000_000_000
HEALTH = HealthResult(
    (
        group_health(
            "billing",
            "Empty",
            "consumer",
            [
                PartitionFacts("orders", 0, 12, 20, 40),  # lost
                PartitionFacts("orders", 1, 99, 0, 120, next_timestamp_ms=NOW - 3_600_000, retention_ms=-1),
                PartitionFacts("orders", 2, None, 0, 25),  # no committed offset
            ],
            NOW,
            start=(NOW - 86_400_000, "recorded"),
        ),
    ),
    NOW,
)
RESET = ResetResult(
    Plan(
        (GroupPlan("billing", {("orders", 0): 99, ("orders", 1): 120, ("orders", 2): 7}),),
        current={"billing": {("orders", 0): 90, ("orders", 1): 120}},
    )
)
# Each table at terminal widths where it fits or not: every value whole, whatever the width.
NARROW = {
    "describe-offsets": CASES["describe-offsets"],
    "describe-members": CASES["describe-members"],
    "describe-state": CASES["describe-state"],
    "health": HEALTH,
    "reset-plan": RESET,
    "list": CASES["list"],
    "topics-describe": TOPICS,
}
NARROW_WIDTHS = (20, 24, 30, 80)


@pytest.mark.parametrize("width", NARROW_WIDTHS)
@pytest.mark.parametrize("name", sorted(NARROW))
def test_narrow_terminal_matches_golden_file(name, width, request):
    path = GOLDEN / "narrow" / f"{name}-{width}.txt"
    rendered = _render(NARROW[name], width)
    if request.config.getoption("--update-golden"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(rendered)
    assert path.exists(), f"missing {path}; run with --update-golden"
    assert rendered == path.read_text()


@pytest.mark.parametrize("width", NARROW_WIDTHS)
@pytest.mark.parametrize("name", sorted(NARROW))
def test_every_value_is_whole_on_a_line_at_every_width(name, width):
    """Each cell of the table, its column's name too, is on one line of the output: never cut,
    folded or left out (at 20 columns Rich showed the tables with no values; at 24-30 it folded
    an offset of 99 into two lines of 9)."""
    result = NARROW[name]
    spec = registry.renderer_for(result).table(result)
    lines = _render(result, width).splitlines()
    for table in (spec.before, spec) if spec.before is not None else (spec,):
        for row in [table.columns, *table.rows]:
            for cell in row:
                assert any(cell in line for line in lines), f"{cell!r} is not whole in {name} at {width}"
