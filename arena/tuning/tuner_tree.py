"""The Monte Carlo tuner's pure core: the parameter space and the UCB/UCT tree.

Owns how a node's division of optimiser space (the unit cube, one axis per
parameter) is split among its children and sampled at the centres (the
scales are in :mod:`arena.tuning.tuner_scales`), and the bandit itself
(:class:`TunerTree`): choosing the candidate for the next game, expanding a
candidate chosen for the second time (``max_depth`` > 1), recording results
along the path, the best candidate, and the JSON form of the tree.

The default rule (``ucb``) is the one in Gomill's documentation: a node's
value is ``w/g + E*sqrt(log(g_p)/g)``, where ``g`` and ``w`` start at
``initial_visits`` and ``initial_wins`` and ``g_p`` is the parent's ``g``.
The other rule (``kl-ucb``, Garivier & Cappé 2011) takes the largest win
rate ``q`` with ``g*KL(w/g, q) <= log(g_p) + 3*log(log(g_p))``, KL being the
divergence between two Bernoulli laws: the bound is as wide as the win
rate's own variance allows, not a fixed ``E`` times Hoeffding's width, so a
candidate that lost its first games is not written off for good.
The root is initialised like every other node, so for the first generation
``g_p`` is the number of games played plus ``initial_visits`` (which keeps
``log g_p`` defined from the first game).  Exact ties are broken by the
caller's random choice.  Games in flight add to ``g`` (and to the parent's
``g_p``) but not to ``w`` until their result arrives (a *virtual loss*), so
parallel slots spread over the candidates instead of all taking the same one.

No I/O and no global randomness: the caller passes the tie-breaker.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

import attrs

Path = tuple[int, ...]  # child indices from the root; () is the root
TieBreaker = Callable[[int], int]  # n -> an index in range(n)
SelectionRule = Literal["ucb", "kl-ucb"]
SELECTION_RULES: tuple[SelectionRule, ...] = ("ucb", "kl-ucb")
KL_UCB_C = 3.0  # the log-log term's coefficient in Garivier & Cappé's analysis


def bernoulli_kl(p: float, q: float) -> float:
    """KL(Bernoulli(p) || Bernoulli(q)), with q kept inside (0, 1)."""
    q = min(max(q, 1e-15), 1.0 - 1e-15)
    total = 0.0
    if p > 0.0:
        total += p * math.log(p / q)
    if p < 1.0:
        total += (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return total


def kl_ucb_index(wins: float, visits: float, parent_visits: float) -> float:
    """The KL-UCB bound: the largest q >= wins/visits with visits*KL(wins/visits, q) <= f(t).

    ``f(t) = log t + 3 log log t`` (the log-log term counts once ``log t > 1``).
    Found by bisection to about 1e-9.
    """
    mean = min(max(wins / visits, 0.0), 1.0)
    log_t = math.log(max(parent_visits, 1.0))
    budget = (log_t + KL_UCB_C * math.log(max(log_t, 1.0))) / visits
    low, high = mean, 1.0
    for _ in range(30):
        middle = (low + high) / 2.0
        if bernoulli_kl(mean, middle) > budget:
            high = middle
        else:
            low = middle
    return low


# ---------------------------------------------------------------------------
# The parameter space


@attrs.frozen
class Space:
    """How candidates are laid out: one split per parameter, children in row-major order."""

    splits: tuple[int, ...]

    @property
    def branching(self) -> int:
        return math.prod(self.splits)

    def coordinates(self, index: int) -> tuple[int, ...]:
        """Child ``index`` as one coordinate per parameter (the first parameter varies slowest)."""
        coords: list[int] = []
        for split in reversed(self.splits):
            index, coord = divmod(index, split)
            coords.append(coord)
        return tuple(reversed(coords))

    def index(self, coordinates: Sequence[int]) -> int:
        if len(coordinates) != len(self.splits):
            raise ValueError(f"expected {len(self.splits)} coordinates, not {len(coordinates)}")
        index = 0
        for coord, split in zip(coordinates, self.splits, strict=True):
            if not 0 <= coord < split:
                raise ValueError(f"coordinate {coord} is outside 0..{split - 1}")
            index = index * split + coord
        return index

    def optimiser_parameters(self, path: Path) -> tuple[float, ...]:
        """The centre of the division that ``path`` leads to (one value in [0, 1) per axis)."""
        lows = [0.0] * len(self.splits)
        widths = [1.0] * len(self.splits)
        for child in path:
            for axis, coord in enumerate(self.coordinates(child)):
                widths[axis] /= self.splits[axis]
                lows[axis] += coord * widths[axis]
        return tuple(low + width / 2.0 for low, width in zip(lows, widths, strict=True))

    def label(self, path: Path) -> str:
        """``(0,1)`` for a first-generation candidate, ``(0,1)(2,2)`` for its child."""
        return "".join(
            "(" + ",".join(str(c) for c in self.coordinates(child)) + ")" for child in path
        )

    def player_code(self, path: Path) -> str:
        """``#0,1``, ``#0,1:2,2``: cannot clash with control-file player codes (no ``#``)."""
        return "#" + ":".join(",".join(str(c) for c in self.coordinates(child)) for child in path)

    def parse_player_code(self, code: str) -> Path:
        """Inverse of :meth:`player_code`; ValueError when ``code`` is not one."""
        if not code.startswith("#") or len(code) < 2:
            raise ValueError(f"{code!r} is not a tuner candidate code")
        path = []
        for level in code[1:].split(":"):
            try:
                coords = [int(text) for text in level.split(",")]
            except ValueError:
                raise ValueError(f"{code!r} is not a tuner candidate code") from None
            path.append(self.index(coords))
        return tuple(path)


