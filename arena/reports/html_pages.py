"""The HTML report's pages for playoffs and all-play-all tournaments.

One function per competition type, from its snapshot (the totals, as the text
report has them) and :class:`arena.reports.html_common.PageInputs` (the control
file and the games in order, :mod:`arena.reports.history`) to a
:class:`arena.reports.html_common.PageContent`.  The statistics are the
snapshot's and :mod:`arena.stats`'; the series for the plots come from
:mod:`arena.reports.series` and the plots from :mod:`arena.reports.plots`.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.competitions.matchstats import format_elo, format_elo_brief, stats_lines
from arena.competitions.snapshots import AllPlayAllSnapshot, MatchupSnapshot, PlayoffSnapshot
from arena.reports import plots
from arena.reports.html_common import (
    NO_GAMES,
    PageContent,
    PageInputs,
    games_plots,
    players_section,
    progress,
    seconds_cell,
    text_report_section,
)
from arena.reports.html_parts import Cell, Plot, element_id, esc, figures, score_colour, table
from arena.reports.playoff import format_float, format_percent
from arena.reports.series import (
    by_pairing,
    colour_records,
    elo_series,
    player_records,
    ratings_series,
)
from arena.results import GameResult

MAX_PAIRING_PLOTS = 10  # an all-play-all draws each pairing's Elo curve up to this many pairings


# ---------------------------------------------------------------------------
# Playoffs


def _rate(part: float, whole: int) -> str:
    return format_percent(part, whole) if whole else "–"


def matchup_table(matchup: MatchupSnapshot) -> str:
    """Each player's wins, by colour, forfeits, time losses, CPU and time per move (the text
    report's table)."""
    tally = matchup.tally
    rows = []
    for code in (matchup.player_1, matchup.player_2):
        counts = tally.players[code]
        cpu = counts.average_cpu
        rows.append(
            [
                code,
                format_float(counts.wins),
                _rate(counts.wins, tally.games),
                f"{format_float(counts.black_wins)}/{counts.black_games}",
                _rate(counts.black_wins, counts.black_games),
                f"{format_float(counts.white_wins)}/{counts.white_games}",
                _rate(counts.white_wins, counts.white_games),
                str(counts.forfeits),
                str(counts.time_losses),
                "–" if cpu is None else f"{cpu:.2f}",
                seconds_cell(counts.average_time),
                seconds_cell(counts.longest_time),
            ]
        )
    headings = [
        "player",
        "wins",
        "%",
        "as black",
        "%",
        "as white",
        "%",
        "forfeits",
        "lost on time",
        "avg cpu s",
        "s/move",
        "longest s",
    ]
    return table(headings, rows)


def _count_notes(matchup: MatchupSnapshot) -> list[str]:
    tally = matchup.tally
    notes = []
    unknown = tally.unknown + tally.move_limit
    if tally.jigos:
        notes.append(f"jigos: {tally.jigos}")
    if unknown:
        notes.append(f"unknown results: {unknown} ({tally.move_limit} at the move limit)")
    if tally.void_games:
        notes.append(f"void games (replayed): {tally.void_games}")
    return notes


def summary_row(matchup: MatchupSnapshot) -> list[Cell | str]:
    """One line of a matchups table: games, result, score and Elo of player_1, LOS."""
    tally = matchup.tally
    stats = matchup.stats
    played = str(tally.games)
    if matchup.number_of_games is not None:
        played += f"/{matchup.number_of_games}"
    p1, p2 = tally.players[matchup.player_1], tally.players[matchup.player_2]
    result = f"{format_float(p1.wins)}–{format_float(p2.wins)}"
    if stats is None or stats.pairing.wdl.games == 0:
        return [Cell(matchup.name, "name"), played, result, "–", "–", "–"]
    rate = stats.pairing.win_rate
    score = f"{100 * rate.value:.1f}% ({100 * rate.lower:.0f}–{100 * rate.upper:.0f})"
    return [
        Cell(matchup.name, "name"),
        played,
        result,
        score,
        format_elo_brief(stats.pairing.elo),
        f"{100 * stats.pairing.los:.1f}%",
    ]


SUMMARY_HEADINGS = ["matchup", "games", "result", "score (95%)", "Elo", "LOS"]


