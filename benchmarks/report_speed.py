"""Time to write the HTML report (``arena report X.ctl --html``) of a 20-player all-play-all with
20,000 results.

Builds the competition on disk in a temporary directory the way a run leaves
it, through the real store (:class:`arena.store.writer.DiskStore`, fsyncs
off): for each game the competition's next job, a synthetic result drawn from
known strengths (player *i* is 40·i Elo stronger than player 0; a few jigos,
unknown results, forfeits, losses on time and move-limit games) with each
player's move times as a run journals them, its SGF record (random moves, 30
to 120 of them) built by :func:`arena.store.sgf.build_sgf`, the journal
entry, then ``X.status``.

Then times the real command in-process (``arena_cli.main.main(["report",
X.ctl, "--html"])``: read the state, restore the competition, take the
snapshot, write X.report, read the journal, fit the ratings along the way,
draw the plots, among them time per move over the 20,000 games, write
X.html), the same in a new process (Python and matplotlib start-up
included), and a breakdown of one in-process run.

The reference, timed in the same loop so both see the same machine load, is
``arena show`` of the same competition (restore and the text report).

Prints a table and, as the last line, ``RESULT {json}`` with
``html_seconds`` (median of ``--repeat`` in-process runs), the spread, and
the ratio to ``show``.

    python benchmarks/report_speed.py [--players 20] [--results 20000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from show_speed import control_file  # this directory: the same all-play-all as show_speed

from arena.competitions.loader import load_control_file
from arena.competitions.registry import make_competition
from arena.reports.history import load_history
from arena.reports.html import render_html
from arena.reports.html_pages import PageInputs
from arena.results import EndReason, GameRecord, GameResult, MoveTimes, PlayedMove
from arena.stats.elo import score_from_elo
from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, encode_json, read_state
from arena.store.restore import load_competition
from arena.store.sgf import build_sgf
from arena.store.writer import DiskStore
from arena_cli.main import main as arena_main
from gtp.vertex import Colour, Move

BATCH = 200  # games per commit, as the writer's group commit would batch them


def _times(rng: random.Random, moves: int) -> MoveTimes:
    seconds = [rng.expovariate(1 / 2.5) for _ in range(moves)]
    return MoveTimes(moves, sum(seconds), max(seconds, default=0.0))


def _result(rng: random.Random, game_id: str, black: str, white: str, edge: float) -> GameResult:
    draw = rng.random()
    moves = rng.randint(30, 120)
    times = {"times_black": _times(rng, (moves + 1) // 2), "times_white": _times(rng, moves // 2)}
    if draw < 0.01:
        return GameResult(
            game_id, black, white, None, EndReason.SCORE, margin=0, moves=moves, **times
        )
    if draw < 0.015:
        return GameResult(game_id, black, white, None, EndReason.UNKNOWN, moves=moves, **times)
    if draw < 0.02:
        return GameResult(game_id, black, white, None, EndReason.MOVE_LIMIT, moves=moves, **times)
    winner = Colour.BLACK if rng.random() < score_from_elo(edge) else Colour.WHITE
    if draw < 0.03:
        end = EndReason.FORFEIT
    elif draw < 0.04:
        end = EndReason.TIME
    else:
        end = rng.choice([EndReason.RESIGN, EndReason.SCORE])
    margin = rng.randint(1, 40) + 0.5 if end is EndReason.SCORE else None
    return GameResult(
        game_id,
        black,
        white,
        winner,
        end,
        margin=margin,
        moves=moves,
        cpu_black=rng.uniform(1, 5),
        cpu_white=rng.uniform(1, 5),
        **times,
    )


def build(directory: Path, players: int, results: int, seed: int) -> Path:
    """Write the control file and play ``results`` synthetic games into the store."""
    ctl, codes = control_file(directory, players, results)  # the show benchmark's
    config = load_control_file(ctl)
    files = CompetitionFiles.for_control_file(ctl)
    competition = make_competition(config)
    store = DiskStore(files, "allplayall", durable=False)
    store.open()
    rng = random.Random(seed)
    strength = {code: 40.0 * i for i, code in enumerate(codes)}
    engines = {code: f"engine {code} 1.0" for code in codes}
    records: list[tuple[Path, bytes]] = []
    entries: list[ResultEntry] = []
    for number in range(results):
        job = competition.next_job()
        assert job is not None
        black, white = job.black.code, job.white.code
        result = _result(rng, job.game_id, black, white, strength[black] - strength[white])
        moves = tuple(
            PlayedMove(
                Colour.BLACK if k % 2 == 0 else Colour.WHITE,
                Move((rng.randrange(9), rng.randrange(9))),
            )
            for k in range(result.moves)
        )
        record = GameRecord(job, result, moves=moves, date="2025-11-25")
        records.append((files.sgf_path(job.game_id), build_sgf(record)))
        competition.record_result(result, engines)
        entries.append(ResultEntry(result, {black: engines[black], white: engines[white]}))
        if len(entries) == BATCH or number == results - 1:
            store.commit(records, entries, encode_json(competition.to_state()))
            records, entries = [], []
    store.close()
    return ctl


CPU: list[float] = []  # CPU seconds of each timed run, in order (less sensitive to load)


def timed(words: list[str], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        with contextlib.redirect_stdout(io.StringIO()):
            status = arena_main(words)
        times.append(time.perf_counter() - start)
        CPU.append(time.process_time() - cpu)
        if status != 0:
            raise SystemExit(f"arena {' '.join(words)} failed with status {status}")
    return times


def breakdown(ctl: Path) -> list[tuple[str, float]]:
    """One report, phase by phase (the same calls the command makes)."""
    phases = []
    start = time.perf_counter()
    config = load_control_file(ctl)
    files = CompetitionFiles.for_control_file(ctl)
    competition = load_competition(config, read_state(files, config.competition_type))
    snapshot = competition.snapshot()
    phases.append(("load the competition, snapshot", time.perf_counter() - start))
    start = time.perf_counter()
    history = load_history(files)
    phases.append(("journal (history)", time.perf_counter() - start))
    start = time.perf_counter()
    page = render_html(snapshot, PageInputs(config, history))
    phases.append(("series, plots and page", time.perf_counter() - start))
    phases.append((f"page size {len(page) / 1e3:.0f} kB", 0.0))
    return phases


def spread(times: list[float]) -> str:
    return (
        f"median {statistics.median(times):.3f} s  best {min(times):.3f} s"
        f"  worst {max(times):.3f} s  (n={len(times)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--results", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        start = time.perf_counter()
        ctl = build(directory, options.players, options.results, options.seed)
        files = CompetitionFiles.for_control_file(ctl)
        print(
            f"{options.players} players, {options.results} results;"
            f" built in {time.perf_counter() - start:.0f} s"
        )

        words = ["report", str(ctl), "--html"]
        first = timed(words, 1)[0]  # imports matplotlib, warms the file cache
        runs, shows, cpu = [], [], []
        for _ in range(options.repeat):  # interleaved: both see the same machine load
            runs += timed(words, 1)
            cpu.append(CPU[-1])
            shows += timed(["show", str(ctl)], 1)
        process = []
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "arena_cli", *words], check=True, capture_output=True
            )
            process.append(time.perf_counter() - start)
        phases = breakdown(ctl)
        figures = files.html_report.read_text(encoding="utf-8").count('<figure class="plot')

    print(f"first run in this process (imports matplotlib): {first:.3f} s")
    print(f"report --html, in-process:  {spread(runs)}")
    print(f"  CPU time of the same runs:  {spread(cpu)}")
    print(f"reference, show in-process: {spread(shows)}")
    ratios = [run / show for run, show in zip(runs, shows, strict=True)]
    print(
        f"ratio report --html / show: median {statistics.median(ratios):.1f}"
        f" (from {min(ratios):.1f} to {max(ratios):.1f})"
    )
    print(f"report --html, new process: {spread(process)}")
    print(f"one run, by phase ({figures} plots):")
    for label, seconds in phases:
        print(f"  {label:36}{seconds:8.3f} s" if seconds else f"  {label}")
    result = {
        "players": options.players,
        "results": options.results,
        "html_seconds": round(statistics.median(runs), 4),
        "html_best_seconds": round(min(runs), 4),
        "html_worst_seconds": round(max(runs), 4),
        "html_cpu_seconds": round(statistics.median(cpu), 4),
        "html_new_process_seconds": round(statistics.median(process), 4),
        "show_seconds": round(statistics.median(shows), 4),
        "html_over_show": round(statistics.median(ratios), 2),
        "plots": figures,
    }
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
