"""``benchmarks/strength_games.py``: reading our engine's beliefs from game records."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from sgfmill import sgf

from tests.benchmark_scripts import load_benchmark

sg = load_benchmark("strength_games")


def record(ours: str, result: str, rates: list[float]) -> bytes:
    """A 9x9 game: our engine plays ``ours`` and explains each move with the given win rates
    (for the side to move, alternately worded for black and white to check the flip)."""
    game = sgf.Sgf_game(9)
    root = game.get_root()
    root.set("PB", "arena-mcts:0.1.0" if ours == "b" else "GNU Go:3.8")
    root.set("PW", "GNU Go:3.8" if ours == "b" else "arena-mcts:0.1.0")
    root.set("RE", result)
    other = "w" if ours == "b" else "b"
    colour_word = {"b": "black", "w": "white"}
    for i, rate in enumerate(rates):
        if ours == "w":
            game.extend_main_sequence().set_move(other, (0, i))
        node = game.extend_main_sequence()
        node.set_move(ours, (8, i))
        # every second explanation gives the opponent's rate, as the engine may word it
        word, shown = (ours, rate) if i % 2 == 0 else (other, 1 - rate)
        node.set(
            "C",
            f"A1: win rate {shown * 100:.1f}% for {colour_word[word]}, 3000 root visits"
            f" in 0.5 s; pv A1",
        )
        if ours == "b":
            game.extend_main_sequence().set_move(other, (0, i))
    return game.serialise()


def test_a_collapse_is_a_loss_once_believed_won() -> None:
    story = sg.read_story(record("w", "B+R", [0.55, 0.75, 0.6, 0.4, 0.2]))
    assert story is not None
    assert not story.won and story.resigned
    assert [round(b.win_rate, 3) for b in story.beliefs] == [0.55, 0.75, 0.6, 0.4, 0.2]
    assert story.peak() == pytest.approx(0.75)
    # white's moves are 2, 4, 6, 8, 10: the belief fell below 50% for good at move 8
    assert story.turn() == 8
    summary = sg.summarise("c", [story], 0.7)
    assert (summary.losses, summary.resigned, summary.collapsed, summary.never_ahead) == (
        1,
        1,
        1,
        0,
    )
    assert summary.turn_median == 8


def test_wins_losses_and_doubts_are_counted_apart() -> None:
    stories = [
        sg.read_story(record("b", "B+0.5", [0.5, 0.45, 0.6])),  # a win once in doubt
        sg.read_story(record("b", "B+R", [0.6, 0.7])),  # a win, never in doubt
        sg.read_story(record("b", "W+3.5", [0.4, 0.3, 0.2])),  # counted loss, never ahead
        sg.read_story(record("w", "B+R", [0.6, 0.55, 0.3])),  # resigned, peak below 70%
    ]
    assert all(story is not None for story in stories)
    summary = sg.summarise("c", stories, 0.7)
    assert (summary.games, summary.wins, summary.losses) == (4, 2, 2)
    assert summary.resigned == 1
    assert summary.collapsed == 0
    assert summary.never_ahead == 1
    assert summary.wins_in_doubt == 1
    assert summary.visits_median == 3000


def test_a_game_without_our_engine_is_skipped() -> None:
    game = sgf.Sgf_game(9)
    game.get_root().set("PB", "GNU Go:3.8")
    game.get_root().set("PW", "GNU Go:3.8")
    assert sg.read_story(game.serialise()) is None


def test_the_command_summarises_a_work_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = tmp_path / "heuristic-rave_3000_l10_tt.games"
    games.mkdir()
    (games / "vs-gnugo_000.sgf").write_bytes(record("b", "B+1.5", [0.6, 0.65]))
    (games / "vs-gnugo_001.sgf").write_bytes(record("w", "B+R", [0.8, 0.1]))
    assert sg.main(["--workdir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    result = json.loads(out.strip().splitlines()[-1].removeprefix("RESULT "))
    assert result[0]["code"] == "heuristic-rave_3000_l10_tt"
    assert (result[0]["wins"], result[0]["collapsed"]) == (1, 1)
    assert sg.main(["--workdir", str(tmp_path), "nothing"]) == 2
    assert "no game records" in capsys.readouterr().err


def test_gnu_go_s_estimate_is_read_as_our_lead() -> None:
    assert sg.our_lead("= W+26.2 (upper bound: 69.7, lower: -17.3)", "b") == -26.2
    assert sg.our_lead("= W+26.2 (upper bound: 69.7, lower: -17.3)", "w") == 26.2
    assert sg.our_lead("= B+0.5", "b") == 0.5
    assert sg.our_lead("= 0", "w") == 0.0
    assert sg.our_lead("? unknown command", "b") is None


def resigned_with_a_dead_group() -> bytes:
    """Black (our engine) resigns with its only stones, two of them, in atari in a corner
    surrounded by white: lost by GNU Go's estimate."""
    game = sgf.Sgf_game(9)
    root = game.get_root()
    root.set("PB", "arena-mcts:0.1.0")
    root.set("PW", "GNU Go:3.8")
    root.set("RE", "W+R")
    root.set("KM", 7.5)
    moves = [("b", (0, 0)), ("w", (4, 4)), ("b", (0, 1)), ("w", (1, 0)), ("b", None)]
    moves += [("w", (1, 1)), ("b", None), ("w", (2, 2)), ("b", None), ("w", (0, 2))]
    for colour, point in moves:
        game.extend_main_sequence().set_move(colour, point)
    return game.serialise()


def test_a_resignation_is_checked_with_gnu_go(tmp_path: Path) -> None:
    gnugo = shutil.which("gnugo") or (
        "/usr/games/gnugo" if Path("/usr/games/gnugo").exists() else None
    )
    if gnugo is None:
        pytest.skip("GNU Go is not installed (CI installs it)")
    story = sg.read_story(resigned_with_a_dead_group())
    assert story is not None and story.resigned and story.colour == "b"
    assert story.moves[:2] == (("b", "A1"), ("w", "E5"))
    lead = sg.resignation_lead(gnugo, story)
    assert lead is not None and lead < -20  # nearly the whole board is white's
    summary = sg.summarise("row", [story], 0.7, gnugo)
    assert (summary.resigned_behind, summary.resigned_lead_median) == (1, lead)
    assert sg.summarise("row", [story], 0.7).resigned_behind is None  # not asked
