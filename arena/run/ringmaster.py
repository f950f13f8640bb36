"""The run loop: game slots in one trio nursery; the one loop every entry point uses.

One run of a competition: take the run lock (on disk), restore the state
(status snapshot plus journal), check the engines, then play games in
``parallel`` slots.  Each slot asks the competition for its next
:class:`GameJob`, has the executor (:mod:`arena.run.executor`) play it, and
hands the record to the competition and to the record writer
(:mod:`arena.store.writer`), then takes the next job at once: recording
happens off the event loop, and a game is announced as finished only once it
is durable.

The ringmaster reports only by emitting events (:mod:`arena.events`) on
its bus; it never prints, never writes log text or reports, and imports
neither :mod:`arena.output` nor :mod:`arena.reports`.  Whoever runs it
assembles the rest: :func:`arena.api.run_competition` (what ``arena run``
calls) subscribes the run's files and writes ``X.report`` at the end, the
command line adds the dashboard or plain lines, and the library API runs the
same loop over an in-memory store.

Stopping: Ctrl-X or ``arena stop`` (``X.cmd``) finish the games in progress;
SIGINT/SIGTERM (Ctrl-C) and SIGHUP (a closed terminal) stop at once, and the
partial games are replayed by the next run; ``--max-games`` limits the games
started; void games halt the run as Gomill does (not those voided by a lost
cluster worker); an executor that can play no more games (a lost Dask
scheduler) halts it at once, its games in progress replayed by the next run.
"""

from __future__ import annotations

import gc
import math
import signal
import time
from collections.abc import Callable
from functools import partial
from typing import Final, Protocol

import attrs
import trio

from arena import fields_eq, fields_hash, fields_repr
from arena.competitions.base import Competition, is_clocked
from arena.competitions.registry import make_competition
from arena.competitions.snapshots import CompetitionSnapshot, HistoryNote
from arena.control.config import CompetitionConfig
from arena.errors import RunError, lone_exception
from arena.events import (
    BoardPicture,
    EngineStderr,
    EventBus,
    GameFinished,
    GameStarted,
    KeyPressed,
    MovePlayed,
    RunState,
    RunStateChanged,
    RunWarning,
    SnapshotTaken,
    TreeDump,
    board_picture,
    clock_face,
    looks_like_warning,
)
from arena.keys import CTRL_X, watch_keys
from arena.results import GameJob, GameRecord
from arena.run.affinity import SlotCores, available_cores, pinning_supported, slot_cores
from arena.run.engines import StderrRoute, check_player
from arena.run.executor import Executor, ExecutorLost, GameLost, LocalExecutor, Slot
from arena.run.sink import GameSink, LiveGame
from arena.run.stalls import oversubscription_warning, stall_stop_message, usable_cores
from arena.run.watchdog import Watchdog
from arena.store.files import CompetitionFiles, RunLock
from arena.store.journal import JournalEntry, ResultEntry, VoidEntry, encode_json
from arena.store.restore import apply_entries
from arena.store.sgf import build_sgf, record_path
from arena.store.writer import Commit, DiskStore, MemoryStore, RecordWriter, Store
from gtp.errors import EngineStartError
from gtp.vertex import Colour, Move

CMD_POLL_SECONDS: Final = 0.5
# The signals that stop a run at once (SIGHUP where the platform has it).
STOP_SIGNALS: Final = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
# At most one MovePlayed event per game this often (the dashboard draws at 4 Hz).
MOVE_EVENT_SECONDS: Final = 0.05
# At most one of them carries the game's board this often (a 19x19 picture costs about
# as much as a few referee moves; the dashboard redraws at 4 Hz, X.events at 1 Hz).
BOARD_EVENT_SECONDS: Final = 0.5


@attrs.frozen
class RunOptions:
    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    parallel: int = 1
    max_games: int | None = None
    log_gtp: bool = False  # X.gtplogs/ (read by whoever records the run: arena.api)
    keyboard: bool = True  # Ctrl-X from the terminal, when stdin is one
    handle_signals: bool = True  # SIGINT/SIGTERM/SIGHUP stop at once (only in the main thread)
    durable: bool = True  # fsync records, journal and status (--no-fsync: False)
    affinity: int | None = None  # cores per game slot (--affinity); None: the control file's
    # gc.freeze() what is alive when the games begin (a process-wide change: the
    # command line asks for it, a library call leaves the caller's collector alone).
    freeze_gc: bool = False


class TrafficLogs(Protocol):
    """Where games' GTP traffic goes: one line sink per game, from its start to its end."""

    def open(self, game_id: str) -> Callable[[str], None]: ...

    def close(self, game_id: str) -> None: ...


