"""The search's own Go board: flat arrays, incremental chains, cheap copies.

Owns the position representation every other module of the engine works on:
a padded one-dimensional board (stride ``size + 1``, one border column shared
by neighbouring rows, a border row above and below), chains kept as circular
linked lists relabelled union-by-size, per chain a *liberty key*: the count
of its pseudo-liberties (every stone/empty-neighbour adjacency counts once),
with the sum and the sum of squares of their indices, which say in O(1)
whether the chain has one liberty and which (see :data:`LIB_COUNT`,
:func:`engines.mcts.tactics.one_liberty`), an incremental list of
empty points, the incremental Zobrist hash of the stones, simple ko and a
3x3 neighbourhood code per point that the playout policy's pattern tables read.
The arrays are native ``vec[i64]`` where mypyc compiles the engine's core and
lists where it runs interpreted (:data:`NATIVE`, :func:`int_array`): one code
reads both.

Rules are the engine's: occupied points and suicide are illegal, simple ko
forbids the immediate recapture of a single stone.  Positional superko is not
a board rule here; the search filters root moves against the game's history
(see :mod:`engines.mcts.search`).  ``gtp.board`` stays the record of the real
game; this board is copied for every simulation and thrown away.

Point indices: ``(row, col)`` with row 0 at the bottom maps to
``(row + 1) * stride + col + 1``.  Index 0 is a border cell and doubles as
:data:`PASS`.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable
from typing import Final, cast

from librt.vecs import append, pop, vec
from mypy_extensions import i64

from gtp.vertex import MAX_BOARD_SIZE, MIN_BOARD_SIZE, Point

EMPTY: Final = 0
BLACK: Final = 1
WHITE: Final = 2
BORDER: Final = 3
PASS: Final = 0  # index 0 is always a border cell, so it can never be a point

#: A chain's liberty key packs its pseudo-liberties q (each stone/empty
#: adjacency once) into one i64: their sum in the low ``LIB_SHIFT`` bits, the
#: sum of q * q above them, and their count from bit ``LIB_COUNT`` on
#: (``Geometry.libkey`` holds ``(1 << LIB_COUNT) + q + (q * q << LIB_SHIFT)``
#: per cell, so keeping the key is one addition where a pseudo-liberty comes
#: or goes).  A chain has at most ``2 * size * (size - 1)`` pseudo-liberties
#: (one per edge of the grid), so on a 25x25 board (703 cells) the sum stays
#: below 1200 * 703 < 2 ** 20, the sum of squares below 2 ** 30 and the count
#: below 2 ** 11: the key below 2 ** 61, every part exact.  A key compares like
#: its count: a chain has at most k pseudo-liberties exactly when its key is
#: below ``k + 1 << LIB_COUNT`` (``KEY_2``, ``KEY_5``, ``KEY_9``), none when it is 0.
#:
#: Only where the core is compiled (:data:`NATIVE`).  Interpreted, an item of
#: ``lkey`` is the pseudo-liberty count alone and ``Geometry.libkey`` is 1 per
#: cell (the same additions keep it), and the liberties are found by walking
#: the chains, as before the keys: CPython allocates an int above 2 ** 30 at
#: every addition, and its walks cost less than the keys' upkeep (measured
#: 6-7% slower with the keys).  Readers of ``lkey`` branch on ``NATIVE``.
LIB_SHIFT: Final = 20
LIB_COUNT: Final = 50
LIB_MASK: Final = (1 << LIB_SHIFT) - 1
SQUARES_MASK: Final = (1 << (LIB_COUNT - LIB_SHIFT)) - 1
KEY_2: Final = 2 << LIB_COUNT
KEY_5: Final = 5 << LIB_COUNT
KEY_9: Final = 9 << LIB_COUNT


def point_key(q: i64) -> i64:
    """What the point ``q`` adds to the liberty key of a chain it is a pseudo-liberty
    of (see LIB_COUNT): ``Geometry.libkey[q]`` where compiled; computed where
    passing the table along would cost more."""
    return (1 << LIB_COUNT) + q + (q * q << LIB_SHIFT)


def _compiled() -> bool:
    """True when this module runs compiled by mypyc (its functions have no Python code)."""
    return not hasattr(_compiled, "__code__")


#: The board's arrays are native ``vec[i64]`` where this module is compiled
#: (unboxed: C-level indexing of machine integers), and plain lists where it is
#: interpreted (CPython indexes a list about twice as fast as a vec).  Either
#: way the code that reads them is the same: it only indexes, assigns, slices
#: (``[:]`` copies, keeping the kind) and iterates.
NATIVE: Final = _compiled()


def int_array(items: Iterable[int]) -> vec[i64]:
    """A board array holding ``items``: a vec compiled, a list interpreted (see :data:`NATIVE`)."""
    if NATIVE:
        return vec[i64](items)
    return list(items)  # type: ignore[return-value]


def stone_lead(color: vec[i64]) -> int:
    """Black's stones minus White's on the board array ``color`` (compiled, in one pass)."""
    n: i64
    if NATIVE:
        n = 0
        for x in color:
            if x == BLACK:
                n += 1
            elif x == WHITE:
                n -= 1
        return n
    cells = cast("list[int]", color)
    return cells.count(BLACK) - cells.count(WHITE)


def int_table(rows: Iterable[Iterable[int]]) -> vec[vec[i64]]:
    """A table of points per cell (``neighbours``): vecs of vecs compiled, a list of tuples
    interpreted (see :data:`NATIVE`); read it by indexing and iterating rows."""
    if NATIVE:
        table = vec[vec[i64]]()
        for row in rows:
            table = append(table, vec[i64](row))
        return table
    return [tuple(row) for row in rows]  # type: ignore[return-value]


class IllegalPlay(ValueError):
    """A play this board's rules forbid (occupied, ko or suicide)."""


