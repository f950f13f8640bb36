"""``arena watch``: the dashboard rebuilt from another run's files."""

from __future__ import annotations

import io
import json
import re
import sys
import time
from pathlib import Path

import pytest
import trio
from rich.console import Console

import arena.output.files
from arena.api import run_competition
from arena.competitions.loader import load_control_file
from arena.control.config import CompetitionConfig
from arena.events import (
    EngineStderr,
    Event,
    GameFinished,
    GameStarted,
    RunState,
    RunStateChanged,
    event_to_json,
)
from arena.results import EndReason, GameResult
from arena.run.ringmaster import RunOptions
from arena.store.files import CompetitionFiles, is_running
from arena.store.journal import ResultEntry, iter_journal
from gtp.vertex import Colour
from tui.tracker import RunTracker
from tui.watch import CompetitionFollower, watch_competition

from .builders import FakeClock

PACED = str(Path(__file__).with_name("paced_engine.py"))


def paced_config(directory: Path, games: int, delay: float = 0.01) -> CompetitionConfig:
    players = ", ".join(
        f"{code!r}: Player({[sys.executable, PACED, '--delay', str(delay), '--seed', str(seed)]!r})"
        for seed, code in enumerate(("alpha", "beta"), 1)
    )
    path = directory / "watched.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{{players}}}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        f"matchups = [Matchup('alpha', 'beta', alternating=True, number_of_games={games})]\n"
    )
    return load_control_file(path)


def journal_ids(config: CompetitionConfig) -> list[str]:
    files = CompetitionFiles.for_control_file(config.control_path)
    return [e.result.game_id for e in iter_journal(files) if isinstance(e, ResultEntry)]


QUIET = RunOptions(parallel=2, keyboard=False, handle_signals=False)


async def test_a_finished_competition(tmp_path: Path) -> None:
    config = paced_config(tmp_path, games=3, delay=0.0)
    await run_competition(config, QUIET)
    tracker = RunTracker("watched", clock=FakeClock(), watching=True)
    CompetitionFollower(config, tracker).poll()
    view = tracker.view()
    assert (view.games_done, view.games_total) == (3, 3)
    assert (view.state, view.message) == (RunState.FINISHED, "competition complete")
    assert view.in_progress == ()
    assert sorted(r.game_id for r in view.recent) == sorted(journal_ids(config))
    assert view.rate is not None and view.rate > 0  # the run's own rate, from its events


def write_events(path: Path, events: list[Event]) -> None:
    """X.events as a run writes it, the first event 30 seconds ago, then one a second."""
    lines = []
    for n, event in enumerate(events):
        data = event_to_json(event)
        assert data is not None
        data["time"] = time.time() - 30 + n
        lines.append(json.dumps(data) + "\n")
    path.write_text("".join(lines))


def started(game_id: str, slot: int = 0) -> GameStarted:
    return GameStarted(game_id, "alpha", "beta", slot)


RESIGN = GameResult("0_0", "alpha", "beta", Colour.BLACK, EndReason.RESIGN)
RUNNING = RunStateChanged(RunState.RUNNING, parallel=2)

EVENT_CASES = {
    "games in progress": (
        [
            RUNNING,
            started("0_0"),
            started("0_1", 1),
            started("0_2"),
            GameFinished("0_0", "alpha", "beta", RESIGN),
            GameFinished("0_1", "beta", "alpha", None, "alpha (white): engine died"),
        ],
        ["0_2"],
        RunState.RUNNING,
        [],
    ),
    "a stop request": (
        [RUNNING, started("0_3"), RunStateChanged(RunState.STOPPING, "stop requested (Ctrl-X)")],
        ["0_3"],
        RunState.STOPPING,
        [],
    ),
    "engine warnings only": (
        [
            RUNNING,
            started("0_4"),
            EngineStderr("0_4", "alpha", "thinking..."),
            EngineStderr("0_4", "beta", "WARNING: out of memory", warning=True),
        ],
        ["0_4"],
        RunState.RUNNING,
        ["beta (0_4): WARNING: out of memory"],
    ),
    "a new run forgets the games of an interrupted one": (
        [RUNNING, started("0_5"), RUNNING, started("0_6")],
        ["0_6"],
        RunState.RUNNING,
        [],
    ),
    "a run that ended": (
        [
            RUNNING,
            started("0_7"),
            RunStateChanged(RunState.STOPPED, "interrupted; games 0_7 will be replayed"),
        ],
        [],
        RunState.STOPPED,
        [],
    ),
}


@pytest.mark.parametrize(
    ("events", "running", "state", "warnings"), EVENT_CASES.values(), ids=EVENT_CASES.keys()
)
def test_the_events_tell_what_is_going_on(
    tmp_path: Path, events: list[Event], running: list[str], state: RunState, warnings: list[str]
) -> None:
    config = paced_config(tmp_path, games=10)
    write_events(CompetitionFiles.for_control_file(config.control_path).events, events)
    tracker = RunTracker("watched", watching=True)
    CompetitionFollower(config, tracker).poll()
    view = tracker.view()
    assert [g.game_id for g in view.in_progress] == running
    assert all(g.moves is None for g in view.in_progress)
    assert all(20 <= g.elapsed <= 40 for g in view.in_progress)  # from the events' times
    assert view.state is state
    assert list(view.warnings) == warnings


