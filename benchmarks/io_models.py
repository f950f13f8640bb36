"""Three ways for a controller to wait for engines: the CPU of a round trip in each.

A design study for the arena's per-move cost (issue 31): is the trio wait under
every move the floor, or would another way of waiting be cheaper?  K games at
once, each alternating between its own two engines (as a game alternates
between black and white), every command answered at once by a tiny Python
responder (one ``= ok`` per line, flushed).  The controller does nothing but
the I/O, in one of three ways:

    trio       one trio task per game: write, read before waiting, then
               ``trio.lowlevel.wait_readable`` (the arena's own pattern,
               ``gtp.client``'s fast path, without its bookkeeping)
    threads    one OS thread per game with blocking waits: write, then
               ``poll`` and read (Gomill's blocking reads, one game per thread)
    selectors  one ``selectors`` loop for every game, a callback per answer
               (``benchmarks/minimal_controller.py``'s shape)

Each (model, K) runs in a child process of its own, which measures its own CPU
(``RUSAGE_SELF``: the engines are its children and are not counted) over
``--round-trips`` round trips per game after a warm-up; rounds alternate the
models' order.  Figures are medians over rounds: CPU per round trip (µs),
round trips per second, and each model's CPU over trio's in the same round.
The machine's load moves the absolute figures; the ratios are what to read.

    python benchmarks/io_models.py [--games 1,2,8,32] [--round-trips 5000] [--rounds 3]

The last line is ``RESULT {json}`` with ``<model>_cpu_us_K<k>``,
``<model>_rate_K<k>`` and ``<model>_over_trio_K<k>`` for every model and K,
and ``loadavg``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import select
import selectors
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable

import trio

RESPONDER = (
    "import sys\n"
    "out = sys.stdout.buffer\n"
    "for line in sys.stdin.buffer:\n"
    "    out.write(b'= ok\\n\\n'); out.flush()\n"
)
COMMAND = b"genmove b\n"
END = b"\n\n"
MODELS = ("trio", "threads", "selectors")
WARM_UP = 200

Engine = tuple[int, int]  # (stdin fd to write, stdout fd to read)


def start_engines(count: int) -> tuple[list[subprocess.Popen[bytes]], list[Engine]]:
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", RESPONDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        for _ in range(count)
    ]
    engines = []
    for process in processes:
        assert process.stdin is not None and process.stdout is not None
        write, read = process.stdin.fileno(), process.stdout.fileno()
        os.set_blocking(write, False)
        os.set_blocking(read, False)
        engines.append((write, read))
    return processes, engines


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_trio(games: list[tuple[Engine, Engine]], count: int) -> None:
    async def game(pair: tuple[Engine, Engine]) -> None:
        read = os.read
        wait_readable = trio.lowlevel.wait_readable
        for turn in range(count):
            write_fd, read_fd = pair[turn & 1]
            await trio.lowlevel.checkpoint_if_cancelled()
            os.write(write_fd, COMMAND)
            data = b""
            while not data.endswith(END):
                try:
                    data += read(read_fd, 4096)
                except BlockingIOError:
                    await wait_readable(read_fd)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            for pair in games:
                nursery.start_soon(game, pair)

    trio.run(main)


def run_threads(games: list[tuple[Engine, Engine]], count: int) -> None:
    def game(pair: tuple[Engine, Engine]) -> None:
        polls = []
        for _, read_fd in pair:
            poll = select.poll()
            poll.register(read_fd, select.POLLIN)
            polls.append(poll)
        read = os.read
        for turn in range(count):
            write_fd, read_fd = pair[turn & 1]
            os.write(write_fd, COMMAND)
            data = b""
            while not data.endswith(END):
                try:
                    data += read(read_fd, 4096)
                except BlockingIOError:
                    polls[turn & 1].poll(10_000)

    threads = [threading.Thread(target=game, args=(pair,)) for pair in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def run_selectors(games: list[tuple[Engine, Engine]], count: int) -> None:
    selector = selectors.DefaultSelector()
    for game, pair in enumerate(games):
        for _, read_fd in pair:
            selector.register(read_fd, selectors.EVENT_READ, game)  # once: level-triggered
    turns = [0] * len(games)
    buffers = [b""] * len(games)
    playing = len(games)
    for pair in games:
        os.write(pair[0][0], COMMAND)
    try:
        while playing:
            for key, _ in selector.select():
                game = key.data
                data = buffers[game] + os.read(key.fd, 4096)
                if not data.endswith(END):
                    buffers[game] = data
                    continue
                buffers[game] = b""
                turn = turns[game] = turns[game] + 1
                if turn < count:
                    os.write(games[game][turn & 1][0], COMMAND)
                else:
                    playing -= 1
    finally:
        selector.close()


RUNNERS: dict[str, Callable[[list[tuple[Engine, Engine]], int], None]] = {
    "trio": run_trio,
    "threads": run_threads,
    "selectors": run_selectors,
}


def child(model: str, games: int, round_trips: int) -> dict[str, float]:
    """In a child process: one model with ``games`` games; CPU per round trip and rate."""
    processes, engines = start_engines(2 * games)
    pairs = [(engines[2 * i], engines[2 * i + 1]) for i in range(games)]
    try:
        RUNNERS[model](pairs, WARM_UP)  # every engine started and warm
        cpu = cpu_seconds()
        started = time.perf_counter()
        RUNNERS[model](pairs, round_trips)
        elapsed = time.perf_counter() - started
        cpu = cpu_seconds() - cpu
    finally:
        for process in processes:
            process.kill()
            process.wait()
    total = round_trips * games
    return {"cpu_us": cpu / total * 1e6, "rate": total / elapsed}


def measure(model: str, games: int, round_trips: int) -> dict[str, float]:
    output = subprocess.run(
        [sys.executable, __file__, "--child", model, str(games), str(round_trips)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    figures: dict[str, float] = json.loads(output.splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="1,2,8,32", help="numbers of games at once (K)")
    parser.add_argument("--round-trips", type=int, default=5000, help="per game and run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        model, games, round_trips = options.child
        print(json.dumps(child(model, int(games), int(round_trips))))
        return
    counts = [int(k) for k in options.games.split(",")]
    runs: dict[tuple[str, int], list[dict[str, float]]] = {}
    load = [round(x, 2) for x in os.getloadavg()]
    for number in range(options.rounds):
        for k in counts:
            order = MODELS if (number + k) % 2 == 0 else MODELS[::-1]
            for model in order:
                runs.setdefault((model, k), []).append(measure(model, k, options.round_trips))
    load += [round(x, 2) for x in os.getloadavg()]
    result: dict[str, object] = {}
    print(f"{'K':>4} {'model':>10} {'CPU us/rt':>10} {'rt/s':>9} {'CPU / trio':>11}")
    for k in counts:
        for model in MODELS:
            cpu = statistics.median(run["cpu_us"] for run in runs[(model, k)])
            rate = statistics.median(run["rate"] for run in runs[(model, k)])
            over = statistics.median(
                mine["cpu_us"] / theirs["cpu_us"]
                for mine, theirs in zip(runs[(model, k)], runs[("trio", k)], strict=True)
            )
            result[f"{model}_cpu_us_K{k}"] = round(cpu, 2)
            result[f"{model}_rate_K{k}"] = round(rate)
            result[f"{model}_over_trio_K{k}"] = round(over, 3)
            print(f"{k:>4} {model:>10} {cpu:>10.1f} {rate:>9,.0f} {over:>11.2f}")
    result["round_trips"] = options.round_trips
    result["rounds"] = options.rounds
    result["loadavg"] = load
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
