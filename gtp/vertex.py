"""Colours, points, moves and their strict GTP spelling (board sizes 2..25).

A point is ``(row, col)`` with ``(0, 0)`` the lower left corner, ``A1`` in GTP.
Parsing is case-insensitive and strict: no column ``I``, no leading zeros, no
trailing junk, nothing off the board.  Formatting is canonical upper case.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Mapping
from typing import Final

import attrs

from gtp.errors import VertexError

MIN_BOARD_SIZE: Final = 2
MAX_BOARD_SIZE: Final = 25
COLUMN_LETTERS: Final = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # no I, as the spec says

Point = tuple[int, int]

_COLUMN_OF_LETTER: Final = {letter: col for col, letter in enumerate(COLUMN_LETTERS)}


class Colour(enum.Enum):
    BLACK = "b"
    WHITE = "w"

    @property
    def opponent(self) -> Colour:
        return Colour.WHITE if self is Colour.BLACK else Colour.BLACK

    @property
    def gtp_name(self) -> str:
        return "black" if self is Colour.BLACK else "white"

    @property
    def letter(self) -> str:
        """``B`` or ``W`` as in SGF and results."""
        return self.value.upper()

    @classmethod
    def parse(cls, text: str) -> Colour:
        colour = _COLOUR_WORDS.get(text.lower())
        if colour is None:
            raise VertexError(f"invalid colour: {text!r}")
        return colour


_COLOUR_WORDS: Final = {
    "b": Colour.BLACK,
    "black": Colour.BLACK,
    "w": Colour.WHITE,
    "white": Colour.WHITE,
}


@attrs.frozen(slots=True)
class Move:
    """A point, a pass or a resignation (``point`` is None for the last two)."""

    point: Point | None = None
    is_resign: bool = False

    @property
    def is_pass(self) -> bool:
        return self.point is None and not self.is_resign

    def to_gtp(self, size: int) -> str:
        if self.is_resign:
            return "resign"
        return format_vertex(self.point, size)


PASS: Final = Move()
RESIGN: Final = Move(None, True)


def check_board_size(size: int) -> None:
    if not MIN_BOARD_SIZE <= size <= MAX_BOARD_SIZE:
        raise VertexError(f"board size {size} is outside {MIN_BOARD_SIZE}..{MAX_BOARD_SIZE}")


def parse_vertex(text: str, size: int) -> Point | None:
    """Parse a GTP vertex; None means pass.  Raises VertexError."""
    word = text.upper()
    if word == "PASS":
        return None
    if len(word) < 2 or len(word) > 3:
        raise VertexError(f"invalid vertex: {text!r}")
    col = _COLUMN_OF_LETTER.get(word[0])
    digits = word[1:]
    if col is None or not digits.isdigit() or not digits.isascii() or digits[0] == "0":
        raise VertexError(f"invalid vertex: {text!r}")
    row = int(digits) - 1
    if col >= size or row >= size:
        raise VertexError(f"vertex is off the {size}x{size} board: {text!r}")
    return (row, col)


@functools.cache
def move_table(size: int) -> Mapping[str, Move]:
    """Every well-formed vertex of a ``size`` board, in upper and in lower case, and
    ``pass`` (``PASS``), to the :class:`Move` it parses to (:data:`PASS` for a pass).

    A fast path for the spellings engines use (a genmove answer, once a move):
    a word found here is what :func:`parse_vertex` would make of it; any other
    word (mixed case, ``resign``, junk) is for :func:`parse_vertex` to judge.
    """
    check_board_size(size)
    table: dict[str, Move] = {"pass": PASS, "PASS": PASS}
    for row in range(size):
        for col in range(size):
            word = f"{COLUMN_LETTERS[col]}{row + 1}"
            table[word] = table[word.lower()] = Move((row, col))
    return table


@functools.cache
def vertex_words(size: int) -> Mapping[Point, str]:
    """Every point of a ``size`` board to its canonical spelling (:func:`format_vertex`)."""
    check_board_size(size)
    return {
        (row, col): f"{COLUMN_LETTERS[col]}{row + 1}" for row in range(size) for col in range(size)
    }


def format_vertex(point: Point | None, size: int) -> str:
    """Canonical GTP spelling of a point (``pass`` for None)."""
    if point is None:
        return "pass"
    row, col = point
    if not (0 <= row < size and 0 <= col < size):
        raise VertexError(f"point {point} is off the {size}x{size} board")
    return f"{COLUMN_LETTERS[col]}{row + 1}"


def parse_move_answer(text: str, size: int) -> Move:
    """Interpret a genmove result: a vertex, ``pass`` or ``resign`` (any case)."""
    word = text.strip()
    if word.lower() == "resign":
        return RESIGN
    point = parse_vertex(word, size)
    return PASS if point is None else Move(point)


def parse_stone_list(words: list[str] | tuple[str, ...], size: int) -> list[Point]:
    """Distinct on-board points (handicap stones); VertexError for pass or a repeat."""
    points: list[Point] = []
    for word in words:
        point = parse_vertex(word, size)
        if point is None:
            raise VertexError("pass is not a stone")
        if point in points:
            raise VertexError(f"repeated vertex: {word!r}")
        points.append(point)
    return points


def parse_colour_and_vertex(
    args: tuple[str, ...] | list[str], size: int
) -> tuple[Colour, Point | None]:
    """Parse the arguments of ``play``: a colour and a vertex."""
    if len(args) != 2:
        raise VertexError("expected a colour and a vertex")
    return Colour.parse(args[0]), parse_vertex(args[1], size)
