"""Rich tables at a fixed width, compared with checked-in files.
Regenerate after a deliberate change with: pytest tests/unit/test_golden_tables.py --update-golden"""

import io
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
from kafka_groups.render import registry
from kafka_groups.render.table import print_table

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


def _render(result):
    out = io.StringIO()
    print_table(registry.renderer_for(result).table(result), out, width=WIDTH)
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
