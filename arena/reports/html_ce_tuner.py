"""The HTML report's page for the cross-entropy tuner: how the distribution moved, and the samples.

The distributions, samples, wins and elites are the snapshot's; the engine
values on the plots' axes come from the control file's ``transform`` and
``format``; the games (lengths, times, losses) from the journal.
"""

from __future__ import annotations

from functools import partial

from arena.competitions.tuner_snapshots import CeGeneration, CeTunerSnapshot
from arena.control.ce_tuner import CeTunerSettings, ce_settings
from arena.reports import trajectory_plots
from arena.reports.ce_tuner import format_points
from arena.reports.html_common import (
    NO_GAMES,
    PageContent,
    PageInputs,
    games_plots,
    players_section,
    progress,
    text_report_section,
)
from arena.reports.html_parts import Cell, Plot, element_id, esc, figures, table
from arena.reports.series import player_records
from arena.reports.tuner_series import (
    CANDIDATES,
    CeSamples,
    candidates_apart,
    ce_bands,
    ce_engine_labels,
    ce_samples,
)

FIRST_ROWS = 12  # samples in the table; the rest are folded


def _generation_row(generation: CeGeneration) -> list[Cell | str]:
    best = generation.best
    return [
        f"g{generation.number}",
        Cell(generation.distribution.description, "name"),
        Cell(generation.distribution.optimiser, "name"),
        str(generation.games),
        Cell(f"{best.code} {best.description}", "name"),
        f"{format_points(best.wins)}/{best.games}",
        Cell("; ".join(generation.elite_mean), "name"),
    ]


def _generations_table(snapshot: CeTunerSnapshot) -> str:
    rows = [_generation_row(g) for g in snapshot.generations]
    now = "final" if snapshot.complete else f"g{snapshot.generation} now"
    rows.append(
        [
            now,
            Cell(snapshot.distribution.description, "name"),
            Cell(snapshot.distribution.optimiser, "name"),
            "",
            "",
            "",
            "",
        ]
    )
    headings: list[Cell | str] = [
        "generation",
        Cell("at the mean", "name"),
        Cell("mean~variance", "name"),
        "games",
        Cell("best sample", "name"),
        "wins",
        Cell("elite mean", "name"),
    ]
    return "<h3>Generations</h3>" + table(headings, rows)


def _samples_table(samples: CeSamples, settings: CeTunerSettings) -> str:
    """The generation's samples, most wins first, the elite marked."""
    ordered = sorted(samples.points, key=lambda p: (-p.wins, p.number))
    rows: list[list[Cell | str]] = [
        [
            Cell(f"g{samples.generation}#{point.number}" + (" *" if point.elite else ""), "name"),
            Cell("; ".join(settings.describe(point.values)), "name"),
            format_points(point.wins),
            str(point.games),
        ]
        for point in ordered
    ]
    classes = ["best" if p.elite else "" for p in ordered]
    headings: list[Cell | str] = [
        Cell("sample", "name"),
        Cell("parameters", "name"),
        "wins",
        "games",
    ]
    state = "elite marked *" if samples.finished else "being played"
    text = f"<h3>Samples of generation g{samples.generation}, most wins first ({state})</h3>"
    text += table(headings, rows[:FIRST_ROWS], row_classes=classes[:FIRST_ROWS])
    if len(rows) > FIRST_ROWS:
        text += (
            f"<details><summary>{len(rows) - FIRST_ROWS} more</summary>"
            + table(headings, rows[FIRST_ROWS:], row_classes=classes[FIRST_ROWS:])
            + "</details>"
        )
    return text


def ce_tuner_page(snapshot: CeTunerSnapshot, inputs: PageInputs) -> PageContent:
    settings = ce_settings(inputs.config)
    results = inputs.history.results
    parameters = ", ".join(
        f"{p.code} (initial {p.initial_mean:g}~{p.initial_variance:g}, {p.transform})"
        for p in snapshot.parameters
    )
    colour = snapshot.candidate_colour
    games = "1 game" if snapshot.batch_size == 1 else f"{snapshot.batch_size} games"
    settings_line = (
        f"{snapshot.settings.describe()}; candidates play"
        f" {'a random colour' if colour == 'random' else colour} against"
        f" {snapshot.opponent}; {snapshot.samples_per_generation} samples a generation,"
        f" {games} each; elite {snapshot.elite_count} (proportion"
        f" {snapshot.elite_proportion:g}); step size {snapshot.step_size:g}; {parameters}"
    )
    title = "Final distribution" if snapshot.complete else "Distribution now"
    lead = (
        f"<p><strong>{esc(title)}</strong>: {esc(snapshot.distribution.description)}"
        f' <span class="note">(optimiser mean~variance'
        f" {esc(snapshot.distribution.optimiser)})</span></p>"
    )
    body = lead + (_generations_table(snapshot) if snapshot.generations else "")
    samples = ce_samples(snapshot)
    if samples is not None:
        body += _samples_table(samples, settings)
    sections = [
        '<section id="distribution"><h2>Distribution</h2>'
        f'<p class="settings">{esc(settings_line)}</p>{body}</section>'
    ]
    shown: list[Plot] = []
    identity = {p.code: p.transform == "identity" for p in snapshot.parameters}
    labels = [
        None if identity[p.code] else partial(ce_engine_labels, settings, axis)
        for axis, p in enumerate(snapshot.parameters)
    ]
    if snapshot.games_played:
        for axis, band in enumerate(ce_bands(snapshot)):
            ident = element_id(band.code)
            shown.append(
                Plot(
                    f"fig-distribution-{ident}",
                    trajectory_plots.ce_distribution_figure(
                        band, labels[axis], snapshot.complete, f"distribution-{ident}"
                    ),
                    f"Mean and spread of {band.code} in each generation, with its samples",
                )
            )
    if samples is not None:
        shown.append(
            Plot(
                "fig-samples",
                trajectory_plots.ce_samples_figure(
                    samples, [p.code for p in snapshot.parameters], labels, "samples"
                ),
                f"Samples of generation g{samples.generation} against their wins",
            )
        )
    records = player_records(
        results, candidates_apart(snapshot.opponent), order=(CANDIDATES, snapshot.opponent)
    )
    shown.extend(games_plots(results, records=records))
    sections.append(
        '<section id="games"><h2>Where the games went</h2>'
        + (figures(shown) if shown else NO_GAMES)
        + "</section>"
    )
    sections.append(
        players_section(
            [snapshot.opponent], dict(snapshot.engines), records, snapshot.candidate_engine
        )
    )
    sections.append(text_report_section(snapshot))
    stage = (
        f"{snapshot.number_of_generations} generations"
        if snapshot.complete
        else f"generation g{snapshot.generation} of {snapshot.number_of_generations}"
    )
    return PageContent(
        title=snapshot.code,
        kind="cross-entropy tuner",
        description=snapshot.description,
        summary=f"{stage}; "
        + progress(snapshot.games_played, snapshot.complete, snapshot.games_total),
        navigation=(
            ("distribution", "distribution"),
            ("games", "where the games went"),
            ("players", "players"),
            ("text-report", "text report"),
        ),
        sections=tuple(sections),
    )
