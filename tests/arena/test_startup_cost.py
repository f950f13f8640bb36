"""What a command loads and starts before its first game: no more than it needs.

A run's start is counted against Gomill's ringmaster (``benchmarks/gomill_side_by_side``):
what only a game needs (the GTP client, the game's modules, sgfmill, the engine guard's
process) comes with the first game, what only some commands need with them.  These
tests keep the lazy paths lazy, so the gain cannot silently regress.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from arena.run.watchdog import Watchdog

ROOT = Path(__file__).resolve().parents[2]

CONTROL = (
    "competition_type = 'playoff'\n"
    "players = {'a': Player('engine-a'), 'b': Player('engine-b')}\n"
    "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
    "skip_player_checks = True\n"
    "matchups = [Matchup('a', 'b', number_of_games=2)]\n"
)

# Loaded with the first game, an openings file, a misspelt name, `arena export` or a
# tuner (datetime: with the first record or status; gtp.protocol: with GTP commands to send).
NOT_AT_START = (
    "gtp.client",
    "gtp.launch",
    "gtp.process",
    "gtp.protocol",
    "arena.run.match",
    "arena.run.game",
    "arena.run.referee",
    "sgfmill",
    "difflib",
    "csv",
    "datetime",
    # only a tuner builds these classes, or words its history notes
    "arena.competitions.tuner_snapshots",
    "arena.reports.tuner",
    "arena.reports.ce_tuner",
    "arena.reports.spsa_tuner",
)


def modules_after(tmp_path: Path, *args: str) -> set[str]:
    """The modules loaded by ``arena ARGS`` (in a fresh process, in ``tmp_path``)."""
    (tmp_path / "start.ctl").write_text(CONTROL)
    code = (
        "import sys\n"
        "from arena_cli.main import main\n"
        "status = main(sys.argv[1:])\n"
        "print(' '.join(sorted(sys.modules)))\n"
        "sys.exit(status)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def test_a_run_that_plays_no_game_loads_nothing_a_game_needs(tmp_path: Path) -> None:
    loaded = modules_after(tmp_path, "run", "start.ctl", "-q", "-g", "0")
    assert "trio" in loaded
    assert sorted(name for name in NOT_AT_START if name in loaded) == []
    assert (tmp_path / "start.report").is_file()


def test_show_loads_neither_trio_nor_the_run(tmp_path: Path) -> None:
    loaded = modules_after(tmp_path, "show", "start.ctl")
    bad = sorted(
        name
        for name in loaded
        if name == "trio" or name.startswith(("trio.", "arena.run", "tui", "rich"))
    )
    assert bad == []


def test_the_guard_process_starts_with_the_first_engine() -> None:
    guard = Watchdog()
    guard.start()
    try:
        assert guard._process is None  # armed: no process for a run without engines
        guard.engine_stopped(1)  # nothing to tell yet
        assert guard._process is None
        guard.engine_started(2**22 + 7)  # a group that does not exist
        process = guard._process
        assert process is not None and process.poll() is None
        guard.engine_started(2**22 + 8)  # the same guard for the next engines
        assert guard._process is process
    finally:
        guard.stop()
    assert guard._process is None
    guard.engine_started(2**22 + 9)  # stopped: not started again
    assert guard._process is None
