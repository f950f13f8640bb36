"""Snapshots, trackers and a recording console for the dashboard tests."""

from __future__ import annotations

import io
import random
from pathlib import Path

from rich.console import Console

from arena.competitions.base import Competition
from arena.competitions.loader import load_control_file
from arena.competitions.registry import make_competition
from arena.events import GameFinished, GameStarted, MovePlayed, RunState, RunStateChanged
from arena.results import EndReason, GameResult
from gtp.vertex import PASS, Colour
from tui.dashboard import render_dashboard
from tui.tracker import DashboardView, RunTracker


def game_finished(
    game_id: str, result: GameResult | None = None, void_reason: str | None = None
) -> GameFinished:
    """The event of a finished game (void when there is no result)."""
    black, white = (result.black, result.white) if result is not None else ("a", "b")
    return GameFinished(game_id, black, white, result, void_reason)


class FakeClock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def player_codes(count: int) -> list[str]:
    return [f"player{i:02d}" for i in range(count)]


def _players(count: int) -> str:
    return "{" + ", ".join(f"{code!r}: Player('engine')" for code in player_codes(count)) + "}"


def playoff(
    directory: Path, players: int = 2, games: int | None = 20, extra: str = ""
) -> Competition:
    """Matchups player00 v player01, player02 v player03, ... (alternating colours)."""
    codes = player_codes(players)
    limit = "" if games is None else f", number_of_games={games}"
    matchups = ", ".join(
        f"Matchup({codes[i]!r}, {codes[i + 1]!r}, alternating=True{limit})"
        for i in range(0, players - 1, 2)
    )
    path = directory / "league.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {_players(players)}\n"
        f"board_size = 9\nkomi = 7.5\n{extra}matchups = [{matchups}]\n"
    )
    return make_competition(load_control_file(path))


def allplayall(directory: Path, competitors: int, rounds: int | None = 4) -> Competition:
    path = directory / "tourney.ctl"
    rounds_line = "" if rounds is None else f"rounds = {rounds}\n"
    path.write_text(
        "competition_type = 'allplayall'\n"
        f"players = {_players(competitors)}\n"
        f"competitors = {player_codes(competitors)!r}\n"
        f"board_size = 13\nkomi = 6.5\n{rounds_line}"
    )
    return make_competition(load_control_file(path))


ENDINGS = (EndReason.SCORE, EndReason.RESIGN, EndReason.RESIGN, EndReason.FORFEIT, EndReason.TIME)


def play(competition: Competition, games: int, seed: int = 1) -> list[GameResult]:
    """Issue and record ``games`` games; the first player of each game wins two times in three."""
    rng = random.Random(seed)
    results = []
    for _ in range(games):
        job = competition.next_job()
        if job is None:
            break
        winner = Colour.BLACK if rng.random() < 0.6 else Colour.WHITE
        end = rng.choice(ENDINGS)
        result = GameResult(
            game_id=job.game_id,
            black=job.black.code,
            white=job.white.code,
            winner=winner,
            end=end,
            margin=3.5 if end is EndReason.SCORE else None,
            moves=80,
            cpu_black=0.5,
            cpu_white=0.25,
        )
        competition.record_result(result, {})
        results.append(result)
    return results


def tracker_for(
    competition: Competition,
    *,
    finished: int = 0,
    in_progress: int = 0,
    clock: FakeClock | None = None,
    seconds_per_game: float = 2.0,
) -> RunTracker:
    """A tracker that saw the run start, ``finished`` games end, ``in_progress`` games start.

    The games end without snapshots (as when the ringmaster skips costly ones);
    the competition's snapshot comes once at the end.
    """
    clock = clock or FakeClock()
    tracker = RunTracker(competition.config.code, clock=clock)
    tracker.set_snapshot(competition.snapshot())
    tracker.handle(RunStateChanged(RunState.RUNNING))
    for result in play(competition, finished):
        clock.now += seconds_per_game
        tracker.handle(GameStarted(result.game_id, result.black, result.white, 0))
        tracker.handle(game_finished(result.game_id, result))
    for slot in range(in_progress):
        job = competition.next_job()
        if job is None:
            break
        tracker.handle(GameStarted(job.game_id, job.black.code, job.white.code, slot))
        tracker.handle(MovePlayed(job.game_id, Colour.BLACK, PASS, 10 + slot))
        clock.now += 0.5
    tracker.set_snapshot(competition.snapshot())
    return tracker


