"""The terminal tables' layouts (kafka_groups/render/table.py) on generated tables and widths:
every value whole on one line, a table never wider than the terminal, and the layout Rich's
own table drew when it fits."""

from __future__ import annotations

import io

from hypothesis import assume, given
from hypothesis import strategies as st
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from kafka_groups.render.table import RULE, TableSpec, _cell, print_table

# Cells as the tables hold them: names, numbers, sentences, wide and control characters.
cells = st.one_of(
    st.integers(min_value=-(10**12), max_value=10**12).map(str),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30),
    st.sampled_from(["-", "", "orders", "500 (out of range)", "broker-1.example:9092  (1)", "注文-0"]),
)


@st.composite
def tables(draw) -> TableSpec:
    columns = draw(
        st.lists(
            # Headers as the tables have them: words, one space apart, none at either end (a
            # value-less line of the block layout ends at its header's last letter).
            st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ -", min_size=1, max_size=18)
            .map(lambda header: " ".join(header.split()))
            .filter(bool),
            min_size=1,
            max_size=10,
        )
    )
    rows = draw(
        st.lists(st.lists(cells, min_size=len(columns), max_size=len(columns)), min_size=1, max_size=8)
    )
    styles = draw(st.lists(st.sampled_from(["", "red", "yellow", "bold", "dim"]), max_size=len(rows)))
    title = draw(st.sampled_from(["", "3 partition(s) lost or at risk: --describe --health says why"]))
    return TableSpec(title, columns, rows, styles)


def _shown(cell: str) -> str:
    return _cell(cell)


def _render(spec: TableSpec, width: int) -> str:
    out = io.StringIO()
    print_table(spec, out, width=width)
    return out.getvalue()


@given(spec=tables(), width=st.integers(min_value=10, max_value=240))
def test_every_value_is_whole_on_one_line(spec, width):
    lines = _render(spec, width).split("\n")
    for row in [spec.columns, *spec.rows]:
        for cell in row:
            assert any(_shown(cell) in line for line in lines), (cell, width)


@given(spec=tables(), width=st.integers(min_value=10, max_value=240))
def test_a_table_is_never_wider_than_the_terminal(spec, width):
    """Drawn as a table (a rule under its header), no line is wider than the terminal; blocks
    show each value on a line of its own, whatever its length."""
    from rich.cells import cell_len

    lines = _render(spec, width).split("\n")
    title = _shown(spec.title)
    if any(line.strip() and set(line.strip()) == {RULE} for line in lines):
        assert all(cell_len(line) <= width for line in lines if line.rstrip() != title), width


@given(spec=tables())
def test_a_table_that_fits_is_drawn_as_rich_draws_it(spec):
    """Where it fits, the layout is Rich's SIMPLE_HEAD table, to the character (but a title
    wider than the table, which Rich folds and ours leaves whole)."""
    from rich.cells import cell_len

    from kafka_groups.render.table import column_widths, table_width

    shown = [[_shown(c) for c in row] for row in spec.rows]
    assume(cell_len(_shown(spec.title)) <= table_width(column_widths(spec.columns, shown)))
    width = 100_000
    table = Table(
        title=Text(_shown(spec.title)) if spec.title else None, box=box.SIMPLE_HEAD, title_justify="left"
    )
    for name in spec.columns:
        table.add_column(_shown(name))
    for row in spec.rows:
        table.add_row(*(Text(_shown(c)) for c in row))
    rich = io.StringIO()
    Console(file=rich, width=width, highlight=False, soft_wrap=False).print(table)
    assert _render(spec, width) == rich.getvalue()
