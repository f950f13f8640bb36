"""Playout policies: play a copied position out to the end, fast.

Owns the simulation ("default") policies of the search:

* ``light``: uniformly random legal moves (a cyclic scan from a random start
  over the empty-point list), never filling a point whose four neighbours are
  all the mover's own stones or the edge.
* ``default``: in the spirit of MoGo's simulation policy (Gelly & Silver 2011,
  §3.5): after the opponent's move, save our chains it put in atari (capture
  an attacker or extend when that gains liberties), capture opponent chains in
  atari at or around it, play a 3x3 shape (hane, cut and edge patterns; see
  :mod:`engines.mcts.patterns`) next to it, otherwise a random move; and,
  before any shape, the vital point of a three-point eye space of the
  opponent's that the last move touches (nakade, below).  It never
  fills its own true eyes (a false eye may be filled) and refuses moves that
  put one of its chains of two or more stones in atari without capturing,
  unless they risk at most three stones to put a bigger opponent chain in
  atari (:func:`~engines.mcts.tactics.atari_sacrifice`: a throw-in that wins
  a capturing race).
* ``no-nakade``: ``default`` without the nakade rule (the default policy
  before 2026-11-28); ``strict``: ``default`` refusing those sacrifices too;
  ``ladders``: ``default`` reading ladders (below); ``lgrf``: ``default``
  trying the last good reply to the last move, learnt from the search's
  earlier playouts (:class:`LastGoodReply`); ``nakade``: the name the
  default had while it was measured, kept so its benchmark rows still run.

Both loops are written out by hand over the board's lists with every name
bound locally: that is where the engine spends its time.  A playout mutates
the board it is given (callers pass a copy; ``light`` does not keep the 3x3
codes up to date) and leaves side to move, passes, ko and last move written
back, so a test can step it one move at a time.  Score the result with
:func:`engines.mcts.fastboard.score_terminal`, or play out and score in one
go with :func:`black_result`.
"""

from __future__ import annotations

import functools
import random
import sys
from collections.abc import Callable
from typing import Final, Protocol

from librt.vecs import append, pop, vec
from mypy_extensions import i64

from engines.mcts.fastboard import (
    EMPTY,
    KEY_2,
    KEY_5,
    LIB_COUNT,
    NATIVE,
    PASS,
    FastBoard,
    int_array,
    score_terminal,
    stone_lead,
)
from engines.mcts.patterns import (
    nakade_entry_tables,
    pattern_table,
    random_move_tables,
    true_eye_tables,
)
from engines.mcts.tactics import (
    atari_sacrifice,
    extension_dies,
    holds,
    is_legal,
    liberties_after,
    nakade_point,
    one_liberty,
    remove_first,
    saving_moves,
    self_atari,
    walk_liberty,
)

_MT_N: Final = 624
_MT_M: Final = 397


class FastRandom:
    """``random.Random``'s own stream (MT19937), drawn without a Python call where compiled.

    Made from a ``random.Random`` (its state copied, so the two then give the
    same numbers), it is called like ``Random.random``; :meth:`getrandbits` (up
    to 32 bits) draws as ``Random.getrandbits`` does.  The compiled playout and
    search call :meth:`random` directly (a C call, the float never boxed)
    instead of ``Random.random`` through Python's call protocol, the same
    numbers in the same order: the compiled and the interpreted core still play
    the same moves from the same seed.  Only the compiled core uses it (see
    :class:`engines.mcts.search.Search`); interpreted, ``Random.random`` is the
    faster.  :meth:`store` and :meth:`load` hand the stream to and from a
    ``Random`` for the draws made by its Python methods (``gammavariate``).
    """

    def __init__(self, source: random.Random) -> None:
        self.state: vec[i64] = int_array([0] * _MT_N)
        self.index: i64 = _MT_N
        self.load(source)

    def load(self, source: random.Random) -> None:
        """Take ``source``'s state: this stream goes on from where ``source`` is."""
        k: i64
        words = source.getstate()[1]
        state = self.state
        for k in range(_MT_N):
            state[k] = words[k]
        self.index = words[_MT_N]

    def store(self, target: random.Random) -> None:
        """Give ``target`` this stream's state (its Gaussian pair is dropped)."""
        words = [int(x) for x in self.state]
        words.append(int(self.index))
        target.setstate((3, tuple(words), None))

    def _twist(self) -> None:
        """The next 624 words (three loops, as CPython's: no index wraps around; the
        matrix word applied by a mask, not a branch the processor cannot predict)."""
        k: i64
        y: i64
        mt = self.state
        for k in range(_MT_N - _MT_M):
            y = (mt[k] & 0x80000000) | (mt[k + 1] & 0x7FFFFFFF)
            mt[k] = mt[k + _MT_M] ^ (y >> 1) ^ (-(y & 1) & 0x9908B0DF)
        for k in range(_MT_N - _MT_M, _MT_N - 1):
            y = (mt[k] & 0x80000000) | (mt[k + 1] & 0x7FFFFFFF)
            mt[k] = mt[k + _MT_M - _MT_N] ^ (y >> 1) ^ (-(y & 1) & 0x9908B0DF)
        y = (mt[_MT_N - 1] & 0x80000000) | (mt[0] & 0x7FFFFFFF)
        mt[_MT_N - 1] = mt[_MT_M - 1] ^ (y >> 1) ^ (-(y & 1) & 0x9908B0DF)
        self.index = 0

    def word(self) -> i64:
        """The next 32-bit output."""
        y: i64
        if self.index >= _MT_N:
            self._twist()
        y = self.state[self.index]
        self.index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return y ^ (y >> 18)

    def random(self) -> float:
        """The next float in [0, 1), as ``Random.random`` makes it (53 bits from two words)."""
        a: i64 = self.word() >> 5
        b: i64 = self.word() >> 6
        return (float(a) * 67108864.0 + float(b)) * (1.0 / 9007199254740992.0)

    def __call__(self) -> float:
        return self.random()

    def getrandbits(self, k: int) -> int:
        """``Random.getrandbits(k)`` for 0 <= k <= 32."""
        if not 0 <= k <= 32:
            raise ValueError("FastRandom.getrandbits takes 0 to 32 bits")
        if not k:
            return 0
        return int(self.word() >> (32 - k))


