"""The Monte Carlo tuner's text: ``show``, ``X.report`` and the history file's tree dumps.

Pure functions of a :class:`arena.competitions.snapshots.TunerSnapshot`: the
shown candidates of each tree level (``summary_spec``, most games first), each
with its coordinates, formatted engine parameters, counts, win rate
(including the initial counts, as Gomill reports it), UCB value, a Wilson
interval over the games actually played and a best flag; the best candidate;
and the games in progress.

A candidate line starts as in Gomill's report, then adds the interval::

    (0,1) I: 0.01; F: 365.17                       0.537  70  0.421-0.652
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.competitions.tuner_snapshots import TunerCandidate, TunerSnapshot
from arena.reports.playoff import describe_players


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


def _rule_text(snapshot: TunerSnapshot) -> str:
    if snapshot.selection_rule == "ucb":
        return f"exploration coefficient: {snapshot.exploration_coefficient:g}"
    return f"selection rule: {snapshot.selection_rule}"


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
                _rule_text(snapshot) + f"   initial visits: {snapshot.initial_visits}"
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
    players.extend(candidate_engine_lines(snapshot.candidate_engine))
    blocks.append("\n".join(players))
    return "\n\n".join(blocks) + "\n"


def candidate_engine_lines(description: str | None) -> list[str]:
    """``candidates: <engine description>`` (further lines indented), if one was seen."""
    if not description:
        return []
    first, *rest = description.strip().splitlines() or [""]
    return [f"candidates: {first}", *(f"  {line}" for line in rest)]


def tree_dump(games: int, candidates: Sequence[TunerCandidate]) -> list[str]:
    """The history-file description of the tree: ``candidates`` in tree order, indented."""
    return [f"tree after {games} games:", *candidate_lines(candidates, indent=True), ""]
