"""MC-RAVE, prior knowledge and Monte-Carlo graph search in the sample engine's search."""

from __future__ import annotations

import math

import pytest

from engines.mcts.fastboard import BLACK, PASS, WHITE, FastBoard
from engines.mcts.parallel import WorkerPool
from engines.mcts.policy import AMAF_FIRST
from engines.mcts.priors import PriorWeights, heuristic_priors, prior_weights
from engines.mcts.search import Search, SearchConfig
from engines.mcts.tree import BlendSelector, Node, Position


def point(board: FastBoard, vertex: str) -> int:
    col = "ABCDEFGHJKLMNOPQRST".index(vertex[0])
    return board.geo.index((int(vertex[1:]) - 1, col))


def played(board: FastBoard, *moves: str) -> FastBoard:
    for move in moves:
        board.play(PASS if move == "pass" else point(board, move))
    return board


# ----------------------------------------------------------------------
# AMAF


@pytest.mark.parametrize("rule", ["first", "any"])
def test_amaf_credits_a_move_to_the_player_who_played_it(rule: str) -> None:
    config = SearchConfig(rave="mse", priors="none", expand_threshold=1, rave_amaf=rule)  # type: ignore[arg-type]
    search = Search(config, seed=3)
    board = FastBoard(5)
    search.set_position(board, 0.5)
    root = search.root
    assert root.children is not None
    # simulations with empty AMAF records until one goes two moves deep: root -> a -> b
    leaf = search.descend()
    while len(leaf.path) < 3:
        search.backup(leaf, 1.0, bytearray(board.geo.cells))
        leaf = search.descend()
    assert len(leaf.path) == 3
    a, b = leaf.path[1].move, leaf.path[2].move
    others = [m for m in board.geo.points if m not in (a, b)]
    black_later, white_later, black_first, white_first = others[:4]
    amaf = bytearray(board.geo.cells)
    # a playout's record: the colours that played a point, and who played it first
    amaf[black_later] = BLACK | BLACK << AMAF_FIRST
    amaf[white_later] = WHITE | WHITE << AMAF_FIRST
    # captured and played again by the other player
    amaf[black_first] = BLACK | WHITE | BLACK << AMAF_FIRST
    amaf[white_first] = BLACK | WHITE | WHITE << AMAF_FIRST
    before_root = {c.move: (c.amaf_visits, c.amaf_wins) for c in root.children}
    node_a = leaf.path[1]
    assert node_a.children is not None
    before_a = {c.move: (c.amaf_visits, c.amaf_wins) for c in node_a.children}
    search.backup(leaf, 1.0, amaf)  # Black won
    gained_root = {c.move for c in root.children if c.amaf_visits != before_root[c.move][0]}
    # Black to move at the root: Black's moves (a from the tree, the playout's) count;
    # a point White took first only under the rule "any"
    retaken = {white_first} if rule == "any" else set()
    assert gained_root == {a, black_later, black_first} | retaken
    for c in root.children:
        if c.move in gained_root:
            assert c.amaf_visits == before_root[c.move][0] + 1
            assert c.amaf_wins == before_root[c.move][1] + 1.0  # a Black win
    gained_a = {c.move for c in node_a.children if c.amaf_visits != before_a[c.move][0]}
    # White to move at a: b (tree) and White's playout moves, never Black's
    retaken = {black_first} if rule == "any" else set()
    assert gained_a == ({b, white_later, white_first} | retaken) & set(before_a)
    for c in node_a.children:
        if c.move in gained_a:
            assert c.amaf_wins == before_a[c.move][1]  # a loss for White


def test_playouts_record_who_played_a_point_first() -> None:
    search = Search(SearchConfig(), seed=11)
    board = FastBoard(9)
    search.set_position(board, 7.5)
    seen_retaken = 0
    for _ in range(50):
        copy = board.copy()
        _result, amaf = search.evaluate(copy)
        assert amaf is not None
        for p in board.geo.points:
            colours, first = amaf[p] & 3, amaf[p] >> AMAF_FIRST
            assert (colours == 0) == (first == 0)
            assert first in (0, BLACK, WHITE) and colours & first == first
            seen_retaken += colours == BLACK | WHITE
    assert seen_retaken  # captures happen: some points were played by both


