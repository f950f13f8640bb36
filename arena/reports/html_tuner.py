"""The HTML report's page for the Monte Carlo tuner: the best candidate and where the games went.

Candidates' own games come from the journal (every candidate that played, not
only those the text report lists); their places in the parameter space and
the engine values on the axes from the control file's ``parameters``.
"""

from __future__ import annotations

from arena.competitions.tuner_snapshots import TunerCandidate, TunerSnapshot
from arena.control.tuner import tuner_settings
from arena.reports import tuner_plots
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
from arena.reports.tuner import format_interval
from arena.reports.tuner_series import (
    CANDIDATES,
    candidate_games,
    candidate_points,
    candidates_apart,
    marginal_points,
    parameter_axes,
)

FIRST_ROWS = 12  # candidates in the table; the rest are folded


def _candidates_table(snapshot: TunerSnapshot) -> str:
    shown: list[TunerCandidate] = list(snapshot.candidates)
    if not shown:
        return NO_GAMES
    confidence = f"{100 * snapshot.confidence:g}%"
    rows: list[list[Cell | str]] = [
        [
            Cell(candidate.label, "name"),
            Cell(candidate.description, "name"),
            f"{candidate.win_rate:.3f}",
            str(candidate.games),
            format_interval(candidate),
            str(candidate.in_progress or ""),
        ]
        for candidate in shown
    ]
    headings: list[Cell | str] = [
        "candidate",
        Cell("parameters", "name"),
        "win rate",
        "games",
        f"{confidence} interval",
        "running",
    ]
    classes = ["best" if c.best else "" for c in shown]
    text = (
        "<h3>Candidates, most games first</h3>"
        '<p class="settings">win rate includes the initial visits and wins, as the tuner'
        " uses it; the interval is over the games played</p>"
        + table(headings, rows[:FIRST_ROWS], row_classes=classes[:FIRST_ROWS])
    )
    if len(rows) > FIRST_ROWS:
        text += (
            f"<details><summary>{len(rows) - FIRST_ROWS} more (the text report's"
            " summary_spec)</summary>"
            + table(headings, rows[FIRST_ROWS:], row_classes=classes[FIRST_ROWS:])
            + "</details>"
        )
    return text


def tuner_page(snapshot: TunerSnapshot, inputs: PageInputs) -> PageContent:
    settings = tuner_settings(inputs.config)
    results = inputs.history.results
    best = snapshot.best
    if best is None:
        lead = NO_GAMES
    else:
        lead = (
            f"<p><strong>{esc(best.heading)}</strong>: won {best.games_won} of {best.games}"
            f" games ({esc(format_interval(best))} at {100 * snapshot.confidence:g}%), win rate"
            f" {best.win_rate:.3f} with the initial counts</p>"
        )
    parameters = ", ".join(f"{p.code} {p.scale} split {p.split}" for p in snapshot.parameters)
    settings_line = (
        f"{snapshot.settings.describe()}; candidates play {snapshot.candidate_colour.gtp_name}"
        f" against {snapshot.opponent}; {parameters}; exploration coefficient"
        f" {snapshot.exploration_coefficient:g}, initial visits {snapshot.initial_visits},"
        f" initial wins {snapshot.initial_wins}, max depth {snapshot.max_depth}"
    )
    sections = [
        '<section id="best"><h2>Best candidate</h2>'
        f'<p class="settings">{esc(settings_line)}</p>{lead}'
        + _candidates_table(snapshot)
        + "</section>"
    ]
    shown: list[Plot] = []
    axes = parameter_axes(settings)
    points = candidate_points(
        candidate_games(results, snapshot.candidate_colour),
        settings,
        best.code if best is not None else None,
    )
    if points:
        shown.append(
            Plot(
                "fig-candidates",
                tuner_plots.candidates_figure(points, axes, "candidates"),
                "Games and win rate of each candidate over the parameter space",
            )
        )
        if len(axes) > 1:
            for number, axis in enumerate(axes):
                ident = element_id(axis.code)
                marginal = marginal_points(points, number, axis.split)
                shown.append(
                    Plot(
                        f"fig-parameter-{ident}",
                        tuner_plots.marginal_figure(marginal, axis, f"parameter-{ident}"),
                        f"Games and win rate by {axis.code}",
                    )
                )
    records = player_records(
        results, candidates_apart(snapshot.opponent), order=(CANDIDATES, snapshot.opponent)
    )
    shown.extend(games_plots(results, records=records))
    sections.append(
        '<section id="space"><h2>Where the games went</h2>'
        + (figures(shown) if shown else NO_GAMES)
        + "</section>"
    )
    sections.append(
        players_section(
            [snapshot.opponent], dict(snapshot.engines), records, snapshot.candidate_engine
        )
    )
    sections.append(text_report_section(snapshot))
    return PageContent(
        title=snapshot.code,
        kind="Monte Carlo tuner",
        description=snapshot.description,
        summary=f"{snapshot.candidate_count} candidates; "
        + progress(snapshot.games_played, snapshot.complete, snapshot.number_of_games),
        navigation=(
            ("best", "best candidate"),
            ("space", "where the games went"),
            ("players", "players"),
            ("text-report", "text report"),
        ),
        sections=tuple(sections),
    )
