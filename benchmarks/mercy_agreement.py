"""Does the mercy rule change what a playout says?  And what does it save?

The sample engine can stop a playout as soon as one side leads by ``--mercy``
stones and count it as that side's win (``engines.mcts.policy.black_result``).
That is only a speed-up if the stopped playouts would have ended the same way.
This script plays seeded default-policy playouts from the empty 9x9 board and
from the midgame of ``../shared/bench/midgame_9x9_30moves.txt`` with the rule at
several leads; every playout the rule stops is then played on to its end from
where it stopped, with the same random stream (the board and the generator are
both where the stopped playout left them, so the finished playout is exactly
the one the engine would have played without the rule), and scored with komi
7.5.  It reports, per lead: the share of playouts stopped, and the share of all
playouts whose verdict the rule changed.  Then it measures the engine's default
search (tree included, one process, CPU time) with each lead against the rule
off, interleaved in batches, as ``engine_speed.py`` measures speeds.

Usage: python benchmarks/mercy_agreement.py [--playouts 4000] [--leads 15,20,25,30]
                                            [--seconds 4]

The last line is ``RESULT {json}``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from engine_speed import KOMI, fast_midgame  # the same midgame, found the same way

from engines.mcts.fastboard import NATIVE, FastBoard, score_terminal
from engines.mcts.policy import playout_default
from engines.mcts.search import Search, SearchConfig


def agreement(position: FastBoard, lead: int, playouts: int) -> dict[str, float]:
    """Shares of playouts the rule stops, and of all playouts whose verdict it changes."""
    limit = max(lead, int(KOMI) + 1)  # as black_result sets it
    stopped = changed = 0
    for seed in range(playouts):
        board = position.copy()
        rnd = random.Random(seed).random
        early = playout_default(board, rnd, 0, None, limit)
        if not early:
            continue
        stopped += 1
        playout_default(board, rnd, 0, None, 0)  # on to the end, the same stream
        margin = score_terminal(board) - KOMI
        if (margin > 0) != (early > 0):
            changed += 1
    return {"stopped": stopped / playouts, "changed": changed / playouts}


def speeds(position: FastBoard, leads: list[int], seconds: float) -> dict[int, float]:
    """Simulations per second with each lead over the rule off (0), interleaved batches."""
    searches = {}
    for lead in (0, *leads):
        search = Search(SearchConfig(mercy=lead), 1)
        search.set_position(position, KOMI)
        searches[lead] = search
    done = dict.fromkeys(searches, 0)
    spent = dict.fromkeys(searches, 0.0)
    end = time.process_time() + seconds * len(searches)
    while time.process_time() < end:
        for lead, search in searches.items():
            start = time.process_time()
            done[lead] += search.simulate(100)
            spent[lead] += time.process_time() - start
    base = done[0] / spent[0]
    return {lead: done[lead] / spent[lead] / base for lead in leads}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--playouts", type=int, default=4000)
    parser.add_argument("--leads", default="15,20,25,30")
    parser.add_argument("--seconds", type=float, default=4.0)
    args = parser.parse_args()
    leads = [int(word) for word in args.leads.split(",")]
    result: dict[str, object] = {"core": "compiled" if NATIVE else "pure"}
    for name, position in (("empty", FastBoard(9)), ("midgame", fast_midgame())):
        ratios = speeds(position, leads, args.seconds)
        for lead in leads:
            shares = agreement(position, lead, args.playouts)
            print(
                f"{name:8} lead {lead:3}: {100 * shares['stopped']:5.1f}% of playouts stopped,"
                f" {100 * shares['changed']:.2f}% changed their verdict;"
                f" {ratios[lead]:.3f}x the simulations a second",
                flush=True,
            )
            result[f"{name}_{lead}"] = {
                "stopped": round(shares["stopped"], 4),
                "changed": round(shares["changed"], 4),
                "speed_ratio": round(ratios[lead], 3),
            }
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
