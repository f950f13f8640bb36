"""Frozen views of a competition for the dashboard, and how to build them from snapshots.

The dashboard never reads a competition directly: each competition type's
snapshot (``Competition.snapshot()``) is turned here into a small frozen view
with the figures already formatted, and :mod:`tui.dashboard` draws views.

One builder per competition type, chosen by the snapshot's type
(:mod:`arena.competitions.snapshots`): :func:`playoff_view`,
:func:`allplayall_view`, :func:`tuner_view`, :func:`ce_tuner_view` and
:func:`spsa_tuner_view`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import attrs

from arena import fields_repr
from arena.competitions.matchstats import format_elo, format_elo_brief
from arena.competitions.snapshots import (
    AllPlayAllSnapshot,
    CompetitionSnapshot,
    MatchupSnapshot,
    PlayoffSnapshot,
)
from arena.competitions.tuner_snapshots import (
    CeTunerSnapshot,
    SpsaTunerSnapshot,
    TunerCandidate,
    TunerSnapshot,
)
from arena.control.settings import GameSettings
from arena.stats.ratings import PlayerRating


@attrs.frozen
class Counts:
    """Things going wrong, for the counters line."""

    __repr__ = fields_repr

    forfeits: int = 0
    timeouts: int = 0  # games lost on time
    voids: int = 0  # void games (replayed)
    engine_errors: int = 0  # engine stderr lines reporting a warning or an error
    adjudicated: int = 0  # games ended early by the referee's score (shown when any)


@attrs.frozen
class PlayerLine:
    """One player's line in a matchup table (Gomill's columns; a jigo is half a win)."""

    __repr__ = fields_repr

    player: str
    wins: float
    black_wins: float
    black_games: int
    white_wins: float
    white_games: int
    forfeits: int
    time_losses: int
    average_cpu: float | None
    average_time: float | None = None  # seconds per move
    longest_time: float | None = None


@attrs.frozen
class MatchupView:
    __repr__ = fields_repr

    id: str
    name: str
    games: int
    total: int | None  # None: unlimited
    lines: tuple[PlayerLine, PlayerLine]
    jigos: int
    unknown: int  # unknown and move-limit results
    void_games: int
    in_progress: int
    elo: str | None  # "+35 ± 80" from player_1's side; None before a game with a known result
    los: str | None  # "84%"
    sprt: str | None  # "LLR 1.20 (-2.94..2.94) penta" (or "trino"), "H1 accepted"; None if none
    decided: bool = False  # an SPRT has decided: the matchup plays no more games


@attrs.frozen
class PlayoffView:
    __repr__ = fields_repr

    matchups: tuple[MatchupView, ...]


@attrs.frozen
class RatingRow:
    __repr__ = fields_repr

    letter: str
    player: str
    games: int
    points: float
    elo: str  # "+120 ± 60", "0" for the anchor, "?" when not connected
    elo_value: float | None


@attrs.frozen
class AllPlayAllView:
    __repr__ = fields_repr

    letters: tuple[str, ...]
    competitors: tuple[str, ...]
    grid: tuple[tuple[tuple[float, float] | None, ...], ...]  # row's (wins, losses) v column
    ratings: tuple[RatingRow, ...]  # in competitor order
    anchor: str
    matchups: tuple[MatchupView, ...]


@attrs.frozen
class CandidateView:
    __repr__ = fields_repr

    label: str  # the candidate's coordinates, "(0,1)"
    parameters: str  # engine parameters, "I: 0.01; F: 365.17"
    games: int
    wins: float
    win_rate: float | None  # as the tuner reports it (Gomill's includes the initial counts)
    ucb: float | None
    in_flight: int
    best: bool
    interval: str | None = None  # "0.421-0.652": the win rate over the games played


@attrs.frozen
class TunerView:
    __repr__ = fields_repr

    candidates: tuple[CandidateView, ...]  # in the tuner's order (most games first)
    best: CandidateView | None = None
    opponent: str | None = None


@attrs.frozen
class SampleView:
    """One sample of the cross-entropy tuner's current generation."""

    __repr__ = fields_repr

    code: str  # 'g2#17'
    parameters: str
    wins: float
    games: int
    in_flight: int


