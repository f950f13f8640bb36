"""Frozen pictures of each competition type, for the reports and the live display.

A competition's ``snapshot()`` returns one of these (:data:`CompetitionSnapshot`);
the text reports (:mod:`arena.reports`), the HTML report and the dashboard
(:mod:`tui.views`) render from them alone, choosing by type.  Pure values: a
snapshot shares nothing mutable with the competition it was taken from.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from arena.control.settings import GameSettings
from arena.stats.elo import DEFAULT_CONFIDENCE, Interval
from arena.stats.matchstats import MatchupStats
from arena.stats.ratings import Ratings
from gtp.vertex import Colour

# ---------------------------------------------------------------------------
# Playoffs (and the matchups of an all-play-all)


@attrs.frozen
class PlayerCounts:
    """One player's record within a matchup (wins count a jigo as half)."""

    wins: float = 0.0
    black_games: int = 0
    white_games: int = 0
    black_wins: float = 0.0
    white_wins: float = 0.0
    forfeits: int = 0  # games lost by forfeit
    time_losses: int = 0  # games lost on time
    cpu_total: float = 0.0
    cpu_games: int = 0
    time_moves: int = 0  # genmoves timed
    time_total: float = 0.0  # seconds over those genmoves
    time_max: float = 0.0  # the longest of them

    @property
    def average_cpu(self) -> float | None:
        return self.cpu_total / self.cpu_games if self.cpu_games else None

    @property
    def average_time(self) -> float | None:
        """Seconds per move (each genmove from written to answered), None before any."""
        return self.time_total / self.time_moves if self.time_moves else None

    @property
    def longest_time(self) -> float | None:
        return self.time_max if self.time_moves else None


@attrs.frozen
class MatchupCounts:
    """A matchup's counted results: games, jigos, unknown and void games, each player's record."""

    player_1: str
    player_2: str
    games: int
    jigos: int
    unknown: int  # could not be scored, or the scorers disagreed
    move_limit: int  # stopped at move_limit (SGF RE[Void])
    void_games: int  # software failures, replayed (not counted in games)
    players: Mapping[str, PlayerCounts]


@attrs.frozen
class MatchupSnapshot:
    """One matchup for reports: its definition (None if gone from the control file)."""

    id: str
    name: str
    player_1: str
    player_2: str
    settings: GameSettings | None
    number_of_games: int | None
    tally: MatchupCounts
    in_progress: tuple[str, ...] = ()
    stats: MatchupStats | None = None  # Elo, LOS, colour-swapped pairs, SPRT


@attrs.frozen
class PlayoffSnapshot:
    """A frozen picture of a playoff for show/report and the live display."""

    code: str
    description: str | None
    matchups: tuple[MatchupSnapshot, ...]
    engines: tuple[tuple[str, str], ...]  # player code -> engine description
    in_progress: tuple[str, ...]
    complete: bool

    @property
    def games_played(self) -> int:
        return sum(m.tally.games for m in self.matchups)


# ---------------------------------------------------------------------------
# All-play-all


@attrs.frozen
class GridCell:
    """Row player's results against the column player (a jigo is half a win each)."""

    wins: float
    losses: float


@attrs.frozen
class AllPlayAllSnapshot:
    """A frozen picture of an all-play-all for show/report and the live display.

    ``grid[i][j]`` is competitor *i*'s record against *j* over games with a
    known result (None on the diagonal and before any such game).  Each
    matchup carries its own figures (``MatchupSnapshot.stats``); ``ratings``
    are the Bradley–Terry ratings of all competitors.
    """

    code: str
    description: str | None
    competitors: tuple[str, ...]
    letters: tuple[str, ...]
    settings: GameSettings
    rounds: int | None
    matchups: tuple[MatchupSnapshot, ...]
    grid: tuple[tuple[GridCell | None, ...], ...]
    ratings: Ratings
    engines: tuple[tuple[str, str], ...]
    in_progress: tuple[str, ...]
    complete: bool

    @property
    def games_played(self) -> int:
        return sum(m.tally.games for m in self.matchups)


# ---------------------------------------------------------------------------
# The Monte Carlo tuner


@attrs.frozen
class TunerCandidate:
    """One candidate (a node of the tuner's tree) as the reports show it."""

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
    ucb: float  # the value the tuner gives it now (games in flight count as visits)
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
    code: str
    scale: str  # 'LINEAR(0, 8)', 'LOG(10, 10000, integer=True)', 'scale_p3'
    split: int


@attrs.frozen
class RunningGame:
    """A game in progress: which candidate plays it."""

    game_id: str
    candidate: str  # player code
    label: str
    parameters: tuple[str, ...]


@attrs.frozen
class TunerSnapshot:
    """A frozen picture of a Monte Carlo tuning event for show/report and the dashboard."""

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

    @property
    def candidates(self) -> tuple[TunerCandidate, ...]:
        """Every shown candidate, level by level."""
        return tuple(candidate for level in self.levels for candidate in level)


CompetitionSnapshot = PlayoffSnapshot | AllPlayAllSnapshot | TunerSnapshot
