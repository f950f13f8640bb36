"""The HTML report's plots for playoffs and all-play-all tournaments (needs matplotlib).

Each function takes what :mod:`arena.reports.series` (or a snapshot) laid out
and returns one ``<svg>`` element, drawn in the report's style
(:mod:`arena.reports.svg`).  :mod:`arena.reports.html` imports the plots only
when it writes a page, and turns a missing matplotlib into one line naming
the install command.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final

import matplotlib as mpl
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator
from matplotlib.transforms import ScaledTranslation

from arena.competitions.matchstats import format_elo
from arena.reports.series import ColourRecord, EloSeries, PlayerRecord, RatingsSeries
from arena.reports.svg import (
    YLABEL,
    new_figure,
    note,
    number_width,
    set_margins,
    text_width,
    to_svg,
)
from arena.results import EndReason
from arena.stats.elo import SPRT
from arena.stats.ratings import Ratings
from gtp.vertex import Colour

ACCENT: Final = "#1f6fb2"
BLACK_STONE: Final = "#2b2b2b"
WHITE_STONE: Final = "#fafafa"
ELO_CLIP: Final = 1200.0  # an Elo curve beyond this is cut at the edge
BANDS: Final = 4  # the ratings history shades intervals up to this many players (more: a blur)
END_COLOURS: Final[Mapping[EndReason, tuple[str, str]]] = {
    EndReason.SCORE: ("scored", "#4c78a8"),
    EndReason.RESIGN: ("resigned", "#72b7b2"),
    EndReason.CLAIM: ("claimed", "#54a24b"),
    EndReason.FORFEIT: ("forfeit", "#e45756"),
    EndReason.TIME: ("lost on time", "#f58518"),
    EndReason.MOVE_LIMIT: ("move limit", "#b279a2"),
    EndReason.UNKNOWN: ("unknown result", "#9d9d9d"),
    EndReason.ADJUDICATED: ("adjudicated", "#eeca3b"),
}

# ---------------------------------------------------------------------------
# Playoffs and all-play-all


def _finite_range(values: Sequence[float]) -> tuple[float, float]:
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return -400.0, 400.0
    low = max(min(finite), -ELO_CLIP)
    high = min(max(finite), ELO_CLIP)
    pad = max(20.0, 0.08 * (high - low))
    return min(low - pad, -pad), max(high + pad, pad)


def elo_range(series: EloSeries) -> tuple[float, float]:
    """The Elo axis: the finite values, with room past them where a value or bound is infinite.

    The first few games' intervals span thousands of Elo: the range follows the
    curve and the intervals from a fifth of the way on, and lets the early band
    run off.  An unbounded value or bound (every game won by one side) has no
    place on the axis: it gets an arrow at the edge, a headroom beyond the
    finite values, so the finite part of the plot keeps its scale.
    """
    values = [e.value for e in series.elo]
    bottom, top = _finite_range(values + _settled_bounds(series))
    headroom = max(100.0, 0.25 * (top - bottom))
    # Room only for an infinity that lasts: a 1-0 start's infinite Elo just marks the edge.
    if -math.inf in _settled_bounds(series, values=True):
        bottom -= headroom
    if math.inf in _settled_bounds(series, values=True):
        top += headroom
    return bottom, top


def _settled_bounds(series: EloSeries, *, values: bool = False) -> list[float]:
    """The bounds (and values) from a fifth of the way on."""
    settled = len(series.elo) // 5 if len(series.elo) > 5 else 0
    later = series.elo[settled:]
    return [
        v for e in later for v in ((e.lower, e.upper, e.value) if values else (e.lower, e.upper))
    ]


def draw_elo(series: EloSeries, sprt: SPRT | None = None) -> Figure:
    """The figure of :func:`elo_figure` (its axes read back by the tests)."""
    figure, axes = new_figure(3.3)
    values = [e.value for e in series.elo]
    lows = [e.lower for e in series.elo]
    highs = [e.upper for e in series.elo]
    bottom, top = elo_range(series)

    def clip(seq: Sequence[float], beyond: float = 0.0) -> list[float]:
        return [min(max(v, bottom - beyond), top + beyond) for v in seq]

    # An unbounded side of the band runs past the edge: an open end.
    axes.fill_between(
        series.games,
        clip(lows, 1e3),
        clip(highs, 1e3),
        color=ACCENT,
        alpha=0.18,
        linewidth=0,
        label="95% interval",
    )
    finite = [v if math.isfinite(v) else math.nan for v in values]
    axes.plot(series.games, clip(finite), color=ACCENT, linewidth=1.8, label="Elo")
    for sign, marker in ((-1, "v"), (1, "^")):
        # An infinite Elo: an arrow at the edge, pointing off the axis.
        games = [g for g, v in zip(series.games, values, strict=True) if v == sign * math.inf]
        if games:
            edge = top if sign > 0 else bottom
            axes.plot(
                games,
                [edge] * len(games),
                linestyle="none",
                marker=marker,
                markersize=6,
                color=ACCENT,
                clip_on=False,
                label=f"Elo {'+' if sign > 0 else '−'}∞ (unbounded)",
            )
    if series.elo:
        last, x = series.elo[-1], series.games[-1]
        for bound, edge in ((last.lower, bottom), (last.upper, top)):
            if math.isinf(bound):
                # The last interval's open end: an arrow from inside the axis to its edge.
                start = edge + (0.3 if edge == bottom else -0.3) * (top - bottom)
                axes.annotate(
                    "",
                    (x, edge),
                    xytext=(x, start),
                    arrowprops={"arrowstyle": "-|>", "color": ACCENT, "linewidth": 1.2},
                    annotation_clip=False,
                )
                axes.annotate(
                    f"{'lower' if edge == bottom else 'upper'} bound unbounded",
                    (x, edge),
                    xytext=(-6, 4 if edge == bottom else -4),
                    textcoords="offset points",
                    ha="right",
                    va="bottom" if edge == bottom else "top",
                    fontsize=8,
                    color=ACCENT,
                )
    axes.axhline(0.0, color="#777777", linewidth=0.9)
    if sprt is not None:
        for value, name in ((sprt.elo0, "elo0"), (sprt.elo1, "elo1")):
            axes.axhline(value, color="#b25f1f", linewidth=0.9, linestyle="--")
            axes.annotate(
                f"SPRT {name} {value:g}",
                (1.0, value),
                xycoords=("axes fraction", "data"),
                ha="right",
                va="bottom",
                fontsize=8,
                color="#b25f1f",
            )
    axes.set_ylim(bottom, top)
    axes.set_xlim(0, max(series.games[-1], 1) if series.games else 1)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("games played")
    axes.set_ylabel(f"Elo of {series.player_1}")
    axes.set_title(f"Elo: {series.player_1} against {series.player_2}")
    if series.elo:
        last = series.elo[-1]
        margin = "" if math.isinf(last.margin) else f" ± {last.margin:.0f}"
        text = f"{format_elo(last.value)}{margin} after {series.games[-1]} games"
        if math.isinf(last.value):
            text += " (every game won by one side: Elo unbounded, arrows at the edge)"
        elif math.isinf(last.margin):
            text += " (interval unbounded on one side)"
        note(axes, text)
    # Clear of the arrows and the "unbounded" label at the bottom edge, if any.
    below = -math.inf in _settled_bounds(series, values=True)
    axes.legend(loc="upper right" if below else "lower right", ncols=2)
    set_margins(figure, left=YLABEL + number_width(bottom, top) + 0.12)
    return figure


def elo_figure(series: EloSeries, prefix: str, sprt: SPRT | None = None) -> str:
    """A pairing's Elo with its interval against games played (player_1's side)."""
    return to_svg(draw_elo(series, sprt), prefix)


def colour_figure(records: Sequence[ColourRecord], prefix: str, title: str) -> str:
    """Win rate with Black and with White per player (Wilson intervals), and over all games."""
    return to_svg(draw_colours(records, title), prefix)


def draw_colours(records: Sequence[ColourRecord], title: str) -> Figure:
    """The figure of :func:`colour_figure` (its layout read back by the tests)."""
    figure, axes = new_figure(3.3)
    few = len(records) <= 8  # room to write the counts over the bars
    for offset, colour, fill in (
        (-0.2, Colour.BLACK, BLACK_STONE),
        (0.2, Colour.WHITE, WHITE_STONE),
    ):
        xs: list[float] = []
        heights: list[float] = []
        below: list[float] = []
        above: list[float] = []
        for index, record in enumerate(records):
            wins = record.black_wins if colour is Colour.BLACK else record.white_wins
            games = record.black_games if colour is Colour.BLACK else record.white_games
            if games == 0:
                if few:
                    axes.text(
                        index + offset,
                        2,
                        "no games",
                        rotation=90,
                        ha="center",
                        va="bottom",
                        fontsize=8,
                        color="#888888",
                    )
                continue
            rate = record.rate(colour)
            xs.append(index + offset)
            heights.append(100 * rate.value)
            below.append(100 * (rate.value - rate.lower))
            above.append(100 * (rate.upper - rate.value))
            if few:
                axes.text(
                    index + offset,
                    100 * rate.upper + 1.5,
                    f"{wins:g}/{games}",
                    ha="center",
                    va="bottom",
                    fontsize=8,
                    color="#444444",
                )
        # One call per colour: a bar or error bar per player would cost more than the rest.
        axes.bar(
            xs,
            heights,
            0.38,
            color=fill,
            edgecolor=BLACK_STONE,
            linewidth=0.9,
            label=colour.gtp_name.capitalize(),
        )
        axes.errorbar(
            xs,
            heights,
            yerr=[below, above],
            fmt="none",
            ecolor="#d04a2f",
            capsize=3 if few else 1.5,
            linewidth=1.1,
        )
    axes.axhline(50, color="#777777", linewidth=0.9, linestyle=":")
    axes.set_xticks(
        range(len(records)),
        [record.label for record in records],
        rotation=0 if few else 40,
        ha="center" if few else "right",
    )
    axes.set_ylim(0, 112)
    axes.set_yticks(range(0, 101, 25), [f"{v}%" for v in range(0, 101, 25)])
    axes.set_ylabel("games won")
    axes.grid(axis="x", visible=False)
    axes.set_title(title)
    note(axes, "bars: share of games won with each colour; red: 95% interval")
    # In the title's row, right of it and above the note: never over a bar or its count.
    axes.legend(
        loc="lower right",
        bbox_to_anchor=(1.0, 1.0),
        bbox_transform=axes.transAxes + ScaledTranslation(0, 15 / 72, figure.dpi_scale_trans),
        ncols=2,
        handlelength=1.0,
        borderaxespad=0.0,
    )
    labels = text_width(record.label for record in records)
    set_margins(
        figure,
        left=YLABEL + text_width(["100%"]) + 0.12,
        bottom=0.35 if few else 0.25 + 0.7 * labels,
    )
    return figure


def length_figure(lengths: Mapping[EndReason, Sequence[int]], prefix: str, title: str) -> str:
    """A histogram of game lengths in moves, stacked by how the games ended."""
    figure, axes = new_figure(3.3)
    every = [n for values in lengths.values() for n in values]
    low, high = (min(every), max(every)) if every else (0, 1)
    step = max(1, math.ceil((high - low + 1) / 30))
    edges = [low - 0.5 + step * k for k in range(math.ceil((high - low + 1) / step) + 1)]
    ends = list(lengths)
    # Filled steps: one polygon per way of ending, not one rectangle per bin.
    axes.hist(
        [list(lengths[end]) for end in ends],
        bins=edges,
        stacked=True,
        histtype="stepfilled",
        color=[END_COLOURS[end][1] for end in ends],
        label=[f"{END_COLOURS[end][0]} ({len(lengths[end])})" for end in ends],
        edgecolor="white",
        linewidth=0.6,
    )
    if every:
        middle = sorted(every)[len(every) // 2]
        axes.axvline(middle, color="#333333", linewidth=1.0, linestyle="--")
        note(axes, f"{len(every)} games; median {middle} moves")
    axes.set_xlabel("moves in the game")
    axes.set_ylabel("games")
    axes.set_title(title)
    # Above the plot, right of the title and clear of the note: never over a bar.
    columns = min(len(ends), 2)
    axes.legend(
        loc="lower right",
        bbox_to_anchor=(1.0, 1.0),
        ncols=columns,
        handlelength=1.0,
        borderaxespad=0.2,
    )
    rows = -(-len(ends) // columns) if ends else 1
    most = max(axes.get_ylim())
    set_margins(
        figure, left=YLABEL + number_width(0, most) + 0.12, top=0.62 + 0.17 * max(0, rows - 2)
    )
    return to_svg(figure, prefix)


def _seconds(value: float) -> str:
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def time_figure(records: Sequence[PlayerRecord], prefix: str) -> str:
    """Time per move per player: a box of each game's seconds per move, the mean over moves.

    Boxes from quartiles, whiskers at 5% and 95% of the games; the diamond is
    the mean over every timed move (a long game weighs more than a short one),
    written with the longest move at the right of each row.
    """
    shown = [r for r in records if r.moves]
    players = [r.label for r in shown]
    figure, axes = new_figure(1.45 + 0.55 * len(shown))
    data = [sorted(r.game_means) for r in shown]
    axes.boxplot(
        data,
        orientation="horizontal",
        whis=(5, 95),
        showfliers=False,
        widths=0.55,
        patch_artist=True,
        boxprops={"facecolor": "#dbe8f5", "edgecolor": ACCENT},
        medianprops={"color": ACCENT, "linewidth": 1.6},
        whiskerprops={"color": "#777777"},
        capprops={"color": "#777777"},
    )
    means = [r.total / r.moves for r in shown]
    axes.plot(
        means,
        range(1, len(shown) + 1),
        linestyle="none",
        marker="D",
        markersize=4.5,
        color="#d04a2f",
        zorder=4,
    )
    axes.set_yticks(range(1, len(shown) + 1), players)
    axes.invert_yaxis()
    for row, record in enumerate(shown, start=1):
        axes.text(
            1.0,
            row - 0.32,
            f"mean {_seconds(record.total / record.moves)}, longest {_seconds(record.longest)};"
            f" {record.moves} moves in {len(record.game_means)} games",
            transform=axes.get_yaxis_transform(),
            ha="right",
            va="bottom",
            fontsize=8,
            color="#444444",
        )
    high = max([values[int(0.95 * (len(values) - 1))] for values in data] + means)
    axes.set_xlim(0, high * 1.12 if high > 0 else 0.001)
    if high < 1:  # milliseconds read better than 0.0004
        axes.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{1000 * x:g}"))
        axes.set_xlabel("milliseconds per move")
    else:
        axes.set_xlabel("seconds per move")
    axes.grid(axis="y", visible=False)
    axes.set_title("Time per move")
    note(
        axes,
        "box: each game's mean, middle half; whiskers: 5% to 95%; diamond: over all moves",
    )
    set_margins(figure, left=text_width(players) + 0.25)
    return to_svg(figure, prefix)


def ratings_figure(ratings: Ratings, prefix: str) -> str:
    """Every competitor's Bradley–Terry rating with its interval, strongest at the top."""
    rated = [r for r in ratings.players if r.elo is not None]
    rated.sort(key=lambda r: r.elo.value if r.elo is not None else 0.0)
    figure, axes = new_figure(max(3.3, 1.3 + 0.34 * len(rated)))
    elos = [r.elo for r in rated if r.elo is not None]
    axes.errorbar(
        [e.value for e in elos],
        range(len(elos)),
        xerr=[[e.value - e.lower for e in elos], [e.upper - e.value for e in elos]],
        fmt="o",
        color=ACCENT,
        capsize=3,
        markersize=5,
    )
    for row, (rating, elo) in enumerate(zip(rated, elos, strict=True)):
        anchor = rating.player == ratings.anchor
        label = "0 (anchor)" if anchor else f"{format_elo(elo.value)} ± {elo.margin:.0f}"
        axes.annotate(
            label,
            (elo.upper, row),
            xytext=(5, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
            color="#444444",
        )
    axes.set_yticks(range(len(rated)), [r.player for r in rated])
    axes.axvline(0, color="#777777", linewidth=0.9)
    axes.margins(x=0.15)
    axes.set_xlabel(f"Elo relative to {ratings.anchor}")
    axes.grid(axis="y", visible=False)
    axes.set_title("Bradley–Terry ratings")
    note(axes, f"{100 * ratings.confidence:g}% intervals; a jigo is half a point")
    set_margins(figure, left=text_width(r.player for r in rated) + 0.25)
    return to_svg(figure, prefix)


def ratings_history_figure(series: RatingsSeries, prefix: str) -> str:
    """Each competitor's rating as the games came in, strongest first in the legend."""
    figure, axes = new_figure(max(3.6, 1.3 + 0.2 * len(series.players)))
    final = series.ratings[-1] if series.ratings else None
    order = list(series.players)
    if final is not None:

        def strength(player: str) -> float:
            elo = final[player].elo
            return -elo.value if elo is not None else math.inf

        order.sort(key=strength)
    colours = mpl.colormaps["tab20" if len(order) > 10 else "tab10"]
    values = [
        elo.value
        for ratings in series.ratings
        for rating in ratings.players
        if (elo := rating.elo) is not None
    ]
    # The first fits, on a handful of games, have huge intervals: scale to the curves.
    low, high = (min(values), max(values)) if values else (-100.0, 100.0)
    pad = 0.12 * (high - low) + 40.0
    bottom, top = low - pad, high + pad
    for index, player in enumerate(order):
        xs, ys, lows, highs = [], [], [], []
        for games, ratings in zip(series.games, series.ratings, strict=True):
            elo = ratings[player].elo
            if elo is None:
                continue
            xs.append(games)
            ys.append(elo.value)
            lows.append(elo.lower)
            highs.append(elo.upper)
        colour = colours(index % colours.N)
        if len(order) <= BANDS:
            axes.fill_between(
                xs,
                [max(v, bottom - 1e3) for v in lows],
                [min(v, top + 1e3) for v in highs],
                color=colour,
                alpha=0.10,
                linewidth=0,
            )
        axes.plot(xs, ys, color=colour, linewidth=1.6, label=player)
    axes.axhline(0, color="#777777", linewidth=0.9)
    axes.set_ylim(bottom, top)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("games played (all pairings)")
    axes.set_ylabel("Elo")
    anchor = final.anchor if final is not None else ""
    axes.set_title("Ratings against games played")
    note(
        axes,
        f"Bradley–Terry fit after each step; {anchor} = 0"
        + ("; bands: 95% intervals" if len(order) <= BANDS else ""),
    )
    axes.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    legend = text_width(order, 9.0) + 0.55
    set_margins(figure, left=YLABEL + number_width(bottom, top) + 0.12, right=legend + 0.1)
    return to_svg(figure, prefix)
