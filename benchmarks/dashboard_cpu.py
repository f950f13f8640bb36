"""What the live dashboard costs: arena CPU with and without it, 64 games in parallel.

Two instant engines (``benchmarks/instant_engine.py``, a fixed list of moves,
engines kept between games) play 19x19 games of 300 moves in 64 slots, in a
run of the real ringmaster in this process, so ``getrusage(RUSAGE_SELF)``
counts the arena alone (the engines are children).  Each round plays the same
number of games twice: once quietly (no events, no display) and once through
``arena_cli.run.run_with_display`` drawing the dashboard at 4 Hz on a 160x50
terminal-like console (colours on, alternate screen) that writes to
/dev/null.  The difference in CPU seconds divided by the dashboard run's wall
time is the share of one core the dashboard takes: events, snapshots and
drawing together.  Rounds alternate the order; the medians are reported.

Usage: python benchmarks/dashboard_cpu.py [--quick] [--rounds N] [--games N]

The last line is ``RESULT {json}`` with dashboard_cpu_share (target < 0.05),
plus the CPU seconds of each run, frames drawn, ms per frame and moves per
second.  Figures taken while other jobs share the cores are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio
from rich.console import Console

import arena_cli.run
import tui.live
from arena.api import run_competition
from arena.competitions.loader import load_control_file
from arena.run.ringmaster import RunOptions

ENGINE = str(Path(__file__).with_name("instant_engine.py"))
PARALLEL = 64
MOVES = 300


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def write_ctl(directory: Path, name: str, games: int) -> Path:
    command = [sys.executable, ENGINE]
    path = directory / f"{name}.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{'x': Player({command!r}), 'y': Player({command!r})}}\n"
        "board_size = 19\nkomi = 7.5\nscorer = 'internal'\n"
        "skip_player_checks = True\nreuse_engines = True\nrecord_games = False\n"
        f"matchups = [Matchup('x', 'y', alternating=True, number_of_games={games})]\n"
    )
    return path


class FrameTimer:
    """Counts the dashboard's frames and the time spent drawing them."""

    def __init__(self) -> None:
        self.frames = 0
        self.seconds = 0.0
        self._draw: Callable[[tui.live.LiveDashboard], None] = tui.live.LiveDashboard.draw

    def install(self) -> None:
        timer = self

        def timed(dashboard: tui.live.LiveDashboard) -> None:
            start = time.perf_counter()
            timer._draw(dashboard)
            timer.seconds += time.perf_counter() - start
            timer.frames += 1

        tui.live.LiveDashboard.draw = timed  # type: ignore[method-assign, assignment]


def one_run(directory: Path, name: str, games: int, dashboard: bool) -> dict[str, float]:
    config = load_control_file(write_ctl(directory, name, games))
    options = RunOptions(parallel=PARALLEL, keyboard=False, handle_signals=False, freeze_gc=True)
    with open(os.devnull, "w", encoding="utf-8") as null:
        console = Console(file=null, force_terminal=True, width=160, height=50, color_system="256")
        cpu, wall = cpu_seconds(), time.perf_counter()
        if dashboard:
            summary = trio.run(
                lambda: arena_cli.run.run_with_display(config, options, console=console)
            )
        else:
            summary = trio.run(run_competition, config, options)
        cpu, wall = cpu_seconds() - cpu, time.perf_counter() - wall
    assert summary.games_recorded == games, summary
    return {"cpu": cpu, "wall": wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--rounds", type=int, default=3, help="pairs of runs (default 3)")
    parser.add_argument("--games", type=int, default=320, help="games per run (default 320)")
    options = parser.parse_args()
    rounds = 1 if options.quick else options.rounds
    games = 128 if options.quick else options.games
    timer = FrameTimer()
    timer.install()
    plain: list[dict[str, float]] = []
    shown: list[dict[str, float]] = []
    shares: list[float] = []
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        one_run(directory, "warmup", PARALLEL, dashboard=False)  # imports, caches, page cache
        for index in range(rounds):
            order = (False, True) if index % 2 == 0 else (True, False)
            pair: dict[bool, dict[str, float]] = {}
            for dashboard in order:
                name = f"{'dash' if dashboard else 'plain'}{index}"
                pair[dashboard] = one_run(directory, name, games, dashboard)
            plain.append(pair[False])
            shown.append(pair[True])
            shares.append((pair[True]["cpu"] - pair[False]["cpu"]) / pair[True]["wall"])
            print(
                f"round {index + 1}: quiet {pair[False]['cpu']:6.2f} s CPU in"
                f" {pair[False]['wall']:6.2f} s; dashboard {pair[True]['cpu']:6.2f} s CPU in"
                f" {pair[True]['wall']:6.2f} s; share {100 * shares[-1]:5.2f}% of a core",
                flush=True,
            )
    share = statistics.median(shares)
    dash_wall = sum(r["wall"] for r in shown)
    moves_per_s = games * MOVES * rounds / dash_wall
    ms_per_frame = 1000 * timer.seconds / max(1, timer.frames)
    print(
        f"{PARALLEL} parallel 19x19 games of instant engines, {games} games per run,"
        f" {rounds} round(s)"
    )
    print(f"arena CPU without dashboard : {statistics.median(r['cpu'] for r in plain):7.2f} s")
    print(f"arena CPU with dashboard    : {statistics.median(r['cpu'] for r in shown):7.2f} s")
    print(
        f"frames drawn                : {timer.frames} ({timer.frames / dash_wall:.2f}/s),"
        f" {ms_per_frame:.2f} ms each"
    )
    print(f"moves per second            : {moves_per_s:,.0f}")
    print(f"dashboard share of one core : {100 * share:.2f}% (median; target < 5%)")
    result: dict[str, Any] = {
        "dashboard_cpu_share": round(share, 4),
        "dashboard_cpu_shares": [round(s, 4) for s in shares],
        "cpu_s_quiet": round(statistics.median(r["cpu"] for r in plain), 3),
        "cpu_s_dashboard": round(statistics.median(r["cpu"] for r in shown), 3),
        "frames_per_s": round(timer.frames / dash_wall, 2),
        "ms_per_frame": round(ms_per_frame, 3),
        "moves_per_s": round(moves_per_s),
        "parallel": PARALLEL,
        "games_per_run": games,
    }
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
