"""What the screen says is so: the dashboard and ``arena watch`` during real runs.

Each test runs a real ringmaster (slots, record writer, files on disk) with
games that end when the test says (:class:`tests.tui.gated.GatedExecutor`),
and reads the screen a user would read: games in progress, samples, the
state, move numbers.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
import trio
import trio.testing
from rich.console import Console

from arena.api import run_competition
from arena.competitions.tuner_snapshots import CeTunerSnapshot
from arena.control.config import CompetitionConfig
from arena.events import (
    Event,
    EventBus,
    GameFinished,
    GameStarted,
    RunState,
    RunStateChanged,
    SnapshotTaken,
)
from arena.run.ringmaster import RunOptions
from arena.store.files import CompetitionFiles
from tui.tracker import RunTracker
from tui.tuner_tables import SAMPLES_NOT_RECORDED
from tui.watch import CompetitionFollower, watch_competition

from .builders import ce_tuner, playoff, screen
from .gated import GatedExecutor

WIDTH, HEIGHT = 100, 40


def options(parallel: int = 2, max_games: int | None = None) -> RunOptions:
    return RunOptions(parallel=parallel, max_games=max_games, keyboard=False, handle_signals=False)


def games_on_screen(lines: list[str]) -> dict[str, list[str]]:
    """The games-in-progress table as shown: game id -> its cells (id, black, white, move...)."""
    rows: dict[str, list[str]] = {}
    title = next((i for i, line in enumerate(lines) if line.startswith("In progress:")), None)
    if title is None or title + 1 >= len(lines) or not lines[title + 1].startswith("game "):
        return rows  # no game: no section, or its title alone
    for line in lines[title + 2 :]:
        if not line.strip() or line.startswith(("Recent results", "forfeits", "…", "!")):
            break
        cells = line.split()
        rows[cells[0]] = cells
    return rows


def running_figure(lines: list[str]) -> int:
    """The progress line's "N running" (0 when it says nothing)."""
    match = re.search(r"(\d+) running", lines[1])
    return int(match.group(1)) if match else 0


def watcher(config: CompetitionConfig) -> tuple[RunTracker, CompetitionFollower]:
    tracker = RunTracker(config.code, watching=True)
    return tracker, CompetitionFollower(config, tracker)


# -- a finished game is never shown as running --------------------------------------


async def test_a_finished_game_leaves_in_progress_before_its_slot_lists_the_next(
    tmp_path: Path,
) -> None:
    config = playoff(tmp_path, games=10).config
    executor = GatedExecutor()
    executor.release_all()  # games end at once, while earlier games are being recorded
    tracker = RunTracker(config.code)
    order: list[Event] = []
    looks = 0

    def look(event: Event) -> None:
        nonlocal looks
        order.append(event)
        tracker.handle(event)
        lines = screen(tracker.view(), WIDTH, HEIGHT)
        shown = games_on_screen(lines)
        latest_in_slot = {executor.slot_of[game]: game for game in executor.started}
        for game in shown:
            # A game that is over and whose slot has started another is not running.
            assert game not in executor.over or latest_in_slot[executor.slot_of[game]] == game
        assert len(shown) <= 2 and running_figure(lines) <= 2
        assert len({cells[-1] for cells in shown.values()}) == len(shown)  # one game a slot
        looks += 1

    bus = EventBus()
    bus.subscribe(look, moves=True)
    await run_competition(config, options(), events=bus, executor=executor)
    assert looks > 20
    # The order of practice: a slot starts its next game before the previous
    # one is announced (that waits for its record to be on disk).
    started = {e.game_id: i for i, e in enumerate(order) if isinstance(e, GameStarted)}
    announced = {e.game_id: i for i, e in enumerate(order) if isinstance(e, GameFinished)}
    assert any(
        started[later] < announced[earlier]
        for earlier, later in zip(executor.started, executor.started[2:], strict=False)
        if executor.slot_of[earlier] == executor.slot_of[later]
    )
    assert games_on_screen(screen(tracker.view(), WIDTH, HEIGHT)) == {}
    assert len(tracker.view().recent) == 8

    # The same run from X.events, as `arena watch` reads it, event by event.
    class Checking(RunTracker):
        def handle(self, event: Event, at: float | None = None) -> bool:
            urgent = super().handle(event, at)
            lines = screen(self.view(), WIDTH, HEIGHT)
            assert len(games_on_screen(lines)) <= 2 and running_figure(lines) <= 2
            return urgent

    checking = Checking(config.code, watching=True)
    CompetitionFollower(config, checking).poll()
    assert checking.view().games_done == 10


# -- watch shows only what the files record -------------------------------------------

SAMPLE_ROW = re.compile(r"(g\d+#\d+)\s+(.+?)\s+[0-9.]+/\d+\b")


