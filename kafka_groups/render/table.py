"""Tables for a person at a terminal (``NO_COLOR`` is honoured, through Rich's console).

The layout is Rich's ``SIMPLE_HEAD`` table, drawn here: each column as wide as its widest cell,
a rule under the header, a row's style on its cells. Rich's own ``Table`` renders each cell
through its whole wrapping machinery, which took 100 times the text layout's time for 10,000
rows; these lines are padded strings, each written as it is made.

A table wider than the terminal is never cut, folded or squeezed (a folded ``99`` read as two
rows of ``9``; at 20 columns Rich drew the columns with no room for their values): it loses its
edges and padding when that is enough, else its rows are shown as blocks of ``COLUMN  value``
lines, every value whole on its line. A table into a pipe (``--output table`` not on a
terminal) is as wide as it needs.

The layouts (``table_lines``, ``compact_lines``, ``block_lines``) are functions of the rows and
their columns' widths (``column_widths``), yielding each line as it is made: output printed as
it is read can lay out each batch of rows (a group) with widths of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TextIO

from rich.cells import cell_len
from rich.console import Console
from rich.style import Style

from kafka_groups.escape import escape_controls

RULE = "─"
# What Rich's table styles are by default: a title in italics, the header in bold.
TITLE_STYLE = "italic"
HEADER_STYLE = "bold"


@dataclass(frozen=True)
class TableSpec:
    """A table to draw: a title, column names, rows of cells, row styles (Rich style names)."""

    title: str
    columns: Sequence[str]
    rows: Sequence[Sequence[str]]
    row_styles: Sequence[str] = ()
    empty_message: str = ""
    # A table drawn first (kafka-topics --describe: one row per topic above its partitions).
    before: TableSpec | None = None


def print_table(spec: TableSpec, stream: TextIO, width: int | None = None) -> None:
    # On a terminal the table fits the terminal or turns into blocks; elsewhere (a forced
    # table into a pipe) it gets the width it needs.
    if width is None and not stream.isatty():
        width = 100_000
    console = Console(file=stream, width=width, highlight=False, soft_wrap=False)
    if spec.before is not None and spec.before.rows:
        _print(console, spec.before)
        if not spec.rows:  # the rows above say it all (kafka-topics --topics-with-overrides)
            return
    _print(console, spec)


def _print(console: Console, spec: TableSpec) -> None:
    out = console.file
    if not spec.rows and spec.empty_message:
        out.write(escape_controls(spec.empty_message) + "\n")
        return
    header = [_cell(name) for name in spec.columns]
    rows = [[c if c.isprintable() else _cell(c) for c in row] for row in spec.rows]
    for row in rows:  # a short row's last cells are empty, as Rich's table drew them
        row.extend([""] * (len(header) - len(row)))
    styles = list(spec.row_styles) + [""] * (len(rows) - len(spec.row_styles))
    widths = column_widths(header, rows)
    if table_width(widths) <= console.width:
        lines = table_lines
    elif compact_width(widths) <= console.width:
        lines = compact_lines
    else:
        lines = block_lines
    title = _cell(spec.title) if spec.title else ""
    for line, style in lines(title, header, rows, styles, widths):
        out.write(_paint(console, line, style) + "\n")
    out.flush()


def column_widths(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[int]:
    """Each column's width in terminal cells: its widest cell, its name included."""
    widths = [cell_len(name) for name in header]
    for row in rows:
        for i, cell in enumerate(row):
            if len(cell) > widths[i] or not cell.isascii():  # len is the width of ASCII text
                widths[i] = max(widths[i], cell_len(cell))
    return widths


def table_width(widths: Sequence[int]) -> int:
    """A table's width: an edge, then each column padded by a space on each side and followed
    by a separator (the last one is the other edge)."""
    return sum(widths) + 3 * len(widths) + 1


