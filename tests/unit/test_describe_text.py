"""The Apache text layout of the offsets view: the path a describe of many groups takes for each
group (render/describe._plain_offsets_text) writes the very text of the general one, whatever
the rows hold (offsets known or not, members or none, long or odd names, ``%`` in them); and the
rows of an idle group come out as offset_rows made them before (sorted committed partitions)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_groups.core.describe import (
    Committed,
    Coordinator,
    DescribedGroup,
    DescribeResult,
    GroupDescription,
    Member,
    OffsetRow,
    View,
    java_sorted,
    offset_rows,
)
from kafka_groups.render import describe as render

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=24)
offsets = st.none() | st.integers(0, 2**63 - 1)
owners = st.none() | names


@st.composite
def group_rows(draw: st.DrawFn) -> tuple[OffsetRow, ...]:
    group = draw(names | st.just("100%-sure") | st.just("g" * 40))
    count = draw(st.integers(1, 12))
    return tuple(
        OffsetRow(
            group,
            draw(st.sampled_from(["orders", "t%s", "a-much-longer-topic-name-than-fifteen"])),
            draw(st.integers(0, 10**6)),
            draw(st.none() | st.integers(0, 100)),
            draw(offsets),
            draw(offsets),
            *(draw(st.just((None, None, None)) | st.tuples(owners, owners, owners))),
        )
        for _ in range(count)
    )


@settings(max_examples=300, deadline=None)
@given(rows=group_rows())
def test_the_plain_layout_is_the_general_layouts_text(rows):
    assert render._plain_offsets_text(rows) == render._offsets_text_of(rows, False, None)


def test_a_whole_result_of_idle_and_owned_groups_reads_as_before():
    coordinator = Coordinator("broker", 9092, 1)
    member = Member("consumer-1", "client", "/10.0.0.1", None, (("orders", 1),))
    idle = GroupDescription("idle", "Empty", "Classic", coordinator, "", ())
    busy = GroupDescription("busy", "Stable", "Classic", coordinator, "range", (member,))
    committed = {("orders", 1): Committed(5, 2), ("orders", 0): Committed(7), ("other", 3): Committed(-1)}
    ends = {("orders", 0): 9, ("orders", 1): 5, ("other", 3): None}
    groups = tuple(DescribedGroup(g, offset_rows(g, committed, ends)) for g in (busy, idle))
    text = render.text(DescribeResult(View.OFFSETS, False, groups))
    general = "".join(render._offsets_text_of(g.rows, False, None) for g in groups)
    assert text == general
    assert [(r.topic, r.partition, r.current_offset, r.consumer_id) for r in groups[1].rows] == [
        ("orders", 0, 7, None),
        ("orders", 1, 5, None),
        ("other", 3, None, None),
    ]
    first = groups[0].rows[0]
    assert (first.topic, first.partition, first.consumer_id) == ("orders", 1, "consumer-1")


@given(st.lists(st.text(max_size=6), max_size=30))
def test_java_order_of_ascii_ids_is_the_utf16_order(ids):
    assert java_sorted(ids) == sorted(set(ids), key=lambda g: g.encode("utf-16-be"))
