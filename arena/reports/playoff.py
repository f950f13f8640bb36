"""The playoff's text report in Gomill's layout, and the table helpers the other reports share.

Pure functions from a :class:`arena.competitions.snapshots.PlayoffSnapshot` to text.  Each
matchup gets Gomill's table (wins and percentage, the black/white breakdown when
colours alternated, otherwise each player's colour, average CPU) with extra
columns for games lost by forfeit, on time and by adjudication when there are any, each
player's average and longest time per move once moves were timed, and lines
for unknown results, move-limit results and void (replayed) games.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.competitions.matchstats import stats_lines
from arena.competitions.snapshots import MatchupCounts, MatchupSnapshot, PlayoffSnapshot


def format_float(value: float) -> str:
    """``2`` for whole numbers, ``2.5`` otherwise (jigos make halves)."""
    return str(int(value)) if value == int(value) else f"{value:g}"


def format_percent(part: float, whole: float) -> str:
    if whole == 0:
        return "--"
    return f"{100.0 * part / whole:.2f}%"


@attrs.define
class _Column:
    __repr__ = fields_repr
    __eq__ = fields_eq

    values: list[str]
    align: str = "right"  # or "left"
    right_padding: int = 1

    @property
    def width(self) -> int:
        return max((len(v) for v in self.values), default=0)


@attrs.frozen
class _Heading:
    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    text: str
    span: int = 1


def _render_table(columns: Sequence[_Column], headings: Sequence[_Heading], rows: int) -> list[str]:
    """Columns of cells with per-column padding; headings may span columns."""
    widths = [c.width for c in columns]
    # Widen the last column under a spanning heading that would not fit.
    index = 0
    for heading in headings:
        group = range(index, index + heading.span)
        inner = sum(widths[i] for i in group) + sum(columns[i].right_padding for i in group[:-1])
        if len(heading.text) > inner:
            widths[group[-1]] += len(heading.text) - inner
        index += heading.span
    lines: list[str] = []
    parts: list[str] = []
    index = 0
    for heading in headings:
        group = range(index, index + heading.span)
        inner = sum(widths[i] for i in group) + sum(columns[i].right_padding for i in group[:-1])
        parts.append(heading.text.ljust(inner) + " " * columns[group[-1]].right_padding)
        index += heading.span
    lines.append("".join(parts).rstrip())
    for row in range(rows):
        parts = []
        for column, width in zip(columns, widths, strict=True):
            value = column.values[row] if row < len(column.values) else ""
            cell = value.ljust(width) if column.align == "left" else value.rjust(width)
            parts.append(cell + " " * column.right_padding)
        lines.append("".join(parts).rstrip())
    return lines


def _cpu(value: float | None) -> str:
    return "   ----" if value is None else f"{value:7.2f}"


def format_move_time(value: float | None) -> str:
    """Seconds per move: ``0.092``, ``12.35``; ``----`` when none was timed."""
    if value is None:
        return "----"
    return f"{value:.3f}" if value < 10 else f"{value:.2f}"


def matchup_table(matchup: MatchupSnapshot) -> list[str]:
    """Gomill's results table for one matchup with at least one counted game."""
    tally = matchup.tally
    p1, p2 = matchup.player_1, matchup.player_2
    t1, t2 = tally.players[p1], tally.players[p2]
    total = tally.games
    columns = [_Column([p1, p2], align="left", right_padding=3)]
    headings = [_Heading("")]
    columns.append(_Column([format_float(t1.wins), format_float(t2.wins)]))
    headings.append(_Heading("wins"))
    percent = _Column([format_percent(t1.wins, total), format_percent(t2.wins, total)])
    columns.append(percent)
    headings.append(_Heading(""))
    alternating = not (
        (t1.white_games == 0 and t2.black_games == 0)
        or (t1.black_games == 0 and t2.white_games == 0)
    )
    rows = 2
    if alternating:
        rows = 3
        black_wins = t1.black_wins + t2.black_wins
        white_wins = t1.white_wins + t2.white_wins
        percent.right_padding = 7
        columns.append(
            _Column(
                [
                    format_float(t1.black_wins),
                    format_float(t2.black_wins),
                    format_float(black_wins),
                ],
                align="left",
            )
        )
        columns.append(
            _Column(
                [
                    format_percent(t1.black_wins, t1.black_games),
                    format_percent(t2.black_wins, t2.black_games),
                    format_percent(black_wins, total),
                ],
                right_padding=5,
            )
        )
        headings.append(_Heading("black", span=2))
        columns.append(
            _Column(
                [
                    format_float(t1.white_wins),
                    format_float(t2.white_wins),
                    format_float(white_wins),
                ],
                align="left",
            )
        )
        columns.append(
            _Column(
                [
                    format_percent(t1.white_wins, t1.white_games),
                    format_percent(t2.white_wins, t2.white_games),
                    format_percent(white_wins, total),
                ],
                right_padding=3,
            )
        )
        headings.append(_Heading("white", span=2))
    else:
        percent.right_padding = 3
        colour_1 = "(black)" if t1.black_games else "(white)"
        colour_2 = "(white)" if t1.black_games else "(black)"
        columns.append(_Column([colour_1, colour_2], align="left"))
        headings.append(_Heading(""))
    if t1.forfeits or t2.forfeits:
        columns.append(_Column([str(t1.forfeits), str(t2.forfeits)]))
        headings.append(_Heading("forfeits"))
    if t1.time_losses or t2.time_losses:
        columns.append(_Column([str(t1.time_losses), str(t2.time_losses)]))
        headings.append(_Heading("timeouts"))
    if t1.adjudicated or t2.adjudicated:
        columns.append(_Column([str(t1.adjudicated), str(t2.adjudicated)]))
        headings.append(_Heading("adjudicated"))
    if t1.average_cpu is not None or t2.average_cpu is not None:
        columns.append(_Column([_cpu(t1.average_cpu), _cpu(t2.average_cpu)], right_padding=2))
        headings.append(_Heading("avg cpu"))
    if t1.time_moves or t2.time_moves:
        for heading, values in (
            ("s/move", (t1.average_time, t2.average_time)),
            ("max s", (t1.longest_time, t2.longest_time)),
        ):
            columns.append(_Column([format_move_time(v) for v in values], right_padding=2))
            headings.append(_Heading(heading))
    return _render_table(columns, headings, rows)


