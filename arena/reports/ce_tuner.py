"""The cross-entropy tuner's text: ``show``, ``X.report`` and the history file's generations.

Pure functions of a :class:`arena.competitions.snapshots.CeTunerSnapshot`.
The report shows, as Gomill's does, the current Gaussian (engine parameters
at its mean, then ``mean~variance`` of each optimiser parameter) and the
wins of each candidate of the current generation; then one line per
finished generation: the distribution it sampled, its best sample and the
mean of its elite.  After each generation the history file gets the
generation's candidates, most wins first, the elite marked ``*``::

    generation g0
    distribution: I: 0.10; F: 3162.28   -1.00~1.50 3.50~1.50
    g0#3*  I: 0.05; F: 2000.00   8
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.competitions.tuner_snapshots import (
    CeCandidate,
    CeDistribution,
    CeGeneration,
    CeTunerSnapshot,
)
from arena.reports.playoff import describe_players
from arena.reports.tuner import candidate_engine_lines


def format_points(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def candidate_table(candidates: Sequence[CeCandidate], *, games: bool = True) -> list[str]:
    """``code[*]  parameters  wins[/games]``, columns aligned."""
    if not candidates:
        return []
    codes = [c.code + ("*" if c.elite else "") for c in candidates]
    code_width = max(len(code) for code in codes)
    text_width = max(len(c.description) for c in candidates)
    lines = []
    for code, candidate in zip(codes, candidates, strict=True):
        score = format_points(candidate.wins)
        if games:
            score += f"/{candidate.games}"
        line = f"{code:<{code_width}}  {candidate.description:<{text_width}}  {score:>5}"
        if candidate.in_progress:
            line += f"  ({candidate.in_progress} running)"
        lines.append(line.rstrip())
    return lines


def distribution_line(distribution: CeDistribution) -> str:
    return f"{distribution.description}   {distribution.optimiser}"


def generation_lines(
    number: int, distribution: CeDistribution, ordered: Sequence[CeCandidate]
) -> list[str]:
    """The history file's record of a finished generation (candidates most wins first)."""
    return [
        f"generation g{number}",
        f"distribution: {distribution_line(distribution)}",
        *candidate_table(ordered, games=False),
        "",
    ]


def _generation_row(generation: CeGeneration) -> str:
    best = generation.best
    return (
        f"g{generation.number:<3} {distribution_line(generation.distribution)}"
        f"   best {best.code} {best.description} {format_points(best.wins)}/{best.games}"
        f"   elite mean {'; '.join(generation.elite_mean)}"
    )


def ce_tuner_report(snapshot: CeTunerSnapshot) -> str:
    """Header, settings, the current distribution, the generation's candidates, the history."""
    blocks: list[str] = [f"ce_tuner: {snapshot.code}"]
    if snapshot.description:
        blocks.append(snapshot.description)
    games = f"games played: {snapshot.games_played}/{snapshot.games_total}"
    if snapshot.in_progress:
        games += f"   in progress: {len(snapshot.in_progress)}"
    if snapshot.void_games:
        games += f"   void games (replayed): {snapshot.void_games}"
    if snapshot.complete:
        stage = f"all {snapshot.number_of_generations} generations played"
    else:
        stage = f"generation g{snapshot.generation} of {snapshot.number_of_generations}"
    parameters = ", ".join(
        f"{p.code} (initial {p.initial_mean:g}~{p.initial_variance:g}, {p.transform})"
        for p in snapshot.parameters
    )
    blocks.append(
        "\n".join(
            [
                f"{snapshot.settings.describe()}   candidate colour: {snapshot.candidate_colour}"
                f"   opponent: {snapshot.opponent}",
                f"{stage}   {games}",
                f"samples per generation: {snapshot.samples_per_generation}"
                f"   batch size: {snapshot.batch_size}"
                f"   elite: {snapshot.elite_count} (proportion {snapshot.elite_proportion:g})"
                f"   step size: {snapshot.step_size:g}",
                f"parameters: {parameters}",
            ]
        )
    )
    title = (
        "final distribution"
        if snapshot.generation >= snapshot.number_of_generations
        else f"distribution for generation g{snapshot.generation}"
    )
    blocks.append(
        f"{title}: {snapshot.distribution.description}\n"
        f"  optimiser mean~variance: {snapshot.distribution.optimiser}"
    )
    if snapshot.candidates:
        ordered = sorted(snapshot.candidates, key=lambda c: (-c.wins, c.number))
        blocks.append(
            "\n".join(
                [
                    f"candidates of generation g{snapshot.generation}, most wins first"
                    " (code, engine parameters, wins/games; no winner counts half)",
                    *candidate_table(ordered),
                ]
            )
        )
    if snapshot.generations:
        blocks.append(
            "\n".join(
                [
                    "generations (the distribution sampled: engine parameters at the mean,"
                    " mean~variance; the best sample; the elite's mean)",
                    *(_generation_row(g) for g in snapshot.generations),
                ]
            )
        )
    players = describe_players([snapshot.opponent], dict(snapshot.engines))
    players.extend(candidate_engine_lines(snapshot.candidate_engine))
    blocks.append("\n".join(players))
    return "\n\n".join(blocks) + "\n"
