"""Tests for gtp.board: captures, ko and superko, suicide, undo, scoring, handicap."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gtp.board import (
    Board,
    IllegalMove,
    KoRule,
    fixed_handicap_points,
    format_score,
    max_fixed_handicap,
)
from gtp.vertex import Colour, Point, format_vertex, parse_vertex

B = Colour.BLACK
W = Colour.WHITE


def board_from(diagram: str, **options: Any) -> Board:
    """A board from a diagram drawn top row first: X black, O white, . empty."""
    rows = [line.split() for line in textwrap.dedent(diagram).strip().splitlines()]
    size = len(rows)
    assert all(len(row) == size for row in rows), "diagram must be square"
    board = Board(size, **options)
    for mark, colour in (("X", B), ("O", W)):
        points = [
            (size - 1 - r, c)
            for r, row in enumerate(rows)
            for c, cell in enumerate(row)
            if cell == mark
        ]
        if points:
            board.set_stones(colour, points)
    return board


def pt(board: Board, vertex: str) -> Point:
    point = parse_vertex(vertex, board.size)
    assert point is not None
    return point


def play(board: Board, colour: Colour, vertex: str) -> set[str]:
    """Play a GTP vertex; return the captured vertices."""
    point = None if vertex == "pass" else pt(board, vertex)
    return {format_vertex(p, board.size) for p in board.play(colour, point)}


def stones_of(board: Board, colour: Colour) -> set[str]:
    return {format_vertex(p, board.size) for p in board.stones(colour)}


def snapshot(board: Board) -> tuple[object, ...]:
    """Everything a user can observe about a board."""
    return (
        board.ascii(),
        board.zobrist_hash,
        dict(board.captures),
        board.ko_point,
        board.moves_played,
        board.moves,
    )


# --------------------------------------------------------------------------
# Captures

CAPTURE_CASES = [
    pytest.param(
        """
        . . . . .
        . . X . .
        . X O . .
        . . X . .
        . . . . .
        """,
        B,
        "D3",
        {"C3"},
        id="single-stone-centre",
    ),
    pytest.param(
        """
        . . . . .
        . . . . .
        . . . . .
        X . . . .
        O . . . .
        """,
        B,
        "B1",
        {"A1"},
        id="corner-from-the-side",
    ),
    pytest.param(
        """
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        O X . . .
        """,
        B,
        "A2",
        {"A1"},
        id="corner-from-above",
    ),
    pytest.param(
        """
        . . . . .
        . . . . .
        . . . . .
        X . . . .
        O . . . .
        """,
        B,
        "C1",
        set(),
        id="corner-stone-keeps-its-liberty",
    ),
    pytest.param(
        """
        . . . . .
        . . . . .
        . . . . .
        . X X . .
        X O O . .
        """,
        B,
        "D1",
        {"B1", "C1"},
        id="two-stones-on-edge",
    ),
    pytest.param(
        """
        . . . . .
        X X X . .
        O O O X .
        O O O X .
        O O O . .
        """,
        B,
        "D1",
        {"A1", "B1", "C1", "A2", "B2", "C2", "A3", "B3", "C3"},
        id="nine-stone-chain",
    ),
    pytest.param(
        """
        . . . . .
        X X X . .
        O O O X .
        O O O X .
        O O O . .
        """,
        B,
        "E1",
        set(),
        id="nine-stone-chain-not-touched",
    ),
    pytest.param(
        """
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .
        """,
        B,
        "C4",
        {"B4"},
        id="ko-shape-capture",
    ),
    pytest.param(
        """
        . . . . .
        . . . . .
        O O . . .
        X X O . .
        . X O . .
        """,
        W,
        "A1",
        {"A2", "B2", "B1"},
        id="play-without-liberties-that-captures",
    ),
    pytest.param(
        """
        . . . . . . .
        . . . X . . .
        . . X O X . .
        . X O . O X .
        . . X O X . .
        . . . X . . .
        . . . . . . .
        """,
        B,
        "D4",
        {"C4", "E4", "D5", "D3"},
        id="four-chains-at-once",
    ),
]


@pytest.mark.parametrize(("diagram", "colour", "vertex", "captured"), CAPTURE_CASES)
def test_captures(diagram: str, colour: Colour, vertex: str, captured: set[str]) -> None:
    board = board_from(diagram)
    opponent_before = stones_of(board, colour.opponent)
    assert play(board, colour, vertex) == captured
    assert stones_of(board, colour.opponent) == opponent_before - captured
    assert board.get(pt(board, vertex)) is colour
    assert board.captures[colour] == len(captured)
    assert board.captures[colour.opponent] == 0


def test_snapback() -> None:
    board = board_from(
        """
        . . . . .
        . . . . .
        O O O . .
        X X X O .
        . . X O .
        """
    )
    assert play(board, W, "B1") == set()
    assert play(board, B, "A1") == {"B1"}
    # Not a ko: the capturing stone joined a chain, so White may retake at once.
    assert board.ko_point is None
    assert play(board, W, "B1") == {"A1", "A2", "B2", "C2", "C1"}
    assert stones_of(board, B) == set()
    assert board.captures == {B: 1, W: 5}


# --------------------------------------------------------------------------
# Ko

KO_DIAGRAM = """
    . . . . .
    . . . . .
    . X O . .
    X O . O .
    . X O . .
    """


def test_simple_ko_recapture_refused_then_allowed_after_a_move_elsewhere() -> None:
    board = board_from(KO_DIAGRAM)
    assert play(board, B, "C2") == {"B2"}
    assert board.ko_point == pt(board, "B2")
    assert board.legality(W, pt(board, "B2")) == "ko"
    with pytest.raises(IllegalMove) as caught:
        play(board, W, "B2")
    assert caught.value.reason == "ko"
    play(board, W, "E5")
    play(board, B, "E1")
    assert play(board, W, "B2") == {"C2"}
    # And now the same holds the other way round.
    assert board.legality(B, pt(board, "C2")) == "ko"


@pytest.mark.parametrize(
    ("between", "recapture_reason"),
    [
        pytest.param([], "ko", id="immediately"),
        pytest.param([(W, "pass"), (B, "pass")], None, id="after-two-passes"),
        pytest.param([(W, "E5")], None, id="after-white-moved-elsewhere"),
        pytest.param([(B, "E5")], None, id="after-black-moved-again"),
    ],
)
def test_ko_lasts_exactly_one_turn(
    between: list[tuple[Colour, str]], recapture_reason: str | None
) -> None:
    board = board_from(KO_DIAGRAM)
    play(board, B, "C2")
    for colour, vertex in between:
        play(board, colour, vertex)
    assert board.legality(W, pt(board, "B2")) == recapture_reason


def test_ko_point_only_binds_the_opponent() -> None:
    board = board_from(KO_DIAGRAM)
    play(board, B, "C2")
    assert board.legality(B, pt(board, "B2")) is None  # Black may fill the ko


def test_capturing_two_stones_makes_no_ko() -> None:
    board = board_from(
        """
        . . . . .
        . X O . .
        X O . O .
        X O . O .
        . X O . .
        """
    )
    assert play(board, B, "C3") == set()
    assert play(board, B, "C2") == {"B3", "B2"}
    assert board.ko_point is None
    assert board.legality(W, pt(board, "B2")) is None


# A triple ko: each of the three kos can be taken by either side in turn.
# Ko 1 is B2/C2 (White stone in it), ko 2 is F2/G2 (Black stone), ko 3 is
# B6/C6 (White stone).
TRIPLE_KO = """
    . . . . . . . . .
    . . . . . . . . .
    . X O . . . . . .
    X O . O . . . . .
    . X O . . . . . .
    . . . . . . . . .
    . X O . . X O . .
    X O . O X . X O .
    . X O . . X O . .
    """

TRIPLE_KO_CYCLE = [(B, "C2"), (W, "F2"), (B, "C6"), (W, "B2"), (B, "G2"), (W, "B6")]


@pytest.mark.parametrize(
    ("ko_rule", "last_move_reason"),
    [
        (KoRule.SIMPLE, None),
        (KoRule.POSITIONAL, "superko"),
        (KoRule.SITUATIONAL, "superko"),
    ],
)
def test_triple_ko_cycle(ko_rule: KoRule, last_move_reason: str | None) -> None:
    board = board_from(TRIPLE_KO, ko_rule=ko_rule)
    start = board.zobrist_hash
    *first_five, (colour, vertex) = TRIPLE_KO_CYCLE
    for mover, move in first_five:
        assert len(play(board, mover, move)) == 1
    assert board.legality(colour, pt(board, vertex)) == last_move_reason
    if last_move_reason is None:
        play(board, colour, vertex)
        assert board.zobrist_hash == start
    else:
        before = snapshot(board)
        with pytest.raises(IllegalMove, match="superko"):
            play(board, colour, vertex)
        assert snapshot(board) == before


@pytest.mark.parametrize(
    ("ko_rule", "last_move_reason"),
    [
        (KoRule.SIMPLE, None),
        (KoRule.POSITIONAL, "superko"),
        # The start position recurs, but with White to move instead of Black.
        (KoRule.SITUATIONAL, None),
    ],
)
def test_situational_superko_differs_from_positional(
    ko_rule: KoRule, last_move_reason: str | None
) -> None:
    board = board_from(TRIPLE_KO, ko_rule=ko_rule)
    for colour, vertex in [(B, "C2"), (W, "F2"), (B, "pass"), (W, "B2")]:
        play(board, colour, vertex)
    assert board.legality(B, pt(board, "G2")) == last_move_reason


def test_superko_on_a_tiny_board_with_a_multi_stone_capture() -> None:
    # The last move takes three stones (no simple ko) yet repeats move 1's position.
    moves = [(B, "A1"), (W, "B2"), (B, "B1"), (W, "A2"), (B, "A1"), (W, "B1")]
    for rule, expected in [
        (KoRule.SIMPLE, None),
        (KoRule.POSITIONAL, "superko"),
        (KoRule.SITUATIONAL, "superko"),
    ]:
        board = Board(2, ko_rule=rule)
        for colour, vertex in moves:
            play(board, colour, vertex)
        assert board.legality(B, pt(board, "A1")) == expected, rule


def test_passes_never_violate_superko() -> None:
    board = Board(5, ko_rule=KoRule.POSITIONAL)
    for _ in range(4):
        assert board.play(B, None) == []
        assert board.play(W, None) == []
    assert board.is_legal(B, None)
    assert board.moves_played == 8


def test_undo_forgets_positions_for_superko() -> None:
    board = board_from(TRIPLE_KO, ko_rule=KoRule.POSITIONAL)
    for colour, vertex in TRIPLE_KO_CYCLE[:5]:
        play(board, colour, vertex)
    for _ in range(5):
        board.undo()
    # Replaying is legal: the undone positions are forgotten, the start is not.
    for colour, vertex in TRIPLE_KO_CYCLE[:5]:
        play(board, colour, vertex)
    assert board.legality(W, pt(board, "B6")) == "superko"


# --------------------------------------------------------------------------
# Suicide, occupied, off board

SINGLE_SUICIDE = """
    . . .
    O . .
    . O .
    """

MULTI_SUICIDE = """
    O . . .
    X O . .
    . O . .
    O . . .
    """


@pytest.mark.parametrize(
    ("diagram", "vertex"),
    [
        pytest.param(SINGLE_SUICIDE, "A1", id="single-stone"),
        pytest.param(MULTI_SUICIDE, "A2", id="two-stones"),
    ],
)
def test_suicide_forbidden(diagram: str, vertex: str) -> None:
    board = board_from(diagram)
    before = snapshot(board)
    assert board.legality(B, pt(board, vertex)) == "suicide"
    with pytest.raises(IllegalMove) as caught:
        play(board, B, vertex)
    assert caught.value.reason == "suicide"
    assert str(caught.value) == "suicide"
    assert snapshot(board) == before


@pytest.mark.parametrize(
    ("diagram", "vertex", "own_stones_lost"),
    [
        pytest.param(SINGLE_SUICIDE, "A1", {"A1"}, id="single-stone"),
        pytest.param(MULTI_SUICIDE, "A2", {"A2", "A3"}, id="two-stones"),
    ],
)
def test_suicide_allowed_removes_own_chain(
    diagram: str, vertex: str, own_stones_lost: set[str]
) -> None:
    board = board_from(diagram, allow_suicide=True)
    before = snapshot(board)
    black_before = stones_of(board, B)
    white_before = stones_of(board, W)
    assert play(board, B, vertex) == own_stones_lost
    assert stones_of(board, B) == black_before - own_stones_lost
    assert stones_of(board, W) == white_before
    assert board.captures == {B: 0, W: len(own_stones_lost)}
    rebuilt = Board(board.size)
    rebuilt.set_stones(B, board.stones(B))
    rebuilt.set_stones(W, board.stones(W))
    assert board.zobrist_hash == rebuilt.zobrist_hash
    board.undo()
    assert snapshot(board) == before


def test_suicide_allowed_still_repeats_the_position_under_positional_superko() -> None:
    board = board_from(SINGLE_SUICIDE, allow_suicide=True, ko_rule=KoRule.POSITIONAL)
    assert board.legality(B, pt(board, "A1")) == "superko"
    # Situational: the same stones with the other player to move is new.
    board = board_from(SINGLE_SUICIDE, allow_suicide=True, ko_rule=KoRule.SITUATIONAL)
    assert board.legality(B, pt(board, "A1")) is None


@pytest.mark.parametrize("colour", [B, W])
@pytest.mark.parametrize("vertex", ["B2", "C3"])
def test_occupied(colour: Colour, vertex: str) -> None:
    board = board_from(
        """
        . . O
        . X .
        . . .
        """
    )
    before = snapshot(board)
    assert board.legality(colour, pt(board, vertex)) == "occupied"
    with pytest.raises(IllegalMove) as caught:
        play(board, colour, vertex)
    assert caught.value.reason == "occupied"
    assert snapshot(board) == before


@pytest.mark.parametrize("point", [(5, 0), (0, 5), (-1, 2), (2, -1), (9, 9)])
def test_off_board(point: Point) -> None:
    board = Board(5)
    assert board.legality(B, point) == "off board"
    assert not board.is_legal(B, point)
    with pytest.raises(IllegalMove, match="off board"):
        board.play(B, point)
    with pytest.raises(ValueError):
        board.get(point)
    assert board.moves_played == 0


def test_illegal_move_is_a_value_error() -> None:
    assert issubclass(IllegalMove, ValueError)


def test_legality_checks_change_nothing() -> None:
    board = board_from(KO_DIAGRAM)
    before = snapshot(board)
    for point in [*board.empty_points(), None]:
        for colour in (B, W):
            board.legality(colour, point)
    assert snapshot(board) == before


def test_two_moves_of_the_same_colour_are_allowed() -> None:
    board = Board(5)
    play(board, W, "A1")
    play(board, W, "B1")
    assert stones_of(board, W) == {"A1", "B1"}


# --------------------------------------------------------------------------
# Undo and copy


def test_undo_restores_everything() -> None:
    board = board_from(KO_DIAGRAM)
    moves = [(B, "C2"), (W, "E5"), (B, "pass"), (W, "B2"), (B, "A5"), (W, "D1"), (B, "E1")]
    history = [snapshot(board)]
    for colour, vertex in moves:
        play(board, colour, vertex)
        history.append(snapshot(board))
    assert board.captures == {B: 1, W: 1}
    for expected in reversed(history[:-1]):
        board.undo()
        assert snapshot(board) == expected
    # The ko state came back with the position: after redoing the capture the
    # recapture is refused again.
    play(board, B, "C2")
    assert board.legality(W, pt(board, "B2")) == "ko"
    board.undo()
    with pytest.raises(ValueError, match="cannot undo"):
        board.undo()


def test_undo_restores_the_ko_point_of_an_earlier_capture() -> None:
    board = board_from(KO_DIAGRAM)
    play(board, B, "C2")
    play(board, W, "E5")
    assert board.ko_point is None
    board.undo()
    assert board.ko_point == pt(board, "B2")
    assert board.legality(W, pt(board, "B2")) == "ko"


def test_copy_is_independent() -> None:
    board = board_from(KO_DIAGRAM)
    play(board, B, "C2")
    twin = board.copy()
    assert snapshot(twin) == snapshot(board)
    assert twin.legality(W, pt(twin, "B2")) == "ko"
    play(twin, W, "E5")
    play(twin, B, "A1")
    assert board.moves_played == 1
    assert board.get(pt(board, "A1")) is None
    assert board.ko_point == pt(board, "B2")
    play(board, W, "D1")
    assert twin.get(pt(twin, "D1")) is None
    twin.undo()
    twin.undo()
    twin.undo()
    assert board.moves_played == 2


# --------------------------------------------------------------------------
# Zobrist hash


def test_hash_depends_on_the_position_not_the_move_order() -> None:
    first = Board(9)
    second = Board(9)
    for colour, vertex in [(B, "D4"), (W, "E5"), (B, "C3"), (W, "F6")]:
        play(first, colour, vertex)
    for colour, vertex in [(B, "C3"), (W, "F6"), (W, "E5"), (B, "D4")]:
        play(second, colour, vertex)
    assert first.zobrist_hash == second.zobrist_hash
    setup = Board(9)
    setup.set_stones(B, [pt(setup, "D4"), pt(setup, "C3")])
    setup.set_stones(W, [pt(setup, "E5"), pt(setup, "F6")])
    assert setup.zobrist_hash == first.zobrist_hash
    swapped = Board(9)
    swapped.set_stones(W, [pt(setup, "D4"), pt(setup, "C3")])
    swapped.set_stones(B, [pt(setup, "E5"), pt(setup, "F6")])
    assert swapped.zobrist_hash != first.zobrist_hash


def test_hash_after_capture_equals_hash_of_the_remaining_stones() -> None:
    board = board_from(KO_DIAGRAM)
    play(board, B, "C2")
    rebuilt = Board(5)
    rebuilt.set_stones(B, board.stones(B))
    rebuilt.set_stones(W, board.stones(W))
    assert rebuilt.zobrist_hash == board.zobrist_hash
    assert Board(5).zobrist_hash != board.zobrist_hash


def test_hash_is_the_same_in_every_board_of_a_size() -> None:
    assert Board(19).zobrist_hash == Board(19).zobrist_hash == 0
    one, two = Board(19), Board(19)
    play(one, B, "Q16")
    play(two, B, "Q16")
    assert one.zobrist_hash == two.zobrist_hash != 0


# --------------------------------------------------------------------------
# Random games checked against a slow, obviously correct model


def _slow_chains(board: Board) -> list[tuple[Colour, set[Point], set[Point]]]:
    """Every chain as (colour, stones, liberties), found without the board's helpers."""
    size = board.size
    seen: set[Point] = set()
    chains = []
    for row in range(size):
        for col in range(size):
            colour = board.get((row, col))
            if colour is None or (row, col) in seen:
                continue
            stones, liberties, todo = set(), set(), [(row, col)]
            while todo:
                r, c = todo.pop()
                if (r, c) in stones:
                    continue
                stones.add((r, c))
                for q in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if 0 <= q[0] < size and 0 <= q[1] < size:
                        if board.get(q) is None:
                            liberties.add(q)
                        elif board.get(q) is colour:
                            todo.append(q)
            seen |= stones
            chains.append((colour, stones, liberties))
    return chains


