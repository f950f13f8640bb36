"""The HTML report's page for the SPSA tuner: each parameter's trajectory, the plus side's share.

Theta and its trajectory are the snapshot's; the perturbation ``c_k`` along
the run comes from the control file's schedule (``c_end``, ``gamma`` and the
iteration count, which a run may not change); the plus side's share of the
points and the games (lengths, times, losses) from the journal.
"""

from __future__ import annotations

from arena.competitions.tuner_snapshots import SpsaTunerSnapshot
from arena.control.spsa_tuner import spsa_settings
from arena.reports import trajectory_plots
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
    MINUS_SIDE,
    PLUS_SIDE,
    plus_share,
    spsa_side,
    spsa_tracks,
)


def _parameters_table(snapshot: SpsaTunerSnapshot) -> str:
    rows: list[list[Cell | str]] = [
        [
            p.code,
            Cell(p.formatted, "name"),
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
    headings: list[Cell | str] = [
        "parameter",
        Cell("theta now", "name"),
        "start",
        "min",
        "max",
        "c next",
        "r next",
        "c_end",
        "r_end",
    ]
    return table(headings, rows)


def spsa_tuner_page(snapshot: SpsaTunerSnapshot, inputs: PageInputs) -> PageContent:
    settings = spsa_settings(inputs.config)
    results = inputs.history.results
    settings_line = (
        f"{snapshot.settings.describe()}; each iteration plays theta + c·delta against"
        f" theta − c·delta, once with each colour; A {snapshot.a_constant:g}, alpha"
        f" {snapshot.alpha:g}, gamma {snapshot.gamma:g}"
    )
    theta = "; ".join(p.formatted for p in snapshot.parameters)
    lead = (
        f"<p><strong>theta after {snapshot.iterations_done} of"
        f" {snapshot.number_of_iterations} iterations</strong>: {esc(theta)}</p>"
    )
    if snapshot.games_played:
        share = 100 * snapshot.plus_score / snapshot.games_played
        lead += (
            f'<p class="note">the plus side took {share:.1f}% of the points over'
            f" {snapshot.games_played} games (near 50% once theta sits where a small step"
            " either way makes little difference)</p>"
        )
    sections = [
        '<section id="theta"><h2>Parameters</h2>'
        f'<p class="settings">{esc(settings_line)}</p>{lead}'
        + _parameters_table(snapshot)
        + "</section>"
    ]
    shown: list[Plot] = []
    if snapshot.games_played:
        for track in spsa_tracks(snapshot, settings):
            ident = element_id(track.code)
            shown.append(
                Plot(
                    f"fig-trajectory-{ident}",
                    trajectory_plots.spsa_trajectory_figure(
                        track, snapshot.number_of_iterations, f"trajectory-{ident}"
                    ),
                    f"Theta of {track.code} against iterations, within its bounds",
                )
            )
        shares = plus_share(results, snapshot.number_of_iterations)
        if shares.total:
            shown.append(
                Plot(
                    "fig-plus-share",
                    trajectory_plots.plus_share_figure(
                        shares, snapshot.number_of_iterations, "plus-share"
                    ),
                    "The plus side's share of the points along the run",
                )
            )
    records = player_records(results, spsa_side, order=(PLUS_SIDE, MINUS_SIDE))
    shown.extend(games_plots(results, records=records))
    sections.append(
        '<section id="games"><h2>Trajectories and games</h2>'
        + (figures(shown) if shown else NO_GAMES)
        + "</section>"
    )
    sections.append(players_section([], {}, records, snapshot.candidate_engine))
    sections.append(text_report_section(snapshot))
    return PageContent(
        title=snapshot.code,
        kind="SPSA tuner",
        description=snapshot.description,
        summary=f"{snapshot.iterations_done}/{snapshot.number_of_iterations} iterations; "
        + progress(snapshot.games_played, snapshot.complete, snapshot.games_total),
        navigation=(
            ("theta", "parameters"),
            ("games", "trajectories and games"),
            ("players", "players"),
            ("text-report", "text report"),
        ),
        sections=tuple(sections),
    )
