"""Clocks under load: many games at once under byo-yomi, and how much the arena over-charges.

``--games-at-once`` games (default 64) of 9x9 play at once under byo-yomi of
0.1 s a move (no main time, one period) with the default time margin, in a
run of the real ringmaster (in this process, records and journal on disk).
The engines (``benchmarks/clocked_engine.py``, kept between games) sleep 90%
of their period each move and measure their own think time with
CLOCK_MONOTONIC, from reading the command line to writing the answer; they
report it through ``gomill-explain_last_move``, so every move's record has
both the time the arena charged (from just before writing ``genmove`` to the
read of its answer) and the engine's own.  The difference is what the
harness adds to an engine's clock: pipes, wake-ups and the arena's own
delays.

The reference, measured in the same run: the same engines, moves and
commands driven by the least a controller can do (one ``selectors`` loop in
this process, non-blocking reads and writes, no trio, no referee, no
records).  Its excess is what the machine and the engines cost as they are
loaded now; the arena's excess above it is the arena's own.

Usage: python benchmarks/clock_stress.py [--games-at-once N] [--games G] [--period S] [--loaded]

``--loaded`` adds a second run on a machine made busy on purpose: four
processes spinning on the CPU (``benchmarks/load.py``) for the run's length,
``--loaded-games`` games (default 48, 62 moves each) 16 at once under
byo-yomi of 0.2 s with engines sleeping 90% of it, and in the same run 8
games of an engine that overruns at its 5th genmove by the margin and 50 ms
more.  Each engine keeps its own log of every genmove (``clocked_engine.py
--log``), so every loss on time is classified by the engine's own account:
engine-caused (its own time beyond the allowance plus the margin, or it meant
to sleep that long) or harness-caused (the arena or the machine).  A game the
arena voided for a stalled clock is replayed; they are counted.

Reports losses on time and the per-move excess (charged minus the engine's
own) as p50, p99 and max, for the arena and the reference, with the arena's
own per-game latency (from a response read to the next command written), its
CPU and what bounds it: how late a task sleeping 5 ms in the arena's event
loop wakes (the loop's stalls), how often the kernel took the CPU from the
arena (involuntary context switches) and the machine's load average.  The
last line is
``RESULT {json}`` with time_losses, charge_excess_p99_ms,
charge_excess_max_ms and moves, and with ``--loaded`` loaded_moves,
loaded_harness_caused_losses, loaded_engine_caused_losses, loaded_stall_voids
and the overrunning engine's losses at its move K.  Targets on this 2-core
machine: time_losses = 0 and charge_excess_p99_ms <= 1.0; loaded:
loaded_harness_caused_losses = 0, loaded_stall_voids at most 10% of the
loaded games, and the overrunning engine losing every game at its move K.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import trio
from load import cpu_hog  # this script's folder
from minimal_controller import Script, drive

from arena.api import run_competition
from arena.competitions.loader import load_control_file
from arena.control.config import CompetitionConfig
from arena.events import Event, EventBus, GameFinished, RunState, RunStateChanged
from arena.results import EndReason, GameRecord
from arena.run.ringmaster import RunOptions
from gtp.vertex import Colour

ENGINE = str(Path(__file__).with_name("clocked_engine.py"))


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def preemptions() -> int:
    """Involuntary context switches of this process (the kernel ran something else)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_nivcsw


async def watch_the_loop(lateness: list[float]) -> None:
    """Sleep 5 ms again and again; how much later than asked each wake-up comes."""
    while True:
        before = time.perf_counter()
        await trio.sleep(0.005)
        lateness.append(time.perf_counter() - before - 0.005)


async def run_with_probe(
    config: CompetitionConfig, options: RunOptions, bus: EventBus
) -> list[float]:
    lateness: list[float] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(watch_the_loop, lateness)
        await run_competition(config, options, events=bus)
        nursery.cancel_scope.cancel()
    return lateness


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def write_ctl(directory: Path, games: int, period: float, share: float, reuse: bool = True) -> Path:
    command = [sys.executable, ENGINE, f"--share={share}"]
    path = directory / "clocks.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{'x': Player({command!r}), 'y': Player({command!r})}}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        f"skip_player_checks = True\nreuse_engines = {reuse}\n"
        f"time_control = ByoYomi(main=0, period={period}, periods=1)\n"
        f"matchups = [Matchup('x', 'y', alternating=True, number_of_games={games})]\n"
    )
    return path


