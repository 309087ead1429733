"""The reset plan's text layout (render/reset.text), the Apache tool's: every row's cells padded
to the widest group and topic (at least 15), the partition to 10, whatever the groups, topics,
partitions and offsets, and in the plan's order; a compact table prints as a dict does."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.core.offset_table import OffsetTable
from kafka_groups.core.reset import GroupPlan
from kafka_groups.core.reset_plan import Plan, ResetResult
from kafka_groups.render.reset import text

names = st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF), min_size=1, max_size=24)


def expected(groups: list[tuple[str, dict[tuple[str, int], int]]], refused: list[str]) -> str:
    """The layout spelt out row by row."""
    if not groups and not refused:
        return "\n"
    gw = max([15, *(len(g) for g, _ in groups), *(len(g) for g in refused)])
    tw = max([15, *(len(t) for _, offsets in groups for t, _ in offsets)])
    rows = [("GROUP", "TOPIC", "PARTITION", "NEW-OFFSET")]
    rows += [(g, t, str(p), str(o)) for g, offsets in groups for (t, p), o in offsets.items()]
    return "".join(f"\n{g.ljust(gw)} {t.ljust(tw)} {p.ljust(10)} {o}" for g, t, p, o in rows) + "\n"


@given(
    groups=st.lists(
        st.tuples(
            names,
            st.dictionaries(st.tuples(names, st.integers(0, 10**6)), st.integers(0, 2**62), max_size=6),
        ),
        max_size=4,
        unique_by=lambda g: g[0],
    ),
    refused=st.lists(names, max_size=2),
)
def test_the_plan_table_is_the_apache_layout(
    groups: list[tuple[str, dict[tuple[str, int], int]]], refused: list[str]
) -> None:
    plan = Plan(
        tuple(GroupPlan(g, offsets) for g, offsets in groups), refused=tuple((g, "Stable") for g in refused)
    )
    assert text(ResetResult(plan)) == expected(groups, refused)


def test_a_compact_plan_prints_as_the_same_plan_in_a_dict() -> None:
    offsets = {("orders", p): 100 + p for p in range(3000)} | {("a-much-longer-topic-name", 7): 0}
    table = OffsetTable()
    for tp, o in offsets.items():
        table[tp] = o
    plain = text(ResetResult(Plan((GroupPlan("g", offsets),))))
    assert text(ResetResult(Plan((GroupPlan("g", table),)))) == plain
    assert plain == expected([("g", offsets)], [])