@settings(max_examples=150, deadline=None)
@given(
    size=st.integers(2, 5),
    allow_suicide=st.booleans(),
    ko_rule=st.sampled_from(list(KoRule)),
    moves=st.lists(st.integers(-1, 24), max_size=80),
)
def test_random_play_keeps_the_board_consistent(
    size: int, allow_suicide: bool, ko_rule: KoRule, moves: list[int]
) -> None:
    board = Board(size, ko_rule=ko_rule, allow_suicide=allow_suicide)
    colour = B
    history = [snapshot(board)]
    for move in moves:
        point = None if move < 0 else divmod(move % (size * size), size)
        reason = board.legality(colour, point)
        before = snapshot(board)
        stones_before = {p: board.get(p) for p in board.stones(B) + board.stones(W)}
        if reason is not None:
            with pytest.raises(IllegalMove):
                board.play(colour, point)
            assert snapshot(board) == before
            continue
        captured = board.play(colour, point)
        # Only stones that were there can be captured, and none of the mover's
        # unless it was a suicide of the chain through the new stone.
        suicide = point in captured
        for p in captured:
            assert board.get(p) is None
            if p != point:
                assert stones_before[p] is (colour if suicide else colour.opponent)
        assert suicide or point is None or board.get(point) is colour
        chains = _slow_chains(board)
        assert all(liberties for _, _, liberties in chains), board.ascii()
        rebuilt = Board(size)
        rebuilt.set_stones(B, board.stones(B))
        rebuilt.set_stones(W, board.stones(W))
        assert rebuilt.zobrist_hash == board.zobrist_hash
        history.append(snapshot(board))
        colour = colour.opponent
    clone = board.copy()
    for expected in reversed(history[:-1]):
        clone.undo()
        assert snapshot(clone) == expected
    assert snapshot(board) == history[-1]


