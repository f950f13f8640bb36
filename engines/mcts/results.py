"""What a search concludes (pure): root statistics, principal variations, the move to play.

Owns the reading side of :class:`~engines.mcts.search.Search`: the statistics
of the root moves that the GTP layer reports, the principal variation from
the root or from one root move, the decision (most visits, or sampled with a
temperature; resignation and claims) and the size of the tree.  These
functions only read the nodes of :mod:`engines.mcts.tree` (sampling draws
from the search's random numbers); the :class:`Search` methods of the same
names finish the simulations still out with workers first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final, Literal

import attrs

from engines.mcts.fastboard import PASS
from engines.mcts.tree import Node

if TYPE_CHECKING:
    from engines.mcts.search import SearchConfig

RESIGN: Final = -1  # a "move" the search can return besides points and PASS
CLAIM_MIN_VISITS: Final = 16  # a claim needs at least this many root visits
PV_LENGTH: Final = 20  # moves in a principal variation unless asked otherwise


@attrs.frozen
class MoveStats:
    """What the search thinks of one root move."""

    move: int
    visits: int
    win_rate: float  # for the player to move at the root
    prior: float = 0.0  # the move's prior probability (uniform without heuristic priors)


DecisionBasis = Literal["search", "priors", "score"]


@attrs.frozen
class Decision:
    """The result of a search: the move (a point, PASS or RESIGN) and why.

    ``basis`` says what chose it: the search's statistics, the priors alone
    (no simulation had finished: :func:`best_by_priors`), or the score on the
    board (a pass that ends a game the engine leads).
    """

    move: int
    win_rate: float  # of the chosen move (or of the best move, for RESIGN)
    root_visits: int
    principal_variation: tuple[int, ...]
    claim: bool  # the win rate passed the claim threshold
    basis: DecisionBasis = "search"


def root_stats(root: Node) -> list[MoveStats]:
    """The root moves with at least one visit, most visited first (then best value)."""
    children = sorted(root.children or (), key=lambda c: (-c.visits, -c.value, c.move))
    return [MoveStats(c.move, c.visits, c.value, c.prior) for c in children if c.visits]


def line_from(node: Node, limit: int) -> list[int]:
    """The most visited moves below ``node``, one a ply, at most ``limit``."""
    line: list[int] = []
    kids = node.kids
    while kids and len(line) < limit:
        best = max(kids, key=lambda c: (c.visits, c.value, -c.move))
        if not best.visits:
            break
        line.append(best.move)
        kids = best.kids
    return line


def losing(root: Node, config: SearchConfig) -> bool:
    """Whether the search below ``root`` finds the game lost: every move searched
    about as much as the best (at least a quarter of its visits) wins less often
    than ``resign_threshold``, with ``resign_min_visits`` at the root."""
    return _losing(root, root_stats(root), config)


def _losing(root: Node, stats: Sequence[MoveStats], config: SearchConfig) -> bool:
    if not stats or config.resign_threshold <= 0 or root.visits < config.resign_min_visits:
        return False
    floor = max(1, stats[0].visits // 4)
    contenders = [s.win_rate for s in stats if s.visits >= floor]
    return max(contenders) < config.resign_threshold


def decide(
    root: Node, config: SearchConfig, rnd: Callable[[], float], *, allow_resign: bool
) -> Decision:
    """The move to play from ``root``, given the statistics gathered so far."""
    stats = root_stats(root)
    if not stats:
        # No simulation finished: the root's own priors (Search.decide brings its
        # heuristic when the root holds none).
        moves, priors = root_priors(root)
        return best_by_priors(moves, priors, root.visits)
    best = stats[0]
    if allow_resign and _losing(root, stats, config):
        pv = tuple(line_from(root, PV_LENGTH))
        return Decision(RESIGN, best.win_rate, root.visits, pv, False)
    chosen = best
    if config.temperature > 0 and len(stats) > 1:
        chosen = _sample(stats, config.temperature, rnd)
    line = line_from(root, PV_LENGTH) if chosen.move == best.move else [chosen.move]
    # Claim when the simulations through the root, whatever they played, win.
    root_win_rate = 1.0 - root.value
    claim = (
        min(root_win_rate, best.win_rate) >= config.claim_threshold
        and root.visits >= CLAIM_MIN_VISITS
    )
    return Decision(chosen.move, chosen.win_rate, root.visits, tuple(line), claim)


def root_priors(root: Node) -> tuple[list[int], list[tuple[float, float]]]:
    """The root's moves other than PASS and their (visits, wins) priors, as expansion left them.

    Moves without a node yet (lazy expansion) have no prior of their own:
    they count as even, 0.5 with no confidence.
    """
    moves: list[int] = []
    priors: list[tuple[float, float]] = []
    for child in root.children or ():
        if child.move != PASS:
            moves.append(child.move)
            priors.append((child.prior_visits, child.prior_wins))
    for move in root.untried or ():
        if move != PASS:
            moves.append(move)
            priors.append((0.0, 0.0))
    return moves, priors


def best_by_priors(
    moves: Sequence[int], priors: Sequence[tuple[float, float]], root_visits: int
) -> Decision:
    """The move to play with no statistics: the best prior win rate, else PASS.

    ``moves`` are the root's (legal, none filling an own true eye, none
    repeating a position); ties go to the first, and the root lists its
    moves in a shuffled order.  A pass only when no such move exists, and
    never a resignation: that needs statistics.
    """
    if not moves:
        return Decision(PASS, 0.5, root_visits, (), False, "priors")

    def rate(i: int) -> float:
        visits, wins = priors[i]
        return wins / visits if visits > 0 else 0.5

    best = max(range(len(moves)), key=rate)
    return Decision(moves[best], rate(best), root_visits, (moves[best],), False, "priors")


def _sample(stats: list[MoveStats], temperature: float, rnd: Callable[[], float]) -> MoveStats:
    top = stats[0].visits
    weights = [(s.visits / top) ** (1.0 / temperature) for s in stats]
    pick = rnd() * sum(weights)
    for s, w in zip(stats, weights, strict=True):
        pick -= w
        if pick <= 0:
            return s
    return stats[-1]


def node_count(root: Node) -> int:
    """Nodes below (and including) ``root``; positions and edges in a graph."""
    count = 0
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        count += 1
        kids = node.children
        if kids:
            for kid in kids:
                pos = kid.pos
                if pos is None:
                    stack.append(kid)
                else:
                    count += 1  # the edge
                    if id(pos) not in seen:
                        seen.add(id(pos))
                        stack.append(pos)
    return count
