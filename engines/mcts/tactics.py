"""Tactical questions about chains that the playouts and the priors ask (pure).

Owns the answers that need more than one look at a chain: its liberties
besides a point, whether a move is a self-atari, which moves save a chain in
atari.  Each takes the board's lists (``color``, ``head``, ``nxt``, ``plib``,
``lsum``, ``lsq`` of :class:`~engines.mcts.fastboard.FastBoard`) rather than
the board, because the playout loops hold them in local names already and
call these in their inner loop.  The common cases are settled in O(1) from the
pseudo-liberty sums (a chain is in atari at ``p`` exactly when all its
pseudo-liberties are ``p``); only the rare ones walk a chain.
"""

from __future__ import annotations


def atari_liberty(h: int, plib: list[int], lsum: list[int], lsq: list[int]) -> int:
    """The one liberty of chain ``h`` (a head) if it is in atari, else 0."""
    n = plib[h]
    total = lsum[h]
    if n and total * total == n * lsq[h]:
        return total // n
    return 0


def liberties_besides(
    h: int, besides: int, enough: int, color: list[int], nxt: list[int],
    nb: list[tuple[int, ...]], found: list[int],
) -> bool:
    """Add chain ``h``'s liberties other than ``besides`` to ``found`` (distinct);
    True as soon as ``found`` holds ``enough`` of them."""
    s = h
    while True:
        for q in nb[s]:
            if not color[q] and q != besides and q not in found:
                found.append(q)
                if len(found) >= enough:
                    return True
        s = nxt[s]
        if s == h:
            return False


def self_atari(
    p: int, c: int, color: list[int], head: list[int], nxt: list[int], plib: list[int],
    lsum: list[int], lsq: list[int], nb: list[tuple[int, ...]],
) -> bool:
    """True if ``c`` at the empty ``p`` joins a chain of its own that is left with one
    liberty, capturing nothing (a lone stone thrown in is not a self-atari here)."""
    o = 3 - c
    libs: list[int] = []
    friends: list[int] = []
    pp = p * p
    for q in nb[p]:
        cq = color[q]
        if not cq:
            libs.append(q)
        elif cq == c:
            h = head[q]
            if plib[h] > 8:
                return False  # at least three distinct liberties, so two besides p
            if h not in friends:
                friends.append(h)
        elif cq == o:
            h = head[q]
            n = plib[h]
            if lsum[h] == n * p and lsq[h] == n * pp:
                return False  # it captures: liberties come back
    if not friends or len(libs) >= 2:
        return False
    return not any(liberties_besides(h, p, 2, color, nxt, nb, libs) for h in friends)


def saving_moves(
    h: int, lib: int, c: int, color: list[int], head: list[int], nxt: list[int],
    plib: list[int], lsum: list[int], lsq: list[int], nb: list[tuple[int, ...]],
    out: list[int],
) -> None:
    """Append the moves that save our chain ``h`` in atari at ``lib``: captures of the
    chains in atari around it, then the extension at ``lib`` when that gains liberties."""
    o = 3 - c
    s = h
    while True:
        for q in nb[s]:
            if color[q] == o:
                hq = head[q]
                n = plib[hq]
                if n <= 4:
                    total = lsum[hq]
                    if total * total == n * lsq[hq]:
                        their = total // n
                        if their not in out:
                            out.append(their)
        s = nxt[s]
        if s == h:
            break
    # Extending at the liberty helps when it leaves at least two liberties.
    gained = 0
    for q in nb[lib]:
        cq = color[q]
        if not cq:
            gained += 1
        elif cq == c:
            hq = head[q]
            if hq != h and liberties_besides(hq, lib, 2, color, nxt, nb, []):
                gained += 2
    if gained >= 2:
        out.append(lib)


def liberty_count(
    h: int, color: list[int], nxt: list[int], nb: list[tuple[int, ...]], limit: int
) -> int:
    """Distinct liberties of chain ``h``, counting no further than ``limit``."""
    found: list[int] = []
    liberties_besides(h, 0, limit, color, nxt, nb, found)
    return len(found)