# Game vs-gnugo_147 of a 3,000-simulation row (GNU Go Black): White's B9 has put
# Black's four stones C9 D9 E9 D8 in atari; Black F9 joins them to F8 and saves them.
# White had played F9 earlier (captured), and in most playouts White takes F9 again:
# counting those plays for Black's F9 ("any") gave it an AMAF value near 8% and no
# visit, and the search wrote the stones off.
SAVE_AT_F9 = "G5 F6 G6 G7 F7 E7 F8 E8 G8 E5 C4 B3 C7 D4 D8 C3 G3 B8 B7 D9 C9 C8 E9 D7 D9 F9 G9 B9"


@pytest.mark.parametrize("seed", range(3))
def test_first_play_amaf_finds_the_save_the_opponent_would_take(seed: int) -> None:
    board = played(FastBoard(9), *SAVE_AT_F9.split())
    search = Search(SearchConfig(), seed=seed)
    search.set_position(board, 7.5)
    search.simulate(3000)
    assert search.decide(allow_resign=False).move == point(board, "F9")


def test_a_real_simulation_records_amaf_for_moves_of_the_playout() -> None:
    search = Search(SearchConfig(rave="k", priors="none"), seed=5)
    search.set_position(FastBoard(7), 7.5)
    search.simulate(1)
    root = search.root
    assert root.children is not None
    credited = [c for c in root.children if c.amaf_visits]
    # a playout from the empty 7x7 board plays many Black moves
    assert len(credited) > 5
    assert all(c.amaf_visits == 1 for c in credited)


# ----------------------------------------------------------------------
# RAVE schedules and priors in selection


def _selector(rave: str, **kwargs: float) -> BlendSelector:
    return BlendSelector(
        kind="uct",
        exploration=0.0,
        rave=rave,  # type: ignore[arg-type]
        rave_k=kwargs.get("k", 1000.0),
        rave_bias=kwargs.get("b", 0.0),
        graph=False,
        fpu=math.inf,
        fpu_reduction=0.0,
    )


def _child(move: int, visits: int, wins: float, amaf_visits: float, amaf_wins: float) -> Node:
    node = Node(move)
    node.visits, node.wins = visits, wins
    node.amaf_visits, node.amaf_wins = amaf_visits, amaf_wins
    return node


def test_hand_selected_schedule_weighs_amaf_by_parent_visits() -> None:
    parent = Node(PASS)
    parent.visits = 1000
    # k = N / ... : with k = 3000, beta = sqrt(3000 / 6000) = 0.707
    good_mc = _child(1, 100, 60, 100, 30)  # MC 0.6, AMAF 0.3 -> 0.39
    good_amaf = _child(2, 100, 45, 100, 55)  # MC 0.45, AMAF 0.55 -> 0.52
    parent.children = [good_mc, good_amaf]
    assert _selector("k", k=3000.0)(parent) is good_amaf
    # with few parent visits relative to k... and many: beta -> 0, MC decides
    parent.visits = 10**9
    assert _selector("k", k=3000.0)(parent) is good_mc


def test_minimum_mse_schedule_trusts_amaf_while_the_mc_count_is_small() -> None:
    parent = Node(PASS)
    parent.visits = 50
    few = _child(1, 2, 2, 400, 120)  # MC 1.0 on 2 visits, AMAF 0.3 on 400
    steady = _child(2, 40, 22, 400, 200)  # MC 0.55, AMAF 0.5
    parent.children = [few, steady]
    assert _selector("mse", b=0.0)(parent) is steady
    off = BlendSelector(
        kind="uct",
        exploration=0.0,
        rave="off",
        rave_k=1.0,
        rave_bias=0.0,
        graph=False,
        fpu=math.inf,
        fpu_reduction=0.0,
    )
    assert off(parent) is few  # without RAVE the lucky MC value wins