def matchup_section(matchup: MatchupSnapshot, results: Sequence[GameResult]) -> str:
    """A playoff matchup: settings, table, figures (Elo, colours, lengths, times)."""
    tally = matchup.tally
    ident = element_id(matchup.id)
    settings = "?? (missing from the control file)"
    if matchup.settings is not None:
        settings = matchup.settings.describe()
    body: list[str] = []
    if tally.games == 0:
        body.append(NO_GAMES)
    else:
        body.append(matchup_table(matchup))
        lines = _count_notes(matchup) + (stats_lines(matchup.stats) if matchup.stats else [])
        if lines:
            body.append('<ul class="stats">' + "".join(f"<li>{esc(x)}</li>" for x in lines))
            body.append("</ul>")
    shown: list[Plot] = []
    if results:
        series = elo_series(results, matchup.player_1, matchup.player_2)
        sprt = matchup.stats.sprt if matchup.stats is not None else None
        shown.append(
            Plot(
                f"fig-elo-{ident}",
                plots.elo_figure(series, f"elo-{ident}", sprt),
                f"Elo of {matchup.player_1} against {matchup.player_2} by games played",
            )
        )
        records = colour_records([matchup], [matchup.player_1, matchup.player_2])
        shown.append(
            Plot(
                f"fig-colour-{ident}",
                plots.colour_figure(records, f"colour-{ident}", "Wins by colour"),
                "Win rate of each player with Black and with White",
            )
        )
        times = player_records(results, order=(matchup.player_1, matchup.player_2))
        shown.extend(games_plots(results, matchup.id, times))
    body.append(figures(shown))
    played = f" ({tally.games} games)"
    return (
        f'<section id="matchup-{esc(ident)}"><h2>{esc(matchup.name)}{esc(played)}</h2>'
        f'<p class="settings">{esc(settings)}</p>{"".join(body)}</section>'
    )


def playoff_page(snapshot: PlayoffSnapshot, inputs: PageInputs) -> PageContent:
    grouped = by_pairing(inputs.history.results)
    sections = []
    if len(snapshot.matchups) > 1:
        rows = [summary_row(m) for m in snapshot.matchups]
        sections.append(
            '<section id="summary"><h2>Matchups</h2>'
            '<p class="settings">score and Elo are the first player\'s</p>'
            + table(SUMMARY_HEADINGS, rows)
            + "</section>"
        )
    for matchup in snapshot.matchups:
        sections.append(matchup_section(matchup, grouped.get(matchup.id, [])))
    players: list[str] = []
    for matchup in snapshot.matchups:
        players.extend(p for p in (matchup.player_1, matchup.player_2) if p not in players)
    records = player_records(inputs.history.results, order=players)
    sections.append(players_section(players, dict(snapshot.engines), records))
    sections.append(text_report_section(snapshot))
    navigation = (
        *((f"matchup-{element_id(m.id)}", m.name) for m in snapshot.matchups),
        ("players", "players"),
        ("text-report", "text report"),
    )
    return PageContent(
        title=snapshot.code,
        kind="playoff",
        description=snapshot.description,
        summary=progress(snapshot.games_played, snapshot.complete),
        navigation=navigation,
        sections=tuple(sections),
    )


# ---------------------------------------------------------------------------
# All-play-all


def grid_table(snapshot: AllPlayAllSnapshot) -> str:
    """The results grid as a coloured table, strongest first, with each rating."""
    ratings = {rating.player: rating for rating in snapshot.ratings.players}
    index = {code: i for i, code in enumerate(snapshot.competitors)}

    def strength(code: str) -> float:
        elo = ratings[code].elo
        return -elo.value if elo is not None else float("inf")

    order = sorted(snapshot.competitors, key=strength)
    headings: list[Cell | str] = [Cell("", "name")]
    headings += [Cell(snapshot.letters[index[c]], "letter", title=c) for c in order]
    headings += ["Elo", "±", "games", "points"]
    rows: list[list[Cell | str]] = []
    for row_code in order:
        i = index[row_code]
        row: list[Cell | str] = [Cell(f"{snapshot.letters[i]}  {row_code}", "name")]
        for column_code in order:
            j = index[column_code]
            cell = snapshot.grid[i][j]
            if i == j:
                row.append(Cell("", "cell self"))
            elif cell is None:
                row.append(Cell("", "cell"))
            else:
                total = cell.wins + cell.losses
                tip = (
                    f"{row_code} v {column_code}: {format_float(cell.wins)} won,"
                    f" {format_float(cell.losses)} lost"
                )
                row.append(
                    Cell(
                        f"{format_float(cell.wins)}-{format_float(cell.losses)}",
                        "cell",
                        score_colour(cell.wins / total),
                        tip,
                    )
                )
        rating = ratings[row_code]
        if rating.elo is None:
            row += ["?", "", str(rating.games), format_float(rating.points)]
        elif row_code == snapshot.ratings.anchor:
            row += ["0", "anchor", str(rating.games), format_float(rating.points)]
        else:
            row += [
                format_elo(rating.elo.value),
                f"{rating.elo.margin:.0f}",
                str(rating.games),
                format_float(rating.points),
            ]
        rows.append(row)
    return table(headings, rows, classes="grid")


