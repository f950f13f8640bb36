"""End to end in a real terminal: tmux runs ``arena run`` and ``arena watch`` side by side.

A private tmux server (its own socket) with a 120x40 window runs a demo
playoff between two random players (slowed a little so that games are seen in
progress); the window is resized, and a second window watches the run.
Ctrl-X is typed into the first: the stop is acknowledged on screen at once,
the run ends with status 0 and the watcher, which shows the same totals,
leaves by itself.  Every wait polls the screen against a deadline.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

PACED = str(Path(__file__).with_name("paced_engine.py"))
DEADLINE = 60.0  # only against hangs: a loaded machine may take long to start a run
GAMES = 40


class Tmux:
    def __init__(self, socket: str) -> None:
        self.socket = socket

    def __call__(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10
        )
        if done.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def screen(self, window: str) -> str:
        return self("capture-pane", "-p", "-t", window)

    def wait_for(
        self, window: str, check: Callable[[str], bool], what: str, timeout: float = DEADLINE
    ) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen(window)
            if check(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"gave up waiting for {what}; the screen shows:\n{text}")
            time.sleep(0.05)


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    server = Tmux(f"arena-test-{uuid.uuid4().hex[:8]}")
    try:
        yield server
    finally:
        subprocess.run(
            ["tmux", "-L", server.socket, "kill-server"], capture_output=True, timeout=10
        )


def write_demo(directory: Path) -> Path:
    players = ", ".join(
        f"{code!r}: Player({[sys.executable, PACED, '--delay', '0.02', '--seed', str(seed)]!r})"
        for seed, code in enumerate(("randa", "randb"), 1)
    )
    path = directory / "demo.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{{players}}}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        f"matchups = [Matchup('randa', 'randb', alternating=True, number_of_games={GAMES})]\n"
    )
    return path


def terminal_environment() -> dict[str, str]:
    """Ours, as a terminal's: its size comes from the window, not from COLUMNS/LINES
    (pytest-xdist sets them to 80x24 in its workers, and rich would obey)."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    return {**env, "TERM": "xterm-256color"}


def shell(command: str, status_file: Path) -> str:
    """Run ``command``, keep its status, and keep the window open to show the final screen."""
    return f"{command}; echo $? > {shlex.quote(str(status_file))}; exec sleep 120"


def games_done(text: str) -> int | None:
    match = re.search(rf"(\d+)/{GAMES} games", text)
    return int(match.group(1)) if match else None


def wait_for_file(path: Path, timeout: float = DEADLINE) -> str:
    deadline = time.monotonic() + timeout
    while not path.exists() or not path.read_text().strip():
        if time.monotonic() > deadline:
            raise AssertionError(f"{path.name} was never written")
        time.sleep(0.05)
    return path.read_text().strip()


def test_dashboard_ctrl_x_and_watch_in_a_terminal(tmux: Tmux, tmp_path: Path) -> None:
    control = write_demo(tmp_path)
    arena = f"{shlex.quote(sys.executable)} -m arena_cli"
    run_status, watch_status = tmp_path / "run.status", tmp_path / "watch.status"
    env = terminal_environment()
    subprocess.run(
        [
            "tmux", "-L", tmux.socket, "new-session", "-d", "-s", "demo", "-x", "120", "-y", "40",
            "-c", str(tmp_path),
            shell(f"{arena} run {shlex.quote(str(control))} -j 2", run_status),
        ],
        check=True, env=env, timeout=10,
    )  # fmt: skip
    # The demo shows its players and the games in progress.
    screen = tmux.wait_for(
        "demo:0",
        lambda s: "In progress: 2 game(s)" in s and bool(re.search(r"0_\d+ +rand[ab] +rand", s)),
        "two games in progress",
    )
    assert "playoff demo · 9x9 komi 7.5 · running" in screen
    assert "randa" in screen and "randb" in screen
    assert "Ctrl-X stop after the games in progress · Ctrl-C stop now" in screen

    # A smaller terminal gets a frame made for it (a shorter progress bar, the ETA kept),
    # not the old frame cut off.
    tmux("resize-window", "-t", "demo:0", "-x", "60", "-y", "20")

    def refitted(text: str) -> bool:
        return any("━" in row and "ETA" in row and len(row) <= 60 for row in text.split("\n"))

    screen = tmux.wait_for("demo:0", refitted, "a frame fitted to 60 columns")
    lines = screen.rstrip("\n").split("\n")
    assert len(lines) <= 20 and lines[0].startswith("playoff demo · 9x9 komi 7.5")
    assert "Ctrl-X stop after the games in progress · Ctrl-C stop now" in screen
    tmux("resize-window", "-t", "demo:0", "-x", "120", "-y", "40")

    # A second terminal watches the same competition.
    tmux(
        "new-window",
        "-t",
        "demo:1",
        shell(f"{arena} watch {shlex.quote(str(control))}", watch_status),
    )
    tmux.wait_for("demo:1", lambda s: "· watching" in s, "the watcher's dashboard")
    tmux.wait_for("demo:0", lambda s: (games_done(s) or 0) >= 2, "two finished games")
    tmux.wait_for(
        "demo:1", lambda s: (games_done(s) or 0) >= 2, "the watcher to see the finished games"
    )

    # Ctrl-X: acknowledged at once, then the games in progress finish and the run ends.
    tmux("send-keys", "-t", "demo:0", "C-x")
    # (The banner is only up while the games in progress finish: seeing it is "at once".)
    screen = tmux.wait_for("demo:0", lambda s: "STOPPING" in s, "the stop acknowledgement")
    assert "■ STOPPING — stop requested (Ctrl-X): finishing" in screen
    assert wait_for_file(run_status) == "0"
    assert wait_for_file(watch_status) == "0"  # the watcher left when the run ended

    # Both screens end showing the games the run counted (X.hist).  Both processes
    # have exited, but on a busy machine tmux may not have read their last output
    # yet: wait for it rather than read the screens once.
    counted = len((tmp_path / "demo.hist").read_text().splitlines())
    assert counted >= 2
    for window, who in (("demo:0", "the run"), ("demo:1", "the watcher")):
        screen = tmux.wait_for(
            window,
            lambda s: games_done(s) == counted,
            f"{who}'s last frame to show the {counted} games counted",
        )
        assert "stopped: stop requested (Ctrl-X)" in screen


def test_ctrl_c_stops_at_once(tmux: Tmux, tmp_path: Path) -> None:
    control = write_demo(tmp_path)
    status = tmp_path / "run.status"
    command = f"{shlex.quote(sys.executable)} -m arena_cli run {shlex.quote(str(control))} -j 2"
    env = terminal_environment()
    subprocess.run(
        [
            "tmux", "-L", tmux.socket, "new-session", "-d", "-s", "demo", "-x", "100", "-y", "30",
            "-c", str(tmp_path), shell(command, status),
        ],
        check=True, env=env, timeout=10,
    )  # fmt: skip
    tmux.wait_for("demo:0", lambda s: "In progress: 2 game(s)" in s, "two games in progress")
    tmux("send-keys", "-t", "demo:0", "C-c")
    assert wait_for_file(status) == "130"
    screen = tmux.screen("demo:0")
    assert re.search(r"stopped: interrupted; games 0_\d+, 0_\d+ will be replayed", screen)
