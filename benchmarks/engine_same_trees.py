"""Do two checkouts of the sample engine search the same trees from the same seed?

A strength row belongs to the engine commit that played it.  When a later commit
changes only how the engine runs (a compiled core, a faster lookup) and not what
it plays, its rows and the earlier ones measure one player, and a gap between
them is chance or the way the games were run, not the engine.  This script asks
both engines for a move from the same seed in the same positions (taken from a
game record) and compares each answer and the explanation after it (the move,
its win rate and root visits; the think time and the principal variation are
left out).  The same answers in every position, for seeds that give different
moves from each other, say the two play the same trees.

Usage::

    python benchmarks/engine_same_trees.py GAME.sgf --other DIR [--other-args ...]

``DIR`` is a checkout of the other commit (``git worktree add --detach DIR REV``);
its engine runs as ``python -m engines.mcts`` from there, as pure Python (a
checkout without a build has no compiled modules).  This checkout's engine runs
both ways: compiled (if built) and with ``ARENA_MCTS_PURE=1``.  The last line is
``RESULT {json}`` with ``positions``, ``same`` and ``seeds``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from sgfmill import sgf

ROOT = Path(__file__).resolve().parents[1]
COLUMNS = "ABCDEFGHJKLMNOPQRST"
DEFAULT_ARGS = "--rave mse --priors heuristic"


def game_moves(path: Path) -> tuple[int, float, list[tuple[str, str]]]:
    """Board size, komi and the moves of a game record, as GTP colours and vertices."""
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    moves: list[tuple[str, str]] = []
    for node in game.get_main_sequence()[1:]:
        colour, point = node.get_move()
        if colour is None:
            continue
        vertex = "pass" if point is None else f"{COLUMNS[point[1]]}{point[0] + 1}"
        moves.append((colour, vertex))
    return game.get_size(), game.get_komi(), moves


def without_timing(explanation: str) -> str:
    """An explanation with its think time and principal variation taken out."""
    return re.sub(r" in [0-9.]+ ?s.*$", "", explanation.split("; pv")[0])


def ask(
    cwd: Path,
    args: Sequence[str],
    env: Mapping[str, str],
    seed: int,
    setup: tuple[int, float, list[tuple[str, str]]],
) -> str:
    """The engine's genmove answer and explanation after ``moves`` (one string)."""
    size, komi, moves = setup
    lines = [f"boardsize {size}", "clear_board", f"komi {komi}"]
    lines += [f"play {colour} {vertex}" for colour, vertex in moves]
    to_play = "w" if moves and moves[-1][0] == "b" else "b"
    lines += [f"genmove {to_play}", "gomill-explain_last_move", "quit"]
    done = subprocess.run(
        [sys.executable, "-m", "engines.mcts", "--seed", str(seed), *args],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **env},
        timeout=600,
    )
    answers = [line for line in done.stdout.split("\n") if line.startswith(("=", "?"))]
    if done.returncode != 0 or len(answers) < 3:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"engine in {cwd} failed (exit {done.returncode}): {last}")
    return f"{answers[-3]} | {without_timing(answers[-2])}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", type=Path, help="an SGF record to take the positions from")
    parser.add_argument("--other", type=Path, required=True, help="the other commit's checkout")
    parser.add_argument("--args", default=DEFAULT_ARGS, help="this engine's options")
    parser.add_argument("--other-args", default=DEFAULT_ARGS, help="the other engine's options")
    parser.add_argument("--playouts", type=int, default=3000)
    parser.add_argument("--seeds", default="21,22", help="comma-separated")
    parser.add_argument("--after", default="6,17,28", help="positions: after this many moves")
    options = parser.parse_args()
    size, komi, moves = game_moves(options.game)
    playouts = ["--playouts", str(options.playouts)]
    engines = {
        "other": (options.other, [*playouts, *shlex.split(options.other_args)], {}),
        "pure": (ROOT, [*playouts, *shlex.split(options.args)], {"ARENA_MCTS_PURE": "1"}),
        "compiled": (ROOT, [*playouts, *shlex.split(options.args)], {}),
    }
    seeds = [int(seed) for seed in options.seeds.split(",")]
    same = positions = 0
    for seed in seeds:
        for after in (int(count) for count in options.after.split(",")):
            setup = (size, komi, moves[:after])
            answers = {
                name: ask(cwd, args, env, seed, setup) for name, (cwd, args, env) in engines.items()
            }
            alike = len(set(answers.values())) == 1
            same += alike
            positions += 1
            shown = "  ".join(f"{name}: {answer}" for name, answer in answers.items())
            print(f"seed {seed} after {after:3} moves  {'same' if alike else 'DIFFERENT'}  {shown}")
    print(f"{same} of {positions} positions answered alike by all three engines")
    result = {"positions": positions, "same": same, "seeds": seeds, "playouts": options.playouts}
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