class Playout(Protocol):
    """A playout policy: plays ``board`` out in place (see the module docstring).

    Returns 0 when the game was played to its end (or the move cap), else the
    side the mercy rule gave the game to: 1 Black, -1 White.
    """

    def __call__(
        self,
        board: FastBoard,
        rnd: Callable[[], float],
        max_moves: int = 0,
        amaf: bytearray | None = None,
        mercy: int = 0,
    ) -> int: ...


POLICY_NAMES: Final = (
    "default",
    "light",
    "ladders",
    "strict",
    "lgrf",
    "captures",
    "nakade",
    "no-nakade",
)


def playout_light(
    board: FastBoard,
    rnd: Callable[[], float],
    max_moves: int = 0,
    amaf: bytearray | None = None,
    mercy: int = 0,
) -> int:
    """Uniform random legal moves (own eyes kept) until two passes or the move cap.

    ``max_moves`` (0: the board's cap, three times the number of points) counts
    passes too; tests use 1 to check one move at a time.  ``mercy`` is not
    applied here (the light policy is the plain yardstick); it returns 0.
    """
    # Machine integers where mypyc compiles this (the board's arrays hold i64);
    # interpreted, these declarations do nothing.
    c: i64
    o: i64
    ko: i64
    passes: i64
    moves_left: i64
    move: i64
    p: i64
    q: i64
    h: i64
    lq: i64
    i: i64
    k: i64
    a: i64
    b: i64
    d: i64
    e: i64
    ca: i64
    cb: i64
    cd: i64
    ce: i64
    cq: i64
    j: i64
    last: i64
    hp: i64
    captured: i64
    big: i64
    small: i64
    s: i64
    t: i64
    r: i64
    cr: i64
    hr: i64
    n: i64
    kp: i64
    ks: i64
    lk: i64
    size: int
    color = board.color
    head = board.head
    nxt = board.nxt
    csize = board.csize
    lkey = board.lkey
    empties = board.empties
    epos = board.epos
    geo = board.geo
    nb = geo.neighbours
    libkey = geo.libkey
    native = NATIVE  # (a local: interpreted, a fast load at every move)
    # At most 1 and at most 4 pseudo-liberties: ``lkey`` below these (keys compiled,
    # counts interpreted: see LIB_COUNT)
    key2: i64 = KEY_2 if native else 2
    key5: i64 = KEY_5 if native else 5
    c = board.to_move
    ko = board.ko if board.ko_colour == c else 0
    passes = board.passes
    moves_left = max_moves or geo.max_playout_moves
    n = len(empties)
    p = PASS
    fast = rnd if isinstance(rnd, FastRandom) else None  # (drawn by a C call)
    while passes < 2 and moves_left:
        moves_left -= 1
        o = 3 - c
        move = 0
        if n:
            size = n  # (an int local: n is an i64 compiled, and float * i64 is no type)
            i = int((fast.random() if fast is not None else rnd()) * size)
            k = n
            while k:
                k -= 1
                p = empties[i]
                i += 1
                if i == n:
                    i = 0
                if p == ko:
                    continue
                ns = nb[p]  # indexed: unpacking a vec row would box it
                a = ns[0]
                b = ns[1]
                d = ns[2]
                e = ns[3]
                ca = color[a]
                cb = color[b]
                cd = color[d]
                ce = color[e]
                if not (ca and cb and cd and ce):
                    move = p
                    break
                if ca & cb & cd & ce & c:
                    continue  # own eye: every neighbour is own or edge (the edge is 3)
                # No empty neighbour: legal iff it captures or a friend keeps a liberty.
                for q in nb[p]:  # (a, b, d, e), without building a tuple
                    cq = color[q]
                    if cq == 3:
                        continue
                    h = head[q]
                    lq = lkey[h]  # (compared as its count: see LIB_COUNT)
                    if lq >= key5:  # liberties besides p: a friend keeps one, an enemy is not taken
                        if cq == o:
                            continue
                        move = p
                        break
                    if lq < key2:
                        full = True
                    else:
                        full = (lq >> LIB_COUNT if native else lq) == (head[a] == h) + (
                            head[b] == h
                        ) + (head[d] == h) + (head[e] == h)
                    if (cq == o) == full:
                        move = p
                        break
                if move:
                    break
        if not move:
            passes += 1
            ko = 0
            c = o
            p = PASS
            continue
        passes = 0
        p = move
        n -= 1
        j = epos[p]
        if native:  # a vec: pop() gives back the vec (the same buffer) and its last item
            empties, last = pop(empties)
        else:
            last = empties.pop()  # type: ignore[attr-defined]  # (a list interpreted)
        if last != p:
            empties[j] = last
            epos[last] = j
        color[p] = c
        if amaf is not None:
            v = amaf[p]
            amaf[p] = v | c if v else c * 5  # (see AMAF_FIRST)
        head[p] = p
        nxt[p] = p
        csize[p] = 1
        lkey[p] = 0
        lk = 0
        kp = libkey[p]
        hp = p
        captured = 0
        for q in nb[p]:
            cq = color[q]
            if not cq:
                lk += libkey[q]
            elif cq == c:
                h = head[q]
                lkey[h] = lkey[h] - kp
                if h != hp:
                    # merge the smaller chain into the bigger one
                    if csize[h] >= csize[hp]:
                        big = h
                        small = hp
                    else:
                        big = hp
                        small = h
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
            elif cq == o:
                h = head[q]
                lkey[h] = lkey[h] - kp
                if not lkey[h]:
                    captured = 1  # remove it below, once every liberty is counted
        if captured:
            captured = 0
            for q in nb[p]:
                if color[q] == o and not lkey[head[q]]:
                    h = head[q]
                    s = h
                    while True:
                        color[s] = EMPTY
                        epos[s] = n
                        if native:  # a vec: append() gives back the vec (the same buffer)
                            empties = append(empties, s)
                        else:
                            empties.append(s)  # type: ignore[attr-defined]
                        n += 1
                        captured += 1
                        s = nxt[s]
                        if s == h:
                            break
                    s = h
                    while True:
                        ks = libkey[s]
                        for r in nb[s]:
                            cr = color[r]
                            if cr == 1 or cr == 2:
                                hr = head[r]
                                lkey[hr] = lkey[hr] + ks
                        t = nxt[s]
                        nxt[s] = s
                        head[s] = s
                        s = t
                        if s == h:
                            break
            lkey[hp] = lkey[hp] + lk
            if captured == 1 and hp == p and lkey[p] < key2:
                # a lone stone took a lone stone and has one liberty: ko
                for q in nb[p]:
                    if not color[q]:
                        ko = q
                        break
            else:
                ko = 0
        else:
            lkey[hp] = lkey[hp] + lk
            ko = 0
        c = o
    _write_back(board, empties, c, passes, ko, p)
    return 0


