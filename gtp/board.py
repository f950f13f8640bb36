"""The reference Go rules board the referee trusts.

Owns legality (occupied points, simple ko, positional or situational superko,
suicide allowed or forbidden), captures, undo, setup stones (handicap), the
Zobrist hash of positions, Tromp-Taylor area scoring and the spelling of
scores.  Fixed handicap placement lives in :mod:`gtp.handicap` and is
re-exported here.

The board is a flat list of cells (0 empty, 1 black, 2 white) with neighbour
tables per size; chains are found by a flood fill that stops at the first
liberty, which keeps ordinary plays cheap without incremental chain data, so
undo only has to put back what one play changed.

The position history used for superko starts from the position after the
setup (handicap) stones.  Only plays and passes are recorded; a pass is always
legal.  Stones removed by an allowed suicide count as captures of the opponent.
"""

from __future__ import annotations

import enum
import functools
import random
from collections.abc import Iterable, Mapping
from typing import Final, Literal, NamedTuple

from gtp.handicap import fixed_handicap_points, max_fixed_handicap
from gtp.vertex import COLUMN_LETTERS, Colour, Point, check_board_size

__all__ = [
    "Board",
    "IllegalMove",
    "IllegalReason",
    "KoRule",
    "fixed_handicap_points",
    "format_score",
    "max_fixed_handicap",
]

IllegalReason = Literal["occupied", "ko", "superko", "suicide", "off board"]

_EMPTY: Final = 0
_BLACK: Final = 1
_WHITE: Final = 2
_CODE: Final = {Colour.BLACK: _BLACK, Colour.WHITE: _WHITE}
_COLOUR_OF_CODE: Final = (None, Colour.BLACK, Colour.WHITE)
_NO_POINT: Final = -1
_PASS: Final = -1

# XORed into a position hash to make the hash of "this position, White to move".
_WHITE_TO_MOVE_KEY: Final = random.Random("gtp-arena white to move").getrandbits(64)


class KoRule(enum.Enum):
    SIMPLE = "simple"
    POSITIONAL = "positional"
    SITUATIONAL = "situational"


class IllegalMove(ValueError):
    """A play the rules forbid; ``reason`` is one of :data:`IllegalReason`."""

    def __init__(self, reason: IllegalReason) -> None:
        super().__init__(reason)
        self.reason: IllegalReason = reason


class _Tables(NamedTuple):
    """Per-size constants shared by every board of that size."""

    points: tuple[Point, ...]  # index -> (row, col)
    neighbours: tuple[tuple[int, ...], ...]
    keys: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]  # [code][index]


@functools.cache
def _tables(size: int) -> _Tables:
    points = tuple((row, col) for row in range(size) for col in range(size))
    neighbours = []
    for row, col in points:
        around = []
        for r, c in ((row - 1, col), (row, col - 1), (row, col + 1), (row + 1, col)):
            if 0 <= r < size and 0 <= c < size:
                around.append(r * size + c)
        neighbours.append(tuple(around))
    # A fixed seed per size: hashes are the same in every process and run.
    rng = random.Random(f"gtp-arena zobrist {size}")
    count = size * size
    black = tuple(rng.getrandbits(64) for _ in range(count))
    white = tuple(rng.getrandbits(64) for _ in range(count))
    return _Tables(points, tuple(neighbours), ((), black, white))


class _Record(NamedTuple):
    """What one play or pass changed, enough to undo it."""

    colour: int
    point: int  # board index, or _PASS for a pass
    removed: tuple[int, ...]  # captured stones, or the own chain for a suicide
    removed_colour: int
    previous_ko: tuple[int, int] | None
    previous_hash: int


def _situation(position_hash: int, to_move: int) -> int:
    return position_hash ^ _WHITE_TO_MOVE_KEY if to_move == _WHITE else position_hash


