"""Tactical questions about chains that the playouts and the priors ask (pure).

Owns the answers about chains: its one liberty when it is in atari, how many
liberties it has, whether a move is legal or a self-atari, which moves save a
chain in atari (moved here from the playout module so that the priors need no
private names of it), the vital point of a three-point eye space
(:func:`nakade_point`).  Each takes the board's lists (``color``, ``head``,
``nxt``, ``lkey``, ``csize`` of :class:`~engines.mcts.fastboard.FastBoard`)
rather than the board, because the playout loops hold them in local names
already and call these in their inner loop.  Compiled, whether a chain has
one liberty, and which, needs no walk: the board keeps per chain the count,
the sum and the sum of squares of its pseudo-liberties in one number (its
liberty key, see :data:`~engines.mcts.fastboard.LIB_COUNT`), and
:func:`one_liberty` reads the answer from it.  Interpreted, ``lkey`` holds
the count alone and the chains are walked (:func:`walk_liberty`): the
functions branch on :data:`~engines.mcts.fastboard.NATIVE`, with the same
answers.  Callers skip both where the count settles the question: a chain in
atari has at most four pseudo-liberties, and a lone stone has as many
pseudo-liberties as liberties.

(In 2026-11 the keys measured 6-7% slower than the walks in CPython, where
every addition to a key above 2 ** 30 allocates; compiled, faster.)

One question needs moves played: whether a chain in atari dies in a ladder
(:func:`ladder_caught`, :func:`extension_dies`), which the priors ask of
saving moves and ataris and the ``ladders`` playout policy of its saving
moves.  It reads on copies of a :class:`~engines.mcts.fastboard.FastBoard`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from librt.vecs import vec
from mypy_extensions import i64

from engines.mcts.fastboard import (
    KEY_2,
    KEY_5,
    KEY_9,
    LIB_COUNT,
    LIB_MASK,
    LIB_SHIFT,
    NATIVE,
    SQUARES_MASK,
    point_key,
)

if TYPE_CHECKING:
    from engines.mcts.fastboard import FastBoard


def one_liberty(key: i64) -> i64:
    """The one liberty of a chain whose liberty key is ``key`` (see
    :data:`~engines.mcts.fastboard.LIB_COUNT`); 0 if it has none or more than one.

    The n pseudo-liberties are all the same point exactly when n times the sum
    of their squares equals their sum squared (Cauchy-Schwarz); the point is
    then the sum over n.
    """
    n: i64
    total: i64
    if key < KEY_2:
        return key & LIB_MASK  # one pseudo-liberty (none: the key is 0)
    n = key >> LIB_COUNT
    total = key & LIB_MASK
    if n * (key >> LIB_SHIFT & SQUARES_MASK) == total * total:
        return total // n
    return 0


def lone_liberty(h: i64, color: vec[i64], nxt: vec[i64], lkey: vec[i64], nb: vec[vec[i64]]) -> i64:
    """The liberty of chain ``h`` if it has exactly one, else 0.

    Compiled, read from its liberty key (:func:`one_liberty`); interpreted, where
    ``lkey`` holds only counts (see :data:`~engines.mcts.fastboard.LIB_COUNT`),
    by a walk along the chain (:func:`walk_liberty`).
    """
    if NATIVE:
        return one_liberty(lkey[h])
    return walk_liberty(h, color, nxt, nb)


def walk_liberty(h: i64, color: vec[i64], nxt: vec[i64], nb: vec[vec[i64]]) -> i64:
    """The liberty of chain ``h`` if it has exactly one, else 0, by a walk along
    the chain (what the interpreted core asks: see :func:`lone_liberty`)."""
    lib: i64
    s: i64
    q: i64
    lib = 0
    s = h
    while True:
        for q in nb[s]:
            if not color[q] and q != lib:
                if lib:
                    return 0
                lib = q
        s = nxt[s]
        if s == h:
            return lib


def has_two_liberties(
    h: i64,
    color: vec[i64],
    head: vec[i64],
    nxt: vec[i64],
    lkey: vec[i64],
    nb: vec[vec[i64]],
    besides: i64,
) -> bool:
    """True if chain ``h`` has at least two liberties other than the empty point ``besides``.

    Compiled: without ``besides`` (as often as the chain has stones next to it)
    among its pseudo-liberties, the chain has two liberties unless what is left
    is one point.  Interpreted: a walk along the chain.
    """
    m: i64
    key: i64
    first: i64
    s: i64
    q: i64
    if NATIVE:
        ns = nb[besides]  # indexed: unpacking a vec row would box it
        m = (head[ns[0]] == h) + (head[ns[1]] == h) + (head[ns[2]] == h) + (head[ns[3]] == h)
        key = lkey[h] - m * point_key(besides)
        return key != 0 and not one_liberty(key)
    first = 0
    s = h
    while True:
        for q in nb[s]:
            if not color[q] and q != besides and q != first:
                if first:
                    return True
                first = q
        s = nxt[s]
        if s == h:
            return False


def is_legal(
    p: i64,
    c: i64,
    ko: i64,
    color: vec[i64],
    head: vec[i64],
    lkey: vec[i64],
    nb: vec[vec[i64]],
) -> bool:
    """Legality of an empty point ``p`` for ``c`` (ko and suicide)."""
    a: i64
    b: i64
    d: i64
    e: i64
    q: i64
    cq: i64
    h: i64
    lq: i64
    if p == ko or color[p]:
        return False
    ns = nb[p]  # indexed: unpacking a vec row would box it
    a = ns[0]
    b = ns[1]
    d = ns[2]
    e = ns[3]
    key5: i64 = KEY_5 if NATIVE else 5  # (keys compiled, counts interpreted: see LIB_COUNT)
    for q in nb[p]:  # (a, b, d, e), without building a tuple
        cq = color[q]
        if not cq:
            return True
        if cq == 3:
            continue
        h = head[q]
        lq = lkey[h]  # (compared as its count: see LIB_COUNT)
        if lq >= key5:  # liberties besides p: a friend keeps one, an enemy is not taken
            if cq == c:
                return True
            continue
        full = (lq >> LIB_COUNT if NATIVE else lq) == (head[a] == h) + (head[b] == h) + (
            head[d] == h
        ) + (head[e] == h)
        if (cq != c) == full:
            return True
    return False


def self_atari(
    p: i64,
    c: i64,
    color: vec[i64],
    head: vec[i64],
    nxt: vec[i64],
    lkey: vec[i64],
    csize: vec[i64],
    nb: vec[vec[i64]],
) -> bool:
    """True if ``c`` at ``p`` joins a chain left with one liberty and captures nothing.

    Compiled, the liberties are read from the keys; interpreted, where ``lkey``
    holds counts, the chains are walked (see :data:`~engines.mcts.fastboard.LIB_COUNT`).
    """
    o: i64
    q: i64
    cq: i64
    h: i64
    lq: i64
    s: i64
    r: i64
    lib: i64
    h1: i64
    h2: i64
    m: i64
    key: i64
    o = 3 - c
    lib = 0  # the one liberty seen so far (0: none): a second one means no atari
    if NATIVE:
        for q in nb[p]:
            cq = color[q]
            if not cq:
                if lib:
                    return False  # two empty neighbours
                lib = q
            elif cq == o:
                h = head[q]
                lq = lkey[h]  # (compared as its count: see LIB_COUNT)
                # a lone stone has as many pseudo-liberties as liberties
                if lq < KEY_2 or (lq < KEY_5 and csize[h] > 1 and one_liberty(lq) == p):
                    return False  # it captures: liberties come back
            elif cq == c and lkey[head[q]] >= KEY_9:
                return False  # at least three distinct liberties, so two besides p
    else:
        for q in nb[p]:
            cq = color[q]
            if not cq:
                if lib:
                    return False
                lib = q
            elif cq == o:
                h = head[q]
                lq = lkey[h]
                if lq == 1 or (lq <= 4 and csize[h] > 1 and walk_liberty(h, color, nxt, nb) == p):
                    return False
            elif cq == c and lkey[head[q]] > 8:
                return False
    joined = False
    # a chain met at several neighbours is asked once (asking again finds no
    # liberty the first time did not: each would have been ``lib`` or ended it)
    h1 = h2 = 0
    for q in nb[p]:
        if color[q] == c:
            joined = True
            h = head[q]
            if h in (h1, h2):
                continue
            if not h1:
                h1 = h
            else:
                h2 = h
            if NATIVE:
                # the chain's pseudo-liberties but p (as often as it has stones next to p)
                ns = nb[p]  # indexed: unpacking a vec row would box it
                m = (
                    (head[ns[0]] == h)
                    + (head[ns[1]] == h)
                    + (head[ns[2]] == h)
                    + (head[ns[3]] == h)
                )
                key = lkey[h] - m * point_key(p)
                if key:
                    r = one_liberty(key)
                    if not r:
                        return False  # two liberties besides p
                    if r != lib:
                        if lib:
                            return False
                        lib = r
            else:
                s = h
                while True:
                    for r in nb[s]:
                        if not color[r] and r != p and r != lib:
                            if lib:
                                return False
                            lib = r
                    s = nxt[s]
                    if s == h:
                        break
    return joined


#: The most stones :func:`atari_sacrifice` risks.
SACRIFICE_STONES: Final = 3


def atari_sacrifice(
    p: i64,
    c: i64,
    color: vec[i64],
    head: vec[i64],
    nxt: vec[i64],
    csize: vec[i64],
    nb: vec[vec[i64]],
) -> bool:
    """True if ``c`` at ``p`` risks at most three stones (``p`` and the chains it
    joins) to put a neighbouring opponent chain with more stones in atari.

    Asked of a self-atari: such a sacrifice can win a capturing race or kill a
    group (a throw-in that takes a liberty the opponent needs), so it is not
    refused the way a plain self-atari is.  Capturing three stones or fewer
    gives the opponent's chain at most three liberties back, so the fight goes
    on; filling a shared liberty of a seki's bigger inner chain is still
    refused, since its capture would leave the opponent an eye space to live in.
    """
    o: i64
    own: i64
    q: i64
    h: i64
    o = 3 - c
    own = 1
    seen: list[int] = []
    for q in nb[p]:
        if color[q] == c:
            h = head[q]
            if h not in seen:
                seen.append(h)
                own += csize[h]
    if own > SACRIFICE_STONES:
        return False
    for q in nb[p]:
        if color[q] == o:
            h = head[q]
            if csize[h] > own and h not in seen:
                seen.append(h)
                if liberty_count(h, color, nxt, nb, 3) == 2:
                    return True
    return False


def saving_moves(
    h: i64,
    lib: i64,
    c: i64,
    color: vec[i64],
    head: vec[i64],
    nxt: vec[i64],
    lkey: vec[i64],
    nb: vec[vec[i64]],
    out: vec[i64],
    n: i64,
) -> i64:
    """Moves that save our chain ``h`` in atari at ``lib``: captures, then a useful extension.

    They are written to ``out`` from index ``n`` on (``out[:n]`` holds the moves
    found so far: see :func:`holds`); returns the new count.
    """
    o: i64
    s: i64
    q: i64
    hq: i64
    their: i64
    gained: i64
    cq: i64
    asked: i64
    o = 3 - c
    # A chain touches ours at many stones.  Compiled, asking it again (O(1): see
    # one_liberty) finds the liberty already in ``out``, so only the last chain
    # asked is skipped; interpreted, where asking is a walk, every chain asked is:
    # the first in ``asked``, the others in a list made only when there are others.
    asked = 0
    seen: list[int] | None = None
    s = h
    if NATIVE:
        while True:
            for q in nb[s]:
                if color[q] == o:
                    hq = head[q]
                    if hq != asked and lkey[hq] < KEY_5:
                        asked = hq
                        their = one_liberty(lkey[hq])
                        if their and not holds(out, n, their):
                            out[n] = their
                            n += 1
            s = nxt[s]
            if s == h:
                break
    else:
        while True:
            for q in nb[s]:
                if color[q] == o:
                    hq = head[q]
                    if lkey[hq] <= 4 and hq != asked:
                        if not asked:
                            asked = hq
                        elif seen is None:
                            seen = [hq]
                        elif hq in seen:
                            continue
                        else:
                            seen.append(hq)
                        their = walk_liberty(hq, color, nxt, nb)
                        if their and not holds(out, n, their):
                            out[n] = their
                            n += 1
            s = nxt[s]
            if s == h:
                break
    # Extending at the liberty helps when it leaves at least two liberties.
    gained = 0
    for q in nb[lib]:
        cq = color[q]
        if not cq:
            gained += 1
        elif (
            cq == c and head[q] != h and has_two_liberties(head[q], color, head, nxt, lkey, nb, lib)
        ):
            gained += 2
    if gained >= 2:
        out[n] = lib
        n += 1
    return n


def holds(moves: vec[i64], n: i64, p: i64) -> bool:
    """Whether ``p`` is among the first ``n`` items of ``moves`` (a list filled up to ``n``)."""
    k: i64
    for k in range(n):  # noqa: SIM110  (compiled: a loop over machine integers)
        if moves[k] == p:
            return True
    return False


def remove_first(moves: vec[i64], n: i64, p: i64) -> i64:
    """Remove the first ``p`` from ``moves[:n]``, the rest moved up in order; the new count."""
    k: i64
    for k in range(n):
        if moves[k] == p:
            while k < n - 1:
                moves[k] = moves[k + 1]
                k += 1
            return n - 1
    return n


def liberties_after(
    p: i64,
    c: i64,
    color: vec[i64],
    head: vec[i64],
    nxt: vec[i64],
    nb: vec[vec[i64]],
    limit: i64 = 3,
) -> i64:
    """Liberties (up to ``limit``) of the chain ``c`` would form at ``p``, ignoring captures."""
    q: i64
    h: i64
    s: i64
    r: i64
    libs: list[int] = [q for q in nb[p] if not color[q]]
    seen: set[int] = set()
    for q in nb[p]:
        if color[q] == c and head[q] not in seen:
            h = head[q]
            seen.add(h)
            s = h
            while True:
                for r in nb[s]:
                    if not color[r] and r != p and r not in libs:
                        libs.append(r)
                s = nxt[s]
                if s == h:
                    break
        if len(libs) >= limit:  # (no point twice: the first list is of distinct points)
            return limit
    return len(libs)


def liberty_count(h: i64, color: vec[i64], nxt: vec[i64], nb: vec[vec[i64]], limit: i64) -> i64:
    """Distinct liberties of chain ``h``, counting no further than ``limit``."""
    s: i64
    q: i64
    found: list[int] = []
    s = h
    while True:
        for q in nb[s]:
            if not color[q] and q not in found:
                found.append(q)
                if len(found) >= limit:
                    return limit
        s = nxt[s]
        if s == h:
            return len(found)


def nakade_point(p: i64, color: vec[i64], nb: vec[vec[i64]]) -> i64:
    """The vital point of the eye space through empty point ``p``, if it is one of three.

    An eye space here is a region of exactly three empty points whose stones
    around are all of one colour (the edge aside): its vital point, the one
    next to both others, makes two eyes for the owner or kills (nakade) for the
    other side.  Returns 0 for a bigger or smaller region or one bordered by
    both colours.  (Written out for the two ways ``p`` can sit in three points,
    as the middle or at an end: the playout asks it often.)
    """
    first: i64
    second: i64
    border: i64
    q: i64
    cq: i64
    end: i64
    first = second = border = 0
    for q in nb[p]:
        cq = color[q]
        if not cq:
            if second:
                return 0
            if first:
                second = q
            else:
                first = q
        elif cq != 3:
            if border and cq != border:
                return 0
            border = cq
    if not first:
        return 0
    if second:
        # p in the middle: neither end may have another empty neighbour
        border = _end_border(first, p, border, color, nb)
        if border >= 0:
            border = _end_border(second, p, border, color, nb)
        return p if border > 0 else 0
    # p at an end: ``first`` is the middle, with exactly one more empty neighbour
    end = 0
    for q in nb[first]:
        cq = color[q]
        if not cq:
            if q != p:
                if end:
                    return 0
                end = q
        elif cq != 3:
            if border and cq != border:
                return 0
            border = cq
    if not end:
        return 0
    return first if _end_border(end, first, border, color, nb) > 0 else 0


def _end_border(x: i64, inner: i64, border: i64, color: vec[i64], nb: vec[vec[i64]]) -> i64:
    """The region's bordering colour after adding end point ``x`` (next to ``inner``).

    -1 if ``x`` has an empty neighbour besides ``inner`` or a stone of the
    other colour than ``border`` (0: none seen yet) next to it.
    """
    q: i64
    cq: i64
    for q in nb[x]:
        cq = color[q]
        if not cq:
            if q != inner:
                return -1
        elif cq != 3:
            if border and cq != border:
                return -1
            border = cq
    return border


#: How many ataris a ladder may take before the reader gives up (calls it an escape).
#: A ladder on 19x19 runs at most about 36 ataris corner to corner.
LADDER_DEPTH: Final = 40


def ladder_caught(board: FastBoard, p: i64) -> bool:
    """True if the chain through ``p``, in atari, dies in a ladder with its owner to move.

    The owner escapes if it can capture a neighbouring chain in atari (the
    reader does not look further: any such capture counts as an escape), or if
    extending at its liberty leaves three or more liberties.  Left with two,
    the attacker tries an atari at each (one that can be captured straight back
    does not count), and so on.  Reads on copies; ``board`` is unchanged.
    """
    h = board.head[p]
    lib = lone_liberty(h, board.color, board.nxt, board.lkey, board.geo.neighbours)
    if not lib or _captures_out(board, h):
        return False
    return _extension_dies(board, h, lib, LADDER_DEPTH)


def extension_dies(board: FastBoard, p: i64, lib: i64) -> bool:
    """True if the chain through ``p`` extending at its lone liberty ``lib`` dies in a ladder.

    The question a saving move asks: unlike :func:`ladder_caught`, captures the
    owner could make instead do not count, since the move asked about is the
    extension.
    """
    return _extension_dies(board, board.head[p], lib, LADDER_DEPTH)


def _captures_out(board: FastBoard, h: i64) -> bool:
    """True if chain ``h`` touches an opponent chain in atari."""
    color, head, nxt, lkey = board.color, board.head, board.nxt, board.lkey
    nb = board.geo.neighbours
    a = 3 - color[h]
    s = h
    while True:
        for q in nb[s]:
            if (
                color[q] == a
                and lkey[head[q]] < (KEY_5 if NATIVE else 5)
                and lone_liberty(head[q], color, nxt, lkey, nb)
            ):
                return True
        s = nxt[s]
        if s == h:
            return False


def _extension_dies(board: FastBoard, h: i64, lib: i64, depth: i64) -> bool:
    nb = board.geo.neighbours
    d = board.color[h]
    a = 3 - d
    if depth <= 0:
        return False
    ko = board.ko if board.ko_colour == d else 0
    color, head, nxt = board.color, board.head, board.nxt
    if not is_legal(lib, d, ko, color, head, board.lkey, nb):
        return True
    if liberties_after(lib, d, color, head, nxt, nb) == 3:
        return False  # three liberties without counting captures: no copy needed to see it
    after = board.copy()
    after.play_known(lib, d)
    libs = after.liberties(lib, 3)
    if len(libs) != 2:
        return len(libs) < 2
    for i, x in enumerate(libs):
        ko = after.ko if after.ko_colour == a else 0
        if not is_legal(x, a, ko, after.color, after.head, after.lkey, nb):
            continue
        # after the atari at x the chain runs at the other liberty: three or more
        # liberties there besides x (captures only add more) and it escapes
        y = libs[1 - i]
        color, head, nxt = after.color, after.head, after.nxt
        if liberties_after(y, d, color, head, nxt, nb, 4) == 4:
            continue
        if liberties_after(x, a, color, head, nxt, nb, 2) < 2 and not any(
            color[q] == d and lone_liberty(head[q], color, nxt, after.lkey, nb) == x for q in nb[x]
        ):
            continue  # the attacking stone, capturing nothing, could be taken at once
        # the last atari to try is played on ``after`` itself: nothing needs it afterwards
        attack = after.copy() if i == 0 else after
        attack.play_known(x, a)
        hd = attack.head[lib]
        rest = lone_liberty(hd, attack.color, attack.nxt, attack.lkey, nb)
        if rest and not _captures_out(attack, hd) and _extension_dies(attack, hd, rest, depth - 1):
            return True
    return False
