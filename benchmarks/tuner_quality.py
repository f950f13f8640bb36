"""How well the tuners find what is best, driving the real tuner objects on known problems.

Part 1, the Monte Carlo tuner on a close set: six candidates (an
``EXPLICIT`` scale, split 6) whose win rates against the opponent are 0.80
(the true best), 0.70 and four lower (0.60, 0.50, 0.40, 0.30), 400 games a
run, Gomill's usual settings (exploration 0.45, initial visits 10, initial
wins 5).  A run succeeds when the candidate the tuner reports best (most
wins, Gomill's rule) is the 0.80 one.  Measured for the seed's UCB and for
``selection_rule = 'kl-ucb'``, serially and with 8 games in flight, and (as
an extra) on a harder set (0.80, 0.70, 0.65, 0.60, 0.55, 0.50).

Part 2, the continuous tuners on a known smooth problem: a candidate with
parameters (x, y) has strength ``s = -((x - 0.6)**2 + (y + 0.4)**2)`` and
beats a player of strength ``t`` with probability ``1/(1 + exp(t - s))``
(a logistic of a quadratic, optimum (0.6, -0.4)).  The cross-entropy tuner
plays an opponent of strength -1 (the optimum wins 73%), starting from
N(0, 1) per parameter: 10 generations of 20 samples, 10 games each,
elite 0.2, step 0.8.  SPSA plays its pairs against each other from (0, 0),
bounds [-3, 3], 1,000 iterations, c_end 0.2 and r_end 0.01 for both
parameters, A, alpha and gamma at their defaults; also with 8 games in
flight.  Both spend 2,000 games a run; the figure is the distance of the
final estimate (the last distribution's mean; the last theta) from the
optimum over the runs (median and 90th percentile).  These settings were
picked from a sweep of 30-run trials of a few alternatives each (CEM
10x20x10 elite 0.2 to 0.3 against 20x10x10 and 20x20x5; SPSA c_end 0.1 to
0.3, r_end 0.01 to 0.05); the figures here are fresh runs with other seeds.

The simulated ringmaster makes the calls the real one does: ``slots`` game
slots each take ``next_job()``; a game in flight finishes in random order
(uniformly among those in flight, so games really overlap); its result goes
to ``record_result()``, then ``to_state()`` runs as the state store does.
Monte Carlo runs use common random numbers (the k-th game of a candidate has
the same outcome in every mode), so the modes' differences are not noise of
the outcomes.

Part 3 runs the tiny engine (this file run with ``--engine``) as real
processes through ``arena.run.ringmaster`` on the close set with KL-UCB and
``--parallel 8`` (a few runs), a check that the real arena path does the
same thing, not a measured rate.

Usage: python benchmarks/tuner_quality.py [--mc-runs N] [--runs N] [--real-runs N] [--quick]

The last line is ``RESULT {json}`` with mc_close_ucb, mc_close_ucb_parallel8,
mc_close_new, mc_close_new_parallel8 (shares of runs reporting the true
best), the harder set's, cem/spsa median and 90th-percentile distances,
budget_games, the run counts and timings.
"""

from __future__ import annotations

import math
import os
import random
import sys

# --- the tiny engine (stdlib only, so it starts fast) ------------------------------------


def engine_main(argv: list[str]) -> int:
    """GTP on stdin/stdout: ``--p P`` (a candidate winning with probability P) or ``--opponent``."""
    opponent = "--opponent" in argv
    p = 0.0 if opponent else float(argv[argv.index("--p") + 1])
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
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from functools import partial  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

THIS = str(Path(__file__).resolve())
# The close set in a fixed shuffled order (the best is not first), and a harder one.
CLOSE_SET = (0.40, 0.70, 0.30, 0.80, 0.50, 0.60)
HARDER_SET = (0.60, 0.80, 0.50, 0.65, 0.70, 0.55)
MC_GAMES = 400
OPTIMUM = (0.6, -0.4)
OPPONENT_STRENGTH = -1.0
BUDGET = 2000
CEM = {"generations": 10, "samples": 20, "batch": 10, "elite": 0.2, "step": 0.8}
SPSA = {"iterations": 1000, "c_end": 0.2, "r_end": 0.01}