def excesses(record: GameRecord) -> list[float]:
    """Per genmove: seconds the arena charged minus the engine's own think time."""
    found = []
    for move in record.moves:
        if move.seconds is None or not move.comment.startswith("think_ns="):
            continue
        own = int(move.comment.removeprefix("think_ns=")) / 1e9
        found.append(move.seconds - own)
    return found


def run(
    games_at_once: int, games: int, period: float, share: float, reuse: bool = True
) -> dict[str, float]:
    records: list[GameRecord] = []

    def collect(event: Event) -> None:
        if isinstance(event, GameFinished) and event.record is not None:
            records.append(event.record)

    bus = EventBus()
    bus.subscribe(collect)
    with tempfile.TemporaryDirectory() as tmp:
        config = load_control_file(write_ctl(Path(tmp), games, period, share, reuse))
        options = RunOptions(
            parallel=games_at_once, keyboard=False, handle_signals=False, freeze_gc=True
        )
        cpu_before, wall_before, switches = cpu_seconds(), time.perf_counter(), preemptions()
        lateness = trio.run(partial(run_with_probe, config, options, bus))
        cpu, wall = cpu_seconds() - cpu_before, time.perf_counter() - wall_before
        switches = preemptions() - switches
    results = [r.result for r in records if r.result is not None]
    if len(results) != games:
        sys.exit(f"clock_stress: {len(results)} results of {games} games")
    losses = [r for r in results if r.end is EndReason.TIME]
    for lost in losses[:5]:
        print(f"  lost on time: {lost.game_id}: {lost.reason}")
    excess = [e for record in records for e in excesses(record)]
    latency = [r.latency for r in records if r.latency is not None]
    lag_max = [1000 * lat.longest for lat in latency]
    lag_mean = sum(lat.total for lat in latency) / max(1, sum(lat.commands for lat in latency))
    return {
        "games": len(results),
        "moves": len(excess),
        "time_losses": len(losses),
        "excess_p50_ms": 1000 * percentile(excess, 0.50),
        "excess_p99_ms": 1000 * percentile(excess, 0.99),
        "excess_max_ms": 1000 * max(excess),
        "excess_min_ms": 1000 * min(excess),
        "arena_latency_mean_ms": 1000 * lag_mean,
        "arena_latency_game_max_p50_ms": percentile(lag_max, 0.5),
        "arena_latency_max_ms": max(lag_max),
        "arena_cpu_ms_per_move": 1000 * cpu / max(1, len(excess)),
        "arena_cpu_share": cpu / wall,
        "preemptions_per_s": switches / wall,
        "loop_late_p50_ms": 1000 * percentile(lateness, 0.5),
        "loop_late_p99_ms": 1000 * percentile(lateness, 0.99),
        "loop_late_max_ms": 1000 * max(lateness),
        "wall_s": wall,
    }


# ---------------------------------------------------------------------------
# Loaded: a busy machine, and every loss on time classified by the engine's own log

LOADED_AT_ONCE = 16
LOADED_PERIOD = 0.2
OVERRUN_K = 5  # the overrunning engine's genmove (of each game) that overruns
OVERRUN_GAMES = 8
OVERRUN_BY = 0.05  # past the allowance and the margin


def write_loaded_ctl(directory: Path, games: int, log: Path, reuse: bool) -> Path:
    margin = 0.05
    base = [sys.executable, ENGINE, "--share=0.9", f"--log={log}"]
    late = [*base, f"--sleep={OVERRUN_K}:{LOADED_PERIOD + margin + OVERRUN_BY}"]
    path = directory / "loaded.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{'x': Player({base!r}), 'y': Player({base!r}), 'late': Player({late!r})}}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\nskip_player_checks = True\n"
        f"reuse_engines = {reuse}\ntime_margin = {margin}\n"
        f"time_control = ByoYomi(main=0, period={LOADED_PERIOD}, periods=1)\n"
        "matchups = [\n"
        f"    Matchup('x', 'y', alternating=True, number_of_games={games}),\n"
        f"    Matchup('late', 'y', alternating=True, number_of_games={OVERRUN_GAMES}),\n"
        "]\n"
    )
    return path