# --------------------------------------------------------------------------
# Scoring

SCORE_CASES = [
    pytest.param(
        """
        . . .
        . . .
        . . .
        """,
        7.5,
        0,
        7.5,
        "W+7.5",
        id="empty-board-is-neutral",
    ),
    pytest.param(
        """
        . X . O .
        . X . O .
        . X . O .
        . X . O .
        . X . O .
        """,
        0.5,
        0,
        0.5,
        "W+0.5",
        id="dame-column-counts-for-nobody",
    ),
    pytest.param(
        """
        . . X O .
        . . X O .
        . . X O .
        . . X O .
        . . X O .
        """,
        0.5,
        0,
        -4.5,
        "B+4.5",
        id="black-wins-with-bigger-area",
    ),
    pytest.param(
        """
        . X O . .
        X X O . .
        O O O . .
        . . . . .
        . . . . .
        """,
        0,
        0,
        21 - 4,
        "W+17",
        id="one-eye-counts-for-its-owner",
    ),
    pytest.param(
        # Corner seki: A2 and B1 are liberties shared by Black's and White's
        # inner stones, so they count for nobody; every stone counts.
        """
        . . . . .
        O O O O .
        X X X O .
        . O X O .
        O . X O .
        """,
        0,
        0,
        18 - 5,
        "W+13",
        id="seki-shared-liberties-are-neutral",
    ),
    pytest.param(
        """
        X . .
        . . .
        . . .
        """,
        0,
        0,
        -9,
        "B+9",
        id="one-stone-owns-the-empty-board",
    ),
    pytest.param(
        """
        X . O
        . . .
        . . .
        """,
        0.5,
        3,
        3.5,
        "W+3.5",
        id="handicap-compensation-goes-to-white",
    ),
    pytest.param(
        """
        X X . O O
        X X . O O
        X X . O O
        X X . O O
        X X . O O
        """,
        0,
        0,
        0,
        "0",
        id="jigo",
    ),
]


