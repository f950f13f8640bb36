"""Frozen pictures of the tuners (Monte Carlo, cross-entropy, SPSA) and their history notes.

Apart from :mod:`arena.competitions.snapshots` (playoffs and all-play-alls) so that
a run of a playoff does not build the tuners' classes at its start.
"""

from __future__ import annotations

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.control.settings import GameSettings
from arena.stats.elo import DEFAULT_CONFIDENCE, Interval
from gtp.vertex import Colour

# ---------------------------------------------------------------------------
# The Monte Carlo tuner


@attrs.frozen
class TunerCandidate:
    """One candidate (a node of the tuner's tree) as the reports show it."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    code: str  # the player code in game records: '#0,1', '#0,1:2,2'
    label: str  # coordinates: '(0,1)', '(0,1)(2,2)' for a second-generation candidate
    level: int  # 1 for the first generation
    parameters: tuple[str, ...]  # formatted engine parameters, in Parameter order
    wins: int  # including initial_wins
    visits: int  # including initial_visits
    games: int  # games played by the candidate and its descendants
    games_won: int
    in_progress: int  # games in flight for the candidate and its descendants
    win_rate: float  # wins / visits (initial counts included)
    ucb: float  # the selection rule's value now (games in flight count as visits)
    interval: Interval  # Wilson interval of games_won / games (no initial counts)
    best: bool  # on the path to the best candidate
    expanded: bool  # has children (plays no more games itself)

    @property
    def description(self) -> str:
        """``I: 0.01; F: 365.17``."""
        return "; ".join(self.parameters)

    @property
    def heading(self) -> str:
        """``(0,1) I: 0.01; F: 365.17``."""
        return f"{self.label} {self.description}"


@attrs.frozen
class ParameterInfo:
    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    code: str
    scale: str  # 'LINEAR(0, 8)', 'LOG(10, 10000, integer=True)', 'scale_p3'
    split: int


@attrs.frozen
class RunningGame:
    """A game in progress: which candidate plays it."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    game_id: str
    candidate: str  # player code
    label: str
    parameters: tuple[str, ...]


@attrs.frozen
class TunerSnapshot:
    """A frozen picture of a Monte Carlo tuning event for show/report and the dashboard."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    code: str
    description: str | None
    settings: GameSettings
    opponent: str
    candidate_colour: Colour
    parameters: tuple[ParameterInfo, ...]
    max_depth: int
    exploration_coefficient: float
    initial_visits: int
    initial_wins: int
    number_of_games: int | None
    games_played: int
    void_games: int
    candidate_count: int  # candidates in the tree so far (all levels)
    levels: tuple[tuple[TunerCandidate, ...], ...]  # shown candidates of each level
    best: TunerCandidate | None  # None before the first result
    in_progress: tuple[RunningGame, ...]
    running_to_show: int  # number_of_running_simulations_to_show
    engines: tuple[tuple[str, str], ...]  # opponent code -> engine description
    candidate_engine: str | None  # the last candidate engine description seen
    complete: bool
    confidence: float = DEFAULT_CONFIDENCE
    selection_rule: str = "ucb"  # 'ucb' (Gomill's) or 'kl-ucb'

    @property
    def candidates(self) -> tuple[TunerCandidate, ...]:
        """Every shown candidate, level by level."""
        return tuple(candidate for level in self.levels for candidate in level)


# ---------------------------------------------------------------------------
# The cross-entropy tuner


@attrs.frozen
class CeDistribution:
    """A Gaussian: optimiser mean and variance per parameter, and the mean as engine parameters."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    means: tuple[float, ...]
    variances: tuple[float, ...]
    engine: tuple[str, ...]  # the mean through each transform and format: 'I: 0.10'

    @property
    def description(self) -> str:
        return "; ".join(self.engine)

    @property
    def optimiser(self) -> str:
        """``-1.00~1.50 3.50~1.50``: mean~variance per parameter, as Gomill writes it."""
        return " ".join(
            f"{mean:.2f}~{variance:.2f}"
            for mean, variance in zip(self.means, self.variances, strict=True)
        )


