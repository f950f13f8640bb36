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
(``reuse_engines``), and only the gaps between the last engine of the run
reading its first command and the first engine being told to quit.
Starting (and stopping) 2N Python interpreters at once saturates both cores
for a second or more, which says nothing about the arena; the gaps of the
whole run, and runs with new engines for every game (``--new-engines``), are
printed too.

Instant engines make a closed loop that keeps both cores busy: with N games
in flight at X round trips a second, each game waits N / X per round trip
(Little's law) however fast the arena is, and the gap is most of that wait.
So each run also prints X and the arena's CPU per round trip, and a paced
run (``--think``: engines that take 20 ms per genmove, so the machine has
room) shows the latency the arena itself adds; its figures are the
``paced_latency_*`` keys.

Each run is followed by its reference, measured in the same process: the
same engines and games driven by the least a controller can do
(``benchmarks/minimal_controller.py``: one ``selectors`` loop, no trio, no
referee, no records), its gaps measured the same way.  What the reference
shows is the machine's floor as it is loaded now; the arena's excess over it
is the arena's own (``reference_latency_*`` and
``paced_reference_latency_*`` keys).

Also, as ``benchmarks/arena_overhead.py`` measures them: games/s with reused
instant engines (62-move 9x9 games, -j 2) and the arena's CPU per 62-move 9x9
game with new engines (this process only, engines excluded, startup included).

``--diagnose`` prints, for each arena run, what its tail is made of (the
arena process's own view, none of it in RESULT): the run loop's passes (from
one wait for I/O to the next) and how many tasks each ran, the task steps of
0.5 ms or more by wall time and by this thread's CPU time (a step long in wall
time but short in CPU is the process waiting for a core), the garbage
collector's pauses per generation, and the process's voluntary and
involuntary context switches.  What it showed on 2026-11-29 at N=64 (2-core
machine, 1,920 games): a game task whose engines answer before it reads plays
on without yielding (the client yields only when it has to wait for an
answer), so a loop pass can run 64 tasks for 10-30 ms (p99 of the passes);
the collector's full (generation 2) collections of what the run made since
it froze the start paused everything three times a run for 20-80 ms of wall
time, and its generation-1 collections about 33 times for 2.5 ms; and the
process was preempted 40,000-110,000 times a 10-second run by the 128 engines
it wakes.  Taking these away for a measurement (a checkpoint after every
answer read without waiting, the collector off, the engines under
``SCHED_BATCH`` so that a woken engine does not preempt the arena) brought
the arena's p99 from 6-15 ms to 5.5-7.5 ms, against the reference's 1.3-1.9
ms in the same runs: still 3.5-4x, so none of them is the way to 2x, and the
checkpoint alone cost about a fifth more CPU per 9x9 move at ``-j 2``.  What
is left is the arena's CPU per round trip on a loop that 128 engines
preempt: 22-28 us against the reference's 5 us (printed with each run), about
the ratio of the two p99s.

Usage: python benchmarks/harness_latency.py [--quick] [--new-engines] [--diagnose]
                                             [--slots 8,32,64]

The last line is ``RESULT {json}`` with latency_p50_ms_N, latency_p99_ms_N and
latency_max_ms_N for each N, games_per_s_reuse_9x9 and cpu_ms_per_game_9x9.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Final

import trio
from arena_overhead import ENGINE, cpu_seconds, run_games, write_ctl  # this script's folder
from minimal_controller import Script, drive

from arena.api import run_competition
from arena.competitions.loader import load_control_file
from arena.run.ringmaster import RunOptions


