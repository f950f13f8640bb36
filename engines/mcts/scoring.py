"""Stone statuses from ownership: which chains are alive, dead or in seki (pure).

The engine scores a position by searching it with ownership tracking on
(:attr:`~engines.mcts.search.Search.track_ownership`): for every point, the
share of playouts that ended with it in Black's area minus White's.  A chain
is dead when its points mostly end in the opponent's area, and in seki when
its fate is open and it shares an open liberty with an opponent chain in the
same state.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal

from engines.mcts.fastboard import BLACK, WHITE, FastBoard
from gtp.board import Board
from gtp.vertex import Point

STATUS_THRESHOLD: Final = 0.3  # |ownership| below this: the chain's fate is open

Status = Literal["alive", "dead", "seki"]


def classify_chains(board: FastBoard, ownership: dict[int, float]) -> dict[Point, Status]:
    """Alive, dead or seki for every stone, from per-point ownership (+1 Black, -1 White).

    Dead: the chain's points mostly end in the opponent's area.  Seki: a chain
    that is not dead shares a liberty with an opponent chain that is not dead
    either, and the playouts leave that liberty to nobody (neither side fills
    it: the playout policy refuses self-ataris).
    """
    geo = board.geo
    color = board.color
    verdict: dict[int, float] = {}  # chain head -> ownership from the chain's side
    heads: dict[int, list[int]] = {}
    for p in geo.points:
        c = color[p]
        if c in (BLACK, WHITE):
            heads.setdefault(board.head[p], []).append(p)
    for h, stones in heads.items():
        sign = 1.0 if color[h] == BLACK else -1.0
        verdict[h] = sign * sum(ownership.get(p, 0.0) for p in stones) / len(stones)
    living = {h for h, v in verdict.items() if v > -STATUS_THRESHOLD}
    result: dict[Point, Status] = {}
    for h, stones in heads.items():
        status: Status
        if h not in living:
            status = "dead"
        elif _shares_open_liberty(board, h, living, ownership):
            status = "seki"
        else:
            status = "alive"
        for p in stones:
            result[geo.point(p)] = status
    return result


def _shares_open_liberty(
    board: FastBoard, h: int, living: set[int], ownership: dict[int, float]
) -> bool:
    nb = board.geo.neighbours
    colour = board.color[h]
    for lib in board.liberties(h):
        if abs(ownership.get(lib, 0.0)) >= STATUS_THRESHOLD:
            continue
        for q in nb[lib]:
            if board.color[q] == 3 - colour and board.head[q] in living:
                return True
    return False


def chains_of(board: Board, points: Iterable[Point]) -> list[list[Point]]:
    """Group points into chains of the same colour, each sorted, in board order."""
    remaining = set(points)
    chains: list[list[Point]] = []
    for start in sorted(remaining, key=lambda p: (p[0], p[1])):
        if start not in remaining:
            continue
        colour = board.get(start)
        chain = [start]
        remaining.discard(start)
        for row, col in chain:
            for q in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
                if q in remaining and board.get(q) == colour:
                    remaining.discard(q)
                    chain.append(q)
        chains.append(sorted(chain))
    return chains
