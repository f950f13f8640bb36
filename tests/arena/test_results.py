"""Game results: SGF RE strings, descriptions and the JSON round trip."""

from __future__ import annotations

import pytest

from arena.results import EndReason, GameResult
from gtp.vertex import Colour

B, W = Colour.BLACK, Colour.WHITE


@pytest.mark.parametrize(
    ("winner", "end", "margin", "sgf", "description"),
    [
        (B, EndReason.SCORE, 3.5, "B+3.5", "x beat y B+3.5"),
        (W, EndReason.SCORE, 31.0, "W+31", "y beat x W+31"),
        (W, EndReason.SCORE, None, "W+", "y beat x W+"),
        (None, EndReason.SCORE, 0.0, "0", "x vs y jigo"),
        (W, EndReason.RESIGN, None, "W+R", "y beat x W+R"),
        (B, EndReason.FORFEIT, None, "B+F", "x beat y B+F (why)"),
        (W, EndReason.TIME, None, "W+T", "y beat x W+T (why)"),
        (B, EndReason.CLAIM, None, "B+", "x beat y B+ (why)"),
        (None, EndReason.MOVE_LIMIT, None, "Void", "x vs y void (move limit) (why)"),
        (None, EndReason.UNKNOWN, None, "?", "x vs y ? (why)"),
    ],
)
def test_sgf_result_and_description(
    winner: Colour | None, end: EndReason, margin: float | None, sgf: str, description: str
) -> None:
    result = GameResult("0_1", "x", "y", winner, end, margin, reason="why")
    assert result.sgf_result == sgf
    assert result.describe() == description
    assert GameResult.from_json(result.to_json()) == result


def test_players_and_cpu_by_colour() -> None:
    result = GameResult("g", "x", "y", W, EndReason.RESIGN, cpu_black=1.5, cpu_white=None)
    assert (result.winning_player, result.losing_player) == ("y", "x")
    assert result.player(B) == "x" and result.cpu(B) == 1.5 and result.cpu(W) is None
    assert not result.is_jigo and not result.is_forfeit


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"game_id": "g", "black": "x", "white": "y", "winner": "Q", "end": "score"},
        {"game_id": "g", "black": "x", "white": "y", "winner": None, "end": "draw"},
        {"game_id": "g", "black": "x", "white": "y", "winner": None, "end": "score", "moves": "9"},
        {"game_id": "g", "black": "x", "white": "y", "winner": None, "end": "score", "margin": "1"},
    ],
)
def test_malformed_json_is_rejected(data: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        GameResult.from_json(data)
