"""The dashboard as a user sees it, on recording consoles of fixed sizes.

Each case builds a competition's snapshot and a run's events, renders one
frame at a given terminal size and checks what is on screen; every frame must
fit its screen (the layout degrades, nothing overflows or crashes).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest
from rich.cells import cell_len

from arena.events import EngineStderr, RunState, RunStateChanged
from arena.results import EndReason, GameResult, MoveTimes
from gtp.vertex import Colour
from tui.competition_tables import grid_lines, matchup_table
from tui.dashboard import dashboard_lines, final_lines
from tui.tables import Column, table_lines
from tui.tracker import DashboardView, RunTracker
from tui.views import AllPlayAllView, PlayoffView, competition_view

from .builders import (
    FakeClock,
    allplayall,
    ce_tuner,
    play,
    playoff,
    screen,
    spsa_tuner,
    tracker_for,
    tuner,
)


def _stopping(tracker: RunTracker, why: str = "stop requested (Ctrl-X)") -> RunTracker:
    tracker.handle(RunStateChanged(RunState.STOPPING, why))
    return tracker


def small_playoff(directory: Path) -> DashboardView:
    return tracker_for(playoff(directory), finished=6, in_progress=2).view()


def playoff_64_running(directory: Path) -> DashboardView:
    return tracker_for(playoff(directory, games=None), finished=10, in_progress=64).view()


def playoff_100_players(directory: Path) -> DashboardView:
    return tracker_for(playoff(directory, players=100), finished=120, in_progress=8).view()


def allplayall_4(directory: Path) -> DashboardView:
    return tracker_for(allplayall(directory, 4), finished=10, in_progress=2).view()


def ce_tuner_mid_generation(directory: Path) -> DashboardView:
    return tracker_for(ce_tuner(directory), finished=16, in_progress=2).view()


def ce_tuner_many_samples(directory: Path) -> DashboardView:
    return tracker_for(ce_tuner(directory, samples=30), finished=20, in_progress=1).view()


def spsa_tuner_running(directory: Path) -> DashboardView:
    return tracker_for(spsa_tuner(directory), finished=24, in_progress=2).view()


def allplayall_100(directory: Path) -> DashboardView:
    competition = allplayall(directory, 100, rounds=2)
    return tracker_for(competition, finished=300, in_progress=64).view()


def tuner_9(directory: Path) -> DashboardView:
    return tracker_for(tuner(directory, split=3), finished=40, in_progress=2).view()


def tuner_64(directory: Path) -> DashboardView:
    return tracker_for(tuner(directory, split=8, games=500), finished=100, in_progress=8).view()


def stopping(directory: Path) -> DashboardView:
    tracker = tracker_for(playoff(directory), finished=3, in_progress=3)
    return _stopping(tracker).view()


def halted(directory: Path) -> DashboardView:
    tracker = tracker_for(playoff(directory), finished=3)
    why = "halting competition: too many void games in matchup 0 (last: engine died)"
    tracker.handle(RunStateChanged(RunState.STOPPING, why))
    tracker.handle(RunStateChanged(RunState.HALTED, why))
    return tracker.view()


def with_warnings(directory: Path) -> DashboardView:
    tracker = tracker_for(playoff(directory), finished=2, in_progress=1)
    for n in range(3):
        tracker.handle(EngineStderr("0_02", "player01", f"warning: low memory ({n})", warning=True))
    return tracker.view()


@attrs.frozen
class Case:
    build: Callable[[Path], DashboardView]
    width: int
    height: int
    shown: tuple[str, ...]
    hidden: tuple[str, ...] = ()
    pattern: str | None = None  # a regular expression the screen must match


CASES = {
    "playoff 120x40": Case(
        small_playoff,
        120,
        40,
        (
            "playoff league · 9x9 komi 7.5 · running",
            "6/20 games · 2 running · 0.46 games/s · ETA 0:30",
            "player00 v player01: 6/20 games",
            "Elo ",
            "LOS ",
            "wins",
            "black",
            "white",
            "avg cpu",
            "In progress: 2 game(s)",
            "Recent results",
            "Ctrl-X stop after the games in progress · Ctrl-C stop now",
        ),
        ("STOPPING",),
    ),
    "playoff 80x24": Case(
        small_playoff, 80, 24, ("6/20 games", "player00", "player01", "ETA 0:30", "Ctrl-X")
    ),
    "64 games in progress 80x24": Case(
        playoff_64_running,
        80,
        24,
        ("10 games · 64 running", "In progress: 64 game(s)", "player00 v player01"),
        ("ETA 0",),
        r"… and \d+ more games in progress",
    ),
    "64 games in progress 120x40": Case(
        playoff_64_running, 120, 40, ("In progress: 64 game(s)", "slot"), (), r"and \d+ more games"
    ),
    "100 players playoff 80x24": Case(
        playoff_100_players,
        80,
        24,
        ("120/1000 games", "matchup", "score", "player00 v player01"),
        (),
        r"… and \d+ more matchups",
    ),
    "100 players playoff 200x60": Case(
        playoff_100_players, 200, 60, ("Elo", "LOS"), (), r"and \d+ more"
    ),
    "all-play-all grid 100x40": Case(
        allplayall_4,
        100,
        40,
        (
            "allplayall tourney · 13x13 komi 6.5",
            "10/24 games",
            "A player00",
            "D player03",
            "Elo (player00 = 0)",
            "points",
        ),
    ),
    "all-play-all 100 players 80x24": Case(
        allplayall_100,
        80,
        24,
        ("300/9900 games", "64 running", "Elo (player00 = 0)"),
        ("CV player99  ",),
        r"… and \d+ more players",
    ),
    "all-play-all 100 players 200x60": Case(
        allplayall_100, 200, 60, ("Elo (player00 = 0)",), (), r"… and \d+ more players"
    ),
    "tuner 100x30": Case(
        tuner_9,
        100,
        30,
        (
            "mc_tuner tune · 9x9 komi 7.5",
            "40/60 games · 2 running",
            "best: (",
            "opponent opp",
            "candidate",
            "win rate",
            "UCB",
            "★",
            "(2,2)      playouts: 3162; c: 0.83",
        ),
    ),
    "tuner 64 candidates 80x24": Case(
        tuner_64, 80, 24, ("100/500 games", "★", "candidate"), (), r"… and \d+ more candidates"
    ),
    "ce_tuner 100x30": Case(
        ce_tuner_mid_generation,
        100,
        30,
        (
            "ce_tuner cem · 9x9 komi 7.5",
            "16/36 games · 2 running",
            "generation g1 of 3: playouts: ",
            "~",
            "sample",
            "wins/2",
            "g1#",
            "g0 playouts: 316; c: 0.50",
        ),
    ),
    "ce_tuner 30 samples 80x16": Case(
        ce_tuner_many_samples,
        80,
        16,
        ("generation g0 of 3", "sample"),
        (),
        r"… and \d+ more samples",
    ),
    "spsa_tuner 100x30": Case(
        spsa_tuner_running,
        100,
        30,
        (
            "spsa_tuner spsa · 9x9 komi 7.5",
            "24/80 games · 2 running",
            "iteration 12/40 · plus side",
            "parameter",
            "playouts: ",
            "c: 0.",
            "100..5000",
            "█",
        ),
    ),
    "stop acknowledged 80x24": Case(
        stopping,
        80,
        24,
        (
            "· stopping",
            "■ STOPPING — stop requested (Ctrl-X): finishing 3 game(s), no new games",
            "In progress: 3 game(s)",
        ),
    ),
    "stop acknowledged 40x4": Case(stopping, 40, 4, ("STOPPING", "Ctrl-X")),
    "halted 100x30": Case(
        halted, 100, 30, ("· halted", "halted: halting competition: too many void games")
    ),
    "engine warnings 100x40": Case(
        with_warnings,
        100,
        40,
        (
            "engine errors 3",
            "! player01 (0_02): warning: low memory (2)",
            "! player01 (0_02): warning: low memory (0)",
        ),
    ),
}


Builder = Callable[[Path], DashboardView]


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Builder], DashboardView]:
    """Each builder's view, built once per module (100 players take a while)."""
    views: dict[Builder, DashboardView] = {}

    def view(builder: Builder) -> DashboardView:
        if builder not in views:
            views[builder] = builder(tmp_path_factory.mktemp(builder.__name__))
        return views[builder]

    return view


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_dashboard_fits_and_shows(case: Case, build: Callable[[Builder], DashboardView]) -> None:
    lines = screen(build(case.build), case.width, case.height)
    assert len(lines) <= case.height
    assert max(cell_len(text) for text in lines) <= case.width
    shown = "\n".join(lines)
    for text in case.shown:
        assert text in shown
    for text in case.hidden:
        assert text not in shown
    if case.pattern is not None:
        assert re.search(case.pattern, shown)