def mc_ctl(directory: Path, name: str, probabilities: tuple[float, ...], rule: str) -> Path:
    engine = [sys.executable, THIS, "--engine"]
    path = directory / f"{name}.ctl"
    path.write_text(
        "competition_type = 'mc_tuner'\n"
        f"players = {{'opp': Player({[*engine, '--opponent']!r})}}\n"
        f"parameters = [Parameter('p', scale=EXPLICIT({list(probabilities)!r}),"
        f" split={len(probabilities)}, format='p: %.2f')]\n"
        "def make_candidate(p):\n"
        f"    return Player({engine!r} + ['--p', repr(p)])\n"
        "board_size = 9\nkomi = 7.5\n"
        "opponent = 'opp'\ncandidate_colour = 'b'\n"
        f"number_of_games = {MC_GAMES}\nselection_rule = {rule!r}\n"
        "exploration_coefficient = 0.45\ninitial_visits = 10\ninitial_wins = 5\n"
        "reuse_engines = True\n"
    )
    return path


def ce_ctl(directory: Path) -> Path:
    path = directory / "cem.ctl"
    path.write_text(
        "competition_type = 'ce_tuner'\n"
        "players = {'opp': Player('synthetic-opponent')}\n"
        "parameters = [Parameter('x', initial_mean=0.0, initial_variance=1.0),\n"
        "              Parameter('y', initial_mean=0.0, initial_variance=1.0)]\n"
        "def make_candidate(x, y):\n"
        "    return Player(['synthetic', repr(x), repr(y)])\n"
        "board_size = 9\nkomi = 7.5\nopponent = 'opp'\ncandidate_colour = 'random'\n"
        f"number_of_generations = {CEM['generations']}\n"
        f"samples_per_generation = {CEM['samples']}\nbatch_size = {CEM['batch']}\n"
        f"elite_proportion = {CEM['elite']}\nstep_size = {CEM['step']}\n"
    )
    return path


def spsa_ctl(directory: Path) -> Path:
    axis = f"start=0.0, min=-3, max=3, c_end={SPSA['c_end']}, r_end={SPSA['r_end']}"
    path = directory / "spsa.ctl"
    path.write_text(
        "competition_type = 'spsa_tuner'\n"
        f"parameters = [Parameter('x', {axis}), Parameter('y', {axis})]\n"
        "def make_candidate(x, y):\n"
        "    return Player(['synthetic', repr(x), repr(y)])\n"
        f"board_size = 9\nkomi = 7.5\nnumber_of_iterations = {SPSA['iterations']}\n"
    )
    return path


Winner = Callable[[Any], Any]  # GameJob -> Colour


def drive(competition: Any, slots: int, order: random.Random, winner: Winner) -> int:
    """Play a competition to its end through a simulated ringmaster; returns the games."""
    from arena.results import EndReason, GameResult

    in_flight: list[Any] = []
    games = 0
    while True:
        while len(in_flight) < slots:
            job = competition.next_job()
            if job is None:
                break
            in_flight.append(job)
        if not in_flight:
            return games
        job = in_flight.pop(order.randrange(len(in_flight)))
        result = GameResult(job.game_id, job.black.code, job.white.code, winner(job),
                            EndReason.RESIGN)  # fmt: skip
        competition.record_result(result, {})
        competition.to_state()
        games += 1


def candidate_streams(run: int) -> Winner:
    """Outcomes from one random stream per candidate (common random numbers across modes)."""
    from gtp.vertex import Colour

    streams: dict[str, random.Random] = {}

    def winner(job: Any) -> Any:
        code = job.black.code
        stream = streams.setdefault(code, random.Random(f"{run}:{code}"))
        won = stream.random() < float(job.black.command[-1])
        return Colour.BLACK if won else Colour.WHITE

    return winner


