"""Playout policies: legal moves only, own eyes kept, local answers to the last move."""

from __future__ import annotations

import random

import pytest

from engines.mcts.fastboard import BLACK, BORDER, EMPTY, PASS, WHITE, FastBoard, score_terminal
from engines.mcts.patterns import code_of, pattern_table, random_move_tables, true_eye_tables
from engines.mcts.policy import (
    PLAYOUTS,
    FastRandom,
    Playout,
    black_result,
    playout_default,
    playout_light,
)
from engines.mcts.tactics import atari_sacrifice, holds, remove_first, self_atari
from gtp.board import Board
from gtp.vertex import Colour
from tests.engines.test_mcts_fastboard import assert_consistent, assert_same, fast_from

COLOUR = {BLACK: Colour.BLACK, WHITE: Colour.WHITE}


def own_eye_4(board: FastBoard, p: int, colour: int) -> bool:
    return all(board.color[q] in (colour, BORDER) for q in board.geo.neighbours[p])


def own_true_eye(board: FastBoard, p: int, colour: int) -> bool:
    return bool(true_eye_tables()[colour][board.pat[p]])


def refused_by_default(board: FastBoard, p: int, colour: int) -> bool:
    """The default policy keeps true eyes and refuses big self-ataris but sacrifices."""
    color, head, nxt, csize, nb = (
        board.color,
        board.head,
        board.nxt,
        board.csize,
        board.geo.neighbours,
    )
    return own_true_eye(board, p, colour) or (
        self_atari(p, colour, color, head, nxt, board.lkey, csize, nb)
        and not atari_sacrifice(p, colour, color, head, nxt, csize, nb)
    )


@pytest.mark.parametrize(
    ("policy", "is_own_eye"),
    [(playout_light, own_eye_4), (playout_default, refused_by_default)],
    ids=["light", "default"],
)
@pytest.mark.parametrize(("size", "seed"), [(5, 1), (7, 2), (9, 3), (9, 4), (13, 5)])
def test_playouts_play_legal_moves_and_refuse_what_they_must(
    policy: Playout, is_own_eye: object, size: int, seed: int
) -> None:
    rng = random.Random(seed)
    fast = FastBoard(size)
    ref = Board(size)
    check_eye = is_own_eye
    assert callable(check_eye)
    for _ in range(3 * size * size):
        if fast.passes >= 2:
            break
        mover = fast.to_move
        empty_before = set(fast.empties)
        eyes_before = {p for p in empty_before if check_eye(fast, p, mover)}
        policy(fast, rng.random, 1)  # exactly one move
        move = fast.last_move
        if move == PASS:
            # passing only when nothing but own eyes (or illegal points) is left
            playable = [p for p in empty_before if ref.is_legal(COLOUR[mover], fast.geo.point(p))]
            assert set(playable) <= eyes_before
            ref.play(COLOUR[mover], None)
        else:
            assert move in empty_before
            assert move not in eyes_before
            ref.play(COLOUR[mover], fast.geo.point(move))  # raises if illegal
        assert fast.to_move == 3 - mover
    else:
        pytest.fail("the playout did not end")
    assert_same(fast, ref)
    black, white = ref.area_counts()
    assert score_terminal(fast) == black - white


@pytest.mark.parametrize("name", sorted(PLAYOUTS))
def test_whole_playouts_keep_the_board_consistent(name: str) -> None:
    rng = random.Random(11)
    ended = 0
    for _ in range(20):
        board = FastBoard(9)
        PLAYOUTS[name](board, rng.random, 0)
        ended += board.passes == 2
        # the light playout does not maintain the 3x3 codes (nobody reads them)
        assert_consistent(board, patterns=name != "light")
    # Light playouts sometimes cycle (captures inside eyes repeat) until the move cap.
    assert ended >= (10 if name == "light" else 20)


