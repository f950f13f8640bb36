"""Does the sample engine keep its clock on a busy machine?  Games against GNU Go under load.

Plays ``--games`` games (40) of the sample engine at its default settings,
clocked by ``PerMove(0.2)`` (0.2 s for every move; GNU Go has no clock),
against GNU Go level 1 (``--chinese-rules --capture-all-dead``) on 9x9 with
komi 7.5, colours alternating, through ``arena run X.ctl -j 2`` in a fresh
directory, while ``--hogs`` (4) busy processes load the machine
(:func:`load.cpu_hog`).  Then it reads every SGF record the arena wrote and
counts, for our engine:

* passes with 0 root visits before move 30 (the engine's
  ``gomill-explain_last_move`` text is each move's SGF comment, and says
  ``0 root visits`` when no simulation finished): the bug of issue 29;
* moves chosen by the priors alone (no simulation finished), any move;
* losses on time (``RE[..+T]``), each with the arena's reason, and void
  games with theirs (a move over its clock by no more than the machine's
  stall explains may void the game rather than lose it);
* its wins, and the time it reported for its moves (think time, target,
  limit, safety margin) next to the arena's own timing of its genmoves
  (from the journal, where it can be read).

The load average is sampled every few seconds while the games run.  The
last line is ``RESULT {json}`` with games, engine_zero_visit_passes_before_30,
engine_time_losses, engine_wins and load_average.

    python benchmarks/engine_clock_load.py [--games 40] [--jobs 2] [--hogs 4]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import attrs

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import cpu_hog  # noqa: E402

OURS: Final = "mcts"
THEIRS: Final = "gnugo-l1"
PASS_BEFORE: Final = 30  # count zero-visit passes at move numbers below this
LOAD_SAMPLE_SECONDS: Final = 5.0
TIMING = re.compile(
    r"(?P<visits>\d+) root visits in (?P<took>[\d.]+) s"
    r"(?: \(target (?P<target>[\d.]+) s, planned [\d.]+ s, limit (?P<limit>[\d.]+) s,"
    r" margin (?P<margin>[\d.]+) s\))?"
)


def control_text(games: int, seconds: float, level: int, gnugo: str) -> str:
    engine = [sys.executable, "-m", "engines.mcts"]
    opponent = [
        gnugo,
        "--mode",
        "gtp",
        "--level",
        str(level),
        "--chinese-rules",
        "--capture-all-dead",
    ]
    return f"""\
# Written by benchmarks/engine_clock_load.py: edit the script, not this file.
competition_type = 'playoff'

description = 'sample engine (default settings, PerMove({seconds:g})) v GNU Go level {level}'

players = {{
    {OURS!r}: Player({engine!r}, cwd={str(ROOT)!r}, time_control=PerMove({seconds!r})),
    {THEIRS!r}: Player({opponent!r}, move_timeout=60),
}}

board_size = 9
komi = 7.5
scorer = 'internal'
record_games = True

matchups = [
    Matchup({OURS!r}, {THEIRS!r}, id='clock', alternating=True, number_of_games={games}),
]
"""


@attrs.define
class LoadSampler:
    """The 1-minute load average, sampled in a thread while the games run."""

    samples: list[float] = attrs.field(factory=list)
    _stop: threading.Event = attrs.field(factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(LOAD_SAMPLE_SECONDS):
            self.samples.append(os.getloadavg()[0])

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.samples.append(os.getloadavg()[0])


@attrs.define
class Tally:
    """What the records say about our engine."""

    games: int = 0
    wins: int = 0
    zero_visit_passes_before_30: int = 0
    zero_visit_passes: int = 0
    prior_moves: int = 0  # moves chosen with no simulation finished (passes included)
    moves: int = 0
    time_losses: list[str] = attrs.field(factory=list)  # the arena's reasons
    other_losses: dict[str, int] = attrs.field(factory=dict)  # by how the game ended
    voids: list[str] = attrs.field(factory=list)
    took: list[float] = attrs.field(factory=list)  # our reported think time per move
    targets: list[float] = attrs.field(factory=list)
    limits: list[float] = attrs.field(factory=list)
    margins: list[float] = attrs.field(factory=list)
    visits: list[int] = attrs.field(factory=list)
    unreadable: list[str] = attrs.field(factory=list)


def root_lines(comment: str) -> dict[str, str]:
    """The root comment's ``Label rest`` lines that matter here."""
    found: dict[str, str] = {}
    for line in comment.splitlines():
        for label in ("Ended:", "Void game:", "Black", "White"):
            if line.startswith(label + " ") and label not in found:
                found[label] = line[len(label) + 1 :].strip()
    return found


