"""The numbers behind the HTML report's plots (pure): series over games played, and groupings.

Everything statistical is :mod:`arena.stats` (Elo and Wilson intervals,
Bradley–Terry ratings, a player's score in a game); the totals are the
snapshot's.  This module only lays games out the way a plot needs them: Elo
of a pairing after each of a few evenly spaced game counts, the all-play-all
ratings likewise, wins by colour, game lengths by how games ended, and each
player's losses by forfeit and on time and time per move (the journal's
figures).  A series has at most a few hundred points whatever the number of
games, so a plot costs the same for 100 games or 100,000.  The tuners' series
are :mod:`arena.reports.tuner_series`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final

import attrs

from arena.competitions.matchstats import player_score
from arena.competitions.snapshots import MatchupSnapshot
from arena.results import EndReason, GameResult
from arena.stats.elo import DEFAULT_CONFIDENCE, WDL, Interval, elo_estimate, wilson_interval
from arena.stats.ratings import Ratings, bradley_terry
from gtp.vertex import Colour

ELO_POINTS: Final = 150  # points of a pairing's Elo curve
RATING_POINTS: Final = 16  # Bradley–Terry fits along an all-play-all (each costs a fit)


# Where a score (player_score) is counted in [wins, losses, jigos, unknown].
_SCORE_INDEX: Final = {1.0: 0, 0.0: 1, 0.5: 2}


def _count(counts: list[int], score: float | None) -> None:
    counts[3 if score is None else _SCORE_INDEX[score]] += 1


def pairing_of(game_id: str) -> str:
    """The matchup id of a playoff or all-play-all game (``AvB`` of ``AvB_07``)."""
    return game_id.rpartition("_")[0]


def checkpoints(total: int, count: int) -> list[int]:
    """About ``count`` game counts from 1 to ``total``, evenly spaced, ending at ``total``."""
    if total <= 0:
        return []
    if total <= count:
        return list(range(1, total + 1))
    return sorted({max(1, round(total * k / count)) for k in range(1, count + 1)})


def by_pairing(results: Iterable[GameResult]) -> dict[str, list[GameResult]]:
    """Results grouped by matchup id, each list in finishing order."""
    grouped: dict[str, list[GameResult]] = {}
    for result in results:
        grouped.setdefault(pairing_of(result.game_id), []).append(result)
    return grouped


# ---------------------------------------------------------------------------
# Elo against games played


@attrs.frozen
class EloSeries:
    """A pairing's Elo (player_1's side) with its interval after ``games[k]`` games."""

    player_1: str
    player_2: str
    games: tuple[int, ...]
    elo: tuple[Interval, ...]


def elo_series(
    results: Sequence[GameResult],
    player_1: str,
    player_2: str,
    *,
    points: int = ELO_POINTS,
    confidence: float = DEFAULT_CONFIDENCE,
) -> EloSeries:
    """Elo of ``player_1`` against ``player_2`` as the pairing's games came in (in order)."""
    marks = set(checkpoints(len(results), points))
    counts = [0, 0, 0, 0]  # wins, losses, jigos, unknown
    games: list[int] = []
    elos: list[Interval] = []
    for number, result in enumerate(results, start=1):
        _count(counts, player_score(result, player_1))
        if number in marks:
            games.append(number)
            elos.append(elo_estimate(WDL(*counts), confidence))
    return EloSeries(player_1, player_2, tuple(games), tuple(elos))


@attrs.frozen
class RatingsSeries:
    """Bradley–Terry ratings of an all-play-all after ``games[k]`` games of the whole event."""

    players: tuple[str, ...]
    games: tuple[int, ...]
    ratings: tuple[Ratings, ...]


def ratings_series(
    results: Sequence[GameResult],
    competitors: Sequence[str],
    anchor: str,
    *,
    points: int = RATING_POINTS,
    confidence: float = DEFAULT_CONFIDENCE,
) -> RatingsSeries:
    """Every competitor's rating as the games came in (games of other players are skipped)."""
    known = set(competitors)
    games = [r for r in results if r.black in known and r.white in known]
    marks = set(checkpoints(len(games), points))
    tallies: dict[tuple[str, str], list[int]] = {}
    numbers: list[int] = []
    fits: list[Ratings] = []
    for number, result in enumerate(games, start=1):
        row = tallies.setdefault((result.black, result.white), [0, 0, 0, 0])
        _count(row, player_score(result, result.black))
        if number in marks:
            wdl = {pair: WDL(*row) for pair, row in tallies.items()}
            numbers.append(number)
            fits.append(bradley_terry(competitors, wdl, elo_anchor=anchor, confidence=confidence))
    return RatingsSeries(tuple(competitors), tuple(numbers), tuple(fits))


