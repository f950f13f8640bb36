"""The all-play-all's text: Gomill's results grid, the ratings table, the whole report."""

from __future__ import annotations

from arena.competitions.matchstats import format_elo, format_elo_interval
from arena.competitions.snapshots import AllPlayAllSnapshot, GridCell
from arena.reports.playoff import (
    _Column,
    _Heading,
    _render_table,
    describe_players,
    format_float,
    matchup_summary,
)


def _cell_text(cell: GridCell | None) -> str:
    return "" if cell is None else f"{format_float(cell.wins)}-{format_float(cell.losses)}"


def results_grid(snapshot: AllPlayAllSnapshot) -> list[str]:
    """Gomill's grid: one row per competitor, ``wins-losses`` against each column."""
    cells = [[_cell_text(cell) for cell in row] for row in snapshot.grid]
    labels = [
        f"{letter} {code}"
        for letter, code in zip(snapshot.letters, snapshot.competitors, strict=True)
    ]
    label_width = max(len(label) for label in labels)
    widths = [
        max(3, len(letter), *(len(row[j]) for row in cells))
        for j, letter in enumerate(snapshot.letters)
    ]
    header = " " * label_width + "".join(
        " " + letter.center(width) for letter, width in zip(snapshot.letters, widths, strict=True)
    )
    lines = [header.rstrip()]
    for label, row in zip(labels, cells, strict=True):
        text = label.ljust(label_width) + "".join(
            " " + cell.rjust(width) for cell, width in zip(row, widths, strict=True)
        )
        lines.append(text.rstrip())
    return lines


def ratings_table(snapshot: AllPlayAllSnapshot) -> list[str]:
    """Each competitor's Bradley–Terry rating relative to the anchor, with its interval."""
    ratings = snapshot.ratings
    confidence = f"{100 * ratings.confidence:g}%"
    labels, games, points, elos = [], [], [], []
    for letter, rating in zip(snapshot.letters, ratings.players, strict=True):
        labels.append(f"{letter} {rating.player}")
        games.append(str(rating.games))
        points.append(format_float(rating.points))
        if rating.elo is None:
            elos.append("?")
        elif rating.player == ratings.anchor:
            elos.append(format_elo(0.0))
        else:
            elos.append(format_elo_interval(rating.elo))
    columns = [
        _Column(labels, align="left", right_padding=3),
        _Column(games, right_padding=2),
        _Column(points, right_padding=2),
        _Column(elos, align="left"),
    ]
    headings = [_Heading(""), _Heading("games"), _Heading("points"), _Heading("Elo")]
    title = (
        f"ratings (Bradley-Terry, {ratings.anchor} = 0, {confidence} intervals;"
        " a jigo is half a point)"
    )
    return [title, *_render_table(columns, headings, len(labels))]


def allplayall_report(snapshot: AllPlayAllSnapshot) -> str:
    """Header, grid, ratings, then every pairing in the playoff layout, then the players."""
    blocks: list[str] = [f"allplayall: {snapshot.code}"]
    if snapshot.description:
        blocks.append(snapshot.description)
    rounds = "unlimited" if snapshot.rounds is None else str(snapshot.rounds)
    blocks.append(
        f"{snapshot.settings.describe()}   rounds: {rounds}   games played: {snapshot.games_played}"
    )
    blocks.append("\n".join(results_grid(snapshot)))
    blocks.append("\n".join(ratings_table(snapshot)))
    for matchup in snapshot.matchups:
        blocks.append("\n".join(matchup_summary(matchup)))
    blocks.append("\n".join(describe_players(snapshot.competitors, dict(snapshot.engines))))
    return "\n\n".join(blocks) + "\n"
