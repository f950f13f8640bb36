"""How fast is the sample engine's search, next to a plain random playout?

Measures, in one process and one run: simulations per second of
``engines.mcts`` (tree included: selection, expansion, playout, backup) on the
empty 9x9 board and on the midgame position of
``../shared/bench/midgame_9x9_30moves.txt``, for the ``default`` and ``light``
playout policies under plain UCT, and for the engine's default search
(heuristic MC-RAVE, ``engine_default_sims_per_s``, ratio
``engine_default_ratio``: the figure issue 18 asks to be at least 0.7); the
default policy's playouts alone, without a tree
(``default_playout_only_ratio``: how much of the gap is the policy's
knowledge); the uniform random playouts per second of
``../shared/bench/reference_playout.py`` on the same two positions; the
ratios; the memory of the tree per node (tracemalloc), with the size a
100,000-node tree would have; and the simulations per second of the search
spread over processes (``engines.mcts.parallel``) against the same search in
one process, for the engine's default configuration and for plain UCT: with
two processes playing out (the engine's default way, ``--workers 1``: the
engine process shares the playouts with one worker; ``parallel2_speedup`` is
the default configuration's), and with two dedicated workers while the engine
process only keeps the tree (``--workers 2 --no-share``, three processes on
the two cores).  Run it on an otherwise idle machine: it needs both cores.
The measurements are interleaved in short batches (about 20 ms each, in
turn) so that a busy machine slows all of them alike; each search keeps
growing one tree for the whole run.

    python benchmarks/engine_speed.py [--seconds S] [--tree-sims N] [--parallel-seconds S]
                                      [--options]

Both cores of the engine (issue 30): this process runs the compiled one
(mypyc) where the install built it, and a second process started with
``ARENA_MCTS_PURE=1`` measures the pure-Python core's engine default search
against its own reference playouts at the same time (``--core-child``); the
RESULT has ``compiled_ratio_empty``, ``compiled_ratio_midgame`` (the engine
default's simulations per second over the reference's, tree included, one
process: the figure issue 30 asks to be at least 5), ``pure_ratio_empty`` and
``pure_ratio_midgame``, and ``core`` (this process's).  With no compiled core
built, the compiled ratios are null and the pure ones come from this process.

The last line is ``RESULT {json}``; the JSON also goes to
``benchmarks/results/engine_speed.json``.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import platform
import random
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines.mcts import core  # noqa: E402
from engines.mcts.fastboard import FastBoard  # noqa: E402
from engines.mcts.gtp_engine import EngineOptions  # noqa: E402
from engines.mcts.parallel import WorkerPool  # noqa: E402
from engines.mcts.policy import black_result, playout_default  # noqa: E402
from engines.mcts.search import Search, SearchConfig  # noqa: E402
from gtp.vertex import parse_vertex  # noqa: E402


def _shared_bench() -> Path:
    """``shared/bench`` beside the checkout (or beside a folder above it: worktrees)."""
    for folder in ROOT.parents:
        candidate = folder / "shared" / "bench"
        if candidate.is_dir():
            return candidate
    return ROOT.parent / "shared" / "bench"


SHARED_BENCH = _shared_bench()
RESULTS = ROOT / "benchmarks" / "results"
KOMI = 7.5


def load_reference() -> ModuleType:
    path = SHARED_BENCH / "reference_playout.py"
    spec = importlib.util.spec_from_file_location("reference_playout", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"engine_speed: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def midgame_moves() -> list[str]:
    return (SHARED_BENCH / "midgame_9x9_30moves.txt").read_text().split()


def fast_midgame() -> FastBoard:
    board = FastBoard(9)
    for word in midgame_moves():
        point = parse_vertex(word, 9)
        assert point is not None
        board.play(board.geo.index(point))
    return board


def reference_midgame(ref: ModuleType) -> Any:
    state = ref.empty_state()
    n = ref.N
    for word in midgame_moves():
        col = " ABCDEFGHJ".index(word[0].upper())
        row = n + 1 - int(word[1:])
        state = ref._one_move(state, row * ref.W + col)
    return state


def interleaved(batches: dict[str, Callable[[], int]], seconds: float) -> dict[str, float]:
    """Run every batch function in turn until each had ``seconds``; rates per second."""
    done = dict.fromkeys(batches, 0)
    spent = dict.fromkeys(batches, 0.0)
    while min(spent.values()) < seconds:
        for name, batch in batches.items():
            start = time.perf_counter()
            done[name] += batch()
            spent[name] += time.perf_counter() - start
    return {name: done[name] / spent[name] for name in batches}


def plain_uct(policy: str = "default") -> SearchConfig:
    """The policy rows' search: UCT with lazily created children, no RAVE, no priors."""
    return SearchConfig(policy=policy, rave="off", priors="none")  # type: ignore[arg-type]


