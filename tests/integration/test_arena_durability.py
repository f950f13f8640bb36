"""Killing the arena must never lose or double a result, nor leave an engine behind."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sgfmill import sgf

from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, iter_journal
from tests.arena.fakes import fake_command

GAMES = 12
KILLS = 20
MOVES_B = "--moves=" + ",".join(f"{c}{r}" for c in "ABCD" for r in range(1, 10))
MOVES_W = "--moves=" + ",".join(f"{c}{r}" for c in "FGHJ" for r in range(1, 10))


def write_ctl(directory: Path, env_file: Path) -> Path:
    black = fake_command(MOVES_B, f"--env-file={env_file}")
    white = fake_command(MOVES_W, f"--env-file={env_file}")
    path = directory / "durable.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{'a': Player({list(black)!r}), 'b': Player({list(white)!r})}}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        f"matchups = [Matchup('a', 'b', alternating=True, number_of_games={GAMES})]\n"
    )
    return path


def arena(path: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena_cli", "run", str(path), "-q", "-j", "2", *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def engine_pids(env_file: Path) -> set[int]:
    if not env_file.exists():
        return set()
    return {int(line.split()[2]) for line in env_file.read_text().splitlines()}


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes (it only waits for its new parent to reap it).
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# Only against hangs: every wait below ends as soon as what it waits for is so,
# and a loaded machine may take many seconds to start a run and its engines.
GUARD_S = 60.0


def wait_until(done: Callable[[], bool], what: str, seconds: float = GUARD_S) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def game_engines(env_file: Path) -> set[str]:
    """The games (ids) whose two engines have started."""
    if not env_file.exists():
        return set()
    games = [line.split()[0] for line in env_file.read_text().splitlines()]
    return {game for game in games if games.count(game) == 2}


def wait_until_gone(pids: set[int], seconds: float = GUARD_S) -> set[int]:
    deadline = time.monotonic() + seconds
    left = {pid for pid in pids if alive(pid)}
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = {pid for pid in left if alive(pid)}
    return left


def check_status(files: CompetitionFiles) -> None:
    if files.status.exists():
        status = json.loads(files.status.read_text())  # never half written
        assert status["format"] == "gtp-arena-status"


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_and_doubles_nothing(tmp_path: Path) -> None:
    env_file = tmp_path / "engines"
    path = write_ctl(tmp_path, env_file)
    files = CompetitionFiles.for_control_file(path)
    rng = random.Random(20240501)
    for _ in range(KILLS):
        process = arena(path)
        time.sleep(rng.uniform(0.1, 0.9))
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert process.stderr is not None
        process.stderr.close()
        check_status(files)
        assert wait_until_gone(engine_pids(env_file)) == set()
    final = arena(path)
    _, err = final.communicate(timeout=120)
    assert final.returncode == 0, err.decode()
    check_status(files)
    game_ids = [e.result.game_id for e in iter_journal(files) if isinstance(e, ResultEntry)]
    assert len(game_ids) == len(set(game_ids)) == GAMES
    width = len(str(GAMES - 1))
    assert sorted(game_ids) == [f"0_{n:0{width}d}" for n in range(GAMES)]
    for game_id in game_ids:
        game = sgf.Sgf_game.from_bytes(files.sgf_path(game_id).read_bytes())
        assert game.get_root().get("GN") == game_id
    status = json.loads(files.status.read_text())
    assert status["competition"]["matchups"]["0"]["tally"]["games"] == GAMES
    assert wait_until_gone(engine_pids(env_file)) == set()


@pytest.mark.parametrize(
    "signum",
    [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
    ids=["ctrl-c", "sigterm", "closed-terminal"],
)
def test_a_stop_signal_stops_at_once_and_the_next_run_replays(
    tmp_path: Path, signum: signal.Signals
) -> None:
    env_file = tmp_path / "engines"
    black = fake_command("--moves=D4", "--hang-at=2", f"--env-file={env_file}")
    white = fake_command("--moves=D6", f"--env-file={env_file}")
    path = tmp_path / "hang.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{'a': Player({list(black)!r}), 'b': Player({list(white)!r})}}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        "matchups = [Matchup('a', 'b', number_of_games=2)]\n"
    )
    process = arena(path)
    wait_until(lambda: {"0_0", "0_1"} <= game_engines(env_file), "both games under way")
    process.send_signal(signum)
    _, err = process.communicate(timeout=GUARD_S)
    assert process.returncode == 130, err.decode()
    assert wait_until_gone(engine_pids(env_file)) == set()
    files = CompetitionFiles.for_control_file(path)
    assert not [e for e in iter_journal(files) if isinstance(e, ResultEntry)]
    log = files.log.read_text()
    assert "run finished: interrupted; games 0_0, 0_1 will be replayed" in log
    assert files.report.exists()  # written by this run (a fresh folder), as at any end


def hanging_competition(directory: Path, env_file: Path, *black_extra: str) -> Path:
    black = fake_command("--moves=D4", "--hang-at=2", f"--env-file={env_file}", *black_extra)
    white = fake_command("--moves=D6", f"--env-file={env_file}", *black_extra)
    path = directory / "stubborn.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{'a': Player({list(black)!r}), 'b': Player({list(white)!r})}}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        "matchups = [Matchup('a', 'b', number_of_games=2)]\n"
    )
    return path


def test_engines_that_ignore_eof_are_stopped_when_the_arena_is_killed(tmp_path: Path) -> None:
    env_file = tmp_path / "engines"
    process = arena(hanging_competition(tmp_path, env_file, "--ignore-eof"))
    wait_until(lambda: {"0_0", "0_1"} <= game_engines(env_file), "both games under way")
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.stderr is not None
    process.stderr.close()
    # The guard gives them SIGTERM, then SIGKILL after 2 s.
    assert wait_until_gone(engine_pids(env_file)) == set()


def test_ctrl_x_on_the_terminal_finishes_the_games_in_progress(tmp_path: Path) -> None:
    import fcntl
    import pty
    import termios

    env_file = tmp_path / "engines"
    black = fake_command("--moves=D4,E4", f"--env-file={env_file}")
    white = fake_command("--moves=D6,E6", f"--env-file={env_file}")
    path = tmp_path / "keys.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{'a': Player({list(black)!r}), 'b': Player({list(white)!r})}}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        "matchups = [Matchup('a', 'b')]\n"  # no limit: only a stop ends it
    )
    master, slave = pty.openpty()

    def own_terminal() -> None:
        # As in a real terminal: the arena leads a session whose controlling
        # terminal is the pty, so it is the foreground job and reads keys.
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    process = subprocess.Popen(
        [sys.executable, "-m", "arena_cli", "run", str(path), "-q"],
        stdin=slave,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=own_terminal,
    )
    os.close(slave)
    try:
        files = CompetitionFiles.for_control_file(path)
        wait_until(files.journal.exists, "a first game recorded")
        os.write(master, b"\x18")
        _, err = process.communicate(timeout=GUARD_S)
    finally:
        if process.poll() is None:
            process.kill()  # never leave a run (and its engines) behind
            process.wait()
        os.close(master)
    assert process.returncode == 0, err.decode()
    assert "stop requested (Ctrl-X)" in files.log.read_text()
    recorded = [e.result.game_id for e in iter_journal(files) if isinstance(e, ResultEntry)]
    assert recorded and all(files.sgf_path(game_id).exists() for game_id in recorded)
    assert wait_until_gone(engine_pids(env_file)) == set()
