"""The engine's fast board agrees with the reference rules board, move for move."""

from __future__ import annotations

import random
import textwrap

import pytest

from engines.mcts.fastboard import (
    BLACK,
    EMPTY,
    LIB_COUNT,
    LIB_MASK,
    LIB_SHIFT,
    NATIVE,
    PASS,
    SQUARES_MASK,
    WHITE,
    FastBoard,
    IllegalPlay,
    geometry,
    score_terminal,
)
from engines.mcts.policy import playout_light
from engines.mcts.tactics import has_two_liberties, lone_liberty
from gtp.board import Board
from gtp.vertex import Colour, parse_vertex

CODE = {Colour.BLACK: BLACK, Colour.WHITE: WHITE}


def fast_from(diagram: str, to_move: int = BLACK) -> FastBoard:
    """A fast board from a diagram drawn top row first: X black, O white, . empty."""
    rows = [line.split() for line in textwrap.dedent(diagram).strip().splitlines()]
    size = len(rows)
    board = FastBoard(size)
    geo = board.geo
    stones: dict[str, list[int]] = {"X": [], "O": []}
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            if cell in stones:
                stones[cell].append(geo.index((size - 1 - r, c)))
    board.setup(black=stones["X"], white=stones["O"])
    board.to_move = to_move
    return board


def assert_consistent(board: FastBoard, *, patterns: bool = True) -> None:
    """Chains, liberty keys, the empty list and 3x3 codes match a recount."""
    color = board.color
    nb = board.geo.neighbours
    seen: set[int] = set()
    for p in board.geo.points:
        if color[p] not in (BLACK, WHITE) or p in seen:
            continue
        chain = [p]
        seen.add(p)
        for s in chain:
            for q in nb[s]:
                if color[q] == color[p] and q not in seen:
                    seen.add(q)
                    chain.append(q)
        head = board.head[p]
        assert {board.head[s] for s in chain} == {head}
        assert sorted(board.chain(p)) == sorted(chain)
        assert board.csize[head] == len(chain)
        pseudo = [q for s in chain for q in nb[s] if color[q] == EMPTY]
        key = board.lkey[head]
        if NATIVE:  # the liberty key
            assert key >> LIB_COUNT == len(pseudo)
            assert key & LIB_MASK == sum(pseudo)
            assert key >> LIB_SHIFT & SQUARES_MASK == sum(q * q for q in pseudo)
        else:  # interpreted, the count alone
            assert key == len(pseudo)
        libs = set(pseudo)
        lone = min(libs) if len(libs) == 1 else 0
        assert lone_liberty(head, color, board.nxt, board.lkey, nb) == lone
        for x in libs:
            two = has_two_liberties(head, color, board.head, board.nxt, board.lkey, nb, x)
            assert two == (len(libs) > 2)
    assert sorted(board.empties) == [p for p in board.geo.points if color[p] == EMPTY]
    assert all(board.epos[p] == i for i, p in enumerate(board.empties))
    if patterns:
        codes = board.pat[:]
        board._compute_patterns()
        assert codes == board.pat


def assert_same(fast: FastBoard, ref: Board) -> None:
    geo = fast.geo
    for p in geo.points:
        stone = ref.get(geo.point(p))
        assert fast.color[p] == (EMPTY if stone is None else CODE[stone])
    for colour in Colour:
        for p in geo.points:
            assert fast.is_legal(p, CODE[colour]) == ref.is_legal(colour, geo.point(p)), (
                geo.point(p),
                colour,
            )


