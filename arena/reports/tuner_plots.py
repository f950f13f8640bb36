"""The Monte Carlo tuner's plots: where in the parameter space the games went, and how they went.

Candidates sit in the tuner's optimiser space (the unit cube, one axis per
parameter; :mod:`arena.tuning.tuner_tree`), with ticks at the first
generation's centres labelled with the engine values.  With one parameter the
candidates are a row: win rate with its interval above, games below.  With
two, a map: one disc per candidate, its area the games it played, its colour
its win rate.  With more, parallel coordinates: one line per candidate across
the parameter axes.  :func:`marginal_figure` shows one parameter at a time,
games and wins summed over the others.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import matplotlib as mpl
from matplotlib.axes import Axes
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure

from arena.reports.plots import ACCENT
from arena.reports.svg import WIDTH, YLABEL, new_figure, note, set_margins, text_width, to_svg
from arena.reports.tuner_series import CandidatePoint, ParameterAxis

RATE_COLOURS: Final = "RdYlGn"
BEST: Final = "#1d2329"  # the best candidate: dark, a colour no win rate has


def _set_axis_ticks(axes: Axes, axis: ParameterAxis, which: str) -> None:
    # Too many labels would overlap: label every k-th first-generation centre.
    step = max(1, math.ceil(axis.split / 12))
    ticks = axis.ticks[::step]
    labels = axis.labels[::step]
    if which == "x":
        axes.set_xticks(ticks, labels, rotation=30 if axis.split > 6 else 0)
        axes.set_xlim(0, 1)
        axes.set_xticks([k / axis.split for k in range(axis.split + 1)], minor=True)
        axes.grid(which="minor", axis="x", color="#eeeeee")
        axes.grid(which="major", axis="x", visible=False)
        axes.set_xlabel(axis.code)
    else:
        axes.set_yticks(ticks, labels)
        axes.set_ylim(0, 1)
        axes.set_yticks([k / axis.split for k in range(axis.split + 1)], minor=True)
        axes.grid(which="minor", axis="y", color="#eeeeee")
        axes.grid(which="major", axis="y", visible=False)
        axes.set_ylabel(axis.code)


def _row(
    points: Sequence[CandidatePoint], axis: ParameterAxis, title: str, note_text: str, prefix: str
) -> str:
    """Win rate (with interval) above, games below, along one parameter."""
    figure = Figure(figsize=(WIDTH, 4.2))
    top, bottom = figure.subplots(2, 1, sharex=True, height_ratios=(3, 2))
    most = max((p.games for p in points), default=1) or 1
    for point in points:
        x = point.position[0]
        colour = BEST if point.best else ACCENT
        if point.games:
            rate = point.rate()
            top.errorbar(
                x,
                rate.value,
                yerr=[[rate.value - rate.lower], [rate.upper - rate.value]],
                fmt="o",
                color=colour,
                capsize=3,
                markersize=3 + 7 * math.sqrt(point.games / most),
            )
        width = 0.8 / axis.split**point.level
        bottom.bar(x, point.games, width, color=colour, alpha=0.85 if point.best else 0.6)
    top.axhline(0.5, color="#777777", linewidth=0.9, linestyle=":")
    top.set_ylim(-0.03, 1.08)
    top.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    top.set_ylabel("win rate")
    top.set_title(title)
    note(top, note_text)
    bottom.set_ylabel("games")
    _set_axis_ticks(bottom, axis, "x")
    top.tick_params(labelbottom=False)
    rotated = 0.5 * text_width(axis.labels) if axis.split > 6 else 0.0
    set_margins(
        figure, left=YLABEL + text_width(["0.0"]) + 0.15, bottom=0.55 + rotated, hspace=0.12
    )
    return to_svg(figure, prefix)


def _map(points: Sequence[CandidatePoint], axes_info: Sequence[ParameterAxis], prefix: str) -> str:
    figure, axes = new_figure(4.6, WIDTH)
    most = max((p.games for p in points), default=1) or 1
    norm = Normalize(0.0, 1.0)
    ordered = sorted(points, key=lambda p: -p.games)  # small discs drawn over big ones
    scatter = axes.scatter(
        [p.position[0] for p in ordered],
        [p.position[1] for p in ordered],
        s=[20 + 900 * p.games / most for p in ordered],
        c=[p.won / p.games if p.games else 0.5 for p in ordered],
        cmap=RATE_COLOURS,
        norm=norm,
        edgecolors="#555555",
        linewidths=0.6,
        zorder=3,
    )
    for point in ordered:
        if point.best:
            axes.scatter(
                [point.position[0]],
                [point.position[1]],
                s=20 + 900 * point.games / most + 250,
                facecolors="none",
                edgecolors=BEST,
                linewidths=2.0,
                zorder=4,
            )
        if point.games >= 0.15 * most:
            rate = point.won / point.games
            axes.annotate(
                str(point.games),
                (point.position[0], point.position[1]),
                ha="center",
                va="center",
                fontsize=8,
                fontweight="bold",
                color="white" if abs(rate - 0.5) > 0.3 else "#222222",  # on a dark disc
                zorder=5,
            )
    _set_axis_ticks(axes, axes_info[0], "x")
    _set_axis_ticks(axes, axes_info[1], "y")
    rotated = 0.5 * text_width(axes_info[0].labels) if axes_info[0].split > 6 else 0.0
    set_margins(
        figure,
        left=YLABEL + text_width(axes_info[1].labels) + 0.15,
        bottom=0.55 + rotated,
        right=0.1,
    )
    return _finish(
        figure,
        axes,
        scatter,
        prefix,
        "disc area: games played (number: games); colour: win rate; dark ring: best",
    )


def _finish(figure: Figure, axes: Axes, rates: ScalarMappable, prefix: str, text: str) -> str:
    """The win-rate colour bar, the title and its note, then the SVG."""
    figure.colorbar(rates, ax=axes, label="win rate", shrink=0.8)
    axes.set_title("Candidates over the parameter space")
    note(axes, text)
    return to_svg(figure, prefix)


def _parallel(
    points: Sequence[CandidatePoint], axes_info: Sequence[ParameterAxis], prefix: str
) -> str:
    figure, axes = new_figure(4.2)
    most = max((p.games for p in points), default=1) or 1
    norm = Normalize(0.0, 1.0)
    cmap = mpl.colormaps[RATE_COLOURS]
    xs = list(range(len(axes_info)))
    for point in sorted(points, key=lambda p: p.games):
        rate = point.won / point.games if point.games else 0.5
        axes.plot(
            xs,
            point.position,
            color=BEST if point.best else cmap(norm(rate)),
            linewidth=0.6 + 5 * point.games / most,
            alpha=0.9,
            zorder=4 if point.best else 3,
        )
    for x, axis in zip(xs, axes_info, strict=True):
        axes.axvline(x, color="#999999", linewidth=0.8)
        step = max(1, math.ceil(axis.split / 8))
        last = x == xs[-1]  # its labels go inside, clear of the colour bar
        for tick, label in zip(axis.ticks[::step], axis.labels[::step], strict=True):
            axes.annotate(
                label,
                (x, tick),
                xytext=(-3 if last else 3, 0),
                textcoords="offset points",
                ha="right" if last else "left",
                fontsize=7.5,
                va="center",
                color="#333333",
                zorder=6,
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.85},
            )
    axes.set_xticks(xs, [axis.code for axis in axes_info])
    axes.set_yticks([])
    axes.set_ylim(0, 1)
    axes.grid(visible=False)
    set_margins(figure, left=0.3, right=0.1)
    return _finish(
        figure,
        axes,
        ScalarMappable(norm=norm, cmap=cmap),
        prefix,
        "one line per candidate; width: games played; colour: win rate; dark: best",
    )


def candidates_figure(
    points: Sequence[CandidatePoint], axes_info: Sequence[ParameterAxis], prefix: str
) -> str:
    """Every candidate that played: its games and win rate, where it sits in the space."""
    if len(axes_info) == 1:
        return _row(
            points,
            axes_info[0],
            "Candidates over the parameter space",
            "win rate with 95% interval (marker size: games); bars: games played",
            prefix,
        )
    if len(axes_info) == 2:
        return _map(points, axes_info, prefix)
    return _parallel(points, axes_info, prefix)


def marginal_figure(points: Sequence[CandidatePoint], axis: ParameterAxis, prefix: str) -> str:
    """One parameter: games and win rate summed over the first-generation divisions."""
    return _row(
        points,
        axis,
        f"By {axis.code}",
        "summed over the other parameters; win rate with 95% interval",
        prefix,
    )