def tuner(directory: Path, split: int = 3, games: int = 60) -> Competition:
    """A Monte Carlo tuner over two parameters (``split`` squared candidates) v 'opp'."""
    path = directory / "tune.ctl"
    path.write_text(
        "competition_type = 'mc_tuner'\n"
        "players = {'opp': Player('opponent-engine')}\n"
        "parameters = [\n"
        f"    Parameter('playouts', scale=LOG(10, 10000, integer=True), split={split},"
        " format='playouts: %d'),\n"
        f"    Parameter('c', scale=LINEAR(0, 1), split={split}, format='c: %.2f'),\n"
        "]\n"
        "def make_candidate(playouts, c):\n"
        "    return Player(['engine', str(playouts), str(c)])\n"
        "board_size = 9\nkomi = 7.5\nopponent = 'opp'\ncandidate_colour = 'b'\n"
        f"number_of_games = {games}\nexploration_coefficient = 0.45\n"
        "initial_visits = 2\ninitial_wins = 1\n"
    )
    return make_competition(load_control_file(path))


def ce_tuner(directory: Path, samples: int = 6) -> Competition:
    """A cross-entropy tuner over two parameters v 'opp' (batch 2, 3 generations)."""
    path = directory / "cem.ctl"
    path.write_text(
        "competition_type = 'ce_tuner'\n"
        "players = {'opp': Player('opponent-engine')}\n"
        "def exp_10(f):\n    return 10.0 ** f\n"
        "parameters = [\n"
        "    Parameter('playouts', initial_mean=2.5, initial_variance=0.5, transform=exp_10,"
        " format='playouts: %d'),\n"
        "    Parameter('c', initial_mean=0.5, initial_variance=0.1, format='c: %.2f'),\n"
        "]\n"
        "def make_candidate(playouts, c):\n"
        "    return Player(['engine', str(playouts), str(c)])\n"
        "board_size = 9\nkomi = 7.5\nopponent = 'opp'\ncandidate_colour = 'random'\n"
        f"number_of_generations = 3\nsamples_per_generation = {samples}\nbatch_size = 2\n"
        "elite_proportion = 0.34\nstep_size = 0.8\n"
    )
    return make_competition(load_control_file(path))


def spsa_tuner(directory: Path, iterations: int = 40) -> Competition:
    """An SPSA tuner over two parameters."""
    path = directory / "spsa.ctl"
    path.write_text(
        "competition_type = 'spsa_tuner'\n"
        "parameters = [\n"
        "    Parameter('playouts', start=1000, min=100, max=5000, c_end=100, r_end=0.002,"
        " format='playouts: %.0f'),\n"
        "    Parameter('c', start=0.5, min=0, max=2, c_end=0.05, r_end=0.002,"
        " format='c: %.3f'),\n"
        "]\n"
        "def make_candidate(playouts, c):\n"
        "    return Player(['engine', str(round(playouts)), str(c)])\n"
        f"board_size = 9\nkomi = 7.5\nnumber_of_iterations = {iterations}\n"
    )
    return make_competition(load_control_file(path))


def screen(view: DashboardView, width: int, height: int) -> list[str]:
    """The lines a user sees on a ``width`` x ``height`` terminal."""
    console = Console(
        record=True, width=width, height=height, color_system=None, file=io.StringIO()
    )
    console.print(render_dashboard(view))
    text = console.export_text()
    return text.rstrip("\n").split("\n")