# ---------------------------------------------------------------------------
# The tree


@attrs.define(eq=False)
class Node:
    """A candidate: its counts (``visits``/``wins`` include the initial ones) and children.

    ``pending`` counts games in flight for this node and its descendants; it
    is not saved (games in flight are replayed after a restart).
    """

    initial_visits: int
    initial_wins: int
    games: int = 0
    won: int = 0
    children: list[Node] | None = None
    pending: int = 0

    @property
    def visits(self) -> int:
        return self.initial_visits + self.games

    @property
    def wins(self) -> int:
        return self.initial_wins + self.won

    @property
    def win_rate(self) -> float:
        return self.wins / self.visits

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "iv": self.initial_visits,
            "iw": self.initial_wins,
            "g": self.games,
            "w": self.won,
        }
        if self.children is not None:
            data["c"] = [child.to_json() for child in self.children]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any], branching: int) -> Node:
        """Raises ValueError (or KeyError/TypeError) for data that does not fit."""
        values = [data["iv"], data["iw"], data["g"], data["w"]]
        if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in values):
            raise ValueError(f"bad node counts {values!r}")
        node = cls(*values)
        if node.initial_visits < 1:
            raise ValueError("a node has no initial visits")
        if "c" in data:
            children = data["c"]
            if not isinstance(children, list) or len(children) != branching:
                raise ValueError(f"a node has {len(children)} children, expected {branching}")
            node.children = [cls.from_json(child, branching) for child in children]
        return node


