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
from typing import Final, Literal, Protocol, cast

import attrs
from librt.vecs import vec
from mypy_extensions import i64

from engines.mcts.fastboard import NATIVE, int_array

SelectionName = Literal["uct", "puct"]
RaveName = Literal["off", "k", "mse"]


class Node:
    """A tree node (position and move) or, in graph mode, an edge."""

    __slots__ = (
        "_amaf_visits",
        "_amaf_wins",
        "_mc",
        "_score",
        "_tn",
        "child_nodes",
        "home",
        "move",
        "pending",
        "pos",
        "prior",
        "prior_visits",
        "prior_wins",
        "priors",
        "slot",
        "stats",
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
        # The children (None: not expanded); with ``stats``, None where a child has
        # no node yet (see ``children``)
        self.child_nodes: list[Node | None] | None = None
        self.untried: array[int] | None = None  # moves that have no node yet
        # Priors of ``untried`` (same order), or None when all moves share one prior.
        self.priors: list[float] | None = None
        self.prior_visits = prior_visits  # heuristic equivalent experience ...
        self.prior_wins = prior_wins  # ... and its wins for the mover
        # AMAF statistics start from the prior too (Gelly & Silver 2011, eqs. 48-51)
        self._amaf_visits = prior_visits
        self._amaf_wins = prior_wins
        self.pending = 0  # graph mode: edge visits still out (virtual losses)
        self.pos: Position | None = None  # graph mode: the position this edge leads to
        # When the search keeps selection values (see ScoredSelector): the value,
        # and the parts of it that change only with a visit, the visits with the
        # prior's and the Monte-Carlo value with the prior's wins (0 without any)
        self._score = score
        self._tn = prior_visits
        self._mc = prior_wins / prior_visits if prior_visits else 0.0
        # The statistics of the children when expansion made them all at once (see
        # ChildStats), and the ChildStats holding this node's own (``home``, at
        # ``slot``), if any: the five properties below read and write there then,
        # the node's fields otherwise.
        self.stats: ChildStats | None = None
        self.home: ChildStats | None = None
        self.slot = 0

    @property
    def amaf_visits(self) -> float:
        home = self.home
        return self._amaf_visits if home is None else home.amaf_visits[self.slot]

    @amaf_visits.setter
    def amaf_visits(self, value: float) -> None:
        home = self.home
        if home is None:
            self._amaf_visits = value
        else:
            home.amaf_visits[self.slot] = value

    @property
    def amaf_wins(self) -> float:
        home = self.home
        return self._amaf_wins if home is None else home.amaf_wins[self.slot]

    @amaf_wins.setter
    def amaf_wins(self, value: float) -> None:
        home = self.home
        if home is None:
            self._amaf_wins = value
        else:
            home.amaf_wins[self.slot] = value

    @property
    def score(self) -> float:
        home = self.home
        return self._score if home is None else home.score[self.slot]

    @score.setter
    def score(self, value: float) -> None:
        home = self.home
        if home is None:
            self._score = value
        else:
            home.score[self.slot] = value

    @property
    def tn(self) -> float:
        home = self.home
        return self._tn if home is None else home.tn[self.slot]

    @tn.setter
    def tn(self, value: float) -> None:
        home = self.home
        if home is None:
            self._tn = value
        else:
            home.tn[self.slot] = value

    @property
    def mc(self) -> float:
        home = self.home
        return self._mc if home is None else home.mc[self.slot]

    @mc.setter
    def mc(self, value: float) -> None:
        home = self.home
        if home is None:
            self._mc = value
        else:
            home.mc[self.slot] = value

    @property
    def children(self) -> list[Node] | None:
        """The children (None: not expanded), every one given its node first."""
        kids = self.child_nodes
        stats = self.stats
        if kids is not None and stats is not None and None in kids:
            for k in range(len(kids)):
                if kids[k] is None:
                    self.make_child(k)
        return kids  # type: ignore[return-value]  # (no None left; no cast: a call interpreted)

    @children.setter
    def children(self, children: list[Node] | None) -> None:
        """Children made elsewhere (their statistics stay where they are)."""
        self.child_nodes = cast("list[Node | None] | None", children)
        self.stats = None

    def make_child(self, k: int) -> Node:
        """The child at ``k`` of a node expanded with ChildStats, its node made if need be."""
        kids = self.child_nodes
        stats = self.stats
        assert kids is not None and stats is not None
        child = kids[k]
        if child is None:
            child = Node(stats.moves[k], stats.prior[k], stats.prior_visits[k], stats.prior_wins[k])
            child.home = stats
            child.slot = k
            kids[k] = child
        return child

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
        total = len(self.child_nodes or ()) + len(self.untried or ())
        return 1.0 / total if total else 1.0

    def child(self, move: int) -> Node | None:
        stats = self.stats
        if stats is not None:
            for k in range(len(stats.moves)):
                if stats.moves[k] == move:
                    return self.make_child(k)
            return None
        for node in self.children or ():
            if node.move == move:
                return node
        return None

    def take_untried(self, index: int) -> Node:
        """Give the untried move at ``index`` a node (swap-remove) and return it."""
        untried = self.untried
        # (lazy expansion: no ChildStats, every child a node; read without the property)
        children: list[Node] | None = self.child_nodes  # type: ignore[assignment]
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


class ChildStats:
    """The children of a node expanded all at once, one item a child in their order: the
    moves, the priors (probability, visits, wins), the AMAF visits and wins, and the
    stored selection value and its parts ``tn`` and ``mc`` (see :class:`Node`).

    The loops over every child (the selection scan, the backup's AMAF update)
    walk these consecutive arrays (native compiled, see :func:`float_array`)
    instead of a node object each, and a child gets its node only when the
    search first follows it (:meth:`Node.make_child`; most never are).  A child
    with a node reads and writes its own items here (it is at ``home``).
    """

    __slots__ = (
        "amaf_visits",
        "amaf_wins",
        "hits",
        "mc",
        "moves",
        "prior",
        "prior_visits",
        "prior_wins",
        "score",
        "tn",
    )

    def __init__(self, n: int) -> None:
        """Room for ``n`` children, every item 0."""
        self.moves = _int_zeros(n)
        self.prior = _float_zeros(n)
        self.prior_visits = _float_zeros(n)
        self.prior_wins = _float_zeros(n)
        self.amaf_visits = _float_zeros(n)
        self.amaf_wins = _float_zeros(n)
        self.score = _float_zeros(n)
        self.tn = _float_zeros(n)
        self.mc = _float_zeros(n)
        # interpreted, the backup's getter of the children's moves from an AMAF table
        self.hits: Callable[[bytearray], tuple[int, ...]] | None = None


def float_array(items: list[float]) -> vec[float]:
    """A float array holding ``items``: a vec compiled, the list interpreted (see ``NATIVE``)."""
    if NATIVE:
        return vec[float](items)
    return items  # type: ignore[return-value]


_FLOAT_ZEROS: Final = float_array([0.0] * 400)
_INT_ZEROS: Final = int_array([0] * 400)


def _float_zeros(n: int) -> vec[float]:
    if n <= len(_FLOAT_ZEROS):
        return _FLOAT_ZEROS[:n]  # compiled, a copy of native memory
    return float_array([0.0] * n)


def _int_zeros(n: int) -> vec[i64]:
    if n <= len(_INT_ZEROS):
        return _INT_ZEROS[:n]
    return int_array([0] * n)


def set_children(node: Node, children: list[Node]) -> None:
    """Make ``children`` (nodes) the children of ``node``, their statistics in a new ChildStats."""
    stats = ChildStats(len(children))
    for k, child in enumerate(children):
        stats.moves[k] = child.move
        stats.prior[k] = child.prior
        stats.prior_visits[k] = child.prior_visits
        stats.prior_wins[k] = child.prior_wins
        stats.amaf_visits[k] = child.amaf_visits
        stats.amaf_wins[k] = child.amaf_wins
        stats.score[k] = child.score
        stats.tn[k] = child.tn
        stats.mc[k] = child.mc
    for k, child in enumerate(children):
        child.home = stats
        child.slot = k
    node.child_nodes = cast("list[Node | None]", children)
    node.stats = stats


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
        for edge in self.child_nodes or ():
            if edge is None:
                continue  # no node: never followed
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
        # (lazy expansion: every child a node; read without the property)
        children: list[Node] | None = node.child_nodes  # type: ignore[assignment]
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
        # (lazy expansion: every child a node; read without the property)
        children: list[Node] | None = node.child_nodes  # type: ignore[assignment]
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
        assert node.child_nodes
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
            return _greedy_rave(node, beta_k, b4, fpu)
        graph = self.graph
        sqrt = math.sqrt
        kids = node.child_nodes
        stats = node.stats
        assert kids
        best = 0
        best_score = -math.inf
        for k in range(len(kids)):
            child = kids[k]
            # a child's statistics: in the node's arrays when it has them (see
            # ChildStats; a child without a node has no visits), else in the child
            if stats is None:
                assert child is not None
                prior = child.prior
                prior_visits = child.prior_visits
                prior_wins = child.prior_wins
                an = child.amaf_visits
                amaf_wins = child.amaf_wins
            else:
                prior = stats.prior[k] if child is None else child.prior
                prior_visits = stats.prior_visits[k]
                prior_wins = stats.prior_wins[k]
                an = stats.amaf_visits[k]
                amaf_wins = stats.amaf_wins[k]
            n = 0
            w = 0.0
            if child is not None:
                n = child.visits
                if graph:
                    pos = child.pos
                    real = n - child.pending
                    w = real * pos.q if real and pos is not None else 0.0
                else:
                    w = child.wins
            tn = n + prior_visits
            if tn:
                q = (w + prior_wins) / tn
                if rave and an:
                    beta = beta_k or an / (an + tn + b4 * an * tn)
                    q += beta * (amaf_wins / an - q)
            elif rave and an:
                q = amaf_wins / an
            else:
                q = fpu
            if puct:
                q += scale * prior / (1 + n)
            elif c2:
                q += sqrt(c2 / (tn + 1))
            if q > best_score:
                best_score = q
                best = k
        chosen = kids[best]
        return chosen if chosen is not None else node.make_child(best)


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
    kids = node.child_nodes
    stats = node.stats
    assert kids and stats is not None
    scores = stats.score
    if not NATIVE:  # interpreted, C's max() and index() beat a Python loop
        values: list[float] = scores  # type: ignore[assignment]  # (a list interpreted)
        first = values.index(max(values))
        return kids[first] or node.make_child(first)
    # compiled, a loop over the native array of scores (max() would box each
    # one and compare Python floats); the same choice, the first on ties
    k: i64
    best: i64 = 0
    best_score = scores[0]
    for k in range(1, len(scores)):
        score = scores[k]
        if score > best_score:
            best_score = score
            best = k
    child = kids[best]
    return child if child is not None else node.make_child(best)


def refresh_score(child: Node, b4: float, fpu: float) -> None:
    """Recompute ``child``'s ``tn``, ``mc`` and ``score`` after its visits or wins changed.

    ``score`` is the value :class:`BlendSelector` gives the child under
    minimum-MSE RAVE without exploration, with the same arithmetic in the same
    order as ``_greedy_rave``; ``b4`` is four times the squared RAVE bias and
    ``fpu`` the value of a move with no information.
    """
    tn = child.visits + child.prior_visits
    home = child.home
    k = child.slot
    # read and written where the child keeps them (its home), without the properties
    if home is None:
        an = child._amaf_visits
        aw = child._amaf_wins
        mc = child._mc
    else:
        an = home.amaf_visits[k]
        aw = home.amaf_wins[k]
        mc = home.mc[k]
    if tn:
        q = (child.wins + child.prior_wins) / tn
        mc = q
        if an:
            aq = aw / an
            q += an / (an + tn + b4 * an * tn) * (aq - q)
        score = q
    elif an:
        score = aw / an
    else:
        score = fpu
    if home is None:
        child._tn = tn
        child._mc = mc
        child._score = score
    else:
        home.tn[k] = tn
        home.mc[k] = mc
        home.score[k] = score


def _greedy_rave(node: Node, beta_k: float, b4: float, fpu: float) -> Node:
    """The common case of :class:`BlendSelector` written out: tree, RAVE, no exploration term."""
    kids = node.child_nodes
    stats = node.stats
    assert kids
    best = 0
    best_score = -math.inf
    for k in range(len(kids)):
        child = kids[k]
        # (read as BlendSelector reads them)
        if stats is None:
            assert child is not None
            prior_visits = child.prior_visits
            prior_wins = child.prior_wins
            an = child.amaf_visits
            amaf_wins = child.amaf_wins
        else:
            prior_visits = stats.prior_visits[k]
            prior_wins = stats.prior_wins[k]
            an = stats.amaf_visits[k]
            amaf_wins = stats.amaf_wins[k]
        n = 0
        w = 0.0
        if child is not None:
            n = child.visits
            w = child.wins
        tn = n + prior_visits
        if tn:
            q = (w + prior_wins) / tn
            if an:
                aq = amaf_wins / an
                q += (beta_k or an / (an + tn + b4 * an * tn)) * (aq - q)
        elif an:
            q = amaf_wins / an
        else:
            q = fpu
        if q > best_score:
            best_score = q
            best = k
    chosen = kids[best]
    return chosen if chosen is not None else node.make_child(best)
