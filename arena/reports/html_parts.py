"""Pieces of the HTML report that know nothing about competitions: the page, tables, plots, CSS.

Pure string building (no matplotlib, no disk).  Everything a page shows goes
through :func:`esc`; plots arrive as finished ``<svg>`` text and are wrapped
in ``<figure class="plot" id="fig-...">`` so a reader (and the browser test)
can find each one by id.  The page has no script and loads nothing: styles
are inline, so the file opens anywhere, offline.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Final

import attrs

CSS: Final = """
:root { --fg: #1d2329; --muted: #5f6b76; --line: #dde2e7; --accent: #1f6fb2;
  --bg: #f4f6f8; --card: #ffffff; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
main { max-width: 1320px; margin: 0 auto; padding: 22px 28px 48px; }
header h1 { margin: 0 0 2px; font-size: 26px; letter-spacing: -0.01em; }
header .kind { color: var(--muted); font-weight: 500; }
header p { margin: 4px 0; }
.meta { color: var(--muted); font-size: 13.5px; }
.description { white-space: pre-line; }
nav { margin: 10px 0 0; font-size: 13.5px; }
nav a { color: var(--accent); text-decoration: none; margin-right: 14px; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 8px;
  padding: 16px 22px 18px; margin: 18px 0; }
section h2 { margin: 0 0 6px; font-size: 19px; }
section h3 { margin: 14px 0 6px; font-size: 15.5px; }
.settings { color: var(--muted); font-size: 13.5px; margin: 0 0 10px; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(540px, 1fr));
  gap: 14px 26px; margin-top: 12px; }
figure.plot { margin: 0; min-width: 0; }
figure.plot svg { width: 100%; height: auto; display: block; }
figure.plot.wide { grid-column: 1 / -1; max-width: 980px; }
.table-scroll { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 14px; }
th, td { padding: 4px 10px; text-align: right; border-bottom: 1px solid var(--line);
  white-space: nowrap; }
th { font-weight: 600; color: var(--muted); font-size: 12.5px; text-transform: uppercase;
  letter-spacing: 0.03em; }
td.name, th.name { text-align: left; }
tr.best td { font-weight: 600; }
table.grid td.cell { text-align: center; min-width: 3.4em; border: 1px solid #ffffff; }
table.grid td.self { background: #eceff2; }
table.grid th.letter { text-align: center; }
ul.figures-text { margin: 8px 0 0; padding-left: 20px; color: var(--fg); }
.stats { margin: 8px 0 0; padding-left: 20px; font-size: 14px; }
.note { color: var(--muted); font-size: 13.5px; }
details { margin-top: 10px; }
summary { cursor: pointer; color: var(--accent); }
pre { background: #f7f8fa; border: 1px solid var(--line); border-radius: 6px;
  padding: 10px 12px; overflow-x: auto; font-size: 12.5px; line-height: 1.35; }
"""


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def element_id(text: str) -> str:
    """``text`` as an id fragment: letters, digits, ``-`` and ``_`` only."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", text)


@attrs.frozen
class Plot:
    """One inlined plot: its id (``fig-...``), the SVG, and what it shows for readers."""

    id: str
    svg: str
    caption: str
    wide: bool = False

    def render(self) -> str:
        wide = " wide" if self.wide else ""
        return (
            f'<figure class="plot{wide}" id="{esc(self.id)}" aria-label="{esc(self.caption)}">'
            f"{self.svg}</figure>"
        )


def figures(plots: Sequence[Plot]) -> str:
    if not plots:
        return ""
    return '<div class="figures">' + "".join(plot.render() for plot in plots) + "</div>"


@attrs.frozen
class Cell:
    """A table cell: text (escaped), CSS classes and an inline style for colour."""

    text: str
    classes: str = ""
    style: str = ""
    title: str = ""

    def render(self, tag: str = "td") -> str:
        attributes = ""
        if self.classes:
            attributes += f' class="{esc(self.classes)}"'
        if self.style:
            attributes += f' style="{esc(self.style)}"'
        if self.title:
            attributes += f' title="{esc(self.title)}"'
        return f"<{tag}{attributes}>{esc(self.text)}</{tag}>"


def table(
    headings: Sequence[Cell | str],
    rows: Sequence[Sequence[Cell | str]],
    *,
    classes: str = "",
    row_classes: Sequence[str] = (),
) -> str:
    """A table; a plain string cell is right-aligned, except in the first column."""

    def cell(value: Cell | str, column: int) -> Cell:
        if isinstance(value, Cell):
            return value
        return Cell(value, "name" if column == 0 else "")

    head = "".join(cell(h, i).render("th") for i, h in enumerate(headings))
    body = []
    for index, row in enumerate(rows):
        row_class = row_classes[index] if index < len(row_classes) else ""
        opening = f'<tr class="{esc(row_class)}">' if row_class else "<tr>"
        body.append(opening + "".join(cell(c, i).render() for i, c in enumerate(row)) + "</tr>")
    class_attribute = f' class="{esc(classes)}"' if classes else ""
    return (
        f'<div class="table-scroll"><table{class_attribute}><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


# Diverging scale for a score fraction: red (0) through near-white (0.5) to green (1).
_LOW: Final = (214, 72, 62)
_MIDDLE: Final = (246, 246, 244)
_HIGH: Final = (40, 150, 90)


def score_colour(score: float) -> str:
    """A CSS background for a row player's score fraction against the column player."""
    score = min(max(score, 0.0), 1.0)
    if score < 0.5:
        far, t = _LOW, (0.5 - score) * 2.0
    else:
        far, t = _HIGH, (score - 0.5) * 2.0
    red, green, blue = (round(m + (f - m) * t) for m, f in zip(_MIDDLE, far, strict=True))
    text = "#ffffff" if t > 0.7 else "#1d2329"
    return f"background: rgb({red}, {green}, {blue}); color: {text};"


def section(section_id: str, title: str, body: str, settings: str = "") -> str:
    line = f'<p class="settings">{esc(settings)}</p>' if settings else ""
    return f'<section id="{esc(section_id)}"><h2>{esc(title)}</h2>{line}{body}</section>'


def text_block(title: str, text: str) -> str:
    """Text in a fold, for what the page shows better as plain text."""
    return f"<details><summary>{esc(title)}</summary><pre>{esc(text)}</pre></details>"


def page(
    title: str,
    kind: str,
    description: str | None,
    meta: str,
    navigation: Sequence[tuple[str, str]],
    blocks: Sequence[str],
) -> str:
    """The whole document: head with the styles, header, a short table of contents, blocks."""
    nav = ""
    if navigation:
        nav = "<nav>" + "".join(f'<a href="#{esc(i)}">{esc(t)}</a>' for i, t in navigation)
        nav += "</nav>"
    about = f'<p class="description">{esc(description)}</p>' if description else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)} ({esc(kind)})</title><style>{CSS}</style></head>\n"
        f'<body><main><header><h1>{esc(title)} <span class="kind">{esc(kind)}</span></h1>'
        f'{about}<p class="meta">{esc(meta)}</p>{nav}</header>\n'
        + "\n".join(blocks)
        + "\n</main></body></html>\n"
    )
