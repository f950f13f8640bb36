"""The numbers behind the HTML report's plots (pure): series over games played, and groupings.

Everything statistical is :mod:`arena.stats` (Elo and Wilson intervals,
Bradley–Terry ratings, a player's score in a game); the totals are the
snapshot's.  This module only lays games out the way a plot needs them: Elo
of a pairing after each of a few evenly spaced game counts, the all-play-all
ratings likewise, wins by colour, game lengths by how games ended, time per
move by player, and the Monte Carlo tuner's games per candidate.  A series has
at most a few hundred points whatever the number of games, so a plot costs
the same for 100 games or 100,000.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

import attrs

from arena.competitions.snapshots import MatchupSnapshot
from arena.competitions.tuner_scales import centres
from arena.control.tuner import McTunerSettings
from arena.results import EndReason, GameResult
from arena.stats.elo import DEFAULT_CONFIDENCE, WDL, Interval, elo_estimate, wilson_interval
from arena.stats.matchstats import player_score
from arena.stats.ratings import Ratings, bradley_terry
from gtp.vertex import Colour

_NAMED: Final = re.compile(r"^[A-Za-z_][\w ]*:\s+")
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
class MoveTimes:
    """Seconds each move of one game took, by colour, in move order (moves we can tell)."""

    black: tuple[float, ...]
    white: tuple[float, ...]


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
    EndReason.MOVE_LIMIT,
    EndReason.UNKNOWN,
)


def lengths_by_end(results: Iterable[GameResult]) -> dict[EndReason, list[int]]:
    """Game lengths (moves) grouped by how the game ended, in :data:`END_ORDER`, none empty."""
    grouped: dict[EndReason, list[int]] = {}
    for result in results:
        grouped.setdefault(result.end, []).append(result.moves)
    return {end: grouped[end] for end in END_ORDER if end in grouped}


def times_by_player(
    results: Iterable[GameResult], move_times: Mapping[str, MoveTimes]
) -> dict[str, list[float]]:
    """Seconds per move of each player over the games whose records have clocks."""
    times: dict[str, list[float]] = {}
    for result in results:
        game = move_times.get(result.game_id)
        if game is None:
            continue
        times.setdefault(result.black, []).extend(game.black)
        times.setdefault(result.white, []).extend(game.white)
    return {player: seconds for player, seconds in times.items() if seconds}


# ---------------------------------------------------------------------------
# The Monte Carlo tuner


@attrs.frozen
class CandidateGames:
    """Games a tuner candidate played itself (not its descendants) and how many it won."""

    code: str
    games: int
    won: int

    def rate(self, confidence: float = DEFAULT_CONFIDENCE) -> Interval:
        return wilson_interval(self.won, self.games, confidence)


def candidate_games(results: Iterable[GameResult], colour: Colour) -> list[CandidateGames]:
    """Each candidate's own games, from the results (the candidate plays ``colour``)."""
    tally: dict[str, list[int]] = {}
    for result in results:
        code = result.player(colour)
        row = tally.setdefault(code, [0, 0])
        row[0] += 1
        row[1] += result.winning_player == code
    return [CandidateGames(code, games, won) for code, (games, won) in tally.items()]


@attrs.frozen
class ParameterAxis:
    """One tuner parameter as a plot axis: optimiser space [0, 1), ticks at the first generation."""

    code: str
    split: int
    ticks: tuple[float, ...]  # centres of the first-generation divisions
    labels: tuple[str, ...]  # the engine value there, as the control file formats it


@attrs.frozen
class CandidatePoint:
    """A candidate where it sits in the optimiser space, with its own games."""

    label: str  # '(0,1)', '(0,1)(2,2)'
    position: tuple[float, ...]  # one value in [0, 1) per parameter
    level: int
    games: int
    won: int
    best: bool

    def rate(self, confidence: float = DEFAULT_CONFIDENCE) -> Interval:
        return wilson_interval(self.won, self.games, confidence)


def _tick_label(formatted: str) -> str:
    """A formatted engine value as a tick: without the name ('c: 0.35'), numbers kept short."""
    text = _NAMED.sub("", formatted)  # the axis is named already
    try:
        value = float(text)
    except ValueError:
        return text
    return text if len(text) <= 7 else f"{value:.4g}"  # '%s' of 10**0.5: 3.1622776601683795


def parameter_axes(settings: McTunerSettings) -> tuple[ParameterAxis, ...]:
    """The tuner's parameters as plot axes, labelled with the engine values."""
    axes = []
    for parameter in settings.parameters:
        ticks = tuple(centres(parameter.split))
        labels = tuple(_tick_label(parameter.format_value(parameter.scale(f))) for f in ticks)
        axes.append(ParameterAxis(parameter.code, parameter.split, ticks, labels))
    return tuple(axes)


def candidate_points(
    games: Iterable[CandidateGames], settings: McTunerSettings, best: str | None
) -> list[CandidatePoint]:
    """Where each candidate that played sits in the space (codes not of this space are left out)."""
    space = settings.space
    points = []
    for candidate in games:
        try:
            path = space.parse_player_code(candidate.code)
        except ValueError:
            continue
        points.append(
            CandidatePoint(
                label=space.label(path),
                position=space.optimiser_parameters(path),
                level=len(path),
                games=candidate.games,
                won=candidate.won,
                best=candidate.code == best,
            )
        )
    return points


def marginal_points(
    points: Iterable[CandidatePoint], axis: int, split: int
) -> list[CandidatePoint]:
    """Games and wins summed over each first-generation division along one parameter."""
    totals: dict[int, list[int]] = {}
    for point in points:
        division = min(int(point.position[axis] * split), split - 1)
        row = totals.setdefault(division, [0, 0, 0])
        row[0] += point.games
        row[1] += point.won
        row[2] += point.best
    return [
        CandidatePoint(
            label=str(division),
            position=((division + 0.5) / split,),
            level=1,
            games=games,
            won=won,
            best=bool(best),
        )
        for division, (games, won, best) in sorted(totals.items())
    ]