@pytest.mark.parametrize("width", [1, 20, 40, 80, 120, 250])
@pytest.mark.parametrize("height", [1, 2, 5, 10, 24, 60])
def test_every_size_fits(
    width: int, height: int, build: Callable[[Builder], DashboardView]
) -> None:
    view = build(allplayall_100)
    lines = dashboard_lines(view, width, height)
    assert 0 < len(lines) <= height
    assert all(cell_len(text.plain) <= width for text in lines)


def test_counters_come_from_the_competition(tmp_path: Path) -> None:
    competition = playoff(tmp_path)
    results = play(competition, 30)
    forfeits = sum(r.end.value == "forfeit" for r in results)
    timeouts = sum(r.end.value == "time" for r in results)
    assert forfeits and timeouts
    tracker = RunTracker("league", clock=FakeClock())
    tracker.set_snapshot(competition.snapshot())
    shown = "\n".join(screen(tracker.view(), 100, 30))
    assert f"forfeits {forfeits} · timeouts {timeouts} · void 0 · engine errors 0" in shown


def test_final_frame_drops_the_games_and_the_keys(tmp_path: Path) -> None:
    tracker = tracker_for(playoff(tmp_path), finished=4, in_progress=2)
    tracker.handle(RunStateChanged(RunState.STOPPED, "stop requested (Ctrl-X)"))
    text = "\n".join(t.plain for t in final_lines(tracker.view(), 100, 40))
    assert "stopped: stop requested (Ctrl-X)" in text
    assert "4/20 games" in text
    assert "In progress" not in text and "Ctrl-C" not in text and "ETA" not in text


