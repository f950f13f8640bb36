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

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

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


@attrs.frozen
class Decision:
    """The result of a search: the move (a point, PASS or RESIGN) and why."""

    move: int
    win_rate: float  # of the chosen move (or of the best move, for RESIGN)
    root_visits: int
    principal_variation: tuple[int, ...]
    claim: bool  # the win rate passed the claim threshold


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


def decide(
    root: Node, config: SearchConfig, rnd: Callable[[], float], *, allow_resign: bool
) -> Decision:
    """The move to play from ``root``, given the statistics gathered so far."""
    stats = root_stats(root)
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