class RecordingTracker(RunTracker):
    """A tracker that also keeps what the follower told it, in order."""

    def __init__(self) -> None:
        super().__init__("watched", watching=True)
        self.seen: list[tuple[str, str]] = []

    def handle(self, event: Event, at: float | None = None) -> bool:
        if isinstance(event, GameStarted):
            self.seen.append(("started", event.game_id))
        elif isinstance(event, GameFinished):
            self.seen.append(("ended", event.game_id))
        elif isinstance(event, RunStateChanged):
            self.seen.append(("state", event.state.value))
        return super().handle(event, at)


async def test_the_watcher_follows_a_real_run_whatever_its_log_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The watcher reads X.events, not X.log: change every log line's wording
    # and a real run, read back, still gives every game's start and end and
    # the run's start and end.
    monkeypatch.setattr(arena.output.files, "log_line", lambda event: "reworded")
    config = paced_config(tmp_path, games=4, delay=0.002)
    await run_competition(config, QUIET)
    log = CompetitionFiles.for_control_file(config.control_path).log.read_text()
    assert "starting game" not in log and "reworded" in log
    tracker = RecordingTracker()
    CompetitionFollower(config, tracker).poll()
    games = journal_ids(config)
    assert len(games) == 4
    seen = [item for item in tracker.seen if item != ("state", RunState.CHECKING.value)]
    assert seen[0] == ("state", RunState.RUNNING.value)
    assert seen[-1] == ("state", RunState.FINISHED.value)
    assert sorted(g for kind, g in seen if kind == "started") == sorted(games)
    assert sorted(g for kind, g in seen if kind == "ended") == sorted(games)
    for game in games:  # each game starts before it ends
        assert seen.index(("started", game)) < seen.index(("ended", game))


async def wait_until_running(config: CompetitionConfig) -> None:
    files = CompetitionFiles.for_control_file(config.control_path)
    with trio.fail_after(20):
        while not is_running(files):
            await trio.sleep(0.02)


async def test_watching_a_quiet_run_until_it_ends(tmp_path: Path) -> None:
    config = paced_config(tmp_path, games=4, delay=0.005)
    plain_out = io.StringIO()
    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=100, height=30, color_system=None)
    statuses: list[int] = []

    async def watch(**kwargs: object) -> None:
        await wait_until_running(config)
        statuses.append(await watch_competition(config, poll=0.05, keys=False, **kwargs))  # type: ignore[arg-type]

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_competition, config, QUIET)
        nursery.start_soon(lambda: watch(console=Console(file=io.StringIO()), out=plain_out))
        nursery.start_soon(lambda: watch(console=terminal))
    assert statuses == [0, 0]  # both left by themselves when the run ended
    games = journal_ids(config)
    assert len(games) == 4
    lines = plain_out.getvalue().splitlines()
    assert re.fullmatch(r"watching watched: \d games so far", lines[0])
    assert lines[-1] == "watched: finished competition complete"
    reported = [re.match(r"game (\S+): ", line) for line in lines[1:-1]]
    assert all(reported) and reported
    assert {m.group(1) for m in reported if m} <= set(games)
    after = screen.getvalue().rsplit("\x1b[?1049l", 1)  # the live screen, then the final frame
    assert len(after) == 2
    final = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", after[1])
    assert "4/4 games" in final and "finished: competition complete" in final
    assert "watching" in final


async def test_watching_a_competition_that_is_not_running(tmp_path: Path) -> None:
    config = paced_config(tmp_path, games=2, delay=0.0)
    await run_competition(config, QUIET)
    out = io.StringIO()
    status = await watch_competition(config, console=Console(file=io.StringIO()), out=out)
    assert status == 0
    # Without a terminal: the final picture, as the README promises, in plain text.
    lines = out.getvalue().splitlines()
    assert lines[0] == "playoff watched · 9x9 komi 7.5 · finished · watching"
    assert re.search(r"2/2 games · \d+\.\d\d games/s$", lines[1])
    assert "finished: competition complete" in lines
    assert any(line.startswith("alpha v beta: 2/2 games") for line in lines)
    assert "Recent results" in lines
    assert "\x1b" not in out.getvalue()


async def test_watching_a_finished_competition_on_a_terminal(tmp_path: Path) -> None:
    config = paced_config(tmp_path, games=2, delay=0.0)
    await run_competition(config, QUIET)
    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=100, height=30, color_system=None)
    assert await watch_competition(config, console=terminal, keys=False) == 0
    shown = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", screen.getvalue())
    assert re.search(r"2/2 games · \d+\.\d\d games/s", shown)
    assert "--.--" not in shown
