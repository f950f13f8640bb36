"""Monte Carlo tree (or graph) search over :class:`~engines.mcts.fastboard.FastBoard` (pure).

Owns the simulations (descend, evaluate, back up), expansion, Dirichlet noise
on the root priors, tree reuse between moves and the ownership the playouts
collect.  No I/O and no clock: callers run :meth:`Search.simulate` in slices
and decide when to stop (see :mod:`engines.mcts.gtp_engine`).  What the search
concludes (root statistics, principal variations, the move to play,
resignation and claims) is read in :mod:`engines.mcts.results`; the nodes and
the selection rules live in :mod:`engines.mcts.tree`, the settings in
:mod:`engines.mcts.config`, prior knowledge and the moves a new node lists in
:mod:`engines.mcts.priors`, worker processes in :mod:`engines.mcts.parallel`.

A node is expanded (lists its moves) once it has been visited
``expand_threshold`` times; until then a simulation that reaches it plays out
from there.  Plain UCT and PUCT create children lazily, one per selection;
RAVE, priors and graph search create them all at expansion.

**RAVE** (Gelly & Silver 2011, §4): every simulation records, per point, the
colours that played it from the root to the end of the playout and the colour
that played it first.  Walking back up the path, each node's children get an
AMAF update when the player to move at that node was the first to play their
point from that node on (``rave_amaf="first"``, the default since 2026-11-30),
or played it at all (``"any"``, each point once per simulation and player).
The difference is a point the opponent takes first: a liberty that saves a
chain in atari, which the opponent fills to capture in most playouts and the
player plays again later, after the capture.  Counted for the player ("any"),
those later, losing plays gave the saving move an AMAF value near the
capture's and no visit at all (a 3,000-simulation search wrote off four
stones that one move saved; see ``tests/engines/test_mcts_rave_graph.py``).

**Graph search** (seed 004): positions are shared through a table keyed by the
Zobrist hash, the side to move, the simple-ko point and the count of
consecutive passes, which is everything legality and the end of the game depend
on inside the search (simple ko applies below the root).  A position that
repeats one of the game's real positions is never shared, a simulation that
meets a position already on its own path stops there (a cycle), and the
optional ``graph_stop`` ends a simulation early when the child already has more
visits than the edge that leads to it.

Superko: the search never offers a root move that recreates a position of
the game's history (positional superko); inside the tree and the playouts only
simple ko applies.
"""

from __future__ import annotations

import gc
import random
from array import array
from collections.abc import Callable, Iterable, Sequence
from itertools import compress
from operator import attrgetter, itemgetter
from typing import Final, Protocol, TypeVar, cast

from librt.vecs import vec
from mypy_extensions import i64

from engines.mcts import results
from engines.mcts.config import PolicyName as PolicyName  # re-exported with the config
from engines.mcts.config import SearchConfig as SearchConfig
from engines.mcts.config import StructureName as StructureName
from engines.mcts.config import make_selector
from engines.mcts.fastboard import BLACK, EMPTY, NATIVE, PASS, WHITE, FastBoard
from engines.mcts.policy import AMAF_FIRST, FastRandom, black_result, new_playout
from engines.mcts.priors import candidate_moves, heuristic_priors, list_moves, puct_priors
from engines.mcts.results import RESIGN as RESIGN  # re-exported: the results vocabulary
from engines.mcts.results import Decision as Decision
from engines.mcts.results import MoveStats as MoveStats
from engines.mcts.tree import (
    ChildStats,
    Node,
    Position,
    ScoredSelector,
    best_scored,
    refresh_score,
    set_children,
)
from engines.mcts.tree import SelectionName as SelectionName

