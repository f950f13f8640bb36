"""How often the Monte Carlo tuner finds the true best candidate, serially and with 8 slots.

The candidates play a tiny engine (this file run with ``--engine``) whose
win probability is a known function of its one parameter x: a candidate
resigns at its first move with probability ``1 - p(x)``, otherwise plays one
move, and the opponent resigns at its first move.  With
``LINEAR(0, 1)`` split 8 the candidates sit at x = 1/16, 3/16, ... 15/16 and
p(x) = 0.3 + 0.4*exp(-((x - 0.6)/0.25)^2) gives 0.304 ... 0.691 (best) and
0.654 (runner-up): close enough that 500 games do not always tell them apart.

Part 1 (the measured rates) drives the real :class:`arena.competitions.mc_tuner.McTuner`
built from the real control file through a simulated ringmaster: N slots,
each free slot takes ``next_job()``, a game in flight finishes in random
order (uniformly among those in flight, so games really overlap), its result
is drawn from p(x) and given to ``record_result()``, then ``to_state()`` runs
as the state store does.  Those are the calls the ringmaster makes.  Serial
and parallel runs use common random numbers (the k-th game of a candidate
has the same outcome in both), which narrows the difference's noise.  A run
of Gomill's rule (games in flight ignored) is shown for comparison.

Part 2 runs the tiny engine as real processes through ``arena.run.ringmaster``
(a few runs of a few hundred games with ``--parallel 8``) and reports the
best candidate of each run: a check that the real arena path does the same
thing, not a measured rate.

Usage: python benchmarks/tuner_quality.py [--runs N] [--games N] [--real-runs N]
       [--real-games N] [--quick]

The last line is ``RESULT {json}`` with serial_success, parallel8_success
(fractions of runs that reported the true best), their difference in points,
gomill_parallel8_success, the real-arena figures and the timings.  Taken
while other jobs share the cores, the timings are noisy; the rates are not.
"""

from __future__ import annotations

import math
import os
import random
import sys

# --- the tiny engine (stdlib only, so it starts fast) ------------------------------------


def win_probability(x: float) -> float:
    """p(x): the chance that the candidate with parameter x beats the opponent."""
    return 0.3 + 0.4 * math.exp(-(((x - 0.6) / 0.25) ** 2))


def engine_main(argv: list[str]) -> int:
    """GTP on stdin/stdout: ``--param X`` (a candidate) or ``--opponent``."""
    opponent = "--opponent" in argv
    p = 0.0 if opponent else win_probability(float(argv[argv.index("--param") + 1]))
    rng = random.Random(int.from_bytes(os.urandom(8), "little"))
    moved = False
    size = 9
    read, write, flush = sys.stdin.readline, sys.stdout.write, sys.stdout.flush
    known = ("protocol_version", "name", "version", "list_commands", "boardsize",
             "clear_board", "komi", "play", "genmove", "quit")  # fmt: skip
    while True:
        line = read()
        if not line:
            return 0
        words = line.split()
        if not words:
            continue
        ident = words[0] if words[0].isdigit() else ""
        if ident:
            words = words[1:]
        command = words[0] if words else ""
        answer, ok = "", True
        if command == "genmove":
            if opponent or moved or rng.random() >= p:
                answer = "resign"
            else:
                answer = "E5" if size >= 5 else "A1"
                moved = True
        elif command == "clear_board":
            moved = False
        elif command == "boardsize":
            size = int(words[1])
        elif command == "protocol_version":
            answer = "2"
        elif command == "name":
            answer = "tuner-quality"
        elif command == "version":
            answer = "1"
        elif command == "list_commands":
            answer = "\n".join(known)
        elif command == "quit":
            write(f"={ident}\n\n")
            flush()
            return 0
        elif command not in known:
            ok, answer = False, "unknown command"
        mark = "=" if ok else "?"
        write(f"{mark}{ident} {answer}\n\n" if answer else f"{mark}{ident}\n\n")
        flush()


if __name__ == "__main__" and "--engine" in sys.argv:
    sys.exit(engine_main(sys.argv))


# --- the benchmark -------------------------------------------------------------------------

import argparse  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from functools import partial  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

THIS = str(Path(__file__).resolve())
SPLIT = 8


def write_ctl(directory: Path, name: str, games: int) -> Path:
    engine = [sys.executable, THIS, "--engine"]
    path = directory / f"{name}.ctl"
    path.write_text(
        "competition_type = 'mc_tuner'\n"
        f"players = {{'opp': Player({[*engine, '--opponent']!r})}}\n"
        f"parameters = [Parameter('x', scale=LINEAR(0, 1), split={SPLIT}, format='x: %.4f')]\n"
        "def make_candidate(x):\n"
        f"    return Player({engine!r} + ['--param', repr(x)])\n"
        "board_size = 9\nkomi = 7.5\n"
        "opponent = 'opp'\ncandidate_colour = 'b'\n"
        f"number_of_games = {games}\n"
        "exploration_coefficient = 0.45\ninitial_visits = 10\ninitial_wins = 5\n"
        "reuse_engines = True\n"
    )
    return path


def true_best_code() -> str:
    probabilities = [win_probability((k + 0.5) / SPLIT) for k in range(SPLIT)]
    return f"#{probabilities.index(max(probabilities))}"


