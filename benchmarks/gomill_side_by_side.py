"""The arena's own CPU against Gomill 0.8.3's ringmaster, same control files, side by side.

The peer is Gomill 0.8.3 ported to Python 3 by ``../shared/bench/gomill-peer/build_port.sh``
(see the README there), built once into ``~/.cache/gtp-arena/gomill-peer`` (or
``$XDG_CACHE_HOME/gtp-arena/gomill-peer``) and rebuilt only when its ringmaster is missing.
Both players of every game are the peer's ``instant_gtp_engine.py`` (random legal moves,
``--moves N`` then pass).  One control file per case drives both harnesses
(``python3 DEST/gomill-py3/ringmaster X.ctl run -j 2 -q`` and ``arena run X.ctl -j 2 -q``),
each run in a fresh temporary directory:

    start       9x9, no game started (``-g 0``): the cost of starting a run
    9x9 n0      9x9, both engines pass at once (2 moves a game)
    9x9 n60     9x9, 60 moves then two passes (62 moves a game)
    19x19 n0    19x19, 2 moves a game
    19x19 n300  19x19, 300 moves then two passes

A round runs every case with both harnesses, one after the other; which harness goes first
alternates case by case and round by round, so slow drifts of the machine's load fall on
both alike.

**What is measured: the harness's CPU, engines excluded.**  This script makes itself a
child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``) and runs one harness at a time as its
only child.  When the harness has exited and every process it left behind has been reaped,
the growth of ``getrusage(RUSAGE_CHILDREN)`` is the CPU of the harness process and of all
its descendants: Gomill's ``-j`` worker processes (which play the games and run the GTP
exchanges), any helper process, and the engines.  The engines' part is taken out
exactly: each engine runs under a small shim (written to the run's temporary folder) that
runs ``instant_gtp_engine.py`` in its own interpreter and, when the engine is done, writes
its own ``getrusage(RUSAGE_SELF)`` (user + sys) to a log and leaves with ``os._exit``, so
nothing of the engine runs after its figure is taken.  Harness CPU = children's CPU − the
sum of the engines' figures.  The number of engine figures is checked against two engines
a game (neither harness reuses engines here), so an engine killed before it could log
(its CPU would otherwise be charged to the harness) fails the run.

**Derived figures, per round and harness.**  Startup = the CPU of the ``start`` run (Python
start-up, imports, reading the control file, preparing the output files and workers, a
clean exit; no engine).  CPU per move = (CPU of the N-moves run − CPU of the 0-moves run)
/ (moves of the N-moves run − moves of the 0-moves run), the moves counted in the SGF
records each harness wrote (passes included); both runs play the same number of games,
so startup and the fixed cost of a game (two engine starts, setup, two passes, the
record) cancel.  CPU per game = (CPU of the run − startup) / games.  Ratios are arena
over Gomill, one per round; the RESULT figures are the medians of those per-round ratios
(and the medians of the absolute figures, which depend on the machine's load: report
ratios).

``--floor`` adds a third harness, ``benchmarks/trio_floor.py``: the least a controller on
trio can do to play the same games (the I/O, the arena's GTP connection and referee board,
a record; no timeouts, clocks, faults, events or result files).  It is measured the same
way, and its figures over Gomill's in the same rounds (``floor_<figure>_ratio``) bound what
any arena built on trio's per-game waits can reach on this machine.

Usage: python benchmarks/gomill_side_by_side.py [--rounds 5] [--quick] [--floor]
           [--head | --commit REV | --source DIR]

``--head`` (``--commit REV``) measures the arena of the HEAD commit (of REV), exported to a
temporary folder first on PYTHONPATH, ahead of the editable install, rather than the
working tree's, which other work may be changing; ``--source DIR`` that of another tree.
Both source trees are byte-compiled before the first run.

The last line is ``RESULT {json}`` with ``cpu_per_move_9x9_ratio``,
``cpu_per_move_19x19_ratio``, ``cpu_per_game_9x9_n60_ratio``, ``startup_cpu_ratio`` and
the absolute medians and ``loadavg``; it is also written to
``benchmarks/results/gomill_side_by_side.json`` (not for ``--quick`` runs unless
``--output`` is given).  Targets (issue 31): per-move 9x9 ≤ 0.8, 19x19 ≤ 0.45,
startup ≤ 2.0.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PEER_SOURCE = REPO.parent / "shared" / "bench" / "gomill-peer"
RESULTS = HERE / "results" / "gomill_side_by_side.json"
HARNESSES = ("arena", "gomill")
# --floor: the thinnest trio controller (benchmarks/trio_floor.py), a bound on any arena
FLOOR = "floor"
FLOOR_SCRIPT = HERE / "trio_floor.py"
PR_SET_CHILD_SUBREAPER = 36

# Runs the instant engine in this interpreter, then logs its own CPU and leaves at once.
ENGINE_SHIM = """\
import os, resource, runpy, sys
log, engine = sys.argv[1], sys.argv[2]
sys.argv = [engine, *sys.argv[3:]]
status = 0
try:
    runpy.run_path(engine, run_name="__main__")
