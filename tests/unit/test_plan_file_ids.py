"""Our own plan files -- backups and ``--export`` -- read back through ``--from-file`` whatever a
group id holds: line breaks, quotes, commas, control characters, non-ASCII, a leading U+FEFF.

The format is RFC 4180 CSV with the Apache tool's (Jackson's) quoting: a cell holding any
character below ``-`` is quoted, quotes doubled. The Apache reader splits the file into lines
before it parses each one, so it reads every file whose ids hold no line break (``\\n`` or
``\\r``); ours also reads a quoted cell that goes on over several lines."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.core import reset
from kafka_groups.core.plan_file import backup_csv, export_csv, parse_plan_csv, plan_lines
from kafka_groups.core.reset import GroupPlan
from kafka_groups.errors import UsageError

# Any character a group id may hold, but NUL (a reader of text refuses it, and no argv or C
# client carries it) and lone surrogates (Kafka strings are UTF-8: Java's encoder replaces them).
IDS = st.text(
    st.characters(exclude_categories=("Cs",), exclude_characters="\0"), min_size=1, max_size=12
).filter(lambda s: s.strip() != "")
AWKWARD = st.sampled_from(
    ["a\nb", "a\r\nb", "\r", '"', '""', ",", " x ", "\ufeffg", "\x1b[2J", "é日\t", "\x85"]
)
GROUP_IDS = st.one_of(IDS, AWKWARD)
TOPICS = st.from_regex(r"[a-zA-Z0-9._-]{1,20}", fullmatch=True)
OFFSETS = st.dictionaries(
    st.tuples(TOPICS, st.integers(0, 2**31 - 1)), st.integers(0, 2**63 - 1), min_size=1, max_size=4
)
PLANS = st.dictionaries(GROUP_IDS, OFFSETS, min_size=1, max_size=4)


def _read_stream(data: bytes, groups: list[str]) -> dict:
    return reset.parse_plan(plan_lines(io.BytesIO(data), "f"), groups, "f")


@given(PLANS)
def test_a_backup_of_any_group_ids_reads_back(plan):
    text = backup_csv(plan)
    assert parse_plan_csv(text, sorted(plan), "backup") == plan
    assert parse_plan_csv(text, [], "backup") == plan  # --all-groups: every row
    assert _read_stream(text.encode(), sorted(plan)) == plan
    assert _read_stream(b"\xef\xbb\xbf" + text.encode(), sorted(plan)) == plan


@given(PLANS)
def test_an_export_of_any_group_ids_reads_back(plan):
    plans = [GroupPlan(g, offsets) for g, offsets in plan.items()]
    assert _read_stream(export_csv(plans, single_group=False).encode(), sorted(plan)) == plan
    group, offsets = next(iter(plan.items()))
    single = export_csv([GroupPlan(group, offsets)], single_group=True)
    assert _read_stream(single.encode(), [group]) == {group: offsets}


@given(PLANS)
def test_the_apache_reader_reads_every_row_on_its_own_line_when_no_id_holds_a_line_break(plan):
    """The Apache tool splits on ``\\n`` and parses each piece as one row: with no ``\\n`` or
    ``\\r`` in any id, each of our rows is exactly one line (its cells quoted as Jackson's)."""
    text = backup_csv(plan)
    lines = text.split("\n")[:-1]
    if not any("\n" in g or "\r" in g for g in plan):
        assert len(lines) == sum(len(o) for o in plan.values())
        for line in lines:
            assert parse_plan_csv(line + "\n", [], "one line") != {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('"open,t,0,1\n', "line 1: a quoted value is not closed before the end of the file"),
        ('g,t,0,1\n"a\nb"x,t,0,1\n', "line 2: expected 4 columns"),
        ('g,t,0,1\n"a"b,t,0,1\n', "line 2: expected 4 columns"),
    ],
)
def test_a_damaged_quoted_cell_is_named_by_its_first_line(text, message):
    with pytest.raises(UsageError, match=message):
        parse_plan_csv(text, [], "f")


def test_a_quoted_cell_cannot_run_on_without_bound():
    def lines():
        yield '"g\n'
        while True:
            yield "x" * 1000 + "\n"

    with pytest.raises(UsageError, match="line 1: a quoted value runs on for more than 64 KiB"):
        reset.parse_plan(lines(), [], "f")


def test_rows_after_a_multi_line_id_keep_their_line_numbers():
    text = '"a\nb",t,0,1\ng,t,0,x\n'
    with pytest.raises(UsageError, match="line 3: the offset 'x' is not a number"):
        parse_plan_csv(text, [], "f")


def test_crlf_files_still_read():
    expected = {"a b": {("t", 0): 1}, "g": {("t", 1): 2}}
    assert parse_plan_csv('"a b",t,0,1\r\ng,t,1,2\r\n\r\n', [], "f") == expected


def test_a_quote_inside_an_unquoted_cell_is_kept_as_the_apache_reader_keeps_it():
    assert parse_plan_csv('a"b,t,0,1\n', [], "f") == {'a"b': {("t", 0): 1}}
