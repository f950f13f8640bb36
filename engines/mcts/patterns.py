"""3x3 shape knowledge for the default playout policy, as lookup tables.

Owns the shapes and their compilation.  A point's 3x3 code (kept up to date by
:class:`engines.mcts.fastboard.FastBoard`) packs the colours of its eight
neighbours, two bits each, in the order up-left, up, up-right, left, right,
down-left, down, down-right.  Every table here has one entry per code
(4**8 = 65,536), so a test in the playout is one list lookup.

The shapes are the kinds MoGo's simulation policy looks for around the
opponent's last move (Gelly & Silver 2011, §3.5; Gelly et al. 2006): hane
(wrapping around a contact), cuts (separating diagonal stones) and a few
shapes on the first line.  They are written below in our own notation, for
the player about to play at the centre:

    X  own stone          O  opponent stone      .  empty
    x  not own (O or .)   o  not opponent (X or .)
    #  off the board      ?  anything

and each one matches in all eight orientations and with the colours swapped
(a good shape for one side is usually urgent for the other too).
"""

from __future__ import annotations

import functools
import itertools
from typing import Final

from engines.mcts.fastboard import BLACK, BORDER, EMPTY, WHITE

# Rows top to bottom; the centre (always empty) is the move.
SHAPES: Final[tuple[tuple[str, str], ...]] = (
    # hane: our stone touches theirs; bend around it
    ("hane, both sides held", "XOX/.../???"),
    ("hane, open side", "XO./.../?.?"),
    ("hane, bending under", "XO?/X../x.?"),
    ("hane at the head of two", "XOO/.../?.?"),
    # cuts: separate two opponent stones that touch only diagonally
    ("cut, unprotected", "XO?/O.o/?o?"),
    ("cut, after a peep", "XO?/O.X/???"),
    ("cut between two", "?X?/O.O/ooo"),
    ("cut, knight's move", "OX?/o.O/???"),
    # first line (bottom row off the board)
    ("edge, chase", "X.?/O.?/##?"),
    ("edge, block the cut", "OX?/X.O/###"),
    ("edge, block the connection", "?X?/x.O/###"),
    ("edge, descend", "?XO/x.x/###"),
    ("edge, cut", "?OX/X.O/###"),
)

_SLOTS: Final = 8
TABLE_SIZE: Final = 4**_SLOTS


def _cells(shape: str) -> list[str]:
    rows = shape.split("/")
    if len(rows) != 3 or any(len(row) != 3 for row in rows) or rows[1][1] != ".":
        raise ValueError(f"malformed shape {shape!r}")
    return [ch for row in rows for ch in row]


def _rotate(cells: list[str]) -> list[str]:
    # 90 degrees clockwise: new[r][c] = old[2 - c][r]
    return [cells[(2 - c) * 3 + r] for r in range(3) for c in range(3)]


def _mirror(cells: list[str]) -> list[str]:
    return [cells[r * 3 + (2 - c)] for r in range(3) for c in range(3)]


def _orientations(cells: list[str]) -> list[list[str]]:
    found: list[list[str]] = []
    current = cells
    for _ in range(4):
        for variant in (current, _mirror(current)):
            if variant not in found:
                found.append(variant)
        current = _rotate(current)
    return found


def _allowed(ch: str, own: int) -> tuple[int, ...]:
    other = 3 - own
    table = {
        "X": (own,),
        "O": (other,),
        ".": (EMPTY,),
        "x": (other, EMPTY),
        "o": (own, EMPTY),
        "#": (BORDER,),
        "?": (EMPTY, BLACK, WHITE, BORDER),
    }
    try:
        return table[ch]
    except KeyError:
        raise ValueError(f"unknown shape character {ch!r}") from None


def code_of(cells: list[int]) -> int:
    """The 3x3 code of eight neighbour colours in slot order."""
    code = 0
    for k, colour in enumerate(cells):
        code |= colour << (2 * k)
    return code


@functools.cache
def pattern_table() -> bytes:
    """1 at every code that matches a shape, for either player to move."""
    table = bytearray(TABLE_SIZE)
    for _name, shape in SHAPES:
        for cells in _orientations(_cells(shape)):
            around = cells[:4] + cells[5:]
            for own in (BLACK, WHITE):
                choices = [_allowed(ch, own) for ch in around]
                for combo in itertools.product(*choices):
                    table[code_of(list(combo))] = 1
    return bytes(table)


@functools.cache
def true_eye_tables() -> tuple[bytes, ...]:
    """Per colour, 1 at codes where the centre is that colour's true eye.

    Eye-like means the four orthogonal neighbours are own stones or the edge.
    It is a true eye when the opponent holds fewer than two diagonal points in
    the middle of the board, or none on the edge (otherwise it is a false eye
    that the owner may have to fill).
    """
    tables = [bytearray(TABLE_SIZE) for _ in range(3)]
    for own in (BLACK, WHITE):
        for sides in itertools.product((own, BORDER), repeat=4):
            on_edge = BORDER in sides
            for corners in itertools.product((EMPTY, BLACK, WHITE, BORDER), repeat=4):
                enemy_diagonals = corners.count(3 - own)
                if enemy_diagonals < (1 if on_edge else 2):
                    # slots: 0 up-left, 1 up, 2 up-right, 3 left, 4 right,
                    # 5 down-left, 6 down, 7 down-right
                    cells = [
                        corners[0],
                        sides[0],
                        corners[1],
                        sides[1],
                        sides[2],
                        corners[2],
                        sides[3],
                        corners[3],
                    ]
                    tables[own][code_of(cells)] = 1
    return bytes(tables[0]), bytes(tables[1]), bytes(tables[2])


@functools.cache
def nakade_entry_tables() -> tuple[bytes, ...]:
    """Per colour to move, 1 at codes where the centre may lie in the opponent's small eye space.

    That is: one or two of the four orthogonal neighbours empty (a point with
    three is in a region of four or more points) and none of them the mover's
    stone.  The nakade playout rule reads the region only at such points.
    """
    tables = [bytearray(TABLE_SIZE) for _ in range(3)]
    for code in range(TABLE_SIZE):
        sides = [(code >> (2 * slot)) & 3 for slot in (1, 3, 4, 6)]
        empty = sides.count(EMPTY)
        if 1 <= empty <= 2:
            for mover in (BLACK, WHITE):
                if mover not in sides:
                    tables[mover][code] = 1
    return bytes(tables[0]), bytes(tables[1]), bytes(tables[2])


@functools.cache
def random_move_tables() -> tuple[bytes, ...]:
    """Per colour to move, what a random move's 3x3 code says of the centre at once.

    0: the mover's true eye (never played, as in :func:`true_eye_tables`);
    2: two or more of the four orthogonal neighbours empty (legal, and never a
    self-atari); 1: anything else, which the playout has to read.
    """
    two_free = bytearray(TABLE_SIZE)
    for code in range(TABLE_SIZE):
        sides = [(code >> (2 * slot)) & 3 for slot in (1, 3, 4, 6)]
        two_free[code] = 2 if sides.count(EMPTY) >= 2 else 1
    tables = []
    for eyes in true_eye_tables():
        table = bytearray(two_free)
        for code, eye in enumerate(eyes):
            if eye:
                table[code] = 0
        tables.append(bytes(table))
    return tables[0], tables[1], tables[2]