@attrs.frozen
class CeTunerView:
    __repr__ = fields_repr

    generation: int  # 0-based; equals generations once complete
    generations: int
    batch_size: int
    elite_count: int
    distribution: str  # engine parameters at the mean
    optimiser: str  # mean~variance per parameter
    samples: tuple[SampleView, ...]  # most wins first
    history: tuple[str, ...]  # 'g0 I: 0.10; F: 3162.28' per finished generation, latest last
    opponent: str


@attrs.frozen
class SpsaParameterView:
    __repr__ = fields_repr

    code: str
    value: str  # theta now, through the format
    start: float
    bounds: str  # '0..1'
    c_next: float
    r_next: float
    trend: str  # a sparkline of the latest trajectory points, scaled to their own range


@attrs.frozen
class SpsaTunerView:
    __repr__ = fields_repr

    parameters: tuple[SpsaParameterView, ...]
    iterations_done: int
    iterations: int
    plus_share: float | None  # the plus side's share of the points; None before a game


CompetitionDetail = PlayoffView | AllPlayAllView | TunerView | CeTunerView | SpsaTunerView


@attrs.frozen
class CompetitionView:
    """What the dashboard shows of a competition, whatever its type."""

    __repr__ = fields_repr

    kind: str  # the competition type: "playoff", "allplayall", "mc_tuner", ...
    code: str
    description: str | None
    board: str | None  # "9x9 komi 7.5", "mixed settings", None when unknown
    games_done: int
    games_total: int | None  # None: unlimited or unknown
    counts: Counts | None  # from the competition's own tallies, when it keeps them
    detail: CompetitionDetail | None
    complete: bool = False


# ---------------------------------------------------------------------------
# Builders


def _percent(value: float) -> str:
    return f"{100.0 * value:.0f}%"


def _player_line(matchup: MatchupSnapshot, code: str) -> PlayerLine:
    tally = matchup.tally.players[code]
    return PlayerLine(
        player=code,
        wins=tally.wins,
        black_wins=tally.black_wins,
        black_games=tally.black_games,
        white_wins=tally.white_wins,
        white_games=tally.white_games,
        forfeits=tally.forfeits,
        time_losses=tally.time_losses,
        average_cpu=tally.average_cpu,
        average_time=tally.average_time,
        longest_time=tally.longest_time,
    )


def _sprt_text(matchup: MatchupSnapshot) -> tuple[str | None, bool]:
    stats = matchup.stats
    if stats is None or stats.sprt is None or stats.sprt_status is None:
        return None, False
    if stats.sprt_outcome is not None:
        return f"{stats.sprt_outcome.decision.value} accepted", True
    status = stats.sprt_status
    bounds = f"({status.lower_bound:.2f}..{status.upper_bound:.2f})"
    return f"LLR {status.llr:.2f} {bounds} {status.model[:5]}", False


def matchup_view(matchup: MatchupSnapshot) -> MatchupView:
    tally = matchup.tally
    elo = los = None
    stats = matchup.stats
    if stats is not None and stats.pairing.wdl.games > 0:
        interval = stats.pairing.elo
        elo = format_elo_brief(interval)
        los = _percent(stats.pairing.los)
    sprt, decided = _sprt_text(matchup)
    return MatchupView(
        id=matchup.id,
        name=matchup.name,
        games=tally.games,
        total=matchup.number_of_games,
        lines=(_player_line(matchup, matchup.player_1), _player_line(matchup, matchup.player_2)),
        jigos=tally.jigos,
        unknown=tally.unknown + tally.move_limit,
        void_games=tally.void_games,
        in_progress=len(matchup.in_progress),
        elo=elo,
        los=los,
        sprt=sprt,
        decided=decided,
    )


def _format_komi(komi: float) -> str:
    return str(int(komi)) if komi == int(komi) else f"{komi:g}"