def _blend_value(child: Node, bias: float) -> float:
    """Gelly & Silver's minimum-MSE blend of a child's MC and AMAF values, priors included."""
    tn = child.visits + child.prior_visits
    an = child.amaf_visits
    if not tn:
        return child.amaf_wins / an if an else math.inf
    q = (child.wins + child.prior_wins) / tn
    if not an:
        return q
    beta = an / (an + tn + 4 * bias * bias * an * tn)
    return (1 - beta) * q + beta * child.amaf_wins / an


@pytest.mark.parametrize("workers", [0, 1], ids=["one-process", "one-worker"])
def test_the_default_search_keeps_every_stored_selection_value_current(workers: int) -> None:
    # The default search stores each child's value instead of blending ~80 of
    # them at every step down; a value left stale would steer the search wrong.
    config = SearchConfig()
    assert config.scored
    blend = BlendSelector(
        kind="uct",
        exploration=0.0,
        rave="mse",
        rave_k=1.0,
        rave_bias=config.rave_bias,
        graph=False,
        fpu=config.uct_fpu,
        fpu_reduction=0.0,
    )
    search = Search(config, seed=11)
    pool = WorkerPool(workers, config, seed=4, batch=4) if workers else None
    search.evaluator = pool
    try:
        board = played(FastBoard(9), "E5", "D4")
        search.set_position(
            board, 7.5, moves=[(BLACK, point(board, "E5")), (WHITE, point(board, "D4"))]
        )
        search.simulate(3000)  # (a node lists its moves at its 8th visit)
        # the next move reuses the subtree: its values must carry over too
        search.flush()
        best = max(search.root.children or (), key=lambda c: c.visits).move
        board.play(best)
        search.set_position(
            board,
            7.5,
            moves=[(BLACK, point(board, "E5")), (WHITE, point(board, "D4")), (BLACK, best)],
        )
        search.simulate(1500)
        search.flush()
    finally:
        if pool is not None:
            pool.close()
    checked = 0
    stack = [search.root]
    while stack:
        node = stack.pop()
        children = node.children
        if not children:
            continue
        stack.extend(children)
        assert search._select(node) is blend(node)
        for child in children:
            assert child.score == pytest.approx(_blend_value(child, config.rave_bias), rel=1e-12)
        checked += 1
    assert checked > 100  # a grown tree, not just the root


def test_prior_knowledge_counts_as_extra_simulations() -> None:
    parent = Node(PASS)
    parent.visits = 10
    liked = _child(1, 1, 0, 0, 0)  # lost its one simulation ...
    plain = _child(2, 3, 2, 0, 0)  # won two of three, no prior
    parent.children = [plain, liked]
    assert _selector("off")(parent) is plain
    liked.prior_visits, liked.prior_wins = 10, 9  # ... but the heuristic says 9 in 10
    assert _selector("off")(parent) is liked  # (0 + 9) / (1 + 10) > 2 / 3


def test_heuristic_prefers_captures_and_avoids_self_atari_and_the_empty_edge() -> None:
    # White E6 has one liberty left (F6) after Black D6, E7 and E5 around it;
    # Black's H8-J8 pair would put itself in atari at J9... keep it simple:
    board = played(FastBoard(9), "E5", "E6", "D6", "pass", "E7", "pass")
    assert board.to_move == BLACK
    capture = point(board, "F6")
    assert board.liberties(point(board, "E6")) == [capture]
    moves = [m for m in board.geo.points if board.is_legal(m)]
    stats = dict(zip(moves, heuristic_priors(board, moves, 10.0), strict=True))
    value = {m: w / n for m, (n, w) in stats.items()}
    assert value[capture] == max(value.values())
    assert value[capture] > 0.7
    assert value[point(board, "A1")] < 0.5  # first line, nothing around
    assert value[point(board, "B8")] < value[point(board, "C3")]  # second v third line
    # a self-atari: Black A1 joins A2-A3 and leaves the chain one liberty, B1
    atari = played(FastBoard(5), "A2", "B2", "A3", "B3", "pass", "A4")
    assert atari.to_move == BLACK
    self_atari = point(atari, "A1")
    legal = [m for m in atari.geo.points if atari.is_legal(m)]
    assert self_atari in legal
    values = {
        m: w / n for m, (n, w) in zip(legal, heuristic_priors(atari, legal, 10.0), strict=True)
    }
    assert values[self_atari] < 0.5


