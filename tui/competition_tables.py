"""The competition part of the dashboard: playoff matchups, all-play-all grid and ratings, tuner.

Each renderer takes a view from :mod:`tui.views`, a width and a line budget,
and returns at most that many lines.  Playoffs show Gomill's table per
matchup with Elo, LOS and SPRT on its title line, or one line per matchup
when the tables do not fit; all-play-alls show the colour-coded results grid
(when it fits) and the Bradley–Terry ratings, best first; the Monte Carlo
tuner shows its candidates, most games first, the best one starred and
always on screen; the other tuners' tables are in :mod:`tui.tuner_tables`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import attrs
from rich.cells import cell_len
from rich.text import Text

from arena.reports.playoff import format_move_time
from tui.tables import (
    GAP,
    Cell,
    Column,
    cell_text,
    format_number,
    line,
    more,
    percent,
    table_lines,
)
from tui.tuner_tables import (
    ce_tuner_lines,
    ce_tuner_natural_height,
    spsa_tuner_lines,
    spsa_tuner_natural_height,
)
from tui.views import (
    AllPlayAllView,
    CeTunerView,
    CompetitionDetail,
    MatchupView,
    PlayerLine,
    PlayoffView,
    RatingRow,
    SpsaTunerView,
    TunerView,
)


def _matchup_title(matchup: MatchupView) -> str:
    total = "" if matchup.total is None else f"/{matchup.total}"
    parts = [f"{matchup.name}: {matchup.games}{total} games"]
    if matchup.jigos:
        parts.append(f"{matchup.jigos} jigo")
    if matchup.unknown:
        parts.append(f"{matchup.unknown} unknown")
    if matchup.void_games:
        parts.append(f"{matchup.void_games} void")
    if matchup.elo is not None:
        parts.append(f"Elo {matchup.elo}")
    if matchup.los is not None:
        parts.append(f"LOS {matchup.los}")
    if matchup.sprt is not None:
        parts.append(f"SPRT {matchup.sprt}")
    return " · ".join(parts)


_MATCHUP_COLUMNS: Final = (
    Column("player", flexible=True),
    Column("wins", align="right"),
    Column("", align="right"),
    Column("black", align="right", optional=3),
    Column("white", align="right", optional=3),
    Column("forfeits", align="right", optional=2),
    Column("timeouts", align="right", optional=2),
    Column("avg cpu", align="right", optional=1),
    Column("s/move", align="right", optional=2),
    Column("max s", align="right", optional=2),
)


def matchup_table(matchup: MatchupView, width: int) -> list[Text]:
    """Gomill's columns for one matchup, under a title line with Elo, LOS and SPRT."""
    games = matchup.games
    rows: list[list[Cell]] = []
    for player in matchup.lines:
        rows.append(_player_cells(player, games))
    leader = max(matchup.lines, key=lambda p: p.wins).player if games else None
    columns = list(_MATCHUP_COLUMNS)
    if not any(p.forfeits for p in matchup.lines):
        columns[5] = attrs.evolve(columns[5], optional=9)
    if not any(p.time_losses for p in matchup.lines):
        columns[6] = attrs.evolve(columns[6], optional=9)
    if all(p.average_time is None for p in matchup.lines):
        columns[8] = attrs.evolve(columns[8], optional=9)
        columns[9] = attrs.evolve(columns[9], optional=9)
    styles = ["bold" if p.player == leader and games else "" for p in matchup.lines]
    title = line(_matchup_title(matchup), width, "bold underline")
    return [title, *table_lines(columns, rows, width, row_styles=styles)]


def _player_cells(player: PlayerLine, games: int) -> list[Cell]:
    def by_colour(wins: float, played: int) -> str:
        return f"{format_number(wins)} {percent(wins, played)}"

    cpu = "----" if player.average_cpu is None else f"{player.average_cpu:.2f}"
    return [
        player.player,
        format_number(player.wins),
        percent(player.wins, games),
        by_colour(player.black_wins, player.black_games),
        by_colour(player.white_wins, player.white_games),
        str(player.forfeits),
        str(player.time_losses),
        cpu,
        format_move_time(player.average_time),
        format_move_time(player.longest_time),
    ]


