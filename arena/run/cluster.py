"""Games on a Dask cluster: :class:`DaskExecutor` plays each game as a Dask task.

The ringmaster stays on the user's machine and does everything but play: it
schedules, keeps the state, writes every record and emits the events.  Each
game is one task, :func:`arena.run.remote.play_remote`, which plays the job
with the match code of a local run inside ``trio.run`` on a worker; the task
asks for the union of its two players' Dask resources (``resources={'GPU': 1}``
on a Player; a resource both need counts once, at the larger amount).  When
no connected worker offers what a game needs, the game waits for one to join
(Dask's way) and the run says so once, as a warning naming the game and the
resources.

The bridge: ``distributed``'s client is asyncio code, so it lives on an
asyncio loop in a thread of its own (:class:`arena.run.bridge.LoopThread`).  The trio side
hands it coroutines and waits for them on a trio event that the loop sets
through the trio token: no thread is blocked per game.  Dask events come back
the same way: the workers' progress messages on the run's topic (game started
on worker W, latest move, stderr lines) and the scheduler's ``add-worker`` /
``remove-worker`` events, which keep the table of workers that
:meth:`DaskExecutor.emit_events` reports as :class:`arena.events.WorkersChanged`.

Faults:

* a worker lost while it plays a game (its ``remove-worker`` event, or the
  game starting again on another worker: Dask reschedules the task of a dead
  worker): the game is void (:class:`arena.run.executor.GameLost`), its task
  is cancelled, and the competition replays it under a new task key, so a
  late result of the old task can never be taken for the new one;
* a task that fails (the arena missing on a worker, a bug): a void game, so
  repeated failures halt the run as repeated crashes do;
* the scheduler lost: the client cancels every task with the reason
  ``scheduler-connection-lost``; the executor raises
  :class:`arena.run.executor.ExecutorLost`, and the run stops with the
  finished games kept (``arena run`` again resumes);
* the arena killed: its connection closes, the scheduler releases its tasks,
  and the workers stop those games (:mod:`arena.run.remote`).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from typing import Any, Final

import attrs
import trio

from arena.competitions.base import PlayerCheck
from arena.errors import RunError
from arena.events import Event, RunWarning, WorkersChanged
from arena.results import GameJob, GameRecord
from arena.run.bridge import LoopThread
from arena.run.engines import StderrRoute
from arena.run.executor import ExecutorLost, GameLost, Slot
from arena.run.remote import (
    MOVE,
    STARTED,
    STDERR,
    RemoteCheck,
    RemoteGame,
    RemoteSpec,
    check_remote,
    parse_move_text,
    play_remote,
)
from arena.run.sink import GameSink
from gtp.errors import EngineStartError
from gtp.vertex import Colour

CONNECT_TIMEOUT: Final = 10.0
CLOSE_TIMEOUT: Final = 5.0
INSTALL_HINT: Final = "pip install 'gtp-arena[cluster]'"
SCHEDULER_LOST: Final = "scheduler-connection-lost"  # distributed's reason for the cancel

_Answer = tuple[str, Any]  # ("ok", value) | ("error", text) | ("cancelled", reason)


def require_distributed() -> None:
    """RunError, one line saying what to install, when ``distributed`` is missing."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise RunError(
            f"playing on a cluster needs the 'distributed' package: {INSTALL_HINT}"
        ) from None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def game_resources(job: GameJob) -> dict[str, float]:
    """What a game needs of a worker: the union of its players' resources."""
    needs: dict[str, float] = {}
    for player in (job.black, job.white):
        for name, amount in player.resources:
            needs[name] = max(amount, needs.get(name, 0.0))
    return needs


def format_resources(resources: Mapping[str, float]) -> str:
    return ", ".join(f"{name}={amount:g}" for name, amount in sorted(resources.items()))


def void_record(job: GameJob, reason: str) -> GameRecord:
    return GameRecord(
        job,
        None,
        void_reason=reason,
        player_names=(job.black.code, job.white.code),
        date=datetime.datetime.now().replace(microsecond=0).isoformat(sep=" "),
    )


@attrs.frozen
class WorkerInfo:
    threads: int
    resources: Mapping[str, float]

    def offers(self, needs: Mapping[str, float]) -> bool:
        return all(self.resources.get(name, 0.0) >= amount for name, amount in needs.items())


def _worker_table(identity: Mapping[str, Any]) -> dict[str, WorkerInfo]:
    return {
        str(address): WorkerInfo(
            int(info.get("nthreads", 1)),
            {str(k): float(v) for k, v in (info.get("resources") or {}).items()},
        )
        for address, info in identity.get("workers", {}).items()
    }


