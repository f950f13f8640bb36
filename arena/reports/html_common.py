"""What every page of the HTML report shares: its inputs and content, and the sections alike.

:class:`PageInputs` (the control file and the games in order) and
:class:`PageContent` (what a page function returns to :mod:`arena.reports.html`),
the game-length and time-per-move plots, the players' table (games, losses
by forfeit and on time, time per move) with their engines, and the text
report in a fold.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from arena.competitions.snapshots import CompetitionSnapshot
from arena.control.config import CompetitionConfig
from arena.reports import plots
from arena.reports.history import GameHistory
from arena.reports.html_parts import Plot, element_id, esc, table
from arena.reports.playoff import describe_players, format_move_time
from arena.reports.series import PlayerRecord, lengths_by_end, player_records
from arena.reports.text import competition_report
from arena.reports.tuner import candidate_engine_lines
from arena.results import GameResult

NO_GAMES = '<p class="note">No games played yet.</p>'


@attrs.frozen
class PageInputs:
    """What a page is made from besides its snapshot."""

    config: CompetitionConfig
    history: GameHistory


@attrs.frozen
class PageContent:
    """A page's header facts, its table of contents and its sections (HTML)."""

    title: str
    kind: str
    description: str | None
    summary: str
    navigation: tuple[tuple[str, str], ...]
    sections: tuple[str, ...]


def games_plots(
    results: Sequence[GameResult], suffix: str = "", records: Sequence[PlayerRecord] = ()
) -> list[Plot]:
    """The game-length histogram, and time per move once moves were timed.

    ``records``: the players' records of these games as the time plot shows them,
    in its order (default: each player, as it first appears).
    """
    if not results:
        return []
    name = f"-{element_id(suffix)}" if suffix else ""
    shown = [
        Plot(
            f"fig-length{name}",
            plots.length_figure(lengths_by_end(results), f"length{name}", "Game length"),
            "Histogram of game lengths in moves, by how the games ended",
        )
    ]
    records = records or player_records(results)
    if any(record.moves for record in records):
        shown.append(
            Plot(
                f"fig-time{name}",
                plots.time_figure(records, f"time{name}"),
                "Time per move for each player",
            )
        )
    return shown


def seconds_cell(value: float | None) -> str:
    """Seconds per move in a table cell (``–`` when none was timed)."""
    return "–" if value is None else format_move_time(value)


def records_table(records: Sequence[PlayerRecord]) -> str:
    """Each player's games, losses by forfeit and on time, and time per move."""
    rows = [
        [
            record.label,
            str(record.games),
            str(record.forfeits),
            str(record.time_losses),
            seconds_cell(record.mean),
            seconds_cell(record.longest if record.moves else None),
        ]
        for record in records
    ]
    headings = ["player", "games", "forfeits", "lost on time", "s/move", "longest s"]
    return table(headings, rows)


def _folded(lines: Sequence[str]) -> str:
    """A description: its first line, the rest (indented by two) folded under it."""
    first, *rest = lines
    if not rest:
        return f"<p>{esc(first)}</p>"
    more = "\n".join(line[2:] for line in rest)
    return f"<details><summary>{esc(first)}</summary><pre>{esc(more)}</pre></details>"


def players_section(
    codes: Sequence[str],
    engines: dict[str, str],
    records: Sequence[PlayerRecord] = (),
    candidate_engine: str | None = None,
) -> str:
    """Each player's games, losses and time per move, then each engine's description (a
    tuner's candidates' last)."""
    items = []
    if records:
        items.append(
            '<p class="settings">games lost by forfeit (an illegal or failed move, a crash) and'
            " on time are counted apart; a move's time is from the genmove sent to the answer"
            " read, as the clock charges it</p>" + records_table(records)
        )
    items.extend(_folded(describe_players([code], engines)) for code in codes)
    candidates = candidate_engine_lines(candidate_engine)
    if candidates:
        items.append(_folded(candidates))
    return '<section id="players"><h2>Players</h2>' + "".join(items) + "</section>"


def text_report_section(snapshot: CompetitionSnapshot) -> str:
    return (
        '<section id="text-report"><h2>Text report</h2>'
        "<details><summary>The same results as <code>arena show</code> prints them</summary>"
        f"<pre>{esc(competition_report(snapshot))}</pre></details></section>"
    )


def progress(games: int, complete: bool, total: int | None = None) -> str:
    counted = f"{games}/{total}" if total is not None else str(games)
    return f"{counted} games played, {'complete' if complete else 'not finished'}"