def test_heuristic_sends_the_first_move_of_9x9_to_the_central_3x3() -> None:
    board = FastBoard(9)
    moves = list(board.geo.points)

    def values(weights: PriorWeights) -> dict[int, float]:
        stats = heuristic_priors(board, moves, 10.0, weights)
        return {m: w / n for m, (n, w) in zip(moves, stats, strict=True)}

    centre = {point(board, v) for v in ("D4", "D5", "D6", "E4", "E5", "E6", "F4", "F5", "F6")}
    default = values(PriorWeights())
    best = max(default.values())
    assert {m for m, v in default.items() if v == best} == centre
    assert default[point(board, "C3")] < best  # the third line is still good, less so
    assert default[point(board, "C3")] > default[point(board, "B2")]
    # without the rule, the third line is as good as the centre
    plain = values(prior_weights("empty_centre=0"))
    assert plain[point(board, "E5")] == plain[point(board, "C3")] > plain[point(board, "B2")]


def test_prior_weights_change_what_the_heuristic_says() -> None:
    board = played(FastBoard(9), "E5", "E6", "D6", "pass", "E7", "pass")
    capture = point(board, "F6")
    edge = point(board, "A1")
    moves = [capture, edge]

    def values(weights: PriorWeights) -> list[float]:
        return [w / n for n, w in heuristic_priors(board, moves, 10.0, weights)]

    default = values(PriorWeights())
    # no reward for captures: the capture is worth no more than its other rules say
    no_capture = values(prior_weights("capture_one=0,capture_many=0"))
    assert no_capture[0] < default[0]
    # the empty first line counted as neutral instead of a loss
    assert values(prior_weights({"empty_edge": 0}))[1] == 0.5 > default[1]
    assert prior_weights("shape=2").shape == 2.0
    assert prior_weights("") == PriorWeights()


@pytest.mark.parametrize(
    "text", ["shape", "shape=x", "colour=1", "shape=-1", "pass_rate=2", "shape=nan"]
)
def test_prior_weights_refuse_nonsense(text: str) -> None:
    with pytest.raises(ValueError):
        prior_weights(text)


def test_grandfather_priors_copy_the_value_two_plies_up() -> None:
    search = Search(SearchConfig(rave="mse", priors="grandfather", expand_threshold=1), seed=2)
    search.set_position(FastBoard(5), 0.5)
    search.simulate(400)
    root = search.root
    assert root.children is not None
    visited = {c.move: c for c in root.children if c.visits >= 5}
    checked = 0
    for child in root.children:
        for grandchild in child.children or ():
            if grandchild.children is None:
                continue
            for great in grandchild.children:
                source = visited.get(great.move)
                if source is None or great.prior_visits == 0:
                    continue
                # the value the move had at the root when this node was created: between 0 and 1,
                # and not the even 0.5 unless that is what the root said
                assert 0.0 <= great.prior_wins / great.prior_visits <= 1.0
                checked += 1
    assert checked > 0


# ----------------------------------------------------------------------
# Monte-Carlo graph search


