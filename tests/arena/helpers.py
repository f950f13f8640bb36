"""Builders shared by the arena tests."""

from __future__ import annotations

from pathlib import Path

from arena.competitions.loader import load_control_file
from arena.control.config import CompetitionConfig
from arena.results import EndReason, GameResult
from gtp.vertex import Colour


def write_ctl(directory: Path, body: str, name: str = "comp.ctl") -> Path:
    path = directory / name
    path.write_text("competition_type = 'playoff'\n" + body)
    return path


def playoff_config(directory: Path, matchups: str, extra: str = "") -> CompetitionConfig:
    body = (
        "players = {'a': Player('enga'), 'b': Player('engb'), 'c': Player('engc')}\n"
        "board_size = 9\nkomi = 7.5\n" + extra + f"matchups = [{matchups}]\n"
    )
    return load_control_file(write_ctl(directory, body))


def result(
    game_id: str,
    black: str,
    white: str,
    winner: Colour | None,
    end: EndReason = EndReason.SCORE,
    *,
    margin: float | None = 3.5,
    cpu: tuple[float | None, float | None] = (None, None),
) -> GameResult:
    if end is not EndReason.SCORE:
        margin = None
    return GameResult(
        game_id=game_id,
        black=black,
        white=white,
        winner=winner,
        end=end,
        margin=margin,
        moves=10,
        cpu_black=cpu[0],
        cpu_white=cpu[1],
    )
