"""What playing through a Dask cluster adds: the same games locally and on a loopback cluster.

Two instant engines (``benchmarks/instant_engine.py``) play the same 9x9 games
of 62 moves, new engines for every game (a cluster game always starts its
own), ``--parallel 2``: first in the arena's own slots, then through a Dask
scheduler and two workers (one thread each) on 127.0.0.1, all on this
machine.  The runs alternate (local, cluster, local, cluster, ...) so that
load from elsewhere hits both alike.  Reported:

* ``cluster_added_ms_per_game``: the added wall time per game through Dask,
  ``(wall_cluster - wall_local) / games``; and ``cluster_added_latency_ms_per_game``,
  how much longer one game takes from its slot's point of view (``parallel``
  times as much, as each slot plays its games one after the other);
* the same through Dask with ``--parallel 4`` ("queued": Dask keeps a second
  game waiting on each worker, so no worker waits for the round trip
  between two games; still two games played at once);
* the arena process's CPU per game in both modes (``RUSAGE_SELF``: the
  engines and the Dask processes are not in it), and the scheduler's and
  workers' CPU per game in the cluster mode;
* what the added time is made of: the round trip of an empty task through
  the same bridge (trio -> the client's asyncio thread -> scheduler -> worker
  -> back), sequentially, against the same through Dask's own synchronous
  client; the CPU an empty task costs the arena, the scheduler and a worker;
  the Dask processes' background CPU (idle, per second, turned into ms per
  game at the cluster's rate); and the cost of a ``trio.run`` in a thread,
  which every game on a worker pays.

Usage: python benchmarks/cluster_overhead.py [--games N] [--repeats R] [--no-worker-profile]

The last line is ``RESULT {json}`` with cluster_added_ms_per_game,
games_per_s_local and games_per_s_cluster (medians over the repeats) and the
parts.  Target on this 2-core machine: cluster_added_ms_per_game <= 10.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import psutil
import trio

from arena.api import run_competition
from arena.competitions.loader import load_control_file
from arena.run.cluster import DaskExecutor, open_cluster
from arena.run.ringmaster import RunOptions

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' loopback cluster
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


def dask_cpu(cluster: LoopbackCluster) -> dict[str, float]:
    """CPU seconds so far of the scheduler and of the workers (their engines excluded)."""
    totals = {"scheduler": 0.0, "workers": 0.0}
    processes = [
        ("scheduler", cluster.scheduler),
        *(("workers", p) for p in cluster.workers.values()),
    ]
    for kind, process in processes:
        assert process is not None
        times = psutil.Process(process.pid).cpu_times()
        totals[kind] += times.user + times.system
    return totals


def spent(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {kind: after[kind] - before[kind] for kind in before}


async def play(config_path: Path, executor: DaskExecutor | None, parallel: int = PARALLEL) -> float:
    config = load_control_file(config_path)
    options = RunOptions(parallel=parallel, keyboard=False, handle_signals=False, freeze_gc=True)
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


def sync_client_round_trips(address: str, count: int) -> list[float]:
    """The same empty tasks through Dask's own synchronous client: the bridge's reference."""
    from distributed import Client

    times = []
    with Client(address, set_as_default=False) as client:  # type: ignore[no-untyped-call]
        for _ in range(count):
            started = time.perf_counter()
            assert client.submit(noop, pure=False).result() == 0
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
    parser.add_argument(
        "--no-worker-profile",
        action="store_true",
        help="start the workers without Dask's statistical profiler"
        " (DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False)",
    )
    options = parser.parse_args()
    if options.no_worker_profile:  # the workers inherit the environment
        os.environ["DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED"] = "False"
    games = options.games
    load_before = os.getloadavg()[0]
    walls: dict[str, list[float]] = {"local": [], "cluster": [], "queued": []}
    arena_cpu: dict[str, list[float]] = {"local": [], "cluster": []}
    dask: list[dict[str, float]] = []
    parts: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        with LoopbackCluster(directory / "dask") as cluster:
            address = cluster.start("w1", "w2")

            async def measure() -> None:
                async with open_cluster(address) as executor:
                    assert executor.threads == 2, executor.threads
                    await trio.sleep(1)
                    before = dask_cpu(cluster)
                    await trio.sleep(3)
                    parts["idle"] = {k: v / 3 for k, v in spent(before, dask_cpu(cluster)).items()}
                    before, mine = dask_cpu(cluster), cpu_seconds()
                    parts["round_trips"] = await noop_round_trips(executor, games)
                    parts["noop_cpu"] = {
                        **{k: v / games for k, v in spent(before, dask_cpu(cluster)).items()},
                        "arena": (cpu_seconds() - mine) / games,
                    }
                    for repeat in range(options.repeats):
                        for mode in ("local", "cluster", "queued"):
                            path = write_ctl(directory, f"{mode}{repeat}", games)
                            before, mine = dask_cpu(cluster), cpu_seconds()
                            if mode == "queued":  # a game waits on each worker: no idle gap
                                walls[mode].append(await play(path, executor, 2 * PARALLEL))
                                continue
                            walls[mode].append(
                                await play(path, executor if mode == "cluster" else None)
                            )
                            arena_cpu[mode].append(cpu_seconds() - mine)
                            if mode == "cluster":
                                dask.append(spent(before, dask_cpu(cluster)))

            sync_round_trips = sync_client_round_trips(address, games)
            trio.run(measure)
        trio_run = trio_run_in_thread(200)

    def per_game_ms(values: list[float]) -> float:
        return round(1000 * statistics.median(values) / games, 2)

    added = [
        1000 * (cluster - local) / games
        for cluster, local in zip(walls["cluster"], walls["local"], strict=True)
    ]
    queued_added = [
        1000 * (queued - local) / games
        for queued, local in zip(walls["queued"], walls["local"], strict=True)
    ]
    cluster_rate = games / statistics.median(walls["cluster"])
    idle_ms = {k: round(1000 * v / cluster_rate, 2) for k, v in parts["idle"].items()}
    noop_ms = {k: round(1000 * v, 2) for k, v in parts["noop_cpu"].items()}
    result = {
        "cluster_added_ms_per_game": round(statistics.median(added), 2),
        "games_per_s_local": round(games / statistics.median(walls["local"]), 1),
        "games_per_s_cluster": round(cluster_rate, 1),
        "added_ms_spread": [round(min(added), 2), round(max(added), 2)],
        "cluster_added_latency_ms_per_game": round(PARALLEL * statistics.median(added), 2),
        "queued_added_ms_per_game": round(statistics.median(queued_added), 2),
        "queued_added_ms_spread": [round(min(queued_added), 2), round(max(queued_added), 2)],
        "arena_cpu_ms_per_game_local": per_game_ms(arena_cpu["local"]),
        "arena_cpu_ms_per_game_cluster": per_game_ms(arena_cpu["cluster"]),
        "scheduler_cpu_ms_per_game": per_game_ms([d["scheduler"] for d in dask]),
        "workers_cpu_ms_per_game": per_game_ms([d["workers"] for d in dask]),
        "idle_dask_cpu_ms_per_game": idle_ms,
        "empty_task_cpu_ms": noop_ms,
        "empty_task_round_trip_ms": round(1000 * statistics.median(parts["round_trips"]), 2),
        "empty_task_round_trip_p90_ms": round(
            1000 * statistics.quantiles(parts["round_trips"], n=10)[-1], 2
        ),
        "sync_client_round_trip_ms": round(1000 * statistics.median(sync_round_trips), 2),
        "trio_run_in_thread_ms": round(1000 * trio_run, 3),
        "games": games,
        "repeats": options.repeats,
        "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "worker_profiler": not options.no_worker_profile,
    }
    print(
        f"{games} games of 62 moves on 9x9, new engines per game, --parallel {PARALLEL}"
        f" (load average {result['load_average'][0]} before, {result['load_average'][1]} after)"
    )
    for mode in ("local", "cluster", "queued"):
        figures = ", ".join(f"{games / wall:.1f}" for wall in walls[mode])
        print(f"  {mode:8}: games/s per repeat {figures}")
    print(
        f"  added wall time per game through Dask: median {result['cluster_added_ms_per_game']}"
        f" ms, spread {result['added_ms_spread'][0]}..{result['added_ms_spread'][1]} ms"
        f" (one game's latency, {PARALLEL} slots: {result['cluster_added_latency_ms_per_game']} ms)"
    )
    print(
        f"  with -j {2 * PARALLEL} (a game queued on each worker while it plays one):"
        f" median {result['queued_added_ms_per_game']} ms, spread"
        f" {result['queued_added_ms_spread'][0]}..{result['queued_added_ms_spread'][1]} ms"
    )
    print(
        f"  CPU per game: arena {result['arena_cpu_ms_per_game_local']} ms here;"
        f" through Dask arena {result['arena_cpu_ms_per_game_cluster']} ms,"
        f" scheduler {result['scheduler_cpu_ms_per_game']} ms,"
        f" workers {result['workers_cpu_ms_per_game']} ms (engines excluded)"
    )
    print(
        f"  of which Dask's own: an empty task costs {noop_ms} ms of CPU;"
        f" the Dask processes' background (idle) CPU at this rate is {idle_ms} ms per game"
    )
    print(
        f"  latency: an empty task's round trip {result['empty_task_round_trip_ms']} ms"
        f" (p90 {result['empty_task_round_trip_p90_ms']}; through Dask's own synchronous"
        f" client {result['sync_client_round_trip_ms']} ms), a trio.run in a thread"
        f" {result['trio_run_in_thread_ms']} ms"
    )
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
