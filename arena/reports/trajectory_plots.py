"""The cross-entropy and SPSA tuners' plots: how the distribution, or theta, moved (matplotlib).

Cross-entropy: each parameter's Gaussian generation by generation (mean with
a band of one standard deviation, in optimiser terms, engine values on the
right-hand axis) with the samples each generation drew, the elite dark; and
the samples of one generation against their wins.  SPSA: each parameter's
theta against iterations within its bounds, with the band its candidates
played (theta ± c); and the plus side's share of the points along the run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from arena.reports.plots import ACCENT
from arena.reports.svg import WIDTH, YLABEL, new_figure, note, set_margins, text_width, to_svg
from arena.reports.tuner_series import CeBand, CeSamples, PlusShare, SpsaTrack

ELITE: Final = "#1d2329"  # elite samples: dark, as the Monte Carlo tuner's best candidate
SAMPLE: Final = "#8fb3d6"
BOUND: Final = "#b25f1f"
# Labels a tick position with the engine value there (None: the optimiser value is the engine's).
EngineLabels = Callable[[Sequence[float]], list[str]] | None


def _same_values(ticks: Sequence[float], names: Sequence[str]) -> bool:
    """Whether each engine value is its optimiser value (``abs`` over positive values)."""
    for tick, name in zip(ticks, names, strict=True):
        try:
            value = float(name)
        except ValueError:
            return False
        decimals = len(name.partition(".")[2])
        if abs(value - tick) > 0.51 * 10.0**-decimals + 1e-12:
            return False
    return True


def _engine_axis(axes: Axes, labels: EngineLabels) -> float:
    """Engine values on a right-hand axis at the optimiser ticks; returns the inches it needs."""
    if labels is None:
        return 0.25
    ticks = [t for t in axes.get_yticks() if axes.get_ylim()[0] <= t <= axes.get_ylim()[1]]
    names = labels(ticks)
    if _same_values(ticks, names):
        return 0.25
    right = axes.twinx()
    right.set_ylim(axes.get_ylim())
    right.set_yticks(ticks, names)
    right.grid(visible=False)
    right.spines["right"].set_visible(True)
    right.tick_params(axis="y", labelsize=8.5, colors="#6b4f1d")
    return text_width(names, 8.5) + 0.25


def ce_distribution_figure(band: CeBand, labels: EngineLabels, complete: bool, prefix: str) -> str:
    """One parameter's mean ± sd per generation, and the samples each finished one drew."""
    return to_svg(draw_ce_distribution(band, labels, complete), prefix)