# The default search with the options that trade knowledge for speed (issue 18):
# fewer expansions, and playouts cut short once one side leads by 25 stones; and
# the one that trades speed for knowledge, playouts that read ladders.
FAST_OPTIONS: dict[str, SearchConfig] = {
    "--expand-threshold 8": SearchConfig(expand_threshold=8),
    "--mercy 25": SearchConfig(mercy=25),
    "--mercy 20": SearchConfig(mercy=20),  # a quarter of the 9x9 board
    "--expand-threshold 8 --mercy 25": SearchConfig(expand_threshold=8, mercy=25),
    "--policy ladders": SearchConfig(policy="ladders"),
}


def engine_batch(
    board: FastBoard, seed: int, config: SearchConfig | None = None
) -> Callable[[], int]:
    """The engine's default search (heuristic MC-RAVE), 10 simulations a call."""
    search = Search(config or SearchConfig(), seed)
    search.set_position(board, KOMI)

    def batch() -> int:
        return search.simulate(10)

    return batch


def search_batch(board: FastBoard, policy: str, seed: int) -> Callable[[], int]:
    """One tree for the whole run; each call runs 10 more simulations in it."""
    search = Search(plain_uct(policy=policy), seed)
    search.set_position(board, KOMI)

    def batch() -> int:
        return search.simulate(10)

    return batch


LABELS = {
    "engine": "engine default simulations",  # heuristic MC-RAVE with the default policy
    "default": "default policy, plain UCT",
    "light": "light policy, plain UCT",
    "playout": "default policy, playout only",
}


PARALLEL_CONFIGS = {
    "default": SearchConfig(),  # the engine's default: heuristic MC-RAVE
    "plain-uct": plain_uct(),
}


# how the simulations are spread: (workers, the engine process plays out too)
PARALLEL_MODES: dict[str, tuple[int, bool] | None] = {
    "one_process": None,
    "shared": (1, True),  # two processes play out: the engine's and one worker
    "two_workers": (2, False),  # two workers play out; the engine process keeps the tree
}


def parallel_rates(positions: dict[str, FastBoard], seconds: float) -> dict[str, dict[str, float]]:
    """Per configuration and mode: sims/s (mean over ``positions``), interleaved."""
    out: dict[str, dict[str, float]] = {}
    batch = EngineOptions().batch
    for name, config in PARALLEL_CONFIGS.items():
        pools = {
            mode: WorkerPool(spec[0], config, seed=1, batch=batch, share=spec[1])
            for mode, spec in PARALLEL_MODES.items()
            if spec is not None
        }
        try:
            batches: dict[str, Callable[[], int]] = {}
            for pos, board in positions.items():
                for mode in PARALLEL_MODES:
                    search = Search(config, 1)
                    search.evaluator = pools.get(mode)
                    search.set_position(board, KOMI)
                    batches[f"{pos}/{mode}"] = _simulations(search, 1000)
            rates = interleaved(batches, seconds)
        finally:
            for pool in pools.values():
                pool.close()
        out[name] = {
            mode: sum(rates[f"{pos}/{mode}"] for pos in positions) / len(positions)
            for mode in PARALLEL_MODES
        }
    return out


def _simulations(search: Search, count: int) -> Callable[[], int]:
    def batch() -> int:
        # one genmove's worth (1,000 playouts), then the flush a genmove ends with:
        # no work is left in the workers outside the timed call
        done = search.simulate(count)
        search.flush()
        return done

    return batch


def playout_batch(board: FastBoard, seed: int) -> Callable[[], int]:
    """The default policy alone (no tree): copy, play out with the AMAF record, score."""
    rnd = random.Random(seed).random

    def batch() -> int:
        for _ in range(10):
            copy = board.copy()
            black_result(copy, playout_default, rnd, KOMI, bytearray(copy.geo.cells))
        return 10

    return batch


def reference_batch(ref: ModuleType, state: Any) -> Callable[[], int]:
    rnd = random.Random(1).random

    def batch() -> int:
        for _ in range(10):
            ref.playout(state, rnd=rnd)
        return 10

    return batch


def tree_memory(sims: int) -> dict[str, float]:
    """Bytes per node of a tree grown on the empty board (light policy, tracemalloc)."""
    search = Search(SearchConfig(policy="light", expand_threshold=1, rave="off", priors="none"), 3)
    board = FastBoard(9)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    search.set_position(board, KOMI)
    search.simulate(sims)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    nodes = search.node_count()
    per_node = (after - before) / nodes
    return {
        "tree_simulations": sims,
        "tree_nodes": nodes,
        "bytes_per_node": round(per_node, 1),
        "mb_per_100k_nodes": round(per_node * 100_000 / 1e6, 1),
    }