def compact_width(widths: Sequence[int]) -> int:
    """A compact table's width: the columns two spaces apart, no edges."""
    return sum(widths) + 2 * (len(widths) - 1)


def _cell(text: str) -> str:
    """A cell's text with control characters escaped, and every other character a terminal
    does not show as itself (tabs, line and paragraph separators, format characters such as a
    right-to-left override, spaces other than the space): they would break the columns or
    disguise a name. ``\\t``, ``\\u2028``, as Python writes them."""
    return "".join(c if c.isprintable() else _escaped(c) for c in escape_controls(text))


def _escaped(char: str) -> str:
    if char == "\t":
        return "\\t"
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _pad(cell: str, width: int) -> str:
    return cell + " " * (width - (len(cell) if cell.isascii() else cell_len(cell)))


def _row_format(
    widths: Sequence[int], start: str, gap: str, end: str, last_padded: bool = True
) -> Callable[[Sequence[str]], str]:
    """A function from a row's cells to its line: the cells padded to their columns' widths,
    ``gap`` between them. A row of ASCII cells (nearly all) is one ``%`` format."""
    fields = [f"%-{w}s" for w in widths]
    if not last_padded:
        fields[-1] = "%s"
    template = start + gap.join(fields) + end

    def line(cells: Sequence[str]) -> str:
        if "".join(cells).isascii():
            return template % tuple(cells)
        padded = [_pad(c, w) for c, w in zip(cells, widths, strict=True)]
        if not last_padded:
            padded[-1] = cells[-1]
        return start + gap.join(padded) + end

    return line


def table_lines(
    title: str,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    styles: Sequence[str],
    widths: Sequence[int],
) -> Iterator[tuple[str, str]]:
    """The table, line by line with each line's style: the title (left, padded to the table's
    width, never folded), an empty edge, the header, its rule, the rows, an empty edge."""
    total = table_width(widths)
    line = _row_format(widths, "  ", "   ", "  ")

    if title:
        yield _pad(title, total), TITLE_STYLE
    yield " " * total, ""
    yield line(header), HEADER_STYLE
    yield " " + RULE * (total - 2) + " ", ""
    for cells, style in zip(rows, styles, strict=True):
        yield line(cells), style
    yield " " * total, ""


def compact_lines(
    title: str,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    styles: Sequence[str],
    widths: Sequence[int],
) -> Iterator[tuple[str, str]]:
    """A table a little too wide for the terminal: the same columns two spaces apart, without
    edges and padding (the last column unpadded)."""
    line = _row_format(widths, "", "  ", "", last_padded=False)

    if title:
        yield title, TITLE_STYLE
    yield line(header), HEADER_STYLE
    yield RULE * compact_width(widths), ""
    for cells, style in zip(rows, styles, strict=True):
        yield line(cells), style


def block_lines(
    title: str,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    styles: Sequence[str],
    widths: Sequence[int],
) -> Iterator[tuple[str, str]]:
    """A table too wide for the terminal: one block per row, a ``COLUMN  value`` line per cell
    (the names aligned), blocks apart by an empty line. Every value is whole on its line; one
    longer than the terminal runs on to the next line, as the terminal wraps it."""
    names = max(cell_len(name) for name in header) + 2
    labels = [_pad(name, names) for name in header]
    if title:
        yield title, TITLE_STYLE
    for cells, style in zip(rows, styles, strict=True):
        yield "", ""
        block = [label + cell if cell else label.rstrip() for label, cell in zip(labels, cells, strict=True)]
        yield "\n".join(block), style
    yield "", ""


def _paint(console: Console, text: str, style: str) -> str:
    """The text with its style's terminal codes on each of its lines, when the console shows
    styles (a terminal; colours not under ``NO_COLOR``)."""
    if not style or console.color_system is None:
        return text
    parsed = Style.parse(style)
    if console.no_color:
        parsed = parsed.without_color
    return "\n".join(parsed.render(line, color_system=console._color_system) for line in text.split("\n"))