def mc_close(config: Any, slots: int, runs: int, *, virtual_loss: bool = True) -> dict[str, Any]:
    """Share of runs in which the 0.80 candidate is reported best."""
    from arena.competitions.mc_tuner import McTuner

    start = time.perf_counter()
    successes = 0
    for run in range(runs):
        tuner = McTuner(config, seed=run, virtual_loss=virtual_loss)
        drive(tuner, slots, random.Random(1_000_000 + run), candidate_streams(run))
        best = tuner.snapshot().best
        assert best is not None
        successes += best.parameters == ("p: 0.80",)
    return {"success": successes / runs, "seconds": time.perf_counter() - start}


def strength(player: Any) -> float:
    if player.command[0] != "synthetic":
        return OPPONENT_STRENGTH
    x, y = float(player.command[1]), float(player.command[2])
    return -((x - OPTIMUM[0]) ** 2 + (y - OPTIMUM[1]) ** 2)


def logistic_outcomes(outcomes: random.Random) -> Winner:
    """Black wins with probability 1 / (1 + exp(strength(white) - strength(black)))."""
    from gtp.vertex import Colour

    def winner(job: Any) -> Any:
        z = strength(job.white) - strength(job.black)
        return Colour.BLACK if outcomes.random() * (1 + math.exp(z)) < 1 else Colour.WHITE

    return winner


def continuous(kind: str, config: Any, runs: int, slots: int) -> dict[str, Any]:
    """Distances of the final estimates from the optimum over ``runs`` runs."""
    from arena.competitions.ce_tuner import CeTuner
    from arena.competitions.spsa_tuner import SpsaTuner

    start = time.perf_counter()
    distances = []
    games = 0
    for run in range(runs):
        seed = 50_000 + run  # not the seeds of the trials the settings were picked with
        winner = logistic_outcomes(random.Random(seed))
        if kind == "ce_tuner":
            tuner: Any = CeTuner(config, seed=seed)
            games = drive(tuner, slots, random.Random(seed + 1), winner)
            estimate = tuner.snapshot().distribution.means
        else:
            tuner = SpsaTuner(config, seed=seed)
            games = drive(tuner, slots, random.Random(seed + 1), winner)
            estimate = tuner.theta
        distances.append(math.dist(estimate, OPTIMUM))
    distances.sort()
    return {
        "median": statistics.median(distances),
        "p90": distances[min(len(distances) - 1, math.ceil(0.9 * len(distances)) - 1)],
        "games": games,
        "seconds": time.perf_counter() - start,
    }