except SystemExit as exit:
    status = exit.code if isinstance(exit.code, int) else 1
finally:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, b"%d %.6f\\n" % (os.getpid(), usage.ru_utime + usage.ru_stime))
    os._exit(status)
"""


class BenchmarkError(Exception):
    """A failure reported as one line (the peer's build, a harness's run)."""


@dataclass(frozen=True)
class Case:
    name: str
    size: int
    moves: int  # the engines' --moves
    games: int  # 0: a run that starts no game (-g 0)


@dataclass(frozen=True)
class Run:
    """One harness's run of one case."""

    cpu: float  # harness CPU, engines excluded (s)
    engines_cpu: float
    wall: float
    games: int
    moves: int  # move nodes in the SGF records, passes included


def cases(games_9x9: int, games_19x19: int) -> list[Case]:
    return [
        Case("start", 9, 0, 0),
        Case("9x9 n0", 9, 0, games_9x9),
        Case("9x9 n60", 9, 60, games_9x9),
        Case("19x19 n0", 19, 0, games_19x19),
        Case("19x19 n300", 19, 300, games_19x19),
    ]


# --- pure parts (tests/test_benchmark_gomill.py) ----------------------------------------

# a property: its identifier and its values (escapes inside values allowed)
PROPERTY = re.compile(rb"([A-Za-z]+)\s*((?:\[(?:\\.|[^\\\]])*\]\s*)+)", re.DOTALL)


def count_moves(sgf: bytes) -> int:
    """B and W properties in an SGF game record: its moves, passes included."""
    return sum(1 for match in PROPERTY.finditer(sgf) if match[1] in (b"B", b"W"))


def cpu_per_move(cpu_n: float, cpu_0: float, moves_n: int, moves_0: int) -> float:
    """The harness's marginal CPU per move: the N-moves run less the 0-moves run."""
    if moves_n <= moves_0:
        raise ValueError(f"the N-moves run has {moves_n} moves, the 0-moves run {moves_0}")
    return (cpu_n - cpu_0) / (moves_n - moves_0)


def cpu_per_game(cpu: float, startup: float, games: int) -> float:
    """The harness's CPU per game of a run, its startup taken out."""
    if games <= 0:
        raise ValueError("no games")
    return (cpu - startup) / games


def derive(runs: Mapping[str, Run]) -> dict[str, float]:
    """One round's figures for one harness, from its runs by case name."""
    startup = runs["start"].cpu
    return {
        "startup_cpu": startup,
        "cpu_per_move_9x9": cpu_per_move(
            runs["9x9 n60"].cpu, runs["9x9 n0"].cpu, runs["9x9 n60"].moves, runs["9x9 n0"].moves
        ),
        "cpu_per_move_19x19": cpu_per_move(
            runs["19x19 n300"].cpu,
            runs["19x19 n0"].cpu,
            runs["19x19 n300"].moves,
            runs["19x19 n0"].moves,
        ),
        "cpu_per_game_9x9_n60": cpu_per_game(runs["9x9 n60"].cpu, startup, runs["9x9 n60"].games),
        "cpu_per_game_19x19_n300": cpu_per_game(
            runs["19x19 n300"].cpu, startup, runs["19x19 n300"].games
        ),
    }


# figure -> (unit name, scale) for the absolute medians in RESULT
UNITS = {
    "startup_cpu": ("ms", 1e3),
    "cpu_per_move_9x9": ("us", 1e6),
    "cpu_per_move_19x19": ("us", 1e6),
    "cpu_per_game_9x9_n60": ("ms", 1e3),
    "cpu_per_game_19x19_n300": ("ms", 1e3),
}


def quartiles(values: Sequence[float]) -> tuple[float, float]:
    """The first and third quartiles (both the value itself for one value)."""
    if len(values) == 1:
        return values[0], values[0]
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q3