#: Where the low byte of a native i64 is in its 8 bytes.
_LOW_BYTE: Final = 0 if sys.byteorder == "little" else 7

#: An AMAF record (one byte a cell) holds, in bits 0 and 1, the colours that played
#: at the point (BLACK = 1, WHITE = 2, OR-ed) and, in bits 2 and 3, the colour that
#: played there first, shifted by this: a point's first play writes ``c * 5``.
AMAF_FIRST: Final = 2


def _amaf_buffer(amaf: bytearray | None, zeros: vec[i64]) -> vec[i64]:
    """Where the playout writes its AMAF record: ``amaf`` itself interpreted; compiled, a
    native array (a copy of the board-sized ``zeros``; mypyc indexes a bytearray as a
    Python object) that :func:`_amaf_merge` OR-s into ``amaf`` when the playout ends."""
    if amaf is None:
        return zeros[:0]
    if NATIVE:
        return zeros[:]
    return amaf  # type: ignore[return-value]  # (indexed, OR-ed and assigned alike)


def _amaf_merge(amaf: bytearray | None, played: vec[i64]) -> None:
    """OR ``played`` into ``amaf`` byte by byte (compiled; in C, through two integers)."""
    if NATIVE and amaf is not None:
        # the low byte of every 8-byte item of the array's buffer (colour bits fit in it)
        low = bytes(played)[_LOW_BYTE::8]
        merged = int.from_bytes(amaf, "little") | int.from_bytes(low, "little")
        amaf[:] = merged.to_bytes(len(amaf), "little")