@pytest.mark.parametrize("seed", range(5))
def test_default_policy_extends_out_of_atari(seed: int) -> None:
    board = fast_from(
        """
        . . . . . . .
        . . . . . . .
        . . O . . . .
        . O X . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        to_move=WHITE,
    )
    geo = board.geo
    board.play(geo.index((2, 2)), WHITE)  # C3 puts the black stone on C4 in atari
    playout_default(board, random.Random(seed).random, 1)
    assert board.last_move == geo.index((3, 3))  # D4, the only way out
    assert len(board.liberties(geo.index((3, 2)))) == 3


@pytest.mark.parametrize("seed", range(5))
def test_default_policy_captures_next_to_the_last_move(seed: int) -> None:
    board = fast_from(
        """
        . . . . . . .
        . . . . . . .
        . . X . . . .
        . X O X . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        to_move=WHITE,
    )
    geo = board.geo
    board.play(geo.index((2, 3)), WHITE)  # D3, diagonal to the white stone in atari on C4
    playout_default(board, random.Random(seed).random, 1)
    assert board.last_move == geo.index((2, 2))  # C3 captures
    assert board.color[geo.index((3, 2))] == EMPTY


FAR_ATARI = """
        O X . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """


@pytest.mark.parametrize("seed", range(5))
def test_captures_policy_takes_a_chain_in_atari_anywhere(seed: int) -> None:
    # Nothing answers White's lone stone far from the corner, where a white stone
    # is in atari: MoGo's third rule captures it before any random move.
    board = fast_from(FAR_ATARI, to_move=WHITE)
    geo = board.geo
    board.play(geo.index((4, 4)), WHITE)
    PLAYOUTS["captures"](board, random.Random(seed).random, 1)
    assert board.color[geo.index((6, 0))] == EMPTY  # A7 taken
    assert board.last_move == geo.index((5, 0))  # by A6


def test_default_policy_leaves_a_far_chain_in_atari_to_chance() -> None:
    takes = 0
    for seed in range(20):
        board = fast_from(FAR_ATARI, to_move=WHITE)
        board.play(board.geo.index((4, 4)), WHITE)
        playout_default(board, random.Random(seed).random, 1)
        takes += board.color[board.geo.index((6, 0))] == EMPTY
    assert takes < 5  # a random move among 45 only now and then


def test_shape_table_knows_a_hane_and_ignores_empty_space() -> None:
    table = pattern_table()
    empty = [EMPTY] * 8
    assert not table[code_of(empty)]
    # up-left own, up opponent, up-right own: "hane, both sides held"
    hane = [BLACK, WHITE, BLACK, EMPTY, EMPTY, EMPTY, EMPTY, EMPTY]
    assert table[code_of(hane)]
    # the same with the colours swapped and turned upside down
    turned = [EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, WHITE, BLACK, WHITE]
    assert table[code_of(turned)]


def test_true_eye_table() -> None:
    black_eyes, white_eyes = true_eye_tables()[BLACK], true_eye_tables()[WHITE]
    centre = [EMPTY, BLACK, EMPTY, BLACK, BLACK, EMPTY, BLACK, EMPTY]
    assert black_eyes[code_of(centre)]
    assert not white_eyes[code_of(centre)]
    one_bad_diagonal = [WHITE, BLACK, EMPTY, BLACK, BLACK, EMPTY, BLACK, EMPTY]
    assert black_eyes[code_of(one_bad_diagonal)]
    two_bad_diagonals = [WHITE, BLACK, EMPTY, BLACK, BLACK, EMPTY, BLACK, WHITE]
    assert not black_eyes[code_of(two_bad_diagonals)]  # a false eye
    edge = [BORDER, BORDER, BORDER, BLACK, BLACK, WHITE, BLACK, EMPTY]
    assert not black_eyes[code_of(edge)]  # on the edge one bad diagonal is enough