# ---------------------------------------------------------------------------
# Colours, lengths, times


@attrs.frozen
class ColourRecord:
    """Wins with Black and with White (a jigo counts half), for one player or for all games."""

    label: str
    black_wins: float
    black_games: int
    white_wins: float
    white_games: int

    def rate(self, colour: Colour, confidence: float = DEFAULT_CONFIDENCE) -> Interval:
        if colour is Colour.BLACK:
            return wilson_interval(self.black_wins, self.black_games, confidence)
        return wilson_interval(self.white_wins, self.white_games, confidence)


def colour_records(
    matchups: Iterable[MatchupSnapshot], players: Sequence[str]
) -> list[ColourRecord]:
    """Each player's wins by colour over ``matchups`` (the snapshot's tallies), then all games.

    The last record, ``all games``, counts the games won by Black and by
    White over every game of the matchups.
    """
    totals = {code: [0.0, 0, 0.0, 0] for code in players}
    black_wins = white_wins = 0.0
    games = 0
    for matchup in matchups:
        games += matchup.tally.games
        for code, counts in matchup.tally.players.items():
            black_wins += counts.black_wins
            white_wins += counts.white_wins
            row = totals.get(code)
            if row is None:
                continue
            row[0] += counts.black_wins
            row[1] += counts.black_games
            row[2] += counts.white_wins
            row[3] += counts.white_games
    records = [
        ColourRecord(code, row[0], int(row[1]), row[2], int(row[3])) for code, row in totals.items()
    ]
    records.append(ColourRecord("all games", black_wins, games, white_wins, games))
    return records


# The order the length histogram stacks the ways a game can end.
END_ORDER: Final = (
    EndReason.SCORE,
    EndReason.RESIGN,
    EndReason.CLAIM,
    EndReason.FORFEIT,
    EndReason.TIME,
    EndReason.ADJUDICATED,
    EndReason.MOVE_LIMIT,
    EndReason.UNKNOWN,
)


def lengths_by_end(results: Iterable[GameResult]) -> dict[EndReason, list[int]]:
    """Game lengths (moves) grouped by how the game ended, in :data:`END_ORDER`, none empty."""
    grouped: dict[EndReason, list[int]] = {}
    for result in results:
        grouped.setdefault(result.end, []).append(result.moves)
    return {end: grouped[end] for end in END_ORDER if end in grouped}


@attrs.frozen
class PlayerRecord:
    """One player's (or a group of players') games: losses that were not played out, and time.

    Times are the journal's: for each game, the number of genmoves timed, their
    total and the longest (each from the command written to the answer read,
    which is what a clock charges, main time and overtime alike).
    """

    label: str
    games: int
    forfeits: int  # games lost by forfeit
    time_losses: int  # games lost on time
    moves: int  # genmoves timed
    total: float  # seconds over those genmoves
    longest: float
    game_means: tuple[float, ...]  # seconds per move in each game with a timed move

    @property
    def mean(self) -> float | None:
        """Seconds per move over every timed move (None before any)."""
        return self.total / self.moves if self.moves else None


@attrs.define
class _Tally:
    games: int = 0
    forfeits: int = 0
    time_losses: int = 0
    moves: int = 0
    total: float = 0.0
    longest: float = 0.0
    game_means: list[float] = attrs.Factory(list)


def player_records(
    results: Iterable[GameResult],
    label: Callable[[str], str] | None = None,
    order: Sequence[str] = (),
) -> list[PlayerRecord]:
    """Each player's record: those named in ``order`` first, in that order, then the others
    in order of first appearance; ``label`` groups player codes (a tuner's candidates as one)."""
    tallies: dict[str, _Tally] = {}
    for result in results:
        loser = result.losing_player
        for colour in (Colour.BLACK, Colour.WHITE):
            code = result.player(colour)
            tally = tallies.setdefault(code if label is None else label(code), _Tally())
            tally.games += 1
            if code == loser:
                tally.forfeits += result.end is EndReason.FORFEIT
                tally.time_losses += result.end is EndReason.TIME
            times = result.times(colour)
            if times is not None and times.moves:
                tally.moves += times.moves
                tally.total += times.total
                tally.longest = max(tally.longest, times.longest)
                tally.game_means.append(times.total / times.moves)
    rank = {name: number for number, name in enumerate(order)}
    ordered = sorted(tallies.items(), key=lambda item: rank.get(item[0], len(rank)))  # stable
    return [
        PlayerRecord(
            name,
            tally.games,
            tally.forfeits,
            tally.time_losses,
            tally.moves,
            tally.total,
            tally.longest,
            tuple(tally.game_means),
        )
        for name, tally in ordered
    ]
