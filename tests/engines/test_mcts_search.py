"""The tree search: tactics it must see, determinism, superko, resignation, reuse."""

from __future__ import annotations

import gc

import pytest

from engines.mcts.fastboard import BLACK, PASS, WHITE, FastBoard
from engines.mcts.search import RESIGN, Search, SearchConfig
from tests.engines.test_mcts_fastboard import fast_from

# Two black stones (C3 D3) inside White's wall have one liberty, D4, which
# also connects them to Black's wall above.  Whoever plays D4 first wins the
# game: White by capturing, Black by connecting out.
CUTTING_STONES = """
. . . . . . .
. . . . . . .
X X X X X X X
O O O . O O O
O O X X O O O
O . O O O . O
O O O . O O O
"""
D4 = (3, 3)
# plain UCT/PUCT (lazy children) and the default heuristic MC-RAVE
KNOWLEDGE: dict[str, dict[str, object]] = {
    "plain": {"rave": "off", "priors": "none"},
    "heuristic-rave": {},
}


def search_for(
    diagram: str, to_move: int, sims: int, seed: int = 1, **config: object
) -> tuple[Search, FastBoard]:
    board = fast_from(diagram, to_move)
    search = Search(SearchConfig(resign_threshold=0, **config), seed)  # type: ignore[arg-type]
    search.set_position(board, -3.5)
    search.simulate(sims)
    return search, board


@pytest.mark.parametrize("knowledge", ["plain", "heuristic-rave"])
@pytest.mark.parametrize("policy", ["default", "light"])
@pytest.mark.parametrize("selection", ["uct", "puct"])
def test_search_captures_the_cutting_stones(selection: str, policy: str, knowledge: str) -> None:
    search, board = search_for(
        CUTTING_STONES,
        WHITE,
        800,
        selection=selection,
        policy=policy,
        **KNOWLEDGE[knowledge],
    )
    decision = search.decide()
    assert decision.move == board.geo.index(D4)
    assert decision.win_rate > 0.9


@pytest.mark.parametrize("knowledge", ["plain", "heuristic-rave"])
@pytest.mark.parametrize("policy", ["default", "light"])
@pytest.mark.parametrize("selection", ["uct", "puct"])
def test_search_saves_the_stones_in_atari(selection: str, policy: str, knowledge: str) -> None:
    search, board = search_for(
        CUTTING_STONES,
        BLACK,
        800,
        selection=selection,
        policy=policy,
        **KNOWLEDGE[knowledge],
    )
    decision = search.decide()
    assert decision.move == board.geo.index(D4)
    alternatives = search.root_stats()[1:]
    assert all(s.win_rate < decision.win_rate for s in alternatives)


def test_same_seed_same_search_other_seed_other_search() -> None:
    def summary(seed: int) -> list[tuple[int, int, float]]:
        board = FastBoard(9)
        search = Search(SearchConfig(), seed)
        search.set_position(board, 7.5)
        search.simulate(300)
        return [(s.move, s.visits, s.win_rate) for s in search.root_stats()]

    assert summary(5) == summary(5)
    assert summary(5) != summary(6)


def test_root_never_offers_a_move_that_repeats_a_game_position() -> None:
    board = fast_from(CUTTING_STONES, WHITE)
    capture = board.geo.index(D4)
    after = board.copy()
    after.play(capture)
    search = Search(SearchConfig(), 1)
    search.set_position(board, -3.5, history={board.hash, after.hash})
    search.simulate(300)
    decision = search.decide()
    assert decision.move != capture
    assert all(s.move != capture for s in search.root_stats())


def test_only_pass_is_left_when_every_point_is_an_eye_or_illegal() -> None:
    board = fast_from(
        """
        . X . X
        X X X X
        O O O O
        O . O .
        """
    )
    search = Search(SearchConfig(resign_threshold=0), 1)
    search.set_position(board, 0.5)
    search.simulate(50)
    assert search.decide().move == PASS


@pytest.mark.parametrize(("threshold", "resigns"), [(0.1, True), (0.0, False)])
def test_resigns_a_hopeless_game_only_when_allowed(threshold: float, resigns: bool) -> None:
    hopeless = """
        . O . O .
        O O O O O
        . O . O .
        O O O O O
        . O X . O
        """
    board = fast_from(hopeless, BLACK)
    search = Search(SearchConfig(resign_threshold=threshold, resign_min_visits=100), 1)
    search.set_position(board, 0.5)
    search.simulate(300)
    decision = search.decide()
    assert (decision.move == RESIGN) is resigns
    assert decision.win_rate < 0.1