def _watch(
    h: i64,
    watch: vec[i64],
    watched: vec[i64],
    n: i64,
    lkey: vec[i64],
    csize: vec[i64],
    key2: i64,
    key5: i64,
) -> i64:
    """List chain ``h`` in ``watch[:n]`` if it may be in atari and is not listed; the new count."""
    lq: i64
    if not watched[h]:
        lq = lkey[h]
        if lq < key2 or (lq < key5 and csize[h] > 1):
            watched[h] = 1
            watch[n] = h
            n += 1
    return n


def _write_back(
    board: FastBoard, empties: vec[i64], to_move: int, passes: int, ko: int, last: int
) -> None:
    """Leave the board consistent so that a playout can be resumed or inspected."""
    board.empties = empties  # compiled, pop() and append() give back a new vec
    board.to_move = to_move
    board.passes = passes
    board.ko = ko
    board.ko_colour = to_move if ko else EMPTY
    board.last_move = last


def playout_default(
    board: FastBoard,
    rnd: Callable[[], float],
    max_moves: int = 0,
    amaf: bytearray | None = None,
    mercy: int = 0,
    ladders: bool = False,
    sacrifices: bool = True,
    replies: list[list[int]] | None = None,
    record: list[int] | None = None,
    nakade: bool = True,
    captures: bool = False,
) -> int:
    """MoGo-style playout: answer the last move locally, else play at random.

    After the opponent's move, in priority order: save our chains next to it
    that are in atari; capture opponent chains in atari at or around it; play a
    3x3 shape next to it; otherwise a random legal move that is not one of our
    true eyes.  A candidate that turns out illegal is dropped and another drawn.

    ``amaf``, when given (one byte per cell), gets the mover's colour bit
    (BLACK = 1, WHITE = 2) OR-ed in at every point played, and the first mover
    at the point in bits 2-3 (:data:`AMAF_FIRST`): the all-moves-as-first record
    RAVE needs.

    ``mercy`` (0: off): stop as soon as one side has that many more stones on
    the board than the other and return who (1 Black, -1 White); the search
    counts it as that side's win (the mercy rule: a game that lopsided is
    decided, and its last moves only fill in territory).

    ``ladders``: a chain in atari is not run out when the run leaves it two
    liberties and :func:`~engines.mcts.tactics.extension_dies` reads a ladder
    that kills it, neither to save it nor as a shape or a random move (the
    ``ladders`` policy).

    ``sacrifices`` (the default): a self-atari is still played when it risks at
    most three stones to put a bigger opponent chain in atari (off: the
    ``strict`` policy).

    ``replies`` (the ``lgrf`` policy, :class:`LastGoodReply`): when no chain
    next to the last move is in atari, the reply stored for the mover to that
    move, ``replies[colour][last]`` (0: none), is played before any shape if it
    is legal, not one of our eyes and not a refused self-atari.  ``record``
    gets every point played, PASS included, in order.

    ``nakade`` (on by default; off: the ``no-nakade`` policy): when no chain
    next to the last move is in atari, an empty region of three points next to
    it, bordered by the opponent's stones alone (an eye space the last move
    touches), has its vital point played before any shape
    (:func:`~engines.mcts.tactics.nakade_point`): the eye space cannot make two
    eyes.

    ``captures`` (the ``captures`` policy): when nothing answers the last move
    (no save, capture, nakade, reply or shape), capture an opponent chain in
    atari anywhere on the board, one at random, before a random move: MoGo's
    third rule (Gelly & Silver 2011, §3.5).  The chains that may be in atari
    are kept in a list as the playout goes (a chain only loses liberties to a
    stone played next to it), so nothing scans the board at every move.  At
    3,000 simulations it played no better than the default (66.5% against
    GNU Go over 200 games, the default 68.5%) and is about 6% slower.
    """
    # Machine integers where mypyc compiles this (the board's arrays hold i64);
    # interpreted, these declarations do nothing.
    c: i64
    o: i64
    ko: i64
    passes: i64
    last: i64
    moves_left: i64
    move: i64
    p: i64
    q: i64
    h: i64
    lq: i64
    lib: i64
    cq: i64
    i: i64
    k: i64
    kind: i64
    a: i64
    b: i64
    d: i64
    e: i64
    ca: i64
    cb: i64
    cd: i64
    ce: i64
    j: i64
    tail: i64
    hp: i64
    captured: i64
    big: i64
    small: i64
    s: i64
    t: i64
    r: i64
    cr: i64
    hr: i64
    lead: i64
    step: i64
    code: i64
    n: i64
    kp: i64
    ks: i64
    lk: i64
    v: i64
    color = board.color
    head = board.head
    nxt = board.nxt
    csize = board.csize
    lkey = board.lkey
    empties = board.empties
    epos = board.epos
    pat = board.pat
    geo = board.geo
    nb = geo.neighbours
    libkey = geo.libkey
    around = geo.around
    steps = geo.pattern_steps
    step_rows = geo.step_rows  # (read where compiled: see NATIVE)
    cells: i64 = geo.cells
    native = NATIVE  # (a local: interpreted, a fast load at every move)
    # At most 1 and at most 4 pseudo-liberties: ``lkey`` below these (keys compiled,
    # counts interpreted: see LIB_COUNT)
    key2: i64 = KEY_2 if native else 2
    key5: i64 = KEY_5 if native else 5
    shapes = pattern_table()
    eye_tables = true_eye_tables()
    kind_tables = random_move_tables()
    nakade_tables = nakade_entry_tables() if nakade else eye_tables  # (unread if not nakade)
    # (the tactics are called by their module-level names: the compiled core then
    # calls them directly, where a local alias would make every call a Python call)
    c = board.to_move
    ko = board.ko if board.ko_colour == c else 0
    passes = board.passes
    last = board.last_move
    moves_left = max_moves or geo.max_playout_moves
    n = len(empties)
    # The moves to choose from (``candidates[:ncand]``) and the shapes gathered next to
    # the last move (``shaped[:nshape]``): board-sized arrays filled up to a count, so
    # compiled no move is boxed.  Each holds distinct points of the board, but for one
    # extension per chain the last move put in atari (at most 4 repeats): fewer than
    # the cells, which count the border too.
    zeros = geo.zeros
    candidates = zeros[:]
    shaped = zeros[:]
    ncand: i64 = 0
    nshape: i64 = 0
    fast = rnd if isinstance(rnd, FastRandom) else None  # (drawn by a C call)
    # Per chain head, the move at which it was last asked about (a chain is asked
    # once a move, however many points it has next to the last move): marks in a
    # board array, not a list built every move
    asked = zeros[:]
    tick: i64 = 0
    played = _amaf_buffer(amaf, zeros)
    # The chains that may be in atari (``watch[:nwatch]``, a stone of each, marked in
    # ``watched``): every chain in atari is listed, with some that no longer are,
    # which the capture rule drops as it reads them.  Distinct points: fewer than the cells.
    watch = zeros[:]
    watched = zeros[:]
    nwatch: i64 = 0
    if captures:
        p = 0
        while p < cells:
            cq = color[p]
            if cq == 1 or cq == 2:
                nwatch = _watch(head[p], watch, watched, nwatch, lkey, csize, key2, key5)
            p += 1
    # Black's stones minus White's, for the mercy rule (0: not kept)
    lead = stone_lead(color) if mercy else 0
    while passes < 2 and moves_left:
        moves_left -= 1
        o = 3 - c
        eyes = eye_tables[c]
        kinds = kind_tables[c]
        nakade_entry = nakade_tables[c]
        move = 0
        if last:
            # A chain can only be in atari with at most 4 pseudo-liberties, and
            # a single stone is in atari exactly when it has one.
            # 1. our chains the last move put in atari
            for q in nb[last]:
                if color[q] == c:
                    h = head[q]
                    lq = lkey[h]  # (compared as its count: see LIB_COUNT)
                    if lq < key2 or (lq < key5 and csize[h] > 1):
                        lib = one_liberty(lq) if native else walk_liberty(h, color, nxt, nb)
                        if lib:
                            ncand = saving_moves(
                                h, lib, c, color, head, nxt, lkey, nb, candidates, ncand
                            )
                            if (
                                ladders
                                and holds(candidates, ncand, lib)
                                and liberties_after(lib, c, color, head, nxt, nb) == 2
                            ):
                                board.ko = ko  # the reader plays on copies of the board
                                board.empties = empties  # (compiled, a new vec since)
                                board.ko_colour = c
                                if extension_dies(board, h, lib):
                                    ncand = remove_first(candidates, ncand, lib)
                                    if not ko:
                                        # nor as a shape or at random: for this move only,
                                        # the run is refused as a ko point would be
                                        ko = lib
            # 2. opponent chains in atari at or around the last move, and
            # 3. (when there are none) shapes next to it, gathered in one pass
            if not ncand:
                h = head[last]
                lq = lkey[h]
                if lq < key2 or (lq < key5 and csize[h] > 1):
                    lib = one_liberty(lq) if native else walk_liberty(h, color, nxt, nb)
                    if lib:
                        candidates[ncand] = lib
                        ncand += 1
                tick += 1
                asked[h] = tick
                for q in around[last]:
                    cq = color[q]
                    if cq == o:
                        h = head[q]
                        if asked[h] == tick:
                            continue
                        asked[h] = tick
                        lq = lkey[h]
                        if lq < key2 or (lq < key5 and csize[h] > 1):
                            lib = one_liberty(lq) if native else walk_liberty(h, color, nxt, nb)
                            if lib and not holds(candidates, ncand, lib):
                                candidates[ncand] = lib
                                ncand += 1
                    elif not cq:
                        code = pat[q]
                        if shapes[code] and not eyes[code]:
                            shaped[nshape] = q
                            nshape += 1
                if not ncand and nakade:
                    for q in nb[last]:
                        if color[q]:
                            continue
                        # The region touches the last move, so it can only be the
                        # opponent's eye space: read it only where the 3x3 code allows.
                        if nakade_entry[pat[q]]:
                            r = nakade_point(q, color, nb)
                            if r and r != ko:
                                move = r  # next to both other points: legal, no self-atari
                                nshape = 0
                                break
                if not ncand and not move and replies is not None:
                    r = replies[c][last]
                    if r and r != ko and not color[r] and not eyes[pat[r]]:
                        ns = nb[r]  # indexed: unpacking a vec row would box it
                        a = ns[0]
                        b = ns[1]
                        d = ns[2]
                        e = ns[3]
                        if (not color[a]) + (not color[b]) + (not color[d]) + (
                            not color[e]
                        ) >= 2 or (
                            is_legal(r, c, ko, color, head, lkey, nb)
                            and (
                                not self_atari(r, c, color, head, nxt, lkey, csize, nb)
                                or (
                                    sacrifices
                                    and atari_sacrifice(r, c, color, head, nxt, csize, nb)
                                )
                            )
                        ):
                            move = r
                            nshape = 0
                if nshape:
                    if not ncand:
                        # the shapes become the candidates (and the other array the
                        # next move's shapes): no copy
                        candidates, shaped = shaped, candidates
                        ncand = nshape
                    nshape = 0
                if not ncand and not move and nwatch:
                    # 4. an opponent chain in atari anywhere: its liberty (our chains
                    # listed stay for the opponent's turn; the rest are dropped)
                    k = 0
                    while k < nwatch:
                        s = watch[k]
                        cq = color[s]
                        if cq == c:
                            k += 1
                            continue
                        if cq == o:
                            h = head[s]
                            lq = lkey[h]
                            if lq < key2 or (lq < key5 and csize[h] > 1):
                                lib = one_liberty(lq) if native else walk_liberty(h, color, nxt, nb)
                                if lib:
                                    if not holds(candidates, ncand, lib):
                                        candidates[ncand] = lib
                                        ncand += 1
                                    k += 1
                                    continue
                        watched[s] = 0
                        nwatch -= 1
                        watch[k] = watch[nwatch]
            while ncand:
                size = int(ncand)  # (an int local: compiled, the product stays native)
                i = int((fast.random() if fast is not None else rnd()) * size)
                p = candidates[i]
                ncand -= 1
                candidates[i] = candidates[ncand]  # the last one takes its place
                if p != ko and not color[p] and kinds[pat[p]] == 2:
                    move = p  # two empty neighbours: legal, and never a self-atari
                    ncand = 0
                elif is_legal(p, c, ko, color, head, lkey, nb) and (
                    not self_atari(p, c, color, head, nxt, lkey, csize, nb)
                    or (sacrifices and atari_sacrifice(p, c, color, head, nxt, csize, nb))
                ):
                    move = p
                    ncand = 0
        if not move and n:
            size = n  # (an int local: n is an i64 compiled, and float * i64 is no type)
            i = int((fast.random() if fast is not None else rnd()) * size)
            k = n
            while k:
                k -= 1
                p = empties[i]
                i += 1
                if i == n:
                    i = 0
                kind = kinds[pat[p]]
                if kind == 2:  # two empty neighbours: legal, and never a self-atari
                    if p != ko:
                        move = p
                        break
                    continue
                if not kind or p == ko:
                    continue  # our true eye, or the ko
                ns = nb[p]  # indexed: unpacking a vec row would box it
                a = ns[0]
                b = ns[1]
                d = ns[2]
                e = ns[3]
                ca = color[a]
                cb = color[b]
                cd = color[d]
                ce = color[e]
                if ca and cb and cd and ce:  # no empty neighbour
                    for q in nb[p]:  # (a, b, d, e), without building a tuple
                        cq = color[q]
                        if cq == 3:
                            continue
                        h = head[q]
                        lq = lkey[h]  # (compared as its count: see LIB_COUNT)
                        if (
                            lq >= key5
                        ):  # liberties besides p: a friend keeps one, an enemy is not taken
                            if cq == o:
                                continue
                            move = p
                            break
                        if lq < key2:
                            full = True
                        else:
                            full = (lq >> LIB_COUNT if native else lq) == (head[a] == h) + (
                                head[b] == h
                            ) + (head[d] == h) + (head[e] == h)
                        if (cq == o) == full:
                            move = p
                            break
                    if not move:
                        continue  # illegal
                # Legal with at most one empty neighbour: refuse to put a chain
                # of ours in atari (a lone stone may still be thrown in).
                if (
                    (ca == c or cb == c or cd == c or ce == c)
                    and self_atari(p, c, color, head, nxt, lkey, csize, nb)
                    and not (sacrifices and atari_sacrifice(p, c, color, head, nxt, csize, nb))
                ):
                    move = 0
                    continue
                move = p
                break
        if not move:
            passes += 1
            ko = 0
            c = o
            last = PASS
            if record is not None:
                record.append(PASS)
            continue
        passes = 0
        p = move
        last = p
        if record is not None:
            record.append(p)
        n -= 1
        j = epos[p]
        if native:  # a vec: pop() gives back the vec (the same buffer) and its last item
            empties, tail = pop(empties)
        else:
            tail = empties.pop()  # type: ignore[attr-defined]  # (a list interpreted)
        if tail != p:
            empties[j] = tail
            epos[tail] = j
        color[p] = c
        if amaf is not None:
            v = played[p]
            played[p] = v | c if v else c * 5  # (see AMAF_FIRST)
        head[p] = p
        nxt[p] = p
        csize[p] = 1
        if native:  # the same steps from a flat row: no tuple unpacked, nothing boxed
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
        lkey[p] = 0
        hp = p
        captured = 0
        for q in nb[p]:
            cq = color[q]
            if not cq:
                lk += libkey[q]
            elif cq == c:
                h = head[q]
                lkey[h] = lkey[h] - kp
                if h != hp:
                    # merge the smaller chain into the bigger one
                    if csize[h] >= csize[hp]:
                        big = h
                        small = hp
                    else:
                        big = hp
                        small = h
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
            elif cq == o:
                h = head[q]
                lkey[h] = lkey[h] - kp
                if not lkey[h]:
                    captured = 1  # remove it below, once every liberty is counted
        if captured:
            captured = 0
            for q in nb[p]:
                if color[q] == o and not lkey[head[q]]:
                    h = head[q]
                    taken = steps[o]
                    s = h
                    while True:
                        color[s] = EMPTY
                        epos[s] = n
                        if native:  # a vec: append() gives back the vec (the same buffer)
                            empties = append(empties, s)
                        else:
                            empties.append(s)  # type: ignore[attr-defined]
                        n += 1
                        if native:
                            row = step_rows[o * cells + s]
                            k = 0
                            while k < len(row):
                                r = row[k]
                                pat[r] = pat[r] - row[k + 1]
                                k += 2
                        else:
                            for r, step in taken[s]:
                                pat[r] = pat[r] - step
                        captured += 1
                        s = nxt[s]
                        if s == h:
                            break
                    s = h
                    while True:
                        ks = libkey[s]
                        for r in nb[s]:
                            cr = color[r]
                            if cr == 1 or cr == 2:
                                hr = head[r]
                                lkey[hr] = lkey[hr] + ks
                        t = nxt[s]
                        nxt[s] = s
                        head[s] = s
                        s = t
                        if s == h:
                            break
            lkey[hp] = lkey[hp] + lk
            if mercy:
                lead += captured if c == 1 else -captured
            if captured == 1 and hp == p and lkey[p] < key2:
                # a lone stone took a lone stone and has one liberty: ko
                for q in nb[p]:
                    if not color[q]:
                        ko = q
                        break
            else:
                ko = 0
        else:
            lkey[hp] = lkey[hp] + lk
            ko = 0
        if captures:
            # the chains that may have lost their second-last liberty: the opponent's
            # next to p, and p's own
            for q in nb[p]:
                if color[q] == o:
                    nwatch = _watch(head[q], watch, watched, nwatch, lkey, csize, key2, key5)
            nwatch = _watch(hp, watch, watched, nwatch, lkey, csize, key2, key5)
        c = o
        if mercy:
            lead += 1 if o == 2 else -1  # the stone just placed was not o's
            if lead >= mercy or lead <= -mercy:
                _write_back(board, empties, c, passes, ko, last)
                _amaf_merge(amaf, played)
                return 1 if lead > 0 else -1
    _write_back(board, empties, c, passes, ko, last)
    _amaf_merge(amaf, played)
    return 0


