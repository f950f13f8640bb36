"""Monte Carlo tree search over :class:`~engines.mcts.fastboard.FastBoard` (pure, synchronous).

Owns the tree, the selection rules, expansion, backpropagation, the choice of
the final move (most visits, or sampled with a temperature), Dirichlet noise on
the root priors, tree reuse between moves, resignation and claims, and the
root statistics the GTP layer reports (win rate, principal variation,
ownership).  No I/O and no clock: callers run :meth:`Search.simulate` in slices
and decide when to stop (see :mod:`engines.mcts.gtp_engine`).

The tree is a tree of positions reached by moves from the root.  A node is
created the first time its move is selected (children are created lazily from
an ``untried`` list), and a node lists its own moves (is *expanded*) once it
has been visited ``expand_threshold`` times; until then a simulation that
reaches it plays out from there.  A node's ``wins`` count the simulations won
by the player who made its move, so selection at a node compares
``wins / visits`` of its children directly (the perspective alternates with
every ply, passes included).

Selection is pluggable: a :class:`Selector` picks the child to follow.  UCT
(UCB1, Gelly & Silver 2011 eq. 7-8) and PUCT (AlphaZero/KataGo style, prior
times sqrt(N) / (1 + n)) are provided; the root priors are uniform until a
later issue brings heuristic priors, RAVE and graph search (the node keeps
room for AMAF statistics; add slots, not a new tree).

Superko: the search never offers a root move that recreates a position of
the game's history (positional superko); inside the tree and the playouts only
simple ko applies.
"""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Callable, Iterable, Sequence
from typing import Final, Literal, Protocol

import attrs

from engines.mcts.fastboard import BLACK, EMPTY, PASS, WHITE, FastBoard, score_terminal
from engines.mcts.patterns import true_eye_tables
from engines.mcts.policy import PLAYOUTS

SelectionName = Literal["uct", "puct"]
PolicyName = Literal["default", "light"]

RESIGN: Final = -1  # a "move" the search can return besides points and PASS
CLAIM_MIN_VISITS: Final = 16  # a claim needs at least this many root visits


@attrs.frozen
class SearchConfig:
    """Every knob of the search; the engine's command line maps onto these."""

    policy: PolicyName = "default"
    selection: SelectionName = "uct"
    exploration: float = 0.5  # UCT: c in Q + c * sqrt(ln N / n)
    uct_fpu: float = math.inf  # UCT: urgency of an unvisited move ("first-play urgency")
    puct_exploration: float = 1.5  # PUCT: c in Q + c * P * sqrt(N) / (1 + n)
    fpu_reduction: float = 0.1  # PUCT: unvisited moves start at the parent's value minus this
    expand_threshold: int = 2  # visits a node needs before it lists its own moves
    temperature: float = 0.0  # 0: most visits; > 0: sample with visits ** (1 / temperature)
    dirichlet_alpha: float = 0.3
    noise_fraction: float = 0.0  # weight of Dirichlet noise in the root priors (0: off)
    resign_threshold: float = 0.1  # resign when the best win rate is below this (0: never)
    resign_min_visits: int = 200  # ... and the root has at least this many visits
    claim_threshold: float = 0.97  # gomill-genmove_ex claim: best win rate at least this
    reuse_tree: bool = True
    pass_threshold: float = 0.25  # offer PASS in the tree when at most this share is playable

    def __attrs_post_init__(self) -> None:
        if self.policy not in PLAYOUTS:
            raise ValueError(f"unknown playout policy {self.policy!r}")
        if self.selection not in ("uct", "puct"):
            raise ValueError(f"unknown selection {self.selection!r}")
        if self.expand_threshold < 1:
            raise ValueError("expand_threshold must be at least 1")
        if self.uct_fpu < 0 or math.isnan(self.uct_fpu):
            raise ValueError("uct_fpu must be a non-negative number (inf: try every move once)")
        if self.temperature < 0 or self.exploration < 0 or self.puct_exploration < 0:
            raise ValueError("temperature and exploration constants must not be negative")
        if not 0 <= self.noise_fraction <= 1 or self.dirichlet_alpha <= 0:
            raise ValueError("noise_fraction must be in 0..1 and dirichlet_alpha positive")
        if not 0 <= self.resign_threshold < 1 or not 0 < self.claim_threshold <= 1:
            raise ValueError("resign_threshold must be in 0..1, claim_threshold in (0, 1]")