def our_colour(lines: dict[str, str]) -> str | None:
    for label, letter in (("Black", "b"), ("White", "w")):
        words = lines.get(label, "").split()
        if words and words[0] == OURS:
            return letter
    return None


def read_record(path: Path, tally: Tally, *, void: bool) -> None:
    from sgfmill import sgf

    try:
        game = sgf.Sgf_game.from_bytes(path.read_bytes())
    except ValueError as exc:
        tally.unreadable.append(f"{path.name}: {exc}")
        return
    root = game.get_root()
    lines = root_lines(root.get("C") if root.has_property("C") else "")
    ours = our_colour(lines)
    if ours is None:
        tally.unreadable.append(f"{path.name}: no player {OURS!r} in the root comment")
        return
    if void:
        tally.voids.append(f"{path.name}: {lines.get('Void game:', '?')}")
    else:
        tally.games += 1
        result = root.get("RE") if root.has_property("RE") else ""
        winner = result[0].lower() if len(result) > 1 and result[1] == "+" else None
        if winner == ours:
            tally.wins += 1
        elif winner is not None:
            how = result[2:] or "?"
            if how == "T":
                tally.time_losses.append(f"{path.name}: {lines.get('Ended:', result)}")
            else:
                kind = {"R": "resignation", "F": "forfeit"}.get(how, "score")
                tally.other_losses[kind] = tally.other_losses.get(kind, 0) + 1
    for number, node in enumerate(game.get_main_sequence()[1:], start=1):
        colour, move = node.get_move()
        if colour != ours:
            continue
        comment = node.get("C") if node.has_property("C") else ""
        if not comment:
            continue  # an opening move, or an engine that explained nothing
        tally.moves += 1
        if move is None and re.search(r"\b0 root visits", comment):
            tally.zero_visit_passes += 1
            if number < PASS_BEFORE:
                tally.zero_visit_passes_before_30 += 1
        if "by the priors" in comment:
            tally.prior_moves += 1
        timing = TIMING.search(comment)
        if timing is not None:
            tally.visits.append(int(timing["visits"]))
            tally.took.append(float(timing["took"]))
            if timing["limit"] is not None:
                tally.targets.append(float(timing["target"]))
                tally.limits.append(float(timing["limit"]))
                tally.margins.append(float(timing["margin"]))


def arena_move_times(control: Path) -> tuple[list[float], list[float]]:
    """(mean, longest) seconds of our genmoves per game as the arena timed them ([] if unknown)."""
    try:
        from arena.reports.export import counted_results
        from arena.store.files import CompetitionFiles

        means: list[float] = []
        longest: list[float] = []
        for result in counted_results(CompetitionFiles.for_control_file(control)):
            times = result.times_black if result.black == OURS else result.times_white
            if times is not None and times.moves:
                means.append(times.total / times.moves)
                longest.append(times.longest)
        return means, longest
    except Exception as exc:  # the arena's journal is someone else's format: figures only
        print(f"(could not read the arena's move times: {type(exc).__name__}: {exc})")
        return [], []


def run_arena(control: Path, jobs: int) -> int:
    command = [sys.executable, "-m", "arena_cli", "run", str(control), "-j", str(jobs)]
    with subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        errors="replace",
    ) as arena:
        assert arena.stdout is not None
        for line in arena.stdout:
            print(f"  arena: {line.rstrip()}", flush=True)
        return arena.wait()