@pytest.mark.parametrize(("diagram", "komi", "compensation", "score", "text"), SCORE_CASES)
def test_area_score(
    diagram: str, komi: float, compensation: float, score: float, text: str
) -> None:
    board = board_from(diagram)
    assert board.area_score(komi, handicap_compensation=compensation) == score
    assert format_score(board.area_score(komi, handicap_compensation=compensation)) == text


@pytest.mark.parametrize(
    ("score", "text"),
    [
        (2.5, "W+2.5"),
        (-31.0, "B+31"),
        (-31, "B+31"),
        (0.0, "0"),
        (-0.0, "0"),
        (0.5, "W+0.5"),
        (-0.5, "B+0.5"),
        (7.25, "W+7.25"),
        (361.0, "W+361"),
        (-1000.5, "B+1000.5"),
    ],
)
def test_format_score(score: float, text: str) -> None:
    assert format_score(score) == text


# --------------------------------------------------------------------------
# Handicap

SPEC_HANDICAP = {
    9: {
        2: "C3 G7",
        3: "C3 G7 C7",
        4: "C3 G7 C7 G3",
        5: "C3 G7 C7 G3 E5",
        6: "C3 G7 C7 G3 C5 G5",
        7: "C3 G7 C7 G3 C5 G5 E5",
        8: "C3 G7 C7 G3 C5 G5 E3 E7",
        9: "C3 G7 C7 G3 C5 G5 E3 E7 E5",
    },
    13: {
        2: "D4 K10",
        3: "D4 K10 D10",
        4: "D4 K10 D10 K4",
        5: "D4 K10 D10 K4 G7",
        6: "D4 K10 D10 K4 D7 K7",
        7: "D4 K10 D10 K4 D7 K7 G7",
        8: "D4 K10 D10 K4 D7 K7 G4 G10",
        9: "D4 K10 D10 K4 D7 K7 G4 G10 G7",
    },
    19: {
        2: "D4 Q16",
        3: "D4 Q16 D16",
        4: "D4 Q16 D16 Q4",
        5: "D4 Q16 D16 Q4 K10",
        6: "D4 Q16 D16 Q4 D10 Q10",
        7: "D4 Q16 D16 Q4 D10 Q10 K10",
        8: "D4 Q16 D16 Q4 D10 Q10 K4 K16",
        9: "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10",
    },
}


