"""Text building blocks for the dashboard: durations, numbers, cut lines, one-line tables.

:func:`table_lines` lays out a table with exactly one line per row (and a
header line), fitted to a width: optional columns are dropped first, then
flexible columns shrink, then cells are cut with an ellipsis.  Known heights
make the screen layout simple, and plain text is cheap to build four times a
second, which ``rich.table`` is not for tables of many rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import attrs
from rich.cells import cell_len, set_cell_size
from rich.text import Span, Text

from arena import fields_repr

Cell = str | tuple[str, str]  # text, or (text, style)

GAP: Final = "  "


def format_duration(seconds: float) -> str:
    """``0:07``, ``12:34``, ``1:02:03``."""
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def format_number(value: float) -> str:
    """``2`` for whole numbers, ``2.5`` otherwise (jigos make halves)."""
    return str(int(value)) if value == int(value) else f"{value:g}"


def percent(part: float, whole: float) -> str:
    return "--" if whole == 0 else f"{100.0 * part / whole:.1f}%"


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells with an ellipsis when it is longer."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, width - 1).rstrip() + "…"


def line(text: str, width: int, style: str = "") -> Text:
    return Text(fit(text, width), style=style, no_wrap=True, overflow="crop", end="")


@attrs.frozen
class Column:
    __repr__ = fields_repr

    header: str
    align: str = "left"  # or "right"
    flexible: bool = False  # shrinks first when the table is too wide
    optional: int = 0  # > 0: dropped when the table is too wide, the highest first
    min_width: int = 3


def cell_text(cell: Cell) -> str:
    return cell if isinstance(cell, str) else cell[0]


def table_lines(
    columns: Sequence[Column],
    rows: Sequence[Sequence[Cell]],
    width: int,
    *,
    header: bool = True,
    row_styles: Sequence[str] | None = None,
) -> list[Text]:
    """A table with one line per row (and a header line), fitted to ``width``."""
    widths = [cell_len(c.header) if header else 0 for c in columns]
    for row in rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], cell_len(cell_text(cell)))
    keep = list(range(len(columns)))

    def total() -> int:
        return sum(widths[i] for i in keep) + len(GAP) * max(0, len(keep) - 1)

    while total() > width:
        optional = [i for i in keep if columns[i].optional]
        if not optional:
            break
        keep.remove(max(optional, key=lambda i: (columns[i].optional, i)))
    excess = total() - width
    for i in keep:
        if excess <= 0:
            break
        if columns[i].flexible:
            cut = min(excess, widths[i] - columns[i].min_width)
            if cut > 0:
                widths[i] -= cut
                excess -= cut

    last = len(keep) - 1

    def render(cells: Sequence[Cell], style: str) -> Text:
        # Plain text plus spans: much cheaper than appending to a Text cell by cell.
        parts: list[str] = []
        spans: list[Span] = []
        offset = 0
        for position, i in enumerate(keep):
            cell = cells[i]
            content, cell_style = (cell, "") if isinstance(cell, str) else cell
            content = fit(content, widths[i])
            pad = " " * (widths[i] - cell_len(content))
            if position:
                parts.append(GAP)
                offset += len(GAP)
            if columns[i].align == "right":
                parts.append(pad)
                offset += len(pad)
            parts.append(content)
            if cell_style:
                spans.append(Span(offset, offset + len(content), cell_style))
            offset += len(content)
            if columns[i].align != "right" and position < last:
                parts.append(pad)
                offset += len(pad)
        text = Text("".join(parts), style=style, no_wrap=True, overflow="crop", end="", spans=spans)
        if text.cell_len > width:
            text.truncate(width)
        return text

    lines = []
    if header:
        lines.append(render([c.header for c in columns], "bold"))
    for index, row in enumerate(rows):
        lines.append(render(row, row_styles[index] if row_styles else ""))
    return lines


def more(count: int, what: str, width: int) -> Text:
    return line(f"… and {count} more {what}", width, "dim")
