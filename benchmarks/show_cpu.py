"""The CPU of ``arena show X.ctl`` in a new process, on a finished 100-game playoff.

First plays the playoff for real in a temporary directory: ``arena run X.ctl -j 2 -q
--no-fsync``, two ``benchmarks/instant_engine.py`` players (62-move 9x9 games, engines
kept between games), so the files ``show`` reads are the ones a run leaves.  Then runs,
interleaved, ``--repeat`` times each (this script's interpreter runs the installed
``arena`` console script, as a user's ``arena`` does, without a version manager's shim):

    arena show X.ctl                    the command measured
    python -c pass                      the interpreter's own start, for reference
    python -c "import arena_cli.main"   what importing the command line costs

Each figure is the CPU (user + sys) of that child process, the growth of
``getrusage(RUSAGE_CHILDREN)`` across it; the medians are reported.  Target (issue 31):
``show_cpu_seconds`` ≤ 0.2.  The machine may be shared: compare with the interpreter's
start measured in the same run.

Usage: python benchmarks/show_cpu.py [--repeat 15] [--games 100] [--quick]
           [--head | --commit REV | --source DIR]

``--head`` (``--commit REV``) measures the arena of the HEAD commit (of REV), exported to a
temporary folder first on PYTHONPATH, rather than the working tree's; ``--source DIR``
that of another tree.

The last line is ``RESULT {json}`` with ``show_cpu_seconds``, ``python_start_cpu_seconds``
and ``import_cli_cpu_seconds``; it is also written to ``benchmarks/results/show_cpu.json``
(not for ``--quick`` runs unless ``--output`` is given).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from gomill_side_by_side import (  # this script's folder
    BenchmarkError,
    add_source_options,
    arena_command,
    arena_environment,
    children_cpu,
    compile_tree,
    export_commit,
    working_tree_state,
)

HERE = Path(__file__).resolve().parent
ENGINE = HERE / "instant_engine.py"
RESULTS = HERE / "results" / "show_cpu.json"
TARGET_SECONDS = 0.2


def run(command: list[str], cwd: Path, env: dict[str, str], what: str) -> tuple[float, str]:
    """Run a command to its end; its CPU (its children's included) and its stdout."""
    before = children_cpu()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    cpu = children_cpu() - before
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise BenchmarkError(
            f"{what} failed (exit {done.returncode}): {lines[-1] if lines else 'no output'}"
        )
    return cpu, done.stdout


def write_playoff(directory: Path, games: int) -> Path:
    command = [sys.executable, str(ENGINE)]
    ctl = directory / "playoff.ctl"
    ctl.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{'x': Player({command!r}), 'y': Player({command!r})}}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        "skip_player_checks = True\nreuse_engines = True\n"
        f"matchups = [Matchup('x', 'y', alternating=True, number_of_games={games})]\n"
    )
    return ctl


def measure(options: argparse.Namespace) -> dict[str, object]:
    arena = arena_command()
    with tempfile.TemporaryDirectory(prefix="show-cpu-") as tmp:
        directory = Path(tmp) / "run"
        directory.mkdir()
        source: Path | None = options.source
        if options.commit is not None:
            source = Path(tmp) / "commit"
            source.mkdir()
            arena_source = f"{options.commit} {export_commit(source, options.commit)} (exported)"
            compile_tree(source)
        elif source is not None:
            arena_source = str(source)
        else:
            arena_source = f"installed ({working_tree_state()})"
        print(f"arena: {arena_source}", flush=True)
        env = arena_environment(source)
        ctl = write_playoff(directory, options.games)
        run([*arena, "run", ctl.name, "-j", "2", "-q", "--no-fsync"], directory, env, "arena run")
        load_before = os.getloadavg()
        commands = {
            "show": [*arena, "show", ctl.name],
            "python_start": [sys.executable, "-c", "pass"],
            "import_cli": [sys.executable, "-c", "import arena_cli.main"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        report = ""
        for _ in range(options.repeat):
            for name, command in commands.items():
                cpu, out = run(command, directory, env, f"`{' '.join(command[1:])}`")
                times[name].append(cpu)
                if name == "show":
                    report = out
        load_after = os.getloadavg()
    if f"{options.games}" not in report:
        raise BenchmarkError(f"arena show does not report the {options.games} games played")
    print(f"arena show on a finished {options.games}-game playoff; {options.repeat} runs each")
    print(f"  {'CPU of a new process':34}{'median':>9}{'best':>9}{'worst':>9}")
    for label, name in (
        ("arena show X.ctl", "show"),
        ("python -c pass", "python_start"),
        ("python -c 'import arena_cli.main'", "import_cli"),
    ):
        values = times[name]
        print(
            f"  {label:34}{statistics.median(values):>8.3f}s{min(values):>8.3f}s"
            f"{max(values):>8.3f}s"
        )
    show = statistics.median(times["show"])
    print(f"  target: show ≤ {TARGET_SECONDS} s: {'met' if show <= TARGET_SECONDS else 'NOT met'}")
    return {
        "show_cpu_seconds": round(show, 4),
        "python_start_cpu_seconds": round(statistics.median(times["python_start"]), 4),
        "import_cli_cpu_seconds": round(statistics.median(times["import_cli"]), 4),
        "show_best_cpu_seconds": round(min(times["show"]), 4),
        "show_over_python_start": round(show / statistics.median(times["python_start"]), 2),
        "games": options.games,
        "repeat": options.repeat,
        "loadavg": [round(x, 2) for x in (*load_before, *load_after)],
        "arena": arena_source,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 3 runs each")
    parser.add_argument("--output", type=Path, help=f"write RESULT here (default {RESULTS})")
    add_source_options(parser)
    options = parser.parse_args()
    if options.quick:
        options.repeat = 3
    if options.repeat < 1 or options.games < 1:
        parser.error("repeat and games must be at least 1")
    try:
        result = measure(options)
    except BenchmarkError as error:
        raise SystemExit(f"show_cpu: {error}") from None
    line = json.dumps(result)
    output = options.output or (None if options.quick else RESULTS)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(line + "\n")
    print("RESULT " + line)


if __name__ == "__main__":
    main()