@pytest.mark.parametrize(
    ("size", "stones", "expected"),
    [(size, n, text) for size, table in SPEC_HANDICAP.items() for n, text in table.items()],
)
def test_fixed_handicap_matches_the_spec_table(size: int, stones: int, expected: str) -> None:
    points = fixed_handicap_points(size, stones)
    vertices = [format_vertex(p, size) for p in points]
    assert len(vertices) == len(set(vertices)) == stones
    assert set(vertices) == set(expected.split())


@pytest.mark.parametrize(
    ("size", "limit"),
    [
        (2, 0),
        (5, 0),
        (6, 0),
        (7, 4),
        (8, 4),
        (9, 9),
        (10, 4),
        (11, 9),
        (12, 4),
        (13, 9),
        (19, 9),
        (24, 4),
        (25, 9),
    ],
)
def test_max_fixed_handicap(size: int, limit: int) -> None:
    assert max_fixed_handicap(size) == limit
    if limit:
        assert len(fixed_handicap_points(size, limit)) == limit
        with pytest.raises(ValueError):
            fixed_handicap_points(size, limit + 1)


@pytest.mark.parametrize(
    ("size", "stones"),
    [
        (19, 0),
        (19, 1),
        (19, 10),
        (19, -2),
        (9, 10),
        (8, 5),
        (7, 5),
        (10, 9),
        (6, 2),
        (5, 2),
        (2, 2),
        (26, 2),
        (1, 2),
    ],
)
def test_invalid_fixed_handicap(size: int, stones: int) -> None:
    with pytest.raises(ValueError):
        fixed_handicap_points(size, stones)