def test_transposed_move_orders_reach_the_same_position() -> None:
    search = Search(SearchConfig(structure="graph", expand_threshold=1), seed=1)
    board = FastBoard(5)
    search.set_position(board, 0.5)
    table = search._table
    history = frozenset({board.hash})
    one = played(board.copy(), "A1", "B2", "C3")
    two = played(board.copy(), "C3", "B2", "A1")
    other_side = played(board.copy(), "A1", "B2", "C3", "pass")
    assert search._position_for(one, table, history) is search._position_for(two, table, history)
    assert search._position_for(one, table, history) is not search._position_for(
        other_side, table, history
    )


def test_a_ko_position_is_not_merged_with_the_same_stones_without_the_ko() -> None:
    search = Search(SearchConfig(structure="graph"), seed=1)
    board = FastBoard(5)
    search.set_position(board, 0.5)
    table = search._table
    history = frozenset({board.hash})
    # Black captures a White stone at B2 and creates a ko
    ko = played(board.copy(), "B1", "C1", "A2", "D2", "B3", "C3", "pass", "B2", "C2")
    assert ko.ko and ko.ko_colour == ko.to_move
    same_stones = ko.copy()
    same_stones.ko = 0
    same_stones.ko_colour = 0
    assert search._position_for(ko, table, history) is not search._position_for(
        same_stones, table, history
    )


def test_positions_of_the_game_history_are_never_shared() -> None:
    search = Search(SearchConfig(structure="graph"), seed=1)
    board = played(FastBoard(5), "C3")
    history = frozenset({FastBoard(5).hash, board.hash})
    search.set_position(board, 0.5, history=history)
    table = search._table
    assert search._position_for(board, table, history) is not search._position_for(
        board, table, history
    )


def test_graph_search_shares_nodes_between_paths() -> None:
    search = Search(SearchConfig(structure="graph", rave="mse", expand_threshold=1), seed=4)
    search.set_position(FastBoard(5), 0.5)
    search.simulate(1500)
    parents: dict[int, int] = {}
    for pos in [search.root, *search._table.values()]:
        for edge in pos.children or ():
            if edge.pos is not None and edge.visits:
                parents[id(edge.pos)] = parents.get(id(edge.pos), 0) + 1
    assert max(parents.values()) >= 2


def _formula(pos: Position) -> float:
    total = pos.usum
    count = pos.ucount
    for edge in pos.children or ():
        real = edge.visits - edge.pending
        if real and edge.pos is not None:
            total += real * (1.0 - edge.pos.q)
            count += real
    return total / count


@pytest.mark.parametrize("rave", ["off", "mse"])
def test_after_every_update_q_is_utility_and_children_weighted_by_edge_visits(rave: str) -> None:
    search = Search(
        SearchConfig(structure="graph", rave=rave, expand_threshold=1),
        seed=7,  # type: ignore[arg-type]
    )
    search.set_position(FastBoard(5), 0.5)
    for _ in range(600):
        leaf = search.descend()
        if leaf.board is None:
            search.backup(leaf, -1.0, None)
        else:
            result, amaf = search.evaluate(leaf.board)
            search.backup(leaf, result, amaf)
        for pos in leaf.path:
            assert isinstance(pos, Position)
            assert pos.q == pytest.approx(_formula(pos), abs=1e-12)
    # nothing left pending, and visits add up: N(n) = own playouts + edge visits
    for pos in [search.root, *search._table.values()]:
        for edge in pos.children or ():
            assert edge.pending == 0


def _edge(pos: Position, visits: int) -> Node:
    edge = Node(1)
    edge.visits = visits
    edge.pos = pos
    return edge


def _position(q: float, playouts: int = 1) -> Position:
    pos = Position()
    pos.q = q
    pos.usum = q * playouts
    pos.ucount = playouts
    return pos