class LastGoodReply:
    """The ``lgrf`` policy: the default policy with last good replies, forgetting (LGRF-1).

    After Baier & Drake (2010), "The Power of Forgetting": every finished
    playout teaches, for each of its moves, the reply to the move before it.
    The winner's replies are stored (``replies[colour][previous] = reply``);
    a reply of the loser that is stored is forgotten.  The next playouts try
    the stored reply to the opponent's last move after the rules that answer
    ataris and before the shapes (see :func:`playout_default`).  The table
    belongs to one search (each process its own) and lasts from move to move,
    so it must be made per search: :func:`new_playout`.  The first recorded
    predecessor is the move that led to the playout's start (a tree move).
    """

    def __init__(self) -> None:
        self.replies: list[list[int]] = [[], [], []]  # by colour; index 0 unused
        self.moves: list[int] = []  # the last playout: its starting last move, then its moves
        self.first = EMPTY  # the colour of the last playout's first move

    def __call__(
        self,
        board: FastBoard,
        rnd: Callable[[], float],
        max_moves: int = 0,
        amaf: bytearray | None = None,
        mercy: int = 0,
    ) -> int:
        cells = board.geo.cells
        replies = self.replies
        if len(replies[1]) != cells:
            replies[1] = [0] * cells
            replies[2] = [0] * cells
        moves = self.moves
        moves.clear()
        moves.append(board.last_move)
        self.first = board.to_move
        return playout_default(board, rnd, max_moves, amaf, mercy, replies=replies, record=moves)

    def learn(self, black_result: float) -> None:
        """Store the winner's replies of the last playout and forget the loser's (jigo: neither)."""
        if black_result == 0.5 or self.first == EMPTY:
            return
        winner = 1 if black_result > 0.5 else 2
        replies = self.replies
        moves = self.moves
        c = self.first
        previous = moves[0]
        for i in range(1, len(moves)):
            move = moves[i]
            if previous and move:
                table = replies[c]
                if c == winner:
                    table[previous] = move
                elif table[previous] == move:
                    table[previous] = 0
            previous = move
            c = 3 - c
        self.first = EMPTY