def _board_text(matchups: Iterable[MatchupSnapshot]) -> str | None:
    seen = {(m.settings.board_size, m.settings.komi) for m in matchups if m.settings is not None}
    if not seen:
        return None
    if len(seen) > 1:
        return "mixed settings"
    ((size, komi),) = seen
    return f"{size}x{size} komi {_format_komi(komi)}"


def _matchup_totals(views: Sequence[MatchupView]) -> tuple[int, int | None]:
    done = sum(m.games for m in views)
    total: int | None = 0
    for m in views:
        if m.decided:
            total = None if total is None else total + m.games
        elif m.total is None:
            total = None
        elif total is not None:
            total += max(m.total, m.games)
    return done, total


def _matchup_counts(matchups: Iterable[MatchupSnapshot]) -> Counts:
    forfeits = timeouts = voids = adjudicated = 0
    for matchup in matchups:
        voids += matchup.tally.void_games
        for tally in matchup.tally.players.values():
            forfeits += tally.forfeits
            timeouts += tally.time_losses
            adjudicated += tally.adjudicated
    return Counts(forfeits=forfeits, timeouts=timeouts, voids=voids, adjudicated=adjudicated)


def playoff_view(
    snapshot: PlayoffSnapshot | AllPlayAllSnapshot, kind: str = "playoff"
) -> CompetitionView:
    views = tuple(matchup_view(m) for m in snapshot.matchups)
    done, total = _matchup_totals(views)
    return CompetitionView(
        kind=kind,
        code=snapshot.code,
        description=snapshot.description,
        board=_board_text(snapshot.matchups),
        games_done=done,
        games_total=total,
        counts=_matchup_counts(snapshot.matchups),
        detail=PlayoffView(views),
        complete=bool(snapshot.complete),
    )


def _rating_row(letter: str, rating: PlayerRating, anchor: str) -> RatingRow:
    elo = rating.elo
    if elo is None:
        text, value = "?", None
    elif rating.player == anchor:
        text, value = format_elo(0.0), 0.0
    else:
        text, value = format_elo_brief(elo), float(elo.value)
    return RatingRow(letter, rating.player, int(rating.games), float(rating.points), text, value)


def allplayall_view(snapshot: AllPlayAllSnapshot) -> CompetitionView:
    base = playoff_view(snapshot, kind="allplayall")
    grid = tuple(
        tuple(None if cell is None else (float(cell.wins), float(cell.losses)) for cell in row)
        for row in snapshot.grid
    )
    ratings = snapshot.ratings
    rows = tuple(
        _rating_row(letter, rating, ratings.anchor)
        for letter, rating in zip(snapshot.letters, ratings.players, strict=False)
    )
    assert isinstance(base.detail, PlayoffView)
    detail = AllPlayAllView(
        letters=tuple(snapshot.letters),
        competitors=tuple(snapshot.competitors),
        grid=grid,
        ratings=rows,
        anchor=str(ratings.anchor),
        matchups=base.detail.matchups,
    )
    return attrs.evolve(base, detail=detail)


def _candidate_view(candidate: TunerCandidate, best: bool) -> CandidateView:
    interval = None
    if candidate.games:
        interval = f"{candidate.interval.lower:.3f}-{candidate.interval.upper:.3f}"
    return CandidateView(
        label=candidate.label,
        parameters=candidate.description,
        games=candidate.games,
        wins=float(candidate.wins),
        win_rate=candidate.win_rate if math.isfinite(candidate.win_rate) else None,
        ucb=candidate.ucb if math.isfinite(candidate.ucb) else None,
        in_flight=candidate.in_progress,
        best=best,
        interval=interval,
    )