@pytest.mark.parametrize("size", range(7, 26))
def test_fixed_handicap_lines(size: int) -> None:
    line = 2 if size < 13 else 3
    for stones in range(2, max_fixed_handicap(size) + 1):
        for row, col in fixed_handicap_points(size, stones):
            assert min(row, col) >= line and max(row, col) <= size - 1 - line
            assert {row, col} <= {line, size // 2, size - 1 - line}


def test_place_handicap() -> None:
    board = Board(19, ko_rule=KoRule.POSITIONAL)
    board.place_handicap(fixed_handicap_points(19, 4))
    assert stones_of(board, B) == {"D4", "Q16", "D16", "Q4"}
    assert board.handicap_stones == 4
    assert board.moves_played == 0
    with pytest.raises(ValueError, match="cannot undo"):
        board.undo()
    with pytest.raises(ValueError, match="board not empty"):
        board.place_handicap(fixed_handicap_points(19, 2))
    play(board, W, "K10")
    board.undo()
    assert stones_of(board, B) == {"D4", "Q16", "D16", "Q4"}
    assert board.area_score(0.5, handicap_compensation=4) == 4.5 - 361


@pytest.mark.parametrize(
    "points",
    [
        [(3, 3)],
        [(3, 3), (3, 3)],
        [(3, 3), (98, 25)],
        [(r, c) for r in range(19) for c in range(19)],
    ],
)
def test_place_handicap_rejects_bad_lists(points: list[Point]) -> None:
    board = Board(19)
    with pytest.raises(ValueError):
        board.place_handicap(points)
    assert board.is_empty()


def test_setup_stones_start_the_superko_history() -> None:
    board = Board(2, ko_rule=KoRule.POSITIONAL, allow_suicide=True)
    board.set_stones(B, [pt(board, "A1")])
    for colour, vertex in [(W, "B2"), (B, "pass"), (W, "A2"), (B, "pass")]:
        play(board, colour, vertex)
    assert play(board, W, "B1") == {"A1"}
    # Taking the three white stones would bring back the setup position...
    assert board.legality(B, pt(board, "A1")) == "superko"
    # ...while the empty board from before the setup is not in the history.
    assert board.legality(W, pt(board, "A1")) is None
    assert play(board, W, "A1") == {"A1", "A2", "B1", "B2"}
    assert board.is_empty()


def test_set_stones_rejects_dead_setups_and_late_calls() -> None:
    board = Board(3)
    board.set_stones(W, [pt(board, "A2"), pt(board, "B1")])
    with pytest.raises(ValueError, match="liberties"):
        board.set_stones(B, [pt(board, "A1")])
    assert board.get(pt(board, "A1")) is None
    with pytest.raises(ValueError, match="occupied"):
        board.set_stones(B, [pt(board, "A2")])
    play(board, B, "C3")
    with pytest.raises(ValueError, match="before the first play"):
        board.set_stones(B, [pt(board, "C1")])


# --------------------------------------------------------------------------
# Display


def test_ascii_diagram_uses_gtp_coordinates() -> None:
    board = board_from(KO_DIAGRAM)
    play(board, B, "C2")
    lines = board.ascii().splitlines()
    assert lines[0].split() == list("ABCDE")
    assert lines[-1].split() == list("ABCDE")
    assert lines[1].split() == ["5", ".", ".", ".", ".", ".", "5"]
    assert lines[4].split() == ["2", "X", "*", "X", "O", ".", "2"]
    assert lines[5].split() == ["1", ".", "X", "O", ".", ".", "1"]
    assert str(board) == board.ascii()
    assert Board(19).ascii().splitlines()[0].split() == list("ABCDEFGHJKLMNOPQRST")


def test_board_sizes() -> None:
    for size in (1, 26, 0):
        with pytest.raises(ValueError):
            Board(size)
    assert Board(25).size == 25
    assert len(Board(25).empty_points()) == 625