def draw_ce_distribution(band: CeBand, labels: EngineLabels, complete: bool) -> Figure:
    """The figure of :func:`ce_distribution_figure` (its axes read back by the tests)."""
    figure, axes = new_figure(3.4)
    xs = list(band.generations)
    lows = [m - d for m, d in zip(band.means, band.deviations, strict=True)]
    highs = [m + d for m, d in zip(band.means, band.deviations, strict=True)]
    if len(xs) == 1:
        # One generation (the initial distribution): a band over a line has no width, so
        # the band is a bar around the generation with the sd's bounds as caps.
        axes.fill_between(
            [xs[0] - 0.3, xs[0] + 0.3], lows * 2, highs * 2, color=ACCENT, alpha=0.16, linewidth=0
        )
        axes.errorbar(xs, band.means, yerr=[band.deviations], fmt="none", ecolor=ACCENT, capsize=8)
    else:
        axes.fill_between(xs, lows, highs, color=ACCENT, alpha=0.16, linewidth=0)
    axes.plot(xs, band.means, color=ACCENT, linewidth=1.8, marker="o", markersize=4)
    # Each generation's samples side by side around its x, so equal values do not hide.
    per_generation: dict[int, int] = {}
    for mark in band.samples:
        per_generation[mark.generation] = per_generation.get(mark.generation, 0) + 1
    seen: dict[int, int] = {}
    plain: tuple[list[float], list[float]] = ([], [])
    elite: tuple[list[float], list[float]] = ([], [])
    for mark in band.samples:
        index = seen.get(mark.generation, 0)
        seen[mark.generation] = index + 1
        count = per_generation[mark.generation]
        offset = 0.0 if count == 1 else -0.22 + 0.44 * index / (count - 1)
        target = elite if mark.elite else plain
        target[0].append(mark.generation + offset)
        target[1].append(mark.value)
    if plain[0]:
        axes.scatter(*plain, s=12, color=SAMPLE, edgecolors="none", zorder=3)
    if elite[0]:
        axes.scatter(*elite, s=16, color=ELITE, edgecolors="none", zorder=4)
    names = [f"g{x}" for x in xs]
    names[-1] = "final" if complete else f"g{xs[-1]} now"
    axes.set_xticks(xs, names, rotation=30 if len(xs) > 12 else 0)
    if len(xs) > 16:  # label every k-th generation
        step = -(-len(xs) // 16)
        for index, label in enumerate(axes.get_xticklabels()):
            label.set_visible(index % step == 0 or index == len(xs) - 1)
    axes.set_xlim(xs[0] - 0.5, xs[-1] + 0.5)
    axes.set_xlabel("generation")
    axes.set_ylabel(f"{band.code} (optimiser)")
    axes.set_title(f"Distribution of {band.code} by generation")
    note(axes, "line and band: mean ± one standard deviation; dots: the samples, dark: elite")
    right = _engine_axis(axes, labels)
    left = YLABEL + text_width([f"{t:.2f}" for t in axes.get_yticks()]) + 0.15
    set_margins(figure, left=left, right=right, bottom=0.55 + (0.2 if len(xs) > 12 else 0.0))
    return figure


def ce_samples_figure(
    samples: CeSamples, codes: Sequence[str], labels: Sequence[EngineLabels], prefix: str
) -> str:
    """One row per parameter: each sample's value against its wins, the elite dark."""
    rows = len(codes)
    figure = Figure(figsize=(WIDTH, 1.2 + 1.9 * rows))
    panels = figure.subplots(rows, 1, sharey=True, squeeze=False)[:, 0]
    top = max(samples.games_each, max((p.wins for p in samples.points), default=0.0), 1.0)
    extra = 0.0  # inches for a second line of tick labels
    for axis, (axes, code) in enumerate(zip(panels, codes, strict=True)):
        mean, deviation = samples.means[axis], samples.deviations[axis]
        axes.axvspan(mean - deviation, mean + deviation, color=ACCENT, alpha=0.12, linewidth=0)
        axes.axvline(mean, color=ACCENT, linewidth=1.2, linestyle="--")
        for elite in (False, True):
            shown = [p for p in samples.points if p.elite == elite]
            if not shown:
                continue
            axes.scatter(
                [p.values[axis] for p in shown],
                [p.wins for p in shown],
                s=34 if elite else 24,
                color=ELITE if elite else SAMPLE,
                edgecolors="#555555" if not elite else "none",
                linewidths=0.5,
                zorder=4 if elite else 3,
            )
        axes.set_ylim(-0.06 * top, top * 1.08)
        axes.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=5))
        axes.set_ylabel("wins")
        two_lines = _engine_x_ticks(axes, labels[axis])
        axes.set_xlabel(f"{code} (optimiser{', engine value under it' if two_lines else ''})")
        extra = max(extra, 0.17 if two_lines else 0.0)
    first = panels[0]
    state = "" if samples.finished else " (being played)"
    first.set_title(f"Samples of generation g{samples.generation} by wins{state}")
    if samples.finished:
        each = "1 game" if samples.games_each == 1 else f"{samples.games_each} games"
        text = f"{each} each; dark: the elite, which made the next distribution"
    else:
        played = sum(p.games for p in samples.points)
        text = f"wins so far ({played} of {samples.games_each * len(samples.points)} games)"
    note(first, text + "; band: mean ± sd")
    set_margins(
        figure,
        left=YLABEL + text_width([str(int(top))]) + 0.2,
        bottom=0.55 + extra,
        hspace=(0.75 + extra) / 1.9,
    )
    return to_svg(figure, prefix)


def _engine_x_ticks(axes: Axes, labels: EngineLabels) -> bool:
    """Each optimiser tick with the engine value under it; whether there are two lines."""
    if labels is None:
        return False
    low, high = axes.get_xlim()
    ticks = [t for t in axes.get_xticks() if low <= t <= high]
    names = labels(ticks)
    if _same_values(ticks, names):
        return False
    axes.set_xticks(ticks, [f"{t:g}\n{name}" for t, name in zip(ticks, names, strict=True)])
    return True


def played_range(played: int, iterations: int) -> tuple[float, float]:
    """The iterations axis: those played (a run of 4 of 200 fills the plot), at least one."""
    return 0.0, float(max(played, 1))


