"""The ladder reader and what the heuristic priors make of its answers."""

from __future__ import annotations

import random

import pytest

from engines.mcts.fastboard import BLACK, WHITE, FastBoard
from engines.mcts.policy import PLAYOUTS
from engines.mcts.priors import heuristic_priors, prior_weights
from engines.mcts.tactics import extension_dies, ladder_caught
from tests.engines.test_mcts_fastboard import fast_from

# Black D6 in atari (White just played D7); running at E6 leaves two liberties,
# and White chases it down and to the right (E5, F5, F4, G4, ...) until the
# edge takes it.
LADDER = """
. . . . . . . . .
. . . . . . . . .
. . . O O . . . .
. . O X . . . . .
. . . O . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""


def with_stone(diagram: str, row_from_top: int, col: int, stone: str) -> str:
    rows = [line.split() for line in diagram.strip().splitlines()]
    rows[row_from_top][col] = stone
    return "\n".join(" ".join(row) for row in rows)


def board_of(diagram: str, to_move: int) -> FastBoard:
    return fast_from(diagram, to_move=to_move)


def test_a_ladder_without_a_breaker_is_read_to_the_end() -> None:
    board = board_of(LADDER, BLACK)
    before = (board.color[:], board.lkey[:], board.hash, board.to_move)
    d5 = board.geo.index((5, 3))
    assert ladder_caught(board, d5)
    assert extension_dies(board, board.head[d5], board.geo.index((5, 4)))
    assert (board.color, board.lkey, board.hash, board.to_move) == before  # read on copies


def test_a_black_stone_in_the_ladders_path_breaks_it() -> None:
    for row, col in ((7, 7), (6, 6), (5, 5)):  # H2, G3 and F4 lie on the way
        board = board_of(with_stone(LADDER, row, col, "X"), BLACK)
        assert not ladder_caught(board, board.geo.index((5, 3))), (row, col)


def test_a_white_stone_on_the_way_helps_the_chase_and_one_far_off_changes_nothing() -> None:
    board = board_of(with_stone(LADDER, 7, 7, "O"), BLACK)
    assert ladder_caught(board, board.geo.index((5, 3)))
    board = board_of(with_stone(LADDER, 8, 0, "X"), BLACK)  # A1: not on the way
    assert ladder_caught(board, board.geo.index((5, 3)))


def test_a_chain_with_two_liberties_or_a_capture_to_make_is_not_caught() -> None:
    board = board_of(with_stone(LADDER, 2, 3, "."), BLACK)  # no atari: D7 empty
    assert not ladder_caught(board, board.geo.index((5, 3)))
    # White C6 in atari next to the black stone: Black captures instead of running
    capture = with_stone(with_stone(LADDER, 2, 2, "X"), 3, 1, "X")
    board = board_of(capture, BLACK)
    assert not ladder_caught(board, board.geo.index((5, 3)))


def values(board: FastBoard, moves: list[int], weights: str = "") -> list[float]:
    stats = heuristic_priors(board, moves, 10.0, prior_weights(weights))
    return [w / n for n, w in stats]


def test_priors_count_running_into_a_ladder_as_a_loss_and_a_real_escape_as_a_win() -> None:
    run = FastBoard(9).geo.index((5, 4))  # E6
    caught = board_of(LADDER, BLACK)
    free = board_of(with_stone(LADDER, 6, 6, "X"), BLACK)  # G3 breaks the ladder
    [in_ladder] = values(caught, [run])
    [escape] = values(free, [run])
    assert in_ladder < 0.5 < escape
    # without the ladder rule the extension is the save it looks like
    [unread] = values(caught, [run], "ladder_save=0")
    assert unread == escape


def test_priors_favour_the_atari_that_starts_a_working_ladder() -> None:
    open_ = with_stone(LADDER, 2, 3, ".")  # White to play D7 (or E6) at Black's two liberties
    d7 = FastBoard(9).geo.index((6, 3))
    caught = board_of(open_, WHITE)
    broken = board_of(with_stone(open_, 6, 6, "X"), WHITE)
    [working] = values(caught, [d7])
    [plain] = values(broken, [d7])
    assert working > plain
    assert values(caught, [d7], "ladder_atari=0") == [plain]


@pytest.mark.parametrize("seed", range(5))
def test_the_ladders_policy_runs_only_where_the_ladder_is_broken(seed: int) -> None:
    e6 = FastBoard(9).geo.index((5, 4))
    moves = {}
    for name, diagram in (("caught", LADDER), ("broken", with_stone(LADDER, 6, 6, "X"))):
        for policy in ("default", "ladders"):
            board = board_of(with_stone(diagram, 2, 3, "."), WHITE)
            board.play(board.geo.index((6, 3)), WHITE)  # D7 puts D6 in atari
            PLAYOUTS[policy](board, random.Random(seed).random, 1)
            moves[name, policy] = board.last_move
    # the default policy runs either way; the ladder reader only where it escapes
    assert moves["caught", "default"] == moves["broken", "default"] == e6
    assert moves["broken", "ladders"] == e6
    assert moves["caught", "ladders"] != e6