def matchups_compact(matchups: Sequence[MatchupView], width: int, budget: int) -> list[Text]:
    """One line per matchup (when the full tables do not fit), then "… N more"."""
    if budget <= 0:
        return []
    columns = (
        Column("matchup", flexible=True, min_width=8),
        Column("games", align="right"),
        Column("score", align="right"),
        Column("jigo", align="right", optional=2),
        Column("Elo", align="right", optional=3),
        Column("LOS", align="right", optional=4),
        Column("SPRT", optional=1),
    )
    shown = list(matchups)
    if len(shown) + 1 > budget:
        shown = shown[: max(0, budget - 2)]
    rows: list[list[Cell]] = []
    for m in shown:
        total = "" if m.total is None else f"/{m.total}"
        first, second = m.lines
        score = f"{format_number(first.wins)}-{format_number(second.wins)}"
        rows.append(
            [
                m.name,
                f"{m.games}{total}",
                (score, "green" if first.wins > second.wins else ""),
                str(m.jigos),
                m.elo or "",
                m.los or "",
                m.sprt or "",
            ]
        )
    lines = table_lines(columns, rows, width)
    if len(shown) < len(matchups):
        lines.append(more(len(matchups) - len(shown), "matchups", width))
    return lines[:budget]


def playoff_natural_height(detail: PlayoffView) -> int:
    return 4 * len(detail.matchups)


def playoff_lines(detail: PlayoffView, width: int, budget: int) -> list[Text]:
    if playoff_natural_height(detail) <= budget:
        lines: list[Text] = []
        for matchup in detail.matchups:
            lines.extend(matchup_table(matchup, width))
        return lines
    return matchups_compact(detail.matchups, width, budget)


def _grid_cell(cell: tuple[float, float] | None, diagonal: bool) -> Cell:
    if diagonal:
        return ("·", "dim")
    if cell is None:
        return ""
    wins, losses = cell
    style = "green" if wins > losses else "red" if wins < losses else "yellow"
    return (f"{format_number(wins)}-{format_number(losses)}", style)


def grid_lines(detail: AllPlayAllView, width: int) -> list[Text] | None:
    """The results grid, colour-coded; None when it does not fit the width."""
    n = len(detail.competitors)
    rows: list[list[Cell]] = []
    for i, (letter, player) in enumerate(zip(detail.letters, detail.competitors, strict=True)):
        row: list[Cell] = [f"{letter} {player}"]
        row.extend(_grid_cell(detail.grid[i][j], i == j) for j in range(n))
        rows.append(row)
    cells = [
        max(len(letter), *(len(cell_text(row[j + 1])) for row in rows))
        for j, letter in enumerate(detail.letters)
    ]
    label = min(12, max(cell_len(cell_text(row[0])) for row in rows))
    if label + sum(cells) + len(GAP) * n > width:
        return None
    columns = [Column("", flexible=True, min_width=6)] + [
        Column(letter, align="right") for letter in detail.letters
    ]
    return table_lines(columns, rows, width)


def ratings_lines(detail: AllPlayAllView, width: int, budget: int) -> list[Text]:
    """Competitors by Bradley–Terry rating, best first; "… N more" when they do not fit."""
    if budget <= 0:
        return []
    ranked = sorted(
        detail.ratings,
        key=lambda r: (r.elo_value is None, -(r.elo_value or 0.0), r.letter),
    )
    shown = ranked if len(ranked) + 1 <= budget else ranked[: max(0, budget - 2)]
    columns = (
        Column("#", align="right"),
        Column("player", flexible=True, min_width=6),
        Column("games", align="right"),
        Column("points", align="right"),
        Column(f"Elo ({detail.anchor} = 0)", align="right", optional=1),
    )
    rows = [_rating_cells(rank, rating) for rank, rating in enumerate(shown, 1)]
    lines = table_lines(columns, rows, width)
    if len(shown) < len(ranked):
        lines.append(more(len(ranked) - len(shown), "players", width))
    return lines[:budget]