def aggregate(
    rounds: Sequence[Mapping[str, Mapping[str, float]]],
) -> dict[str, float | list[float]]:
    """RESULT figures from per-round figures ``[{harness: {figure: value}}]``.

    ``<figure>_ratio`` is the median over rounds of arena / Gomill in that round, and
    ``<figure>_ratio_quartiles`` the quartiles of those ratios (their spread is the
    measurement's noise); ``<harness>_<figure>_<unit>`` the median of the absolute figures.
    """
    if not rounds:
        raise ValueError("no rounds")
    result: dict[str, float | list[float]] = {}
    harnesses = tuple(rounds[0])
    for figure in UNITS:
        ratios = [r["arena"][figure] / r["gomill"][figure] for r in rounds]
        result[f"{figure}_ratio"] = round(statistics.median(ratios), 3)
        result[f"{figure}_ratio_quartiles"] = [round(q, 3) for q in quartiles(ratios)]
        if FLOOR in harnesses:
            floor = [r[FLOOR][figure] / r["gomill"][figure] for r in rounds]
            result[f"floor_{figure}_ratio"] = round(statistics.median(floor), 3)
    for figure, (unit, scale) in UNITS.items():
        for harness in harnesses:
            values = [r[harness][figure] for r in rounds]
            result[f"{harness}_{figure}_{unit}"] = round(scale * statistics.median(values), 1)
    return result


def control_file(engine_command: Sequence[str], case: Case) -> str:
    """The control file of a case, read by both harnesses."""
    command = [*engine_command, "--moves", str(case.moves)]
    return (
        "competition_type = 'playoff'\n"
        f"players = {{'x': Player({command!r}), 'y': Player({command!r})}}\n"
        f"board_size = {case.size}\nkomi = 7.5\nscorer = 'internal'\n"
        "skip_player_checks = True\n"
        "matchups = [Matchup('x', 'y', alternating=True,"
        f" number_of_games={max(case.games, 1)})]\n"
    )


# --- the peer ---------------------------------------------------------------------------


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gtp-arena" / "gomill-peer"


def build_peer(source: Path, dest: Path) -> Path:
    """The ported ringmaster, built by the peer's build_port.sh unless already there."""
    ringmaster = dest / "gomill-py3" / "ringmaster"
    if ringmaster.is_file():
        return ringmaster
    script = source / "build_port.sh"
    if not script.is_file():
        raise BenchmarkError(f"no Gomill peer build script at {script}")
    print(f"building the Gomill peer into {dest} ...", flush=True)
    env = {**os.environ, "PY": sys.executable}
    try:
        done = subprocess.run(
            ["bash", str(script), str(dest)],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
    except subprocess.TimeoutExpired:
        raise BenchmarkError("building the Gomill peer took more than 15 minutes") from None
    lines = (done.stdout + done.stderr).strip().splitlines()
    if done.returncode != 0 or not ringmaster.is_file():
        # pip's own words are the likeliest explanation (no network, no registry)
        reason = next(
            (line.strip() for line in reversed(lines) if "ERROR" in line or "error" in line),
            lines[-1].strip() if lines else "no output",
        )
        raise BenchmarkError(
            f"building the Gomill peer failed (build_port.sh exit {done.returncode}): {reason}"
        )
    for line in lines:
        if line.startswith(("test suite:", "failing set")):
            print(f"  {line}")
    return ringmaster


# --- running a harness ------------------------------------------------------------------


def become_subreaper() -> None:
    """Orphans of a harness (engines it did not wait for) become our children, so their CPU
    is counted when we reap them (Linux)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise BenchmarkError("prctl(PR_SET_CHILD_SUBREAPER) failed: this needs Linux")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def reap_orphans(deadline: float) -> None:
    """Wait for every remaining child (orphans handed to us as subreaper)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            if time.monotonic() > deadline:
                raise BenchmarkError("processes left by a harness did not exit within 30 s")
            time.sleep(0.01)


def harness_command(harness: str, ringmaster: Path, ctl: Path, case: Case) -> list[str]:
    limit = ["-g", "0"] if case.games == 0 else []
    if harness == "gomill":
        return [sys.executable, str(ringmaster), ctl.name, "run", "-j", "2", "-q", *limit]
    if harness == FLOOR:
        return [sys.executable, str(FLOOR_SCRIPT), ctl.name, "run", "-j", "2", "-q", *limit]
    return [*arena_command(), "run", ctl.name, "-j", "2", "-q", *limit]


def export_commit(directory: Path, revision: str = "HEAD") -> str:
    """Write the files of a commit of the repository under ``directory``; its short hash.

    Other work may be going on in the working tree: ``--head`` measures the commit."""
    commit = git_head(revision)
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit], cwd=REPO, capture_output=True
    )
    if archive.returncode != 0:
        raise BenchmarkError(f"git archive {revision} failed: {archive.stderr.decode().strip()}")
    unpack = subprocess.run(
        ["tar", "-x", "-C", str(directory)], input=archive.stdout, capture_output=True
    )
    if unpack.returncode != 0:
        raise BenchmarkError(f"unpacking HEAD failed: {unpack.stderr.decode().strip()}")
    return commit