@attrs.define(eq=False)
class _Flight:
    """A game the ringmaster waits for: one attempt, one task key."""

    job: GameJob
    sink: GameSink  # the ringmaster's, for this game
    scope: trio.CancelScope = attrs.Factory(trio.CancelScope)
    worker: str | None = None  # the worker's label, once the game has started
    address: str | None = None
    lost: str | None = None  # why the ringmaster gave up on it

    def begin(self, worker: str, address: str | None) -> None:
        if self.worker is None:
            self.worker, self.address = worker, address
            self.sink.started(worker)
        elif address is not None and address != self.address:
            self.lose(f"worker {self.worker} was lost mid-game")

    def lose(self, why: str) -> None:
        if self.lost is None:
            self.lost = why
            self.scope.cancel()


@attrs.define(eq=False)
class DaskExecutor:
    """Plays games as tasks on a Dask cluster (module docstring); made by :func:`open_cluster`."""

    address: str
    _thread: LoopThread
    _client: Any  # distributed.Client (asynchronous), used on the loop thread only
    _token: trio.lowlevel.TrioToken
    stderr: StderrRoute = "log"
    _topic: str = attrs.Factory(lambda: f"gtp-arena-{uuid.uuid4().hex}")
    _flights: dict[str, _Flight] = attrs.Factory(dict)
    _workers: dict[str, WorkerInfo] = attrs.Factory(dict)
    _workers_changed: trio.Event = attrs.Factory(trio.Event)
    _lost: str | None = None
    _emit: Callable[[Event], None] | None = None
    _pending: list[Event] = attrs.Factory(list)  # emitted before emit_events began
    _unserved: set[frozenset[tuple[str, float]]] = attrs.Factory(set)  # needs warned of
    # Loop-thread state: one refresh of the worker table at a time.
    _refreshing: bool = False
    _refresh_again: bool = False
    _tasks: set[asyncio.Future[Any]] = attrs.Factory(set)

    # -- what the ringmaster sees -------------------------------------------------

    @property
    def threads(self) -> int:
        """How many games the workers connected now can play at once."""
        return sum(worker.threads for worker in self._workers.values())

    def workers_event(self) -> WorkersChanged:
        return WorkersChanged(len(self._workers), self.threads)

    @contextlib.asynccontextmanager
    async def slot(self, slot: int) -> AsyncIterator[Slot]:
        yield self._play

    async def emit_events(self, emit: Callable[[Event], None]) -> None:
        self._emit = emit
        for early in self._pending:
            emit(early)
        self._pending.clear()
        last = None
        while True:
            event = self.workers_event()
            if event != last:
                emit(event)
                last = event
            await self._workers_changed.wait()

    async def check_players(self, checks: list[PlayerCheck]) -> list[tuple[str, EngineStartError]]:
        """Each check runs on a worker offering the player's resources."""
        failures: list[tuple[str, EngineStartError]] = []

        async def check(item: PlayerCheck) -> None:
            code = item.player.code
            needs = dict(item.player.resources)
            if self._workers and not any(w.offers(needs) for w in self._workers.values()):
                message = (
                    f"no worker of the cluster at {self.address} offers the resources"
                    f" it needs ({format_resources(needs)})"
                )
                failures.append((code, EngineStartError(message, engine=code)))
                return
            key = f"arena-check-{code}-{uuid.uuid4().hex[:12]}"
            kind, value = await self._thread.call(self._run_task(key, needs, check_remote, item))
            if kind == "ok":
                answer: RemoteCheck = value
                if answer.error is not None:
                    message = f"{answer.error} (on worker {answer.worker})"
                    failures.append((code, EngineStartError(message, engine=code)))
                return
            if kind == "cancelled" and value == SCHEDULER_LOST:
                self._lose_cluster()
                return
            message = f"the startup check failed on the cluster: {value}"
            failures.append((code, EngineStartError(message, engine=code)))

        async with trio.open_nursery() as nursery:
            for item in checks:
                nursery.start_soon(check, item)
        if self._lost is not None:
            raise ExecutorLost(self._lost)
        return failures

    def _warn_if_unserved(self, job: GameJob, needs: Mapping[str, float]) -> None:
        """Say once per set of resources that no connected worker offers them."""
        wanted = frozenset(needs.items())
        if not needs or wanted in self._unserved or not self._workers:
            return
        if any(worker.offers(needs) for worker in self._workers.values()):
            return
        self._unserved.add(wanted)
        warning = RunWarning(
            f"no worker of the cluster at {self.address} offers what game {job.game_id}"
            f" needs ({format_resources(needs)}: both players' resources); its games wait"
            " until such a worker joins"
        )
        if self._emit is None:
            self._pending.append(warning)
        else:
            self._emit(warning)

    async def _play(self, job: GameJob, sink: GameSink, crash_result: str) -> GameRecord:
        if self._lost is not None:
            raise ExecutorLost(self._lost)
        needs = game_resources(job)
        self._warn_if_unserved(job, needs)
        key = f"arena-{job.game_id}-{uuid.uuid4().hex[:12]}"
        spec = RemoteSpec(
            key,
            self._topic,
            crash_result=crash_result,
            stderr=self.stderr,
            moves=sink.wants_moves,
            gtp_traffic=sink.wants_traffic,
        )
        flight = _Flight(job, sink)
        self._flights[key] = flight
        answer: _Answer | None = None
        try:
            with flight.scope:
                answer = await self._thread.call(self._run_task(key, needs, play_remote, job, spec))
        finally:
            del self._flights[key]
        if flight.lost is not None or answer is None:
            raise GameLost(void_record(job, flight.lost or "the game's worker was lost"))
        kind, value = answer
        if kind == "cancelled" and value == SCHEDULER_LOST:
            raise ExecutorLost(self._lose_cluster())
        if kind != "ok":
            if flight.worker is None:
                sink.started(None)
            return void_record(job, f"the game's task failed on the cluster: {value}")
        outcome: RemoteGame = value
        if flight.worker is None:
            sink.started(outcome.worker)
        if outcome.record is None:  # the worker was closing and stopped the game
            raise GameLost(void_record(job, f"worker {outcome.worker} stopped mid-game"))
        if sink.wants_traffic:
            for line in outcome.traffic:
                sink.traffic_line(line)
        return outcome.record

    def _lose_cluster(self) -> str:
        if self._lost is None:
            self._lost = (
                f"lost the Dask scheduler at {self.address}; the finished games are kept,"
                " `arena run` again resumes the competition"
            )
        return self._lost

    # -- on the loop thread ---------------------------------------------------------

    async def _connect(self, timeout: float) -> dict[str, WorkerInfo]:
        from distributed import Client

        client: Any = Client(  # type: ignore[no-untyped-call]
            self.address,
            asynchronous=True,
            timeout=timeout,
            name="gtp-arena",
            set_as_default=False,
        )
        try:
            # Our own bound: distributed's retries overran its timeout (20-57 s for 10),
            # and a client that never connected must be closed here, not in __del__
            # (which leaves "coroutine ... was never awaited" warnings on the screen).
            await asyncio.wait_for(client, timeout)
        except BaseException as exc:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.close(timeout=1), 2)
            if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
                raise OSError(f"no answer within {timeout:g} s") from None
            raise
        self._client = client
        # Subscribed before the first task is submitted (one ordered stream to the
        # scheduler), and before the workers are listed, so no change is missed.
        client.subscribe_topic(self._topic, self._on_progress)
        client.subscribe_topic("all", self._on_cluster)
        identity = await client.scheduler.identity(n_workers=-1)
        return _worker_table(identity)

    async def _close(self) -> None:
        client = self._client
        if client is None or client.status not in ("running", "connecting"):
            return
        # With the scheduler gone there is nobody to say goodbye to: don't wait long.
        timeout = CLOSE_TIMEOUT if self._lost is None else 1.0
        await asyncio.wait_for(client.close(timeout=timeout), timeout)

    async def _run_task(
        self, key: str, resources: Mapping[str, float], function: Callable[..., Any], *args: Any
    ) -> _Answer:
        """Submit one task and wait for its answer (cancelled with it, if cancelled)."""
        from distributed.client import FutureCancelledError
        from distributed.comm.core import CommClosedError

        client = self._client
        if client.status != "running":
            return ("cancelled", SCHEDULER_LOST)
        future = client.submit(
            function, *args, key=key, resources=dict(resources) or None, pure=False
        )
        try:
            return ("ok", await future)
        except FutureCancelledError as exc:
            return ("cancelled", exc.reason)
        except CommClosedError:
            # The connection to the scheduler broke under the wait: the scheduler is
            # gone (the cancel that says so can come after this), not the game's fault.
            return ("cancelled", SCHEDULER_LOST)
        except Exception as exc:
            return ("error", _one_line(exc))
        finally:
            if not future.done():  # given up on, or the run stops at once
                self._background(client.cancel([future]))

    def _background(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _on_progress(self, event: tuple[float, Any]) -> None:
        self._post(self._progress, event[1])

    def _on_cluster(self, event: tuple[float, Any]) -> None:
        message = event[1]
        if not isinstance(message, dict):
            return
        action = message.get("action")
        if action == "remove-worker":
            self._post(self._worker_removed, str(message.get("worker")))
        if action in ("add-worker", "remove-worker"):
            self._background(self._refresh_workers())

    async def _refresh_workers(self) -> None:
        if self._refreshing:
            self._refresh_again = True
            return
        self._refreshing = True
        try:
            while True:
                self._refresh_again = False
                identity = await self._client.scheduler.identity(n_workers=-1)
                self._post(self._set_workers, _worker_table(identity))
                if not self._refresh_again:
                    break
        except Exception:
            pass  # the scheduler is gone: the games in flight say so
        finally:
            self._refreshing = False

    def _post(self, function: Callable[..., None], *args: Any) -> None:
        with contextlib.suppress(trio.RunFinishedError):
            self._token.run_sync_soon(function, *args)

    # -- back on the trio thread ------------------------------------------------------

    def _progress(self, message: Any) -> None:
        if not isinstance(message, dict):
            return
        flight = self._flights.get(str(message.get("k")))
        if flight is None or flight.lost is not None:
            return  # an attempt nobody waits for any more: ignored
        kind = message.get("e")
        sink = flight.sink
        if kind == STARTED:
            flight.begin(str(message["w"]), str(message["a"]))
        elif kind == MOVE and sink.wants_moves and flight.worker is not None:
            sink.move_played(
                Colour.parse(str(message["c"])),
                parse_move_text(str(message["m"])),
                int(message["n"]),
            )
        elif kind == STDERR:
            sink.stderr_line(str(message["p"]), str(message["l"]))

    def _worker_removed(self, address: str) -> None:
        for flight in list(self._flights.values()):
            if flight.address == address:
                flight.lose(f"worker {flight.worker} was lost mid-game")
        if self._workers.pop(address, None) is not None:
            self._changed()

    def _set_workers(self, table: dict[str, WorkerInfo]) -> None:
        self._workers = table
        self._changed()

    def _changed(self) -> None:
        self._workers_changed.set()
        self._workers_changed = trio.Event()


def _configured_connect_timeout() -> float:
    import dask.config
    from dask.utils import parse_timedelta

    configured = parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), "s")
    return min(float(configured or CONNECT_TIMEOUT), CONNECT_TIMEOUT)