def engine_times(log: Path) -> dict[tuple[str, int], list[tuple[int, int, int | None]]]:
    """(game, K) -> each try's (start ns, planned ns, end ns or None), from the engines' log."""
    starts: dict[tuple[str, int], list[tuple[int, int, int | None]]] = {}
    for line in log.read_text().splitlines():
        words = line.split()
        key = (words[1], int(words[2]))
        if words[0] == "start":
            starts.setdefault(key, []).append((int(words[3]), int(words[4]), None))
        elif words[0] == "end" and starts.get(key):
            start, planned, _ = starts[key][-1]
            starts[key][-1] = (start, planned, int(words[3]))
    return starts


def engine_games(records: list[GameRecord]) -> dict[tuple[str, Colour], str]:
    """(game id, colour) -> the engine's own name for that game, ``PID:N``.

    Each engine's ``version`` names its pid; a slot plays its games one after
    another, so an engine's N-th game is the N-th record naming its pid, in the
    order the games were announced (voids and replays included).
    """
    counts: dict[str, int] = {}
    keys: dict[tuple[str, Colour], str] = {}
    for record in records:
        colours = (Colour.BLACK, Colour.WHITE)
        for colour, description in zip(colours, record.descriptions, strict=True):
            pid = description.rsplit("pid ", 1)[-1]
            counts[pid] = counts.get(pid, 0) + 1
            keys[(record.job.game_id, colour)] = f"{pid}:{counts[pid]}"
    return keys


def classify_loss(
    record: GameRecord,
    times: dict[tuple[str, int], list[tuple[int, int, int | None]]],
    keys: dict[tuple[str, Colour], str],
) -> tuple[str, str]:
    """'engine' or 'harness', and why: the loser's own account of the move it lost on."""
    result = record.result
    assert result is not None and result.winner is not None
    loser = result.winner.opponent
    k = sum(1 for move in record.moves if move.colour is loser) + 1
    tries = times.get((keys.get((record.job.game_id, loser), "-"), k))
    if not tries:
        return "harness", f"its genmove {k} was never read"
    start, planned, end = tries[-1]  # a replayed game's last try is the counted one
    limit = (LOADED_PERIOD + record.job.settings.time_margin) * 1e9
    own = planned if end is None else end - start  # killed mid-think: what it meant to take
    how = "meant to take" if end is None else "took"
    return ("engine" if own > limit else "harness"), f"its genmove {k} {how} {own / 1e6:.0f} ms"


def run_loaded(games: int, reuse: bool) -> dict[str, float]:
    records: list[GameRecord] = []
    halted: list[str] = []

    def collect(event: Event) -> None:
        if isinstance(event, GameFinished) and event.record is not None:
            records.append(event.record)
        elif isinstance(event, RunStateChanged) and event.state is RunState.HALTED:
            halted.append(event.message)

    bus = EventBus()
    bus.subscribe(collect)
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "engines.log"
        config = load_control_file(write_loaded_ctl(Path(tmp), games, log, reuse))
        options = RunOptions(
            parallel=LOADED_AT_ONCE, keyboard=False, handle_signals=False, freeze_gc=True
        )
        with cpu_hog(4, max_seconds=1800):
            load = os.getloadavg()[0]
            wall_before = time.perf_counter()
            lateness = trio.run(partial(run_with_probe, config, options, bus))
            wall = time.perf_counter() - wall_before
            load = max(load, os.getloadavg()[0])
        times = engine_times(log)
    keys = engine_games(records)
    counted = [r for r in records if r.result is not None]
    stall_voids = [r for r in records if r.stall is not None]
    other_voids = [r for r in records if r.result is None and r.stall is None]
    normal = [r for r in counted if "late" not in (r.job.black.code, r.job.white.code)]
    late = [r for r in counted if "late" in (r.job.black.code, r.job.white.code)]
    classes = {"engine": 0, "harness": 0}
    for record in normal:
        assert record.result is not None
        if record.result.end is EndReason.TIME:
            kind, why = classify_loss(record, times, keys)
            classes[kind] += 1
            print(f"  lost on time ({kind}-caused: {why}): {record.result.reason}")
    late_at_k = 0
    for record in late:
        result = record.result
        assert result is not None
        black_is_late = record.job.black.code == "late"
        move_k = 2 * OVERRUN_K - 1 if black_is_late else 2 * OVERRUN_K
        lost_at_k = result.end is EndReason.TIME and result.reason.startswith(
            f"late ({'black' if black_is_late else 'white'}) lost on time at move {move_k}:"
        )
        late_at_k += lost_at_k
        if result.end is EndReason.TIME and not lost_at_k:
            classes[classify_loss(record, times, keys)[0]] += 1
        if not lost_at_k:
            print(f"  the overrunning engine's game {result.game_id}: {result.reason}")
    for record in stall_voids[:5]:
        print(f"  stall void: {record.job.game_id}: {record.void_reason}")
    for record in other_voids[:5]:
        print(f"  other void: {record.job.game_id}: {record.void_reason}")
    moves = sum(len(r.moves) for r in records)
    return {
        "games": len(counted),
        "moves": moves,
        "harness": classes["harness"],
        "engine": classes["engine"],
        "stall_voids": len(stall_voids),
        "other_voids": len(other_voids),
        "max_stall_ms": 1000 * max((r.stall or 0.0 for r in stall_voids), default=0.0),
        "late_games": len(late),
        "late_lost_at_k": late_at_k,
        "halted": len(halted),
        "halt_message": halted[0] if halted else "",
        "loop_late_p99_ms": 1000 * percentile(lateness, 0.99),
        "loop_late_max_ms": 1000 * max(lateness),
        "load": load,
        "wall_s": wall,
    }