def new_playout(name: str) -> Playout:
    """The playout policy called ``name``, with fresh state if it keeps any (``lgrf``)."""
    if name == "lgrf":
        return LastGoodReply()
    return PLAYOUTS[name]


def black_result(
    board: FastBoard,
    playout: Playout,
    rnd: Callable[[], float],
    komi: float,
    amaf: bytearray | None = None,
    mercy: int = 0,
) -> float:
    """Play ``board`` out (it is changed) and score it: 1 if Black won, 0 if White, 0.5 jigo.

    With ``mercy``, a playout is stopped once the stone lead reaches it, but
    never below the komi plus one stone (a lead the komi could undo is no lead).
    """
    if board.passes < 2:
        limit = max(mercy, int(abs(komi)) + 1) if mercy else 0
        early = playout(board, rnd, 0, amaf, limit)
        if early:
            result = 1.0 if early > 0 else 0.0
            if isinstance(playout, LastGoodReply):
                playout.learn(result)
            return result
    margin = score_terminal(board) - komi
    result = 1.0 if margin > 0 else 0.0 if margin < 0 else 0.5
    if isinstance(playout, LastGoodReply):
        playout.learn(result)
    return result


#: The default policy, except that it does not run a chain out into a ladder that kills it.
playout_ladders: Final[Playout] = functools.partial(playout_default, ladders=True)


#: The default policy, except that it refuses every self-atari of two or more stones,
#: even one that puts a bigger chain in atari (the default policy before 2026-11-27
#: refused them too, but had no nakade rule).
playout_strict: Final[Playout] = functools.partial(playout_default, sacrifices=False)


#: The default policy, except that it also captures a chain in atari anywhere on the
#: board when nothing answers the last move (MoGo's third rule).
playout_captures: Final[Playout] = functools.partial(playout_default, captures=True)


#: The default policy, except that it does not look for the vital point of a
#: three-point eye space (the default policy before 2026-11-28).
playout_no_nakade: Final[Playout] = functools.partial(playout_default, nakade=False)


PLAYOUTS: Final[dict[str, Playout]] = {
    "default": playout_default,
    "strict": playout_strict,
    "light": playout_light,
    "ladders": playout_ladders,
    "captures": playout_captures,
    "nakade": playout_default,  # the default's name while it was being measured
    "no-nakade": playout_no_nakade,
}