@attrs.define
class TunerTree:
    """The bandit over candidates (see the module docstring for the rule)."""

    space: Space
    root: Node
    exploration_coefficient: float
    initial_visits: int
    initial_wins: int
    max_depth: int = 1
    virtual_loss: bool = True  # count games in flight as visits (parallel runs)
    rule: SelectionRule = "ucb"

    @classmethod
    def new(
        cls,
        space: Space,
        *,
        exploration_coefficient: float,
        initial_visits: int,
        initial_wins: int,
        max_depth: int = 1,
        virtual_loss: bool = True,
        rule: SelectionRule = "ucb",
    ) -> TunerTree:
        tree = cls(
            space,
            Node(initial_visits, initial_wins),
            exploration_coefficient,
            initial_visits,
            initial_wins,
            max_depth,
            virtual_loss,
            rule,
        )
        tree.expand(tree.root)
        return tree

    # -- structure ------------------------------------------------------------

    def expand(self, node: Node) -> None:
        if node.children is None:
            node.children = [
                Node(self.initial_visits, self.initial_wins) for _ in range(self.space.branching)
            ]

    def node(self, path: Path) -> Node:
        node = self.root
        for index in path:
            if node.children is None:
                raise KeyError(path)
            node = node.children[index]
        return node

    def ensure_path(self, path: Path) -> Node:
        """The node at ``path``, expanding on the way (replaying a result after a crash)."""
        node = self.root
        for index in path:
            self.expand(node)
            assert node.children is not None
            node = node.children[index]
        return node

    def walk(self) -> Iterator[tuple[Path, Node]]:
        """Every candidate (not the root), parents before children, in index order."""
        stack: list[tuple[Path, Node]] = [((), self.root)]
        while stack:
            path, node = stack.pop()
            if path:
                yield path, node
            if node.children is not None:
                for index in range(len(node.children) - 1, -1, -1):
                    stack.append(((*path, index), node.children[index]))

    def _along(self, path: Path) -> Iterator[Node]:
        node = self.root
        yield node
        for index in path:
            assert node.children is not None
            node = node.children[index]
            yield node

    # -- choosing ---------------------------------------------------------------

    def value(self, child: Node, parent: Node) -> float:
        """The rule's value of ``child`` now (games in flight count as visits without wins)."""
        visits, parent_visits = child.visits, parent.visits
        if self.virtual_loss:
            visits += child.pending
            parent_visits += parent.pending
        if self.rule == "kl-ucb":
            return kl_ucb_index(child.wins, visits, parent_visits)
        exploration = math.sqrt(math.log(parent_visits) / visits)
        return child.wins / visits + self.exploration_coefficient * exploration

    def select_child(self, parent: Node, tie_breaker: TieBreaker) -> int:
        assert parent.children is not None
        best_value = -math.inf
        best: list[int] = []
        for index, child in enumerate(parent.children):
            value = self.value(child, parent)
            if value > best_value:
                best_value, best = value, [index]
            elif value == best_value:
                best.append(index)
        return best[0] if len(best) == 1 else best[tie_breaker(len(best))]

    def choose(self, tie_breaker: TieBreaker) -> Path:
        """The candidate for the next game, walking down (and expanding) the tree.

        A leaf above ``max_depth`` that already has a game (finished or in
        flight) is being chosen for the second time: it is expanded and the
        walk goes on among its new children.
        """
        node: Node = self.root
        path: Path = ()
        while True:
            if node.children is None:
                if len(path) >= self.max_depth or node.games + node.pending == 0:
                    return path
                self.expand(node)
            index = self.select_child(node, tie_breaker)
            assert node.children is not None
            node, path = node.children[index], (*path, index)

    # -- games ------------------------------------------------------------------

    def start_game(self, path: Path) -> None:
        for node in self._along(path):
            node.pending += 1

    def cancel_game(self, path: Path) -> None:
        """A game in flight that will not be counted (abandoned or void)."""
        for node in self._along(path):
            node.pending = max(0, node.pending - 1)

    def record(self, path: Path, won: bool, *, was_pending: bool) -> None:
        """Count one game for the candidate at ``path`` and every ancestor."""
        self.ensure_path(path)
        for node in self._along(path):
            node.games += 1
            node.won += won
            if was_pending:
                node.pending = max(0, node.pending - 1)

    def best_path(self) -> Path:
        """Down from the root, the child with the most wins at each step.

        Ties go to the child with more games, then the lower index.  The walk
        stops at an expanded candidate whose children have not played yet.
        """
        node: Node = self.root
        path: Path = ()
        while node.children is not None:
            children = node.children
            index = max(
                range(len(children)), key=lambda i: (children[i].wins, children[i].games, -i)
            )
            child = children[index]
            if path and child.games == 0:
                break
            node, path = child, (*path, index)
        return path
