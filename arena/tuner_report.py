"""The Monte Carlo tuner's frozen snapshot and its text: ``show``, ``X.report`` and tree dumps.

A :class:`TunerSnapshot` is what the reports and the live dashboard read: the
shown candidates of each tree level (``summary_spec``, most games first), each
a :class:`TunerCandidate` with its coordinates, formatted engine parameters,
counts, win rate (including the initial counts, as Gomill reports it), UCB
value, a Wilson interval over the games actually played and a best flag; the
best candidate; and the games in progress.  Pure functions turn it into text.

A candidate line starts as in Gomill's report, then adds the interval::

    (0,1) I: 0.01; F: 365.17                       0.537  70  0.421-0.652
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from arena.reports import describe_players
from arena.settings import GameSettings
from arena.stats import DEFAULT_CONFIDENCE, Interval
from gtp.vertex import Colour


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

    def report(self) -> str:
        return tuner_report(self)


# ---------------------------------------------------------------------------
# Text


def format_interval(candidate: TunerCandidate) -> str:
    if candidate.games == 0:
        return "--"
    return f"{candidate.interval.lower:.3f}-{candidate.interval.upper:.3f}"


def candidate_lines(candidates: Sequence[TunerCandidate], *, indent: bool = False) -> list[str]:
    """One line per candidate: heading, win rate, games, interval, ``best``."""
    if not candidates:
        return []
    headings = [("  " * (c.level - 1) if indent else "") + c.heading for c in candidates]
    width = max(max(len(h) for h in headings) + 2, 40)
    games_width = max(len(str(c.games)) for c in candidates)
    lines = []
    for heading, candidate in zip(headings, candidates, strict=True):
        line = (
            f"{heading:<{width}} {candidate.win_rate:.3f}  {candidate.games:>{games_width}}"
            f"  {format_interval(candidate)}"
        )
        if candidate.in_progress:
            line += f"  ({candidate.in_progress} running)"
        if candidate.best:
            line += "  best" if not candidate.expanded else "  best branch"
        lines.append(line)
    return lines


def _games_line(snapshot: TunerSnapshot) -> str:
    total = "" if snapshot.number_of_games is None else f"/{snapshot.number_of_games}"
    line = f"games played: {snapshot.games_played}{total}"
    if snapshot.in_progress:
        line += f"   in progress: {len(snapshot.in_progress)}"
    if snapshot.void_games:
        line += f"   void games (replayed): {snapshot.void_games}"
    return line


def tuner_report(snapshot: TunerSnapshot) -> str:
    """Header, settings, the best candidate, the shown candidates of each level, players."""
    blocks: list[str] = [f"mc_tuner: {snapshot.code}"]
    if snapshot.description:
        blocks.append(snapshot.description)
    parameters = ", ".join(f"{p.code} ({p.scale}, split {p.split})" for p in snapshot.parameters)
    blocks.append(
        "\n".join(
            [
                f"{snapshot.settings.describe()}   candidate colour:"
                f" {snapshot.candidate_colour.gtp_name}   opponent: {snapshot.opponent}",
                _games_line(snapshot),
                f"parameters: {parameters}",
                f"exploration coefficient: {snapshot.exploration_coefficient:g}"
                f"   initial visits: {snapshot.initial_visits}"
                f"   initial wins: {snapshot.initial_wins}"
                f"   max depth: {snapshot.max_depth}"
                f"   candidates: {snapshot.candidate_count}",
            ]
        )
    )
    best = snapshot.best
    if best is None:
        blocks.append("best candidate: none yet (no games played)")
    else:
        blocks.append(
            f"best candidate: {best.heading}\n"
            f"  win rate {best.win_rate:.3f} (with the initial counts),"
            f" {best.games_won}/{best.games} games won,"
            f" {100 * snapshot.confidence:g}% interval {format_interval(best)}"
        )
    legend = (
        "(coordinates, parameters, win rate including the initial counts, games,"
        f" {100 * snapshot.confidence:g}% Wilson interval of the games played)"
    )
    for number, level in enumerate(snapshot.levels, start=1):
        if not level:
            continue
        title = "candidates" if snapshot.max_depth == 1 and number == 1 else f"level {number}"
        blocks.append("\n".join([f"{title}, most games first {legend}", *candidate_lines(level)]))
    players = describe_players([snapshot.opponent], dict(snapshot.engines))
    if snapshot.candidate_engine:
        first, *rest = snapshot.candidate_engine.strip().splitlines() or [""]
        players.append(f"candidates: {first}")
        players.extend(f"  {line}" for line in rest)
    blocks.append("\n".join(players))
    return "\n\n".join(blocks) + "\n"


def tree_dump(games: int, candidates: Sequence[TunerCandidate]) -> list[str]:
    """The history-file description of the tree: ``candidates`` in tree order, indented."""
    return [f"tree after {games} games:", *candidate_lines(candidates, indent=True), ""]