def slot_latencies(directory: Path) -> tuple[list[float], list[float]]:
    """Every response-to-next-command gap (ms) in the engines' notes, all slots.

    Also the gaps of the steady state: those that began after the last engine
    of the run read its first command and ended before the first engine was
    told to quit (so none overlaps an engine starting or stopping).
    """
    by_slot: dict[str, list[tuple[int, str, str]]] = {}
    first_reads: list[int] = []
    quits: list[int] = []
    for path in directory.glob("*.times"):
        slot, pid = path.stem.split("-")
        notes = by_slot.setdefault(slot, [])
        words = path.read_text().split()
        first_reads.append(int(words[1]))
        for kind, stamp in zip(words[::2], words[1::2], strict=True):
            notes.append((int(stamp), kind, pid))
            if kind == "q":
                quits.append(int(stamp))
    last_start = max(first_reads)
    first_quit = min(quits, default=2**63)
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
                    if sent_at > last_start and stamp < first_quit:
                        steady.append(gaps[-1])
                sent_at = None
                seen.add(pid)
            elif kind == "s":
                sent_at = stamp
            else:  # q: the engine is going away
                sent_at = None
    return gaps, steady


class TailDiagnosis(trio.abc.Instrument):
    """What the arena process did around its long gaps (``--diagnose``; module docstring)."""

    LONG: Final = 0.0005  # a task step this long (s) is counted

    def __init__(self) -> None:
        self.step_wall = self.step_cpu = 0.0
        self.steps = self.tasks_in_pass = 0
        self.long_wall: list[float] = []
        self.long_cpu: list[float] = []
        self.passes: list[tuple[float, int]] = []  # (seconds, tasks) from one I/O wait to the next
        self.pass_began = time.perf_counter()
        self.gc_began = 0.0
        self.pauses: dict[int, list[float]] = {}
        self.usage = resource.getrusage(resource.RUSAGE_SELF)

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        self.step_wall, self.step_cpu = time.perf_counter(), time.thread_time()

    def after_task_step(self, task: trio.lowlevel.Task) -> None:
        wall = time.perf_counter() - self.step_wall
        cpu = time.thread_time() - self.step_cpu
        self.steps += 1
        self.tasks_in_pass += 1
        if wall >= self.LONG:
            self.long_wall.append(wall)
        if cpu >= self.LONG:
            self.long_cpu.append(cpu)

    def before_io_wait(self, timeout: float) -> None:
        self.passes.append((time.perf_counter() - self.pass_began, self.tasks_in_pass))
        self.tasks_in_pass = 0

    def after_io_wait(self, timeout: float) -> None:
        self.pass_began = time.perf_counter()

    def collector(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.gc_began = time.perf_counter()
        else:
            self.pauses.setdefault(info["generation"], []).append(
                time.perf_counter() - self.gc_began
            )

    def report(self) -> str:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        lengths = [length for length, _ in self.passes] or [0.0]
        crowded = [tasks for _, tasks in self.passes] or [0]
        lines = [
            f"     loop passes: {len(self.passes)}, p50 {1000 * percentile(lengths, 0.5):.3f}"
            f"  p99 {1000 * percentile(lengths, 0.99):.3f}  max {1000 * max(lengths):.3f} ms;"
            f" tasks a pass p50 {percentile(crowded, 0.5)}, p99 {percentile(crowded, 0.99)}",
            f"     task steps: {self.steps}; >= 0.5 ms of wall time {len(self.long_wall)}"
            f" ({1000 * sum(self.long_wall):.0f} ms), of CPU {len(self.long_cpu)}"
            f" ({1000 * sum(self.long_cpu):.0f} ms)",
        ]
        for generation, pauses in sorted(self.pauses.items()):
            lines.append(
                f"     gc generation {generation}: {len(pauses)} pauses, p50"
                f" {1000 * percentile(pauses, 0.5):.3f}  max {1000 * max(pauses):.3f} ms,"
                f" {1000 * sum(pauses):.0f} ms in all"
            )
        lines.append(
            f"     context switches: {usage.ru_nvcsw - self.usage.ru_nvcsw} voluntary,"
            f" {usage.ru_nivcsw - self.usage.ru_nivcsw} involuntary"
        )
        return "\n".join(lines)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def latency_run(
    directory: Path,
    slots: int,
    games: int,
    reuse: bool,
    think: float = 0.0,
    diagnosis: TailDiagnosis | None = None,
) -> dict[str, float]:
    times = directory / f"times{slots}-{think}"
    times.mkdir(parents=True)
    os.environ["ARENA_BENCH_TIMES"] = str(times)
    os.environ["ARENA_BENCH_THINK"] = str(think)
    try:
        config = load_control_file(write_ctl(directory, f"lat{slots}", 9, games, reuse))
        options = RunOptions(parallel=slots, keyboard=False, handle_signals=False, freeze_gc=True)
        if diagnosis is not None:
            gc.callbacks.append(diagnosis.collector)
        cpu_before, wall_before = cpu_seconds(), time.perf_counter()
        summary = trio.run(
            partial(run_competition, config, options),
            instruments=[diagnosis] if diagnosis is not None else [],
        )
        cpu, wall = cpu_seconds() - cpu_before, time.perf_counter() - wall_before
    finally:
        del os.environ["ARENA_BENCH_TIMES"], os.environ["ARENA_BENCH_THINK"]
        if diagnosis is not None:
            gc.callbacks.remove(diagnosis.collector)
    assert summary.games_recorded == games, summary
    gaps, steady = slot_latencies(times)
    run = {
        "slots": slots,
        "games": games,
        "games_per_s": games / wall,
        "cpu_ms_per_game": 1000 * cpu / games,
        "round_trips_per_s": len(gaps) / wall,
        "cpu_us_per_round_trip": 1e6 * cpu / len(gaps),
    }
    add_gap_figures(run, "all", gaps)
    add_gap_figures(run, "steady", steady)
    return run


GAMES_PER_SLOT: Final = 30
MIN_GAMES: Final = 480
FEW_GAPS: Final = 5000  # a p99 over fewer is the maximum of a few dozen


def add_gap_figures(run: dict[str, float], name: str, values: list[float]) -> None:
    run[f"{name}_gaps"] = len(values)
    if values:
        run[f"{name}_p50"] = statistics.median(values)
        run[f"{name}_p99"] = percentile(values, 0.99)
        run[f"{name}_max"] = max(values)


def instant_script(games: int) -> Script:
    """A slot's commands for ``games`` 9x9 games between instant engines 0 (Black) and 1 (White)."""
    for _ in range(games):
        for engine in (0, 1):
            for line in ("boardsize 9", "clear_board", "komi 7.5"):
                yield engine, line, False
        passes, colour = 0, "b"
        while passes < 2:
            mover = 0 if colour == "b" else 1
            answer, _ = yield mover, f"genmove {colour}", False
            passes = passes + 1 if answer.lower() == "pass" else 0
            if passes < 2:
                yield 1 - mover, f"play {colour} {answer}", False
            colour = "w" if colour == "b" else "b"
    for engine in (0, 1):
        yield engine, "quit", False


def reference_run(directory: Path, slots: int, games: int, think: float = 0.0) -> dict[str, float]:
    """The same games and gaps driven by the minimal controller (the machine's floor)."""
    times = directory / f"reference{slots}-{think}"
    times.mkdir(parents=True)
    scripts = [instant_script(games // slots + (slot < games % slots)) for slot in range(slots)]
    environment = {"ARENA_BENCH_TIMES": str(times), "ARENA_BENCH_THINK": str(think)}
    cpu_before, wall_before = cpu_seconds(), time.perf_counter()
    drive([sys.executable, ENGINE], scripts, lambda slot: {**environment, "GOMILL_SLOT": str(slot)})
    cpu, wall = cpu_seconds() - cpu_before, time.perf_counter() - wall_before
    gaps, steady = slot_latencies(times)
    run = {
        "games_per_s": games / wall,
        "round_trips_per_s": len(gaps) / wall,
        "cpu_us_per_round_trip": 1e6 * cpu / len(gaps),
    }
    add_gap_figures(run, "steady", steady)
    return run


def describe(run: dict[str, float], name: str) -> str:
    if not run[f"{name}_gaps"]:
        return "no gaps"
    return (
        f"p50 {run[f'{name}_p50']:6.3f}  p99 {run[f'{name}_p99']:7.3f}"
        f"  max {run[f'{name}_max']:8.3f} ms ({run[f'{name}_gaps']:.0f} gaps)"
    )


def latency_runs(
    directory: Path,
    slot_counts: list[int],
    games: int,
    reuse: bool,
    think: float = 0.0,
    diagnose: bool = False,
) -> dict[int, dict[str, float]]:
    engines = "engines kept between games" if reuse else "new engines for every game"
    paced = f", genmove answered after {1000 * think:g} ms" if think else ", instant engines"
    print(f"response-to-next-command latency, 9x9 62-move games, {engines}{paced}:")
    runs = {}
    for slots in slot_counts:
        diagnosis = TailDiagnosis() if diagnose else None
        run = latency_run(directory, slots, max(games, 2 * slots), reuse, think, diagnosis)
        cycle = 1000 * slots / run["round_trips_per_s"]  # Little's law (module docstring)
        print(
            f"  N={slots:3d}: {run['games']:.0f} games, {run['games_per_s']:.1f} games/s,"
            f" {run['round_trips_per_s']:.0f} round trips/s, so {cycle:.2f} ms per round trip"
            f" of a game; the arena's CPU: {run['cpu_us_per_round_trip']:.0f} us per round trip,"
            f" {run['cpu_ms_per_game']:.2f} ms per game\n"
            f"     every gap : {describe(run, 'all')}\n"
            f"     steady    : {describe(run, 'steady')}"
        )
        if diagnosis is not None:
            print(diagnosis.report())
        if run["steady_gaps"] < FEW_GAPS:
            print(
                f"     (only {run['steady_gaps']:.0f} steady gaps: its p99 is near its maximum;"
                " run more games with --games)"
            )
        runs[slots] = run
        floor = reference_run(directory, slots, int(run["games"]), think)
        print(
            f"     reference : {describe(floor, 'steady')}  (the minimal controller, same"
            f" engines and games: {floor['games_per_s']:.1f} games/s,"
            f" {floor['round_trips_per_s']:.0f} round trips/s,"
            f" {floor['cpu_us_per_round_trip']:.0f} us of CPU per round trip)"
        )
        for key in ("p50", "p99", "max"):
            run[f"reference_{key}"] = floor[f"steady_{key}"]
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer games (a smoke run)")
    parser.add_argument(
        "--new-engines", action="store_true", help="also measure with new engines for every game"
    )
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help=f"games per N (default {GAMES_PER_SLOT} per slot, at least {MIN_GAMES}: the steady"
        " window opens only once the last of the 2N engines has started, which at N=64 takes"
        " seconds, so fewer games leave it a few hundred gaps whose p99 is their maximum)",
    )
    parser.add_argument(
        "--think", type=float, default=0.02, help="the paced run's genmove time (default 0.02 s)"
    )
    parser.add_argument("--slots", default="8,32,64", help="the N to measure (default 8,32,64)")
    parser.add_argument(
        "--diagnose",
        action="store_true",
        help="print what each arena run's tail is made of (module docstring)",
    )
    options = parser.parse_args()
    slot_counts = [int(word) for word in options.slots.split(",")]
    top = max(slot_counts)
    if options.quick:
        games = 4 * top
    elif options.games is not None:
        games = options.games
    else:
        games = max(MIN_GAMES, GAMES_PER_SLOT * top)
    result: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        runs = latency_runs(directory, slot_counts, games, True, diagnose=options.diagnose)
        for slots, run in runs.items():
            for key in ("p50", "p99", "max"):
                result[f"latency_{key}_ms_{slots}"] = round(run[f"steady_{key}"], 3)
            for key in ("p50", "p99", "max"):
                result[f"reference_latency_{key}_ms_{slots}"] = round(run[f"reference_{key}"], 3)
        if options.think:
            paced_games = 2 * top if options.quick else max(2 * top, games // 4)
            paced = latency_runs(
                directory / "paced", [top], paced_games, True, options.think, options.diagnose
            )
            for key in ("p50", "p99", "max"):
                result[f"paced_latency_{key}_ms_{top}"] = round(paced[top][f"steady_{key}"], 3)
                result[f"paced_reference_latency_{key}_ms_{top}"] = round(
                    paced[top][f"reference_{key}"], 3
                )
        if options.new_engines:
            latency_runs(directory / "new", slot_counts, games, reuse=False)
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
