"""The pieces of a cluster run that need no cluster: settings, events, the dashboard, and how
the ringmaster treats a lost worker and a lost scheduler (with a scripted executor)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import pickle
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import attrs
import pytest
import trio
from rich.console import Console

from arena.api import run_competition
from arena.competitions.base import PlayerCheck
from arena.competitions.loader import load_control_file
from arena.errors import ControlFileError
from arena.events import (
    Event,
    EventBus,
    GameStarted,
    RunState,
    WorkersChanged,
    event_from_json,
    event_to_json,
)
from arena.results import EndReason, GameJob, GameRecord, GameResult, PlayedMove
from arena.run.bridge import LoopThread
from arena.run.cluster import game_resources, void_record
from arena.run.executor import ExecutorLost, GameLost, Slot
from arena.run.remote import RemoteGame, parse_move_text
from arena.run.ringmaster import RunOptions
from arena.run.sink import GameSink
from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, VoidEntry, iter_journal
from arena_cli.main import main
from gtp.errors import EngineStartError
from gtp.vertex import Colour, Move
from tui.dashboard import render_dashboard
from tui.tracker import RunTracker

from .helpers import write_ctl


def control(directory: Path, players: str, extra: str = "", games: int = 4) -> Path:
    return write_ctl(
        directory,
        f"players = {{{players}}}\nboard_size = 9\nkomi = 7.5\n{extra}"
        f"matchups = [Matchup('a', 'b', alternating=True, number_of_games={games})]\n",
    )


# -- settings ---------------------------------------------------------------------


def test_player_resources_and_the_cluster_setting(tmp_path: Path) -> None:
    path = control(
        tmp_path,
        "'a': Player('x', resources={'GPU': 1, 'MEM': 2.5}), 'b': Player('y')",
        "cluster = '127.0.0.1:8786'\n",
    )
    config = load_control_file(path)
    assert config.players["a"].resources == (("GPU", 1.0), ("MEM", 2.5))
    assert config.players["b"].resources == ()
    assert config.cluster == "tcp://127.0.0.1:8786"


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("resources=['GPU']", "resources: expected a dictionary of resource name -> amount"),
        ("resources={'GPU': 0}", "resources['GPU']: expected a positive amount"),
        ("resources={'GPU': 'one'}", "resources['GPU']: expected a number"),
        ("resources={'G PU': 1}", "'G PU' is not a resource name"),
    ],
)
def test_bad_resources_are_one_line_naming_the_player(
    tmp_path: Path, setting: str, message: str
) -> None:
    path = control(tmp_path, f"'a': Player('x', {setting}), 'b': Player('y')")
    with pytest.raises(ControlFileError) as error:
        load_control_file(path)
    text = str(error.value)
    assert "players['a'].resources" in text and message in text
    assert "\n" not in text


def test_a_bad_cluster_address_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = control(tmp_path, "'a': Player('x'), 'b': Player('y')", "cluster = 'nowhere'\n")
    with pytest.raises(ControlFileError, match="cluster: expected a scheduler address"):
        load_control_file(path)
    with pytest.raises(SystemExit) as exit_:
        main(["run", str(path), "--cluster", "tcp://nohost"])
    assert exit_.value.code == 2
    assert "--cluster: expected a scheduler address" in capsys.readouterr().err


def test_a_game_needs_the_union_of_its_players_resources(tmp_path: Path) -> None:
    path = control(
        tmp_path,
        "'a': Player('x', resources={'GPU': 1, 'MEM': 4}), 'b': Player('y', resources={'GPU': 1})",
    )
    config = load_control_file(path)
    a, b = config.players["a"], config.players["b"]
    settings = load_control_file(path).playoff.matchups[0].settings
    job = GameJob("0_0", "0", 0, a, b, settings)
    assert game_resources(job) == {"GPU": 1.0, "MEM": 4.0}  # one GPU shared, not two
    assert game_resources(attrs.evolve(job, black=b, white=b)) == {"GPU": 1.0}


# -- values that cross the network ----------------------------------------------------


def test_jobs_and_records_survive_pickling(tmp_path: Path) -> None:
    config = load_control_file(control(tmp_path, "'a': Player('x'), 'b': Player('y')"))
    job = GameJob(
        "0_1", "0", 1, config.players["a"], config.players["b"], config.playoff.matchups[0].settings
    )
    result = GameResult("0_1", "a", "b", Colour.WHITE, EndReason.SCORE, 3.5, 2, 0.25, 0.5)
    record = GameRecord(
        job,
        result,
        moves=(PlayedMove(Colour.BLACK, Move((2, 3)), "hm"), PlayedMove(Colour.WHITE, Move())),
        descriptions=("x 1.0", "y 2.0"),
        notes=("scored",),
    )
    answer = RemoteGame(record, "w1", ("a (b) >> genmove b",))
    assert pickle.loads(pickle.dumps(answer)) == answer
    assert pickle.loads(pickle.dumps(job)) == job


@pytest.mark.parametrize("move", [Move((0, 0)), Move((18, 5)), Move(), Move(None, True)])
def test_moves_cross_as_text(move: Move) -> None:
    from arena.run.remote import _move_text

    assert parse_move_text(_move_text(move)) == move


def test_workers_and_the_worker_of_a_game_go_to_x_events_and_back() -> None:
    for event in (WorkersChanged(3, 12), GameStarted("0_1", "a", "b", 2, "gpu-box")):
        data = event_to_json(event)
        assert data is not None
        assert event_from_json(json.loads(json.dumps(data))) == event


# -- the dashboard ----------------------------------------------------------------------


def test_the_dashboard_shows_each_games_worker_and_the_cluster_size() -> None:
    tracker = RunTracker("comp", clock=lambda: 100.0)
    for event in (
        WorkersChanged(2, 4),
        GameStarted("0_1", "mcts", "random", 0, "gpu-box"),
        GameStarted("0_2", "random", "mcts", 1, "127.0.0.1:4040"),
    ):
        tracker.handle(event)
    console = Console(width=100, height=30, record=True, color_system=None)
    console.print(render_dashboard(tracker.view()))
    screen = console.export_text()
    assert "2 worker(s)" in screen
    rows = {line.split()[0]: line for line in screen.splitlines() if line.startswith("0_")}
    assert rows["0_1"].rstrip().endswith("gpu-box")
    assert rows["0_2"].rstrip().endswith("127.0.0.1:4040")
    assert "worker" in screen


# -- the ringmaster with a scripted executor ------------------------------------------


Outcome = str  # "ok", "lost" (the worker died mid-game), "gone" (the scheduler is lost)


@attrs.define
class ScriptedExecutor:
    """Plays each game as the script says (per attempt), at once, with no engine."""

    script: dict[str, list[Outcome]] = attrs.Factory(dict)
    attempts: list[str] = attrs.Factory(list)

    @contextlib.asynccontextmanager
    async def slot(self, slot: int) -> AsyncIterator[Slot]:
        async def play(job: GameJob, sink: GameSink, crash_result: str) -> GameRecord:
            self.attempts.append(job.game_id)
            sink.started(f"w{slot}")
            outcomes = self.script.get(job.game_id, [])
            outcome = outcomes.pop(0) if outcomes else "ok"
            if outcome == "lost":
                raise GameLost(void_record(job, f"worker w{slot} was lost mid-game"))
            if outcome == "gone":
                raise ExecutorLost("lost the Dask scheduler at tcp://127.0.0.1:1")
            result = GameResult(
                job.game_id, job.black.code, job.white.code, Colour.BLACK, EndReason.RESIGN
            )
            return GameRecord(job, result)

        yield play

    async def check_players(self, checks: list[PlayerCheck]) -> list[tuple[str, EngineStartError]]:
        return []

    async def emit_events(self, emit: Callable[[Event], None]) -> None:
        emit(WorkersChanged(2, 2))


async def run_scripted(path: Path, executor: ScriptedExecutor, parallel: int = 1) -> tuple:  # type: ignore[type-arg]
    events: list[Event] = []
    bus = EventBus()
    bus.subscribe(events.append)
    options = RunOptions(parallel=parallel, keyboard=False, handle_signals=False)
    summary = await run_competition(load_control_file(path), options, events=bus, executor=executor)
    return summary, events


async def test_games_lost_with_their_worker_are_void_replayed_and_never_halt(
    tmp_path: Path,
) -> None:
    # Two voids in a row at the start of a matchup halt a run when engines crash;
    # a lost worker is not the engines' fault.
    path = control(tmp_path, "'a': Player('x'), 'b': Player('y')")
    executor = ScriptedExecutor({"0_0": ["lost", "lost"], "0_1": ["lost"]})
    summary, events = await run_scripted(path, executor)
    assert summary.state is RunState.FINISHED
    files = CompetitionFiles.for_control_file(path)
    entries = list(iter_journal(files))
    assert sorted(e.result.game_id for e in entries if isinstance(e, ResultEntry)) == [
        "0_0",
        "0_1",
        "0_2",
        "0_3",
    ]
    voids = [e for e in entries if isinstance(e, VoidEntry)]
    assert [v.game_id for v in voids] == ["0_0", "0_0", "0_1"]
    assert all("was lost mid-game" in v.reason for v in voids)
    assert sorted(executor.attempts) == ["0_0", "0_0", "0_0", "0_1", "0_1", "0_2", "0_3"]
    started = [e for e in events if isinstance(e, GameStarted)]
    assert {e.worker for e in started} == {"w0"}
    written = [json.loads(line) for line in files.events.read_text().splitlines()]
    assert {"event": "workers", "workers": 2, "threads": 2, "time": written[-1]["time"]} in [
        {**line, "time": written[-1]["time"]} for line in written
    ]


async def test_a_lost_scheduler_stops_the_run_keeping_the_finished_games(tmp_path: Path) -> None:
    path = control(tmp_path, "'a': Player('x'), 'b': Player('y')", games=6)
    summary, _ = await run_scripted(path, ScriptedExecutor({"0_3": ["gone"]}), parallel=2)
    assert summary.state is RunState.HALTED
    assert summary.message == "lost the Dask scheduler at tcp://127.0.0.1:1"
    files = CompetitionFiles.for_control_file(path)
    kept = [e.result.game_id for e in iter_journal(files) if isinstance(e, ResultEntry)]
    assert "0_3" not in kept and 3 <= len(kept) < 6
    assert "run finished: lost the Dask scheduler" in files.log.read_text()

    summary, _ = await run_scripted(path, ScriptedExecutor())  # the next run resumes
    assert summary.state is RunState.FINISHED
    done = [e.result.game_id for e in iter_journal(files) if isinstance(e, ResultEntry)]
    assert sorted(done) == [f"0_{n}" for n in range(6)]


# -- the trio / asyncio bridge ------------------------------------------------------------


async def test_the_bridge_runs_coroutines_on_its_loop_and_cancels_them_with_trio() -> None:
    thread = LoopThread()
    try:

        async def add(a: int, b: int) -> tuple[int, str]:
            await asyncio.sleep(0)
            return a + b, threading.current_thread().name

        assert await thread.call(add(1, 2)) == (3, "arena-asyncio")
        cancelled = threading.Event()

        async def forever() -> None:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                cancelled.set()
                raise

        with trio.move_on_after(0.1):
            await thread.call(forever())
        assert await trio.to_thread.run_sync(cancelled.wait, 5.0)
    finally:
        thread.stop()