async def test_watching_a_ce_tuner_before_its_first_result_shows_no_sample(
    tmp_path: Path,
) -> None:
    config = ce_tuner(tmp_path).config
    executor = GatedExecutor()
    snapshots: list[CeTunerSnapshot] = []
    announced = trio.Event()

    def subscriber(event: Event) -> None:
        if isinstance(event, SnapshotTaken):
            assert isinstance(event.snapshot, CeTunerSnapshot)
            snapshots.append(event.snapshot)
        elif isinstance(event, GameFinished):
            announced.set()

    bus = EventBus()
    bus.subscribe(subscriber)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            lambda: run_competition(config, options(), events=bus, executor=executor)
        )
        await executor.wait_until(lambda: len(executor.waiting) == 2)
        files = CompetitionFiles.for_control_file(config.control_path)
        assert files.events.exists() and not files.status.exists()  # nothing recorded yet

        tracker, follower = watcher(config)
        follower.poll()
        lines = screen(tracker.view(), WIDTH, HEIGHT)
        assert SAMPLES_NOT_RECORDED in lines
        assert not [line for line in lines if SAMPLE_ROW.match(line)]
        assert set(games_on_screen(lines)) == set(executor.started)  # X.events has those
        assert "generation g0 of 3" in lines[2]

        # Once a result is recorded, the state on disk has the run's own draws.
        executor.release(executor.started[0])
        await announced.wait()
        follower.poll()
        lines = screen(tracker.view(), WIDTH, HEIGHT)
        shown = {m.group(1): m.group(2) for line in lines if (m := SAMPLE_ROW.match(line))}
        played = {c.code: c.description for c in snapshots[0].candidates}
        assert shown == played
        assert SAMPLES_NOT_RECORDED not in lines
        executor.release_all()


# -- stopped or finished --------------------------------------------------------------


async def plain_watch(config: CompetitionConfig) -> list[str]:
    out = io.StringIO()
    status = await watch_competition(config, console=Console(file=io.StringIO()), out=out)
    assert status == 0
    return out.getvalue().splitlines()


async def test_watching_a_run_stopped_before_the_end_says_stopped(tmp_path: Path) -> None:
    config = playoff(tmp_path, games=6).config
    executor = GatedExecutor()
    executor.release_all()
    summary = await run_competition(config, options(max_games=2), executor=executor)
    assert summary.games_recorded == 2
    lines = await plain_watch(config)
    assert lines[0] == "playoff league · 9x9 komi 7.5 · stopped · watching"
    assert "stopped: the run ended; the competition is not complete" in lines
    assert not [line for line in lines if "finished" in line]

    # The next run completes it: now it is finished.
    await run_competition(config, options(), executor=executor)
    lines = await plain_watch(config)
    assert lines[0] == "playoff league · 9x9 komi 7.5 · finished · watching"
    assert "finished: competition complete" in lines


async def test_watching_a_killed_run_says_stopped_with_no_game_in_progress(
    tmp_path: Path,
) -> None:
    config = playoff(tmp_path, games=6).config
    executor = GatedExecutor()
    executor.release_all()
    await run_competition(config, options(max_games=2), executor=executor)
    # A run killed in the middle of two games: X.events ends with their starts.
    events = CompetitionFiles.for_control_file(config.control_path).events
    with events.open("a") as file:
        file.write('{"event":"run","state":"running","parallel":2,"time":1}\n')
        file.write('{"event":"game_started","game_id":"0_2","black":"player00",')
        file.write('"white":"player01","slot":0,"time":1}\n')
        file.write('{"event":"game_started","game_id":"0_3","black":"player01",')
        file.write('"white":"player00","slot":1,"time":1}\n')
    lines = await plain_watch(config)
    assert lines[0] == "playoff league · 9x9 komi 7.5 · stopped · watching"
    assert "stopped: the run ended without saying so (killed?)" in lines
    assert "running" not in "\n".join(lines) and "In progress" not in "\n".join(lines)


# -- move numbers ---------------------------------------------------------------------


async def test_watch_shows_the_move_number_of_each_running_game(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    config = playoff(tmp_path, games=4).config
    # In-memory games, a move every 0.3 s: X.events gets each game's move about
    # once a second (moves 4 and 8 by 2.4 s, none before 1 s).
    executor = GatedExecutor(moves=8, move_seconds=0.3)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: run_competition(config, options(), executor=executor))
        tracker, follower = watcher(config)
        await executor.wait_until(lambda: len(executor.started) == 2)
        follower.poll()
        rows = games_on_screen(screen(tracker.view(), WIDTH, HEIGHT))
        assert {game: cells[3] for game, cells in rows.items()} == {"0_0": "-", "0_1": "-"}

        await executor.wait_until(lambda: len(executor.waiting) == 2)
        follower.poll()
        rows = games_on_screen(screen(tracker.view(), WIDTH, HEIGHT))
        assert {game: cells[3] for game, cells in rows.items()} == {"0_0": "8", "0_1": "8"}
        executor.release_all()


@pytest.mark.parametrize("parallel", [1, 3])
async def test_a_live_dashboard_shows_moves_and_one_game_a_slot(
    tmp_path: Path, autojump_clock: trio.testing.MockClock, parallel: int
) -> None:
    config = playoff(tmp_path, games=6).config
    executor = GatedExecutor(moves=5, move_seconds=0.2)
    executor.release_all()
    tracker = RunTracker(config.code)
    most_moves: dict[str, int] = {}

    def look(event: Event) -> None:
        tracker.handle(event)
        rows = games_on_screen(screen(tracker.view(), WIDTH, HEIGHT))
        assert len(rows) <= parallel
        for game, cells in rows.items():
            most_moves[game] = max(most_moves.get(game, 0), int(cells[3]))
        if isinstance(event, RunStateChanged) and event.state is RunState.FINISHED:
            assert rows == {}

    bus = EventBus()
    bus.subscribe(look, moves=True)
    await run_competition(config, options(parallel), events=bus, executor=executor)
    assert most_moves == {f"0_{n}": 5 for n in range(6)}
