"""Seeded playouts and searches, fingerprinted, to compare the engine's two cores.

``python -m tests.engines.core_fingerprints`` prints, as one JSON object, the
core this process runs (:func:`engines.mcts.core.core_name`) and the
fingerprints of :func:`fingerprints`; ``test_mcts_core.py`` runs it under
``ARENA_MCTS_PURE=1`` and compares with the same figures computed in the test
process, which runs the compiled core where it is built.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Callable

from engines.mcts.core import core_name
from engines.mcts.fastboard import FastBoard
from engines.mcts.policy import (
    POLICY_NAMES,
    FastRandom,
    LastGoodReply,
    black_result,
    new_playout,
)
from engines.mcts.search import Search, SearchConfig

KOMI = 7.5
#: A 9x9 midgame position (the one of benchmarks/engine_speed.py), Black first.
MIDGAME = (
    "G6 C7 E7 G3 C4 D6 E3 H5 H6 D8 H4 H3 G5 F8 H8 F2 E2 B5 B4 F4 F3 G1 G4 H2 E6 A4 A3 A5 B2 C5"
)


def midgame() -> FastBoard:
    board = FastBoard(9)
    for word in MIDGAME.split():
        col = "ABCDEFGHJ".index(word[0])
        board.play(board.geo.index((int(word[1:]) - 1, col)))
    return board


def positions() -> dict[str, FastBoard]:
    return {"empty": FastBoard(9), "midgame": midgame()}


def _counting(rnd: Callable[[], float]) -> tuple[Callable[[], float], list[int]]:
    draws = [0]

    def counted() -> float:
        draws[0] += 1
        return rnd()

    return counted, draws


def playout_fingerprint(
    board: FastBoard, policy: str, playouts: int, seed: int, fast: bool = False
) -> str:
    """SHA-256 over ``playouts`` seeded playouts from ``board``: every move, final position,
    result and random draw count (the moves as the playout records them where it can:
    ``lgrf``; else the points each colour played and the final position).  ``fast``: the
    playouts draw from a :class:`FastRandom` (the search's way, compiled), and the draw
    count is its place in the stream."""
    digest = hashlib.sha256()
    playout = new_playout(policy)
    rnd, draws = _counting(random.Random(seed).random)
    if fast:
        stream = FastRandom(random.Random(seed))
        rnd, draws = stream, [0]
    for i in range(playouts):
        copy = board.copy()
        amaf = bytearray(copy.geo.cells)
        mercy = 30 if i % 4 == 3 else 0  # a quarter of them stopped by the mercy rule
        result = black_result(copy, playout, rnd, KOMI, amaf, mercy)
        if fast:  # where the stream is: the word it reads next, and the first of its state
            draws[0] = int(stream.index) * 2**32 + int(stream.state[0])
        moves = playout.moves if isinstance(playout, LastGoodReply) else []
        digest.update(
            repr(
                (
                    result,
                    draws[0],
                    moves,
                    list(copy.color),  # a list in either core (compiled: a vec)
                    list(copy.pat) if policy != "light" else None,
                    copy.hash,
                    copy.to_move,
                    copy.passes,
                    copy.ko,
                    copy.last_move,
                    bytes(amaf),
                )
            ).encode()
        )
    return digest.hexdigest()


def search_fingerprint(board: FastBoard, config: SearchConfig, simulations: int, seed: int) -> str:
    """The root statistics, principal variation and decision of a seeded search."""
    search = Search(config, seed)
    search.set_position(board, KOMI)
    search.simulate(simulations)
    return repr(
        (
            search.root_stats(),
            search.principal_variation(),
            search.decide(),
            search.node_count(),
        )
    )


def fingerprints(playouts: int = 1000, simulations: int = 300) -> dict[str, str]:
    """Per policy and position: the playouts' fingerprint; per position, two searches'."""
    out: dict[str, str] = {}
    for pos, board in positions().items():
        for policy in POLICY_NAMES:
            out[f"{pos}/{policy}"] = playout_fingerprint(board, policy, playouts, seed=17)
        out[f"{pos}/default, FastRandom"] = playout_fingerprint(
            board, "default", playouts, seed=19, fast=True
        )
        out[f"{pos}/search default"] = search_fingerprint(board, SearchConfig(), simulations, 5)
        # PUCT's root noise: drawn by random.Random's gammavariate, the stream handed over
        out[f"{pos}/search puct"] = search_fingerprint(
            board, SearchConfig(selection="puct", noise_fraction=0.25), simulations, 7
        )
        out[f"{pos}/search graph"] = search_fingerprint(
            board, SearchConfig(structure="graph", policy="lgrf"), simulations, 6
        )
    return out


def main() -> int:
    playouts = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print(json.dumps({"core": core_name(), "fingerprints": fingerprints(playouts)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