def test_a_child_improved_through_a_transposition_lifts_its_parent_at_the_next_visit() -> None:
    # Seed 004, first naive scenario: A's favourite child C rises from 0.39 to
    # 0.51 (for A's player) through other paths; A must follow at its next
    # update instead of averaging its old playouts.  Values below are for the
    # player who moved into each position, so A's player sees 1 - q(C).
    c = _position(1 - 0.39, 40)
    b = _position(1 - 0.30, 2)
    a = _position(0.39, 1)
    a.children = [_edge(c, 28), _edge(b, 2)]
    a.recompute()
    before = a.q
    c.q = 1 - 0.51  # many transposed visits later
    a.recompute()
    assert before < 0.40
    assert a.q == pytest.approx((0.39 + 28 * 0.51 + 2 * 0.30) / 31)
    assert a.q > 0.48


def test_visits_through_other_parents_do_not_drag_a_node_down() -> None:
    # Seed 004, second naive scenario: D tried F once; F then gets 100 more
    # visits with a low value from elsewhere.  D's value must still follow E,
    # its main line, because F weighs by D's one edge visit, not F's 110 visits.
    e = _position(1 - 0.56, 30)
    f = _position(1 - 0.20, 110)
    d = _position(0.55, 1)
    d.children = [_edge(e, 30), _edge(f, 1)]
    d.recompute()
    assert d.q == pytest.approx((0.55 + 30 * 0.56 + 1 * 0.20) / 32)
    assert d.q > 0.53


def test_graph_stop_skips_the_playout_when_the_child_is_already_well_visited() -> None:
    search = Search(SearchConfig(structure="graph", graph_stop=True, expand_threshold=1), seed=9)
    search.set_position(FastBoard(5), 0.5)
    stopped = 0
    for _ in range(1500):
        leaf = search.descend()
        if leaf.board is None:
            stopped += 1
            edge = leaf.edges[-1]
            assert edge.pos is not None and edge.pos.visits >= edge.visits
            search.backup(leaf, -1.0, None)
        else:
            result, amaf = search.evaluate(leaf.board)
            search.backup(leaf, result, amaf)
    assert stopped > 0


def test_terminal_positions_score_by_area() -> None:
    # Black has most of a tiny board; two passes end the game in Black's favour.
    search = Search(SearchConfig(structure="graph", priors="none", expand_threshold=1), seed=1)
    board = played(FastBoard(3), "B2", "pass", "A2", "pass", "C2", "pass")
    search.set_position(board, 0.5)
    search.simulate(300)
    stats = {s.move: s for s in search.root_stats()}
    assert PASS in stats  # passing wins: it is in the tree and counted
    assert stats[PASS].win_rate > 0.9


@pytest.mark.parametrize(
    "config",
    [
        SearchConfig(rave="mse", priors="heuristic"),
        SearchConfig(rave="k", priors="even", selection="puct"),
        SearchConfig(rave="mse", priors="grandfather"),
        SearchConfig(rave="mse", priors="heuristic", structure="graph"),
        SearchConfig(structure="graph", selection="puct"),
    ],
)
def test_every_mode_finds_the_capture_that_wins_the_game(config: SearchConfig) -> None:
    # 5 X X X . .
    # 4 X X X X X
    # 3 O O O O X     Both sides have chains whose last liberty is C1: whoever
    # 2 X X X O X     plays there first captures.  Black to move: C1 is the
    # 1 O O . O X     only move that wins (Black's outer chain has two liberties,
    #                 too few for the race that follows White's capture at C1).
    board = FastBoard(5)
    board.setup(
        black=[
            point(board, v)
            for v in [
                "A5",
                "B5",
                "C5",
                "A4",
                "B4",
                "C4",
                "D4",
                "E4",
                "E3",
                "E2",
                "E1",
                "A2",
                "B2",
                "C2",
            ]
        ],
        white=[point(board, v) for v in ("A3", "B3", "C3", "D3", "D2", "D1", "A1", "B1")],
    )
    board.to_move = BLACK
    search = Search(config, seed=11)
    search.set_position(board, 4.5)
    search.simulate(
        1200
    )  # (600 left grandfather priors one seed short since nodes expand at 8 visits)
    best = search.root_stats()[0]
    assert best.move == point(board, "C1")
    assert best.win_rate > 0.8
