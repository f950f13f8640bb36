"""The SPSA tuner's text: what ``show`` prints and ``X.report`` holds.

A pure function of a :class:`arena.competitions.snapshots.SpsaTunerSnapshot`:
the settings, progress (iterations and games, and the plus side's share of
the points, which stays near 50% when the perturbations are fair), one line
per parameter (theta now, its start and bounds, the perturbation ``c`` and
learning rate ``r`` of the next iteration, ``c_end`` and ``r_end``), then
each parameter's trajectory: theta after so many iterations, at most
:data:`TRAJECTORY_ROWS` rows spread over the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from arena.competitions.tuner_snapshots import SpsaTunerSnapshot
from arena.reports.tuner import candidate_engine_lines

TRAJECTORY_ROWS: Final = 21


def spread_rows(count: int, rows: int = TRAJECTORY_ROWS) -> list[int]:
    """Up to ``rows`` indices from ``range(count)``, evenly spread, first and last included."""
    if count <= rows:
        return list(range(count))
    return sorted({round(i * (count - 1) / (rows - 1)) for i in range(rows)})


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    lines = []
    for row in (header, *rows):
        cells = [cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in
                 enumerate(zip(row, widths, strict=True))]  # fmt: skip
        lines.append("  ".join(cells).rstrip())
    return lines


def spsa_tuner_report(snapshot: SpsaTunerSnapshot) -> str:
    """Header, settings, progress, the parameters now, their trajectories."""
    blocks: list[str] = [f"spsa_tuner: {snapshot.code}"]
    if snapshot.description:
        blocks.append(snapshot.description)
    progress = (
        f"iterations: {snapshot.iterations_done}/{snapshot.number_of_iterations}"
        f"   games played: {snapshot.games_played}/{snapshot.games_total}"
    )
    if snapshot.in_progress:
        progress += f"   in progress: {len(snapshot.in_progress)}"
    if snapshot.void_games:
        progress += f"   void games (replayed): {snapshot.void_games}"
    share = ""
    if snapshot.games_played:
        share = f"   plus side's points: {100 * snapshot.plus_score / snapshot.games_played:.1f}%"
    blocks.append(
        "\n".join(
            [
                snapshot.settings.describe(),
                progress,
                f"A: {snapshot.a_constant:g}   alpha: {snapshot.alpha:g}"
                f"   gamma: {snapshot.gamma:g}{share}",
            ]
        )
    )
    rows = [
        [
            p.code,
            p.formatted,
            f"{p.start:g}",
            f"{p.minimum:g}",
            f"{p.maximum:g}",
            f"{p.c_now:.4g}",
            f"{p.r_now:.4g}",
            f"{p.c_end:g}",
            f"{p.r_end:g}",
        ]
        for p in snapshot.parameters
    ]
    header = ["parameter", "now", "start", "min", "max", "c next", "r next", "c_end", "r_end"]
    blocks.append("\n".join(_table(header, rows)))
    iterations = snapshot.trajectory_iterations
    picked = spread_rows(len(iterations))
    trajectory = [
        [str(iterations[i]), *(f"{p.trajectory[i]:.4g}" for p in snapshot.parameters)]
        for i in picked
    ]
    blocks.append(
        "\n".join(
            [
                "trajectory (theta after so many iterations)",
                *_table(["iteration", *(p.code for p in snapshot.parameters)], trajectory),
            ]
        )
    )
    engines = candidate_engine_lines(snapshot.candidate_engine)
    if engines:
        blocks.append("\n".join(engines))
    return "\n\n".join(blocks) + "\n"
