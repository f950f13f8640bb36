"""The numbers behind the tuners' plots in the HTML report (pure).

The Monte Carlo tuner: each candidate's own games (from the results) placed
in the optimiser space.  The cross-entropy tuner: each generation's Gaussian
per parameter (mean and standard deviation, in optimiser terms) with the
samples it drew and which were elite, and the samples of the generation
being played (or of the last one) by wins.  SPSA: each parameter's theta
after so many iterations with the range its candidates played (theta ± c_k,
within the bounds), and the plus side's share of the points along the run.
Also how the tuners' players are grouped in the tables and the time plot.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Final

import attrs

from arena.competitions.tuner_common import candidate_score
from arena.competitions.tuner_snapshots import CeTunerSnapshot, SpsaTunerSnapshot
from arena.control.ce_tuner import CeTunerSettings
from arena.control.spsa_tuner import SpsaTunerSettings
from arena.control.tuner import McTunerSettings
from arena.reports.series import ELO_POINTS, checkpoints
from arena.results import GameResult
from arena.stats.elo import DEFAULT_CONFIDENCE, Interval, wilson_interval
from arena.tuning.tuner_scales import centres
from gtp.vertex import Colour

_NAMED: Final = re.compile(r"^[A-Za-z_][\w ]*:\s+")
CANDIDATES: Final = "candidates"
PLUS_SIDE: Final = "plus side"  # SPSA's theta + c*delta
MINUS_SIDE: Final = "minus side"
SHARE_BINS: Final = 30  # at most this many runs of iterations in the SPSA plus side's share
SHARE_RUN: Final = 5  # of at least this many iterations (10 games) each


def candidates_apart(opponent: str) -> Callable[[str], str]:
    """A tuner's players for the tables: the opponent, and every candidate as one."""

    def label(code: str) -> str:
        return code if code == opponent else CANDIDATES

    return label


def spsa_side(code: str) -> str:
    """An SPSA candidate (``#12+``, ``#12-``) as the side of the perturbation it played."""
    return PLUS_SIDE if code.endswith("+") else MINUS_SIDE


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


def tick_label(formatted: str) -> str:
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
        labels = tuple(tick_label(parameter.format_value(parameter.scale(f))) for f in ticks)
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


# ---------------------------------------------------------------------------
# The cross-entropy tuner


def ce_engine_labels(settings: CeTunerSettings, axis: int, values: Sequence[float]) -> list[str]:
    """Tick labels for optimiser ``values`` of one parameter: the engine values there."""
    parameter = settings.parameters[axis]
    labels = []
    for value in values:
        try:
            labels.append(tick_label(parameter.describe(parameter.transform(value))))
        except Exception:  # the control file's transform: any failure is its own
            labels.append("?")
    return labels


@attrs.frozen
class SampleMark:
    """One sample of a finished generation along one parameter."""

    generation: int
    value: float  # optimiser parameter
    elite: bool


@attrs.frozen
class CeBand:
    """One parameter's Gaussian generation by generation (optimiser terms).

    ``generations`` are the finished generations' numbers then the current one
    (the final distribution once complete); ``samples`` those the finished
    generations drew.
    """

    code: str
    generations: tuple[int, ...]
    means: tuple[float, ...]
    deviations: tuple[float, ...]  # standard deviations
    samples: tuple[SampleMark, ...]


def ce_bands(snapshot: CeTunerSnapshot) -> list[CeBand]:
    """Each parameter's distribution across generations, with the samples drawn."""
    distributions = [g.distribution for g in snapshot.generations] + [snapshot.distribution]
    numbers = (*(g.number for g in snapshot.generations), snapshot.generation)
    bands = []
    for axis, parameter in enumerate(snapshot.parameters):
        marks = tuple(
            SampleMark(generation.number, sample[axis], number in generation.elite)
            for generation in snapshot.generations
            for number, sample in enumerate(generation.samples)
        )
        bands.append(
            CeBand(
                parameter.code,
                numbers,
                tuple(d.means[axis] for d in distributions),
                tuple(math.sqrt(max(d.variances[axis], 0.0)) for d in distributions),
                marks,
            )
        )
    return bands


@attrs.frozen
class CeSamplePoint:
    number: int
    values: tuple[float, ...]  # optimiser parameters
    wins: float  # a game without a winner counts half
    games: int
    elite: bool


@attrs.frozen
class CeSamples:
    """The samples of one generation with their wins, and the Gaussian they were drawn from."""

    generation: int
    finished: bool  # False: the generation being played (wins so far, no elite yet)
    points: tuple[CeSamplePoint, ...]
    means: tuple[float, ...]
    deviations: tuple[float, ...]
    games_each: int  # games each sample plays (batch_size)