class Node:
    """One position of the tree, reached by ``move`` from its parent."""

    # Later: amaf_visits / amaf_wins for RAVE go here.
    __slots__ = ("children", "move", "prior", "priors", "untried", "visits", "wins")

    def __init__(self, move: int, prior: float = 0.0) -> None:
        self.move = move
        self.prior = prior
        self.visits = 0
        self.wins = 0.0  # for the player who made ``move``
        self.children: list[Node] | None = None  # None: not expanded
        self.untried: array[int] | None = None  # moves that have no node yet
        # Priors of ``untried`` (same order), or None when all moves share one prior.
        self.priors: list[float] | None = None

    @property
    def value(self) -> float:
        """Win rate of the player who made this node's move (0.5 before any visit)."""
        return self.wins / self.visits if self.visits else 0.5

    @property
    def uniform_prior(self) -> float:
        """The prior of every move when ``priors`` is None."""
        total = len(self.children or ()) + len(self.untried or ())
        return 1.0 / total if total else 1.0

    def child(self, move: int) -> Node | None:
        for node in self.children or ():
            if node.move == move:
                return node
        return None

    def take_untried(self, index: int) -> Node:
        """Give the untried move at ``index`` a node (swap-remove) and return it."""
        untried = self.untried
        children = self.children
        assert untried is not None and children is not None
        priors = self.priors
        prior = self.uniform_prior if priors is None else priors[index]
        move = untried[index]
        untried[index] = untried[-1]
        untried.pop()
        if priors is not None:
            priors[index] = priors[-1]
            priors.pop()
        child = Node(move, prior)
        children.append(child)
        return child

    def best_untried(self) -> int:
        """Index of the untried move with the highest prior (the first on ties)."""
        priors = self.priors
        if priors is None:
            return 0
        return priors.index(max(priors))


class Selector(Protocol):
    """Picks (creating it if needed) the child of an expanded node to follow."""

    def __call__(self, node: Node) -> Node: ...


@attrs.frozen
class UctSelector:
    """UCB1: Q + c * sqrt(ln N / n), an unvisited move counting ``fpu``.

    With an infinite first-play urgency (the default) every move is tried once,
    in random order, before any is tried twice; a finite one (MoGo used about
    1) lets the search go deeper on good moves before trying the rest.
    """

    exploration: float
    rnd: Callable[[], float]
    fpu: float = math.inf

    def __call__(self, node: Node) -> Node:
        untried = node.untried
        fpu = self.fpu
        if untried and fpu == math.inf:
            return node.take_untried(int(self.rnd() * len(untried)))
        children = node.children
        assert children is not None
        best: Node | None = None
        best_score = -1.0
        if children:
            k = self.exploration * self.exploration * math.log(node.visits)
            sqrt = math.sqrt
            for child in children:
                n = child.visits
                score = child.wins / n + sqrt(k / n)
                if score > best_score:
                    best_score = score
                    best = child
        if untried and (best is None or fpu > best_score):
            return node.take_untried(int(self.rnd() * len(untried)))
        assert best is not None
        return best


@attrs.frozen
class PuctSelector:
    """Q + c * P * sqrt(N) / (1 + n); unvisited moves start at the parent's value minus a bit.

    Among untried moves the one with the highest prior competes (a random one
    when the priors are uniform).
    """

    exploration: float
    fpu_reduction: float
    rnd: Callable[[], float]

    def __call__(self, node: Node) -> Node:
        children = node.children
        assert children is not None
        scale = self.exploration * math.sqrt(node.visits)
        best: Node | None = None
        best_score = -1e300
        for child in children:
            n = child.visits
            q = child.wins / n if n else 0.0
            score = q + scale * child.prior / (1 + n)
            if score > best_score:
                best_score = score
                best = child
        untried = node.untried
        if untried:
            if node.priors is None:
                index = int(self.rnd() * len(untried))
                prior = node.uniform_prior
            else:
                index = node.best_untried()
                prior = node.priors[index]
            fpu = 1.0 - node.value - self.fpu_reduction  # the parent's value for its mover
            if best is None or fpu + scale * prior > best_score:
                return node.take_untried(index)
        assert best is not None
        return best


