"""A clock the machine stalled: the game is void and replayed, not lost on time by the engine."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import trio

from arena.api import run_competition
from arena.clock import Charge, ClockReading
from arena.competitions.base import PlayerCheck
from arena.competitions.loader import load_control_file
from arena.control.settings import GameSettings, PlayerConfig
from arena.control.timecontrol import TimeControl
from arena.events import Event, EventBus, RunState, RunWarning
from arena.results import EndReason, GameJob, GameRecord
from arena.run.engines import EngineProvider
from arena.run.executor import LocalExecutor, Slot
from arena.run.match import play_game
from arena.run.ringmaster import RunOptions, check_players
from arena.run.sink import QUIET, GameSink
from arena.run.stalls import (
    STALL_VOID_LIMIT,
    Doubt,
    RunQueueProbe,
    answered_doubt,
    beyond_doubt,
    oversubscription_warning,
    stall_stop_message,
    usable_cores,
)
from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, VoidEntry, iter_journal
from gtp.errors import EngineStartError
from gtp.vertex import Colour

from .fakes import clocked_player, fake_command
from .sinks import Recorded

B, W = Colour.BLACK, Colour.WHITE
MARGIN = 0.05
PER_MOVE = TimeControl("per_move", period_time=0.2)


# -- the doubt, as arithmetic --------------------------------------------------------


def charge(elapsed: float, allowed: float = 0.2, margin: float = MARGIN) -> Charge:
    return Charge(elapsed, allowed, margin, False, ClockReading(0.0))


@pytest.mark.parametrize(
    ("hearing", "arena_waited", "engine_waited", "expected"),
    [
        # Heard at once, nothing waited: no doubt.
        ((0.0, 0.0, 0.0), 0.0, 0.0, Doubt(0.0, 0.0)),
        # The loop ran other tasks for 80 ms before the wait that brought the answer.
        ((0.08, 0.001, 0.0), 0.0, 0.0, Doubt(0.08, 0.0)),
        # A long wait, but the arena never waited for a CPU: the answer woke it at once.
        ((0.0, 0.3, 0.0), 0.0, 0.01, Doubt(0.0, 0.01)),
        # It waited 60 ms for a CPU, within a 20 ms wait: at most the wait.
        ((0.0, 0.02, 0.0), 0.06, 0.0, Doubt(0.02, 0.0)),
        # A wait that overslept its own timeout by 40 ms, /proc unreadable.
        ((0.001, 0.14, 0.04), None, None, Doubt(0.041, 0.0)),
    ],
)
def test_the_doubt_of_an_answered_move(
    hearing: tuple[float, float, float],
    arena_waited: float | None,
    engine_waited: float | None,
    expected: Doubt,
) -> None:
    doubt = answered_doubt(hearing, arena_waited, engine_waited)
    assert doubt.arena == pytest.approx(expected.arena)
    assert doubt.engine == pytest.approx(expected.engine)


def test_a_command_written_late_is_the_arenas_doubt_too() -> None:
    """The clock started, then the arena lost the CPU for 90 ms before writing genmove."""
    doubt = answered_doubt((0.002, 0.2, 0.0), 0.09, 0.0, write_lag=0.09)
    assert doubt.arena == pytest.approx(0.092 + 0.09)
    assert not beyond_doubt(charge(0.33), doubt)
    assert answered_doubt((0.0, 0.0, 0.0), None, None, write_lag=-1e-7).total == 0.0


@pytest.mark.parametrize(
    ("elapsed", "doubt", "lost"),
    [
        (0.30, Doubt(0.0, 0.0), True),  # 50 ms over the margin, nothing in doubt
        (0.30, Doubt(0.03, 0.01), True),  # the machine explains 40 of the 50 ms
        (0.30, Doubt(0.03, 0.03), False),  # it explains them all
        (0.80, Doubt(0.6, 0.0), False),  # the arena was deaf for 600 ms
        (0.25, Doubt(0.0, 0.0), False),  # exactly the allowance and the margin
    ],
)
def test_a_loss_on_time_only_beyond_the_doubt(elapsed: float, doubt: Doubt, lost: bool) -> None:
    assert beyond_doubt(charge(elapsed), doubt) is lost


def test_a_run_stops_only_when_stall_voids_keep_coming() -> None:
    assert stall_stop_message(STALL_VOID_LIMIT - 1, STALL_VOID_LIMIT - 1, 0.4, 16) is None
    assert stall_stop_message(STALL_VOID_LIMIT, 100, 0.4, 16) is None  # 8 of 100: go on
    message = stall_stop_message(STALL_VOID_LIMIT, 20, 0.412, 16)
    assert message is not None
    assert f"{STALL_VOID_LIMIT} of 20 games were voided" in message
    assert "longest 412 ms" in message and "lower --parallel (now 16)" in message


def test_oversubscription_is_two_engines_a_game_against_the_cores() -> None:
    assert oversubscription_warning(1, 2) is None
    assert oversubscription_warning(4, 8) is None
    text = oversubscription_warning(16, 2)
    assert text is not None
    assert "16 games at once run up to 32 engines on 2 usable cores" in text
    assert "lower --parallel to 1" in text


def test_the_run_queue_wait_of_a_thread_and_of_a_process() -> None:
    if not os.path.exists("/proc/thread-self/schedstat"):
        pytest.skip("no /proc/PID/schedstat on this kernel")
    mine = RunQueueProbe.for_this_thread()
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    theirs = RunQueueProbe.for_process(child.pid)
    try:
        for probe in (mine, theirs):
            first = probe.waited()
            assert first is not None and first >= 0.0
            second = probe.waited()
            assert second is not None and second >= first  # it only grows
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait()
        mine.close()
        theirs.close()
    assert RunQueueProbe("/proc/no-such-process/schedstat").waited() is None
    assert theirs.waited() is None  # closed


# -- real games ---------------------------------------------------------------------


def clocked_job(black: PlayerConfig, white: PlayerConfig) -> GameJob:
    settings = GameSettings(
        board_size=9,
        komi=7.5,
        scorer="internal",
        move_limit=16,
        time_control=PER_MOVE,
        time_margin=MARGIN,
    )
    return GameJob("0_0", "0", 0, black, white, settings)


async def play(job: GameJob, sink: GameSink = QUIET) -> GameRecord:
    async with trio.open_nursery() as nursery:
        provider = EngineProvider(nursery, stderr="discard")
        record = await play_game(job, provider, sink)
        await provider.close_all()
    return record


async def test_an_arena_deaf_while_the_engine_answered_voids_the_game_with_the_stall() -> None:
    """The run loop is blocked for 0.6 s while Black thinks 50 ms at its third move."""
    job = clocked_job(
        clocked_player("a", "--share=0.1", "--sleep=3:0.05"), clocked_player("b", "--share=0.1")
    )
    third_genmove = trio.Event()
    genmoves = 0

    def traffic(line: str) -> None:
        nonlocal genmoves
        if "genmove b" in line and line.startswith("a (black) >> "):
            genmoves += 1
            if genmoves == 3:
                third_genmove.set()

    async def block_the_loop() -> None:
        await third_genmove.wait()
        await trio.lowlevel.checkpoint()  # the game has written genmove and waits for it
        time.sleep(0.6)  # the stall itself: no task of the arena runs meanwhile

    async with trio.open_nursery() as nursery:
        nursery.start_soon(block_the_loop)
        record = await play(job, Recorded(traffic=traffic))
    assert record.result is None, record.result
    assert record.stall is not None and record.stall >= 0.4
    reason = record.void_reason
    assert reason is not None
    assert reason.startswith("clock stalled: a (black) took ")
    assert "at move 5 against 0.200s + margin 0.05s" in reason
    assert "too many games at once for the cores?" in reason
    assert len(record.moves) == 4  # the moves before it, for the void record


async def play_counted(job: GameJob, tries: int = 4) -> tuple[GameRecord, list[GameRecord]]:
    """Play until the game counts, replaying games voided for a stall (as a run does)."""
    stalls: list[GameRecord] = []
    for _ in range(tries):
        record = await play(job)
        if record.stall is None:
            return record, stalls
        stalls.append(record)
    raise AssertionError(f"{tries} stall voids in a row: {[r.void_reason for r in stalls]}")


@pytest.mark.parametrize("late", [0.05, 0.3], ids=["50ms", "300ms"])
async def test_a_true_overrun_at_move_k_still_loses_at_move_k(late: float) -> None:
    """Black sleeps the allowance, the margin and ``late`` more at its fourth move."""
    sleep = 0.2 + MARGIN + late
    job = clocked_job(
        clocked_player("a", "--share=0.1", f"--sleep=4:{sleep}"), clocked_player("b", "--share=0.1")
    )
    record, stalls = await play_counted(job)
    result = record.result
    assert result is not None
    assert (result.end, result.winner) == (EndReason.TIME, W), result.reason
    assert result.reason.startswith("a (black) lost on time at move 7: ")
    # A replay is only for a machine that explains the whole overrun.
    for void in stalls:
        assert void.stall is not None and void.stall >= late


# -- the run: stall voids replayed, warned about, and a halt when they keep coming --------


class StallingExecutor:
    """Plays games here, but the first ``stalls`` games come back voided for a stall."""

    def __init__(self, stalls: int) -> None:
        self.local = LocalExecutor(stderr="discard")
        self.stalls = stalls

    @contextlib.asynccontextmanager
    async def slot(self, slot: int) -> AsyncIterator[Slot]:
        async with self.local.slot(slot) as play_here:

            async def play(job: GameJob, sink: GameSink, crash_result: str) -> GameRecord:
                if self.stalls <= 0:
                    return await play_here(job, sink, crash_result)
                self.stalls -= 1
                sink.started(None)
                return GameRecord(
                    job=job, result=None, void_reason="clock stalled: test", stall=0.25
                )

            yield play

    async def check_players(self, checks: list[PlayerCheck]) -> list[tuple[str, EngineStartError]]:
        return await self.local.check_players(checks)

    async def emit_events(self, emit: Callable[[Event], None]) -> None:
        return None


def write_playoff(directory: Path, games: int, extra: str = "") -> Path:
    black = list(fake_command("--moves=D4,E4,F4"))
    white = list(fake_command("--moves=D6,E6,F6"))
    path = directory / "stall.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{'a': Player({black!r}), 'b': Player({white!r})}}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        + extra
        + f"matchups = [Matchup('a', 'b', alternating=True, number_of_games={games})]\n"
    )
    return path


async def run_with(
    path: Path, executor: StallingExecutor | None, parallel: int = 1
) -> tuple[RunState, str, list[Event]]:
    events: list[Event] = []
    bus = EventBus()
    bus.subscribe(events.append)
    options = RunOptions(parallel=parallel, keyboard=False, handle_signals=False)
    summary = await run_competition(load_control_file(path), options, events=bus, executor=executor)
    return summary.state, summary.message, events


def warnings(events: list[Event]) -> list[str]:
    return [event.text for event in events if isinstance(event, RunWarning)]


async def test_stall_voids_are_replayed_with_a_warning_and_do_not_halt(tmp_path: Path) -> None:
    state, _, events = await run_with(write_playoff(tmp_path, 4), StallingExecutor(stalls=3))
    assert state is RunState.FINISHED
    stalled = [text for text in warnings(events) if "clock stalled" in text]
    assert len(stalled) == 3  # each named; the matchup's void rule would have halted at two
    assert stalled[0].startswith("game 0_0 void, to be replayed: clock stalled")
    entries = list(iter_journal(CompetitionFiles.for_control_file(tmp_path / "stall.ctl")))
    assert len([e for e in entries if isinstance(e, ResultEntry)]) == 4
    voids = [e for e in entries if isinstance(e, VoidEntry)]
    assert [e.game_id for e in voids] == ["0_0"] * 3  # replayed under its own id


async def test_a_run_whose_games_keep_stalling_stops_saying_what_to_lower(
    tmp_path: Path,
) -> None:
    state, message, events = await run_with(
        write_playoff(tmp_path, 20), StallingExecutor(stalls=100)
    )
    assert state is RunState.HALTED
    assert message.startswith(f"halting competition: {STALL_VOID_LIMIT} of {STALL_VOID_LIMIT}")
    assert "lower --parallel (now 1)" in message
    assert len([t for t in warnings(events) if "clock stalled" in t]) == STALL_VOID_LIMIT


async def test_a_clocked_run_with_more_engines_than_cores_warns_once(tmp_path: Path) -> None:
    parallel = usable_cores()  # two engines a game: twice the cores
    clocked = write_playoff(tmp_path, 2, "time_control = PerMove(5)\n")
    _, _, events = await run_with(clocked, None, parallel=parallel)
    crowded = [t for t in warnings(events) if "clocked games on a busy machine" in t]
    assert crowded == [oversubscription_warning(parallel, usable_cores())]
    assert f"{2 * parallel} engines on {usable_cores()} usable core" in crowded[0]

    failures: list[str] = []
    said: list[str] = []
    config = load_control_file(clocked)
    failures = await check_players(
        config, say=said.append, show_stderr=False, parallel=parallel, warn=said.append
    )
    assert failures == []
    assert said[0] == crowded[0]


async def test_an_unclocked_or_uncrowded_run_does_not_warn(tmp_path: Path) -> None:
    _, _, events = await run_with(write_playoff(tmp_path, 2), None, parallel=usable_cores())
    assert not [t for t in warnings(events) if "busy machine" in t]
    (tmp_path / "one").mkdir()
    clocked = write_playoff(tmp_path / "one", 2, "time_control = PerMove(5)\n")
    _, _, events = await run_with(clocked, None, parallel=max(1, usable_cores() // 2))
    assert not [t for t in warnings(events) if "busy machine" in t]