def test_claims_a_won_game() -> None:
    won = """
        . X . X .
        X X X X X
        . X . X .
        X X X X X
        . X O . X
        """
    board = fast_from(won, BLACK)
    search = Search(SearchConfig(resign_min_visits=100), 1)
    search.set_position(board, 0.5)
    search.simulate(300)
    assert search.decide().claim


def test_temperature_samples_moves_by_visits() -> None:
    chosen = set()
    for seed in range(8):
        board = FastBoard(9)
        search = Search(SearchConfig(temperature=5.0), seed)
        search.set_position(board, 7.5)
        search.simulate(200)
        chosen.add(search.decide().move)
    assert len(chosen) > 1
    greedy = Search(SearchConfig(), 3)
    greedy.set_position(FastBoard(9), 7.5)
    greedy.simulate(200)
    assert greedy.decide().move == greedy.root_stats()[0].move


def test_dirichlet_noise_changes_the_root_priors_only_when_on() -> None:
    def root_priors(fraction: float) -> list[float]:
        config = SearchConfig(selection="puct", noise_fraction=fraction, rave="off", priors="none")
        search = Search(config, 2)
        search.set_position(FastBoard(9), 7.5)
        root = search.root
        assert root.untried is not None
        return list(root.priors or [root.uniform_prior] * len(root.untried))

    plain = root_priors(0.0)
    noisy = root_priors(0.25)
    assert len(plain) == len(noisy) == 81
    assert len(set(plain)) == 1
    assert len(set(noisy)) > 1
    assert sum(noisy) == pytest.approx(1.0)


def test_tree_is_reused_after_our_move_and_the_reply() -> None:
    board = FastBoard(9)
    search = Search(SearchConfig(), 4)
    search.set_position(board, 7.5)
    search.simulate(400)
    ours = search.decide().move
    reply = search.principal_variation()[1]
    kept = search.root.child(ours)
    assert kept is not None
    expected = kept.child(reply)
    assert expected is not None
    board.play(ours, BLACK)
    board.play(reply, WHITE)
    moves = [(BLACK, ours), (WHITE, reply)]
    assert search.set_position(board, 7.5, moves=moves)
    assert search.root is expected
    assert search.root.visits > 0
    # a different game (or an undo) starts afresh
    assert not search.set_position(FastBoard(9), 7.5)
    assert search.root.visits == 0


@pytest.mark.parametrize("mercy", [0, 6])
def test_ownership_follows_the_stones(mercy: int) -> None:
    # the mercy rule would stop these playouts at once: ownership plays them out anyway
    won = """
        . X . X .
        X X X X X
        . . . . .
        O O O O O
        . O . O .
        """
    board = fast_from(won, BLACK)
    search = Search(SearchConfig(mercy=mercy), 1)
    search.track_ownership = True
    search.set_position(board, 0.5)
    search.simulate(100)
    ownership = search.ownership()
    geo = board.geo
    assert ownership[geo.index((4, 0))] == 1.0  # Black's eye
    assert ownership[geo.index((0, 0))] == -1.0  # White's eye


def test_config_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        SearchConfig(policy="heavy")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        SearchConfig(expand_threshold=0)
    with pytest.raises(ValueError):
        SearchConfig(mercy=-1)
    with pytest.raises(ValueError):
        SearchConfig(noise_fraction=2.0)


def test_a_search_leaves_the_garbage_collector_as_it_found_it() -> None:
    # simulate() keeps the collector from walking the tree while it runs (gc.disable)
    search = Search(SearchConfig(), seed=1)
    search.set_position(FastBoard(9), 7.5)
    search.simulate(50)
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
    assert search.root_visits == 50
    # objects the caller froze stay frozen, and the search still runs
    kept = [object()]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        search.simulate(50)
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
    assert kept and search.root_visits == 100
    # and a collector the caller disabled stays disabled
    gc.disable()
    try:
        search.simulate(10)
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert search.root_visits == 110
