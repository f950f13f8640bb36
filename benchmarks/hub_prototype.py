"""Would one I/O hub for every game bring the arena's latency tail within 2x of the floor?

A measurement for a design the arena does not have yet (issue 31's p99 figure;
see ``benchmarks/harness_latency.py --diagnose`` for why the present design
stops at about 4x).  Today each game is a trio task and each engine pipe is
waited on by its own ``wait_readable``: every answer costs an ``epoll_ctl``,
a pass of trio's run loop, a task switch and the client's bookkeeping, about
22-28 us of the arena's CPU a round trip against 5 us for the minimal
controller.  This script drives the same games, between the same instant
engines (``benchmarks/instant_engine.py``), in two hub designs built from the
arena's own parts, and measures each against the minimal controller
(``benchmarks/minimal_controller.py``) in the same run, with the same gap
measure as ``harness_latency.py`` (an engine's response to the next command of
its game, steady state):

    inline  one trio task owns an epoll set of every engine's output and waits
            on it with one ``wait_readable``; each game is a plain generator
            (sans I/O) that the hub resumes with the answers, so an answer
            costs no task switch;
    tasks   the same hub, but each game stays a trio task that the hub wakes
            (``trio.lowlevel.reschedule``) when its answer is complete: the
            present game code could keep its shape;
    fdwait  no hub: each game a trio task that reads its engine's pipe and,
            when nothing is there yet, waits on it with its own
            ``wait_readable``, as ``gtp.client`` does today, with the same thin
            game as the two above;
    arena   the arena itself, as ``harness_latency.py`` runs it (engines kept
            between games).

Either way a game does what an arena game does for a move, with the arena's
code: ``gtp.connection.Connection`` frames the commands (the opponent's
``play`` and the mover's ``genmove`` in one write, as the arena pipelines
them) and checks the answers, ``gtp.board.Board`` referees every move,
``gtp.vertex`` parses it, a deadline is noted for every command (the
watchdog's way), and a move event (a frozen attrs instance) goes to a sink.
Not done: SGF and result records at the end of a game (a few per game, not
per move), clocks, stderr, engine faults (a real hub needs them all).

What it showed on 2026-11-29 (2-core machine, N = 64 games at once, 1,920
games a design, 3 rounds, load 13-21 from the 128 engines): p99 over the
reference's p99 in the same round, medians: inline 1.97x, tasks 2.42x, fdwait
3.89x, arena 5.04x; the controller's CPU per round trip 8.4, 9.2, 10.8 and
22.6 us against the reference's 5.6.  So the way the pipes are waited on
decides most of the tail (fdwait against tasks, the same thin game: 17% more
CPU, 1.6x the p99), and the arena's layers above the pipe double its CPU.
But a hub alone does not shorten the arena's own tail: the arena with its
client waiting through one edge-triggered epoll set per run instead of a
``wait_readable`` per pipe (branch ``hub-experiment``, ``GTP_HUB=1``) gave, in
``harness_latency.py --slots 64`` runs alternating with and without it, p99s of
9.3 and 14.1 ms against 9.1 and 7.1 ms (the reference's 1.3-1.9 ms), the same
22-24 us of CPU a round trip and 6% more games a second.  Within 2x needs the
whole way of a move as thin as this script's, not only the wait.
(Pipelined commands make the p50s meaningless: an engine reads the ``genmove``
after a ``play`` at once, a gap of microseconds; the arena's gaps in
``harness_latency.py`` have the same property.)

Usage: python benchmarks/hub_prototype.py [--slots 64] [--games 640] [--rounds 2]

The last line is ``RESULT {json}`` with, per design, its steady p50/p99 (ms),
its CPU per round trip (us) and the ratios of its p99 to the reference's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Generator
from pathlib import Path
from typing import Any

import attrs
import outcome
import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_latency import (
    ENGINE,
    MIN_GAMES,
    cpu_seconds,
    latency_run,
    percentile,
    reference_run,
    slot_latencies,
)

from gtp.board import Board
from gtp.connection import Connection
from gtp.protocol import Response
from gtp.vertex import Colour, parse_move_answer

TIMEOUT = 30.0
RESULTS = Path(__file__).resolve().parent / "results" / "hub_prototype.json"

# A game's request: (engine 0 or 1, its commands); the hub answers with the responses.
Request = tuple[int, tuple[tuple[str, ...], ...]]
GameSteps = Generator[Request, list[Response], None]


@attrs.frozen
class MoveEvent:
    game: int
    colour: Colour
    vertex: str
    number: int


def game_steps(game: int, sink: Callable[[MoveEvent], None]) -> GameSteps:
    """One 9x9 game between engines 0 (Black) and 1 (White), as the arena plays it."""
    for engine in (0, 1):
        yield engine, (("boardsize", "9"), ("clear_board",), ("komi", "7.5"))
    board = Board(9)
    colour, passes, number = Colour.BLACK, 0, 0
    last: str | None = None
    while passes < 2:
        mover = 0 if colour is Colour.BLACK else 1
        genmove = ("genmove", colour.gtp_name)
        commands = (
            (genmove,) if last is None else (("play", colour.opponent.gtp_name, last), genmove)
        )
        answers = yield mover, commands
        if not all(answer.ok for answer in answers):
            raise RuntimeError(f"game {game}: refused: {answers}")
        vertex = answers[-1].text
        move = parse_move_answer(vertex, 9)
        board.play(colour, move.point)
        number += 1
        sink(MoveEvent(game, colour, vertex, number))
        passes = passes + 1 if move.is_pass else 0
        last = vertex
        colour = colour.opponent
    # the last pass reaches the other engine, as the arena tells it before scoring
    yield 1 - (0 if colour is Colour.BLACK else 1), (("play", colour.opponent.gtp_name, "pass"),)


class Pipe:
    """One engine: its pipes, its sans-I/O connection, its next deadline."""

    __slots__ = ("answers", "connection", "deadline", "process", "read_fd", "waiter", "write_fd")

    def __init__(self, process: subprocess.Popen[bytes], name: str) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process = process
        self.write_fd = process.stdin.fileno()
        self.read_fd = process.stdout.fileno()
        os.set_blocking(self.read_fd, False)
        self.connection = Connection(name)
        self.answers: list[Response] = []
        self.deadline = 0.0
        self.waiter: Any = None  # the game (generator or task) this pipe's answers go to

    def send(self, commands: tuple[tuple[str, ...], ...], now: float) -> None:
        line = self.connection.send_many(commands)
        self.deadline = now + TIMEOUT  # the watchdog's bookkeeping: a deadline noted
        os.write(self.write_fd, line)


def start_engines(slots: int, environment: dict[str, str]) -> list[list[Pipe]]:
    pairs = []
    for slot in range(slots):
        env = {**os.environ, **environment, "GOMILL_SLOT": str(slot)}
        pair = []
        for engine in range(2):
            process = subprocess.Popen(
                [sys.executable, ENGINE],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                bufsize=0,
                env=env,
            )
            pair.append(Pipe(process, f"slot{slot}-{engine}"))
        pairs.append(pair)
    for pair in pairs:  # as the arena's startup check: protocol_version answered by all
        for pipe in pair:
            pipe.send((("protocol_version",),), 0.0)
    for pair in pairs:
        for pipe in pair:
            while True:
                try:
                    data = os.read(pipe.read_fd, 65536)
                except BlockingIOError:
                    time.sleep(0.001)
                    continue
                if pipe.connection.receive_all(data, pipe.answers):
                    pipe.answers = []
                    break
    return pairs


def stop_engines(pairs: list[list[Pipe]]) -> None:
    for pair in pairs:
        for pipe in pair:
            with contextlib.suppress(OSError):
                os.write(pipe.write_fd, b"quit\n")
    for pair in pairs:
        for pipe in pair:
            assert pipe.process.stdin is not None
            pipe.process.wait()
            pipe.process.stdin.close()


def games_per_slot(slots: int, games: int) -> list[int]:
    return [games // slots + (slot < games % slots) for slot in range(slots)]


async def hub_inline(
    pairs: list[list[Pipe]], games: int, sink: Callable[[MoveEvent], None]
) -> None:
    """Every game a generator resumed by the one hub task."""
    epoll = select.epoll()
    by_fd: dict[int, tuple[Pipe, list[Pipe], int]] = {}
    plans = games_per_slot(len(pairs), games)
    steps: list[GameSteps | None] = [None] * len(pairs)
    numbers = [0] * len(pairs)
    running = 0
    now = trio.current_time

    def advance(slot: int, reply: list[Response] | None) -> bool:
        """Resume the slot's game; start its next one when it ends. False: the slot is done."""
        while True:
            game = steps[slot]
            try:
                if game is None:
                    raise StopIteration
                engine, commands = game.send(reply) if reply is not None else next(game)
            except StopIteration:
                if plans[slot] == 0:
                    return False
                plans[slot] -= 1
                numbers[slot] += 1
                steps[slot] = game_steps(numbers[slot], sink)
                reply = None
                continue
            pairs[slot][engine].send(commands, now())
            return True

    for slot, pair in enumerate(pairs):
        for pipe in pair:
            by_fd[pipe.read_fd] = (pipe, pair, slot)
            epoll.register(pipe.read_fd, select.EPOLLIN)
        running += advance(slot, None)
    try:
        while running:
            await trio.lowlevel.wait_readable(epoll.fileno())
            for fd, _ in epoll.poll(0):
                pipe, _pair, slot = by_fd[fd]
                data = os.read(fd, 65536)
                if not data:
                    raise RuntimeError(f"{pipe.connection.engine} went away")
                if pipe.connection.receive_all(data, pipe.answers):
                    answers, pipe.answers = pipe.answers, []
                    if not advance(slot, answers):
                        running -= 1
    finally:
        epoll.close()