@pytest.mark.parametrize(
    ("size", "seed"), [(2, 1), (3, 2), (5, 3), (7, 4), (9, 5), (9, 6), (13, 7)]
)
def test_random_games_match_the_reference_board(size: int, seed: int) -> None:
    rng = random.Random(seed)
    fast = FastBoard(size)
    ref = Board(size)
    geo = fast.geo
    colour = Colour.BLACK
    for move_number in range(size * size * 3):
        if rng.random() < 0.1:
            colour = colour.opponent  # same colour twice, as GTP allows
        legal = [p for p in geo.points if ref.is_legal(colour, geo.point(p))]
        if not legal or rng.random() < 0.03:
            ref.play(colour, None)
            assert fast.play(PASS, CODE[colour]) == 0
        else:
            p = rng.choice(legal)
            captured = ref.play(colour, geo.point(p))
            assert fast.play(p, CODE[colour]) == len(captured)
        assert fast.hash == _hash_of(fast)
        colour = colour.opponent
        if move_number % 5 == 0:
            assert_same(fast, ref)
            assert_consistent(fast)
    assert_same(fast, ref)
    black, white = ref.area_counts()
    assert fast.area_score() == black - white


@pytest.mark.parametrize("size", [19, 25])
def test_liberty_keys_stay_exact_on_big_boards(size: int) -> None:
    """The keys' parts stay apart on the biggest boards (see LIB_COUNT): random legal
    plays, the light playout's moves, with captures, checked against a recount."""
    rng = random.Random(size)
    board = FastBoard(size)
    for _ in range(3):
        for _ in range(size * size):
            playout_light(board, rng.random, 1)
        assert_consistent(board, patterns=False)
    stones = sum(1 for p in board.geo.points if board.color[p])
    assert stones > size * size // 2


def _hash_of(board: FastBoard) -> int:
    """The Zobrist hash recomputed from the stones."""
    value = 0
    for p in board.geo.points:
        value ^= board.geo.zobrist[board.color[p]][p]
    return value


def test_illegal_plays_raise_and_change_nothing() -> None:
    board = fast_from(
        """
        . X O .
        X O . O
        . X O .
        X . X .
        """
    )
    geo = board.geo
    before = board.color[:]
    with pytest.raises(IllegalPlay):
        board.play(geo.index((3, 1)), WHITE)  # occupied
    with pytest.raises(IllegalPlay):
        board.play(geo.index((0, 1)), WHITE)  # suicide in Black's eye
    assert board.color == before
    # Black takes the ko, White may not retake at once, but may after a pass
    assert board.play(geo.index((2, 2)), BLACK) == 1
    ko_point = geo.index((2, 1))
    assert not board.is_legal(ko_point, WHITE)
    with pytest.raises(IllegalPlay):
        board.play(ko_point, WHITE)
    board.play(PASS, WHITE)
    board.play(PASS, BLACK)
    assert board.is_legal(ko_point, WHITE)
    assert board.play(ko_point, WHITE) == 1


def test_setup_stones_build_chains_and_reject_dead_chains() -> None:
    board = fast_from(
        """
        X X .
        O O .
        . . .
        """
    )
    assert_consistent(board)
    geo = geometry(3)
    with pytest.raises(ValueError, match="liberties"):
        FastBoard(3).setup(black=[geo.index((0, 0))], white=[geo.index((0, 1)), geo.index((1, 0))])


def test_terminal_score_counts_stones_and_eyes() -> None:
    board = fast_from(
        """
        . X O .
        X X O O
        X . O O
        X X O .
        """
    )
    # Black: 6 stones + 1 eye; White: 6 stones + 2 eyes; C2 touches both colours
    assert score_terminal(board) == board.area_score() == 7 - 8


def test_playout_from_a_board_leaves_it_consistent() -> None:
    rng = random.Random(3)
    board = FastBoard(9)
    playout_light(board, rng.random, 0)
    assert board.passes == 2
    for p in board.geo.points:
        if board.color[p] == EMPTY:
            # only eyes (or seki points) are left at the end
            assert any(board.color[q] != EMPTY for q in board.geo.neighbours[p])


@pytest.mark.parametrize("vertex", ["A1", "J9", "E5", "A9", "J1"])
def test_index_and_point_round_trip(vertex: str) -> None:
    geo = geometry(9)
    point = parse_vertex(vertex, 9)
    assert point is not None
    assert geo.point(geo.index(point)) == point
    with pytest.raises(ValueError):
        geo.point(PASS)
