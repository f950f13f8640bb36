"""Whole games: the engine only ever plays legal moves, against itself and against GNU Go.

A reduced count here (the full 200 self-play and 50 GNU Go games are in
``benchmarks/engine_legality.py``).  Every move is checked by ``gtp.board``
and must be accepted by the opponent.
"""

from __future__ import annotations

import sys

import pytest

from engines.mcts.gtp_engine import EngineOptions, MctsEngine
from engines.mcts.search import PolicyName, SearchConfig, SelectionName
from gtp.board import Board
from gtp.client import GtpClient
from gtp.launch import open_engine
from gtp.vertex import Colour, parse_move_answer

SIZE = 9
KOMI = "7.5"
MOVE_CAP = 3 * SIZE * SIZE


def engine_for(seed: int, game: int) -> MctsEngine:
    policy: PolicyName = "light" if game % 2 else "default"
    selection: SelectionName = "puct" if game % 3 == 0 else "uct"
    config = SearchConfig(policy=policy, selection=selection)
    return MctsEngine(EngineOptions(search=config, playouts=4, seed=seed))


async def test_self_play_games_are_legal_and_end() -> None:
    for game in range(20):
        players = {
            Colour.BLACK: engine_for(2 * game, game),
            Colour.WHITE: engine_for(2 * game + 1, game),
        }
        for player in players.values():
            player.game.boardsize((str(SIZE),))
            player.game.clear_board(())
            player.game.set_komi((KOMI,))
        referee = Board(SIZE)
        colour = Colour.BLACK
        passes = 0
        for _ in range(MOVE_CAP):
            answer = await players[colour].genmove((colour.gtp_name,))
            move = parse_move_answer(answer, SIZE)
            if move.is_resign:
                break
            referee.play(colour, move.point)  # raises IllegalMove
            players[colour.opponent].game.play((colour.gtp_name, answer))  # raises GtpFailure
            for player in players.values():
                assert player.board.zobrist_hash == referee.zobrist_hash
            passes = passes + 1 if move.is_pass else 0
            if passes == 2:
                break
            colour = colour.opponent
        else:
            pytest.fail(f"game {game} did not end within {MOVE_CAP} moves")


async def play_against(black: GtpClient, white: GtpClient) -> tuple[int, str]:
    """One game through two clients; returns (moves, result by area count)."""
    for client in (black, white):
        await client.command("boardsize", str(SIZE))
        await client.command("clear_board")
        await client.command("komi", KOMI)
    referee = Board(SIZE)
    players = {Colour.BLACK: black, Colour.WHITE: white}
    colour = Colour.BLACK
    passes = 0
    moves = 0
    while moves < MOVE_CAP:
        answer = await players[colour].command("genmove", colour.gtp_name, timeout=60)
        move = parse_move_answer(answer, SIZE)
        if move.is_resign:
            return moves, f"{colour.opponent.letter}+R"
        referee.play(colour, move.point)
        await players[colour.opponent].command("play", colour.gtp_name, move.to_gtp(SIZE))
        moves += 1
        passes = passes + 1 if move.is_pass else 0
        if passes == 2:
            break
        colour = colour.opponent
    score = referee.area_score(float(KOMI))
    return moves, "W" if score > 0 else "B"


@pytest.mark.slow
@pytest.mark.gnugo
async def test_games_against_gnugo_are_legal(gnugo: str) -> None:
    gnugo_command = [gnugo, "--mode", "gtp", "--level", "1", "--chinese-rules"]
    for game in range(5):
        ours = [sys.executable, "-m", "engines.mcts", "--playouts", "20", "--seed", str(game)]
        async with (
            open_engine(ours, name="arena-mcts") as engine,
            open_engine(gnugo_command, name="gnugo") as opponent,
        ):
            black, white = (engine, opponent) if game % 2 == 0 else (opponent, engine)
            moves, _result = await play_against(black, white)
            assert moves > 0
