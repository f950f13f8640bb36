"""A move the search never reached: the best by the priors, never a pass or a resignation."""

from __future__ import annotations

import pytest

from engines.mcts.fastboard import BLACK, PASS, WHITE, FastBoard
from engines.mcts.priors import candidate_moves, heuristic_priors
from engines.mcts.search import RESIGN, Search, SearchConfig
from tests.engines.test_mcts_fastboard import fast_from

# White's three stones in atari at the right: capturing them (G4) is what the
# heuristic priors like best; the rest of the board is open.
THREE_IN_ATARI = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . X . .
. . . . . X O X .
. . . . . X O X .
. . . . . X O X .
. . . . . . . . .
. . . . . . . . .
"""
CAPTURE = (1, 6)  # (row from the bottom, column): below the three white stones

# Black has nothing left to play but its own two eyes (A1 and E5, 5x5 board).
ONLY_OWN_EYES = """
X X X X .
X X X X X
X X X X X
X X X X X
. X X X X
"""

CONFIGS: dict[str, dict[str, object]] = {
    "default": {},  # heuristic priors on an eagerly expanded root
    "plain uct": {"rave": "off", "priors": "none"},  # lazy root, no priors of its own
    "even priors": {"priors": "even"},
    "puct": {"selection": "puct"},
    "graph": {"structure": "graph"},
}


def unsearched(diagram: str, to_move: int, **config: object) -> tuple[Search, FastBoard]:
    board = fast_from(diagram, to_move)
    search = Search(SearchConfig(resign_min_visits=0, **config), 3)  # type: ignore[arg-type]
    search.set_position(board, 7.5)
    return search, board


@pytest.mark.parametrize("name", list(CONFIGS))
def test_no_simulation_plays_the_capture_the_priors_like_best(name: str) -> None:
    search, board = unsearched(THREE_IN_ATARI, BLACK, **CONFIGS[name])
    decision = search.decide()
    assert decision.root_visits == 0
    assert decision.basis == "priors"
    assert decision.move == board.geo.index(CAPTURE)


@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.parametrize("to_move", [BLACK, WHITE])
def test_no_simulation_on_an_open_board_is_a_real_move(name: str, to_move: int) -> None:
    board = FastBoard(9)
    for point in ((2, 2), (6, 6), (2, 6), (6, 2), (4, 4)):  # a few stones, alternating
        board.play(board.geo.index(point))
    board.to_move = to_move
    search = Search(SearchConfig(resign_min_visits=0, **CONFIGS[name]), 5)  # type: ignore[arg-type]
    search.set_position(board, 7.5)
    decision = search.decide(allow_resign=True)
    assert decision.move not in (PASS, RESIGN)
    assert board.is_legal(decision.move, to_move)
    legal = [m for m in candidate_moves(board, 0.25) if m != PASS]
    assert decision.move in legal  # never filling an own eye
    # ... and none of the candidates has a better prior
    priors = dict(zip(legal, heuristic_priors(board, legal, 10.0), strict=True))
    rate = {m: w / n for m, (n, w) in priors.items()}
    assert rate[decision.move] == pytest.approx(max(rate.values()))


def test_with_nothing_but_own_eyes_to_fill_it_passes() -> None:
    search, _board = unsearched(ONLY_OWN_EYES, BLACK)
    decision = search.decide(allow_resign=True)
    assert decision.move == PASS
    assert decision.basis == "priors"


def test_a_few_simulations_decide_by_statistics() -> None:
    search, _board = unsearched(THREE_IN_ATARI, BLACK)
    search.simulate(3)
    decision = search.decide()
    assert decision.basis == "search"
    assert decision.root_visits == 3