def core_rates(seconds: float) -> dict[str, float]:
    """This process's engine default search and reference playouts, interleaved, as ratios."""
    ref = load_reference()
    positions = {
        "empty": (FastBoard(9), ref.empty_state()),
        "midgame": (fast_midgame(), reference_midgame(ref)),
    }
    batches: dict[str, Callable[[], int]] = {}
    for pos, (fast, state) in positions.items():
        batches[f"{pos}/reference"] = reference_batch(ref, state)
        batches[f"{pos}/engine"] = engine_batch(fast, seed=1)
    rates = interleaved(batches, seconds)
    return {
        **{f"{pos}_ratio": rates[f"{pos}/engine"] / rates[f"{pos}/reference"] for pos in positions},
        **{f"{pos}_sims_per_s": rates[f"{pos}/engine"] for pos in positions},
    }


def start_pure_child(seconds: float) -> subprocess.Popen[str]:
    """The pure-Python core measured in a second process (``ARENA_MCTS_PURE=1``)."""
    return subprocess.Popen(
        [sys.executable, __file__, "--core-child", "--seconds", str(seconds)],
        env={**os.environ, core.PURE_ENV: "1"},
        stdout=subprocess.PIPE,
        text=True,
    )


def child_rates(child: subprocess.Popen[str]) -> dict[str, float]:
    out, _ = child.communicate()
    if child.returncode != 0:
        raise SystemExit(f"engine_speed: the pure-core process failed ({child.returncode})")
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1].removeprefix("RESULT "))
    if result["core"] != "pure":
        raise SystemExit(f"engine_speed: the pure-core process ran the {result['core']} core")
    rates: dict[str, float] = result["rates"]
    return rates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="per measurement")
    parser.add_argument(
        "--core-child",
        action="store_true",
        help="only the engine default and the reference, RESULT with this process's core"
        " (what the pure-core process runs)",
    )
    parser.add_argument("--tree-sims", type=int, default=40_000)
    parser.add_argument(
        "--options",
        action="store_true",
        help="also time the engine default with --expand-threshold 8,"
        " --mercy 25, --mercy 20 and --policy ladders (not the default configuration)",
    )
    parser.add_argument(
        "--parallel-seconds",
        type=float,
        default=10.0,
        help="per measurement of the worker processes (0: skip)",
    )
    args = parser.parse_args()
    this_core = core.core_name()
    if args.core_child:
        rates_here = core_rates(args.seconds)
        print("RESULT " + json.dumps({"core": this_core, "rates": rates_here}))
        return 0
    load_start = os.getloadavg()[0]  # the ratios hold under load; the parallel rows do not
    # The pure core's measurement runs beside this one (each against its own reference).
    child = start_pure_child(args.seconds) if this_core != "pure" else None

    ref = load_reference()
    positions = {
        "empty": (FastBoard(9), ref.empty_state()),
        "midgame": (fast_midgame(), reference_midgame(ref)),
    }
    batches: dict[str, Callable[[], int]] = {}
    for pos, (fast, state) in positions.items():
        batches[f"{pos}/reference"] = reference_batch(ref, state)
        batches[f"{pos}/default"] = search_batch(fast, "default", seed=1)
        batches[f"{pos}/light"] = search_batch(fast, "light", seed=1)
        batches[f"{pos}/engine"] = engine_batch(fast, seed=1)
        batches[f"{pos}/playout"] = playout_batch(fast, seed=1)
        if args.options:
            for flags, config in FAST_OPTIONS.items():
                batches[f"{pos}/engine {flags}"] = engine_batch(fast, 1, config)
    print(
        f"python {platform.python_version()} on {platform.machine()}; "
        f"{args.seconds:g}s per measurement, interleaved",
        flush=True,
    )
    rates = interleaved(batches, args.seconds)
    print()
    print(f"{'':32s}{'per second':>12s}{'x reference':>14s}")
    for pos in positions:
        reference = rates[f"{pos}/reference"]
        print(f"{pos + ' reference playouts':34s}{reference:8.0f}")
        for what in ("engine", "default", "light", "playout"):
            value = rates[f"{pos}/{what}"]
            label = LABELS[what]
            print(f"{pos + ' ' + label:44s}{value:8.0f}{value / reference:12.2f}")
        for flags in FAST_OPTIONS if args.options else ():
            value = rates[f"{pos}/engine {flags}"]
            print(f"{pos + ' engine ' + flags:44s}{value:8.0f}{value / reference:12.2f}")
    if child is not None:
        pure = child_rates(child)
        compiled: dict[str, float | None] = {
            f"compiled_ratio_{pos}": round(rates[f"{pos}/engine"] / rates[f"{pos}/reference"], 3)
            for pos in positions
        }
    else:
        pure = {
            f"{pos}_ratio": rates[f"{pos}/engine"] / rates[f"{pos}/reference"] for pos in positions
        } | {f"{pos}_sims_per_s": rates[f"{pos}/engine"] for pos in positions}
        compiled = {f"compiled_ratio_{pos}": None for pos in positions}
    cores: dict[str, object] = {
        "core": this_core,
        **compiled,
        **{f"pure_ratio_{pos}": round(pure[f"{pos}_ratio"], 3) for pos in positions},
        **{f"pure_engine_sims_per_s_{pos}": round(pure[f"{pos}_sims_per_s"]) for pos in positions},
    }
    print(
        f"\nengine default x reference: {this_core} core (this process) "
        + ", ".join(f"{pos} {compiled[f'compiled_ratio_{pos}']}" for pos in positions)
        + "; pure core (ARENA_MCTS_PURE=1, its own process) "
        + ", ".join(f"{pos} {pure[f'{pos}_ratio']:.3f}" for pos in positions)
    )
    memory = tree_memory(args.tree_sims)
    print(
        f"tree: {memory['tree_nodes']:.0f} nodes after {args.tree_sims} simulations, "
        f"{memory['bytes_per_node']:.0f} bytes/node, "
        f"{memory['mb_per_100k_nodes']:.1f} MB per 100,000 nodes"
    )

    parallel: dict[str, dict[str, float]] = {}
    if args.parallel_seconds > 0:
        boards = {pos: fast for pos, (fast, _state) in positions.items()}
        parallel = parallel_rates(boards, args.parallel_seconds)
        print("\nsims/s (mean of the empty and midgame positions) and x one process")
        print(f"{'':16s}{'one process':>12s}{'shared, 1 worker':>22s}{'2 workers, no share':>25s}")
        for name, rate in parallel.items():
            single = rate["one_process"]
            print(
                f"{name:16s}{single:12.0f}"
                f"{rate['shared']:14.0f}{rate['shared'] / single:7.2f}x"
                f"{rate['two_workers']:17.0f}{rate['two_workers'] / single:7.2f}x"
            )

    result: dict[str, object] = {
        **cores,
        "default_sims_per_s": round(rates["empty/default"]),
        "light_sims_per_s": round(rates["empty/light"]),
        "reference_playouts_per_s": round(rates["empty/reference"]),
        "bytes_per_node": memory["bytes_per_node"],
        "default_ratio": round(rates["empty/default"] / rates["empty/reference"], 3),
        "light_ratio": round(rates["empty/light"] / rates["empty/reference"], 3),
        "midgame_default_sims_per_s": round(rates["midgame/default"]),
        "midgame_light_sims_per_s": round(rates["midgame/light"]),
        "midgame_reference_playouts_per_s": round(rates["midgame/reference"]),
        "midgame_default_ratio": round(rates["midgame/default"] / rates["midgame/reference"], 3),
        "midgame_light_ratio": round(rates["midgame/light"] / rates["midgame/reference"], 3),
        "engine_default_sims_per_s": round(rates["empty/engine"]),
        "midgame_engine_default_sims_per_s": round(rates["midgame/engine"]),
        "engine_default_ratio": round(rates["empty/engine"] / rates["empty/reference"], 3),
        "midgame_engine_default_ratio": round(
            rates["midgame/engine"] / rates["midgame/reference"], 3
        ),
        "default_playout_only_ratio": round(rates["empty/playout"] / rates["empty/reference"], 3),
        "midgame_default_playout_only_ratio": round(
            rates["midgame/playout"] / rates["midgame/reference"], 3
        ),
        **(
            {
                "engine_ratio_with_options": {
                    flags: {
                        pos: round(rates[f"{pos}/engine {flags}"] / rates[f"{pos}/reference"], 3)
                        for pos in positions
                    }
                    for flags in FAST_OPTIONS
                }
            }
            if args.options
            else {}
        ),
        "mb_per_100k_nodes": memory["mb_per_100k_nodes"],
        "tree_nodes": memory["tree_nodes"],
        **{
            key: value
            for name, rate in parallel.items()
            for suffix in ["" if name == "default" else "_" + name.replace("-", "_")]
            for key, value in (
                (f"parallel2_speedup{suffix}", round(rate["shared"] / rate["one_process"], 2)),
                (
                    f"parallel2_speedup_two_workers{suffix}",
                    round(rate["two_workers"] / rate["one_process"], 2),
                ),
                (
                    f"{name.replace('-', '_')}_sims_per_s_parallel",
                    {mode: round(value) for mode, value in rate.items()},
                ),
            )
        },
        "python": platform.python_version(),
        "seconds": args.seconds,
        "load_average_1min": [round(load_start, 2), round(os.getloadavg()[0], 2)],
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "engine_speed.json").write_text(json.dumps(result, indent=2) + "\n")
    print("RESULT " + json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
