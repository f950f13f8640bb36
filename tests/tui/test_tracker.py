"""The tracker: what the arena's events make of the dashboard's figures."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.events import (
    EngineStderr,
    GameStarted,
    MovePlayed,
    RunState,
    RunStateChanged,
)
from arena.results import EndReason, GameResult
from gtp.vertex import PASS, Colour
from tui.dashboard import counters_line
from tui.tracker import RunTracker

from .builders import FakeClock, game_finished, playoff, screen, tracker_for


def result(
    end: EndReason, winner: Colour | None = Colour.BLACK, game_id: str = "0_1"
) -> GameResult:
    margin = 3.5 if end is EndReason.SCORE and winner is not None else None
    return GameResult(game_id, "alice", "bob", winner, end, margin=margin, reason="why")


@pytest.mark.parametrize(
    ("game", "text", "how"),
    [
        (result(EndReason.SCORE), "alice beat bob B+3.5", "score"),
        (result(EndReason.SCORE, None), "alice vs bob jigo", "jigo"),
        (result(EndReason.RESIGN, Colour.WHITE), "bob beat alice W+R", "resign"),
        (result(EndReason.FORFEIT), "alice beat bob B+F (why)", "forfeit"),
        (result(EndReason.TIME), "alice beat bob B+T (why)", "time"),
        (result(EndReason.CLAIM), "alice beat bob B+ (why)", "claim"),
        (result(EndReason.MOVE_LIMIT, None), "alice vs bob void (move limit) (why)", "move limit"),
        (result(EndReason.UNKNOWN, None), "alice vs bob ? (why)", "unknown"),
        (None, "void: engine bob died", "void"),
    ],
)
def test_recent_results_say_how_each_game_ended(
    game: GameResult | None, text: str, how: str
) -> None:
    tracker = RunTracker("x", clock=FakeClock())
    tracker.handle(game_finished("0_1", game, None if game else "engine bob died"))
    (recent,) = tracker.view().recent
    assert (recent.game_id, recent.text, recent.how) == ("0_1", text, how)


def test_games_in_progress_follow_the_events() -> None:
    clock = FakeClock(10.0)
    tracker = RunTracker("x", clock=clock)
    tracker.handle(GameStarted("0_0", "alice", "bob", 0))
    clock.now = 12.0
    tracker.handle(GameStarted("0_1", "bob", "alice", 1))
    tracker.handle(MovePlayed("0_1", Colour.BLACK, PASS, 7))
    clock.now = 15.0
    games = tracker.view().in_progress
    assert [(g.game_id, g.black, g.moves, g.elapsed, g.slot) for g in games] == [
        ("0_0", "alice", 0, 5.0, 0),
        ("0_1", "bob", 7, 3.0, 1),
    ]
    tracker.handle(game_finished("0_0", result(EndReason.RESIGN, game_id="0_0")))
    assert [g.game_id for g in tracker.view().in_progress] == ["0_1"]
    assert [r.game_id for r in tracker.view().recent] == ["0_0"]


def test_recent_results_are_the_last_eight_newest_first() -> None:
    tracker = RunTracker("x", clock=FakeClock())
    for n in range(12):
        tracker.handle(game_finished(f"0_{n}", result(EndReason.RESIGN, game_id=f"0_{n}")))
    assert [r.game_id for r in tracker.view().recent] == [f"0_{n}" for n in range(11, 3, -1)]


def test_counters_without_competition_tallies_come_from_events() -> None:
    tracker = RunTracker("x", clock=FakeClock())
    for end in (EndReason.FORFEIT, EndReason.FORFEIT, EndReason.TIME, EndReason.RESIGN):
        tracker.handle(game_finished("0_1", result(end)))
    tracker.handle(game_finished("0_2", None, "crashed"))
    tracker.handle(EngineStderr("0_3", "bob", "Warning: hash table full", warning=True))
    tracker.add_warning("arena: game 0_2 is void and will be replayed")
    view = tracker.view()
    assert (view.counts.forfeits, view.counts.timeouts, view.counts.voids) == (2, 1, 1)
    assert view.counts.engine_errors == 1
    assert view.counts.adjudicated == 0
    tracker.handle(game_finished("0_4", result(EndReason.ADJUDICATED)))
    assert tracker.view().counts.adjudicated == 1
    line = counters_line(tracker.view().counts, 100).plain
    assert line == "forfeits 2 · timeouts 1 · adjudicated 1 · void 1 · engine errors 1"
    assert view.warnings == (
        "bob (0_3): Warning: hash table full",
        "arena: game 0_2 is void and will be replayed",
    )


def test_only_changes_of_state_are_urgent() -> None:
    tracker = RunTracker("x", clock=FakeClock())
    assert not tracker.handle(GameStarted("0_1", "a", "b", 0))
    assert not tracker.handle(MovePlayed("0_1", Colour.BLACK, PASS, 1))
    assert not tracker.handle(EngineStderr("0_1", "a", "error", warning=True))
    assert not tracker.handle(game_finished("0_1", result(EndReason.RESIGN)))
    assert tracker.handle(RunStateChanged(RunState.STOPPING, "stop requested (Ctrl-X)"))
    view = tracker.view()
    assert (view.state, view.message) == (RunState.STOPPING, "stop requested (Ctrl-X)")


def test_rate_and_eta(tmp_path: Path) -> None:
    clock = FakeClock(100.0)
    tracker = tracker_for(playoff(tmp_path), finished=5, clock=clock, seconds_per_game=2.0)
    view = tracker.view()
    assert (view.games_done, view.games_total) == (5, 20)
    assert view.rate == pytest.approx(0.5)  # 5 games in 10 seconds
    assert view.eta == pytest.approx(30.0)  # 15 games left


def test_eta_of_a_run_limited_by_max_games(tmp_path: Path) -> None:
    competition = playoff(tmp_path, games=None)
    clock = FakeClock(0.0)
    tracker = RunTracker("league", clock=clock, max_games=8)
    tracker.set_snapshot(competition.snapshot())
    tracker.handle(RunStateChanged(RunState.RUNNING))
    for n in range(4):
        tracker.handle(GameStarted(f"0_{n}", "player00", "player01", 0))
    clock.now = 4.0
    tracker.handle(game_finished("0_0", result(EndReason.RESIGN, game_id="0_0")))
    tracker.handle(game_finished("0_1", result(EndReason.RESIGN, game_id="0_1")))
    view = tracker.view()
    assert view.games_total is None and view.games_done == 2
    # 4 started, 2 running, 4 more to start: 6 games at 0.5 games/s
    assert view.eta == pytest.approx(12.0)
    tracker.handle(RunStateChanged(RunState.STOPPING, "stop requested (Ctrl-X)"))
    assert tracker.view().eta == pytest.approx(4.0)  # only the 2 games in progress


def test_results_without_snapshot_count_until_the_next_one(tmp_path: Path) -> None:
    competition = playoff(tmp_path)
    tracker = RunTracker("league", clock=FakeClock())
    tracker.set_snapshot(competition.snapshot())
    tracker.handle(game_finished("0_00", result(EndReason.RESIGN, game_id="0_00")))
    tracker.handle(game_finished("0_01", None, "crashed"))  # void: not a game done
    assert tracker.view().games_done == 1
    tracker.set_snapshot(competition.snapshot())  # the competition never counted it
    assert tracker.view().games_done == 0


def test_a_slot_that_starts_a_game_has_finished_its_last_one(tmp_path: Path) -> None:
    # The order of practice: a slot's game ends, the slot starts its next game
    # at once, and the first game is announced once its record is on disk.
    competition = playoff(tmp_path)
    clock = FakeClock(0.0)
    tracker = RunTracker("league", clock=clock, max_games=6)
    tracker.set_snapshot(competition.snapshot())
    tracker.handle(RunStateChanged(RunState.RUNNING, parallel=2))
    tracker.handle(GameStarted("0_00", "player00", "player01", 0))
    tracker.handle(GameStarted("0_01", "player01", "player00", 1))
    clock.now = 10.0
    tracker.handle(GameStarted("0_02", "player00", "player01", 0))  # 0_00 is over
    lines = screen(tracker.view(), 100, 30)
    assert "2 running" in lines[1]
    assert "In progress: 2 game(s)" in lines
    assert not [line for line in lines if line.startswith("0_00")]
    tracker.handle(game_finished("0_00", result(EndReason.RESIGN, game_id="0_00")))
    view = tracker.view()
    assert [g.game_id for g in view.in_progress] == ["0_01", "0_02"]
    assert [r.game_id for r in view.recent] == ["0_00"]
    assert view.eta == pytest.approx(50.0)  # 2 running and 3 to start, at 0.1 games/s


def test_games_of_unknown_slots_stay_until_announced() -> None:
    tracker = RunTracker("x", clock=FakeClock(), watching=True)
    tracker.handle(GameStarted("0_0", "a", "b", -1))  # X.events of an older run
    tracker.handle(GameStarted("0_1", "b", "a", -1))
    assert [g.game_id for g in tracker.view().in_progress] == ["0_0", "0_1"]


def test_a_watcher_shows_a_move_number_once_x_events_gives_one() -> None:
    tracker = RunTracker("x", clock=FakeClock(), watching=True)
    tracker.handle(GameStarted("0_0", "a", "b", 0))
    assert [g.moves for g in tracker.view().in_progress] == [None]
    tracker.handle(MovePlayed("0_0", Colour.WHITE, PASS, 42))
    lines = screen(tracker.view(), 80, 20)
    row = next(line for line in lines if line.startswith("0_0"))
    assert row.split()[3] == "42"


def test_a_run_that_stops_short_of_the_competition_is_not_finished(tmp_path: Path) -> None:
    # `arena run --max-games 2`: the run says it finished; the competition has not.
    tracker = tracker_for(playoff(tmp_path, games=20), finished=2)
    tracker.max_games = 2
    tracker.handle(RunStateChanged(RunState.FINISHED, "run finished"))
    lines = screen(tracker.view(), 100, 30)
    assert "stopped" in lines[0] and "finished" not in lines[0]
    assert "stopped: after --max-games 2; the competition is not complete" in lines


def test_a_complete_competition_is_finished_even_if_its_run_vanished(tmp_path: Path) -> None:
    competition = playoff(tmp_path, games=2)
    tracker = tracker_for(competition, finished=2)
    tracker.watching = True
    tracker.no_run()  # the run was killed after its last game, before its last event
    view = tracker.view()
    assert (view.state, view.message) == (RunState.FINISHED, "competition complete")
