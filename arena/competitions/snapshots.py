"""Frozen pictures of each competition type, for the reports and the live display.

A competition's ``snapshot()`` returns one of these (:data:`CompetitionSnapshot`; the
tuners' are in :mod:`arena.competitions.tuner_snapshots`, built only by a run that needs them);
the text reports (:mod:`arena.reports`), the HTML report and the dashboard
(:mod:`tui.views`) render from them alone, choosing by type.  Pure values: a
snapshot shares nothing mutable with the competition it was taken from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

import attrs

from arena import fields_eq, fields_hash, fields_repr

if TYPE_CHECKING:
    from collections.abc import Mapping

    from arena.competitions.matchstats import MatchupStats
    from arena.competitions.tuner_snapshots import (
        CeTunerSnapshot,
        GenerationNote,
        SpsaTunerSnapshot,
        ThetaNote,
        TreeNote,
        TunerSnapshot,
    )
    from arena.control.settings import GameSettings
    from arena.stats.ratings import Ratings

# ---------------------------------------------------------------------------
# Playoffs (and the matchups of an all-play-all)


@attrs.frozen
class PlayerCounts:
    """One player's record within a matchup (wins count a jigo as half)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    wins: float = 0.0
    black_games: int = 0
    white_games: int = 0
    black_wins: float = 0.0
    white_wins: float = 0.0
    forfeits: int = 0  # games lost by forfeit
    time_losses: int = 0  # games lost on time
    adjudicated: int = 0  # games lost by adjudication
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

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

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

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

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

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

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

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

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

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

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


# The union of every competition's snapshot, and of the tuners' history notes; as
# strings, so that naming them here does not import the tuners' module.
CompetitionSnapshot: TypeAlias = (
    "PlayoffSnapshot | AllPlayAllSnapshot | TunerSnapshot | CeTunerSnapshot | SpsaTunerSnapshot"
)
HistoryNote: TypeAlias = "TreeNote | GenerationNote | ThetaNote"
