"""The dashboard's tables for the cross-entropy and SPSA tuners.

Like :mod:`tui.competition_tables` (which chooses among them), each renderer
takes a view from :mod:`tui.views`, a width and a line budget and returns at
most that many lines.  The cross-entropy tuner shows its current
distribution, then the generation's samples, most wins first (or a line
saying they are not known yet: ``arena watch`` before the run has recorded
its state), and the distributions of the latest finished generations when
there is room; the
SPSA tuner one row per parameter: theta now, the perturbation ``c`` and
learning rate ``r`` of the next iteration, and a sparkline of its trajectory.
"""

from __future__ import annotations

from rich.text import Text

from tui.tables import Cell, Column, format_number, line, more, table_lines
from tui.views import CeTunerView, SpsaTunerView

SAMPLES_NOT_RECORDED = "samples: not recorded yet (the run records them with its first result)"


def ce_tuner_natural_height(detail: CeTunerView) -> int:
    return 3 + len(detail.samples) + len(detail.history)


def ce_tuner_lines(detail: CeTunerView, width: int, budget: int) -> list[Text]:
    """Distribution line, samples table (most wins first), then finished generations."""
    if budget <= 0:
        return []
    if detail.generation >= detail.generations:
        stage = f"final distribution (after {detail.generations} generations)"
    else:
        stage = f"generation g{detail.generation} of {detail.generations}"
    lines = [
        line(f"{stage}: {detail.distribution} · {detail.optimiser}", width, "bold green"),
    ]
    room = budget - 1
    samples = detail.samples
    history_room = min(len(detail.history), max(0, room - len(samples) - 2))
    table_room = room - history_room
    if samples and table_room >= 2:
        shown = (
            list(samples)
            if len(samples) + 1 <= table_room
            else list(samples[: max(1, table_room - 2)])
        )
        columns = (
            Column("sample"),
            Column("parameters", flexible=True, min_width=8),
            Column(f"wins/{detail.batch_size}", align="right"),
            Column("running", align="right", optional=1),
        )
        rows: list[list[Cell]] = [
            [
                s.code,
                s.parameters,
                f"{format_number(s.wins)}/{s.games}",
                str(s.in_flight) if s.in_flight else "",
            ]
            for s in shown
        ]
        styles = ["bold" if i < detail.elite_count and s.games else "" for i, s in
                  enumerate(shown)]  # fmt: skip
        lines.extend(table_lines(columns, rows, width, row_styles=styles))
        if len(shown) < len(samples) and len(lines) < budget:
            lines.append(more(len(samples) - len(shown), "samples", width))
    elif not samples and detail.generation < detail.generations and table_room >= 1:
        lines.append(line(SAMPLES_NOT_RECORDED, width, "dim"))
    for text in detail.history[len(detail.history) - history_room :] if history_room else ():
        lines.append(line(text, width, "dim"))
    return lines[:budget]


def spsa_tuner_natural_height(detail: SpsaTunerView) -> int:
    return 2 + len(detail.parameters)


def spsa_tuner_lines(detail: SpsaTunerView, width: int, budget: int) -> list[Text]:
    """Progress line, then one row per parameter."""
    if budget <= 0:
        return []
    title = f"iteration {detail.iterations_done}/{detail.iterations}"
    if detail.plus_share is not None:
        title += f" · plus side {100 * detail.plus_share:.1f}% of the points"
    lines = [line(title, width, "bold green")]
    if budget < 3:
        return lines
    columns = (
        Column("parameter"),
        Column("now", align="right"),
        Column("start", align="right", optional=2),
        Column("range", align="right", optional=3),
        Column("c", align="right", optional=1),
        Column("r", align="right", optional=1),
        Column("trend", flexible=True, min_width=4, optional=4),
    )
    shown = list(detail.parameters)
    if len(shown) + 2 > budget:
        shown = shown[: max(1, budget - 3)]
    rows: list[list[Cell]] = [
        [
            p.code,
            p.value,
            f"{p.start:g}",
            p.bounds,
            f"{p.c_next:.3g}",
            f"{p.r_next:.3g}",
            p.trend,
        ]
        for p in shown
    ]
    lines.extend(table_lines(columns, rows, width))
    if len(shown) < len(detail.parameters):
        lines.append(more(len(detail.parameters) - len(shown), "parameters", width))
    return lines[:budget]