def _rating_cells(rank: int, rating: RatingRow) -> list[Cell]:
    return [
        str(rank),
        f"{rating.letter} {rating.player}",
        str(rating.games),
        format_number(rating.points),
        rating.elo,
    ]


def allplayall_natural_height(detail: AllPlayAllView) -> int:
    n = len(detail.competitors)
    return 2 * (n + 1)


def allplayall_lines(detail: AllPlayAllView, width: int, budget: int) -> list[Text]:
    n = len(detail.competitors)
    if budget >= 2 * (n + 1):
        grid = grid_lines(detail, width)
        if grid is not None:
            return grid + ratings_lines(detail, width, budget - len(grid))
    return ratings_lines(detail, width, budget)


def tuner_summary(detail: TunerView, width: int) -> Text:
    best = detail.best
    text = f"best: {best.label} {best.parameters}" if best is not None else "best: none yet"
    if best is not None and best.win_rate is not None:
        text += f" · win rate {best.win_rate:.3f} over {best.games} games"
    if detail.opponent:
        text += f" · opponent {detail.opponent}"
    return line(text, width, "bold green" if best is not None else "")


def tuner_lines(detail: TunerView, width: int, budget: int) -> list[Text]:
    """The best candidate, then the candidates (the best one starred, always on screen)."""
    if budget <= 0:
        return []
    lines = [tuner_summary(detail, width)]
    room = budget - 1
    if room <= 0:
        return lines
    candidates = detail.candidates
    shown = list(candidates) if len(candidates) + 1 <= room else list(candidates[: room - 2])
    best = [c for c in candidates if c.best]
    if best and shown and not any(c.best for c in shown):
        shown[-1] = best[0]
    columns = (
        Column(""),
        Column("candidate"),
        Column("parameters", flexible=True, min_width=8),
        Column("win rate", align="right"),
        Column("games", align="right"),
        Column("UCB", align="right", optional=2),
        Column("interval", align="right", optional=3),
        Column("running", align="right", optional=1),
    )
    rows: list[list[Cell]] = []
    styles = []
    for c in shown:
        rows.append(
            [
                "★" if c.best else "",
                c.label,
                c.parameters,
                "--" if c.win_rate is None else f"{c.win_rate:.3f}",
                str(c.games),
                "--" if c.ucb is None else f"{c.ucb:.3f}",
                c.interval or "--",
                str(c.in_flight) if c.in_flight else "",
            ]
        )
        styles.append("bold green" if c.best else "")
    if room >= 2:
        lines.extend(table_lines(columns, rows, width, row_styles=styles))
    if len(shown) < len(candidates) and room >= 3:
        lines.append(more(len(candidates) - len(shown), "candidates", width))
    return lines[:budget]


def competition_natural_height(detail: CompetitionDetail | None) -> int:
    if isinstance(detail, PlayoffView):
        return playoff_natural_height(detail)
    if isinstance(detail, AllPlayAllView):
        return allplayall_natural_height(detail)
    if isinstance(detail, TunerView):
        return len(detail.candidates) + 2
    if isinstance(detail, CeTunerView):
        return ce_tuner_natural_height(detail)
    if isinstance(detail, SpsaTunerView):
        return spsa_tuner_natural_height(detail)
    return 0


def competition_lines(detail: CompetitionDetail | None, width: int, budget: int) -> list[Text]:
    if budget <= 0 or detail is None:
        return []
    if isinstance(detail, PlayoffView):
        return playoff_lines(detail, width, budget)
    if isinstance(detail, AllPlayAllView):
        return allplayall_lines(detail, width, budget)
    if isinstance(detail, CeTunerView):
        return ce_tuner_lines(detail, width, budget)
    if isinstance(detail, SpsaTunerView):
        return spsa_tuner_lines(detail, width, budget)
    return tuner_lines(detail, width, budget)
