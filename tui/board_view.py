"""Clocks and the selected game's board, drawn as lines of rich Text (pure).

A clock reads ``4:32`` (main time left), ``0:08.4`` (under ten seconds, with
tenths), ``0:08.4×3`` in byo-yomi (the time left in the period, 3 periods
left, the current one included) and ``2:10/12`` in Canadian overtime (the
time left in the period for 12 more stones); the board's side panel spells
the count out ("3 periods", "12 stones").

The board is drawn as GNU Go draws it, two characters a point: ``X`` black,
``O`` white, ``.`` empty, the line numbers on the left and the column letters
(no I) underneath, the last move between brackets (``(X)``).  Beside it, when
the width allows (else under it), a panel names the game, the last move and
each side's player, clock and captures.  Given fewer lines than the board
needs, the letters go first, then the rows furthest from the last move.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rich.text import Text

from arena.events import BoardPicture, ClockFace
from gtp.vertex import COLUMN_LETTERS, Colour, Move, format_vertex
from tui.tables import line
from tui.tracker import PositionView

PANEL_GAP: Final = 2
MIN_PANEL_WIDTH: Final = 16
_STONE_STYLE: Final = {"X": "bold", "O": "bold bright_white", ".": "grey50"}


def format_clock(face: ClockFace, *, wide: bool = False) -> str:
    """``4:32``, ``0:08.4``, ``0:08.4×3`` (byo-yomi), ``2:10/12`` (Canadian); see the module."""
    seconds = max(0.0, face.seconds)
    if seconds < 10.0:
        time = f"0:0{seconds:.1f}" if seconds < 9.95 else "0:10.0"
    else:
        whole = int(seconds)
        hours, rest = divmod(whole, 3600)
        minutes, secs = divmod(rest, 60)
        time = f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
    if not face.unit or not face.count:
        return time
    if wide:
        unit = face.unit if face.count != 1 else face.unit.rstrip("s")
        return f"{time} ({face.count} {unit})"
    return f"{time}{'×' if face.unit == 'periods' else '/'}{face.count}"


def describe_move(move: Move | None, colour: Colour | None, size: int) -> str:
    if move is None or colour is None:
        return ""
    where = "resign" if move.is_resign else format_vertex(move.point, size)
    return f"{'B' if colour is Colour.BLACK else 'W'} {where}"


def _row_text(picture: BoardPicture, row: int, last: tuple[int, int] | None) -> Text:
    """One line of the board: ``19 . . X O``; GTP row ``row`` (0 is line 1)."""
    size = picture.size
    text = Text(no_wrap=True, overflow="crop", end="")
    text.append(f"{row + 1:>2}")
    start = (size - 1 - row) * size
    chars = picture.points[start : start + size]
    marked = last[1] if last is not None and last[0] == row else None
    for col, char in enumerate(chars):
        if col == marked:
            text.append("(", "bold yellow")
        elif marked is not None and col == marked + 1:
            text.append(")", "bold yellow")
        else:
            text.append(" ")
        text.append(char, ("reverse " if col == marked else "") + _STONE_STYLE[char])
    text.append(")" if marked == size - 1 else " ", "bold yellow")
    return text


def _letters(size: int) -> Text:
    return Text("   " + " ".join(COLUMN_LETTERS[:size]), "dim", no_wrap=True, end="")


def _panel(position: PositionView, width: int, keys_hint: str) -> list[Text]:
    size = position.picture.size if position.picture is not None else 19
    title = f"game {position.game_id} ({position.number} of {position.of})"
    lines = [line(title, width, "bold underline")]
    if position.picture is None:
        lines.append(line("board not known yet (it comes with a move)", width, "dim"))
    else:
        last = describe_move(position.last_move, position.last_colour, size)
        moves = "" if position.moves is None else f"move {position.moves}"
        said = (moves, f"last {last}" if last else "")
        lines.append(line(", ".join(part for part in said if part), width))
    captures = position.picture.captures if position.picture is not None else None
    for colour, player, clock in (
        (Colour.BLACK, position.black, position.black_clock),
        (Colour.WHITE, position.white, position.white_clock),
    ):
        stone = "X" if colour is Colour.BLACK else "O"
        lines.append(line(f"{stone} {colour.name.lower()} {player}", width, "bold"))
        if clock is not None:
            lines.append(line(f"  clock {format_clock(clock, wide=True)}", width))
        if captures is not None:
            taken = captures[0 if colour is Colour.BLACK else 1]
            lines.append(line(f"  captures {taken}", width))
    if keys_hint:
        lines.append(line(keys_hint, width, "dim"))
    return lines


def _kept_rows(size: int, room: int, last_row: int | None) -> list[int]:
    """The GTP rows to draw, top first: all of them, or ``room`` around the last move."""
    rows = list(range(size - 1, -1, -1))
    if room >= size:
        return rows
    centre = size - 1 - (last_row if last_row is not None else size // 2)
    first = min(max(0, centre - room // 2), size - room)
    return rows[first : first + room]


def position_lines(
    position: PositionView, width: int, budget: int, keys_hint: str = ""
) -> list[Text]:
    """The selected game's board and its panel in at most ``budget`` lines of ``width``."""
    if budget <= 0:
        return []
    picture = position.picture
    if picture is None:
        return _panel(position, width, keys_hint)[:budget]
    size = picture.size
    board_width = 2 * size + 4
    beside = width - board_width - PANEL_GAP >= MIN_PANEL_WIDTH
    panel_width = width - board_width - PANEL_GAP if beside else width
    panel = _panel(position, panel_width, keys_hint)
    last_move = position.last_move
    last = last_move.point if last_move is not None and not last_move.is_resign else None
    board_room = budget if beside else max(1, budget - len(panel))
    if not beside and budget <= len(panel):
        return panel[:budget]
    rows = _kept_rows(size, board_room, None if last is None else last[0])
    board = [_row_text(picture, row, last) for row in rows]
    if board_room > size:
        board.append(_letters(size))
    if not beside:
        return [*panel, *(_cut(t, width) for t in board)][:budget]
    lines: list[Text] = []
    for index in range(max(len(board), min(len(panel), budget))):
        text = board[index].copy() if index < len(board) else Text(end="", no_wrap=True)
        if index < len(panel):
            text.pad_right(board_width + PANEL_GAP - text.cell_len)
            text.append_text(panel[index])
        lines.append(_cut(text, width))
    return lines[:budget]


def _cut(text: Text, width: int) -> Text:
    text.truncate(width, overflow="crop")
    return text


def position_natural_height(position: PositionView | None, keys_hint: str = "") -> int:
    """The lines :func:`position_lines` would like (0 when no board is shown)."""
    if position is None:
        return 0
    panel = len(_panel(position, 80, keys_hint))
    if position.picture is None:
        return panel
    return max(position.picture.size + 1, panel)


def clock_cells(black: ClockFace | None, white: ClockFace | None) -> Sequence[str]:
    """The two clock cells of a game in progress ("-" without a clock)."""
    return tuple("-" if face is None else format_clock(face) for face in (black, white))
