"""What playing through a Dask cluster adds: the same games locally and on a loopback cluster.

Two instant engines (``benchmarks/instant_engine.py``) play the same 9x9 games
of 62 moves, new engines for every game (a cluster game always starts its
own), ``--parallel 2``: first in the arena's own slots, then through a Dask
scheduler and two workers (one thread each) on 127.0.0.1, all on this
machine.  The runs alternate (local, cluster, local, cluster, ...) so that
load from elsewhere hits both alike.  Reported:

* ``cluster_added_ms_per_game``: how much longer a game takes from a slot's
  point of view through Dask, ``parallel * (wall_cluster - wall_local) / games``
  (each slot plays its games one after the other, so this is the added
  latency of one game; the throughput loss per game is this over ``parallel``);
* the arena process's CPU per game in both modes (``RUSAGE_SELF``: the
  engines and the Dask processes are not in it), and the scheduler's and
  workers' CPU per game in the cluster mode;
* what the added time is made of: the round trip of an empty task through
  the same bridge (trio -> the client's asyncio thread -> scheduler -> worker
  -> back), sequentially; and the cost of a ``trio.run`` in a thread, which
  every game on a worker pays.

Usage: python benchmarks/cluster_overhead.py [--games N] [--repeats R]

The last line is ``RESULT {json}`` with cluster_added_ms_per_game,
games_per_s_local and games_per_s_cluster (medians over the repeats) and the
parts.  Target on this 2-core machine: cluster_added_ms_per_game <= 10.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import threading
import time
import uuid
from functools import partial
from pathlib import Path
from typing import Any

import psutil
import trio

from arena.control.loader import load_control_file
from arena.run.cluster import DaskExecutor, open_cluster
from arena.run.ringmaster import RunOptions, run_competition
from tests.integration.loopback_cluster import LoopbackCluster

ENGINE = str(Path(__file__).with_name("instant_engine.py"))
PARALLEL = 2


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def write_ctl(directory: Path, name: str, games: int) -> Path:
    command = [sys.executable, ENGINE]
    path = directory / f"{name}.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{'x': Player({command!r}), 'y': Player({command!r})}}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        "skip_player_checks = True\n"
        f"matchups = [Matchup('x', 'y', alternating=True, number_of_games={games})]\n"
    )
    return path


def cluster_cpu(cluster: LoopbackCluster) -> float:
    processes = [*cluster.workers.values(), cluster.scheduler]
    total = 0.0
    for process in processes:
        assert process is not None
        times = psutil.Process(process.pid).cpu_times()
        total += times.user + times.system
    return total


async def play(config_path: Path, executor: DaskExecutor | None) -> float:
    config = load_control_file(config_path)
    options = RunOptions(parallel=PARALLEL, keyboard=False, handle_signals=False)
    started = time.perf_counter()
    summary = await run_competition(config, options, executor=executor)
    wall = time.perf_counter() - started
    assert summary.games_recorded == int(config.playoff.matchups[0].number_of_games or 0), summary
    return wall


def noop() -> int:
    return 0


async def noop_round_trips(executor: DaskExecutor, count: int) -> list[float]:
    """Seconds per empty task, one after the other, through the executor's own bridge."""
    times = []
    for _ in range(count):
        started = time.perf_counter()
        kind, _ = await executor._thread.call(
            executor._run_task(f"noop-{uuid.uuid4().hex}", {}, noop)
        )
        assert kind == "ok"
        times.append(time.perf_counter() - started)
    return times