def ce_samples(snapshot: CeTunerSnapshot) -> CeSamples | None:
    """The generation being played once it has a result, else the last finished one."""
    current = snapshot.candidates
    if current and any(c.games for c in current):
        distribution = snapshot.distribution
        points = tuple(CeSamplePoint(c.number, c.sample, c.wins, c.games, c.elite) for c in current)
        finished = False
        number = snapshot.generation
    else:
        done = [g for g in snapshot.generations if g.samples]
        if not done:
            return None
        last = done[-1]
        distribution = last.distribution
        each = last.games // len(last.samples)
        points = tuple(
            CeSamplePoint(n, sample, wins, each, n in last.elite)
            for n, (sample, wins) in enumerate(zip(last.samples, last.wins, strict=True))
        )
        finished = True
        number = last.number
    return CeSamples(
        number,
        finished,
        points,
        distribution.means,
        tuple(math.sqrt(max(v, 0.0)) for v in distribution.variances),
        snapshot.batch_size,
    )


# ---------------------------------------------------------------------------
# SPSA


@attrs.frozen
class SpsaTrack:
    """One parameter's theta after so many iterations, and where its candidates played then."""

    code: str
    iterations: tuple[int, ...]
    theta: tuple[float, ...]
    low: tuple[float, ...]  # theta - c of the next iteration, within the bounds
    high: tuple[float, ...]
    start: float
    minimum: float
    maximum: float
    formatted: str  # theta now, through the format


def spsa_tracks(snapshot: SpsaTunerSnapshot, settings: SpsaTunerSettings) -> list[SpsaTrack]:
    """Each parameter's trajectory with its perturbation range (``settings`` for ``c_k``)."""
    schedule = settings.schedule
    last = max(1, snapshot.number_of_iterations)
    tracks = []
    for state, parameter in zip(snapshot.parameters, settings.parameters, strict=True):
        axis = parameter.axis
        sizes = [schedule.c(axis, min(n + 1, last)) for n in snapshot.trajectory_iterations]
        tracks.append(
            SpsaTrack(
                state.code,
                snapshot.trajectory_iterations,
                state.trajectory,
                tuple(axis.clip(t - c) for t, c in zip(state.trajectory, sizes, strict=True)),
                tuple(axis.clip(t + c) for t, c in zip(state.trajectory, sizes, strict=True)),
                state.start,
                state.minimum,
                state.maximum,
                state.formatted,
            )
        )
    return tracks


@attrs.frozen
class PlusShare:
    """The plus side's share of the points (a jigo is half) along an SPSA run.

    Runs of consecutive iterations, each with its share and Wilson interval;
    and the share since the start after each of a few hundred iterations.
    """

    first: tuple[int, ...]  # first iteration of each run
    last: tuple[int, ...]
    games: tuple[int, ...]
    share: tuple[Interval, ...]
    since_start: tuple[tuple[int, float], ...]  # (iteration, share of the points up to it)
    points: float  # over every game
    total: int


def _iteration(game_id: str) -> int | None:
    """``12`` of SPSA's ``012_1``."""
    head, _, tail = game_id.partition("_")
    return int(head) if head.isdigit() and tail in ("0", "1") else None


def plus_share(
    results: Iterable[GameResult],
    iterations: int,
    *,
    bins: int = SHARE_BINS,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PlusShare:
    """The plus side's points by iteration number, in at most ``bins`` equal runs of iterations
    of at least :data:`SHARE_RUN` iterations each (as far as the run is long enough)."""
    per_iteration: dict[int, list[float]] = {}
    for result in results:
        k = _iteration(result.game_id)
        if k is None:
            continue
        plus = result.black if result.black.endswith("+") else result.white
        row = per_iteration.setdefault(k, [0.0, 0.0])
        row[0] += candidate_score(result, plus)
        row[1] += 1
    count = max(1, min(bins, math.ceil(max(iterations, 1) / SHARE_RUN)))
    width = math.ceil(max(iterations, 1) / count)
    runs: dict[int, list[float]] = {}
    marks = set(checkpoints(max(per_iteration, default=0), ELO_POINTS))
    since_start: list[tuple[int, float]] = []
    points = games = 0.0
    for k, (won, played) in sorted(per_iteration.items()):
        run = runs.setdefault((k - 1) // width, [0.0, 0.0])
        run[0] += won
        run[1] += played
        points += won
        games += played
        if k in marks or k == max(per_iteration):
            since_start.append((k, points / games))
    ordered = sorted(runs.items())
    return PlusShare(
        tuple(b * width + 1 for b, _ in ordered),
        tuple(min((b + 1) * width, max(iterations, 1)) for b, _ in ordered),
        tuple(int(g) for _, (_, g) in ordered),
        tuple(wilson_interval(p, int(g), confidence) for _, (p, g) in ordered),
        tuple(since_start),
        points,
        int(games),
    )
