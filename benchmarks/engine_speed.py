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

The last line is ``RESULT {json}``; the JSON also goes to
``benchmarks/results/engine_speed.json``.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import platform
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="per measurement")
    parser.add_argument("--tree-sims", type=int, default=40_000)
    parser.add_argument(
        "--options",
        action="store_true",
        help="also time the engine default with --expand-threshold 8,"
        " --mercy 25 and --policy ladders (not the default configuration)",
    )
    parser.add_argument(
        "--parallel-seconds",
        type=float,
        default=10.0,
        help="per measurement of the worker processes (0: skip)",
    )
    args = parser.parse_args()

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
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "engine_speed.json").write_text(json.dumps(result, indent=2) + "\n")
    print("RESULT " + json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
