"""Pure renderers: a :class:`tui.tracker.DashboardView` becomes lines of rich Text.

:func:`render_dashboard` gives a rich renderable that lays the dashboard out
for the console's size at the moment it is drawn, so a resized terminal gets
a fitting frame at the next refresh.  :func:`dashboard_lines` is the layout
itself: never more lines than the height and never wider than the width.

From top to bottom: the header (competition, board, komi, state), the progress
bar with games done/total, games/s and ETA, the stop acknowledgement or the
final state, the selected game's board with its clocks and captures when a key
has selected one (:mod:`tui.board_view`; it comes before the rest, which
shares what it leaves), the competition (playoff matchup tables, all-play-all grid and
ratings, tuner candidates), the games in progress, the recent results, the
counters, the last engine warnings and a one-line key help.  When the screen
is too small, sections shrink (a compact one-line-per-matchup table, the
ratings without the grid, "… N more") rather than overflow.

The layout gives each section its minimum, then up to its natural height,
in order of importance, and each section returns the lines it did not use.
The pieces live in :mod:`tui.tables` (one-line tables) and
:mod:`tui.competition_tables` (the competition types).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import attrs
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.text import Text

from arena import fields_repr
from arena.events import RunState
from tui.board_view import clock_cells, position_lines, position_natural_height
from tui.competition_tables import competition_lines, competition_natural_height
from tui.tables import Cell, Column, format_duration, line, more, table_lines
from tui.tracker import BOARD_KEYS_HINT, DashboardView, GameView, ResultView
from tui.views import Counts

BAR_WIDTH: Final = 30

_STATE_STYLE: Final = {
    RunState.CHECKING: "cyan",
    RunState.RUNNING: "bold green",
    RunState.STOPPING: "bold yellow",
    RunState.FINISHED: "bold green",
    RunState.STOPPED: "bold yellow",
    RunState.HALTED: "bold red",
}
_HOW_STYLE: Final = {
    "forfeit": "red",
    "time": "red",
    "void": "bold red",
    "unknown": "yellow",
    "move limit": "yellow",
    "jigo": "cyan",
}


# ---------------------------------------------------------------------------
# Header, progress, state


def header_line(view: DashboardView, width: int) -> Text:
    text = Text(no_wrap=True, overflow="crop", end="")
    text.append(f"{view.kind} " if view.kind else "", "bold")
    text.append(view.code, "bold")
    if view.board:
        text.append(f" · {view.board}")
    text.append(" · ")
    text.append(view.state.value, _STATE_STYLE[view.state])
    if view.watching:
        text.append(" · watching", "cyan")
    text.truncate(width, overflow="ellipsis")
    return text


def progress_line(view: DashboardView, width: int) -> Text:
    parts = []
    if view.games_total is not None:
        parts.append(f"{view.games_done}/{view.games_total} games")
    else:
        parts.append(f"{view.games_done} games")
    running = len(view.in_progress)
    if running:
        parts.append(f"{running} running")
    if view.workers is not None:
        parts.append(f"{view.workers.workers} worker(s)")
    live = view.state in (RunState.CHECKING, RunState.RUNNING, RunState.STOPPING)
    if view.rate is not None:
        parts.append(f"{view.rate:.2f} games/s")
    elif live:
        parts.append("--.-- games/s")  # not measured yet
    if live:
        parts.append("ETA --" if view.eta is None else f"ETA {format_duration(view.eta)}")
    figures = " · ".join(parts)
    text = Text(no_wrap=True, overflow="crop", end="")
    bar_width = min(BAR_WIDTH, width - cell_len(figures) - 1)
    if view.games_total and bar_width >= 10:
        filled = min(bar_width, round(bar_width * view.games_done / view.games_total))
        text.append("━" * filled, "green")
        text.append("━" * (bar_width - filled), "grey35")
        text.append(" ")
    text.append(figures)
    text.truncate(width, overflow="ellipsis")
    return text


def state_line(view: DashboardView, width: int) -> Text | None:
    """The stop acknowledgement, or how the run ended (None while simply running)."""
    state, message = view.state, view.message
    if state is RunState.CHECKING:
        return line("checking the engines…", width, "cyan")
    if state is RunState.STOPPING:
        running = len(view.in_progress)
        text = f"■ STOPPING — {message or 'stop requested'}: "
        text += f"finishing {running} game(s), no new games" if running else "no new games"
        return line(text, width, "bold black on yellow")
    if state is RunState.RUNNING:
        return None
    label = state.value
    return line(f"{label}: {message}" if message else label, width, _STATE_STYLE[state])


def counters_line(counts: Counts, width: int) -> Text:
    text = Text(no_wrap=True, overflow="crop", end="")
    items: list[tuple[str, int]] = [
        ("forfeits", counts.forfeits),
        ("timeouts", counts.timeouts),
        ("void", counts.voids),
        ("engine errors", counts.engine_errors),
    ]
    if counts.adjudicated:  # only where a referee adjudicates
        items.insert(2, ("adjudicated", counts.adjudicated))
    for index, (label, value) in enumerate(items):
        if index:
            text.append(" · ", "dim")
        text.append(f"{label} ")
        text.append(str(value), "bold red" if value else "green")
    text.truncate(width, overflow="ellipsis")
    return text


# ---------------------------------------------------------------------------
# Games in progress, recent results, warnings


def games_lines(
    games: Sequence[GameView], width: int, budget: int, *, board_keys: bool = False
) -> list[Text]:
    """Title, then id, players, move number, elapsed time, clocks, slot (or worker).

    Oldest first.  The clock columns (black's, white's) are there when a game
    has a clock; ``board_keys``: the title says which key shows a board.
    """
    if budget <= 0:
        return []
    heading = f"In progress: {len(games)} game(s)"
    if board_keys and games:
        heading += " · n/Tab: a game's board"
    title = line(heading, width, "bold underline")
    if budget == 1 or not games:
        return [title]
    room = budget - 2  # title and column headings
    shown = games if len(games) <= room else games[: max(0, room - 1)]
    columns: tuple[Column, ...] = (
        Column("game"),
        Column("black", flexible=True, min_width=4),
        Column("white", flexible=True, min_width=4),
        Column("move", align="right"),
        Column("time", align="right"),
        Column("slot", align="right", optional=1),
    )
    on_workers = any(g.worker is not None for g in games)
    if on_workers:  # a cluster run: where each game is played says more than its slot
        columns = (*columns[:-1], Column("worker", flexible=True, min_width=6, optional=1))
    clocked = any(g.black_clock is not None or g.white_clock is not None for g in games)
    if clocked:  # the clocks go before the slot, which is dropped first on a narrow screen
        columns = (
            *columns[:-1],
            Column("B clock", align="right"),
            Column("W clock", align="right"),
            attrs.evolve(columns[-1], optional=2),
        )
    rows: list[list[Cell]] = [
        [
            g.game_id,
            g.black,
            g.white,
            "-" if g.moves is None else str(g.moves),
            format_duration(g.elapsed),
            *(clock_cells(g.black_clock, g.white_clock) if clocked else ()),
            (g.worker or "-") if on_workers else ("-" if g.slot is None else str(g.slot)),
        ]
        for g in shown
    ]
    lines = [title, *table_lines(columns, rows, width)]
    if len(shown) < len(games):
        lines.append(more(len(games) - len(shown), "games in progress", width))
    return lines[:budget]


def recent_lines(results: Sequence[ResultView], width: int, budget: int) -> list[Text]:
    if budget <= 0 or not results:
        return []
    title = line("Recent results", width, "bold underline")
    shown = results[: budget - 1]
    columns = (Column("game"), Column("result", flexible=True, min_width=10), Column("how"))
    rows: list[list[Cell]] = [
        [r.game_id, r.text, (r.how, _HOW_STYLE.get(r.how, ""))] for r in shown
    ]
    return [title, *table_lines(columns, rows, width, header=False)]


def warning_lines(warnings: Sequence[str], width: int, budget: int) -> list[Text]:
    if budget <= 0:
        return []
    return [line(f"! {w}", width, "yellow") for w in warnings[-budget:]]


# ---------------------------------------------------------------------------
# The whole screen


def _allocate(room: int, wants: Sequence[tuple[int, int]]) -> list[int]:
    """Share ``room`` lines: first each section's minimum, then up to its natural height."""
    given = [0] * len(wants)
    for i, (minimum, natural) in enumerate(wants):
        take = max(0, min(minimum, natural, room))
        given[i] = take
        room -= take
    for i, (_, natural) in enumerate(wants):
        take = max(0, min(natural - given[i], room))
        given[i] += take
        room -= take
    return given


