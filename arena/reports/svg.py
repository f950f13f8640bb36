"""The look of the HTML report's plots and how a figure becomes inline SVG (needs matplotlib).

A bare :class:`matplotlib.figure.Figure` saved with the SVG backend (no pyplot,
no GUI), under :data:`STYLE`: text stays text, so the browser's fonts draw it
and the files stay small, and every id in a figure gets the figure's prefix,
so several SVGs can share a page.  Margins are fixed in inches
(:func:`set_margins`) rather than found by matplotlib's layout engines, which
measure every piece of text and cost more than drawing the figure.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Final

import matplotlib as mpl
from matplotlib.axes import Axes
from matplotlib.figure import Figure

STYLE: Final[Mapping[str, Any]] = {
    "svg.fonttype": "none",  # <text>, drawn by the browser
    "svg.hashsalt": "gtp-arena",  # the same page for the same data
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Liberation Sans", "Arial", "Helvetica"],
    "font.size": 10.0,
    "axes.titlesize": 11.5,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
    "axes.titlepad": 17.0,
    "axes.labelsize": 10.0,
    "axes.labelcolor": "#333333",
    "axes.edgecolor": "#999999",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.color": "#e6e6e6",
    "grid.linewidth": 0.8,
    "xtick.color": "#555555",
    "ytick.color": "#555555",
    "legend.frameon": False,
    "legend.fontsize": 9.0,
    "path.simplify": True,
}
WIDTH: Final = 6.4  # inches; the page scales every SVG to its column
GLYPH_WIDTH: Final = 0.62 / 72  # inches per point of font size: a DejaVu Sans glyph, on average
YLABEL: Final = 0.32  # inches for an axis label and its padding

_PROLOGUE: Final = re.compile(r"\A.*?(?=<svg\b)", re.DOTALL)
_SIZE: Final = re.compile(r'\s(?:width|height)="[^"]*pt"')
_ID: Final = re.compile(r'\bid="([^"]+)"')
_REFERENCE: Final = re.compile(r'(url\(#|href="#)([^)"]+)')


@contextmanager
def style() -> Iterator[None]:
    """The report's look, for the figures made inside (matplotlib's globals are restored)."""
    with mpl.rc_context(STYLE):  # type: ignore[arg-type]  # keys are checked at run time
        yield


def to_svg(figure: Figure, prefix: str) -> str:
    """The figure as an inline ``<svg>`` element whose ids all start with ``prefix``."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = _PROLOGUE.sub("", buffer.getvalue(), count=1)
    head, _, body = text.partition(">")
    head = _SIZE.sub("", head) + ' role="img" preserveAspectRatio="xMidYMid meet"'
    text = head + ">" + body
    text = _ID.sub(lambda m: f'id="{prefix}-{m.group(1)}"', text)
    return _REFERENCE.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", text)


def new_figure(height: float, width: float = WIDTH) -> tuple[Figure, Axes]:
    figure = Figure(figsize=(width, height))
    return figure, figure.add_subplot()


def text_width(labels: Iterable[str], size: float = 10.0) -> float:
    """Inches the longest label takes, estimated from its length (an average glyph)."""
    return max((len(label) for label in labels), default=0) * size * GLYPH_WIDTH


def number_width(low: float, high: float) -> float:
    """Inches the widest tick label of an axis from ``low`` to ``high`` takes."""
    return text_width([f"{-abs(low):.0f}", f"{-abs(high):.0f}"])


def set_margins(
    figure: Figure,
    *,
    left: float = 0.85,
    right: float = 0.25,
    top: float = 0.62,
    bottom: float = 0.55,
    hspace: float | None = None,
) -> None:
    """Fixed margins in inches (top: room for the title and its note).

    matplotlib's automatic layouts measure every piece of text and cost more
    than drawing the figure; labels here are few and known, so their room is
    estimated from their length instead.
    """
    width, height = figure.get_size_inches()
    figure.subplots_adjust(
        left=left / width,
        right=1 - right / width,
        bottom=bottom / height,
        top=1 - top / height,
        hspace=hspace,
    )


def note(axes: Axes, text: str) -> None:
    """A grey line of explanation under the title, inside the plot's top-left corner."""
    axes.text(
        0.0,
        1.012,
        text,
        transform=axes.transAxes,
        fontsize=8.5,
        color="#666666",
        va="bottom",
        ha="left",
    )
