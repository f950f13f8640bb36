"""The search tree's nodes and the rules that choose which child to follow (pure).

Two shapes share one node class:

* **Tree** (``structure = "tree"``): a :class:`Node` is both a position and the
  move that reached it.  ``visits`` / ``wins`` count the simulations through
  it, ``wins`` for the player who made ``move``.  Without RAVE or priors the
  children are created lazily from an ``untried`` list; with them every legal
  move gets its node when the parent is expanded (AMAF statistics need a place
  from the start).
* **Graph** (``structure = "graph"``, Monte-Carlo graph search as in
  ``seed-katago-monte-carlo-graph-search.txt``): a :class:`Position` is one
  position shared by every path that reaches it; its ``children`` are *edges*
  (plain :class:`Node` objects) whose ``visits`` are the edge visit counts
  N(n, a) and whose ``pos`` is the position the move leads to.  A position's
  value ``q`` is recomputed from scratch on every visit:
  ``q = (usum + sum(N(n, a) * (1 - q(child)))) / (ucount + sum(N(n, a)))``,
  where ``usum / ucount`` are the playouts run from the position itself.

Every node also carries prior knowledge (``prior_visits`` / ``prior_wins``,
virtual simulations from :mod:`engines.mcts.priors`), AMAF statistics for RAVE
(``amaf_visits`` / ``amaf_wins``, which start at the prior too) and, in graph
mode, ``pending``: edge visits handed out to simulations that have not come
back yet (they count as losses while they are out: a virtual loss).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from operator import attrgetter
from typing import Literal, Protocol

import attrs

from engines.mcts.fastboard import NATIVE

SelectionName = Literal["uct", "puct"]
RaveName = Literal["off", "k", "mse"]


class Node:
    """A tree node (position and move) or, in graph mode, an edge."""

    __slots__ = (
        "amaf_visits",
        "amaf_wins",
        "children",
        "hits",
        "mc",
        "move",
        "pending",
        "pos",
        "prior",
        "prior_visits",
        "prior_wins",
        "priors",
        "score",
        "tn",
        "untried",
        "visits",
        "wins",
    )

    def __init__(
        self,
        move: int,
        prior: float = 0.0,
        prior_visits: float = 0.0,
        prior_wins: float = 0.0,
        score: float = 0.0,
    ) -> None:
        self.move = move
        self.prior = prior  # PUCT's prior probability
        self.visits = 0  # simulations handed out through this node (or edge)
        self.wins = 0.0  # tree mode: results for the player who made ``move``
        self.children: list[Node] | None = None  # None: not expanded
        # RAVE's backup: ``children``, its length and a getter of the children's
        # moves from an AMAF table, made at the first backup through them
        self.hits: tuple[list[Node], int, Callable[[bytearray], tuple[int, ...]]] | None = None
        self.untried: array[int] | None = None  # moves that have no node yet
        # Priors of ``untried`` (same order), or None when all moves share one prior.
        self.priors: list[float] | None = None
        self.prior_visits = prior_visits  # heuristic equivalent experience ...
        self.prior_wins = prior_wins  # ... and its wins for the mover
        # AMAF statistics start from the prior too (Gelly & Silver 2011, eqs. 48-51)
        self.amaf_visits = prior_visits
        self.amaf_wins = prior_wins
        self.pending = 0  # graph mode: edge visits still out (virtual losses)
        self.pos: Position | None = None  # graph mode: the position this edge leads to
        # When the search keeps selection values (see ScoredSelector): the value,
        # and the parts of it that change only with a visit, the visits with the
        # prior's and the Monte-Carlo value with the prior's wins (0 without any)
        self.score = score
        self.tn = prior_visits
        self.mc = prior_wins / prior_visits if prior_visits else 0.0

    @property
    def value(self) -> float:
        """Win rate of the player who made this node's move (0.5 before any visit)."""
        pos = self.pos
        if pos is not None:
            return pos.q if self.visits else 0.5
        return self.wins / self.visits if self.visits else 0.5

    @property
    def kids(self) -> list[Node] | None:
        """The moves from the position this node stands for (through ``pos`` for edges)."""
        pos = self.pos
        return pos.children if pos is not None else self.children

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


class Position(Node):
    """Graph mode: one position, shared by every path that reaches it."""

    __slots__ = ("q", "ucount", "usum")

    def __init__(self) -> None:
        super().__init__(0)
        self.q = 0.5  # value for the player who moved into this position
        self.usum = 0.0  # playout results (for that player) run from here
        self.ucount = 0

    @property
    def value(self) -> float:
        return self.q

    @property
    def kids(self) -> list[Node] | None:
        return self.children

    def recompute(self) -> None:
        """Q from its own playouts and its edges' children, weighted by edge visits."""
        total = self.usum
        count = self.ucount
        for edge in self.children or ():
            real = edge.visits - edge.pending
            pos = edge.pos
            if real and pos is not None:
                total += real * (1.0 - pos.q)
                count += real
        if count:
            self.q = total / count


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
            k = self.exploration * self.exploration * math.log(max(node.visits, 1))
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


