"""What a Dask worker runs for the arena: one game, or one startup check, in its own ``trio.run``.

The ringmaster (:mod:`arena.run.cluster`) submits :func:`play_remote` with a
frozen :class:`arena.results.GameJob` and a :class:`RemoteSpec`; the worker
starts both engines from the players' commands (paths as this machine sees
them), plays the game with :func:`arena.run.match.play_game` -- the code a
local run uses -- and returns a :class:`RemoteGame` holding the
:class:`arena.results.GameRecord` (result, moves and comments for the SGF,
engine descriptions, engines' CPU).  :func:`check_remote` is the startup check
of one player.

While the game runs, its sink (:class:`_Progress`) sends small messages back
through the scheduler as Dask events on the run's topic
(``Worker.log_event``): the game has started on this worker, its latest move
(at most one every ``MOVE_EVENT_SECONDS``, and only when the arena shows
moves) and the engines' stderr lines (capped per game as in a local run).
Each names the task's key, so the ringmaster can drop those of an attempt it
no longer waits for.

A game whose task is cancelled (the ringmaster gave up on it, or the arena
died and the scheduler released its tasks) is stopped within
``CANCEL_POLL_SECONDS``, its engines with it, instead of keeping the worker
busy until the game's end.  One guard process per worker process
(:mod:`arena.run.watchdog`) stops the engines if the worker dies.

This module imports ``distributed`` only inside the functions the worker
calls: the arena is importable without it.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, Final

import attrs
import trio

from arena.competitions.base import PlayerCheck
from arena.control.settings import PlayerConfig
from arena.results import GameJob, GameRecord
from arena.run.engines import EngineFacts, StderrRoute, check_player, open_provider
from arena.run.match import play_game
from arena.run.sink import GameSink, LiveGame
from arena.run.watchdog import Watchdog
from gtp.errors import EngineStartError
from gtp.vertex import Colour, Move

if TYPE_CHECKING:
    from distributed import Worker

MOVE_EVENT_SECONDS: Final = 0.05  # as the ringmaster's own rate limit for local games
CANCEL_POLL_SECONDS: Final = 0.25

# Message kinds on the run's topic (short keys: every message crosses the network twice).
STARTED: Final = "start"
MOVE: Final = "move"
STDERR: Final = "err"


@attrs.frozen
class RemoteSpec:
    """How the worker plays a job: the ringmaster's choices, and where progress goes."""

    key: str  # the task's key: one attempt at one game
    topic: str  # the run's Dask event topic
    crash_result: str = "void"
    stderr: StderrRoute = "log"  # "log": lines go back to the ringmaster
    moves: bool = False  # send the latest move (the dashboard is shown)
    gtp_traffic: bool = False  # keep the GTP traffic, returned with the record (--log-gtp)


@attrs.frozen
class RemoteGame:
    """A worker's answer: the game's record (None if the task was cancelled) and who played it."""

    record: GameRecord | None
    worker: str
    traffic: tuple[str, ...] = ()  # the game's GTP traffic, when asked for


@attrs.frozen
class RemoteCheck:
    """A worker's answer to a startup check: the error message, or None when it passed."""

    error: str | None
    worker: str


def worker_label(worker: Worker) -> str:
    """How the arena names a worker: its ``--name`` when it was given one, else host:port."""
    address = str(worker.address)
    name = str(worker.name)
    plain = address.split("://", 1)[-1]
    if name in (address, plain) or not name:
        return plain
    return name


_guard_lock = threading.Lock()
_guard: Watchdog | None = None


def _process_guard() -> Watchdog:
    """This worker process's engine guard, started with its first game (never stopped:
    its input closes when the process ends, however it ends)."""
    global _guard
    with _guard_lock:
        if _guard is None:
            guard = Watchdog()
            guard.start()
            _guard = guard
        return _guard


_facts_lock = threading.Lock()
_facts: dict[str, dict[PlayerConfig, EngineFacts]] = {}


