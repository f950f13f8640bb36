"""GNU Go as the referee engine: it scores random games and adjudicates one-sided ones."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sgfmill import sgf

from arena.api import run_competition
from arena.competitions.loader import load_control_file
from arena.control.settings import GameSettings
from arena.events import RunState
from arena.results import EndReason, GameResult
from arena.run.referee import Referee
from arena.run.ringmaster import RunOptions
from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, iter_journal
from gtp.vertex import Colour, Move, format_vertex

pytestmark = pytest.mark.gnugo

DEAD_NOTE = "dead stones according to the referee gnugo"


async def run(directory: Path, body: str) -> tuple[CompetitionFiles, list[GameResult]]:
    path = directory / "ref.ctl"
    path.write_text("competition_type = 'playoff'\n" + body)
    config = load_control_file(path)
    options = RunOptions(parallel=2, keyboard=False, handle_signals=False)
    summary = await run_competition(config, options)
    assert summary.state is RunState.FINISHED, summary.message
    files = CompetitionFiles.for_control_file(config.control_path)
    results = [e.result for e in iter_journal(files) if isinstance(e, ResultEntry)]
    return files, sorted(results, key=lambda r: r.game_id)


def players(gnugo: str) -> str:
    random = f"[{sys.executable!r}, '-m', 'engines.random']"
    return (
        f"players = {{'r1': Player({random}), 'r2': Player({random}),\n"
        f"           'gnugo': Player([{gnugo!r}, '--mode', 'gtp', '--chinese-rules']),\n"
        f"           'gnugo-l1': Player([{gnugo!r}, '--mode', 'gtp', '--level', '1'])}}\n"
        "referee = 'gnugo'\n"
    )


def gnugo_final_score(gnugo: str, size: int, komi: float, game: sgf.Sgf_game) -> str:
    """What a fresh GNU Go says of the record's final position."""
    lines = [f"boardsize {size}", "clear_board", f"komi {komi}"]
    for node in game.get_main_sequence()[1:]:
        colour, point = node.get_move()
        if colour is not None:
            lines.append(f"play {colour} {format_vertex(point, size)}")
    lines += ["final_score", "quit"]
    command = [gnugo, "--mode", "gtp", "--chinese-rules"]
    output = subprocess.run(
        command, input="\n".join(lines) + "\n", capture_output=True, text=True, check=True
    ).stdout
    answers = [block for block in output.split("\n\n") if block.strip()]
    return answers[-2].lstrip("= ").strip()


def internal_result(size: int, komi: float, game: sgf.Sgf_game) -> str:
    """The record's final position scored by the arena's internal scorer (all stones alive)."""
    referee = Referee(GameSettings(board_size=size, komi=komi, scorer="internal"))
    for node in game.get_main_sequence()[1:]:
        colour, point = node.get_move()
        if colour is not None:
            referee.play(Colour.parse(colour), Move(point) if point else Move(None))
    outcome = referee.score_internally()
    if outcome.winner is None:
        return "0"
    assert outcome.margin is not None
    return f"{outcome.winner.letter}+{outcome.margin:g}"


async def test_gnugo_referee_scores_random_games(tmp_path: Path, gnugo: str) -> None:
    # Six games played out, four stopped at move 30 (with many dead stones on the board).
    files, results = await run(
        tmp_path,
        players(gnugo) + "board_size = 7\nkomi = 7.5\nscorer = 'referee'\n"
        "matchups = [Matchup('r1', 'r2', id='full', alternating=True, number_of_games=6),\n"
        "            Matchup('r1', 'r2', id='cut', number_of_games=4, move_limit=30)]\n",
    )
    assert len(results) == 10
    differs_with_dead_stones = 0
    for result in results:
        assert result.end is EndReason.SCORE, result
        assert "scored by the referee gnugo (GNU Go" in result.reason
        game = sgf.Sgf_game.from_bytes(files.sgf_path(result.game_id).read_bytes())
        re_value = game.get_root().get("RE")
        assert re_value == result.sgf_result
        comment = game.get_last_node().get("C")
        assert "scored by the referee gnugo" in comment and DEAD_NOTE in comment
        # A fresh GNU Go agrees with the record's result.
        assert gnugo_final_score(gnugo, 7, 7.5, game) == re_value
        if result.game_id.startswith("cut"):
            assert result.moves == 30 and "at the move limit (30)" in result.reason
        dead = comment.split(DEAD_NOTE, 1)[1].split("\n", 1)[0].strip(": ")
        if dead != "none" and internal_result(7, 7.5, game) != re_value:
            differs_with_dead_stones += 1
    assert differs_with_dead_stones >= 1


async def test_a_one_sided_game_is_adjudicated(tmp_path: Path, gnugo: str) -> None:
    files, results = await run(
        tmp_path,
        players(gnugo) + "board_size = 9\nkomi = 7.5\n"
        "adjudicate = Adjudication(margin=30, moves=3, after=20, every=2)\n"
        "matchups = [Matchup('gnugo-l1', 'r1', alternating=True, number_of_games=2)]\n",
    )
    assert len(results) == 2
    for result in results:
        assert result.end is EndReason.ADJUDICATED, result
        assert result.winning_player == "gnugo-l1"
        game = sgf.Sgf_game.from_bytes(files.sgf_path(result.game_id).read_bytes())
        assert game.get_root().get("RE") == result.sgf_result
        assert "adjudicated by the referee gnugo" in game.get_last_node().get("C")
    report = files.report.read_text()
    assert "adjudicated" in report