class Board:
    """A Go position plus its history, checked against one set of rules."""

    __slots__ = (
        "_allow_suicide",
        "_captures",
        "_cells",
        "_handicap",
        "_hash",
        "_history",
        "_ko",
        "_ko_rule",
        "_position_counts",
        "_positions",
        "_situation_counts",
        "_size",
        "_superko",
        "_tables",
    )

    def __init__(
        self, size: int, *, ko_rule: KoRule = KoRule.SIMPLE, allow_suicide: bool = False
    ) -> None:
        check_board_size(size)
        self._size = size
        self._ko_rule = ko_rule
        # Positional or situational superko: the position counts are kept and read.
        self._superko = ko_rule is not KoRule.SIMPLE
        self._allow_suicide = allow_suicide
        self._tables = _tables(size)
        self._cells = [_EMPTY] * (size * size)
        self._hash = 0
        # (point, colour code) that may not play there on the very next turn
        self._ko: tuple[int, int] | None = None
        self._captures = [0, 0, 0]  # by colour code: stones that colour has captured
        self._handicap = 0
        self._history: list[_Record] = []
        self._positions = [0]  # position hash before the first play, after each play
        self._position_counts: dict[int, int] = {0: 1}
        # (position, player to move) hashes; the start only once somebody has moved
        self._situation_counts: dict[int, int] = {}

    # ------------------------------------------------------------------
    # Reading the position

    @property
    def size(self) -> int:
        return self._size

    @property
    def ko_rule(self) -> KoRule:
        return self._ko_rule

    @property
    def allow_suicide(self) -> bool:
        return self._allow_suicide

    @property
    def zobrist_hash(self) -> int:
        """Hash of the stones alone (no player to move, no ko state)."""
        return self._hash

    @property
    def moves_played(self) -> int:
        """Plays and passes since the setup stones (the undo history)."""
        return len(self._history)

    @property
    def moves(self) -> tuple[tuple[Colour, Point | None], ...]:
        """Every play and pass since the setup stones, oldest first."""
        points = self._tables.points
        return tuple(
            (_colour(record.colour), None if record.point == _PASS else points[record.point])
            for record in self._history
        )

    @property
    def captures(self) -> Mapping[Colour, int]:
        """Stones each colour has captured (suicided stones go to the opponent)."""
        return {Colour.BLACK: self._captures[_BLACK], Colour.WHITE: self._captures[_WHITE]}

    @property
    def handicap_stones(self) -> int:
        return self._handicap

    @property
    def ko_point(self) -> Point | None:
        """The point an immediate recapture is forbidden on, if any."""
        if self._ko is None:
            return None
        return self._tables.points[self._ko[0]]

    def get(self, point: Point) -> Colour | None:
        return _COLOUR_OF_CODE[self._cells[self._index(point)]]

    def is_empty(self) -> bool:
        return not any(self._cells)

    def stones(self, colour: Colour) -> list[Point]:
        code = _CODE[colour]
        points = self._tables.points
        return [points[i] for i, cell in enumerate(self._cells) if cell == code]

    def empty_points(self) -> list[Point]:
        points = self._tables.points
        return [points[i] for i, cell in enumerate(self._cells) if cell == _EMPTY]

    # ------------------------------------------------------------------
    # Playing

    def legality(self, colour: Colour, point: Point | None) -> IllegalReason | None:
        """Why ``colour`` may not play at ``point`` now, or None when it may."""
        if point is None:
            return None
        index = self._index_or_none(point)
        if index is None:
            return "off board"
        outcome = self._evaluate(_CODE[colour], index)
        return outcome if isinstance(outcome, str) else None

    def is_legal(self, colour: Colour, point: Point | None) -> bool:
        return self.legality(colour, point) is None

    def play(self, colour: Colour, point: Point | None) -> list[Point]:
        """Play (or pass, for None) and return the captured points.

        Raises :class:`IllegalMove` and changes nothing when the play is illegal.
        For an allowed suicide the returned points are the mover's own stones.
        """
        # The referee calls this once per move: identity tests rather than
        # hashing the enum (a Python-level __hash__) to look its code up.
        code = _BLACK if colour is Colour.BLACK else _WHITE if colour is Colour.WHITE else -1
        if code < 0:
            code = _CODE[colour]  # KeyError, as for any other non-colour
        if point is None:
            self._push(_Record(code, _PASS, (), _EMPTY, self._ko, self._hash), self._hash)
            self._ko = None
            return []
        row, col = point
        size = self._size
        if not (0 <= row < size and 0 <= col < size):
            raise IllegalMove("off board")
        index = row * size + col
        cells = self._cells
        # The usual play, inlined (the referee's, once a move): an empty point next
        # to an empty one and to no opponent stone, so it captures nothing and
        # is no suicide (nor a ko recapture: the ko point touches the stone that
        # took); anything else goes through _evaluate.
        opponent = 3 - code
        quiet = False
        if not cells[index]:
            for n in self._tables.neighbours[index]:
                v = cells[n]
                if v == opponent:
                    quiet = False
                    break
                if v == _EMPTY:
                    quiet = True
        if quiet:  # no capture: no ko either, and only a superko rule can forbid it
            new_hash = self._hash ^ self._tables.keys[code][index]
            if self._superko and self._repeats(new_hash, opponent):
                raise IllegalMove("superko")
            cells[index] = code
            self._push(_Record(code, index, (), opponent, self._ko, self._hash), new_hash)
            self._ko = None
            return []
        outcome = self._evaluate(code, index)
        if isinstance(outcome, str):
            raise IllegalMove(outcome)
        removed, removed_colour, new_hash = outcome
        cells[index] = code
        self._push(_Record(code, index, removed, removed_colour, self._ko, self._hash), new_hash)
        if not removed:  # most moves capture nothing
            self._ko = None
            return []
        for stone in removed:
            cells[stone] = _EMPTY
        self._captures[code if removed_colour != code else 3 - code] += len(removed)
        self._ko = self._ko_after(code, index, removed, removed_colour)
        points = self._tables.points
        return [points[stone] for stone in removed]

    def undo(self) -> None:
        """Take back the last play or pass; setup stones cannot be undone."""
        if not self._history:
            raise ValueError("cannot undo: no plays since the setup stones")
        record = self._history.pop()
        self._forget_position(record.colour)
        cells = self._cells
        for stone in record.removed:
            cells[stone] = record.removed_colour
        if record.point != _PASS:
            cells[record.point] = _EMPTY
            mover = record.colour
            credited = mover if record.removed_colour != mover else 3 - mover
            self._captures[credited] -= len(record.removed)
        self._hash = record.previous_hash
        self._ko = record.previous_ko

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other._size = self._size
        other._ko_rule = self._ko_rule
        other._superko = self._superko
        other._allow_suicide = self._allow_suicide
        other._tables = self._tables
        other._cells = self._cells.copy()
        other._hash = self._hash
        other._ko = self._ko
        other._captures = self._captures.copy()
        other._handicap = self._handicap
        other._history = self._history.copy()
        other._positions = self._positions.copy()
        other._position_counts = self._position_counts.copy()
        other._situation_counts = self._situation_counts.copy()
        return other

    # ------------------------------------------------------------------
    # Setup stones

    def place_handicap(self, points: Iterable[Point]) -> None:
        """Put Black's handicap stones on the empty board (not in the history)."""
        chosen = list(points)
        if not self.is_empty() or self._history:
            raise ValueError("board not empty")
        if not 2 <= len(chosen) < self._size * self._size:
            raise ValueError(f"invalid number of handicap stones: {len(chosen)}")
        self.set_stones(Colour.BLACK, chosen)
        self._handicap = len(chosen)

    def set_stones(self, colour: Colour, points: Iterable[Point]) -> None:
        """Add setup stones before any play; they start the superko history.

        Every point must be on the board, empty and named once, and no chain may
        be left without a liberty.  Raises ValueError and changes nothing
        otherwise.
        """
        if self._history:
            raise ValueError("setup stones are only allowed before the first play")
        indices = [self._index(point) for point in points]
        if len(set(indices)) != len(indices):
            raise ValueError("repeated point in setup stones")
        cells = self._cells
        if any(cells[i] != _EMPTY for i in indices):
            raise ValueError("setup stone on an occupied point")
        code = _CODE[colour]
        for i in indices:
            cells[i] = code
        touched = {n for i in indices for n in (i, *self._tables.neighbours[i]) if cells[n]}
        if any(self._chain_if_captured(i, cells[i]) is not None for i in touched):
            for i in indices:
                cells[i] = _EMPTY
            raise ValueError("setup stones leave a chain without liberties")
        keys = self._tables.keys[code]
        for i in indices:
            self._hash ^= keys[i]
        self._ko = None
        self._positions = [self._hash]
        self._position_counts = {self._hash: 1}
        self._situation_counts = {}

    # ------------------------------------------------------------------
    # Scoring

    def area_counts(self) -> tuple[int, int]:
        """Tromp-Taylor area (black, white): stones plus empty points only they reach."""
        cells = self._cells
        neighbours = self._tables.neighbours
        area = [0, 0, 0]
        seen = [False] * len(cells)
        for start, cell in enumerate(cells):
            if cell != _EMPTY:
                area[cell] += 1
                continue
            if seen[start]:
                continue
            seen[start] = True
            region = [start]
            borders = 0  # bit mask of the colour codes next to the region
            for point in region:  # grows while we walk it
                for n in neighbours[point]:
                    v = cells[n]
                    if v != _EMPTY:
                        borders |= v
                    elif not seen[n]:
                        seen[n] = True
                        region.append(n)
            if borders in (_BLACK, _WHITE):
                area[borders] += len(region)
        return area[_BLACK], area[_WHITE]

    def area_score(self, komi: float, *, handicap_compensation: float = 0) -> float:
        """White's area + komi + compensation - Black's area: > 0 means White wins."""
        black, white = self.area_counts()
        return white + komi + handicap_compensation - black

    # ------------------------------------------------------------------
    # Display

    def ascii(self) -> str:
        """A diagram with GTP coordinates: X black, O white, . empty, ko point *."""
        size = self._size
        letters = "    " + " ".join(COLUMN_LETTERS[:size])
        ko = self._ko[0] if self._ko is not None else _NO_POINT
        lines = [letters]
        for row in range(size - 1, -1, -1):
            marks = []
            for col in range(size):
                i = row * size + col
                marks.append("*" if i == ko else ".XO"[self._cells[i]])
            lines.append(f"{row + 1:>3} {' '.join(marks)} {row + 1}")
        lines.append(letters)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.ascii()

    def __repr__(self) -> str:
        return (
            f"Board(size={self._size}, ko_rule={self._ko_rule},"
            f" allow_suicide={self._allow_suicide}, moves_played={self.moves_played})"
        )

    # ------------------------------------------------------------------
    # Internals

    def _index(self, point: Point) -> int:
        index = self._index_or_none(point)
        if index is None:
            raise ValueError(f"point {point} is off the {self._size}x{self._size} board")
        return index

    def _index_or_none(self, point: Point) -> int | None:
        row, col = point
        size = self._size
        if 0 <= row < size and 0 <= col < size:
            return row * size + col
        return None

    def _chain_if_captured(self, start: int, code: int) -> list[int] | None:
        """The chain through ``start`` if it has no liberty, else None (stops early)."""
        cells = self._cells
        neighbours = self._tables.neighbours
        chain = [start]
        seen = {start}
        for point in chain:  # grows while we walk it
            for n in neighbours[point]:
                v = cells[n]
                if v == _EMPTY:
                    return None
                if v == code and n not in seen:
                    seen.add(n)
                    chain.append(n)
        return chain

    def _evaluate(self, code: int, index: int) -> IllegalReason | tuple[tuple[int, ...], int, int]:
        """The reason a play is illegal, or (removed stones, their colour, new hash)."""
        cells = self._cells
        if cells[index] != _EMPTY:
            return "occupied"
        ko = self._ko
        if ko is not None and ko[0] == index and ko[1] == code:
            return "ko"
        opponent = 3 - code
        captured: list[int] = []
        has_liberty = False
        cells[index] = code  # tentatively, so the flood fills see it
        try:
            for n in self._tables.neighbours[index]:
                v = cells[n]
                if v == _EMPTY:
                    has_liberty = True
                elif v == opponent and n not in captured:
                    chain = self._chain_if_captured(n, opponent)
                    if chain is not None:
                        captured.extend(chain)
            removed_colour = opponent
            if not captured and not has_liberty:
                own = self._chain_if_captured(index, code)
                if own is not None:
                    if not self._allow_suicide:
                        return "suicide"
                    captured = own
                    removed_colour = code
        finally:
            cells[index] = _EMPTY
        keys = self._tables.keys
        new_hash = self._hash ^ keys[code][index]
        removed_keys = keys[removed_colour]
        for stone in captured:
            new_hash ^= removed_keys[stone]
        if self._superko and self._repeats(new_hash, opponent):
            return "superko"
        return tuple(captured), removed_colour, new_hash

    def _repeats(self, new_hash: int, to_move: int) -> bool:
        """Whether the position ``new_hash`` (``to_move`` to play) breaks the superko rule."""
        if self._ko_rule is KoRule.POSITIONAL:
            return new_hash in self._position_counts
        return _situation(new_hash, to_move) in self._situation_counts

    def _ko_after(
        self, code: int, index: int, removed: tuple[int, ...], removed_colour: int
    ) -> tuple[int, int] | None:
        """Simple ko: a lone stone that took exactly one stone and has one liberty."""
        if len(removed) != 1 or removed_colour == code:
            return None
        cells = self._cells
        liberties = 0
        for n in self._tables.neighbours[index]:
            v = cells[n]
            if v == code:
                return None
            if v == _EMPTY:
                liberties += 1
        if liberties != 1:
            return None
        return removed[0], 3 - code

    def _push(self, record: _Record, new_hash: int) -> None:
        """Remember a play or pass whose position hash is ``new_hash``."""
        if self._superko:  # the counts only a superko rule reads
            situations = self._situation_counts
            if not self._history:
                # The start becomes a situation once we know who moved first.
                start = _situation(self._positions[0], record.colour)
                situations[start] = situations.get(start, 0) + 1
            positions = self._position_counts
            positions[new_hash] = positions.get(new_hash, 0) + 1
            after = _situation(new_hash, 3 - record.colour)
            situations[after] = situations.get(after, 0) + 1
        self._history.append(record)
        self._positions.append(new_hash)
        self._hash = new_hash

    def _forget_position(self, mover: int) -> None:
        new_hash = self._positions.pop()
        if not self._superko:
            return
        _decrement(self._position_counts, new_hash)
        _decrement(self._situation_counts, _situation(new_hash, 3 - mover))
        if not self._history:
            _decrement(self._situation_counts, _situation(self._positions[0], mover))


def _decrement(counts: dict[int, int], key: int) -> None:
    left = counts[key] - 1
    if left:
        counts[key] = left
    else:
        del counts[key]


def _colour(code: int) -> Colour:
    colour = _COLOUR_OF_CODE[code]
    assert colour is not None
    return colour


def format_score(score: float) -> str:
    """``W+2.5``, ``B+31`` or ``0`` for an area score (> 0 means White wins)."""
    if score == 0:
        return "0"
    winner = "W" if score > 0 else "B"
    margin = f"{abs(score):.6f}".rstrip("0").rstrip(".")
    return f"{winner}+{margin}"