def trio_run_in_thread(count: int) -> float:
    """Seconds per ``trio.run`` of an empty coroutine in a fresh thread (as a worker's task)."""

    async def nothing() -> None:
        await trio.lowlevel.checkpoint()

    started = time.perf_counter()
    for _ in range(count):
        thread = threading.Thread(target=trio.run, args=(nothing,))
        thread.start()
        thread.join()
    threads_only = time.perf_counter()
    for _ in range(count):
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
    ended = time.perf_counter()
    return ((threads_only - started) - (ended - threads_only)) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    games = options.games
    local_walls: list[float] = []
    cluster_walls: list[float] = []
    local_cpu: list[float] = []
    cluster_cpu_self: list[float] = []
    cluster_cpu_others: list[float] = []
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        with LoopbackCluster(directory / "dask") as cluster:
            address = cluster.start("w1", "w2")

            async def measure() -> dict[str, Any]:
                async with open_cluster(address) as executor:
                    assert executor.threads == 2, executor.threads
                    round_trips = await noop_round_trips(executor, games)
                    for repeat in range(options.repeats):
                        before = cpu_seconds()
                        local_walls.append(
                            await play(write_ctl(directory, f"local{repeat}", games), None)
                        )
                        local_cpu.append(cpu_seconds() - before)
                        before, others = cpu_seconds(), cluster_cpu(cluster)
                        cluster_walls.append(
                            await play(write_ctl(directory, f"dask{repeat}", games), executor)
                        )
                        cluster_cpu_self.append(cpu_seconds() - before)
                        cluster_cpu_others.append(cluster_cpu(cluster) - others)
                return {"round_trips": round_trips}

            parts = trio.run(measure)
        trio_run = trio_run_in_thread(200)

    def ms_per_game(values: list[float]) -> list[float]:
        return [1000 * value / games for value in values]

    added = [
        PARALLEL * (cluster - local)
        for cluster, local in zip(ms_per_game(cluster_walls), ms_per_game(local_walls), strict=True)
    ]
    round_trip_ms = 1000 * statistics.median(parts["round_trips"])
    p90_round_trip_ms = 1000 * statistics.quantiles(parts["round_trips"], n=10)[-1]
    result = {
        "cluster_added_ms_per_game": round(statistics.median(added), 2),
        "games_per_s_local": round(games / statistics.median(local_walls), 1),
        "games_per_s_cluster": round(games / statistics.median(cluster_walls), 1),
        "added_ms_spread": [round(min(added), 2), round(max(added), 2)],
        "arena_cpu_ms_per_game_local": round(statistics.median(ms_per_game(local_cpu)), 2),
        "arena_cpu_ms_per_game_cluster": round(
            statistics.median(ms_per_game(cluster_cpu_self)), 2
        ),
        "scheduler_and_workers_cpu_ms_per_game": round(
            statistics.median(ms_per_game(cluster_cpu_others)), 2
        ),
        "empty_task_round_trip_ms": round(round_trip_ms, 2),
        "empty_task_round_trip_p90_ms": round(p90_round_trip_ms, 2),
        "trio_run_in_thread_ms": round(1000 * trio_run, 3),
        "games": games,
        "repeats": options.repeats,
    }
    print(f"{games} games of 62 moves on 9x9, new engines per game, --parallel {PARALLEL}")
    for name, walls in (("local", local_walls), ("cluster", cluster_walls)):
        figures = ", ".join(f"{games / wall:.1f}" for wall in walls)
        print(f"  {name:8}: games/s per repeat {figures}")
    print(
        f"  added per game through Dask (latency of one game, {PARALLEL} slots):"
        f" median {result['cluster_added_ms_per_game']} ms,"
        f" spread {result['added_ms_spread'][0]}..{result['added_ms_spread'][1]} ms"
    )
    print(
        f"  arena CPU per game: local {result['arena_cpu_ms_per_game_local']} ms,"
        f" cluster {result['arena_cpu_ms_per_game_cluster']} ms"
        f" (+ scheduler and workers {result['scheduler_and_workers_cpu_ms_per_game']} ms)"
    )
    print(
        f"  parts: an empty task's round trip {round_trip_ms:.2f} ms"
        f" (p90 {p90_round_trip_ms:.2f}), a trio.run in a thread {1000 * trio_run:.3f} ms"
    )
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