Expansion = tuple[Sequence[int], Sequence[tuple[float, float]] | None]
_REQUESTED: Final = array("H")  # ``untried`` of a node whose moves a worker is listing
# Per colour: maps an AMAF record's bytes (colour bits) to 1 where that colour played
# ("any") or played first ("first"; see policy.AMAF_FIRST).
_PLAYED_BY: Final = tuple(
    bytes((b >> (c - 1)) & 1 if c else 0 for b in range(256)) for c in range(3)
)
_FIRST_BY: Final = tuple(
    bytes(1 if c and b >> AMAF_FIRST == c else 0 for b in range(256)) for c in range(3)
)
_move_of = attrgetter("move")
_T = TypeVar("_T")


def shuffle(rng: random.Random | FastRandom, items: list[_T]) -> None:
    """``Random.shuffle(items)``: the same draws and order, compiled where it runs compiled.

    random.shuffle is Python code: for i from the end down to 1 it swaps item
    i with item ``_randbelow(i + 1)``, which draws ``getrandbits(k)``, k the
    bit length of i + 1, until the draw is below i + 1 (CPython 3.11 to 3.13).
    A :class:`~engines.mcts.policy.FastRandom` draws the same bits from the
    same stream (lists up to 2**32 long).
    """
    if isinstance(rng, FastRandom):
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            k = n.bit_length()
            j = rng.getrandbits(k)
            while j >= n:
                j = rng.getrandbits(k)
            items[i], items[j] = items[j], items[i]
        return
    rng.shuffle(items)


def _amaf_record(amaf: bytearray, zeros: vec[i64]) -> vec[i64]:
    """The AMAF record as a native array (compiled backup): a copy of the board-sized
    ``zeros`` filled from the bytes (mypyc indexes a bytes object natively, a
    bytearray or a list of ints as Python objects)."""
    k: i64
    raw = bytes(amaf)
    record = zeros[:]
    for k in range(len(raw)):
        record[k] = raw[k]
    return record


def _hits_getter(children: list[Node]) -> Callable[[bytearray], tuple[int, ...]]:
    """What ``played[child.move]`` is for each child, in one C call."""
    return _moves_getter([child.move for child in children])


def _moves_getter(moves: Sequence[int]) -> Callable[[bytearray], tuple[int, ...]]:
    """What ``played[move]`` is for each of ``moves``, in one C call."""
    # with one argument itemgetter returns the item, not a 1-tuple: ask for it twice
    # (the backup's compress() stops at the end of the children)
    return itemgetter(*moves) if len(moves) > 1 else itemgetter(moves[0], moves[0])


class Leaf:
    """Where one simulation left the tree: its path, its edges (graph mode) and its board.

    ``board`` is None when the simulation needs no playout (graph search found
    the child already backed by enough visits).
    """

    __slots__ = ("board", "edges", "expand", "path")

    def __init__(
        self,
        path: list[Node],
        edges: list[Node],
        board: FastBoard | None,
        expand: Node | None = None,
    ) -> None:
        self.path = path
        self.edges = edges
        self.board = board
        # The last node, when the evaluator is to list its moves (see Search.descend).
        self.expand = expand


class Evaluator(Protocol):
    """Runs simulations with playouts elsewhere (see :mod:`engines.mcts.parallel`)."""

    def set_root(self, board: FastBoard, komi: float) -> None: ...

    def run(self, search: Search, count: int) -> int: ...

    def drain(self, search: Search) -> None: ...

    def close(self) -> None: ...


