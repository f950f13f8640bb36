"""Speed of the all-play-all statistics: 20 players, 20,000 results.

Measures, in one run (best of ``--repeat``, wall clock):

1. ``tally_pairings`` on 20,000 (player, opponent, score) results: the 20x20
   aggregation;
2. ``bradley_terry`` on that tally (Newton, 19x19 Cholesky, intervals);
3. ``pairing_stats`` for all 190 pairings (Wilson, Elo interval, LOS);
4. the reference: one bare Python loop over the same 20,000 results that only
   counts wins into a dict, the floor for anything that looks at every result.

Prints a table and, as the last line, ``RESULT {json}``.  The machine may be
shared: the numbers are noisy then, the ratios less so.

    python benchmarks/stats_speed.py [--players 20] [--results 20000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable

from arena.stats.elo import WDL, pairing_stats, score_from_elo
from arena.stats.ratings import bradley_terry, tally_pairings


def best_of(repeat: int, work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--results", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    rng = random.Random(5)
    players = [f"p{i}" for i in range(args.players)]
    strength = [rng.uniform(-400.0, 400.0) for _ in players]
    games: list[tuple[str, str, float | None]] = []
    for n in range(args.results):
        i, j = rng.sample(range(len(players)), 2)
        draw = rng.random()
        score = 1.0 if draw < score_from_elo(strength[i] - strength[j]) else 0.0
        games.append((players[i], players[j], None if n % 997 == 0 else score))

    def reference() -> None:
        wins: dict[tuple[str, str], int] = {}
        for player, opponent, score in games:
            if score == 1.0:
                wins[player, opponent] = wins.get((player, opponent), 0) + 1

    tally = tally_pairings(games)
    ratings = bradley_terry(players, tally)

    def all_pairings() -> None:
        for a in range(len(players)):
            for b in range(a + 1, len(players)):
                ab = tally.get((players[a], players[b]), WDL())
                ba = tally.get((players[b], players[a]), WDL())
                pairing_stats(ab + ba.swapped())

    figures = {
        "reference_loop_s": best_of(args.repeat, reference),
        "tally_s": best_of(args.repeat, lambda: tally_pairings(games)),
        "bradley_terry_s": best_of(args.repeat, lambda: bradley_terry(players, tally)),
        "pairing_stats_s": best_of(args.repeat, all_pairings),
    }
    figures["total_s"] = (
        figures["tally_s"] + figures["bradley_terry_s"] + figures["pairing_stats_s"]
    )
    reference_s = figures["reference_loop_s"]
    print(f"{args.players} players, {args.results} results, best of {args.repeat}")
    for name, seconds in figures.items():
        print(f"  {name:<18} {seconds * 1000:8.2f} ms   {seconds / reference_s:6.2f} x reference")
    print(f"  Newton iterations  {ratings.iterations}")
    print("RESULT " + json.dumps({**figures, "iterations": ratings.iterations}))


if __name__ == "__main__":
    main()