class Geometry:
    """Per-size constants shared by every board of that size (see :func:`geometry`)."""

    around: vec[vec[i64]]
    diagonals: vec[vec[i64]]
    libkey: vec[i64]
    neighbours: vec[vec[i64]]
    step_rows: vec[vec[i64]]
    zeros: vec[i64]

    __slots__ = (
        "around",
        "cells",
        "diagonals",
        "libkey",
        "max_playout_moves",
        "neighbours",
        "pattern_offsets",
        "pattern_steps",
        "pattern_updates",
        "points",
        "size",
        "step_rows",
        "stride",
        "zeros",
        "zobrist",
    )

    def __init__(self, size: int) -> None:
        if not MIN_BOARD_SIZE <= size <= MAX_BOARD_SIZE:
            raise ValueError(f"board size {size} is outside {MIN_BOARD_SIZE}..{MAX_BOARD_SIZE}")
        stride = size + 1
        self.size = size
        self.stride = stride
        self.cells = stride * (size + 2) + 1
        self.points: tuple[int, ...] = tuple(
            (row + 1) * stride + col + 1 for row in range(size) for col in range(size)
        )
        on_board = set(self.points)
        empty4: tuple[int, ...] = ()
        neighbours: list[tuple[int, ...]] = [empty4] * self.cells
        diagonals: list[tuple[int, ...]] = [empty4] * self.cells
        for p in self.points:
            neighbours[p] = (p - 1, p + 1, p - stride, p + stride)
            diagonals[p] = (p - stride - 1, p - stride + 1, p + stride - 1, p + stride + 1)
        self.neighbours = int_table(neighbours)
        self.diagonals = int_table(diagonals)
        self.around = int_table(n + d for n, d in zip(neighbours, diagonals, strict=True))
        # Slot k of a point's 3x3 code holds the colour at point + offset[k] in
        # bits 2k..2k+1: up-left, up, up-right, left, right, down-left, down, down-right.
        offsets = (
            stride - 1,
            stride,
            stride + 1,
            -1,
            1,
            -stride - 1,
            -stride,
            -stride + 1,
        )
        self.pattern_offsets = offsets
        updates: list[tuple[tuple[int, int], ...]] = [()] * self.cells
        for p in self.points:
            updates[p] = tuple(
                (p - off, 1 << (2 * k)) for k, off in enumerate(offsets) if p - off in on_board
            )
        self.pattern_updates = updates
        # The same, with the unit already times the colour: what a stone of
        # colour c at p adds to (and its capture takes from) the codes around it.
        self.pattern_steps: tuple[list[tuple[tuple[int, int], ...]], ...] = tuple(
            [tuple((q, unit * c) for q, unit in ups) for ups in updates] for c in range(3)
        )
        # The same flat, row c * cells + p holding q0, step0, q1, step1, ...: compiled, a
        # vec of vecs the playout reads without unpacking a tuple per point (see NATIVE)
        self.step_rows = int_table(
            [x for pair in ups for x in pair] for steps in self.pattern_steps for ups in steps
        )
        # What a cell adds to the liberty key of a chain it is a pseudo-liberty of
        # (see LIB_SHIFT; the bound there holds for every size allowed), or to
        # its count where the keys are not kept (interpreted)
        assert 2 * size * (size - 1) * self.cells < 1 << LIB_SHIFT
        assert 2 * size * (size - 1) * self.cells**2 <= SQUARES_MASK
        self.libkey = int_array(point_key(q) if NATIVE else 1 for q in range(self.cells))
        # A board array of zeros to copy (``zeros[:]``): cheaper than building one
        self.zeros = int_array([0] * self.cells)
        rng = random.Random(f"engines.mcts zobrist {size}")
        self.zobrist: tuple[list[int], list[int], list[int]] = (
            [0] * self.cells,
            [rng.getrandbits(64) for _ in range(self.cells)],
            [rng.getrandbits(64) for _ in range(self.cells)],
        )
        self.max_playout_moves = 3 * size * size

    def index(self, point: Point) -> int:
        row, col = point
        if not (0 <= row < self.size and 0 <= col < self.size):
            raise ValueError(f"point {point} is off the {self.size}x{self.size} board")
        return (row + 1) * self.stride + col + 1

    def point(self, index: int) -> Point:
        row, col = divmod(index, self.stride)
        if not (1 <= row <= self.size and 1 <= col <= self.size):
            raise ValueError(f"index {index} is not a point of the {self.size}x{self.size} board")
        return (row - 1, col - 1)