def compile_tree(directory: Path) -> None:
    """Byte-compile a source tree once, so that no measured run pays for it."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(directory)],
        capture_output=True,
        check=False,
    )


def arena_environment(source: Path | None) -> dict[str, str]:
    """The environment of an arena run: ``source`` (a tree holding arena/, arena_cli/,
    gtp/, ...) first on the import path, ahead of the installed (editable) packages."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(source), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
    return env


def arena_command() -> list[str]:
    """The installed ``arena`` console script, run by this interpreter as Gomill's ringmaster
    is (not through a version manager's shim on PATH, whose own start would be counted)."""
    script = Path(sysconfig.get_path("scripts")) / "arena"
    if not script.is_file():
        raise BenchmarkError(f"no `arena` console script at {script} (pip install -e . first)")
    return [sys.executable, str(script)]


def run_case(
    harness: str, ringmaster: Path, engine: Path, shim: Path, case: Case, env: Mapping[str, str]
) -> Run:
    with tempfile.TemporaryDirectory(prefix=f"gsbs-{harness}-") as tmp:
        directory = Path(tmp)
        log = directory / "engines.cpu"
        ctl = directory / "bench.ctl"
        ctl.write_text(control_file([sys.executable, str(shim), str(log), str(engine)], case))
        command = harness_command(harness, ringmaster, ctl, case)
        before = children_cpu()
        start = time.perf_counter()
        done = subprocess.run(command, cwd=directory, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
        reap_orphans(time.monotonic() + 30)
        total = children_cpu() - before
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines()
            last = lines[-1] if lines else "no output"
            raise BenchmarkError(
                f"{harness} failed on {case.name} (exit {done.returncode}): {last}"
            )
        figures = log.read_text().split("\n") if log.exists() else []
        engines_cpu = [float(line.split()[1]) for line in figures if line.strip()]
        if len(engines_cpu) != 2 * case.games:
            raise BenchmarkError(
                f"{harness} on {case.name}: {len(engines_cpu)} engine CPU figures"
                f" for {case.games} games (expected {2 * case.games})"
            )
        records = sorted((directory / "bench.games").glob("*.sgf"))
        if len(records) != case.games:
            raise BenchmarkError(
                f"{harness} on {case.name}: {len(records)} game records, expected {case.games}"
            )
        moves = sum(count_moves(path.read_bytes()) for path in records)
    return Run(total - sum(engines_cpu), sum(engines_cpu), wall, case.games, moves)


# --- output -----------------------------------------------------------------------------


def print_round(number: int, runs: Mapping[str, Mapping[str, Run]]) -> None:
    harnesses = tuple(runs)
    print(f"round {number}")
    print(
        f"  {'case':12}{'harness':>8}{'games':>7}{'moves':>8}{'CPU s':>9}{'engines s':>11}"
        f"{'wall s':>8}"
    )
    for name in runs["arena"]:
        for harness in harnesses:
            run = runs[harness][name]
            print(
                f"  {name:12}{harness:>8}{run.games:>7}{run.moves:>8}{run.cpu:>9.3f}"
                f"{run.engines_cpu:>11.3f}{run.wall:>8.2f}",
                flush=True,
            )


def print_summary(rounds: Sequence[Mapping[str, Mapping[str, float]]]) -> None:
    print(f"\nmedians over {len(rounds)} rounds (ratio: median of per-round arena/Gomill)")
    print(f"  {'figure':26}{'arena':>12}{'Gomill':>12}{'ratio':>8}  quartiles")
    for figure, (unit, scale) in UNITS.items():
        arena = statistics.median(r["arena"][figure] for r in rounds) * scale
        gomill = statistics.median(r["gomill"][figure] for r in rounds) * scale
        ratios = [r["arena"][figure] / r["gomill"][figure] for r in rounds]
        q1, q3 = quartiles(ratios)
        print(
            f"  {figure:26}{arena:>9.1f} {unit}{gomill:>9.1f} {unit}"
            f"{statistics.median(ratios):>8.2f}  {q1:.2f}–{q3:.2f}"
        )
        if FLOOR in rounds[0]:
            floor = [r[FLOOR][figure] / r["gomill"][figure] for r in rounds]
            value = statistics.median(r[FLOOR][figure] for r in rounds) * scale
            ratio = statistics.median(floor)
            print(f"  {'  trio floor':26}{value:>9.1f} {unit}{'':>12}{ratio:>8.2f}")


def git_head(revision: str = "HEAD") -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "--verify", f"{revision}^{{commit}}"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise BenchmarkError(f"no commit {revision!r} in {REPO}")
    return done.stdout.strip()


def working_tree_state() -> str:
    done = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    return f"working tree at {git_head()}{', modified' if done.stdout.strip() else ''}"


def measure(options: argparse.Namespace) -> dict[str, object]:
    ringmaster = build_peer(options.peer, options.cache)
    engine = options.peer / "instant_gtp_engine.py"
    if not engine.is_file():
        raise BenchmarkError(f"no instant engine at {engine}")
    become_subreaper()
    rounds: list[dict[str, dict[str, float]]] = []
    flip = False
    with tempfile.TemporaryDirectory(prefix="gsbs-") as tmp:
        shim = Path(tmp) / "engine_shim.py"
        shim.write_text(ENGINE_SHIM)
        source: Path | None = options.source
        if options.commit is not None:
            source = Path(tmp) / "commit"
            source.mkdir()
            arena_source = f"{options.commit} {export_commit(source, options.commit)} (exported)"
        elif source is not None:
            arena_source = str(source)
        else:
            arena_source = f"installed ({working_tree_state()})"
        print(f"arena: {arena_source}; Gomill: {ringmaster}", flush=True)
        for tree in (source, ringmaster.parent / "gomill"):
            if tree is not None:
                compile_tree(tree)
        environments = {"arena": arena_environment(source), "gomill": dict(os.environ)}
        harnesses = HARNESSES
        if options.floor:
            harnesses = (*HARNESSES, FLOOR)
            environments[FLOOR] = environments["arena"]
        load_before = os.getloadavg()
        for number in range(1, options.rounds + 1):
            runs: dict[str, dict[str, Run]] = {harness: {} for harness in harnesses}
            for case in cases(options.games_9x9, options.games_19x19):
                order = harnesses if not flip else harnesses[::-1]
                flip = not flip
                for harness in order:
                    runs[harness][case.name] = run_case(
                        harness, ringmaster, engine, shim, case, environments[harness]
                    )
            print_round(number, runs)
            rounds.append({harness: derive(runs[harness]) for harness in harnesses})
            flip = not flip  # each round starts with the other harness
        load_after = os.getloadavg()
    print_summary(rounds)
    return {
        **aggregate(rounds),
        "rounds": options.rounds,
        "games_9x9": options.games_9x9,
        "games_19x19": options.games_19x19,
        "parallel": 2,
        "loadavg": [round(x, 2) for x in (*load_before, *load_after)],
        "arena": arena_source,
    }


def add_source_options(parser: argparse.ArgumentParser) -> None:
    """--head, --commit REV, --source DIR: which arena is measured (default: the working tree)."""
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--head",
        dest="commit",
        action="store_const",
        const="HEAD",
        help="measure the arena of the repository's HEAD commit (exported to a temporary"
        " folder), not the working tree's",
    )
    source.add_argument("--commit", metavar="REV", help="the same for another commit")
    source.add_argument(
        "--source", type=Path, help="measure the arena of this source tree (PYTHONPATH)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games-9x9", type=int, default=40, help="games per 9x9 file")
    parser.add_argument("--games-19x19", type=int, default=16, help="games per 19x19 file")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 1 round, few games")
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also run benchmarks/trio_floor.py, the thinnest trio controller, as a third"
        " harness: floor_* ratios bound what any trio-based arena can reach",
    )
    parser.add_argument("--peer", type=Path, default=PEER_SOURCE, help="the peer's sources")
    parser.add_argument("--cache", type=Path, default=cache_dir(), help="where to build it")
    parser.add_argument("--output", type=Path, help=f"write RESULT here (default {RESULTS})")
    add_source_options(parser)
    options = parser.parse_args()
    if options.quick:
        options.rounds, options.games_9x9, options.games_19x19 = 1, 6, 2
    if options.rounds < 1 or options.games_9x9 < 1 or options.games_19x19 < 1:
        parser.error("rounds and games must be at least 1")
    try:
        result = measure(options)
    except BenchmarkError as error:
        raise SystemExit(f"gomill_side_by_side: {error}") from None
    line = json.dumps(result)
    output = options.output or (None if options.quick else RESULTS)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(line + "\n")
    print("RESULT " + line)


if __name__ == "__main__":
    main()
