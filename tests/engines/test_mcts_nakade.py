"""The nakade rule of the default playout policy: the vital point of a three-point eye space."""

from __future__ import annotations

import random

import pytest

from engines.mcts.fastboard import BLACK, WHITE, FastBoard
from engines.mcts.policy import PLAYOUTS, playout_default, playout_no_nakade
from engines.mcts.tactics import nakade_point
from tests.engines.test_mcts_fastboard import assert_consistent, fast_from


def vital(board: FastBoard, point: tuple[int, int]) -> tuple[int, int] | None:
    found = nakade_point(board.geo.index(point), board.color, board.geo.neighbours)
    return board.geo.point(found) if found else None


def test_the_vital_point_of_a_straight_and_a_bent_three() -> None:
    board = fast_from(
        """
        . . . X O . .
        X X X X . O .
        . . . . . . O
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        to_move=BLACK,
    )
    # A7 B7 C7 inside Black's wall: B7 from any of the three
    for point in ((6, 0), (6, 1), (6, 2)):
        assert vital(board, point) == (6, 1)
    # F7 G7 G6 (bent) inside White's stones: G7, the point next to both others
    for point in ((6, 5), (6, 6), (5, 6)):
        assert vital(board, point) == (6, 6)


def test_no_vital_point_in_bigger_smaller_or_shared_regions() -> None:
    board = fast_from(
        """
        . . . . X . .
        X X X X X . O
        . . . . . O .
        X X . . . . .
        . X . . . . .
        X X O . . . .
        . O . . . . .
        """,
        to_move=BLACK,
    )
    assert vital(board, (6, 0)) is None  # A7-D7: four points
    assert vital(board, (6, 5)) is None  # F7 G7 F6: bordered by both colours
    assert vital(board, (2, 0)) is None  # A3: one point
    assert vital(board, (0, 0)) is None  # A1: one point, bordered by both colours
    assert vital(board, (3, 3)) is None  # open board


def wall_just_closed() -> FastBoard:
    """Black has just played D7, closing a straight three (A7 B7 C7); White to move."""
    board = fast_from(
        """
        . . . . . . .
        X X X X . . .
        . . . . . . .
        . . . . . . .
        . . . . O . .
        . . . . . . .
        . . . . . . .
        """,
        to_move=BLACK,
    )
    board.play(board.geo.index((6, 3)), BLACK)
    assert board.to_move == WHITE
    return board


@pytest.mark.parametrize("name", ["default", "nakade"])
def test_the_default_policy_plays_the_vital_point_after_the_move_next_to_it(name: str) -> None:
    board = wall_just_closed()
    played_without_the_rule = 0
    for seed in range(10):
        stepped = board.copy()
        PLAYOUTS[name](stepped, random.Random(seed).random, 1)
        assert board.geo.point(stepped.last_move) == (6, 1)
        plain = board.copy()
        playout_no_nakade(plain, random.Random(seed).random, 1)
        played_without_the_rule += board.geo.point(plain.last_move) == (6, 1)
    assert played_without_the_rule < 5  # the no-nakade policy has no such rule


@pytest.mark.parametrize("seed", range(3))
def test_nakade_playouts_end_with_a_consistent_board(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(10):
        board = FastBoard(9)
        playout_default(board, rng.random, 0)
        assert board.passes == 2
        assert_consistent(board)


def reference_vital(board: FastBoard, p: int) -> int:
    """The same question by flooding the whole region (slow and plain)."""
    region = {p}
    frontier = [p]
    border = set()
    while frontier:
        for q in board.geo.neighbours[frontier.pop()]:
            if board.color[q] == 0 and q not in region:
                region.add(q)
                frontier.append(q)
            elif board.color[q] in (BLACK, WHITE):
                border.add(board.color[q])
    if len(region) != 3 or len(border) != 1:
        return 0
    (middle,) = [q for q in region if sum(r in region for r in board.geo.neighbours[q]) == 2]
    return middle


def test_the_vital_point_agrees_with_a_plain_flood_on_played_out_boards() -> None:
    rng = random.Random(4)
    found = 0
    for _ in range(60):
        board = FastBoard(9)
        playout_default(board, rng.random, int(rng.random() * 70) + 20)
        for p in board.empties:
            expected = reference_vital(board, p)
            assert nakade_point(p, board.color, board.geo.neighbours) == expected
            found += bool(expected)
    assert found  # some three-point eye spaces were met
