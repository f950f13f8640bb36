"""Sacrifices that put a bigger chain in atari: the priors, the default and ``strict`` policies."""

from __future__ import annotations

import random
from itertools import compress

from engines.mcts.fastboard import BLACK, PASS, WHITE, FastBoard
from engines.mcts.policy import PLAYOUTS
from engines.mcts.priors import heuristic_priors, prior_weights
from engines.mcts.tactics import atari_sacrifice, self_atari
from tests.engines.test_mcts_fastboard import fast_from
from tests.engines.test_mcts_gtp import SEKI

# White A1 joins A2 and leaves the two stones one liberty, B2: a self-atari.
# It also leaves Black's B1-C1-C2 (three stones) only B2: whatever Black does
# there, the race around the corner is on.  White's other moves: B2 and A4
# (capturing A3); B5, D5 and E1 are White's own eyes.
CORNER = """
O . O . O
. O O O O
X O O O O
O . X O O
. X X O .
"""


def corner(diagram: str = CORNER) -> FastBoard:
    board = fast_from(diagram, to_move=WHITE)
    assert board.last_move == PASS  # nothing to answer: the playout's move is a random one
    return board


def at(board: FastBoard, vertex: str) -> int:
    return board.geo.index((int(vertex[1:]) - 1, "ABCDE".index(vertex[0])))


def is_self_atari(board: FastBoard, p: int) -> bool:
    b = board
    return self_atari(p, WHITE, b.color, b.head, b.nxt, b.lkey, b.csize, b.geo.neighbours)


def is_sacrifice(board: FastBoard, p: int) -> bool:
    b = board
    return atari_sacrifice(p, WHITE, b.color, b.head, b.nxt, b.csize, b.geo.neighbours)


def test_a_self_atari_that_ataris_a_bigger_chain_is_a_sacrifice() -> None:
    board = corner()
    a1 = at(board, "A1")
    assert is_self_atari(board, a1) and is_sacrifice(board, a1)
    assert not is_sacrifice(board, at(board, "B2"))  # ataris nothing


def test_risking_as_many_stones_as_the_chain_it_ataris_is_no_sacrifice() -> None:
    rows = CORNER.strip().splitlines()
    rows[3] = "O . O O O"  # C2 White: Black's chain is B1-C1, two stones, as many as A1-A2
    board = corner("\n".join(rows))
    a1 = at(board, "A1")
    assert is_self_atari(board, a1) and not is_sacrifice(board, a1)


def test_the_priors_count_a_sacrifice_as_no_loss_unless_told_to() -> None:
    board = corner()
    moves = [at(board, v) for v in ("A1", "B2")]

    def value_of_a1(weights: str) -> float:
        n, w = heuristic_priors(board, moves, 10.0, prior_weights(weights))[0]
        return w / n

    assert value_of_a1("") > 0.5  # an atari, and not a self-atari to be punished
    assert value_of_a1("sacrifice=1.5") < 0.5  # the weight the plain self-atari has
    assert value_of_a1("sacrifice=1.5") == value_of_a1("sacrifice=1.5,self_atari=1.5")


def first_moves(policy: str, seeds: int = 40) -> set[int]:
    played = set()
    for seed in range(seeds):
        board = corner()
        PLAYOUTS[policy](board, random.Random(seed).random, 1)
        played.add(board.last_move)
    return played


def test_the_default_policy_plays_the_sacrifice_and_the_strict_one_does_not() -> None:
    board = corner()
    a1, b2, a4 = (at(board, v) for v in ("A1", "B2", "A4"))
    assert first_moves("default") == {a1, b2, a4}
    assert first_moves("strict") == {b2, a4}
    assert first_moves("ladders") == {a1, b2, a4}  # the default, reading ladders too


def test_filling_a_seki_with_a_big_inner_chain_is_no_sacrifice() -> None:
    # The inner Black chain (4 stones) and the White ring (14) share E5 and F5:
    # Black at E5 would put the ring in atari, risking five stones to do it.
    seki = fast_from(SEKI, to_move=BLACK)
    e5 = seki.geo.index((4, 4))
    b = seki
    assert self_atari(e5, BLACK, b.color, b.head, b.nxt, b.lkey, b.csize, b.geo.neighbours)
    assert not atari_sacrifice(e5, BLACK, b.color, b.head, b.nxt, b.csize, b.geo.neighbours)


def test_the_rave_backup_finds_the_played_move_of_a_lone_child() -> None:
    from engines.mcts.search import _hits_getter
    from engines.mcts.tree import Node

    played = bytes([0, 0, 1, 0])
    assert list(compress([Node(2)], _hits_getter([Node(2)])(played))) != []
    assert list(compress([Node(3)], _hits_getter([Node(3)])(played))) == []
    assert _hits_getter([Node(1), Node(2)])(played) == (0, 1)
