"""How much the arena itself costs: CPU per game and per move, games/s, recording cost.

Two instant engines (``benchmarks/instant_engine.py``, a fixed list of moves)
play 9x9 games of 62 moves and 19x19 games of 300 moves with ``--parallel 2``
in a run of the real ringmaster (in this process, so ``getrusage(RUSAGE_SELF)``
measures the arena alone, children excluded).  Then the per-result recording
cost (SGF, journal, status, all fsynced) is measured after 100 and after 10,000
recorded games.

Usage: python benchmarks/arena_overhead.py [--quick]

The last line is ``RESULT {json}`` with cpu_ms_per_game_9x9,
cpu_ms_per_move_19x19, games_per_s, games_per_s_reuse, record_ms_at_100 and
record_ms_at_10000.  Targets on this machine class: <= 5.6 ms per 9x9 game
(Gomill 11.3), <= 0.1 ms per 19x19 move (Gomill 0.23), recording flat within
10% from 100 to 10,000 games, >= 55 games/s with reuse_engines (Gomill 11).
Figures taken while other jobs share the cores are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import trio

from arena.api import run_competition
from arena.competitions.loader import load_control_file
from arena.competitions.playoff import Playoff
from arena.results import EndReason, GameJob, GameRecord, GameResult, PlayedMove
from arena.run.ringmaster import RunOptions
from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, StateStore
from arena.store.sgf import write_game_record
from gtp.vertex import Colour, Move

ENGINE = str(Path(__file__).with_name("instant_engine.py"))


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def write_ctl(directory: Path, name: str, size: int, games: int, reuse: bool) -> Path:
    command = [sys.executable, ENGINE]
    path = directory / f"{name}.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{'x': Player({command!r}), 'y': Player({command!r})}}\n"
        f"board_size = {size}\nkomi = 7.5\nscorer = 'internal'\n"
        "skip_player_checks = True\n"
        f"reuse_engines = {reuse}\n"
        f"matchups = [Matchup('x', 'y', alternating=True, number_of_games={games})]\n"
    )
    return path


def run_games(directory: Path, name: str, size: int, games: int, reuse: bool) -> dict[str, float]:
    config = load_control_file(write_ctl(directory, name, size, games, reuse))
    options = RunOptions(parallel=2, keyboard=False, handle_signals=False, freeze_gc=True)
    cpu_before, wall_before = cpu_seconds(), time.perf_counter()
    summary = trio.run(partial(run_competition, config, options))
    cpu, wall = cpu_seconds() - cpu_before, time.perf_counter() - wall_before
    assert summary.games_recorded == games, summary
    moves = 62 if size == 9 else 300
    return {
        "games": games,
        "cpu_ms_per_game": 1000 * cpu / games,
        "cpu_ms_per_move": 1000 * cpu / (games * moves),
        "games_per_s": games / wall,
    }


def spawn_floor(games: int) -> float:
    """CPU ms of this process to start, quit and reap two instant engines, without the arena.

    The floor under the cost of new engines for every game: ``posix_spawn``
    in a new session, ``quit``, the end of its output, ``waitpid``, with
    none of the arena's supervision (no trio, no timeouts, no stderr pump).
    """
    argv = [sys.executable, ENGINE]

    def start() -> tuple[int, int, int]:
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        actions = [(os.POSIX_SPAWN_DUP2, stdin_r, 0), (os.POSIX_SPAWN_DUP2, stdout_w, 1)]
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions, setsid=True)
        os.close(stdin_r)
        os.close(stdout_w)
        return pid, stdin_w, stdout_r

    before = cpu_seconds()
    for _ in range(games):
        engines = [start(), start()]
        for _, stdin_w, _ in engines:
            os.write(stdin_w, b"quit\n")
        for pid, stdin_w, stdout_r in engines:
            while os.read(stdout_r, 4096):
                pass
            os.waitpid(pid, 0)
            os.close(stdin_w)
            os.close(stdout_r)
    return 1000 * (cpu_seconds() - before) / games


def synthetic_record(job: GameJob) -> GameRecord:
    moves = tuple(
        PlayedMove(Colour.BLACK if i % 2 == 0 else Colour.WHITE, Move((i // 9, i % 9)))
        for i in range(60)
    )
    result = GameResult(job.game_id, "x", "y", Colour.WHITE, EndReason.SCORE, 7.5, 62, 0.01, 0.01)
    return GameRecord(job=job, result=result, moves=moves, player_names=("x", "y"))


class Recorder:
    """A competition on disk, pre-filled with ``prefill`` results (quickly, not durable)."""

    def __init__(self, directory: Path, prefill: int, capacity: int) -> None:
        path = write_ctl(directory, f"rec{prefill}", 9, prefill + capacity, False)
        self.config = load_control_file(path)
        self.files = CompetitionFiles.for_control_file(path)
        self.playoff = Playoff(self.config)
        self.store = StateStore(self.files, "playoff", durable=False)
        self.store.open()
        for _ in range(prefill):
            self.record()
        self.store.durable = True

    def record(self) -> tuple[float, float]:
        """Record the next game as the ringmaster does; seconds taken (wall, this process's CPU)."""
        job = self.playoff.next_job()
        assert job is not None
        record = synthetic_record(job)
        assert record.result is not None
        start, cpu_start = time.perf_counter(), time.process_time()
        write_game_record(self.files, record)
        self.playoff.record_result(record.result, {"x": "x"})
        self.store.record(ResultEntry(record.result, {"x": "x"}), self.playoff.to_state())
        return time.perf_counter() - start, time.process_time() - cpu_start


def recording_costs(directory: Path, big: int, samples: int) -> tuple[float, float, float]:
    """Median ms per result after 100 and after ``big`` results, sampled alternately.

    Also the median CPU ms per result after 100 (the rest of the wall time is
    spent waiting for fsync).
    """
    small_store = Recorder(directory, 100, samples)
    big_store = Recorder(directory, big, samples)
    small, large, small_cpu = [], [], []
    for _ in range(samples):
        wall, cpu = small_store.record()
        small.append(wall)
        small_cpu.append(cpu)
        large.append(big_store.record()[0])
    return (
        1000 * statistics.median(small),
        1000 * statistics.median(large),
        1000 * statistics.median(small_cpu),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer games (a smoke run)")
    options = parser.parse_args()
    scale = 0.25 if options.quick else 1.0
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        plain = run_games(directory, "plain9", 9, max(4, int(60 * scale)), reuse=False)
        reuse = run_games(directory, "reuse9", 9, max(4, int(200 * scale)), reuse=True)
        large = run_games(directory, "plain19", 19, max(2, int(12 * scale)), reuse=False)
        big_reuse = run_games(directory, "reuse19", 19, max(2, int(12 * scale)), reuse=True)
        floor = spawn_floor(max(4, int(30 * scale)))
        big = 1000 if options.quick else 10_000
        record_100, record_10000, record_cpu = recording_costs(
            directory, big, 50 if options.quick else 200
        )
    print(
        f"9x9, 62 moves, new engines per game : {plain['cpu_ms_per_game']:7.2f} ms CPU/game"
        f"  {plain['games_per_s']:6.1f} games/s  (Gomill: 11.3 ms/game, 11 games/s)"
    )
    print(
        f"9x9, 62 moves, reuse_engines        : {reuse['cpu_ms_per_game']:7.2f} ms CPU/game"
        f"  {reuse['games_per_s']:6.1f} games/s"
    )
    print(
        "  so starting and stopping two engines costs about"
        f" {plain['cpu_ms_per_game'] - reuse['cpu_ms_per_game']:.2f} ms CPU per game"
    )
    print(
        f"  (the bare floor, posix_spawn + quit + waitpid of two engines without the arena:"
        f" {floor:.2f} ms CPU per game)"
    )
    print(
        f"19x19, 300 moves, new engines       : {large['cpu_ms_per_move']:7.4f} ms CPU/move"
        f"  ({large['cpu_ms_per_game']:.1f} ms/game; Gomill: 0.23 ms/move)"
    )
    print(f"19x19, 300 moves, reuse_engines     : {big_reuse['cpu_ms_per_move']:7.4f} ms CPU/move")
    print(
        f"recording one result after 100 games   : {record_100:.3f} ms (median, fsynced;"
        f" {record_cpu:.3f} ms of it CPU)"
    )
    print(
        f"recording one result after 10000 games : {record_10000:.3f} ms"
        f"  (ratio {record_10000 / record_100:.2f})"
    )
    result = {
        "cpu_ms_per_game_9x9": round(plain["cpu_ms_per_game"], 3),
        "cpu_ms_per_game_9x9_reuse": round(reuse["cpu_ms_per_game"], 3),
        "cpu_ms_per_move_19x19": round(large["cpu_ms_per_move"], 4),
        "cpu_ms_per_move_19x19_reuse": round(big_reuse["cpu_ms_per_move"], 4),
        "games_per_s": round(plain["games_per_s"], 2),
        "games_per_s_reuse": round(reuse["games_per_s"], 2),
        "record_ms_at_100": round(record_100, 3),
        "record_ms_at_10000": round(record_10000, 3),
        "record_cpu_ms_at_100": round(record_cpu, 3),
    }
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