def tuner_view(snapshot: TunerSnapshot) -> CompetitionView:
    """The shown candidates in the tuner's order, the best candidate marked."""
    best = snapshot.best
    best_label = None if best is None else best.label
    views = tuple(_candidate_view(c, c.label == best_label) for c in snapshot.candidates)
    best_view = None
    if best is not None:
        best_view = next((v for v in views if v.best), None) or _candidate_view(best, True)
    settings = snapshot.settings
    return CompetitionView(
        kind="mc_tuner",
        code=snapshot.code,
        description=snapshot.description,
        board=f"{settings.board_size}x{settings.board_size} komi {_format_komi(settings.komi)}",
        games_done=snapshot.games_played,
        games_total=snapshot.number_of_games,
        counts=None,
        detail=TunerView(views, best_view, snapshot.opponent),
        complete=snapshot.complete,
    )


def _board(settings: GameSettings) -> str:
    return f"{settings.board_size}x{settings.board_size} komi {_format_komi(settings.komi)}"


def ce_tuner_view(snapshot: CeTunerSnapshot) -> CompetitionView:
    """The current distribution and generation, samples most wins first."""
    ordered = sorted(snapshot.candidates, key=lambda c: (-c.wins, c.number))
    samples = tuple(
        SampleView(c.code, c.description, float(c.wins), c.games, c.in_progress) for c in ordered
    )
    history = tuple(f"g{g.number} {g.distribution.description}" for g in snapshot.generations)
    detail = CeTunerView(
        generation=snapshot.generation,
        generations=snapshot.number_of_generations,
        batch_size=snapshot.batch_size,
        elite_count=snapshot.elite_count,
        distribution=snapshot.distribution.description,
        optimiser=snapshot.distribution.optimiser,
        samples=samples,
        history=history,
        opponent=snapshot.opponent,
    )
    return CompetitionView(
        kind="ce_tuner",
        code=snapshot.code,
        description=snapshot.description,
        board=_board(snapshot.settings),
        games_done=snapshot.games_played,
        games_total=snapshot.games_total,
        counts=None,  # the tracker counts forfeits, timeouts and voids from the events
        detail=detail,
        complete=snapshot.complete,
    )


SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float], width: int = 16) -> str:
    """The last ``width`` values as bars from their lowest to their highest (flat: middle)."""
    shown = list(values)[-width:]
    if not shown:
        return ""
    low, high = min(shown), max(shown)
    bars = []
    for value in shown:
        level = 0.5 if high <= low else (value - low) / (high - low)
        bars.append(SPARKS[min(len(SPARKS) - 1, int(level * len(SPARKS)))])
    return "".join(bars)


def spsa_tuner_view(snapshot: SpsaTunerSnapshot) -> CompetitionView:
    """Each parameter now, with the perturbation and rate to come and its trend."""
    parameters = tuple(
        SpsaParameterView(
            code=p.code,
            value=p.formatted,
            start=p.start,
            bounds=f"{p.minimum:g}..{p.maximum:g}",
            c_next=p.c_now,
            r_next=p.r_now,
            trend=sparkline(p.trajectory),
        )
        for p in snapshot.parameters
    )
    games = snapshot.games_played
    detail = SpsaTunerView(
        parameters=parameters,
        iterations_done=snapshot.iterations_done,
        iterations=snapshot.number_of_iterations,
        plus_share=snapshot.plus_score / games if games else None,
    )
    return CompetitionView(
        kind="spsa_tuner",
        code=snapshot.code,
        description=snapshot.description,
        board=_board(snapshot.settings),
        games_done=games,
        games_total=snapshot.games_total,
        counts=None,  # the tracker counts forfeits, timeouts and voids from the events
        detail=detail,
        complete=snapshot.complete,
    )


def competition_view(snapshot: CompetitionSnapshot | None) -> CompetitionView | None:
    """The view of any competition's snapshot (None for None)."""
    if snapshot is None:
        return None
    if isinstance(snapshot, PlayoffSnapshot):
        return playoff_view(snapshot)
    if isinstance(snapshot, AllPlayAllSnapshot):
        return allplayall_view(snapshot)
    if isinstance(snapshot, CeTunerSnapshot):
        return ce_tuner_view(snapshot)
    if isinstance(snapshot, SpsaTunerSnapshot):
        return spsa_tuner_view(snapshot)
    return tuner_view(snapshot)
