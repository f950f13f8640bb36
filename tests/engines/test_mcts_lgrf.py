"""The ``lgrf`` playout policy: last good replies learnt, forgotten, and played."""

from __future__ import annotations

import random

import pytest

from engines.mcts.fastboard import BLACK, PASS, WHITE, FastBoard, score_terminal
from engines.mcts.policy import LastGoodReply, black_result, new_playout, playout_default
from engines.mcts.search import Search, SearchConfig
from gtp.board import Board
from gtp.vertex import Colour
from tests.engines.test_mcts_fastboard import assert_consistent, assert_same, fast_from
from tests.engines.test_mcts_policy import refused_by_default

COLOUR = {BLACK: Colour.BLACK, WHITE: Colour.WHITE}


def trained(seed: int, playouts: int = 300) -> LastGoodReply:
    """An LGRF policy that has learnt from ``playouts`` games from the empty 9x9 board."""
    policy = LastGoodReply()
    rng = random.Random(seed)
    for _ in range(playouts):
        black_result(FastBoard(9), policy, rng.random, 7.5)
    return policy


def test_the_winner_s_replies_are_stored_and_the_loser_s_forgotten() -> None:
    geo = FastBoard(9).geo
    a, b, c, d = (geo.index(point) for point in ((2, 2), (6, 6), (2, 6), (6, 2)))
    policy = LastGoodReply()
    policy(FastBoard(9), random.Random(1).random, 1)  # sizes the tables
    # a playout that started after a pass, Black first: B a, W b, B c, W PASS, B d
    played = [PASS, a, b, c, PASS, d]

    def learn(result: float) -> None:
        policy.moves[:] = played
        policy.first = BLACK
        policy.learn(result)

    learn(1.0)  # Black won: Black's replies to b is c; nothing follows a pass
    assert policy.replies[BLACK][b] == c
    assert [p for p in range(geo.cells) if policy.replies[BLACK][p]] == [b]
    assert not any(policy.replies[WHITE])
    learn(0.5)  # jigo teaches nothing
    assert policy.replies[BLACK][b] == c
    assert not any(policy.replies[WHITE])
    learn(0.0)  # White won: its reply b to a is stored, Black's c to b forgotten
    assert policy.replies[WHITE][a] == b
    assert not any(policy.replies[BLACK])
    # forgetting touches only the reply that was played
    policy.replies[BLACK][b] = d
    learn(0.0)
    assert policy.replies[BLACK][b] == d


def test_learning_from_a_real_playout_keeps_each_winner_s_last_reply() -> None:
    policy = LastGoodReply()
    board = FastBoard(9)
    result = black_result(board, policy, random.Random(5).random, 7.5)
    assert result == (1.0 if score_terminal(board) > 7.5 else 0.0)
    winner = BLACK if result == 1.0 else WHITE
    expected = [[0] * board.geo.cells for _ in range(3)]
    colour = BLACK
    previous = PASS
    for move in policy.moves[1:]:
        if previous and move and colour == winner:
            expected[colour][previous] = move
        previous = move
        colour = 3 - colour
    assert len(policy.moves) > 40  # the whole game was recorded
    assert policy.replies[winner] == expected[winner]
    assert any(policy.replies[winner])
    assert not any(policy.replies[3 - winner])


def test_the_stored_reply_is_played_when_no_atari_calls() -> None:
    board = fast_from(
        """
        . . . . . . .
        . . . . . . .
        . . X . . . .
        . . . . . . .
        . . . . O . .
        . . . . . . .
        . . . . . . .
        """,
        to_move=WHITE,
    )
    geo = board.geo
    last = geo.index((4, 4))
    board.play(last, WHITE)
    reply = geo.index((0, 6))
    elsewhere = 0
    for seed in range(20):
        policy = LastGoodReply()
        policy(board.copy(), random.Random(seed).random, 1)  # sizes the tables
        policy.replies[BLACK][last] = reply
        stepped = board.copy()
        policy(stepped, random.Random(seed).random, 1)
        assert stepped.last_move == reply
        assert policy.moves == [last, reply]
        # the reply to another move is not this one's (chance plays it now and then)
        other = board.copy()
        other.last_move = geo.index((5, 5))
        policy(other, random.Random(seed).random, 1)
        elsewhere += other.last_move == reply
    assert elsewhere <= 3


def test_saving_a_chain_in_atari_comes_before_the_stored_reply() -> None:
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
    last = geo.index((2, 2))
    board.play(last, WHITE)  # C3 puts C4 in atari
    policy = LastGoodReply()
    policy(board.copy(), random.Random(1).random, 1)
    policy.replies[BLACK][last] = geo.index((6, 6))
    for seed in range(5):
        stepped = board.copy()
        policy(stepped, random.Random(seed).random, 1)
        assert stepped.last_move == geo.index((3, 3))  # D4, the way out


def test_a_stored_reply_that_is_occupied_or_an_own_eye_is_not_played() -> None:
    board = fast_from(
        """
        . X . . . . .
        X X . . . . .
        . . . . . . .
        . . . . . . .
        . . . . O . .
        . . . . . . .
        . . . . . . .
        """,
        to_move=WHITE,
    )
    geo = board.geo
    last = geo.index((4, 4))
    board.play(last, WHITE)
    eye = geo.index((6, 0))  # A7, Black's eye in the corner
    assert board.color[eye] == 0
    for reply in (eye, geo.index((5, 1))):  # the eye, then a black stone
        for seed in range(5):
            policy = LastGoodReply()
            policy(board.copy(), random.Random(seed).random, 1)
            policy.replies[BLACK][last] = reply
            stepped = board.copy()
            policy(stepped, random.Random(seed).random, 1)
            assert stepped.last_move not in (reply, PASS)


@pytest.mark.parametrize("seed", range(3))
def test_a_trained_lgrf_playout_plays_legal_moves_to_the_end(seed: int) -> None:
    policy = trained(seed)
    assert sum(map(bool, policy.replies[BLACK])) + sum(map(bool, policy.replies[WHITE])) > 20
    rng = random.Random(100 + seed)
    fast = FastBoard(9)
    ref = Board(9)
    used = 0
    while fast.passes < 2:
        mover = fast.to_move
        stored = policy.replies[mover][fast.last_move] if fast.last_move else 0
        eyes_before = {p for p in fast.empties if refused_by_default(fast, p, mover)}
        policy(fast, rng.random, 1)
        move = fast.last_move
        used += bool(stored) and move == stored
        assert move not in eyes_before
        ref.play(COLOUR[mover], None if move == PASS else fast.geo.point(move))  # raises if illegal
        assert ref.moves_played < 250, "the playout did not end"
    assert_same(fast, ref)
    assert_consistent(fast)
    assert used  # the replies were played, not only stored


def test_each_search_has_its_own_replies_and_a_seed_repeats_it() -> None:
    assert new_playout("lgrf") is not new_playout("lgrf")
    assert new_playout("default") is playout_default

    def stats(seed: int) -> list[tuple[int, int, float]]:
        search = Search(SearchConfig(policy="lgrf"), seed)
        search.set_position(FastBoard(9), 7.5)
        search.simulate(300)
        return [(m.move, m.visits, m.win_rate) for m in search.root_stats()]

    assert stats(3) == stats(3)
    assert stats(3) != stats(4)