def _run_facts(topic: str) -> dict[PlayerConfig, EngineFacts]:
    """What the engines of a run's players said about themselves, shared by the run's games
    on this worker process: later engines are only asked for their description, as in a
    local slot.  Per run, so that an engine upgraded between runs is asked again."""
    with _facts_lock:
        return _facts.setdefault(topic, {})


def _still_wanted(worker: Worker, key: str) -> bool:
    """False once the scheduler cancelled this task or the worker is closing."""
    try:
        if worker.status.name in ("closing", "closed", "failed"):
            return False
        task = worker.state.tasks.get(key)
    except Exception:  # a layout of distributed we don't know: never cut a game short
        return True
    return task is not None and task.state != "cancelled"


async def _until_unwanted(worker: Worker, key: str, scope: trio.CancelScope) -> None:
    while _still_wanted(worker, key):
        await trio.sleep(CANCEL_POLL_SECONDS)
    scope.cancel()


class _Progress(GameSink):
    """The game's sink on a worker: its progress on the run's topic (module docstring);
    the GTP traffic, when asked for, kept to go back with the record."""

    def __init__(self, worker: Worker, spec: RemoteSpec) -> None:
        self._worker = worker
        self._topic = spec.topic
        self._key = spec.key
        self._next_move = 0.0
        self.wants_moves = spec.moves
        self.wants_traffic = spec.gtp_traffic
        self.traffic: list[str] = []

    def send(self, kind: str, **fields: Any) -> None:
        self._worker.log_event(self._topic, {"k": self._key, "e": kind, **fields})

    def started(self, worker: str | None) -> None:
        self.send(STARTED, w=worker_label(self._worker), a=str(self._worker.address))

    def move_played(
        self, colour: Colour, move: Move, moves_played: int, game: LiveGame | None = None
    ) -> None:
        now = time.monotonic()
        if now < self._next_move:
            return
        self._next_move = now + MOVE_EVENT_SECONDS
        self.send(MOVE, c=colour.letter, m=_move_text(move), n=moves_played)

    def stderr_line(self, player: str, line: str) -> None:
        self.send(STDERR, p=player, l=line)

    def traffic_line(self, line: str) -> None:
        self.traffic.append(line)


def _move_text(move: Move) -> str:
    if move.is_resign:
        return "resign"
    if move.point is None:
        return "pass"
    row, col = move.point
    return f"{row},{col}"


def parse_move_text(text: str) -> Move:
    """Inverse of the worker's move spelling (``row,col``, ``pass``, ``resign``)."""
    if text == "resign":
        return Move(None, True)
    if text == "pass":
        return Move()
    row, col = text.split(",")
    return Move((int(row), int(col)))


async def _play(job: GameJob, spec: RemoteSpec, progress: _Progress) -> GameRecord | None:
    record = None
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_until_unwanted, progress._worker, spec.key, nursery.cancel_scope)
        progress.started(None)
        async with open_provider(
            stderr=spec.stderr, watch=_process_guard().watch, facts=_run_facts(spec.topic)
        ) as provider:
            record = await play_game(job, provider, progress, crash_result=spec.crash_result)
        nursery.cancel_scope.cancel()
    return record


def play_remote(job: GameJob, spec: RemoteSpec) -> RemoteGame:
    """The Dask task of one game (runs on a worker, in one of its threads)."""
    from distributed import get_worker

    worker = get_worker()
    progress = _Progress(worker, spec)
    record = trio.run(_play, job, spec, progress)
    return RemoteGame(record, worker_label(worker), tuple(progress.traffic))


async def _check(check: PlayerCheck) -> str | None:
    try:
        await check_player(
            check.player, check.settings, stderr="discard", watch=_process_guard().watch
        )
    except EngineStartError as exc:
        return exc.message
    return None


def check_remote(check: PlayerCheck) -> RemoteCheck:
    """The Dask task of one player's startup check (runs on a worker)."""
    from distributed import get_worker

    worker = get_worker()
    return RemoteCheck(trio.run(_check, check), worker_label(worker))
