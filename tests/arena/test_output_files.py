"""The run's text files: what ``X.events`` and ``X.log`` get of a game's moves."""

from __future__ import annotations

import json
from pathlib import Path

from arena.events import GameFinished, GameStarted, MovePlayed
from arena.output.files import MOVE_LINE_SECONDS, RunFiles
from arena.results import EndReason, GameResult
from arena.store.files import CompetitionFiles
from gtp.vertex import Colour, Move


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def move(game_id: str, number: int) -> MovePlayed:
    colour = Colour.BLACK if number % 2 else Colour.WHITE
    return MovePlayed(game_id, colour, Move((number % 9, 4)), number)


def written_moves(files: CompetitionFiles) -> list[tuple[str, int]]:
    lines = [json.loads(line) for line in files.events.read_text().splitlines()]
    return [(line["game_id"], line["moves"]) for line in lines if line["event"] == "move"]


def test_x_events_gets_each_games_latest_move_about_once_a_second(tmp_path: Path) -> None:
    assert MOVE_LINE_SECONDS == 1.0  # the figures below
    files = CompetitionFiles.for_control_file(tmp_path / "x.ctl")
    clock = Clock()
    run_files = RunFiles(files, clock=clock)
    run_files(GameStarted("0_0", "a", "b", 0))
    run_files(GameStarted("0_1", "b", "a", 1))
    # Fast engines: the ringmaster reports each game's latest move every 50 ms.
    for tick in range(1, 61):
        clock.now = tick / 20
        run_files(move("0_0", tick))
        run_files(move("0_1", 2 * tick))
    result = GameResult("0_0", "a", "b", Colour.BLACK, EndReason.RESIGN)
    run_files(GameFinished("0_0", "a", "b", result))
    # A slow game: a move every three seconds, each one written.
    run_files(GameStarted("0_2", "a", "b", 0))
    for number in range(1, 4):
        clock.now += 3.0
        run_files(move("0_2", number))
    run_files.close()
    assert written_moves(files) == [
        ("0_0", 20),
        ("0_1", 40),
        ("0_0", 40),
        ("0_1", 80),
        ("0_0", 60),
        ("0_1", 120),
        ("0_2", 1),
        ("0_2", 2),
        ("0_2", 3),
    ]
    log = files.log.read_text()
    assert "starting game 0_2" in log and "move" not in log


def test_a_game_shorter_than_a_second_writes_no_move(tmp_path: Path) -> None:
    files = CompetitionFiles.for_control_file(tmp_path / "x.ctl")
    clock = Clock()
    run_files = RunFiles(files, clock=clock)
    run_files(GameStarted("0_0", "a", "b", 0))
    for number in range(1, 19):
        clock.now = number / 20
        run_files(move("0_0", number))
    run_files.close()
    assert written_moves(files) == []
