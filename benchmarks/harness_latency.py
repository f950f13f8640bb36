"""The arena's own latency: from an engine's response to the next command of its game.

N games at once (N = 8, 32, 64; 9x9, 62-move games) between instant engines
(``benchmarks/instant_engine.py``) that note on CLOCK_MONOTONIC when each
response was flushed and when each command line arrived.  Both engines of a
slot write to the same clock, so merging a slot's notes gives its timeline:
each response is followed by the next command the arena sent in that game
(to either engine), and the gap between them is time the arena (and the
machine's scheduler) took: reading the response, refereeing, writing the next
command, and the engine being woken to read it.  Gaps that span an engine
start (the first command a new engine reads) or follow a ``quit`` are left out.

The figures in RESULT are the steady state: engines kept between games
(``reuse_engines``), and only the gaps that began after the last engine of
the run read its first command.  Starting 2N Python interpreters at once
saturates both cores for a second or more, which says nothing about the
arena; the gaps of that start, and runs with new engines for every game
(``--new-engines``), are printed too.

Also, as ``benchmarks/arena_overhead.py`` measures them: games/s with reused
instant engines (62-move 9x9 games, -j 2) and the arena's CPU per 62-move 9x9
game with new engines (this process only, engines excluded, startup included).

Usage: python benchmarks/harness_latency.py [--quick] [--new-engines] [--slots 8,32,64]

The last line is ``RESULT {json}`` with latency_p50_ms_N, latency_p99_ms_N and
latency_max_ms_N for each N, games_per_s_reuse_9x9 and cpu_ms_per_game_9x9.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path

import trio
from arena_overhead import cpu_seconds, run_games, write_ctl  # this script's folder

from arena.control.loader import load_control_file
from arena.run.ringmaster import RunOptions, run_competition


def slot_latencies(directory: Path) -> tuple[list[float], list[float]]:
    """Every response-to-next-command gap (ms) in the engines' notes, all slots.

    Also the gaps of the steady state: those that began after the last engine
    of the run read its first command (so none overlaps an engine start).
    """
    by_slot: dict[str, list[tuple[int, str, str]]] = {}
    first_reads: list[int] = []
    for path in directory.glob("*.times"):
        slot, pid = path.stem.split("-")
        notes = by_slot.setdefault(slot, [])
        words = path.read_text().split()
        first_reads.append(int(words[1]))
        for kind, stamp in zip(words[::2], words[1::2], strict=True):
            notes.append((int(stamp), kind, pid))
    last_start = max(first_reads)
    gaps: list[float] = []
    steady: list[float] = []
    for notes in by_slot.values():
        notes.sort()
        sent_at: int | None = None
        seen: set[str] = set()
        for stamp, kind, pid in notes:
            if kind == "r":
                if sent_at is not None and pid in seen:
                    gaps.append((stamp - sent_at) / 1e6)
                    if sent_at > last_start:
                        steady.append(gaps[-1])
                sent_at = None
                seen.add(pid)
            elif kind == "s":
                sent_at = stamp
            else:  # q: the engine is going away
                sent_at = None
    return gaps, steady


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def latency_run(directory: Path, slots: int, games: int, reuse: bool) -> dict[str, float]:
    times = directory / f"times{slots}"
    times.mkdir(parents=True)
    os.environ["ARENA_BENCH_TIMES"] = str(times)
    try:
        config = load_control_file(write_ctl(directory, f"lat{slots}", 9, games, reuse))
        options = RunOptions(parallel=slots, keyboard=False, handle_signals=False)
        cpu_before, wall_before = cpu_seconds(), time.perf_counter()
        summary = trio.run(partial(run_competition, config, options))
        cpu, wall = cpu_seconds() - cpu_before, time.perf_counter() - wall_before
    finally:
        del os.environ["ARENA_BENCH_TIMES"]
    assert summary.games_recorded == games, summary
    gaps, steady = slot_latencies(times)
    run = {
        "slots": slots,
        "games": games,
        "games_per_s": games / wall,
        "cpu_ms_per_game": 1000 * cpu / games,
    }
    for name, values in (("all", gaps), ("steady", steady)):
        run[f"{name}_gaps"] = len(values)
        if values:
            run[f"{name}_p50"] = statistics.median(values)
            run[f"{name}_p99"] = percentile(values, 0.99)
            run[f"{name}_max"] = max(values)
    return run


def describe(run: dict[str, float], name: str) -> str:
    if not run[f"{name}_gaps"]:
        return "no gaps"
    return (
        f"p50 {run[f'{name}_p50']:6.3f}  p99 {run[f'{name}_p99']:7.3f}"
        f"  max {run[f'{name}_max']:8.3f} ms ({run[f'{name}_gaps']:.0f} gaps)"
    )


def latency_runs(
    directory: Path, slot_counts: list[int], games_per_slot: int, reuse: bool
) -> dict[int, dict[str, float]]:
    engines = "engines kept between games" if reuse else "new engines for every game"
    print(f"response-to-next-command latency, 9x9 62-move games, {engines}:")
    runs = {}
    for slots in slot_counts:
        run = latency_run(directory, slots, slots * games_per_slot, reuse)
        print(
            f"  N={slots:3d}: {run['games']:.0f} games, {run['games_per_s']:.1f} games/s,"
            f" {run['cpu_ms_per_game']:.2f} ms CPU/game\n"
            f"     every gap : {describe(run, 'all')}\n"
            f"     steady    : {describe(run, 'steady')}"
        )
        runs[slots] = run
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer games (a smoke run)")
    parser.add_argument(
        "--new-engines", action="store_true", help="also measure with new engines for every game"
    )
    parser.add_argument(
        "--games-per-slot", type=int, default=6, help="games each slot plays (default 6)"
    )
    parser.add_argument("--slots", default="8,32,64", help="the N to measure (default 8,32,64)")
    options = parser.parse_args()
    slot_counts = [int(word) for word in options.slots.split(",")]
    games_per_slot = 2 if options.quick else options.games_per_slot
    result: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        runs = latency_runs(directory, slot_counts, games_per_slot, reuse=True)
        for slots, run in runs.items():
            for key in ("p50", "p99", "max"):
                result[f"latency_{key}_ms_{slots}"] = round(run[f"steady_{key}"], 3)
        if options.new_engines:
            latency_runs(directory / "new", slot_counts, games_per_slot, reuse=False)
        scale = 0.25 if options.quick else 1.0
        reuse = run_games(directory, "reuse9", 9, max(4, int(400 * scale)), reuse=True)
        plain = run_games(directory, "plain9", 9, max(4, int(100 * scale)), reuse=False)
    print(
        f"9x9, 62 moves, reuse_engines, -j 2 : {reuse['games_per_s']:6.1f} games/s"
        f"  ({reuse['cpu_ms_per_game']:.2f} ms CPU/game; Gomill 11.1 games/s)"
    )
    print(
        f"9x9, 62 moves, new engines, -j 2   : {plain['cpu_ms_per_game']:6.2f} ms CPU/game"
        f"  ({plain['games_per_s']:.1f} games/s; Gomill 11.3 ms/game)"
    )
    result["games_per_s_reuse_9x9"] = round(reuse["games_per_s"], 2)
    result["cpu_ms_per_game_9x9"] = round(plain["cpu_ms_per_game"], 3)
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