@attrs.frozen
class RunSummary:
    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    state: RunState
    message: str
    games_recorded: int  # results counted in this run
    void_games: int


class StartupCheckFailed(RunError):
    """Some players failed their startup check (``failures``: player code and error)."""

    def __init__(self, failures: list[tuple[str, EngineStartError]]) -> None:
        self.failures = sorted(failures, key=lambda item: item[0])
        super().__init__(
            "startup check failed: "
            + "; ".join(f"player {code!r}: {exc.message}" for code, exc in self.failures)
        )


def _encoded_state(competition: Competition) -> bytes:
    """The competition's state as ``X.status`` holds it (the writer builds it per batch)."""
    return encode_json(competition.to_state())


class _GameReports(GameSink):
    """The ringmaster's sink for one game: its reports become events on the run's bus,
    its GTP traffic goes to the game's log (``--log-gtp``)."""

    def __init__(
        self, events: EventBus, job: GameJob, slot: int, traffic: Callable[[str], None] | None
    ) -> None:
        self._events = events
        self._job = job
        self._slot = slot
        self._traffic = traffic
        self.wants_moves = events.wants_moves
        self.wants_traffic = traffic is not None
        self._next_move = -math.inf  # trio time
        self._next_board = -math.inf
        # trio's clock, read directly (trio.current_time() is three calls
        # deep); bound at the first move, in the run.
        self._now: Callable[[], float] | None = None

    def started(self, worker: str | None) -> None:
        job = self._job
        self._events.emit(
            GameStarted(job.game_id, job.black.code, job.white.code, self._slot, worker)
        )

    def stderr_line(self, player: str, line: str) -> None:
        self._events.emit(EngineStderr(self._job.game_id, player, line, looks_like_warning(line)))

    def traffic_line(self, line: str) -> None:
        if self._traffic is not None:
            self._traffic(line)

    def move_played(
        self, colour: Colour, move: Move, moves_played: int, game: LiveGame | None = None
    ) -> None:
        # The dashboard draws at 4 Hz: an event per move would cost more CPU than
        # the drawing with fast engines (7,000 moves/s), so each game reports its
        # latest move at most every MOVE_EVENT_SECONDS.
        clock = self._now
        if clock is None:
            clock = self._now = trio.lowlevel.current_clock().current_time
        now = clock()
        if now < self._next_move:
            return
        self._next_move = now + MOVE_EVENT_SECONDS
        game_id = self._job.game_id
        if game is None:  # played elsewhere (a cluster): the move alone
            self._events.emit(MovePlayed(game_id, colour, move, moves_played))
            return
        black, white = game.clock(Colour.BLACK), game.clock(Colour.WHITE)
        board: BoardPicture | None = None
        if now >= self._next_board:
            self._next_board = now + BOARD_EVENT_SECONDS
            board = board_picture(game.board)
        self._events.emit(
            MovePlayed(
                game_id,
                colour,
                move,
                moves_played,
                None if black is None else clock_face(black),
                None if white is None else clock_face(white),
                board,
            )
        )