def allplayall_page(snapshot: AllPlayAllSnapshot, inputs: PageInputs) -> PageContent:
    results = inputs.history.results
    played = player_records(results, order=snapshot.competitors)
    confidence = f"{100 * snapshot.ratings.confidence:g}%"
    sections = [
        '<section id="grid"><h2>Results grid</h2>'
        f'<p class="settings">{esc(snapshot.settings.describe())}; each cell is the row'
        " player's wins-losses against the column player (a jigo is half a win each);"
        f" Bradley–Terry Elo with {confidence} intervals, {esc(snapshot.ratings.anchor)} = 0</p>"
        + grid_table(snapshot)
        + "</section>"
    ]
    shown: list[Plot] = []
    if snapshot.games_played:
        shown.append(
            Plot(
                "fig-ratings",
                plots.ratings_figure(snapshot.ratings, "ratings"),
                "Bradley–Terry rating of each competitor with its interval",
            )
        )
        series = ratings_series(results, snapshot.competitors, snapshot.ratings.anchor)
        if series.games:
            shown.append(
                Plot(
                    "fig-ratings-history",
                    plots.ratings_history_figure(series, "ratings-history"),
                    "Ratings against games played",
                )
            )
        records = colour_records(snapshot.matchups, snapshot.competitors)
        shown.append(
            Plot(
                "fig-colour",
                plots.colour_figure(records, "colour", "Wins by colour"),
                "Win rate of each competitor with Black and with White",
            )
        )
        shown.extend(games_plots(results, records=played))
    sections.append(
        '<section id="plots"><h2>Ratings and games</h2>'
        + (figures(shown) if shown else NO_GAMES)
        + "</section>"
    )
    sections.append(pairings_section(snapshot, results))
    sections.append(players_section(snapshot.competitors, dict(snapshot.engines), played))
    sections.append(text_report_section(snapshot))
    rounds = "" if snapshot.rounds is None else f", {snapshot.rounds} rounds"
    return PageContent(
        title=snapshot.code,
        kind="all-play-all",
        description=snapshot.description,
        summary=f"{len(snapshot.competitors)} competitors{rounds}; "
        + progress(snapshot.games_played, snapshot.complete),
        navigation=(
            ("grid", "grid"),
            ("plots", "ratings and games"),
            ("pairings", "pairings"),
            ("players", "players"),
            ("text-report", "text report"),
        ),
        sections=tuple(sections),
    )


def pairings_section(snapshot: AllPlayAllSnapshot, results: Sequence[GameResult]) -> str:
    """Every pairing's figures; each one's Elo curve while there are few pairings."""
    rows = [summary_row(m) for m in snapshot.matchups]
    body = [
        '<p class="settings">score and Elo are the first player\'s</p>',
        table(SUMMARY_HEADINGS, rows),
    ]
    grouped = by_pairing(results)
    played = [m for m in snapshot.matchups if grouped.get(m.id)]
    if len(played) <= MAX_PAIRING_PLOTS:
        shown = []
        for matchup in played:
            ident = element_id(matchup.id)
            series = elo_series(grouped[matchup.id], matchup.player_1, matchup.player_2)
            shown.append(
                Plot(
                    f"fig-elo-{ident}",
                    plots.elo_figure(series, f"elo-{ident}"),
                    f"Elo of {matchup.player_1} against {matchup.player_2}",
                )
            )
        body.append(figures(shown))
    else:
        body.append(
            f'<p class="note">{len(played)} pairings have games: the Elo curve of each'
            f" pairing is drawn for up to {MAX_PAIRING_PLOTS}; the ratings above cover"
            " every competitor.</p>"
        )
    return '<section id="pairings"><h2>Pairings</h2>' + "".join(body) + "</section>"
