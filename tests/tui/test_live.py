"""The live driver: frame rate, the stop acknowledgement, and whole runs with each output."""

from __future__ import annotations

import io
import itertools
import re
from pathlib import Path

import pytest
import trio
import trio.testing
from rich.console import Console

import tui.live
from arena.competitions.loader import load_control_file
from arena.control.config import CompetitionConfig
from arena.events import MovePlayed, RunState, RunStateChanged, open_event_channel
from arena.results import EndReason, GameResult
from arena.run.ringmaster import RunOptions
from arena_cli.run import run_with_display
from gtp.vertex import PASS, Colour
from tui.dashboard import render_dashboard
from tui.live import BATCH_SECONDS, FRAME_SECONDS, follow_events
from tui.tracker import RECENT_RESULTS, DashboardView, RunTracker

from ..arena.fakes import fake_command
from .builders import game_finished

OPTIONS = RunOptions(parallel=2, keyboard=False, handle_signals=False)


async def test_frames_are_rate_limited_but_a_stop_shows_at_once(
    autojump_clock: trio.testing.MockClock,
) -> None:
    tracker = RunTracker("x", clock=trio.current_time)
    frames: list[tuple[float, RunState]] = []

    def draw() -> None:
        frames.append((trio.current_time(), tracker.state))

    send, receive = open_event_channel(100_000)

    async def arena() -> None:
        async with send:
            send.send_nowait(RunStateChanged(RunState.RUNNING))
            for tick in range(200):  # 2 seconds of a move every 10 ms, 50 at a time
                for n in range(50):
                    send.send_nowait(MovePlayed("0_0", Colour.BLACK, PASS, tick * 50 + n))
                await trio.sleep(0.01)
            await trio.sleep(0.003)
            send.send_nowait(RunStateChanged(RunState.STOPPING, "stop requested (Ctrl-X)"))
            await trio.sleep(1.0)

    start = trio.current_time()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(arena)
        await follow_events(receive, tracker, draw)
    stopping_sent = start + 2.003
    times = [t - start for t, _ in frames]
    running = [t for t, state in frames if state is RunState.RUNNING and t < stopping_sent]
    gaps = [b - a for a, b in itertools.pairwise(running)]
    assert gaps and min(gaps) >= FRAME_SECONDS - 1e-9  # at most 4 frames a second
    first_stopping = next(t for t, state in frames if state is RunState.STOPPING)
    # on screen at once (within a batch), not at the next frame
    assert stopping_sent <= first_stopping <= stopping_sent + BATCH_SECONDS
    stopping = [t for t, state in frames if state is RunState.STOPPING][:-1]
    assert min(b - a for a, b in itertools.pairwise(stopping)) >= FRAME_SECONDS - 1e-9
    # 3 s at 4 frames a second, plus the two changes of state and the last frame
    assert len(frames) <= 3.003 / FRAME_SECONDS + 1 + 3
    assert times[-1] == pytest.approx(3.003, abs=BATCH_SECONDS)  # a last frame at the end


def demo_config(directory: Path, black: tuple[str, ...] = (), games: int = 2) -> CompetitionConfig:
    b = fake_command("--moves=D4,E4", *black)
    w = fake_command("--moves=D6,E6")
    path = directory / "demo.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{'alpha': Player({list(b)!r}), 'beta': Player({list(w)!r})}}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        f"matchups = [Matchup('alpha', 'beta', alternating=True, number_of_games={games})]\n"
    )
    return load_control_file(path)


def terminal(width: int = 100, height: int = 30) -> tuple[Console, io.StringIO]:
    screen = io.StringIO()
    console = Console(
        file=screen, force_terminal=True, width=width, height=height, color_system=None
    )
    return console, screen


def plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", text)


async def test_a_run_on_the_dashboard(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    console, screen = terminal()
    summary = await run_with_display(demo_config(tmp_path, games=4), OPTIONS, console=console)
    assert summary.state is RunState.FINISHED and summary.games_recorded == 4
    shown = plain(screen.getvalue())
    assert "\x1b[?1049h" in screen.getvalue()  # the alternate screen, left at the end
    assert "In progress:" in shown and "alpha" in shown and "beta" in shown
    final = plain(screen.getvalue().rsplit("\x1b[?1049l", 1)[-1])  # after the live screen
    assert "playoff demo · 9x9 komi 7.5 · finished" in final
    assert "4/4 games" in final and "finished: competition complete" in final
    assert "Ctrl-X" not in final
    assert capsys.readouterr().out == ""  # the ringmaster's plain lines are not printed


async def test_void_games_under_the_dashboard_are_shown_not_written_over_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    console, screen = terminal()
    config = demo_config(tmp_path, ("--crash-at=1",))
    summary = await run_with_display(config, OPTIONS, console=console)
    assert summary.state is RunState.HALTED
    final = plain(screen.getvalue().rsplit("\x1b[?1049l", 1)[-1])
    assert "halted: halting competition: too many void games" in final
    assert re.search(r"void [12] ·", final)  # both slots' first games may be void
    assert "0_0" in final and "void:" in final  # in the recent results
    assert capsys.readouterr().err == ""  # nothing written over the screen


@pytest.mark.parametrize(
    ("quiet", "expected"),
    [
        (False, ["running demo with 2 slot(s)", "game 0_0: beta beat alpha W+7.5", "game 0_1:"]),
        (True, []),
    ],
)
async def test_without_a_terminal_plain_lines_or_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], quiet: bool, expected: list[str]
) -> None:
    console = Console(file=io.StringIO(), force_terminal=False)
    options = RunOptions(parallel=2, keyboard=False, handle_signals=False)
    await run_with_display(demo_config(tmp_path), options, console=console, quiet=quiet)
    out = capsys.readouterr().out
    for text in expected:
        assert text in out
    if quiet:
        assert out == ""
    assert console.file.getvalue() == ""  # type: ignore[attr-defined]


async def test_a_finished_game_moves_the_progress_at_the_next_frame(
    autojump_clock: trio.testing.MockClock,
) -> None:
    tracker = RunTracker("x", clock=trio.current_time)
    seen: list[int] = []
    send, receive = open_event_channel()

    async def arena() -> None:
        async with send:
            await trio.sleep(1.0)
            result = GameResult("0_0", "a", "b", Colour.BLACK, EndReason.RESIGN)
            send.send_nowait(game_finished("0_0", result))
            await trio.sleep(0.1)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(arena)
        await follow_events(receive, tracker, lambda: seen.append(tracker.view().games_done))
    assert seen[0] == 0 and seen[-1] == 1


async def test_a_resumed_run_shows_the_last_results_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = demo_config(tmp_path, games=12)
    first = RunOptions(parallel=1, keyboard=False, handle_signals=False, max_games=10)
    await run_with_display(config, first, console=Console(file=io.StringIO()), quiet=True)
    frames: list[DashboardView] = []

    def recording(view: DashboardView) -> object:
        frames.append(view)
        return render_dashboard(view)

    monkeypatch.setattr(tui.live, "render_dashboard", recording)
    console, screen = terminal()
    await run_with_display(config, OPTIONS, console=console)
    # The first frame, drawn before the resumed run plays anything: the newest
    # results of the first run, newest first, as many as the section holds.
    recent = [result.game_id for result in frames[0].recent]
    assert recent == [f"0_{n:02d}" for n in range(9, 9 - RECENT_RESULTS, -1)]
    assert all("beat" in result.text for result in frames[0].recent)
    final = plain(screen.getvalue().rsplit("\x1b[?1049l", 1)[-1])
    assert "0_11" in final and "0_10" in final and "0_09" in final