Exchange = Callable[[Pipe, tuple[tuple[str, ...], ...]], Awaitable[list[Response]]]


async def play_slot(
    pair: list[Pipe], count: int, sink: Callable[[MoveEvent], None], exchange: Exchange
) -> None:
    """A slot's games as a trio task, each request through ``exchange``."""
    for number in range(count):
        game = game_steps(number, sink)
        reply: list[Response] | None = None
        while True:
            try:
                engine, commands = game.send(reply) if reply is not None else next(game)
            except StopIteration:
                break
            reply = await exchange(pair[engine], commands)


async def hub_tasks(pairs: list[list[Pipe]], games: int, sink: Callable[[MoveEvent], None]) -> None:
    """Every game a trio task; the hub task wakes a game when its answer is complete."""
    epoll = select.epoll()
    by_fd: dict[int, Pipe] = {}
    for pair in pairs:
        for pipe in pair:
            by_fd[pipe.read_fd] = pipe
            epoll.register(pipe.read_fd, select.EPOLLIN)
    now = trio.current_time

    async def exchange(pipe: Pipe, commands: tuple[tuple[str, ...], ...]) -> list[Response]:
        pipe.send(commands, now())
        pipe.waiter = trio.lowlevel.current_task()
        answers: list[Response] = await trio.lowlevel.wait_task_rescheduled(
            lambda _: trio.lowlevel.Abort.SUCCEEDED
        )
        return answers

    async def hub(done: trio.Event) -> None:
        while not done.is_set():
            await trio.lowlevel.wait_readable(epoll.fileno())
            for fd, _ in epoll.poll(0):
                pipe = by_fd[fd]
                data = os.read(fd, 65536)
                if not data:
                    raise RuntimeError(f"{pipe.connection.engine} went away")
                if pipe.connection.receive_all(data, pipe.answers):
                    answers, pipe.answers = pipe.answers, []
                    trio.lowlevel.reschedule(pipe.waiter, outcome.Value(answers))

    done = trio.Event()
    try:
        async with trio.open_nursery() as outer:
            outer.start_soon(hub, done)
            async with trio.open_nursery() as nursery:
                for slot, count in enumerate(games_per_slot(len(pairs), games)):
                    nursery.start_soon(play_slot, pairs[slot], count, sink, exchange)
            outer.cancel_scope.cancel()
    finally:
        epoll.close()