@attrs.define
class Ringmaster:
    """Runs one competition once (see module docstring).

    ``files``: the competition's files (lock, journal, status, records, logs);
    None to keep everything in memory (the library API).  ``executor``: where
    games are played (default: here).
    """

    __repr__ = fields_repr
    __eq__ = fields_eq

    config: CompetitionConfig
    options: RunOptions = RunOptions()
    events: EventBus = attrs.Factory(EventBus)
    files: CompetitionFiles | None = None
    executor: Executor | None = None
    store: Store = attrs.field(init=False)
    competition: Competition = attrs.field(init=False)
    _writer: RecordWriter = attrs.field(init=False)
    # Where each game's GTP traffic goes (--log-gtp), given by whoever records the run.
    gtp_logs: TrafficLogs | None = None
    _in_progress: dict[str, GameJob] = attrs.Factory(dict)
    _started: int = 0
    _recorded: int = 0
    _voids: int = 0
    _finished_games: int = 0  # results and voids, in this run
    _stall_voids: int = 0  # voids of games whose clock the machine stalled
    _longest_stall: float = 0.0
    _stopping: bool = False
    _final_state: RunState | None = None
    _final_message: str = ""
    _changed: trio.Event = attrs.Factory(trio.Event)
    _watchdog: Watchdog | None = None
    _snapshot_at: float = -math.inf  # when the last snapshot for an event was taken
    _snapshot_cost: float = 0.0  # and how long it took (perf_counter seconds)

    def __attrs_post_init__(self) -> None:
        self.competition = make_competition(self.config)
        if self.files is not None:
            self.store = DiskStore(
                self.files, self.config.competition_type, durable=self.options.durable
            )
        else:
            self.store = MemoryStore()
        self._writer = RecordWriter(self.store)

    # -- stopping -----------------------------------------------------------

    def request_stop(self, why: str, *, state: RunState = RunState.STOPPED) -> None:
        """Start no more games; the games in progress finish and are recorded."""
        if self._stopping:
            return
        self._stopping = True
        self._final_state = state
        self._final_message = why
        self.events.emit(RunStateChanged(RunState.STOPPING, why))
        self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    # -- the run --------------------------------------------------------------

    async def run(self) -> RunSummary:
        """Run until done or stopped.  Raises RunError (lock, state, startup checks, disk)."""
        lock = RunLock(self.files.lock) if self.files is not None else None
        if lock is not None:
            try:
                lock.acquire()
            except Exception as exc:
                raise RunError(str(exc)) from None
        try:
            loaded = self._load()
            if self.files is not None:
                self._watchdog = Watchdog()
                self._watchdog.start()
            try:
                return await self._run_loaded(loaded)
            except BaseExceptionGroup as group:
                raise lone_exception(group) from None
        finally:
            if self._watchdog is not None:
                self._watchdog.stop()
            self.store.close()
            if lock is not None:
                lock.release()

    async def _run_loaded(self, warnings: tuple[str, ...]) -> RunSummary:
        self.events.emit(SnapshotTaken(self.competition.snapshot()))
        self.events.emit(RunStateChanged(RunState.CHECKING))
        executor = self.executor or self._local_executor()
        if not self.config.skip_player_checks:
            failures = await executor.check_players(self.competition.player_checks())
            if failures:
                raise StartupCheckFailed(failures)
        if self.files is not None:
            self.files.cmd.unlink(missing_ok=True)
        for warning in warnings:
            self.events.emit(RunWarning(warning))
        if self._affinity and not isinstance(executor, LocalExecutor):
            self.events.emit(
                RunWarning(
                    f"affinity = {self._affinity} is ignored: the games are played elsewhere"
                    " (a Dask cluster), not in slots of this machine"
                )
            )
        if self.executor is None and is_clocked(self.competition.player_checks()):
            crowded = oversubscription_warning(self.options.parallel, usable_cores())
            if crowded is not None:
                self.events.emit(RunWarning(crowded))
        self.events.emit(RunStateChanged(RunState.RUNNING, parallel=self.options.parallel))
        if self.competition.is_complete():
            self._final_state = RunState.FINISHED
            self._final_message = "competition already complete"
        else:
            # What is alive now (modules, the competition, its state) lives for
            # the whole run: out of the collector's sight, a full collection
            # no longer walks it (it took up to 80 ms, every game's clock stopped).
            freeze = self.options.freeze_gc
            if freeze:
                gc.freeze()
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._writer.run)
                    try:
                        await self._play_all(executor)
                    finally:
                        self._writer.close()
            finally:
                if freeze:
                    gc.unfreeze()
        state = self._final_state or RunState.FINISHED
        message = self._final_message or (
            "competition complete" if self.competition.is_complete() else "run finished"
        )
        self.events.emit(RunStateChanged(state, message))
        return RunSummary(state, message, self._recorded, self._voids)

    @property
    def _affinity(self) -> int:
        """Cores per game slot to pin its engines to (0: not pinned)."""
        if self.options.affinity is not None:
            return self.options.affinity
        return self.config.affinity

    def _local_executor(self) -> LocalExecutor:
        route: StderrRoute = "log" if self.config.stderr_to_log else "inherit"
        cores: SlotCores = ()
        if self._affinity and pinning_supported():
            cores = slot_cores(self.options.parallel, self._affinity, available_cores())
        return LocalExecutor(
            stderr=route,
            reuse_engines=self.config.reuse_engines,
            numbered_slots=self.options.parallel > 1,
            watch=self._watchdog.watch if self._watchdog is not None else None,
            slot_cores=cores,
        )

    def _remove_stale_temporaries(self, files: CompetitionFiles) -> None:
        """Temporary files left by a run that was killed mid-write (we hold the lock)."""
        stale = list(files.directory.glob(f".{files.code}.*.tmp"))
        for directory in (files.games_dir, files.void_dir):
            if directory.is_dir():
                stale.extend(directory.glob(".*.tmp"))
        for path in stale:
            path.unlink(missing_ok=True)

    def _load(self) -> tuple[str, ...]:
        """Restore the competition from the store; the warnings about what was dropped."""
        name = "the competition's state"
        if self.files is not None:
            self._remove_stale_temporaries(self.files)
            name = self.files.status.name
        try:
            loaded = self.store.open()
            if loaded.competition is not None:
                self.competition.load_state(loaded.competition)
            apply_entries(self.competition, loaded.pending)
            if loaded.pending and self.store.wants_status:
                self.store.commit([], [], encode_json(self.competition.to_state()))
        except Exception as exc:
            raise RunError(f"{name}: {exc}") from None
        return loaded.warnings

    async def _play_all(self, executor: Executor) -> None:
        with trio.CancelScope() as run_scope:
            async with trio.open_nursery() as watchers:
                if self.options.handle_signals:
                    watchers.start_soon(self._watch_signals, run_scope)
                if self.files is not None:
                    watchers.start_soon(self._watch_cmd_file, self.files)
                if self.options.keyboard:
                    watchers.start_soon(watch_keys, self._on_key)
                watchers.start_soon(executor.emit_events, self.events.emit)
                async with trio.open_nursery() as slots:
                    for slot in range(self.options.parallel):
                        slots.start_soon(self._slot, executor, slot)
                watchers.cancel_scope.cancel()
        if run_scope.cancelled_caught:
            for job in self._in_progress.values():
                self.competition.job_abandoned(job)
            abandoned = sorted(self._in_progress)
            self._in_progress.clear()
            self._final_state = RunState.STOPPED
            self._final_message = "interrupted" + (
                f"; games {', '.join(abandoned)} will be replayed" if abandoned else ""
            )

    async def _watch_signals(self, run_scope: trio.CancelScope) -> None:
        # SIGHUP too: a closed terminal stops the run as Ctrl-C does (engines told
        # to quit, the report written), not as a kill.
        with trio.open_signal_receiver(*STOP_SIGNALS) as signals:
            async for _ in signals:
                run_scope.cancel()
                return

    async def _watch_cmd_file(self, files: CompetitionFiles) -> None:
        path = files.cmd
        while True:
            await trio.sleep(CMD_POLL_SECONDS)
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            path.unlink(missing_ok=True)
            if text.strip().startswith("stop"):
                self.request_stop("stop requested (arena stop)")

    def _on_key(self, key: bytes) -> None:
        if key == CTRL_X:
            self.request_stop("stop requested (Ctrl-X)")
        else:
            self.events.emit(KeyPressed(key))

    # -- slots ----------------------------------------------------------------

    def _next_job(self) -> GameJob | None:
        if self._stopping:
            return None
        max_games = self.options.max_games
        if max_games is not None and self._started >= max_games:
            return None
        job = self.competition.next_job()
        if job is not None:
            self._started += 1
            self._in_progress[job.game_id] = job
        return job

    async def _slot(self, executor: Executor, slot: int) -> None:
        async with executor.slot(slot) as play:
            while True:
                job = self._next_job()
                if job is None:
                    if not self._in_progress:
                        break
                    await self._changed.wait()
                    continue
                await self._play(job, slot, play)

    async def _play(self, job: GameJob, slot: int, play: Slot) -> None:
        game_id = job.game_id
        gtp_logs = self.gtp_logs
        reports = _GameReports(
            self.events, job, slot, gtp_logs.open(game_id) if gtp_logs is not None else None
        )
        lost = False
        try:
            record = await play(job, reports, self.config.crash_result)
        except GameLost as exc:  # void, replayed; the machine's fault, not the engines'
            record, lost = exc.record, True
        except ExecutorLost as exc:  # no game can finish: stop, this one is replayed next run
            self._in_progress.pop(game_id, None)
            self.competition.job_abandoned(job)
            self._stopping = True
            self._final_state, self._final_message = RunState.HALTED, str(exc)
            self._notify()
            return
        finally:
            if gtp_logs is not None:
                gtp_logs.close(game_id)
        self._finished(job, record, lost=lost)

    # -- recording ------------------------------------------------------------

    def _finished(self, job: GameJob, record: GameRecord, *, lost: bool = False) -> None:
        """Count the game, queue its record, go on; it is announced once durable.

        ``lost``: a void game whose worker was lost, which never halts the run.
        """
        self._in_progress.pop(job.game_id, None)
        competition = self.competition
        result = record.result
        entry: JournalEntry | None
        counted = True
        halt_reason = None
        if result is not None:
            engines = {
                code: description
                for code, description in zip(
                    (job.black.code, job.white.code), record.descriptions, strict=True
                )
                if description
            }
            counted = competition.record_result(result, engines)
            entry = ResultEntry(result, engines) if counted else None
        else:
            reason = record.void_reason or "unknown failure"
            self._voids += 1
            halts = competition.record_void(job.game_id, job.pairing, live=True)
            if record.stall is not None:
                # The machine's fault, not the engines': replayed, and counted apart.
                halt_reason = self._stalled(job, record.stall, reason)
            elif halts and not lost:
                halt_reason = (
                    f"halting competition: too many void games in matchup {job.pairing}"
                    f" (last: {reason})"
                )
            entry = VoidEntry(job.game_id, job.pairing, reason)
        self._finished_games += 1
        record_file = None
        if self.files is not None and self.config.record_games:
            path = record_path(self.files, record)
            if path is not None:
                record_file = (path, partial(build_sgf, record))
        notes = tuple(competition.take_history_notes())
        sgf_path = None if record_file is None else str(record_file[0])
        if halt_reason is not None:
            self.request_stop(halt_reason, state=RunState.HALTED)
        # The competition after this game, for its announcement (when watched and
        # affordable now): taken here, it covers this game and every earlier one.
        snapshot = self._event_snapshot() if self.events.subscribed else None
        status = partial(_encoded_state, competition) if self.store.wants_status else None
        announce = partial(self._announce, record, counted, sgf_path, notes, snapshot)
        self._writer.submit(Commit(entry, record_file, announce, status))
        self._notify()

    def _stalled(self, job: GameJob, stall: float, reason: str) -> str | None:
        """A game voided for a stalled clock: warn; the halt message once they keep coming."""
        self._stall_voids += 1
        self._longest_stall = max(self._longest_stall, stall)
        self.events.emit(RunWarning(f"game {job.game_id} void, to be replayed: {reason}"))
        return stall_stop_message(
            self._stall_voids,
            self._finished_games + 1,
            self._longest_stall,
            self.options.parallel,
        )

    def _announce(
        self,
        record: GameRecord,
        counted: bool,
        sgf_path: str | None,
        notes: tuple[HistoryNote, ...],
        snapshot: CompetitionSnapshot | None,
    ) -> None:
        """The game is durable: count it as recorded and tell the subscribers."""
        job = record.job
        if record.result is not None and counted:
            self._recorded += 1
        self.events.emit(
            GameFinished(
                job.game_id,
                job.black.code,
                job.white.code,
                record.result,
                record.void_reason,
                sgf_path,
                counted,
                latency=record.latency,
                record=record,
                snapshot=snapshot,
            )
        )
        if notes:
            self.events.emit(TreeDump.of(notes))

    def _run_ends_here(self) -> bool:
        """No game in progress and none to come: the game just finished is the run's last."""
        if self._in_progress:
            return False
        max_games = self.options.max_games
        return (
            self._stopping
            or (max_games is not None and self._started >= max_games)
            or self.competition.is_complete()
        )

    def _event_snapshot(self) -> CompetitionSnapshot | None:
        """The snapshot a GameFinished event carries, or None when it would cost too much now.

        A big competition's snapshot can take a good part of a second (a
        100-player all-play-all), so one is taken at most once per twenty times
        its own cost, keeping watchers' share of the arena's time near 5%; the
        run's last game (none in progress, none to come) always has one.
        """
        started = time.perf_counter()
        if started - self._snapshot_at < 20 * self._snapshot_cost and not self._run_ends_here():
            return None
        snapshot = self.competition.snapshot()
        self._snapshot_at = time.perf_counter()
        self._snapshot_cost = self._snapshot_at - started
        return snapshot


async def check_players(
    config: CompetitionConfig,
    *,
    show_stderr: bool = True,
    say: Callable[[str], None] = print,
    parallel: int = 1,
    warn: Callable[[str], None] | None = None,
) -> list[str]:
    """The ``check`` action: every player's startup check; returns the failures.

    ``warn`` is told once when a clocked competition would run more engines
    at once (``parallel`` games of two) than this machine has cores.
    """
    competition = make_competition(config)
    failures: list[str] = []
    if warn is not None and is_clocked(competition.player_checks()):
        crowded = oversubscription_warning(parallel, usable_cores())
        if crowded is not None:
            warn(crowded)
    for item in competition.player_checks():
        try:
            description = await check_player(
                item.player,
                item.settings,
                stderr="inherit" if show_stderr else "discard",
                required=item.required_commands,
            )
        except EngineStartError as exc:
            failures.append(f"player {item.player.code!r}: {exc.message}")
            continue
        first_line = description.splitlines()[0] if description else ""
        say(f"player {item.player.code}: ok {first_line}".rstrip())
    return failures