@attrs.frozen
class BlendSelector:
    """Selection over fully expanded nodes with priors, RAVE, and tree or graph values.

    The Monte-Carlo value of a move counts its prior as extra simulations,
    ``(wins + prior_wins) / (visits + prior_visits)``; in graph mode ``wins``
    is the edge's real visits times the child position's value.  With RAVE it
    is blended with the AMAF value, ``(1 - beta) * Q + beta * Q_amaf``, where
    ``beta = sqrt(k / (3 N + k))`` (hand-selected schedule, equivalence
    parameter k) or ``beta = n~ / (n + n~ + 4 n n~ b^2)`` (minimum-MSE
    schedule, RAVE bias b), Gelly & Silver 2011 eqs. 19 and 47.  Then UCT adds
    ``c * sqrt(ln N / (n + 1))`` (0 by default with RAVE: the AMAF values
    explore) or PUCT adds ``c * P * sqrt(N) / (1 + n)``.  A move with no
    information at all is worth ``fpu`` (UCT) or the parent's value minus the
    reduction (PUCT).  Ties go to the first child; children are shuffled when
    created.
    """

    kind: SelectionName
    exploration: float
    rave: RaveName
    rave_k: float
    rave_bias: float
    graph: bool
    fpu: float
    fpu_reduction: float

    def __call__(self, node: Node) -> Node:
        children = node.children
        assert children
        parent_visits = node.visits
        rave = self.rave != "off"
        beta_k = (
            math.sqrt(self.rave_k / (3 * parent_visits + self.rave_k)) if self.rave == "k" else 0.0
        )
        b4 = 4.0 * self.rave_bias * self.rave_bias
        puct = self.kind == "puct"
        if puct:
            scale = self.exploration * math.sqrt(parent_visits)
            fpu = 1.0 - node.value - self.fpu_reduction
            c2 = 0.0
        else:
            scale = 0.0
            fpu = self.fpu
            c2 = self.exploration**2 * math.log(parent_visits) if parent_visits > 1 else 0.0
        if rave and not puct and not c2 and not self.graph:
            return _greedy_rave(children, beta_k, b4, fpu)
        graph = self.graph
        sqrt = math.sqrt
        best = children[0]
        best_score = -math.inf
        for child in children:
            n = child.visits
            if graph:
                pos = child.pos
                real = n - child.pending
                w = real * pos.q if real and pos is not None else 0.0
            else:
                w = child.wins
            tn = n + child.prior_visits
            an = child.amaf_visits
            if tn:
                q = (w + child.prior_wins) / tn
                if rave and an:
                    beta = beta_k or an / (an + tn + b4 * an * tn)
                    q += beta * (child.amaf_wins / an - q)
            elif rave and an:
                q = child.amaf_wins / an
            else:
                q = fpu
            if puct:
                q += scale * child.prior / (1 + n)
            elif c2:
                q += sqrt(c2 / (tn + 1))
            if q > best_score:
                best_score = q
                best = child
        return best


@attrs.frozen
class ScoredSelector:
    """:class:`BlendSelector` for tree, minimum-MSE RAVE and no exploration term, kept up to date.

    There a child's value depends on its own statistics alone, so the search
    stores it in ``score`` whenever they change (:func:`refresh_score`) and
    selection is a maximum over stored numbers, the first child on ties, as
    :class:`BlendSelector` would choose.
    """

    def __call__(self, node: Node) -> Node:
        return best_scored(node)


def best_scored(node: Node) -> Node:
    """:class:`ScoredSelector`'s choice: the child with the highest ``score``, the first on ties.

    A function too, so that the search calls it directly where it runs compiled.
    """
    children = node.children
    assert children
    if not NATIVE:  # interpreted, C's max() beats a Python loop
        return max(children, key=_score_of)
    # compiled, a loop reads each score from the node's struct (max() would
    # box it and compare Python floats); the same choice, the first on ties
    best = children[0]
    best_score = best.score
    for child in children:
        score = child.score
        if score > best_score:
            best_score = score
            best = child
    return best


_score_of = attrgetter("score")


def refresh_score(child: Node, b4: float, fpu: float) -> None:
    """Recompute ``child``'s ``tn``, ``mc`` and ``score`` after its visits or wins changed.

    ``score`` is the value :class:`BlendSelector` gives the child under
    minimum-MSE RAVE without exploration, with the same arithmetic in the same
    order as ``_greedy_rave``; ``b4`` is four times the squared RAVE bias and
    ``fpu`` the value of a move with no information.
    """
    tn = child.visits + child.prior_visits
    child.tn = tn
    an = child.amaf_visits
    if tn:
        q = (child.wins + child.prior_wins) / tn
        child.mc = q
        if an:
            aq = child.amaf_wins / an
            q += an / (an + tn + b4 * an * tn) * (aq - q)
        child.score = q
    elif an:
        child.score = child.amaf_wins / an
    else:
        child.score = fpu


def _greedy_rave(children: list[Node], beta_k: float, b4: float, fpu: float) -> Node:
    """The common case of :class:`BlendSelector` written out: tree, RAVE, no exploration term."""
    best = children[0]
    best_score = -math.inf
    for child in children:
        tn = child.visits + child.prior_visits
        an = child.amaf_visits
        if tn:
            q = (child.wins + child.prior_wins) / tn
            if an:
                aq = child.amaf_wins / an
                q += (beta_k or an / (an + tn + b4 * an * tn)) * (aq - q)
        elif an:
            q = child.amaf_wins / an
        else:
            q = fpu
        if q > best_score:
            best_score = q
            best = child
    return best
