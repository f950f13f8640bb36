"""Playouts in worker processes: leaf batching, virtual loss, determinism, failures."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import attrs
import pytest

from engines.mcts.fastboard import FastBoard
from engines.mcts.parallel import WorkerError, WorkerPool
from engines.mcts.priors import PriorWeights
from engines.mcts.search import Search, SearchConfig
from engines.mcts.tree import Node


def _all_nodes(search: Search) -> list[Node]:
    seen: set[int] = set()
    out: list[Node] = []
    stack: list[Node] = [search.root]
    while stack:
        node = stack.pop()
        out.append(node)
        for kid in node.children or ():
            out.append(kid)
            target = kid.pos if kid.pos is not None else kid
            if id(target) not in seen:
                seen.add(id(target))
                if target is not kid:
                    stack.append(target)
                else:
                    stack.extend(kid.children or ())
    return out


def _searched(config: SearchConfig, pool: WorkerPool | None, sims: int, seed: int = 5) -> Search:
    search = Search(config, seed=seed)
    search.evaluator = pool
    search.set_position(FastBoard(7), 7.5)
    search.simulate(sims)
    return search


@pytest.mark.parametrize(
    "config",
    [
        SearchConfig(rave="off", priors="none"),
        SearchConfig(rave="mse", priors="heuristic"),
        SearchConfig(rave="mse", priors="heuristic", structure="graph"),
        SearchConfig(rave="mse", priors="heuristic", policy="lgrf"),
    ],
    ids=["uct", "heuristic-rave", "graph", "lgrf"],
)
def test_one_worker_is_deterministic_and_leaves_nothing_pending(config: SearchConfig) -> None:
    runs = []
    for _ in range(2):
        with WorkerPool(1, config, seed=3, batch=4) as pool:
            search = _searched(config, pool, 300)
            runs.append([(s.move, s.visits, s.win_rate) for s in search.root_stats()])
            assert search.root_visits == 300
            assert all(node.pending == 0 for node in _all_nodes(search))
    assert runs[0] == runs[1]


def test_workers_list_priors_with_the_engines_prior_weights() -> None:
    # every rule weighted 0: each move starts at the even prior, whoever lists it
    flat = ",".join(
        f"{field.name}=0" for field in attrs.fields(PriorWeights) if field.name != "pass_rate"
    )
    config = SearchConfig(rave="mse", priors="heuristic", prior_weights=flat, mercy=40)
    with WorkerPool(1, config, seed=3, batch=4, share=False) as pool:
        search = _searched(config, pool, 300)
    deeper = [n for n in _all_nodes(search) if n is not search.root and n.children]
    assert deeper  # nodes the worker expanded
    priors = {(c.prior_visits, c.prior_wins) for n in deeper for c in n.children if c.move}
    assert priors == {(10.0, 5.0)}


def test_two_workers_run_every_simulation_and_find_the_same_kind_of_move() -> None:
    config = SearchConfig(rave="mse", priors="heuristic")
    with WorkerPool(2, config, seed=3, batch=8) as pool:
        search = _searched(config, pool, 600)
        assert search.simulations_run == 600
        assert search.root_visits == 600
        assert sum(s.visits for s in search.root_stats()) == 600  # the root is expanded at once
        stats = search.root_stats()
        # the best move of an empty 7x7 board is not on the edge
        size = 7
        row, col = divmod(stats[0].move, size + 1)
        assert 2 <= row <= size - 1 and 2 <= col <= size - 1


@pytest.mark.parametrize("structure", ["tree", "graph"])
def test_sharing_plays_leaves_in_both_processes_and_finishes_every_one(structure: str) -> None:
    config = SearchConfig(rave="mse", priors="heuristic", structure=structure)  # type: ignore[arg-type]
    with WorkerPool(1, config, seed=3, batch=4, share=True) as pool:
        search = _searched(config, pool, 1200)
        search.flush()
        assert search.root_visits == 1200
        assert sum(s.visits for s in search.root_stats()) == 1200
        assert all(node.pending == 0 for node in _all_nodes(search))
        # the worker played some leaves, this process the ones that found it full
        assert 0 < pool.played_here < 1200
        # leaves expanded here or by the worker alike: the tree grew below the root
        assert search.node_count() > 200


def test_virtual_loss_spreads_a_batch_over_different_leaves() -> None:
    search = Search(SearchConfig(rave="mse", priors="heuristic", expand_threshold=1), seed=1)
    search.set_position(FastBoard(7), 7.5)
    search.simulate(200)
    leaves = [search.descend() for _ in range(8)]
    paths = {tuple(id(n) for n in leaf.path) for leaf in leaves}
    assert len(paths) > 1  # without the visits counted at once all eight would be the same
    for leaf in leaves:
        assert leaf.board is not None
        result, amaf = search.evaluate(leaf.board)
        search.backup(leaf, result, amaf)
    assert search.root_visits == 208


@pytest.mark.parametrize("share", [False, True], ids=["workers-only", "sharing"])
def test_a_dead_worker_is_reported_and_its_leaves_are_still_backed_up(share: bool) -> None:
    config = SearchConfig(rave="mse", structure="graph")
    pool = WorkerPool(1, config, seed=1, batch=4, share=share)
    try:
        search = Search(config, seed=1)
        search.evaluator = pool
        search.set_position(FastBoard(7), 7.5)
        search.simulate(50)
        os.kill(pool._procs[0].pid, signal.SIGKILL)
        pool._procs[0].wait()
        with pytest.raises(WorkerError, match="worker 0"):
            search.simulate(200)
        assert all(node.pending == 0 for node in _all_nodes(search))
        # every simulation started was backed up: the root's children account for them all
        assert sum(s.visits for s in search.root_stats()) == search.root_visits
        search.evaluator = None  # the search goes on in this process
        search.simulate(20)
        assert search.root_visits >= 70
    finally:
        pool.close()


def test_close_stops_the_workers() -> None:
    pool = WorkerPool(2, SearchConfig(policy="light"), seed=1)
    procs = list(pool._procs)
    pool.close()
    assert all(proc.poll() is not None for proc in procs)


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def test_engine_with_workers_plays_over_gtp_and_leaves_no_worker_behind() -> None:
    with subprocess.Popen(
        [
            sys.executable,
            "-m",
            "engines.mcts",
            "--seed",
            "2",
            "--playouts",
            "300",
            "--workers",
            "1",
            "--rave",
            "mse",
            "--priors",
            "heuristic",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as engine:
        assert engine.stdin is not None and engine.stdout is not None
        try:
            engine.stdin.write("boardsize 9\nclear_board\ngenmove b\n")
            engine.stdin.flush()
            answers = []
            while len(answers) < 3:
                line = engine.stdout.readline()
                if line.strip():
                    answers.append(line.strip())
            workers = _children(engine.pid)
            assert len(workers) == 1  # and this process plays out too (sharing)
            move = answers[2]
            assert move.startswith("= ") and move != "= pass"
            engine.stdin.write("gomill-explain_last_move\nquit\n")
            engine.stdin.flush()
            rest = engine.stdout.read()
            assert "300 root visits" in rest
            assert engine.wait(timeout=10) == 0
            assert all(_zombie_or_gone(pid) for pid in workers)
        finally:
            if engine.poll() is None:
                engine.kill()


def _zombie_or_gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@pytest.mark.parametrize(
    "workers", [["--workers", "1"], ["--workers", "2", "--no-share"]], ids=["sharing", "no-share"]
)
def test_closed_output_during_a_long_think_with_workers_is_prompt(workers: list[str]) -> None:
    # A quit queued behind a genmove waits for its answer (GTP is answered in
    # order); a controller that is gone, its pipes closed, stops the engine at once.
    with subprocess.Popen(
        [
            sys.executable,
            "-m",
            "engines.mcts",
            "--seed",
            "2",
            "--playouts",
            "0",
            "--move-time",
            "60",
            *workers,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as engine:
        assert engine.stdin is not None and engine.stdout is not None
        try:
            engine.stdin.write("boardsize 9\ngenmove b\n")
            engine.stdin.flush()
            assert engine.stdout.readline().startswith("=")  # boardsize
            workers = _children(engine.pid)
            engine.stdout.close()
            # well before the minute is up, and the workers with it
            assert engine.wait(timeout=10) == 0
            assert all(_zombie_or_gone(pid) for pid in workers)
        finally:
            if engine.poll() is None:
                engine.kill()