def _iterations_label(played: int, iterations: int) -> str:
    if played >= iterations:
        return "iterations"
    return f"iterations ({played} of {iterations} planned)"


def spsa_trajectory_figure(track: SpsaTrack, iterations: int, prefix: str) -> str:
    """Theta against iterations within its bounds, with the band its candidates played."""
    return to_svg(draw_spsa_trajectory(track, iterations), prefix)


def draw_spsa_trajectory(track: SpsaTrack, iterations: int) -> Figure:
    """The figure of :func:`spsa_trajectory_figure` (its axes read back by the tests)."""
    figure, axes = new_figure(3.1)
    xs = list(track.iterations)
    axes.fill_between(
        xs, track.low, track.high, color=ACCENT, alpha=0.15, linewidth=0, label="theta ± c"
    )
    axes.plot(xs, track.theta, color=ACCENT, linewidth=1.8, label="theta")
    for value, name in ((track.minimum, "min"), (track.maximum, "max")):
        axes.axhline(value, color=BOUND, linewidth=0.9, linestyle="--")
        axes.annotate(
            f"{name} {value:g}",
            (0.0, value),
            xycoords=("axes fraction", "data"),
            xytext=(3, 2 if name == "min" else -2),
            textcoords="offset points",
            ha="left",
            va="bottom" if name == "min" else "top",
            fontsize=8,
            color=BOUND,
        )
    axes.axhline(track.start, color="#777777", linewidth=0.8, linestyle=":", label="start")
    span = track.maximum - track.minimum
    axes.set_ylim(track.minimum - 0.05 * span, track.maximum + 0.05 * span)
    axes.set_xlim(*played_range(xs[-1], iterations))
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel(_iterations_label(xs[-1], iterations))
    axes.set_ylabel(track.code)
    axes.set_title(f"Trajectory of {track.code}")
    note(axes, f"{track.formatted} after {xs[-1]} of {iterations} iterations")
    axes.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncols=3, borderaxespad=0.2)
    labels = [f"{t:g}" for t in axes.get_yticks()]
    set_margins(figure, left=YLABEL + text_width(labels) + 0.15)
    return figure


def plus_share_figure(share: PlusShare, iterations: int, prefix: str) -> str:
    """The plus side's share of the points, a run of iterations at a time, with intervals."""
    return to_svg(draw_plus_share(share, iterations), prefix)


def draw_plus_share(share: PlusShare, iterations: int) -> Figure:
    """The figure of :func:`plus_share_figure` (its axes read back by the tests)."""
    figure, axes = new_figure(3.1)
    middles = [(a + b) / 2 for a, b in zip(share.first, share.last, strict=True)]
    values = [s.value for s in share.share]
    axes.errorbar(
        middles,
        values,
        yerr=[
            [s.value - s.lower for s in share.share],
            [s.upper - s.value for s in share.share],
        ],
        xerr=[
            [m - a + 0.5 for m, a in zip(middles, share.first, strict=True)],
            [b + 0.5 - m for m, b in zip(middles, share.last, strict=True)],
        ],
        fmt="o",
        color=ACCENT,
        ecolor="#9bb8d6",
        capsize=0,
        markersize=4,
    )
    axes.plot(
        [k for k, _ in share.since_start],
        [v for _, v in share.since_start],
        color="#d04a2f",
        linewidth=1.4,
        label="since the start",
    )
    axes.axhline(0.5, color="#777777", linewidth=0.9, linestyle=":")
    axes.set_ylim(-0.03, 1.03)
    axes.set_yticks([0, 0.25, 0.5, 0.75, 1.0], ["0%", "25%", "50%", "75%", "100%"])
    played = share.last[-1] if share.last else 0
    low, high = played_range(played, iterations)
    axes.set_xlim(low, high + 0.5 if played < iterations else high)  # the last run's bar whole
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel(_iterations_label(played, iterations))
    axes.set_ylabel("plus side's points")
    axes.set_title("Plus side's share of the points")
    overall = 100 * share.points / share.total if share.total else 0.0
    width = share.last[0] - share.first[0] + 1 if share.first else 1
    runs = f"{width} iterations" if width > 1 else "one iteration"
    note(axes, f"{overall:.1f}% over {share.total} games; dots: {runs} each, 95% interval")
    axes.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), borderaxespad=0.2)
    set_margins(figure, left=YLABEL + text_width(["100%"]) + 0.15)
    return figure