def _body_lines(view: DashboardView, width: int, room: int) -> list[Text]:
    """The competition, games in progress, recent results and warnings in ``room`` lines.

    Each section in turn gets its share of what is left (its minimum first,
    then up to its natural height) and gives back the lines it did not use.
    """
    detail = view.detail
    games = view.in_progress
    running = view.state is RunState.RUNNING
    games_natural = 2 + len(games) if games else int(running)
    competition_natural = competition_natural_height(detail)
    # The competition may take half the screen while others wait, all of it otherwise.
    sections = [
        (min(competition_natural, 6), competition_natural, max(6, room // 2)),
        (min(games_natural, 5), games_natural, room),
        (min(1 + len(view.recent), 3) if view.recent else 0, 1 + len(view.recent), room),
        (min(len(view.warnings), 1), len(view.warnings), room),
    ]
    draw: tuple[Callable[[int], list[Text]], ...] = (
        lambda budget: competition_lines(detail, width, budget),
        lambda budget: games_lines(games, width, budget, board_keys=view.board_keys),
        lambda budget: recent_lines(view.recent, width, budget),
        lambda budget: warning_lines(view.warnings, width, budget),
    )
    body: list[Text] = []
    for index, render in enumerate(draw):
        wants = [(minimum, natural) for minimum, natural, _ in sections[index:]]
        first_minimum, first_natural, cap = sections[index]
        wants[0] = (first_minimum, min(first_natural, cap))
        budget = _allocate(room, wants)[0]
        if index == 0 and budget < first_natural:
            # Lines the later sections cannot use go to the competition after all.
            later = sum(natural for _, natural, _ in sections[1:])
            budget = max(budget, min(first_natural, room - later))
        drawn = render(budget)[:budget]
        body.extend(drawn)
        room -= len(drawn)
    return body


def dashboard_lines(view: DashboardView, width: int, height: int) -> list[Text]:
    """The dashboard for a ``width`` x ``height`` screen (never taller, never wider)."""
    width = max(1, width)
    top = [header_line(view, width), progress_line(view, width)]
    status = state_line(view, width)
    if status is not None:
        top.append(status)
    bottom = [counters_line(view.counts, width), line(view.key_help, width, "dim")]
    if height <= len(top) + len(bottom):
        # Tiny screen: header, the state (the stop acknowledgement) and the keys first.
        keep = [top[0], *([status] if status is not None else []), bottom[-1], top[1], bottom[0]]
        return keep[: max(0, height)]
    room = height - len(top) - len(bottom)
    board: list[Text] = []
    if view.position is not None:
        hint = BOARD_KEYS_HINT if view.board_keys else ""
        natural = position_natural_height(view.position, hint)
        board = position_lines(view.position, width, min(room, natural), hint)
        room -= len(board)
    return [*top, *board, *_body_lines(view, width, room), *bottom]


@attrs.frozen
class Dashboard:
    """A renderable that fits the dashboard to the console it is drawn on."""

    __repr__ = fields_repr

    view: DashboardView

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        height = options.height or options.max_height
        new_line = Segment.line()
        for index, text in enumerate(dashboard_lines(self.view, options.max_width, height)):
            # Each line is already cut to the width: no wrapping pass needed.
            if index:
                yield new_line
            yield from text.render(console)


def render_dashboard(view: DashboardView) -> Dashboard:
    """The rich renderable for one frame of the dashboard."""
    return Dashboard(view)


def final_lines(view: DashboardView, width: int, height: int) -> list[Text]:
    """What stays on the terminal after the live display ends (no games, no key help)."""
    quiet = attrs.evolve(view, in_progress=(), key_help="")
    lines = dashboard_lines(quiet, width, height)
    return [t for t in lines if t.plain]