# ---------------------------------------------------------------------------
# The reference: a minimal controller (benchmarks/minimal_controller.py)


def slot_script(games: int, period: float, excess: list[float]) -> Script:
    """The commands of ``games`` games between engines 0 (Black) and 1 (White), as the arena's."""
    told = f"{period:g}"
    for _ in range(games):
        for engine in (0, 1):
            for line in ("boardsize 9", "clear_board", "komi 7.5"):
                yield engine, line, False
            yield engine, f"kgs-time_settings byoyomi 0 {told} 1", False
        passes, colour = 0, "b"
        while passes < 2:
            mover = 0 if colour == "b" else 1
            yield mover, f"time_left {colour} {told} 1", False
            answer, charged = yield mover, f"genmove {colour}", True
            own, _ = yield mover, "gomill-explain_last_move", False
            excess.append(charged - int(own.removeprefix("think_ns=")) / 1e9)
            passes = passes + 1 if answer.lower() == "pass" else 0
            if passes < 2:
                yield 1 - mover, f"play {colour} {answer}", False
            colour = "w" if colour == "b" else "b"


def reference(games_at_once: int, games: int, period: float, share: float) -> list[float]:
    """Per-move excess of the minimal controller over the same load."""
    excess: list[float] = []
    scripts = [
        slot_script(games // games_at_once + (slot < games % games_at_once), period, excess)
        for slot in range(games_at_once)
    ]
    drive([sys.executable, ENGINE, f"--share={share}"], scripts)
    return excess


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-at-once", type=int, default=64)
    parser.add_argument("--games", type=int, default=128, help="in all (62 moves each)")
    parser.add_argument("--period", type=float, default=0.1, help="byo-yomi seconds a move")
    parser.add_argument("--share", type=float, default=0.9, help="of the period engines sleep")
    parser.add_argument(
        "--new-engines", action="store_true", help="new engines for every game (no reuse_engines)"
    )
    parser.add_argument(
        "--loaded", action="store_true", help="also the loaded run (see the module docstring)"
    )
    parser.add_argument("--loaded-games", type=int, default=48, help="of the normal matchup")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    figures = run(args.games_at_once, args.games, args.period, args.share, not args.new_engines)
    floor = reference(args.games_at_once, args.games, args.period, args.share)
    print(
        f"{figures['games']} games, {args.games_at_once} at once, byo-yomi {args.period:g}s,"
        f" engines sleeping {100 * args.share:g}% of it: {figures['moves']} moves timed"
    )
    print(f"losses on time: {figures['time_losses']}")
    print(
        "charged minus the engine's own time per move:"
        f" p50 {figures['excess_p50_ms']:.3f} ms, p99 {figures['excess_p99_ms']:.3f} ms,"
        f" max {figures['excess_max_ms']:.3f} ms (min {figures['excess_min_ms']:.3f} ms)"
    )
    print(
        "the same for the reference (a minimal controller, same engines, same moments):"
        f" p50 {1000 * percentile(floor, 0.5):.3f} ms, p99 {1000 * percentile(floor, 0.99):.3f} ms,"
        f" max {1000 * max(floor):.3f} ms over {len(floor)} moves"
    )
    print(
        "the arena's own latency (response read to next command written):"
        f" mean {figures['arena_latency_mean_ms']:.3f} ms, per-game max"
        f" p50 {figures['arena_latency_game_max_p50_ms']:.2f} ms,"
        f" max {figures['arena_latency_max_ms']:.2f} ms"
    )
    print(
        f"arena CPU {figures['arena_cpu_ms_per_move']:.3f} ms per move"
        f" ({100 * figures['arena_cpu_share']:.0f}% of a core);"
        f" {figures['wall_s']:.1f} s in all"
    )
    print(
        "what bounds it: a 5 ms sleeper in the arena's loop wakes late by"
        f" p50 {figures['loop_late_p50_ms']:.2f} ms, p99 {figures['loop_late_p99_ms']:.2f} ms,"
        f" max {figures['loop_late_max_ms']:.1f} ms; the kernel preempted the arena"
        f" {figures['preemptions_per_s']:.0f} times/s; load average"
        f" {load_before:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores"
    )
    result = {
        "time_losses": figures["time_losses"],
        "charge_excess_p99_ms": round(figures["excess_p99_ms"], 3),
        "charge_excess_max_ms": round(figures["excess_max_ms"], 3),
        "moves": figures["moves"],
        "charge_excess_p50_ms": round(figures["excess_p50_ms"], 3),
        "arena_latency_mean_ms": round(figures["arena_latency_mean_ms"], 3),
        "loop_late_p99_ms": round(figures["loop_late_p99_ms"], 3),
        "load_average": round(load_before, 1),
        "reference_excess_p50_ms": round(1000 * percentile(floor, 0.5), 3),
        "reference_excess_p99_ms": round(1000 * percentile(floor, 0.99), 3),
        "reference_excess_max_ms": round(1000 * max(floor), 3),
    }
    if args.loaded:
        loaded = run_loaded(args.loaded_games, not args.new_engines)
        played = loaded["games"] + loaded["stall_voids"] + loaded["other_voids"]
        print(
            f"loaded: {loaded['games']} games counted, {loaded['moves']} moves,"
            f" {LOADED_AT_ONCE} at once, byo-yomi {LOADED_PERIOD:g}s, beside 4 busy processes"
            f" (load average up to {loaded['load']:.1f} on {os.cpu_count()} cores),"
            f" {loaded['wall_s']:.0f} s"
        )
        print(
            f"loaded losses on time: {loaded['harness']} harness-caused,"
            f" {loaded['engine']} engine-caused (outside the overrunning engine's move K)"
        )
        print(
            f"loaded stall voids: {loaded['stall_voids']} of {played} games played"
            f" ({100 * loaded['stall_voids'] / max(1, played):.1f}%; longest stall"
            f" {loaded['max_stall_ms']:.0f} ms); other voids: {loaded['other_voids']}"
        )
        print(
            f"the overrunning engine lost {loaded['late_lost_at_k']} of its"
            f" {loaded['late_games']} counted games on time at its move K={OVERRUN_K}"
        )
        print(
            f"the loop under load: a 5 ms sleeper woke late by p99"
            f" {loaded['loop_late_p99_ms']:.1f} ms, max {loaded['loop_late_max_ms']:.0f} ms"
        )
        if loaded["halted"]:
            print(f"the loaded run halted: {loaded['halt_message']}")
        result.update(
            {
                "loaded_moves": loaded["moves"],
                "loaded_games": loaded["games"],
                "loaded_harness_caused_losses": loaded["harness"],
                "loaded_engine_caused_losses": loaded["engine"],
                "loaded_stall_voids": loaded["stall_voids"],
                "loaded_stall_void_share": round(loaded["stall_voids"] / max(1, played), 3),
                "loaded_other_voids": loaded["other_voids"],
                "loaded_overrun_games": loaded["late_games"],
                "loaded_overrun_lost_at_k": loaded["late_lost_at_k"],
                "loaded_halted": bool(loaded["halted"]),
                "loaded_load_average": round(loaded["load"], 1),
            }
        )
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