def make_selector(config: SearchConfig, rnd: Callable[[], float]) -> Selector:
    if config.selection == "puct":
        return PuctSelector(config.puct_exploration, config.fpu_reduction, rnd)
    return UctSelector(config.exploration, rnd, config.uct_fpu)


@attrs.frozen
class MoveStats:
    """What the search thinks of one root move."""

    move: int
    visits: int
    win_rate: float  # for the player to move at the root


@attrs.frozen
class Decision:
    """The result of a search: the move (a point, PASS or RESIGN) and why."""

    move: int
    win_rate: float  # of the chosen move (or of the best move, for RESIGN)
    root_visits: int
    principal_variation: tuple[int, ...]
    claim: bool  # the win rate passed the claim threshold


class Search:
    """A reusable MCTS player for one game; see the module docstring."""

    def __init__(self, config: SearchConfig | None = None, seed: int = 0) -> None:
        self.config = config or SearchConfig()
        self.rng = random.Random(seed)
        self._rnd = self.rng.random
        self._select = make_selector(self.config, self._rnd)
        self._playout = PLAYOUTS[self.config.policy]
        self.root = Node(PASS)
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
            self.root = Node(PASS)
            self.simulations_run = 0
        self._key = (*key, *moves)
        self.root_board = board.copy()
        self.komi = komi
        self._history = frozenset(history)
        self._ownership = [0] * board.geo.cells
        self._ownership_samples = 0
        self._prepare_root()
        return reused

    def _expected_to_move(self, moves: Sequence[tuple[int, int]], start: int) -> int:
        """Who moves next if the plays after ``start`` alternate from the old root."""
        to_move = self.root_board.to_move
        for colour, _point in moves[start:]:
            if colour != to_move:
                return EMPTY  # not a plain continuation: no reuse
            to_move = 3 - colour
        return to_move

    def _descend(self, moves: Sequence[tuple[int, int]]) -> Node | None:
        node = self.root
        for _colour, point in moves:
            child = node.child(point)
            if child is None:
                return None
            node = child
        return node

    def _prepare_root(self) -> None:
        root = self.root
        if root.children is None:
            self._expand(root, self.root_board)
        assert root.children is not None and root.untried is not None
        # Positional superko at the root: drop moves that repeat a game position.
        if self._history:
            banned = {m for m in self._legal_root_candidates() if self._repeats(m)}
            if banned:
                root.children = [c for c in root.children if c.move not in banned]
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
        noise = [gamma(alpha, 1.0) for _ in moves]
        total = sum(noise) or 1.0
        eps = self.config.noise_fraction
        mixed = {
            m: (1 - eps) * p + eps * x / total
            for m, p, x in zip(moves, priors, noise, strict=True)
        }
        for child in root.children:
            child.prior = mixed[child.move]
        root.priors = [mixed[m] for m in root.untried]

    def _expand(self, node: Node, board: FastBoard) -> None:
        """List the moves of ``node``: legal, not filling an own true eye; PASS late."""
        c = board.to_move
        eyes = true_eye_tables()[c]
        pat = board.pat
        color = board.color
        nb = board.geo.neighbours
        ko = board.ko if board.ko_colour == c else 0
        is_legal = board.is_legal
        moves = array("H")
        append = moves.append
        for p in board.empties:
            if eyes[pat[p]]:
                continue
            a, b, d, e = nb[p]
            if p != ko and not (color[a] and color[b] and color[d] and color[e]):
                append(p)  # an empty neighbour: legal
            elif is_legal(p, c):
                append(p)
        if board.passes or len(moves) <= len(board.geo.points) * self.config.pass_threshold:
            append(PASS)
        node.children = []
        node.untried = moves

    # ------------------------------------------------------------------
    # Simulations

    def simulate(self, count: int) -> int:
        """Run ``count`` simulations; returns how many ran."""
        select = self._select
        playout = self._playout
        rnd = self._rnd
        threshold = self.config.expand_threshold
        root = self.root
        root_board = self.root_board
        komi = self.komi
        root_to_move = root_board.to_move
        for _ in range(count):
            board = root_board.copy()
            node = root
            path = [node]
            while board.passes < 2:
                if node.children is None:
                    if node.visits < threshold:
                        break
                    self._expand(node, board)
                node = select(node)
                path.append(node)
                move = node.move
                if move == PASS:
                    board.play(PASS)
                else:
                    board._place(move, board.to_move)
                if not node.visits:
                    break
            if board.passes >= 2:
                score = board.area_score()
            else:
                playout(board, rnd, 0)
                score = score_terminal(board)
            margin = score - komi
            if margin > 0:
                black_result = 1.0
            elif margin < 0:
                black_result = 0.0
            else:
                black_result = 0.5
            # the root's "move" was made by the player not to move at the root
            result = black_result if root_to_move == WHITE else 1.0 - black_result
            for n in path:
                n.visits += 1
                n.wins += result
                result = 1.0 - result
            if self.track_ownership:
                self._add_ownership(board)
        self.simulations_run += count
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
        samples = self._ownership_samples
        if not samples:
            return {}
        own = self._ownership
        return {p: own[p] / samples for p in self.root_board.geo.points}

    def root_stats(self) -> list[MoveStats]:
        """The root moves with at least one visit, most visited first (then best value)."""
        children = sorted(self.root.children or (), key=lambda c: (-c.visits, -c.value, c.move))
        return [MoveStats(c.move, c.visits, c.value) for c in children if c.visits]

    def principal_variation(self, limit: int = 20) -> list[int]:
        line: list[int] = []
        node = self.root
        while node.children and len(line) < limit:
            best = max(node.children, key=lambda c: (c.visits, c.value, -c.move))
            if not best.visits:
                break
            line.append(best.move)
            node = best
        return line

    def decide(self, *, allow_resign: bool = True) -> Decision:
        """The move to play now, from the statistics gathered so far."""
        config = self.config
        stats = self.root_stats()
        root = self.root
        if not stats:
            # No simulation finished (stopped at once): the next untried move.
            moves = [m for m in (root.untried or ()) if m != PASS]
            move = moves[-1] if moves else PASS
            return Decision(move, 0.5, root.visits, (), False)
        best = stats[0]
        contenders = [s.win_rate for s in stats if s.visits >= max(1, best.visits // 4)]
        if (
            allow_resign
            and config.resign_threshold > 0
            and root.visits >= config.resign_min_visits
            and max(contenders) < config.resign_threshold
        ):
            pv = tuple(self.principal_variation())
            return Decision(RESIGN, best.win_rate, root.visits, pv, False)
        chosen = best
        if config.temperature > 0 and len(stats) > 1:
            chosen = self._sample(stats, config.temperature)
        line = self.principal_variation() if chosen.move == best.move else [chosen.move]
        # Claim when the simulations through the root, whatever they played, win.
        root_win_rate = 1.0 - root.value
        claim = (
            min(root_win_rate, best.win_rate) >= config.claim_threshold
            and root.visits >= CLAIM_MIN_VISITS
        )
        return Decision(chosen.move, chosen.win_rate, root.visits, tuple(line), claim)

    def _sample(self, stats: list[MoveStats], temperature: float) -> MoveStats:
        top = stats[0].visits
        weights = [(s.visits / top) ** (1.0 / temperature) for s in stats]
        pick = self._rnd() * sum(weights)
        for s, w in zip(stats, weights, strict=True):
            pick -= w
            if pick <= 0:
                return s
        return stats[-1]

    def node_count(self) -> int:
        """Nodes in the tree below (and including) the root."""
        count = 0
        stack = [self.root]
        while stack:
            node = stack.pop()
            count += 1
            if node.children:
                stack.extend(node.children)
        return count