def simulated_run(
    config: object, slots: int, run: int, *, virtual_loss: bool = True
) -> tuple[str, float]:
    """One tuning event through a simulated ringmaster.

    Returns the reported best candidate and the share of games the true best played.
    """
    from arena.competitions.mc_tuner import McTuner
    from arena.control.config import CompetitionConfig
    from arena.results import EndReason, GameJob, GameResult
    from gtp.vertex import Colour

    assert isinstance(config, CompetitionConfig)
    tuner = McTuner(config, seed=run, virtual_loss=virtual_loss)
    finish_order = random.Random(1_000_000 + run)
    # Common random numbers: the k-th game of candidate c has the same outcome in every mode.
    streams: dict[str, random.Random] = {}
    probability: dict[str, float] = {}
    in_flight: list[GameJob] = []
    while True:
        while len(in_flight) < slots:
            job = tuner.next_job()
            if job is None:
                break
            in_flight.append(job)
        if not in_flight:
            break
        job = in_flight.pop(finish_order.randrange(len(in_flight)))
        code = job.pairing
        if code not in streams:
            streams[code] = random.Random(f"{run}:{code}")
            x = tuner.settings.engine_parameters(tuner.space.parse_player_code(code))[0]
            assert isinstance(x, float)
            probability[code] = win_probability(x)
        won = streams[code].random() < probability[code]
        winner = Colour.BLACK if won else Colour.WHITE
        result = GameResult(job.game_id, job.black.code, job.white.code, winner, EndReason.RESIGN)
        tuner.record_result(result, {})
        tuner.to_state()
    snapshot = tuner.snapshot()
    assert snapshot.best is not None
    games = {c.code: c.games for c in snapshot.candidates}
    return snapshot.best.code, games.get(true_best_code(), 0) / snapshot.games_played


def measure(config: object, slots: int, runs: int, *, virtual_loss: bool = True) -> dict[str, Any]:
    best = true_best_code()
    start = time.perf_counter()
    reported: Counter[str] = Counter()
    shares = 0.0
    for run in range(runs):
        code, share = simulated_run(config, slots, run, virtual_loss=virtual_loss)
        reported[code] += 1
        shares += share
    seconds = time.perf_counter() - start
    return {
        "success": reported[best] / runs,
        "best_share": shares / runs,
        "seconds": seconds,
        "reported": dict(sorted(reported.items())),
    }


def real_arena(directory: Path, runs: int, games: int, parallel: int) -> dict[str, Any]:
    import trio

    from arena.control.loader import load_control_file
    from arena.run.ringmaster import RunOptions, run_competition
    from arena.store.files import CompetitionFiles
    from arena.store.journal import read_state
    from arena.store.restore import load_competition

    best = true_best_code()
    reported = []
    start = time.perf_counter()
    for run in range(runs):
        config = load_control_file(write_ctl(directory, f"real{run}", games))
        options = RunOptions(parallel=parallel, keyboard=False, handle_signals=False)
        summary = trio.run(partial(run_competition, config, options))
        assert summary.games_recorded == games, summary
        files = CompetitionFiles.for_control_file(config.control_path)
        competition = load_competition(config, read_state(files, config.competition_type))
        snapshot = competition.snapshot()
        reported.append(snapshot.best.code if snapshot.best else None)
    seconds = time.perf_counter() - start
    return {
        "runs": runs,
        "games": games,
        "parallel": parallel,
        "reported_best": reported,
        "success": sum(code == best for code in reported) / runs,
        "games_per_s": runs * games / seconds,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400, help="simulated runs per mode")
    parser.add_argument("--games", type=int, default=500, help="games per simulated run")
    parser.add_argument("--real-runs", type=int, default=2)
    parser.add_argument("--real-games", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="100 runs, 1 real run of 60 games")
    options = parser.parse_args()
    if options.quick:
        options.runs, options.real_runs, options.real_games = 100, 1, 60
    from arena.control.loader import load_control_file

    probabilities = [round(win_probability((k + 0.5) / SPLIT), 3) for k in range(SPLIT)]
    print(f"candidates x = (k+0.5)/{SPLIT}, p(x) = {probabilities}; true best {true_best_code()}")
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        config = load_control_file(write_ctl(directory, "simulated", options.games))
        print(f"simulated ringmaster: {options.runs} runs x {options.games} games per mode")
        serial = measure(config, 1, options.runs)
        parallel = measure(config, 8, options.runs)
        gomill = measure(config, 8, options.runs, virtual_loss=False)
        for label, mode in (
            ("serial", serial),
            ("parallel 8", parallel),
            ("parallel 8, Gomill's rule (games in flight ignored)", gomill),
        ):
            print(f"  {label}: success {mode['success']:.3f},"
                  f" true best's share of games {mode['best_share']:.3f}"
                  f" ({mode['seconds']:.1f} s); reported {mode['reported']}")  # fmt: skip
        difference = 100 * (parallel["success"] - serial["success"])
        verdict = "within" if abs(difference) <= 5 else "NOT within"
        print(f"  parallel - serial = {difference:+.1f} points ({verdict} 5 points)")
        print(f"real arena: {options.real_runs} runs x {options.real_games} games, --parallel 8")
        real = real_arena(directory, options.real_runs, options.real_games, 8)
        print(f"  reported best {real['reported_best']}  ({real['games_per_s']:.1f} games/s)")
    figures: dict[str, object] = {
        "serial_success": serial["success"],
        "parallel8_success": parallel["success"],
        "difference_points": round(difference, 1),
        "within_5_points": abs(difference) <= 5,
        "gomill_parallel8_success": gomill["success"],
        "serial_best_share": round(serial["best_share"], 4),
        "parallel8_best_share": round(parallel["best_share"], 4),
        "gomill_parallel8_best_share": round(gomill["best_share"], 4),
        "runs": options.runs,
        "games": options.games,
        "simulated_s_per_run": round(serial["seconds"] / options.runs, 4),
        "real_runs": real["runs"],
        "real_games": real["games"],
        "real_parallel8_success": real["success"],
        "real_reported_best": real["reported_best"],
        "real_games_per_s": round(real["games_per_s"], 1),
    }
    print("RESULT " + json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