def silence_distributed_logs() -> None:
    """Quiet every logger of ``distributed`` in this process (dask's config sets some apart).

    For the command line, whose process is the arena's own: it reports what matters
    itself, and distributed's log lines (a lost connection, retries) would break the
    one-line errors and the dashboard.  A library call leaves the loggers alone.
    """
    import distributed  # noqa: F401  (configures its loggers on import)

    for name in ["distributed", *logging.root.manager.loggerDict]:
        if name == "distributed" or name.startswith("distributed."):
            logging.getLogger(name).setLevel(logging.CRITICAL)


@contextlib.asynccontextmanager
async def open_cluster(
    address: str,
    *,
    stderr: StderrRoute = "log",
    timeout: float | None = None,
) -> AsyncIterator[DaskExecutor]:
    """Connect to the Dask scheduler at ``address``; RunError (one line) if it cannot be reached.

    ``timeout``: seconds to keep trying; by default dask's
    ``distributed.comm.timeouts.connect``, at most ``CONNECT_TIMEOUT``.
    Leaves the process's loggers alone (the command line silences distributed's:
    :func:`silence_distributed_logs`).
    """
    require_distributed()
    if timeout is None:
        timeout = _configured_connect_timeout()
    thread = LoopThread()
    try:
        executor = DaskExecutor(address, thread, None, trio.lowlevel.current_trio_token(), stderr)
        try:
            executor._workers = await thread.call(executor._connect(timeout))
        except Exception as exc:
            message = f"cannot reach the Dask scheduler at {address}: {_one_line(exc)}"
            raise RunError(message) from None
        try:
            yield executor
        finally:
            with (
                trio.CancelScope(shield=True),
                trio.move_on_after(CLOSE_TIMEOUT + 1),
                contextlib.suppress(Exception),
            ):
                await thread.call(executor._close())
    finally:
        thread.stop()