@pytest.mark.parametrize(
    ("games", "style"),
    [((3, 1), "green"), ((1, 3), "red"), ((2, 2), "yellow")],
)
def test_grid_is_colour_coded(games: tuple[int, int], style: str) -> None:
    wins, losses = games
    detail = AllPlayAllView(
        letters=("A", "B"),
        competitors=("alpha", "beta"),
        grid=((None, (wins, losses)), ((losses, wins), None)),
        ratings=(),
        anchor="alpha",
        matchups=(),
    )
    lines = grid_lines(detail, 60)
    assert lines is not None
    row = lines[1]
    assert row.plain.split() == ["A", "alpha", "·", f"{wins}-{losses}"]
    cell_start = row.plain.index(f"{wins}-{losses}")
    styles = [str(span.style) for span in row.spans if span.start == cell_start]
    assert styles == [style]


def test_grid_gives_way_when_too_wide(tmp_path: Path) -> None:
    view = competition_view(allplayall(tmp_path, 30).snapshot())
    assert view is not None and isinstance(view.detail, AllPlayAllView)
    assert grid_lines(view.detail, 80) is None
    assert grid_lines(view.detail, 250) is not None


@pytest.mark.parametrize(
    ("width", "expected"),
    [
        (80, ["name                games  elo  notes", "a long player name      3  +12  fine"]),
        (30, ["name                games  elo", "a long player name      3  +12"]),
        (20, ["name      games  elo", "a long…       3  +12"]),
    ],
)
def test_tables_drop_optional_columns_then_shrink(width: int, expected: list[str]) -> None:
    columns = (
        Column("name", flexible=True),
        Column("games", align="right"),
        Column("elo", align="right"),
        Column("notes", optional=1),
    )
    rows = [["a long player name", "3", "+12", "fine"]]
    assert [t.plain for t in table_lines(columns, rows, width)] == expected


def test_matchup_tables_show_time_per_move_once_moves_were_timed(tmp_path: Path) -> None:
    competition = playoff(tmp_path, games=4)
    job = competition.next_job()
    assert job is not None
    untimed = GameResult(job.game_id, job.black.code, job.white.code, Colour.BLACK, EndReason.TIME)
    competition.record_result(untimed, {})

    def table() -> str:
        view = competition_view(competition.snapshot())
        assert view is not None and isinstance(view.detail, PlayoffView)
        return "\n".join(t.plain for t in matchup_table(view.detail.matchups[0], 120))

    assert "0.100" not in table() and "timeouts" in table()
    job = competition.next_job()
    assert job is not None
    timed = attrs.evolve(
        untimed,
        game_id=job.game_id,
        black=job.black.code,
        white=job.white.code,
        times_black=MoveTimes(30, 3.0, 0.25),
        times_white=MoveTimes(30, 1.5, 0.125),
    )
    competition.record_result(timed, {})
    shown = table()
    assert "s/move" in shown and "max s" in shown
    assert "0.100  0.250" in shown and "0.050  0.125" in shown