@attrs.frozen
class CeCandidate:
    """One sample of a generation: its player code, parameters and record."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    code: str  # 'g2#17'
    number: int
    sample: tuple[float, ...]  # optimiser parameters
    parameters: tuple[str, ...]  # formatted engine parameters
    wins: float  # a game without a winner counts half
    games: int
    in_progress: int
    elite: bool = False  # chosen as elite (finished generations only)

    @property
    def description(self) -> str:
        return "; ".join(self.parameters)


@attrs.frozen
class CeGeneration:
    """A finished generation: the distribution it sampled, its best sample, its elite.

    ``samples`` (optimiser parameters) and their ``wins`` are in sample order,
    ``elite`` the elite's sample numbers, most wins first; all three are empty
    for a generation finished by a version that did not keep them.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    number: int
    distribution: CeDistribution
    games: int
    elite_count: int
    best: CeCandidate
    elite_mean: tuple[str, ...]  # the elite's mean, formatted as engine parameters
    samples: tuple[tuple[float, ...], ...] = ()
    wins: tuple[float, ...] = ()
    elite: tuple[int, ...] = ()


@attrs.frozen
class CeParameterInfo:
    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    code: str
    initial_mean: float
    initial_variance: float
    transform: str  # the function's name, 'identity' by default


@attrs.frozen
class CeTunerSnapshot:
    """A frozen picture of a cross-entropy tuning event for show/report and the dashboard."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    code: str
    description: str | None
    settings: GameSettings
    opponent: str
    candidate_colour: str  # 'b', 'w' or 'random'
    parameters: tuple[CeParameterInfo, ...]
    number_of_generations: int
    samples_per_generation: int
    batch_size: int
    elite_proportion: float
    step_size: float
    elite_count: int
    generation: int  # the generation being played (number_of_generations once complete)
    distribution: CeDistribution  # the current one (the final one once complete)
    candidates: tuple[CeCandidate, ...]  # the current generation's samples, in order
    generations: tuple[CeGeneration, ...]  # finished generations, oldest first
    games_played: int  # counted games, all generations
    void_games: int
    in_progress: tuple[RunningGame, ...]
    engines: tuple[tuple[str, str], ...]  # opponent code -> engine description
    candidate_engine: str | None
    complete: bool

    @property
    def games_total(self) -> int:
        return self.number_of_generations * self.samples_per_generation * self.batch_size


# ---------------------------------------------------------------------------
# The SPSA tuner


@attrs.frozen
class SpsaParameterState:
    """One SPSA parameter: its settings, its value now and its trajectory."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    code: str
    start: float
    minimum: float
    maximum: float
    c_end: float
    r_end: float
    value: float  # theta now
    formatted: str  # theta through the format (and make_candidate's rounding, if any)
    c_now: float  # the perturbation of the next iteration
    r_now: float  # the learning rate of the next iteration (a_k / c_k**2)
    trajectory: tuple[float, ...]  # theta at each of SpsaTunerSnapshot.trajectory_iterations


@attrs.frozen
class SpsaRunningGame:
    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    game_id: str
    iteration: int
    plus_colour: Colour  # the colour theta + c*delta plays


@attrs.frozen
class SpsaTunerSnapshot:
    """A frozen picture of an SPSA tuning event for show/report and the dashboard."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    code: str
    description: str | None
    settings: GameSettings
    parameters: tuple[SpsaParameterState, ...]
    number_of_iterations: int
    a_constant: float  # A
    alpha: float
    gamma: float
    iterations_done: int  # iterations whose both games are counted
    games_played: int  # counted games (iterations in flight included)
    plus_score: float  # points of theta + c*delta over all counted games
    void_games: int
    trajectory_iterations: tuple[int, ...]  # 0 (the start), then iterations done
    in_progress: tuple[SpsaRunningGame, ...]
    candidate_engine: str | None
    complete: bool

    @property
    def games_total(self) -> int:
        return 2 * self.number_of_iterations


# -- history notes: what a tuner leaves for X.hist, as data (reports word them) --


@attrs.frozen
class TreeNote:
    """The Monte Carlo tuner's tree after ``games`` games (candidates in tree order)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    games: int
    candidates: tuple[TunerCandidate, ...]


@attrs.frozen
class GenerationNote:
    """A finished cross-entropy generation: its distribution, candidates most wins first."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    number: int
    distribution: CeDistribution
    candidates: tuple[CeCandidate, ...]


@attrs.frozen
class ThetaNote:
    """The SPSA tuner's parameters after ``iterations`` iterations, as the control file words them.

    (``values`` are the parameters' own formats applied to theta.)
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    iterations: int
    values: tuple[str, ...]