def test_random_move_table_skips_eyes_takes_open_points_and_reads_the_rest() -> None:
    black, white = random_move_tables()[BLACK], random_move_tables()[WHITE]
    eye = [EMPTY, BLACK, EMPTY, BLACK, BLACK, EMPTY, BLACK, EMPTY]
    assert black[code_of(eye)] == 0  # Black's true eye: never a random move
    assert white[code_of(eye)] == 1  # for White, a point to read (suicide unless it captures)
    open_two = [WHITE, EMPTY, WHITE, EMPTY, WHITE, WHITE, WHITE, WHITE]
    assert black[code_of(open_two)] == white[code_of(open_two)] == 2
    one_free = [EMPTY, EMPTY, EMPTY, WHITE, WHITE, EMPTY, WHITE, EMPTY]
    assert black[code_of(one_free)] == white[code_of(one_free)] == 1  # a self-atari, maybe
    corner = [BORDER, BORDER, BORDER, BORDER, EMPTY, BORDER, EMPTY, BLACK]
    assert black[code_of(corner)] == 2


def test_mercy_rule_stops_a_lopsided_playout_for_the_side_ahead() -> None:
    board = fast_from(
        """
        . X . X . X .
        X X X X X X X
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . O . . . . .
        """,
        to_move=BLACK,
    )
    assert list(board.color).count(BLACK) - list(board.color).count(WHITE) == 9
    # Black's first stone makes the lead 10: the game is Black's, after one move
    stopped = board.copy()
    early = playout_default(stopped, random.Random(1).random, 0, None, 10)
    assert early == 1
    assert list(stopped.color).count(BLACK) == 11
    assert black_result(board.copy(), playout_default, random.Random(1).random, 0.5, None, 10) == 1
    # without the rule, and when the komi could undo the lead, the game is played out
    for komi, mercy in ((0.5, 0), (30.5, 10)):
        played = board.copy()
        black_result(played, playout_default, random.Random(1).random, komi, None, mercy)
        assert played.passes == 2


@pytest.mark.parametrize("seed", range(3))
def test_mercy_rule_stops_only_at_the_lead_it_was_given(seed: int) -> None:
    rng = random.Random(seed)
    stopped = 0
    for _ in range(30):
        board = FastBoard(9)
        early = playout_default(board, rng.random, 0, None, 12)
        lead = list(board.color).count(BLACK) - list(board.color).count(WHITE)
        if early:
            stopped += 1
            assert lead * early >= 12  # the side it names leads by at least 12 stones
            assert_consistent(board)  # the board is left as the playout had it
        else:
            assert board.passes == 2
    assert stopped > 0


@pytest.mark.parametrize("seed", [0, 1, 2**40 + 7, "a string seed"])
def test_fast_random_draws_random_randoms_own_numbers(seed: int | str) -> None:
    # The compiled search draws from FastRandom: the same floats and bits in the same
    # order as random.Random, through its state's twists (624 words each)
    reference = random.Random(seed)
    fast = FastRandom(random.Random(seed))
    for i in range(5000):
        if i % 5 == 2:
            bits = i % 33
            assert fast.getrandbits(bits) == reference.getrandbits(bits), i
        else:
            assert fast() == reference.random(), i
    # the stream handed to a Random and back goes on where it was
    other = random.Random()
    fast.store(other)
    assert [other.random() for _ in range(700)] == [reference.random() for _ in range(700)]
    fast.load(other)
    assert [fast.random() for _ in range(10)] == [reference.random() for _ in range(10)]
    with pytest.raises(ValueError, match="0 to 32 bits"):
        fast.getrandbits(33)


def test_move_lists_filled_up_to_a_count() -> None:
    # The playout's candidates: the first n items count, removal keeps the order
    moves = FastBoard(9).geo.zeros[:]
    for k, p in enumerate((12, 30, 12, 41)):
        moves[k] = p
    assert holds(moves, 4, 41) and not holds(moves, 3, 41) and not holds(moves, 4, 0)
    assert remove_first(moves, 4, 12) == 3
    assert [moves[k] for k in range(3)] == [30, 12, 41]
    assert remove_first(moves, 3, 99) == 3
    assert [moves[k] for k in range(3)] == [30, 12, 41]
