"""X.lock lives exactly as long as a run: gone when it ends, fails or is interrupted.

A lock left by a run that was killed outright (SIGKILL: no chance to clean up)
holds no ``flock``; the next run takes it over and removes it in turn.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.store.files import CompetitionFiles
from arena_cli.main import main

from .fakes import fake_command

PACED_ENGINE = Path(__file__).resolve().parents[1] / "tui" / "paced_engine.py"
GUARD_S = 30.0


def write_ctl(directory: Path, black: list[str], white: list[str], games: int = 2) -> Path:
    path = directory / "X.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{'a': Player({black!r}), 'b': Player({white!r})}}\n"
        "board_size = 7\nkomi = 7.5\nscorer = 'internal'\n"
        f"matchups = [Matchup('a', 'b', number_of_games={games})]\n"
    )
    return path


def paced(seed: int) -> list[str]:
    return [sys.executable, str(PACED_ENGINE), "--delay", "0.05", "--seed", str(seed)]


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.suffix == ".lock")


def test_a_finished_run_leaves_no_lock(tmp_path: Path) -> None:
    path = write_ctl(tmp_path, list(fake_command("--moves=D4")), list(fake_command("--moves=D6")))
    assert main(["run", str(path), "-q"]) == 0
    assert CompetitionFiles.for_control_file(path).status.exists()
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize(
    "command",
    [["cat"], ["no-such-engine-binary"], ["true"]],
    ids=["cat", "nocmd", "true"],
)
def test_failed_startup_checks_leave_no_lock(
    tmp_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_ctl(tmp_path, command, command)
    assert main(["run", str(path), "-q"]) == 1
    assert "startup check failed" in capsys.readouterr().err
    assert leftovers(tmp_path) == []


def start_run(path: Path) -> subprocess.Popen[bytes]:
    """``arena run X.ctl -q`` in its own process group, once its games are under way."""
    run = subprocess.Popen(
        [sys.executable, "-m", "arena_cli", "run", str(path), "-q"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    lock = path.with_suffix(".lock")
    games_dir = path.with_suffix(".games")
    deadline = time.monotonic() + GUARD_S
    while not (lock.exists() and games_dir.exists() and run.poll() is None):
        assert time.monotonic() < deadline, "the run did not get going"
        assert run.poll() is None, run.communicate()
        time.sleep(0.05)
    return run


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_an_interrupted_run_leaves_no_lock(tmp_path: Path, how: signal.Signals) -> None:
    path = write_ctl(tmp_path, paced(1), paced(2), games=100)
    run = start_run(path)
    try:
        os.kill(run.pid, how)
        _, stderr = run.communicate(timeout=GUARD_S)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    assert run.returncode == 130, stderr
    assert b"Traceback" not in stderr
    assert leftovers(tmp_path) == []


def test_a_stale_lock_from_a_killed_run_is_taken_over(tmp_path: Path) -> None:
    path = write_ctl(tmp_path, paced(1), paced(2), games=100)
    run = start_run(path)
    os.killpg(run.pid, signal.SIGKILL)  # no cleanup at all: the lock file stays
    run.communicate(timeout=GUARD_S)
    assert leftovers(tmp_path) == ["X.lock"]
    path.write_text(path.read_text().replace("number_of_games=100", "number_of_games=1"))
    assert main(["run", str(path), "-q"]) == 0
    assert leftovers(tmp_path) == []