@functools.cache
def geometry(size: int) -> Geometry:
    return Geometry(size)


class FastBoard:
    """A position for the search.  Attributes are shared with the playout code.

    ``color`` holds EMPTY/BLACK/WHITE/BORDER per cell; ``head`` the chain
    representative of a stone; ``nxt`` the next stone of its chain (circular);
    ``csize`` and ``lkey`` the stone count and the liberty key (the pseudo-liberty
    count among them; interpreted, the count alone: see :data:`LIB_COUNT`), valid
    at chain heads;
    ``empties``/``epos`` the empty points and each one's position in that array;
    ``pat`` the 3x3 code of every point; ``ko`` the point ``ko_colour`` may not
    play on next (0 for none).

    ``empties`` changes length: compiled it is a vec, which librt's ``pop()`` and
    ``append()`` give back as a new value (the same buffer while it has room), so
    code that removes or adds an empty point assigns the result back to the board
    (the playouts once, when they end); interpreted it is a list changed in place.
    """

    __slots__ = (
        "color",
        "csize",
        "empties",
        "epos",
        "geo",
        "hash",
        "head",
        "ko",
        "ko_colour",
        "last_move",
        "lkey",
        "nxt",
        "passes",
        "pat",
        "to_move",
    )
    geo: Geometry
    color: vec[i64]
    head: vec[i64]
    nxt: vec[i64]
    csize: vec[i64]
    lkey: vec[i64]
    empties: vec[i64]
    epos: vec[i64]
    pat: vec[i64]
    ko: int
    ko_colour: int
    to_move: int
    hash: int
    last_move: int
    passes: int

    def __init__(self, size: int, source: FastBoard | None = None) -> None:
        if source is not None:
            # a copy of ``source`` (size unread): see :meth:`copy`
            self.geo = source.geo
            self.color = source.color[:]
            self.head = source.head[:]
            self.nxt = source.nxt[:]
            self.csize = source.csize[:]
            self.lkey = source.lkey[:]
            self.empties = source.empties[:]
            self.epos = source.epos[:]
            self.pat = source.pat[:]
            self.ko = source.ko
            self.ko_colour = source.ko_colour
            self.to_move = source.to_move
            self.hash = source.hash
            self.last_move = source.last_move
            self.passes = source.passes
            return
        geo = geometry(size)
        self.geo = geo
        cells = geo.cells
        color = [BORDER] * cells
        for p in geo.points:
            color[p] = EMPTY
        self.color = int_array(color)
        self.head = int_array(range(cells))
        self.nxt = int_array(range(cells))
        self.csize = int_array([1] * cells)
        self.lkey = int_array([0] * cells)
        self.empties = int_array(geo.points)
        epos = [0] * cells
        for i, p in enumerate(geo.points):
            epos[p] = i
        self.epos = int_array(epos)
        self.pat = int_array([0] * cells)
        self._compute_patterns()
        self.ko = 0
        self.ko_colour = EMPTY
        self.to_move = BLACK
        self.hash = 0
        self.last_move = PASS
        self.passes = 0

    @property
    def size(self) -> int:
        return self.geo.size

    def copy(self) -> FastBoard:
        # Through __init__, not FastBoard.__new__: the compiled class always runs __init__.
        return FastBoard(0, self)

    # ------------------------------------------------------------------
    # Setup

    def setup(self, black: Iterable[int] = (), white: Iterable[int] = ()) -> None:
        """Add stones without playing them (handicap, positions from elsewhere).

        Raises ValueError if a point is occupied or a chain ends up without a
        liberty; the board is unusable after such an error.
        """
        for colour, stones in ((BLACK, black), (WHITE, white)):
            for p in stones:
                if self.color[p] != EMPTY:
                    raise ValueError(f"setup stone on a non-empty cell {p}")
                self._put_stone(p, colour)
        self._rebuild_chains()
        for p in self.geo.points:
            if self.color[p] in (BLACK, WHITE) and self.head[p] == p and self.lkey[p] == 0:
                raise ValueError("setup leaves a chain without liberties")
        self.ko = 0
        self.ko_colour = EMPTY

    def _put_stone(self, p: int, colour: int) -> None:
        j = self.epos[p]
        empties = self.empties
        if NATIVE:
            empties, last = pop(empties)
            self.empties = empties
        else:
            last = empties.pop()  # type: ignore[attr-defined]  # (a list interpreted)
        if last != p:
            empties[j] = last
            self.epos[last] = j
        self.color[p] = colour
        self.hash ^= self.geo.zobrist[colour][p]
        for q, unit in self.geo.pattern_updates[p]:
            self.pat[q] += unit * colour

    def _rebuild_chains(self) -> None:
        color, head, nxt, csize, lkey = self.color, self.head, self.nxt, self.csize, self.lkey
        libkey = self.geo.libkey
        nb = self.geo.neighbours
        seen: set[int] = set()
        for p in self.geo.points:
            c = color[p]
            if c not in (BLACK, WHITE) or p in seen:
                continue
            chain = [p]
            seen.add(p)
            for s in chain:
                for q in nb[s]:
                    if color[q] == c and q not in seen:
                        seen.add(q)
                        chain.append(q)
            for i, s in enumerate(chain):
                head[s] = p
                nxt[s] = chain[(i + 1) % len(chain)]
            csize[p] = len(chain)
            lkey[p] = sum(libkey[q] for s in chain for q in nb[s] if color[q] == EMPTY)

    def _compute_patterns(self) -> None:
        color, pat = self.color, self.pat
        offsets = self.geo.pattern_offsets
        for p in self.geo.points:
            code = 0
            for k, off in enumerate(offsets):
                code |= color[p + off] << (2 * k)
            pat[p] = code

    # ------------------------------------------------------------------
    # Rules

    def is_legal(self, p: int, colour: int | None = None) -> bool:
        """True if ``colour`` (default: the player to move) may play at ``p``.

        A pass is always legal.
        """
        if p == PASS:
            return True
        c = self.to_move if colour is None else colour
        color = self.color
        if color[p] != EMPTY:
            return False
        if p == self.ko and c == self.ko_colour:
            return False
        head, lkey = self.head, self.lkey
        nb = self.geo.neighbours[p]
        for q in nb:
            cq = color[q]
            if cq == EMPTY:
                return True
            if cq == BORDER:
                continue
            h = head[q]
            only_here = (lkey[h] >> LIB_COUNT if NATIVE else lkey[h]) == sum(
                1 for r in nb if head[r] == h
            )
            if (cq == c) != only_here:
                return True  # a friend keeps another liberty, or an enemy is captured
        return False

    def legal_moves(self, colour: int | None = None) -> list[int]:
        """Every legal play (not pass) for ``colour``, in board order."""
        return [p for p in self.geo.points if self.color[p] == EMPTY and self.is_legal(p, colour)]

    def play(self, p: int, colour: int | None = None) -> int:
        """Play ``colour`` (default: the player to move) at ``p``, or pass.

        Returns the number of stones captured; raises :class:`IllegalPlay` and
        changes nothing when the play is illegal.  The other colour moves next.
        """
        c = self.to_move if colour is None else colour
        if p == PASS:
            self.ko = 0
            self.ko_colour = EMPTY
            self.passes += 1
            self.last_move = PASS
            self.to_move = 3 - c
            return 0
        if not (0 < p < len(self.color)) or not self.is_legal(p, c):
            raise IllegalPlay(f"illegal play at {p}")
        return self._place(p, c)

    def play_known(self, p: int, colour: int | None = None) -> None:
        """Play a move already known to be legal for ``colour`` (default: the player to move)."""
        c = self.to_move if colour is None else colour
        if p == PASS:
            self.play(PASS, c)
        else:
            self._place(p, c)

    def _place(self, p: i64, c: i64) -> int:
        """Put a stone of colour ``c`` at the empty point ``p``, known to be legal."""
        # machine integers where mypyc compiles this (no effect interpreted)
        o: i64
        j: i64
        q: i64
        cq: i64
        h: i64
        hp: i64
        big: i64
        small: i64
        s: i64
        t: i64
        captured: i64
        last_captured: i64
        f1: i64
        f2: i64
        f3: i64
        f4: i64
        e1: i64
        e2: i64
        e3: i64
        e4: i64
        k: i64
        kp: i64
        ks: i64
        lk: i64
        color, head, nxt, csize, lkey = self.color, self.head, self.nxt, self.csize, self.lkey
        empties, epos, pat = self.empties, self.epos, self.pat
        geo = self.geo
        libkey = geo.libkey
        nb = geo.neighbours
        steps = geo.pattern_steps
        step_rows = geo.step_rows
        cells: i64 = geo.cells
        zobrist = geo.zobrist
        o = 3 - c
        j = epos[p]
        if NATIVE:  # a vec: pop() gives back the vec (the same buffer) and its last item
            empties, last = pop(empties)
        else:
            last = empties.pop()  # type: ignore[attr-defined]  # (a list interpreted)
        if last != p:
            empties[j] = last
            epos[last] = j
        color[p] = c
        head[p] = p
        nxt[p] = p
        csize[p] = 1
        h_new = self.hash ^ zobrist[c][p]
        if NATIVE:  # the same steps from a flat row (see Geometry.step_rows): nothing boxed
            row = step_rows[c * cells + p]
            k = 0
            while k < len(row):
                q = row[k]
                pat[q] = pat[q] + row[k + 1]
                k += 2
        else:
            for q, step in steps[c][p]:
                pat[q] = pat[q] + step
        lk = 0
        kp = libkey[p]
        # The friendly and the enemy chains around p (their heads, in the order of
        # the neighbours, each once; 0 for none): locals, not two lists a play
        f1 = f2 = f3 = f4 = 0
        e1 = e2 = e3 = e4 = 0
        for q in nb[p]:
            cq = color[q]
            if cq == EMPTY:
                lk += libkey[q]
            elif cq != BORDER:
                h = head[q]
                lkey[h] = lkey[h] - kp
                if cq == c:
                    if h not in (f1, f2, f3):  # (a fourth is the last neighbour)
                        if not f1:
                            f1 = h
                        elif not f2:
                            f2 = h
                        elif not f3:
                            f3 = h
                        else:
                            f4 = h
                elif h not in (e1, e2, e3):
                    if not e1:
                        e1 = h
                    elif not e2:
                        e2 = h
                    elif not e3:
                        e3 = h
                    else:
                        e4 = h
        lkey[p] = lk
        hp = p
        k = 0
        while k < 4:
            h = f1 if k == 0 else f2 if k == 1 else f3 if k == 2 else f4
            k += 1
            if not h:
                break
            if csize[h] >= csize[hp]:
                big, small = h, hp
            else:
                big, small = hp, h
            s = small
            while True:
                head[s] = big
                s = nxt[s]
                if s == small:
                    break
            nxt[small], nxt[big] = nxt[big], nxt[small]
            csize[big] = csize[big] + csize[small]
            lkey[big] = lkey[big] + lkey[small]
            hp = big
        captured = 0
        last_captured = 0
        zo = zobrist[o]
        k = 0
        while k < 4:
            h = e1 if k == 0 else e2 if k == 1 else e3 if k == 2 else e4
            k += 1
            if not h:
                break
            if lkey[h] != 0:
                continue
            s = h
            while True:
                color[s] = EMPTY
                epos[s] = len(empties)
                if NATIVE:  # a vec: append() gives back the vec (the same buffer, if room)
                    empties = append(empties, s)
                else:
                    empties.append(s)  # type: ignore[attr-defined]
                h_new ^= zo[s]
                if NATIVE:
                    row = step_rows[o * cells + s]
                    j = 0
                    while j < len(row):
                        q = row[j]
                        pat[q] = pat[q] - row[j + 1]
                        j += 2
                else:
                    for q, step in steps[o][s]:
                        pat[q] = pat[q] - step
                captured += 1
                last_captured = s
                s = nxt[s]
                if s == h:
                    break
            s = h
            while True:
                ks = libkey[s]
                for q in nb[s]:
                    cq = color[q]
                    if cq in (BLACK, WHITE):
                        hq = head[q]
                        lkey[hq] = lkey[hq] + ks
                t = nxt[s]
                nxt[s] = s
                head[s] = s
                s = t
                if s == h:
                    break
        if captured == 1 and csize[hp] == 1 and lkey[hp] < (KEY_2 if NATIVE else 2):
            self.ko = last_captured
            self.ko_colour = o
        else:
            self.ko = 0
            self.ko_colour = EMPTY
        self.empties = empties
        self.hash = h_new
        self.to_move = o
        self.last_move = p
        self.passes = 0
        return captured

    # ------------------------------------------------------------------
    # Questions the policy and the engine ask

    def liberties(self, p: int, limit: int = 1 << 30) -> list[int]:
        """The distinct liberties of the chain through ``p``, stopping after ``limit``."""
        color, nxt = self.color, self.nxt
        nb = self.geo.neighbours
        found: list[int] = []
        s = p
        while True:
            for q in nb[s]:
                if color[q] == EMPTY and q not in found:
                    found.append(q)
                    if len(found) >= limit:
                        return found
            s = nxt[s]
            if s == p:
                return found

    def chain(self, p: int) -> list[int]:
        """The stones of the chain through ``p``."""
        nxt = self.nxt
        stones = [p]
        s = nxt[p]
        while s != p:
            stones.append(s)
            s = nxt[s]
        return stones

    def area_score(self) -> int:
        """Black's area minus White's (Tromp-Taylor: stones plus enclosed empty regions)."""
        return score_terminal(self)

    def ascii(self) -> str:
        """A small diagram (row 1 at the bottom) for debugging and tests."""
        size = self.geo.size
        lines = []
        for row in range(size - 1, -1, -1):
            cells = (self.color[self.geo.index((row, col))] for col in range(size))
            lines.append(" ".join(".XO#"[c] for c in cells))
        return "\n".join(lines)


