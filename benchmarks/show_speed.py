"""Speed of ``arena show`` for a 20-player all-play-all with 20,000 results.

Builds the competition on disk in a temporary directory, as a run would leave
it: the control file, ``X.journal`` with one entry per game and ``X.status``
covering the whole journal.  The results are synthetic, drawn from known
strengths (player *i* is 40·i Elo stronger than player 0), with a few jigos and
unknown results.  Then times the real ``show`` path in-process
(``arena_cli.main.main(["show", X.ctl])`` with stdout captured): read the control
file, read the state, restore the competition, take the snapshot (grid,
190 pairings' figures, Bradley–Terry ratings) and render the report.

Also timed, for context: the ``arena show`` command in a new process
(Python start-up and imports included); ``show`` when ``X.status`` is missing, so all 20,000
journal entries are re-applied (the worst case after a crash before the first
status write; a normal run rewrites the status after every game), and
``arena export`` of the 20,000 games as CSV.

Prints a table and, as the last line, ``RESULT {json}`` with ``show_seconds``
(median of ``--repeat`` runs).  The machine may be shared with other work: the
numbers are noisy then.

    python benchmarks/show_speed.py [--players 20] [--results 20000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from arena.competitions.loader import load_control_file
from arena.competitions.registry import make_competition
from arena.results import EndReason, GameResult
from arena.stats.elo import score_from_elo
from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, StateStore
from arena_cli.main import main as arena_main
from gtp.vertex import Colour


def control_file(directory: Path, players: int, results: int) -> tuple[Path, list[str]]:
    """An all-play-all of ``players`` (never started) with rounds enough for ``results``."""
    codes = [f"p{i:02d}" for i in range(players)]
    pairings = players * (players - 1) // 2
    rounds = -(-results // pairings)  # enough rounds for every result
    ctl = directory / "big.ctl"
    ctl.write_text(
        "competition_type = 'allplayall'\n"
        f"players = {{{', '.join(f'{c!r}: Player({c!r})' for c in codes)}}}\n"
        f"board_size = 9\nkomi = 7.5\nrounds = {rounds}\ncompetitors = {codes!r}\n"
    )
    return ctl, codes


def build(directory: Path, players: int, results: int, seed: int) -> Path:
    """Write the control file, the journal and the status; returns the control file."""
    ctl, codes = control_file(directory, players, results)
    config = load_control_file(ctl)
    competition = make_competition(config)
    store = StateStore(CompetitionFiles.for_control_file(ctl), "allplayall", durable=False)
    store.open()
    rng = random.Random(seed)
    strength = {code: 40.0 * i for i, code in enumerate(codes)}
    engines = {code: f"engine {code} 1.0" for code in codes}
    for _ in range(results):
        job = competition.next_job()
        assert job is not None
        black, white = job.black.code, job.white.code
        draw = rng.random()
        if draw < 0.01:
            winner, end = None, EndReason.SCORE  # jigo
        elif draw < 0.02:
            winner, end = None, EndReason.UNKNOWN
        else:
            p_black = score_from_elo(strength[black] - strength[white])
            winner = Colour.BLACK if rng.random() < p_black else Colour.WHITE
            end = EndReason.RESIGN
        result = GameResult(
            job.game_id,
            black,
            white,
            winner,
            end,
            moves=rng.randint(40, 120),
            cpu_black=rng.uniform(1, 5),
            cpu_white=rng.uniform(1, 5),
        )
        competition.record_result(result, engines)
        store.append(ResultEntry(result, {black: engines[black], white: engines[white]}))
    store.write_status(competition.to_state())
    store.close()
    return ctl


def timed(words: list[str], repeat: int) -> tuple[list[float], str]:
    """Run the arena command in-process ``repeat`` times; the times and the last output."""
    times = []
    out = ""
    for _ in range(repeat):
        buffer = io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stdout(buffer):
            status = arena_main(words)
        times.append(time.perf_counter() - start)
        if status != 0:
            raise SystemExit(f"arena {' '.join(words)} failed with status {status}")
        out = buffer.getvalue()
    return times, out


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
        build_seconds = time.perf_counter() - start
        files = CompetitionFiles.for_control_file(ctl)
        journal_bytes = files.journal.stat().st_size
        status_bytes = files.status.stat().st_size

        show, report = timed(["show", str(ctl)], options.repeat)
        process = []
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run(["arena", "show", str(ctl)], check=True, capture_output=True)
            process.append(time.perf_counter() - start)
        export, csv_text = timed(
            ["export", str(ctl), "--format", "csv"], max(1, options.repeat // 2)
        )
        files.status.unlink()
        replay, replayed_report = timed(["show", str(ctl)], max(1, options.repeat // 2))

    if replayed_report != report:
        raise SystemExit("show from the journal alone differs from show with the status")
    games = f"games played: {options.results}"
    if games not in report:
        raise SystemExit(f"the report does not say {games!r}")
    rows = csv_text.count("\n") - 1

    print(f"{options.players} players, {options.results} results; built in {build_seconds:.1f} s")
    print(f"journal {journal_bytes / 1e6:.1f} MB, status {status_bytes / 1e3:.0f} kB")
    print(
        f"report: {len(report.splitlines())} lines, {len(report) / 1e3:.0f} kB; export rows {rows}"
    )
    print(f"{'':32}{'median':>10}{'best':>10}")
    for label, times in (
        ("show (status + journal)", show),
        ("show in a new process", process),
        ("export csv", export),
        ("show, journal only (no status)", replay),
    ):
        print(f"{label:32}{statistics.median(times):>9.3f}s{min(times):>9.3f}s")
    result = {
        "players": options.players,
        "results": options.results,
        "show_seconds": round(statistics.median(show), 4),
        "show_best_seconds": round(min(show), 4),
        "show_new_process_seconds": round(statistics.median(process), 4),
        "export_csv_seconds": round(statistics.median(export), 4),
        "show_journal_only_seconds": round(statistics.median(replay), 4),
    }
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
