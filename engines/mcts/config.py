"""What a search is set to do: :class:`SearchConfig` and the selection rule it implies.

Every knob of :class:`~engines.mcts.search.Search` lives here, checked when the
configuration is made; :func:`make_selector` turns a configuration into the
selection rule of :mod:`engines.mcts.tree` (pure).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

import attrs

from engines.mcts.policy import POLICY_NAMES
from engines.mcts.priors import PRIOR_NAMES, PriorName, PriorWeights, prior_weights
from engines.mcts.tree import (
    BlendSelector,
    PuctSelector,
    RaveName,
    ScoredSelector,
    SelectionName,
    Selector,
    UctSelector,
)

PolicyName = Literal[
    "default", "light", "ladders", "strict", "lgrf", "captures", "nakade", "no-nakade"
]
StructureName = Literal["tree", "graph"]
AmafName = Literal["first", "any"]


@attrs.frozen
class SearchConfig:
    """Every knob of the search; the engine's command line maps onto these."""

    policy: PolicyName = "default"
    selection: SelectionName = "uct"
    exploration: float = 0.5  # UCT: c in Q + c * sqrt(ln N / n)
    uct_fpu: float = math.inf  # UCT: urgency of an unvisited move ("first-play urgency")
    puct_exploration: float = 1.5  # PUCT: c in Q + c * P * sqrt(N) / (1 + n)
    fpu_reduction: float = 0.1  # PUCT: unvisited moves start at the parent's value minus this
    # Visits a node needs before it lists its own moves: 8 (Pachi's value; 2 before
    # 2026-11-29) makes a tenth to a fifth more simulations a second, and at 3,000
    # simulations it played as well as 2 (68.5% over 200 games against 67.0% over 400);
    # at 10,000, 80.0% against 2's 84.0% over 200 each (about one standard error apart)
    expand_threshold: int = 8
    temperature: float = 0.0  # 0: most visits; > 0: sample with visits ** (1 / temperature)
    dirichlet_alpha: float = 0.3
    noise_fraction: float = 0.0  # weight of Dirichlet noise in the root priors (0: off)
    resign_threshold: float = 0.05  # resign when the best win rate is below this (0: never)
    resign_min_visits: int = 200  # ... and the root has at least this many visits
    resign_moves: int = 3  # ... at this many of the player's moves in a row (the GTP engine)
    claim_threshold: float = 0.97  # gomill-genmove_ex claim: best win rate at least this
    reuse_tree: bool = True
    pass_threshold: float = 0.25  # offer PASS in the tree when at most this share is playable
    rave: RaveName = "mse"  # "k": hand-selected schedule; "mse": minimum-MSE; "off"
    rave_k: float = 1000.0  # equivalence parameter of the hand-selected schedule
    rave_bias: float = 0.0085  # RAVE bias b of the minimum-MSE schedule
    rave_exploration: float = 0.0  # UCT's c when RAVE is on (Gelly & Silver found 0 best)
    # Which plays of a point after a node count for its AMAF value: "first", only the
    # point's first play (since 2026-11-30: a point taken by the opponent and played
    # again after a capture is not a move made now); "any", every player who played it
    rave_amaf: AmafName = "first"
    priors: PriorName = "heuristic"
    prior_visits: float = 10.0  # equivalent experience of the priors' base confidence
    prior_weights: PriorWeights = attrs.field(  # the heuristic's rules, in that unit
        default=PriorWeights(), converter=prior_weights
    )
    structure: StructureName = "tree"
    graph_stop: bool = False  # graph: no playout when the child has more visits than the edge
    mercy: int = 0  # stop a playout once one side leads by this many stones (0: off)

    @property
    def eager(self) -> bool:
        """Whether expansion creates every child at once (RAVE, priors and graphs need it)."""
        return self.rave != "off" or self.priors != "none" or self.structure == "graph"

    @property
    def scored(self) -> bool:
        """Whether a child's selection value depends on its own statistics alone.

        True for a tree searched with minimum-MSE RAVE under UCT without an
        exploration term (the default): the search then keeps each child's
        value up to date and selection reads it (:class:`~engines.mcts.tree.ScoredSelector`).
        """
        return (
            self.rave == "mse"
            and self.selection == "uct"
            and self.rave_exploration == 0
            and self.structure == "tree"
        )

    @property
    def rave_b4(self) -> float:
        """Four times the squared RAVE bias: the constant of the minimum-MSE schedule."""
        return 4.0 * self.rave_bias * self.rave_bias

    def __attrs_post_init__(self) -> None:
        if self.policy not in POLICY_NAMES:
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
        if self.resign_moves < 1:
            raise ValueError("resign_moves must be at least 1")
        if self.rave not in ("off", "k", "mse"):
            raise ValueError(f"unknown RAVE schedule {self.rave!r} (off, k or mse)")
        if not self.rave_k > 0 or not self.rave_bias >= 0 or not self.rave_exploration >= 0:
            raise ValueError("rave_k must be positive, rave_bias and rave_exploration not negative")
        if self.rave_amaf not in ("first", "any"):
            raise ValueError(f"unknown AMAF rule {self.rave_amaf!r} (first or any)")
        if self.priors not in PRIOR_NAMES:
            raise ValueError(f"unknown priors {self.priors!r} ({', '.join(PRIOR_NAMES)})")
        if not self.prior_visits >= 0 or math.isinf(self.prior_visits):
            raise ValueError("prior_visits must be a non-negative number")
        if self.mercy < 0:
            raise ValueError("mercy must be 0 (off) or a positive stone lead")
        if self.structure not in ("tree", "graph"):
            raise ValueError(f"unknown structure {self.structure!r} (tree or graph)")


def make_selector(config: SearchConfig, rnd: Callable[[], float]) -> Selector:
    if config.scored:
        return ScoredSelector()
    if config.eager:
        rave = config.rave != "off"
        return BlendSelector(
            kind=config.selection,
            exploration=(
                config.puct_exploration
                if config.selection == "puct"
                else config.rave_exploration
                if rave
                else config.exploration
            ),
            rave=config.rave,
            rave_k=config.rave_k,
            rave_bias=config.rave_bias,
            graph=config.structure == "graph",
            fpu=config.uct_fpu,
            fpu_reduction=config.fpu_reduction,
        )
    if config.selection == "puct":
        return PuctSelector(config.puct_exploration, config.fpu_reduction, rnd)
    return UctSelector(config.exploration, rnd, config.uct_fpu)
