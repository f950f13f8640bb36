"""The HTML report's pages for the cross-entropy and SPSA tuners, and the series behind them.

Competitions are built on disk through the real store (seeded results, as in
test_html_report.py), then the page is written by ``arena report --html``.
The browser test (tests/integration/test_html_report_browser.py) opens the
pages of real runs.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from arena.competitions.loader import load_control_file
from arena.competitions.tuner_snapshots import CeTunerSnapshot, SpsaTunerSnapshot
from arena.control.spsa_tuner import spsa_settings
from arena.reports import trajectory_plots
from arena.reports.history import load_history
from arena.reports.svg import style
from arena.reports.tuner_series import (
    CeBand,
    PlusShare,
    SpsaTrack,
    ce_bands,
    ce_samples,
    plus_share,
    spsa_side,
    spsa_tracks,
)
from arena.results import EndReason, GameResult
from arena.stats.elo import Interval
from arena.store.files import CompetitionFiles
from arena.store.journal import read_state
from arena.store.restore import load_competition
from arena.tuning.cem import ranking
from gtp.vertex import Colour

from .test_html_report import _figure_texts, _play, report


def ce_ctl(directory: Path, generations: int = 3) -> Path:
    path = directory / "cem.ctl"
    path.write_text(
        "competition_type = 'ce_tuner'\n"
        "def exp_10(f):\n    return 10.0 ** f\n"
        "def make_candidate(bias, c):\n    return Player(['engine', str(bias), str(c)])\n"
        "players = {'opp': Player('opp')}\n"
        "parameters = [\n"
        "    Parameter('bias', initial_mean=-2.0, initial_variance=0.5, transform=exp_10,"
        " format='bias: %.4f'),\n"
        "    Parameter('c', initial_mean=0.5, initial_variance=0.04, format='c: %.2f'),\n"
        "]\n"
        "board_size = 9\nkomi = 7.5\nopponent = 'opp'\ncandidate_colour = 'w'\n"
        f"number_of_generations = {generations}\nsamples_per_generation = 6\n"
        "batch_size = 2\nelite_proportion = 0.34\nstep_size = 0.8\n"
    )
    return path


def spsa_ctl(directory: Path, iterations: int = 40) -> Path:
    path = directory / "spsa.ctl"
    path.write_text(
        "competition_type = 'spsa_tuner'\n"
        "def make_candidate(x):\n    return Player(['engine', str(x)])\n"
        "parameters = [Parameter('x', start=1.0, min=0, max=4, c_end=0.5, r_end=0.5,"
        " format='x: %.3f')]\n"
        f"board_size = 9\nkomi = 7.5\nnumber_of_iterations = {iterations}\n"
    )
    return path


def snapshot_of(ctl: Path) -> CeTunerSnapshot | SpsaTunerSnapshot:
    config = load_control_file(ctl)
    files = CompetitionFiles.for_control_file(ctl)
    snapshot = load_competition(config, read_state(files, config.competition_type)).snapshot()
    assert isinstance(snapshot, (CeTunerSnapshot, SpsaTunerSnapshot))
    return snapshot


def figure(page: str, figure_id: str) -> str:
    text = page[page.index(f'id="{figure_id}"') :]
    return text[: text.index("</figure>")]


# ---------------------------------------------------------------------------
# Cross-entropy

ENGINE_AXIS = "#6b4f1d"  # the colour of the engine values' axis


def test_ce_page_shows_each_generations_distribution_and_the_last_samples(
    tmp_path: Path,
) -> None:
    ctl = ce_ctl(tmp_path)
    _play(ctl, 3 * 6 * 2, {"opp": -100.0})
    snapshot = snapshot_of(ctl)
    assert isinstance(snapshot, CeTunerSnapshot) and snapshot.complete
    page, found = report(ctl)
    assert found.figures == [
        "fig-distribution-bias",
        "fig-distribution-c",
        "fig-samples",
        "fig-length",
    ]
    # The distribution plots: a point per generation and the final one; the transformed
    # parameter has the engine values on its right-hand axis, the identity one none.
    bias = _figure_texts(page, "fig-distribution-bias")
    assert {"g0", "g1", "g2", "final", "Distribution of bias by generation"} <= set(bias)
    assert "0.0100" in bias  # 10 ** -2, formatted
    assert ENGINE_AXIS in figure(page, "fig-distribution-bias")
    assert ENGINE_AXIS not in figure(page, "fig-distribution-c")
    # The samples: the last generation, finished, elite marked in the table and the plot.
    last = snapshot.generations[-1]
    samples = _figure_texts(page, "fig-samples")
    assert "Samples of generation g2 by wins" in samples
    table = page[page.index("Samples of generation g2, most wins first") :]
    table = table[: table.index("</table>")]
    elite = re.findall(r'<tr class="best"><td class="name">g2#(\d+) \*</td>', table)
    assert [int(n) for n in elite] == list(last.elite) == ranking(list(last.wins))[:2]
    assert table.count("<tr") == 1 + 6
    # Each generation's row, then the final distribution.
    for generation in snapshot.generations:
        assert f'<td class="name">g{generation.number}</td>' in page
    assert f"{snapshot.distribution.description}</td>" in page


def test_ce_series_follow_the_snapshot(tmp_path: Path) -> None:
    ctl = ce_ctl(tmp_path, generations=4)
    _play(ctl, 3 * 6 * 2 + 5, {})  # three generations, and five games of the fourth
    snapshot = snapshot_of(ctl)
    assert isinstance(snapshot, CeTunerSnapshot) and not snapshot.complete
    bias, c = ce_bands(snapshot)
    assert bias.generations == (0, 1, 2, 3)
    for number, generation in enumerate(snapshot.generations):
        assert c.means[number] == generation.distribution.means[1]
        assert c.deviations[number] == pytest.approx(
            math.sqrt(generation.distribution.variances[1])
        )
    assert bias.means[-1] == snapshot.distribution.means[0]
    assert len(bias.samples) == 18 and sum(m.elite for m in bias.samples) == 3 * 2
    # The generation being played, with its wins so far and no elite yet.
    shown = ce_samples(snapshot)
    assert shown is not None and not shown.finished and shown.generation == 3
    assert sum(p.games for p in shown.points) == 5 and not any(p.elite for p in shown.points)
    page, found = report(ctl)
    assert "fig-samples" in found.figures
    assert "Samples of generation g3 by wins (being played)" in _figure_texts(page, "fig-samples")
    assert "generation g3 of 4; 41/48 games played, not finished" in page


# ---------------------------------------------------------------------------
# SPSA


def test_spsa_page_shows_each_trajectory_and_the_plus_sides_share(tmp_path: Path) -> None:
    ctl = spsa_ctl(tmp_path)
    files = _play(ctl, 80, {}, timed=True)
    snapshot = snapshot_of(ctl)
    assert isinstance(snapshot, SpsaTunerSnapshot) and snapshot.complete
    page, found = report(ctl)
    assert found.figures == ["fig-trajectory-x", "fig-plus-share", "fig-length", "fig-time"]
    share = 100 * snapshot.plus_score / snapshot.games_played
    assert f"{share:.1f}% over 80 games; dots: 5 iterations each, 95% interval" in _figure_texts(
        page, "fig-plus-share"
    )
    trajectory = _figure_texts(page, "fig-trajectory-x")
    assert {"Trajectory of x", "min 0", "max 4"} <= set(trajectory)
    assert f"{snapshot.parameters[0].formatted} after 40 of 40 iterations" in trajectory
    # The players' table and the time plot: the two sides of the perturbation.
    assert {"plus side", "minus side"} <= set(_figure_texts(page, "fig-time"))
    results = load_history(files).results
    plus = sum(
        1
        for r in results
        if r.end is EndReason.TIME and spsa_side(r.losing_player or "") == "plus side"
    )
    assert '<td class="name">plus side</td><td>80</td>' in page
    assert plus >= 1 and f"<td>{plus}</td>" in page


def test_spsa_tracks_are_theta_with_the_perturbation_within_the_bounds(tmp_path: Path) -> None:
    ctl = spsa_ctl(tmp_path)
    _play(ctl, 80, {})
    snapshot = snapshot_of(ctl)
    assert isinstance(snapshot, SpsaTunerSnapshot)
    settings = spsa_settings(load_control_file(ctl))
    (track,) = spsa_tracks(snapshot, settings)
    assert track.iterations == snapshot.trajectory_iterations
    assert track.theta == snapshot.parameters[0].trajectory
    axis, schedule = settings.parameters[0].axis, settings.schedule
    for n, theta, low, high in zip(
        track.iterations, track.theta, track.low, track.high, strict=True
    ):
        c = schedule.c(axis, min(n + 1, 40))  # the next iteration's perturbation
        assert (low, high) == (max(0.0, theta - c), min(4.0, theta + c))


def _pair(k: int, game: int, plus_wins: bool | None) -> GameResult:
    plus, minus = f"#{k}+", f"#{k}-"
    black, white = (plus, minus) if game == 0 else (minus, plus)
    if plus_wins is None:
        winner = None
    else:
        winner = Colour.BLACK if (black == plus) == plus_wins else Colour.WHITE
    end = EndReason.SCORE if winner is None else EndReason.RESIGN
    return GameResult(f"{k:02d}_{game}", black, white, winner, end)


def test_plus_share_counts_points_by_runs_of_iterations() -> None:
    # Iterations 1-10: the plus side wins both games of 1-5; 6-10 one each; 11 a jigo and a win.
    results = [_pair(k, g, True) for k in range(1, 6) for g in (0, 1)]
    results += [_pair(k, g, g == 0) for k in range(6, 11) for g in (0, 1)]
    results += [_pair(11, 0, None), _pair(11, 1, True)]
    share = plus_share(results, 12)  # runs of at least 5 iterations: 3 runs of 4
    assert (share.first, share.last, share.games) == ((1, 5, 9), (4, 8, 12), (8, 8, 6))
    assert [s.value for s in share.share] == [1.0, 5 / 8, pytest.approx(3.5 / 6)]  # 2+1+1+1
    assert (share.points, share.total) == (10 + 5 + 1.5, 22)
    assert share.since_start[-1] == (11, pytest.approx(16.5 / 22))
    assert [k for k, _ in share.since_start] == list(range(1, 12))
    long_run = plus_share(results, 1000)  # at most 30 runs
    assert long_run.first == (1,) and long_run.last == (34,)


def test_before_the_first_game_the_tuner_pages_say_so(tmp_path: Path) -> None:
    for ctl in (ce_ctl(tmp_path), spsa_ctl(tmp_path)):
        page, found = report(ctl)
        assert found.figures == []
        assert "No games played yet." in page


# ---------------------------------------------------------------------------
# The plots' axes, read back from the figures


def test_one_generation_shows_the_initial_distributions_band() -> None:
    band = CeBand("bias", (0,), (-2.0,), (0.7,), ())
    with style():
        figure = trajectory_plots.draw_ce_distribution(band, None, complete=False)
        svg = trajectory_plots.ce_distribution_figure(band, None, False, "distribution")
    (axes,) = figure.axes
    # A band as wide as a generation's slot, from mean - sd to mean + sd, inside the axes.
    (shaded,) = axes.collections[:1]
    box = shaded.get_paths()[0].get_extents()
    assert (box.y0, box.y1) == pytest.approx((-2.7, -1.3))
    assert box.x1 - box.x0 == pytest.approx(0.6)
    low, high = axes.get_ylim()
    assert low < -2.7 and high > -1.3
    assert axes.get_xlim() == (-0.5, 0.5)
    assert "g0 now" in svg


def _track(played: int) -> SpsaTrack:
    iterations = tuple(range(played + 1))
    theta = tuple(1.0 + 0.1 * k for k in iterations)
    return SpsaTrack(
        "x",
        iterations,
        theta,
        tuple(t - 0.5 for t in theta),
        tuple(t + 0.5 for t in theta),
        1.0,
        0.0,
        4.0,
        "x: 1.400",
    )


def test_an_spsa_run_just_begun_fills_the_plots_with_the_iterations_played() -> None:
    share = PlusShare((1, 3), (2, 4), (4, 4), (Interval(0.5, 0.2, 0.8),) * 2, ((4, 0.5),), 4, 8)
    with style():
        trajectory = trajectory_plots.draw_spsa_trajectory(_track(4), 200)
        plus = trajectory_plots.draw_plus_share(share, 200)
        svg = trajectory_plots.spsa_trajectory_figure(_track(4), 200, "trajectory")
    assert trajectory.axes[0].get_xlim() == (0, 4)
    assert plus.axes[0].get_xlim() == (0, 4.5)  # the last run's bar reaches 4.5
    for figure in (trajectory, plus):
        assert figure.axes[0].get_xlabel() == "iterations (4 of 200 planned)"
    assert "x: 1.400 after 4 of 200 iterations" in svg
    # A finished run: the whole run, as planned.
    with style():
        done = trajectory_plots.draw_spsa_trajectory(_track(200), 200)
    assert done.axes[0].get_xlim() == (0, 200)
    assert done.axes[0].get_xlabel() == "iterations"