def spread(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return (
        f"median {statistics.median(ordered):.3f}  95% {p95:.3f}  max {ordered[-1]:.3f}"
        f"  (n={len(ordered)})"
    )


def records(directory: Path) -> Iterator[Path]:
    if directory.is_dir():
        yield from sorted(directory.glob("*.sgf"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2, help="games at a time (arena -j)")
    parser.add_argument("--hogs", type=int, default=4, help="busy processes beside the games")
    parser.add_argument("--seconds", type=float, default=0.2, help="PerMove time of our engine")
    parser.add_argument("--level", type=int, default=1, help="GNU Go level")
    parser.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="where the control file and records go (default: a new temp dir)",
    )
    args = parser.parse_args()
    gnugo = shutil.which("gnugo") or "/usr/games/gnugo"
    if not Path(gnugo).exists():
        print("engine_clock_load: GNU Go not found (apt-get install gnugo)", file=sys.stderr)
        return 2
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="engine_clock_load-"))
    workdir.mkdir(parents=True, exist_ok=True)
    control = workdir / "clock_load.ctl"
    control.write_text(control_text(args.games, args.seconds, args.level, gnugo), encoding="utf-8")
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    print(
        f"engine_clock_load at {commit or '?'}: {args.games} games, our engine"
        f" PerMove({args.seconds:g}) v GNU Go level {args.level}, -j {args.jobs},"
        f" {args.hogs} busy processes on {os.cpu_count()} cores; in {workdir}",
        flush=True,
    )
    load_before = os.getloadavg()[0]
    sampler = LoadSampler()
    started = time.monotonic()
    with cpu_hog(args.hogs, max_seconds=3 * 3600):
        sampler.start()
        try:
            status = run_arena(control, args.jobs)
        finally:
            sampler.stop()
    wall = time.monotonic() - started
    tally = Tally()
    for path in records(workdir / "clock_load.games"):
        read_record(path, tally, void=False)
    for path in records(workdir / "clock_load.void"):
        read_record(path, tally, void=True)
    means, longest = arena_move_times(control)
    load_average = statistics.mean(sampler.samples) if sampler.samples else load_before

    print()
    print(
        f"arena exit status {status}; {wall:.0f} s; load average {load_before:.1f} before,"
        f" {load_average:.1f} mean while playing ({len(sampler.samples)} samples,"
        f" max {max(sampler.samples, default=0):.1f})"
    )
    print(
        f"games {tally.games} (void {len(tally.voids)}): engine won {tally.wins}"
        f" ({100 * tally.wins / max(tally.games, 1):.0f}%); lost on time"
        f" {len(tally.time_losses)}; other losses {tally.other_losses or 'none'}"
    )
    print(
        f"engine moves {tally.moves}: passes with 0 root visits {tally.zero_visit_passes}"
        f" ({tally.zero_visit_passes_before_30} before move {PASS_BEFORE});"
        f" moves by the priors alone {tally.prior_moves}"
    )
    print(f"root visits per move:        {spread([float(v) for v in tally.visits])}")
    print(f"engine's own think time (s): {spread(tally.took)}")
    print(f"its target (s):              {spread(tally.targets)}")
    print(f"its limit (s):               {spread(tally.limits)}")
    print(f"its safety margin (s):       {spread(tally.margins)}")
    print(f"arena-timed mean per game:   {spread(means)}")
    print(f"arena-timed longest per game:{spread(longest)}")
    for reason in tally.time_losses:
        print(f"time loss: {reason}")
    for reason in tally.voids:
        print(f"void: {reason}")
    for problem in tally.unreadable:
        print(f"unreadable: {problem}")
    result: dict[str, Any] = {
        "games": tally.games,
        "engine_zero_visit_passes_before_30": tally.zero_visit_passes_before_30,
        "engine_time_losses": len(tally.time_losses),
        "engine_wins": tally.wins,
        "load_average": round(load_average, 2),
        "void_games": len(tally.voids),
        "engine_moves": tally.moves,
        "engine_prior_moves": tally.prior_moves,
        "engine_think_max": max(tally.took, default=None),
        "arena_longest_move": max(longest, default=None),
        "per_move_seconds": args.seconds,
        "hogs": args.hogs,
        "commit": commit,
    }
    print("RESULT " + json.dumps(result))
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