async def fd_waits(pairs: list[list[Pipe]], games: int, sink: Callable[[MoveEvent], None]) -> None:
    """No hub: every game a trio task waiting on its engine's pipe, as gtp.client does today."""
    now = trio.current_time

    async def exchange(pipe: Pipe, commands: tuple[tuple[str, ...], ...]) -> list[Response]:
        pipe.send(commands, now())
        connection, answers = pipe.connection, pipe.answers
        while True:
            try:
                data = os.read(pipe.read_fd, 65536)  # read before waiting, as the client does
            except BlockingIOError:
                await trio.lowlevel.wait_readable(pipe.read_fd)
                continue
            if not data:
                raise RuntimeError(f"{connection.engine} went away")
            if connection.receive_all(data, answers):
                pipe.answers = []
                return answers

    async with trio.open_nursery() as nursery:
        for slot, count in enumerate(games_per_slot(len(pairs), games)):
            nursery.start_soon(play_slot, pairs[slot], count, sink, exchange)


def hub_run(design: str, directory: Path, slots: int, games: int) -> dict[str, float]:
    times = directory / f"{design}{slots}-{time.monotonic_ns()}"
    times.mkdir(parents=True)
    pairs = start_engines(slots, {"ARENA_BENCH_TIMES": str(times), "ARENA_BENCH_THINK": "0"})
    events: list[MoveEvent] = []
    sink = events.append
    hub = {"inline": hub_inline, "tasks": hub_tasks, "fdwait": fd_waits}[design]
    cpu_before, wall_before = cpu_seconds(), time.perf_counter()
    trio.run(hub, pairs, games, sink)
    cpu, wall = cpu_seconds() - cpu_before, time.perf_counter() - wall_before
    stop_engines(pairs)
    assert len(events) == games * 62, len(events)
    gaps, steady = slot_latencies(times)
    return {
        "games_per_s": games / wall,
        "cpu_us_per_round_trip": 1e6 * cpu / len(gaps),
        "steady_p50": statistics.median(steady),
        "steady_p99": percentile(steady, 0.99),
        "steady_gaps": len(steady),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slots", type=int, default=64)
    parser.add_argument("--games", type=int, default=640)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    designs = ("inline", "tasks", "fdwait", "arena")
    figures: dict[str, list[dict[str, float]]] = {name: [] for name in (*designs, "reference")}
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        for round_number in range(args.rounds):
            for design in (*designs, "reference"):
                if design == "reference":
                    run = reference_run(directory / f"r{round_number}", args.slots, args.games)
                elif design == "arena":  # the arena as it is (harness_latency's run)
                    run = latency_run(directory / f"a{round_number}", args.slots, args.games, True)
                else:
                    run = hub_run(design, directory, args.slots, args.games)
                figures[design].append(run)
                print(
                    f"round {round_number} {design:9s}: p50 {run['steady_p50']:.3f}"
                    f"  p99 {run['steady_p99']:.3f} ms  {run['cpu_us_per_round_trip']:.1f} us CPU"
                    f" a round trip, {run['games_per_s']:.1f} games/s"
                    f"  (load {os.getloadavg()[0]:.2f})",
                    flush=True,
                )
    result: dict[str, Any] = {"slots": args.slots, "games": args.games, "rounds": args.rounds}
    for design in designs:
        ratios = [
            run["steady_p99"] / ref["steady_p99"]
            for run, ref in zip(figures[design], figures["reference"], strict=True)
        ]
        result[f"{design}_p99_ratio"] = round(statistics.median(ratios), 2)
        result[f"{design}_p99_ms"] = round(
            statistics.median(r["steady_p99"] for r in figures[design]), 3
        )
        result[f"{design}_cpu_us_per_round_trip"] = round(
            statistics.median(r["cpu_us_per_round_trip"] for r in figures[design]), 1
        )
    result["reference_p99_ms"] = round(
        statistics.median(r["steady_p99"] for r in figures["reference"]), 3
    )
    result["reference_cpu_us_per_round_trip"] = round(
        statistics.median(r["cpu_us_per_round_trip"] for r in figures["reference"]), 1
    )
    result["loadavg"] = list(os.getloadavg())
    if args.games >= MIN_GAMES:  # (a smoke run does not replace the record)
        RESULTS.write_text(json.dumps(result, indent=1) + "\n")
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