def real_arena(directory: Path, runs: int, parallel: int) -> dict[str, Any]:
    import trio

    from arena.api import run_competition
    from arena.competitions.loader import load_control_file
    from arena.run.ringmaster import RunOptions
    from arena.store.files import CompetitionFiles
    from arena.store.journal import read_state
    from arena.store.restore import load_competition

    reported = []
    start = time.perf_counter()
    for run in range(runs):
        config = load_control_file(mc_ctl(directory, f"real{run}", CLOSE_SET, "kl-ucb"))
        options = RunOptions(
            parallel=parallel, keyboard=False, handle_signals=False, freeze_gc=True
        )
        summary = trio.run(partial(run_competition, config, options))
        assert summary.games_recorded == MC_GAMES, summary
        files = CompetitionFiles.for_control_file(config.control_path)
        competition = load_competition(config, read_state(files, config.competition_type))
        snapshot = competition.snapshot()
        assert snapshot.best is not None  # type: ignore[union-attr]
        reported.append(snapshot.best.parameters[0])  # type: ignore[union-attr]
    seconds = time.perf_counter() - start
    return {
        "runs": runs,
        "reported_best": reported,
        "success": sum(text == "p: 0.80" for text in reported) / max(runs, 1),
        "games_per_s": runs * MC_GAMES / seconds if seconds else 0.0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mc-runs", type=int, default=400, help="Monte Carlo runs per mode")
    parser.add_argument("--runs", type=int, default=60, help="cross-entropy and SPSA runs")
    parser.add_argument("--real-runs", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="few runs (not for the figures)")
    options = parser.parse_args()
    if options.quick:
        options.mc_runs, options.runs, options.real_runs = 40, 6, 1
    from arena.competitions.loader import load_control_file

    figures: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        print(f"Monte Carlo tuner, close set {sorted(CLOSE_SET, reverse=True)},"
              f" {options.mc_runs} runs x {MC_GAMES} games per mode")  # fmt: skip
        configs = {
            (label, rule): load_control_file(mc_ctl(directory, f"{label}-{rule}", values, rule))
            for label, values in (("close", CLOSE_SET), ("harder", HARDER_SET))
            for rule in ("ucb", "kl-ucb")
        }
        modes = [
            ("mc_close_ucb", ("close", "ucb"), 1, True),
            ("mc_close_ucb_parallel8", ("close", "ucb"), 8, True),
            ("mc_close_gomill_parallel8", ("close", "ucb"), 8, False),
            ("mc_close_new", ("close", "kl-ucb"), 1, True),
            ("mc_close_new_parallel8", ("close", "kl-ucb"), 8, True),
            ("mc_harder_ucb", ("harder", "ucb"), 1, True),
            ("mc_harder_new", ("harder", "kl-ucb"), 1, True),
            ("mc_harder_new_parallel8", ("harder", "kl-ucb"), 8, True),
        ]
        for key, config_key, slots, virtual_loss in modes:
            measured = mc_close(configs[config_key], slots, options.mc_runs,
                                virtual_loss=virtual_loss)  # fmt: skip
            figures[key] = measured["success"]
            spread = 1.96 * math.sqrt(measured["success"] * (1 - measured["success"])
                                      / options.mc_runs)  # fmt: skip
            rule = config_key[1] + ("" if virtual_loss else " (games in flight ignored)")
            print(f"  {config_key[0]} set, {rule}, {slots} in flight: reported the best in"
                  f" {measured['success']:.3f} +- {spread:.3f} of runs"
                  f" ({measured['seconds']:.0f} s)")  # fmt: skip
        print(f"continuous tuners, optimum {OPTIMUM}, {options.runs} runs each, "
              f"{BUDGET} games a run")  # fmt: skip
        cem = continuous("ce_tuner", load_control_file(ce_ctl(directory)), options.runs, 1)
        spsa_config = load_control_file(spsa_ctl(directory))
        spsa = continuous("spsa_tuner", spsa_config, options.runs, 1)
        spsa8 = continuous("spsa_tuner", spsa_config, options.runs, 8)
        for label, measured in (("ce_tuner", cem), ("spsa_tuner", spsa),
                                ("spsa_tuner, 8 in flight", spsa8)):  # fmt: skip
            assert measured["games"] == BUDGET, measured
            print(
                f"  {label}: distance to the optimum median {measured['median']:.3f},"
                f" 90th percentile {measured['p90']:.3f} ({measured['seconds']:.0f} s)"
            )
        print(f"real arena: {options.real_runs} runs x {MC_GAMES} games, kl-ucb, --parallel 8")
        real = real_arena(directory, options.real_runs, 8)
        print(f"  reported best {real['reported_best']}  ({real['games_per_s']:.1f} games/s)")
    figures.update(
        {
            "cem_median_distance": round(cem["median"], 4),
            "cem_p90_distance": round(cem["p90"], 4),
            "spsa_median_distance": round(spsa["median"], 4),
            "spsa_p90_distance": round(spsa["p90"], 4),
            "spsa_parallel8_median_distance": round(spsa8["median"], 4),
            "spsa_parallel8_p90_distance": round(spsa8["p90"], 4),
            "budget_games": BUDGET,
            "mc_runs": options.mc_runs,
            "mc_games": MC_GAMES,
            "continuous_runs": options.runs,
            "real_runs": real["runs"],
            "real_reported_best": real["reported_best"],
            "real_games_per_s": round(real["games_per_s"], 1),
        }
    )
    print("RESULT " + json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