def _count_lines(tally: MatchupCounts) -> list[str]:
    lines = []
    unknown = tally.unknown + tally.move_limit
    if unknown:
        line = f"unknown results: {unknown} {format_percent(unknown, tally.games)}"
        if tally.move_limit:
            line += f" ({tally.move_limit} at the move limit, SGF Void)"
        lines.append(line)
    if tally.void_games:
        lines.append(f"void games (replayed): {tally.void_games}")
    return lines


def matchup_summary(matchup: MatchupSnapshot) -> list[str]:
    """Title, counts, settings line and table of one matchup."""
    tally = matchup.tally
    if matchup.number_of_games is None:
        played = f"{tally.games}"
    else:
        played = f"{tally.games}/{matchup.number_of_games}"
    lines = [f"{matchup.name} ({played} games)"]
    lines.extend(_count_lines(tally))
    if matchup.settings is None:
        lines.append("?? (missing from control file)")
    else:
        lines.append(matchup.settings.describe())
    if tally.games:
        lines.extend(matchup_table(matchup))
    if matchup.stats is not None:
        lines.extend(stats_lines(matchup.stats))
    return lines


def describe_players(codes: Sequence[str], engines: Mapping[str, str]) -> list[str]:
    """``player x: <engine description>`` for each player, further lines indented."""
    lines = []
    for code in codes:
        description = engines.get(code)
        if description is None:
            lines.append(f"player {code}: (no description yet)")
            continue
        first, *rest = description.strip().splitlines() or [""]
        lines.append(f"player {code}: {first}")
        lines.extend(f"  {line}" for line in rest)
    return lines


def playoff_report(snapshot: PlayoffSnapshot) -> str:
    """The whole report: header, description, every matchup, the players."""
    blocks: list[str] = [f"playoff: {snapshot.code}"]
    if snapshot.description:
        blocks.append(snapshot.description)
    for matchup in snapshot.matchups:
        blocks.append("\n".join(matchup_summary(matchup)))
    engines = dict(snapshot.engines)
    players: list[str] = []
    for matchup in snapshot.matchups:
        for code in (matchup.player_1, matchup.player_2):
            if code not in players:
                players.append(code)
    player_lines = describe_players(players, engines)
    if player_lines:
        blocks.append("\n".join(player_lines))
    return "\n\n".join(blocks) + "\n"