class Search:
    """A reusable MCTS player for one game; see the module docstring."""

    def __init__(self, config: SearchConfig | None = None, seed: int = 0) -> None:
        self.config = config or SearchConfig()
        self.rng = random.Random(seed)
        # Compiled, the search draws from the same stream without a Python call per
        # draw (FastRandom); ``rng`` then only serves the Dirichlet noise's draws
        self._fast = FastRandom(self.rng) if NATIVE else None
        self._rnd: Callable[[], float] = self._fast or self.rng.random
        self._select = make_selector(self.config, self._rnd)
        # ScoredSelector's choice called as a function (compiled, a direct call; the
        # selector object is called through Python's generic call protocol)
        self._select_scored = isinstance(self._select, ScoredSelector)
        self._playout = new_playout(self.config.policy)
        self._graph = self.config.structure == "graph"
        self._eager = self.config.eager
        self._rave = self.config.rave != "off"
        # Keep every child's selection value in ``score`` (see ScoredSelector)
        self._scored = self.config.scored
        self._b4 = self.config.rave_b4
        self._amaf_first = self.config.rave_amaf == "first"
        self._fpu = self.config.uct_fpu
        self._table: dict[tuple[int, int, int, int], Position] = {}
        self.evaluator: Evaluator | None = None  # worker processes (engines.mcts.parallel)
        self.root: Node = self._new_root()
        self.root_board = FastBoard(9)
        self.komi = 7.5
        self._key: tuple[object, ...] = ()
        self._history: frozenset[int] = frozenset()
        self.track_ownership = False
        self._ownership: list[int] = []
        self._ownership_samples = 0
        self.simulations_run = 0

    # ------------------------------------------------------------------
    # Position

    def set_position(
        self,
        board: FastBoard,
        komi: float,
        *,
        history: Iterable[int] = (),
        setup_key: object = None,
        moves: Sequence[tuple[int, int]] = (),
    ) -> bool:
        """Search from ``board`` (not kept; a copy is).  Returns True if the tree was reused.

        ``history`` holds the position hashes of the game so far (root moves
        that recreate one are never offered).  ``setup_key`` and ``moves`` (the
        game's (colour, point) plays since the setup) let the search recognise
        a continuation of the position it searched last and keep that subtree.
        """
        self.flush()
        key = (board.size, komi, setup_key)
        reused = False
        old_key = self._key
        new_root: Node | None = None
        if (
            self.config.reuse_tree
            and old_key
            and old_key[:3] == key
            and len(moves) >= len(old_key) - 3
            and tuple(moves[: len(old_key) - 3]) == old_key[3:]
            and board.to_move == self._expected_to_move(moves, len(old_key) - 3)
        ):
            new_root = self._descend(moves[len(old_key) - 3 :])
        if new_root is not None:
            reused = True
            self.root = new_root
        else:
            self.root = self._new_root()
            self.simulations_run = 0
        self._key = (*key, *moves)
        self.root_board = board.copy()
        self.komi = komi
        self._history = frozenset(history)
        self._ownership = [0] * board.geo.cells
        self._ownership_samples = 0
        if self._graph:
            self._rebuild_table()
        self._prepare_root()
        if self.evaluator is not None:
            self.evaluator.set_root(self.root_board, komi)
        return reused

    def _new_root(self) -> Node:
        return Position() if self._graph else Node(PASS)

    def _rebuild_table(self) -> None:
        """Keep only the positions reachable from the root (the rest is history now)."""
        table: dict[tuple[int, int, int, int], Position] = {}
        root = self.root
        assert isinstance(root, Position)
        seen = {id(root)}
        stack: list[Position] = [root]
        old = {id(pos): key for key, pos in self._table.items()}
        while stack:
            pos = stack.pop()
            key = old.get(id(pos))
            if key is not None and pos is not root:
                table[key] = pos
            for edge in pos.children or ():
                child = edge.pos
                if child is not None and id(child) not in seen:
                    seen.add(id(child))
                    stack.append(child)
        self._table = table

    def _expected_to_move(self, moves: Sequence[tuple[int, int]], start: int) -> int:
        """Who moves next if the plays after ``start`` alternate from the old root."""
        to_move = self.root_board.to_move
        for colour, _point in moves[start:]:
            if colour != to_move:
                return EMPTY  # not a plain continuation: no reuse
            to_move = 3 - colour
        return to_move

    def _descend(self, moves: Sequence[tuple[int, int]]) -> Node | None:
        node: Node | None = self.root
        for _colour, point in moves:
            assert node is not None
            child = node.child(point)
            if child is None:
                return None
            node = child.pos if self._graph else child
        return node

    def _prepare_root(self) -> None:
        root = self.root
        if root.child_nodes is None:
            if self._eager:
                self._expand_eager(root, self.root_board, None)
            else:
                self._expand(root, self.root_board)
        assert root.children is not None and root.untried is not None
        # Positional superko at the root: drop moves that repeat a game position.
        if self._history:
            banned = {m for m in self._legal_root_candidates() if self._repeats(m)}
            if banned:
                set_children(root, [c for c in root.children if c.move not in banned])
                keep = [i for i, m in enumerate(root.untried) if m not in banned]
                if root.priors is not None:
                    root.priors = [root.priors[i] for i in keep]
                root.untried = array("H", [root.untried[i] for i in keep])
                if not root.children and not root.untried:
                    root.untried.append(PASS)
                    root.priors = None
        if self.config.noise_fraction > 0:
            self._add_root_noise()

    def _legal_root_candidates(self) -> list[int]:
        root = self.root
        moves = [c.move for c in root.children or ()]
        moves.extend(root.untried or ())
        return [m for m in moves if m != PASS]

    def _repeats(self, move: int) -> bool:
        board = self.root_board.copy()
        board.play(move)
        return board.hash in self._history

    def _add_root_noise(self) -> None:
        """Mix Dirichlet noise into the root priors (PUCT reads them; UCT does not)."""
        root = self.root
        assert root.children is not None and root.untried is not None
        gamma = self.rng.gammavariate
        alpha = self.config.dirichlet_alpha
        untried_priors = root.priors or [root.uniform_prior] * len(root.untried)
        moves = [c.move for c in root.children] + list(root.untried)
        priors = [c.prior for c in root.children] + untried_priors
        fast = self._fast
        if fast is not None:
            fast.store(self.rng)  # gammavariate draws from ``rng``: the stream goes there
        noise = [gamma(alpha, 1.0) for _ in moves]
        if fast is not None:
            fast.load(self.rng)  # and comes back
        total = sum(noise) or 1.0
        eps = self.config.noise_fraction
        mixed = {
            m: (1 - eps) * p + eps * x / total for m, p, x in zip(moves, priors, noise, strict=True)
        }
        for child in root.children:
            child.prior = mixed[child.move]
        root.priors = [mixed[m] for m in root.untried]

    def _expand(self, node: Node, board: FastBoard) -> None:
        """List the moves of ``node`` as untried (plain UCT/PUCT)."""
        node.children = []
        node.untried = candidate_moves(board, self.config.pass_threshold)

    def _expand_eager(self, node: Node, board: FastBoard, grand: Node | None) -> None:
        """List every move of ``node`` as a child, with its priors (RAVE, priors, graphs)."""
        self.attach_children(node, *list_moves(board, self.config), grand)

    def attach_children(
        self,
        node: Node,
        moves: Sequence[int],
        stats: Sequence[tuple[float, float]] | None,
        grand: Node | None,
    ) -> None:
        """Expand ``node`` with ``moves`` and their (visits, wins) priors, if any."""
        if not self._eager:
            node.children = []
            node.untried = array("H", moves)
            return
        config = self.config
        if stats is None and config.priors == "grandfather":
            stats = self._grandfather_priors(moves, grand, config.prior_visits)
        fpu = self._fpu
        # The default (tree, minimum-MSE RAVE, UCT): what refresh_score gives a new
        # child, its AMAF value equal to its value, the prior
        scored = stats is not None and self._scored
        count = len(moves)
        uniform = 1.0 / count if count else 0.0  # UCT: the uniform prior
        probabilities = (
            puct_priors(stats) if stats is not None and config.selection == "puct" else None
        )
        # ties in selection go to the first child: the children in a random order
        order = list(range(count))
        shuffle(self._fast or self.rng, order)
        table = ChildStats(count)
        child_moves = table.moves
        prior = table.prior
        prior_visits = table.prior_visits
        prior_wins = table.prior_wins
        amaf_visits = table.amaf_visits
        amaf_wins = table.amaf_wins
        score = table.score
        tn = table.tn
        mc = table.mc
        for k in range(count):
            j = order[k]
            child_moves[k] = moves[j]
            prior[k] = uniform if probabilities is None else probabilities[j]
            if stats is None:
                score[k] = fpu
                continue  # no prior: every statistic 0
            n, w = stats[j]
            prior_visits[k] = n
            prior_wins[k] = w
            amaf_visits[k] = n
            amaf_wins[k] = w
            tn[k] = n
            if n:
                mc[k] = w / n
            if scored:
                score[k] = w / n if n else fpu
        node.untried = array("H")
        node.stats = table
        node.child_nodes = [None] * count  # each child's node made when first followed

    def _grandfather_priors(
        self, moves: Sequence[int], grand: Node | None, confidence: float
    ) -> list[tuple[float, float]]:
        """A move starts at the value it has two plies up (same player to move), else even."""
        known: dict[int, float] = {}
        for child in grand.kids or () if grand is not None else ():
            if child.visits - child.pending > 0:
                known[child.move] = child.value
        half = confidence / 2
        return [
            (confidence, confidence * known[m]) if m in known else (confidence, half) for m in moves
        ]

    # ------------------------------------------------------------------
    # Simulations

    def simulate(self, count: int) -> int:
        """Run ``count`` simulations; returns how many ran (or, with workers, started).

        The garbage collector does not run meanwhile (the tree holds no reference
        cycles, and collections walking it took a tenth of the time): disabled
        before, enabled again after, if it was enabled.  (This was ``gc.freeze()``
        unless something else had frozen objects; but asking that,
        ``gc.get_freeze_count()``, walks every frozen object, and in a process
        that had frozen two million it made a 4-playout self-play test 150 times
        slower: 0.9 s to more than the suite's 300 s timeout.)
        """
        enabled = gc.isenabled()
        if enabled:
            gc.disable()
        try:
            return self._simulate(count)
        finally:
            if enabled:
                gc.enable()

    def _simulate(self, count: int) -> int:
        if self.evaluator is not None and not self.track_ownership:
            done = self.evaluator.run(self, count)
            self.simulations_run += done
            return done
        self.flush()
        if self._eager:
            for _ in range(count):
                leaf = self.descend()
                if leaf.board is None:
                    self.backup(leaf, -1.0, None)
                else:
                    result, amaf = self.evaluate(leaf.board)
                    if self.track_ownership:
                        self._add_ownership(leaf.board)
                    self.backup(leaf, result, amaf)
            done = count
        else:
            done = self._simulate_lazy(count)
        self.simulations_run += done
        return done

    def flush(self) -> None:
        """Finish the simulations the workers still hold (before reading the tree)."""
        if self.evaluator is not None:
            self.evaluator.drain(self)

    def evaluate(self, board: FastBoard) -> tuple[float, bytearray | None]:
        """Play ``board`` out (it is changed); Black's result (1, 0 or 0.5) and the AMAF record."""
        amaf = bytearray(board.geo.cells) if self._rave else None
        # ownership needs finished games: no mercy rule while it is collected
        mercy = 0 if self.track_ownership else self.config.mercy
        result = black_result(board, self._playout, self._rnd, self.komi, amaf, mercy)
        return result, amaf

    def descend(self) -> Leaf:
        """Walk down from the root, expanding as needed, to where a playout starts.

        The visits along the way are counted at once (a virtual loss until
        :meth:`backup` adds the result), so several leaves can be out together.
        """
        board = self.root_board.copy()
        select = self._select
        select_scored = self._select_scored
        threshold = self.config.expand_threshold
        node = self.root
        node.visits += 1
        path = [node]
        if self._graph:
            return self._descend_graph(board, path)
        remote = self.evaluator is not None
        # In one process the backup refreshes every node of the path before the
        # next descent; with workers other descents see this one's visits first.
        scored = self._scored and remote
        while board.passes < 2:
            if node.child_nodes is None:
                if node.visits <= threshold or node.untried is _REQUESTED:
                    break
                if remote:  # the worker lists the moves while it plays out from here
                    node.untried = _REQUESTED
                    return Leaf(path, [], board, node)
                if self._eager:
                    self._expand_eager(node, board, path[-3] if len(path) >= 3 else None)
                else:
                    self._expand(node, board)
            node = best_scored(node) if select_scored else select(node)
            node.visits += 1
            if scored:
                refresh_score(node, self._b4, self._fpu)
            path.append(node)
            board.play_known(node.move)
            if node.visits == 1:
                break
        return Leaf(path, [], board)

    def _descend_graph(self, board: FastBoard, positions: list[Node]) -> Leaf:
        select = self._select
        threshold = self.config.expand_threshold
        table = self._table
        history = self._history
        stop_early = self.config.graph_stop
        edges: list[Node] = []
        pos = positions[0]
        remote = self.evaluator is not None
        while board.passes < 2:
            if pos.child_nodes is None:
                if pos.visits <= threshold or pos.untried is _REQUESTED:
                    break
                if remote:
                    pos.untried = _REQUESTED
                    return Leaf(positions, edges, board, pos)
                self._expand_eager(pos, board, positions[-3] if len(positions) >= 3 else None)
            edge = select(pos)
            edge.visits += 1
            edge.pending += 1
            edges.append(edge)
            board.play_known(edge.move)
            child = edge.pos
            if child is None:
                child = self._position_for(board, table, history)
                edge.pos = child
            if child in positions:
                return Leaf(positions, edges, board)  # a cycle: play out from here
            if stop_early and child.visits >= edge.visits:
                return Leaf(positions, edges, None)  # the child already backs this edge
            child.visits += 1
            positions.append(child)
            pos = child
            if child.visits == 1:
                break
        return Leaf(positions, edges, board)

    @staticmethod
    def _position_for(
        board: FastBoard,
        table: dict[tuple[int, int, int, int], Position],
        history: frozenset[int],
    ) -> Position:
        """The shared node of ``board``'s position (a fresh one if it repeats the game)."""
        if board.hash in history:
            return Position()
        ko = board.ko if board.ko_colour == board.to_move else 0
        key = (board.hash, board.to_move, ko, board.passes)
        pos = table.get(key)
        if pos is None:
            pos = table[key] = Position()
        return pos

    def backup(
        self,
        leaf: Leaf,
        black_result: float,
        amaf: bytearray | None,
        expansion: Expansion | None = None,
    ) -> None:
        """Give a finished simulation's result (-1: none, it stopped early) to its path.

        ``expansion`` holds the moves (and position priors) of ``leaf.expand``,
        listed by a worker; without it the node is left to be expanded later.
        """
        node = leaf.expand
        if node is not None and node.child_nodes is None:
            if expansion is None:
                node.untried = None
            else:
                path = leaf.path
                grand = path[-3] if len(path) >= 3 else None
                self.attach_children(node, expansion[0], expansion[1], grand)
        to_move: i64  # (a machine integer compiled: it masks the AMAF record's items)
        k: i64
        mask: i64
        want: i64
        root_to_move = self.root_board.to_move
        path = leaf.path
        depth = len(path) - 1
        # the player to move at path[depth]; the leaf's mover is the other one
        to_move = root_to_move if depth % 2 == 0 else 3 - root_to_move
        rave = self._rave and amaf is not None
        # a child's move counts if the player to move played its point (first, or at all)
        first = self._amaf_first
        if self._graph:
            self._backup_graph(leaf, black_result, amaf if rave else None, to_move)
            return
        # ``result``: for the player who made the move into path[i]
        result = black_result if to_move == WHITE else 1.0 - black_result
        # With stored selection values (see ScoredSelector) every changed node
        # gets its value refreshed, as refresh_score would (written out for the
        # children: this loop runs for every child a playout's moves reach).
        scored = self._scored
        b4 = self._b4
        # compiled, the AMAF record is read from a native array (mypyc indexes a
        # bytearray, or a list of ints, as Python objects, boxing index and item)
        record = (
            _amaf_record(amaf, self.root_board.geo.zeros)
            if NATIVE and rave and amaf is not None
            else self.root_board.geo.zeros[:0]
        )
        for i in range(depth, -1, -1):
            node = path[i]
            node.wins += result
            if scored:
                refresh_score(node, b4, self._fpu)
            if rave:
                assert amaf is not None
                if i < depth:
                    move = path[i + 1].move
                    if move != PASS:
                        # the tree's move came before every play recorded so far
                        amaf[move] = (amaf[move] & 3) | to_move | to_move << AMAF_FIRST
                        if NATIVE:
                            record[move] = (record[move] & 3) | to_move | to_move << AMAF_FIRST
                kids = node.child_nodes
                stats = node.stats
                if kids and stats is not None:
                    won = 1.0 - result  # for the player to move at node
                    # the children's statistics, in arrays (see ChildStats)
                    avs = stats.amaf_visits
                    aws = stats.amaf_wins
                    tns = stats.tn
                    mcs = stats.mc
                    scores = stats.score
                    if NATIVE:
                        # compiled, a plain loop over the native arrays (the C calls
                        # below box every hit; and the update written out here: as a
                        # call it was not inlined)
                        moves = stats.moves
                        mask = 3 << AMAF_FIRST if first else to_move
                        want = to_move << AMAF_FIRST if first else to_move
                        for k in range(len(moves)):
                            if record[moves[k]] & mask == want:
                                an = avs[k] + 1
                                aw = aws[k] + won
                                avs[k] = an
                                aws[k] = aw
                                if scored:
                                    tn = tns[k]
                                    if tn:
                                        q = mcs[k]
                                        scores[k] = q + an / (an + tn + b4 * an * tn) * (
                                            aw / an - q
                                        )
                                    else:
                                        scores[k] = aw / an
                        result = 1.0 - result
                        to_move = 3 - to_move
                        continue
                    # the children whose move the player to move played: filtered in C
                    played = amaf.translate((_FIRST_BY if first else _PLAYED_BY)[to_move])
                    getter = stats.hits
                    if getter is None:
                        getter = stats.hits = _moves_getter(cast("list[int]", stats.moves))
                    hits = getter(played)
                    if scored:
                        for k in compress(range(len(kids)), hits):
                            an = avs[k] + 1
                            aw = aws[k] + won
                            avs[k] = an
                            aws[k] = aw
                            tn = tns[k]
                            if tn:
                                q = mcs[k]
                                scores[k] = q + an / (an + tn + b4 * an * tn) * (aw / an - q)
                            else:
                                scores[k] = aw / an
                    else:
                        for k in compress(range(len(kids)), hits):
                            avs[k] += 1
                            aws[k] += won
            result = 1.0 - result
            to_move = 3 - to_move

    def _backup_graph(
        self, leaf: Leaf, black_result: float, amaf: bytearray | None, to_move: int
    ) -> None:
        positions = leaf.path
        edges = leaf.edges
        depth = len(positions) - 1
        if black_result >= 0 and len(edges) == depth:
            end = positions[depth]
            assert isinstance(end, Position)
            end.usum += black_result if to_move == WHITE else 1.0 - black_result
            end.ucount += 1
        for i in range(depth, -1, -1):
            pos = positions[i]
            assert isinstance(pos, Position)
            if i < len(edges):
                edge = edges[i]
                edge.pending -= 1
                if amaf is not None and edge.move != PASS:
                    amaf[edge.move] = (amaf[edge.move] & 3) | to_move | to_move << AMAF_FIRST
            pos.recompute()
            kids = pos.child_nodes
            if kids and amaf is not None:
                won = black_result if to_move == BLACK else 1.0 - black_result
                played = amaf.translate((_FIRST_BY if self._amaf_first else _PLAYED_BY)[to_move])
                stats = pos.stats
                if stats is None:  # edges made elsewhere, each with its own statistics
                    children = cast("list[Node]", kids)
                    for edge in compress(
                        children, map(played.__getitem__, map(_move_of, children))
                    ):
                        edge.amaf_visits += 1
                        edge.amaf_wins += won
                else:  # in the position's arrays (see ChildStats)
                    avs = stats.amaf_visits
                    aws = stats.amaf_wins
                    for k in compress(range(len(kids)), map(played.__getitem__, stats.moves)):
                        avs[k] += 1
                        aws[k] += won
            to_move = 3 - to_move

    def _simulate_lazy(self, count: int) -> int:
        """Plain UCT/PUCT on a lazily grown tree: the fast path, written out."""
        select = self._select
        playout = self._playout
        rnd = self._rnd
        threshold = self.config.expand_threshold
        root = self.root
        root_board = self.root_board
        komi = self.komi
        mercy = 0 if self.track_ownership else self.config.mercy
        root_to_move = root_board.to_move
        for _ in range(count):
            board = root_board.copy()
            node = root
            path = [node]
            while board.passes < 2:
                if node.child_nodes is None:
                    if node.visits < threshold:
                        break
                    self._expand(node, board)
                node = select(node)
                path.append(node)
                board.play_known(node.move)
                if not node.visits:
                    break
            black = black_result(board, playout, rnd, komi, None, mercy)
            # the root's "move" was made by the player not to move at the root
            result = black if root_to_move == WHITE else 1.0 - black
            for n in path:
                n.visits += 1
                n.wins += result
                result = 1.0 - result
            if self.track_ownership:
                self._add_ownership(board)
        return count

    def _add_ownership(self, board: FastBoard) -> None:
        color = board.color
        nb = board.geo.neighbours
        own = self._ownership
        for p in board.geo.points:
            c = color[p]
            if c == BLACK:
                own[p] += 1
            elif c == WHITE:
                own[p] -= 1
            else:
                seen = 0
                for q in nb[p]:
                    seen |= 1 << color[q]
                seen &= 0b0111
                if seen == 0b0010:
                    own[p] += 1
                elif seen == 0b0100:
                    own[p] -= 1
        self._ownership_samples += 1

    # ------------------------------------------------------------------
    # Results

    @property
    def root_visits(self) -> int:
        return self.root.visits

    def ownership(self) -> dict[int, float]:
        """Per point, from +1 (always Black's at the end) to -1 (always White's)."""
        self.flush()
        samples = self._ownership_samples
        if not samples:
            return {}
        own = self._ownership
        return {p: own[p] / samples for p in self.root_board.geo.points}

    def root_stats(self) -> list[MoveStats]:
        """The root moves with at least one visit, most visited first (then best value)."""
        self.flush()
        return results.root_stats(self.root)

    def principal_variation(self, limit: int = results.PV_LENGTH) -> list[int]:
        self.flush()
        return results.line_from(self.root, limit)

    def principal_variation_from(self, move: int, limit: int = results.PV_LENGTH) -> list[int]:
        """The line starting with root move ``move`` (just ``[move]`` if it has no node)."""
        self.flush()
        child = self.root.child(move)
        if child is None:
            return [move]
        return [move, *results.line_from(child, limit - 1)]

    def decide(self, *, allow_resign: bool = True) -> Decision:
        """The move to play now, from the statistics gathered so far.

        With none (no simulation finished), the best move by the priors: the
        root's own when it has heuristic priors, else the heuristic's on the
        root's moves; a pass only when the root has no other move.
        """
        self.flush()
        root = self.root
        if results.root_stats(root) or (self.config.priors == "heuristic" and self._eager):
            return results.decide(root, self.config, self._rnd, allow_resign=allow_resign)
        moves, _none = results.root_priors(root)
        priors = heuristic_priors(
            self.root_board, moves, max(self.config.prior_visits, 1.0), self.config.prior_weights
        )
        return results.best_by_priors(moves, priors, root.visits)

    def node_count(self) -> int:
        """Nodes in the tree below (and including) the root; positions and edges in a graph."""
        self.flush()
        return results.node_count(self.root)
