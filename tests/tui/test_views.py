"""Views of each competition type's snapshot: what the dashboard is given to draw."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.competitions.base import Competition
from arena.competitions.loader import load_control_file
from arena.competitions.registry import make_competition
from arena.results import EndReason, GameResult
from gtp.vertex import Colour
from tui.tracker import RunTracker
from tui.views import (
    SPARKS,
    AllPlayAllView,
    CeTunerView,
    PlayoffView,
    SpsaTunerView,
    TunerView,
    competition_view,
    sparkline,
)

from .builders import allplayall, ce_tuner, play, playoff, screen, spsa_tuner, tuner


def test_playoff_view(tmp_path: Path) -> None:
    competition = playoff(tmp_path, players=4)
    results = play(competition, 40)
    view = competition_view(competition.snapshot())
    assert view is not None and isinstance(view.detail, PlayoffView)
    assert (view.kind, view.code, view.board) == ("playoff", "league", "9x9 komi 7.5")
    assert (view.games_done, view.games_total) == (40, 40)
    first = view.detail.matchups[0]
    assert first.name == "player00 v player01"
    assert (first.games, first.total) == (20, 20)
    wins = {line.player: line.wins for line in first.lines}
    counted = [r.winning_player for r in results if r.game_id.startswith("0_")]
    assert wins == {code: counted.count(code) for code in ("player00", "player01")}
    assert first.elo is not None and "±" in first.elo
    assert first.los is not None and first.los.endswith("%")
    assert first.sprt is None


def _load(path: Path, text: str) -> Competition:
    path.write_text(
        "competition_type = 'playoff'\n"
        "players = {'a': Player('x'), 'b': Player('y')}\n"
        "board_size = 9\nkomi = 7.5\n" + text
    )
    return make_competition(load_control_file(path))


def test_unlimited_or_mixed_playoffs(tmp_path: Path) -> None:
    view = competition_view(playoff(tmp_path, games=None).snapshot())
    assert view is not None and view.games_total is None
    mixed = _load(
        tmp_path / "mixed.ctl",
        "matchups = [Matchup('a', 'b', number_of_games=2),"
        " Matchup('a', 'b', board_size=13, number_of_games=2)]\n",
    )
    view = competition_view(mixed.snapshot())
    assert view is not None and view.board == "mixed settings"


def test_a_decided_sprt_ends_its_matchup_early(tmp_path: Path) -> None:
    competition = _load(
        tmp_path / "sprt.ctl",
        "matchups = [Matchup('a', 'b', alternating=True, number_of_games=1000,"
        " sprt=SPRT(0, 200, 0.1, 0.1))]\n",
    )
    played = 0
    while (job := competition.next_job()) is not None:
        winner = Colour.BLACK if job.black.code == "a" else Colour.WHITE
        result = GameResult(job.game_id, job.black.code, job.white.code, winner, EndReason.RESIGN)
        competition.record_result(result, {})
        played += 1
    assert played < 100
    competition_before = _load(
        tmp_path / "sprt2.ctl",
        "matchups = [Matchup('a', 'b', alternating=True, number_of_games=1000,"
        " sprt=SPRT(0, 200, 0.1, 0.1))]\n",
    )
    undecided = competition_view(competition_before.snapshot())
    assert undecided is not None and isinstance(undecided.detail, PlayoffView)
    assert undecided.detail.matchups[0].sprt == "LLR 0.00 (-2.20..2.20) penta"
    view = competition_view(competition.snapshot())
    assert view is not None and isinstance(view.detail, PlayoffView)
    (matchup,) = view.detail.matchups
    assert matchup.decided and matchup.sprt == "H1 accepted"
    assert (view.games_done, view.games_total) == (played, played)


def test_allplayall_view(tmp_path: Path) -> None:
    competition = allplayall(tmp_path, 3)
    play(competition, 6)
    view = competition_view(competition.snapshot())
    assert view is not None and isinstance(view.detail, AllPlayAllView)
    assert (view.kind, view.board, view.games_total) == ("allplayall", "13x13 komi 6.5", 12)
    detail = view.detail
    assert detail.letters == ("A", "B", "C")
    assert detail.grid[0][0] is None
    for i in range(3):
        for j in range(3):
            cell, mirror = detail.grid[i][j], detail.grid[j][i]
            if cell is not None and mirror is not None:
                assert cell == (mirror[1], mirror[0])
    anchor = [row for row in detail.ratings if row.player == "player00"]
    assert anchor[0].elo == "0" and detail.anchor == "player00"


def test_tuner_view(tmp_path: Path) -> None:
    competition = tuner(tmp_path)
    play(competition, 30)
    snapshot = competition.snapshot()
    view = competition_view(snapshot)
    assert view is not None and isinstance(view.detail, TunerView)
    assert (view.kind, view.games_done, view.games_total) == ("mc_tuner", 30, 60)
    detail = view.detail
    assert detail.opponent == "opp"
    best = [c for c in detail.candidates if c.best]
    assert len(best) == 1 and detail.best == best[0]
    assert best[0].label == snapshot.best.label
    assert best[0].parameters.startswith("playouts: ")
    assert sum(c.games for c in detail.candidates) == 30


def test_ce_tuner_view_orders_samples_by_wins(tmp_path: Path) -> None:
    competition = ce_tuner(tmp_path)
    play(competition, 15)  # generation 0 (12 games) and 3 of generation 1
    view = competition_view(competition.snapshot())
    assert view is not None and isinstance(view.detail, CeTunerView)
    assert (view.kind, view.games_done, view.games_total) == ("ce_tuner", 15, 36)
    detail = view.detail
    assert (detail.generation, detail.generations, detail.elite_count) == (1, 3, 2)
    wins = [s.wins for s in detail.samples]
    assert wins == sorted(wins, reverse=True)
    assert all(s.code.startswith("g1#") for s in detail.samples)
    assert detail.history == ("g0 playouts: 316; c: 0.50",)
    assert "~" in detail.optimiser and detail.distribution.startswith("playouts: ")


def test_spsa_tuner_view_shows_theta_and_its_trend(tmp_path: Path) -> None:
    competition = spsa_tuner(tmp_path)
    play(competition, 20)
    view = competition_view(competition.snapshot())
    assert view is not None and isinstance(view.detail, SpsaTunerView)
    assert (view.kind, view.games_done, view.games_total) == ("spsa_tuner", 20, 80)
    detail = view.detail
    assert (detail.iterations_done, detail.iterations) == (10, 40)
    playouts, c = detail.parameters
    assert playouts.value.startswith("playouts: ") and playouts.bounds == "100..5000"
    assert len(c.trend) == 11 and set(c.trend) <= set(SPARKS)
    assert detail.plus_share is not None and 0 <= detail.plus_share <= 1


@pytest.mark.parametrize(
    ("values", "expected"),
    [([0, 1, 2, 3, 4, 5, 6, 7], "▁▂▃▄▅▆▇█"), ([2, 2, 2], "▅▅▅"), ([], ""), ([5, 1], "█▁")],
)
def test_sparkline_spans_the_values_own_range(values: list[float], expected: str) -> None:
    assert sparkline(values) == expected


def test_no_snapshot_no_view() -> None:
    assert competition_view(None) is None


def test_two_wins_of_two_do_not_read_as_a_negative_elo(tmp_path: Path) -> None:
    competition = playoff(tmp_path)
    for _ in range(2):
        job = competition.next_job()
        assert job is not None
        winner = Colour.BLACK if job.black.code == "player00" else Colour.WHITE
        competition.record_result(
            GameResult(job.game_id, job.black.code, job.white.code, winner, EndReason.RESIGN),
            {},
        )
    tracker = RunTracker("league")
    tracker.set_snapshot(competition.snapshot())
    shown = "\n".join(screen(tracker.view(), 100, 30))
    assert "Elo -113 to +inf" in shown
    assert "≥ -" not in shown