def score_terminal(board: FastBoard) -> int:
    """Black minus White area for a played-out position (Tromp-Taylor).

    Exact for any position, and cheap where it matters: a played-out position
    has mostly single-point eyes, which are settled by looking at their four
    neighbours; only larger empty regions are flood-filled.
    """
    color = board.color
    nb = board.geo.neighbours
    score = stone_lead(color)
    seen: set[int] | None = None
    for p in board.empties:
        ns = nb[p]  # indexed: unpacking a vec row would box it
        a = ns[0]
        b = ns[1]
        d = ns[2]
        e = ns[3]
        ca = color[a]
        cb = color[b]
        cd = color[d]
        ce = color[e]
        if ca and cb and cd and ce:
            mask = ((1 << ca) | (1 << cb) | (1 << cd) | (1 << ce)) & 0b0110
            if mask == 0b0010:
                score += 1
            elif mask == 0b0100:
                score -= 1
            continue
        if seen is None:
            seen = set()
        elif p in seen:
            continue
        seen.add(p)
        region = [p]
        borders = 0
        for s in region:
            for q in nb[s]:
                cq = color[q]
                if cq == EMPTY:
                    if q not in seen:
                        seen.add(q)
                        region.append(q)
                elif cq != BORDER:
                    borders |= cq
        if borders == BLACK:
            score += len(region)
        elif borders == WHITE:
            score -= len(region)
    return score
