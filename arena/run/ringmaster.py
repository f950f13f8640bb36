"""The run loop: game slots in one trio nursery, recording, stopping, halting, events.

One run of a competition: take the run lock, restore the state (status
snapshot plus journal), check the engines, then play games in ``parallel``
slots.  Each slot asks the competition for its next :class:`GameJob`, plays it
(:func:`arena.run.match.play_game`) with engines from its own
:class:`arena.run.engines.EngineProvider` (kept between games with
``reuse_engines``), and records the outcome: SGF first, then the journal and
the status (:mod:`arena.store.journal`), then the history file, the event log and a
line on stdout.

Stopping: Ctrl-X or ``arena stop`` (``X.cmd``) finish the games in progress;
SIGINT/SIGTERM (Ctrl-C) stop at once, and the partial games are replayed by
the next run; ``--max-games`` limits the games started; void games halt the run
as Gomill does.  Every change is also sent as an event (:mod:`arena.run.events`).
"""

from __future__ import annotations

import datetime
import math
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, Final

import attrs
import trio

from arena.competitions.base import Competition
from arena.competitions.registry import make_competition
from arena.control.config import CompetitionConfig
from arena.errors import RunError
from arena.reports.text import competition_report
from arena.results import GameJob, GameRecord
from arena.run.engines import EngineProvider, StderrRoute, check_player
from arena.run.events import (
    EngineWarning,
    EventSink,
    GameFinished,
    GameStarted,
    MovePlayed,
    RunState,
    RunStateChanged,
    looks_like_warning,
)
from arena.run.keys import CTRL_X, watch_keys
from arena.run.match import MatchOptions, play_game
from arena.run.watchdog import Watchdog
from arena.store.files import CompetitionFiles, RunLock
from arena.store.journal import ResultEntry, StateStore, VoidEntry
from arena.store.restore import apply_entries
from arena.store.sgf import write_game_record
from gtp.errors import EngineStartError
from gtp.vertex import Colour, Move

CMD_POLL_SECONDS: Final = 0.5
# At most one MovePlayed event per game this often (the dashboard draws at 4 Hz).
MOVE_EVENT_SECONDS: Final = 0.05


@attrs.frozen
class RunOptions:
    parallel: int = 1
    quiet: bool = False
    max_games: int | None = None
    log_gtp: bool = False
    keyboard: bool = True  # Ctrl-X from the terminal, when stdin is one
    handle_signals: bool = True  # SIGINT/SIGTERM stop at once (only in the main thread)


@attrs.frozen
class RunSummary:
    state: RunState
    message: str
    games_recorded: int  # results counted in this run
    void_games: int


def report_text(competition: Competition) -> str:
    return competition_report(competition.snapshot())


class _TextLog:
    """An append-only text file, one timestamped line per entry, flushed as written."""

    def __init__(self, path: Path, *, timestamps: bool = True) -> None:
        self._file: IO[str] = open(path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115
        self._timestamps = timestamps

    def write(self, line: str) -> None:
        if self._timestamps:
            stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
            line = f"{stamp} {line}"
        self._file.write(line + "\n")

    def close(self) -> None:
        self._file.close()


@attrs.define
class Ringmaster:
    """Runs one competition once (see module docstring)."""

    config: CompetitionConfig
    options: RunOptions = RunOptions()
    events: EventSink = attrs.Factory(EventSink)
    out: IO[str] = sys.stdout
    files: CompetitionFiles = attrs.field(init=False)
    competition: Competition = attrs.field(init=False)
    _store: StateStore = attrs.field(init=False)
    _log: _TextLog | None = None
    _hist: _TextLog | None = None
    _in_progress: dict[str, GameJob] = attrs.Factory(dict)
    _started: int = 0
    _recorded: int = 0
    _voids: int = 0
    _stopping: bool = False
    _final_state: RunState | None = None
    _final_message: str = ""
    _changed: trio.Event = attrs.Factory(trio.Event)
    _watchdog: Watchdog = attrs.Factory(Watchdog)
    _snapshot_at: float = -math.inf  # when the last snapshot for an event was taken
    _snapshot_cost: float = 0.0  # and how long it took (perf_counter seconds)
    _next_move_event: dict[str, float] = attrs.Factory(dict)  # game id -> trio time

    def __attrs_post_init__(self) -> None:
        self.files = CompetitionFiles.for_control_file(self.config.control_path)
        self.competition = make_competition(self.config)
        self._store = StateStore(self.files, self.config.competition_type)

    # -- output -------------------------------------------------------------

    def _say(self, text: str) -> None:
        if not self.options.quiet:
            print(text, file=self.out, flush=True)

    def _warn(self, text: str) -> None:
        print(f"arena: {text}", file=sys.stderr, flush=True)

    def _log_line(self, text: str) -> None:
        if self._log is not None:
            self._log.write(text)

    def _set_state(self, state: RunState, message: str = "") -> None:
        self.events.emit(RunStateChanged(state, message))

    # -- stopping -----------------------------------------------------------

    def request_stop(self, why: str, *, state: RunState = RunState.STOPPED) -> None:
        """Start no more games; the games in progress finish and are recorded."""
        if self._stopping:
            return
        self._stopping = True
        self._final_state = state
        self._final_message = why
        self._log_line(why)
        if self._in_progress:
            self._say(f"{why}: waiting for {len(self._in_progress)} game(s) in progress")
        self._set_state(RunState.STOPPING, why)
        self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    # -- the run --------------------------------------------------------------

    async def run(self) -> RunSummary:
        """Run until done or stopped.  Raises RunError (lock, state, startup checks)."""
        lock = RunLock(self.files.lock)
        try:
            lock.acquire()
        except Exception as exc:
            raise RunError(str(exc)) from None
        try:
            self._watchdog.start()
            return await self._run_locked()
        finally:
            self._watchdog.stop()
            self._store.close()
            for log in (self._log, self._hist):
                if log is not None:
                    log.close()
            lock.release()

    async def _run_locked(self) -> RunSummary:
        loaded = self._load()
        self._set_state(RunState.CHECKING)
        if not self.config.skip_player_checks:
            await self._startup_checks()
        self._log = _TextLog(self.files.log)
        self._hist = _TextLog(self.files.hist, timestamps=False)
        for warning in loaded:
            self._log_line(f"warning: {warning}")
        self.files.cmd.unlink(missing_ok=True)
        options = self.options
        self._log_line(f"run started (parallel {options.parallel})")
        self._set_state(RunState.RUNNING)
        if self.competition.is_complete():
            self._final_state = RunState.FINISHED
            self._final_message = "competition already complete"
        else:
            self._say(
                f"running {self.config.code} with {options.parallel} slot(s)"
                " (Ctrl-X or `arena stop` to stop after the games in progress)"
            )
            await self._play_all()
        state = self._final_state or RunState.FINISHED
        message = self._final_message or (
            "competition complete" if self.competition.is_complete() else "run finished"
        )
        self.files.report.write_text(report_text(self.competition), encoding="utf-8")
        self._log_line(f"run finished: {message}")
        self._say(message)
        self._set_state(state, message)
        return RunSummary(state, message, self._recorded, self._voids)

    def _remove_stale_temporaries(self) -> None:
        """Temporary files left by a run that was killed mid-write (we hold the lock)."""
        files = self.files
        stale = list(files.directory.glob(f".{files.code}.*.tmp"))
        for directory in (files.games_dir, files.void_dir):
            if directory.is_dir():
                stale.extend(directory.glob(".*.tmp"))
        for path in stale:
            path.unlink(missing_ok=True)

    def _load(self) -> tuple[str, ...]:
        self._remove_stale_temporaries()
        try:
            loaded = self._store.open()
            if loaded.competition is not None:
                self.competition.load_state(loaded.competition)
            apply_entries(self.competition, loaded.pending)
        except Exception as exc:
            raise RunError(f"{self.files.status.name}: {exc}") from None
        if loaded.pending:
            self._store.write_status(self.competition.to_state())
        return loaded.warnings

    async def _startup_checks(self) -> None:
        checks = self.competition.player_checks()
        errors: list[str] = []

        async def check(index: int) -> None:
            item = checks[index]
            try:
                await check_player(
                    item.player, item.settings, stderr="discard", watch=self._watchdog.watch
                )
            except EngineStartError as exc:
                errors.append(f"player {item.player.code!r}: {exc.message}")

        async with trio.open_nursery() as nursery:
            for index in range(len(checks)):
                nursery.start_soon(check, index)
        if errors:
            raise RunError("startup check failed: " + "; ".join(sorted(errors)))

    async def _play_all(self) -> None:
        with trio.CancelScope() as run_scope:
            async with trio.open_nursery() as watchers:
                if self.options.handle_signals:
                    watchers.start_soon(self._watch_signals, run_scope)
                watchers.start_soon(self._watch_cmd_file)
                if self.options.keyboard:
                    watchers.start_soon(watch_keys, self._on_key)
                async with trio.open_nursery() as slots:
                    for slot in range(self.options.parallel):
                        slots.start_soon(self._slot, slot)
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
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                run_scope.cancel()
                return

    async def _watch_cmd_file(self) -> None:
        path = self.files.cmd
        while True:
            await trio.sleep(CMD_POLL_SECONDS)
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except FileNotFoundError:
                continue
            except OSError:
                continue
            path.unlink(missing_ok=True)
            if text.strip().startswith("stop"):
                self.request_stop("stop requested (arena stop)")

    def _on_key(self, key: bytes) -> None:
        if key == CTRL_X:
            self.request_stop("stop requested (Ctrl-X)")

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

    async def _slot(self, slot: int) -> None:
        parallel = self.options.parallel
        route: StderrRoute = "log" if self.config.stderr_to_log else "inherit"
        async with trio.open_nursery() as engines:
            provider = EngineProvider(
                engines,
                stderr=route,
                reuse=self.config.reuse_engines,
                slot=slot if parallel > 1 else None,
                watch=self._watchdog.watch,
            )
            while True:
                job = self._next_job()
                if job is None:
                    if not self._in_progress:
                        break
                    await self._changed.wait()
                    continue
                await self._play(job, slot, provider)
            await provider.close_all()

    async def _play(self, job: GameJob, slot: int, provider: EngineProvider) -> None:
        self._log_line(f"starting game {job.game_id}: {job.black.code} (b) vs {job.white.code} (w)")
        self.events.emit(GameStarted(job.game_id, job.black.code, job.white.code, slot))
        gtp_log: _TextLog | None = None
        if self.options.log_gtp:
            self.files.gtplogs_dir.mkdir(exist_ok=True)
            gtp_log = _TextLog(self.files.gtplogs_dir / f"{job.game_id}.log", timestamps=False)
        log = self._log
        game_id = job.game_id
        events = self.events

        def stderr_line(code: str, line: str) -> None:
            if log is not None:
                log.write(f"{game_id} {code} stderr: {line}")
            if events.channel is not None and looks_like_warning(line):
                events.emit(EngineWarning(game_id, code, line))

        options = MatchOptions(
            crash_result=self.config.crash_result,
            stderr_log=stderr_line,
            gtp_log=gtp_log.write if gtp_log is not None else None,
            on_move=self._move_event if self.events.channel is not None else None,
        )
        try:
            record = await play_game(job, provider, options)
        finally:
            if gtp_log is not None:
                gtp_log.close()
        self._record(job, record)

    def _move_event(self, game_id: str, colour: Colour, move: Move, moves_played: int) -> None:
        # The dashboard draws at 4 Hz: an event per move would cost more CPU than
        # the drawing with fast engines (7,000 moves/s), so each game reports its
        # latest move at most every MOVE_EVENT_SECONDS.
        now = trio.current_time()
        if now < self._next_move_event.get(game_id, -math.inf):
            return
        self._next_move_event[game_id] = now + MOVE_EVENT_SECONDS
        self.events.emit(MovePlayed(game_id, colour, move, moves_played))

    # -- recording ------------------------------------------------------------

    def _record(self, job: GameJob, record: GameRecord) -> None:
        """SGF on disk first, then the journal and the status, then logs and events."""
        self._in_progress.pop(job.game_id, None)
        self._next_move_event.pop(job.game_id, None)
        competition = self.competition
        if self.config.record_games:
            write_game_record(self.files, record)
        result = record.result
        if result is not None:
            engines = {
                code: description
                for code, description in zip(
                    (job.black.code, job.white.code), record.descriptions, strict=True
                )
                if description
            }
            if competition.record_result(result, engines):
                self._store.record(ResultEntry(result, engines), competition.to_state())
                self._recorded += 1
            text = result.describe()
            if self._hist is not None:
                self._hist.write(f"{job.game_id:>7} {text}")
                for line in competition.take_history_notes():
                    self._hist.write(line)
            self._log_line(f"finished game {job.game_id}: {text}")
            self._say(f"game {job.game_id}: {text}")
            if self.events.channel is not None:
                self.events.emit(GameFinished(job.game_id, result, snapshot=self._event_snapshot()))
        else:
            reason = record.void_reason or "unknown failure"
            self._voids += 1
            halt = competition.record_void(job.game_id, job.pairing, live=True)
            self._store.record(VoidEntry(job.game_id, job.pairing, reason), competition.to_state())
            self._log_line(f"void game {job.game_id}: {reason}")
            self._warn(f"game {job.game_id} is void and will be replayed: {reason}")
            if self.events.channel is not None:
                self.events.emit(
                    GameFinished(job.game_id, None, reason, snapshot=self._event_snapshot())
                )
            if halt:
                self.request_stop(
                    f"halting competition: too many void games in matchup {job.pairing}"
                    f" (last: {reason})",
                    state=RunState.HALTED,
                )
        self._notify()

    def _event_snapshot(self) -> Any:
        """The snapshot a GameFinished event carries, or None when it would cost too much now.

        A big competition's snapshot can take a good part of a second (a
        100-player all-play-all), so one is taken at most once per twenty times
        its own cost, keeping watchers' share of the arena's time near 5%; the
        event that leaves no game in progress always has one.
        """
        started = time.perf_counter()
        if self._in_progress and started - self._snapshot_at < 20 * self._snapshot_cost:
            return None
        snapshot = self.competition.snapshot()
        self._snapshot_at = time.perf_counter()
        self._snapshot_cost = self._snapshot_at - started
        return snapshot


async def run_competition(
    config: CompetitionConfig,
    options: RunOptions | None = None,
    *,
    events: Any = None,
    out: IO[str] | None = None,
) -> RunSummary:
    """Run a competition once; ``events`` is an optional trio MemorySendChannel."""
    ringmaster = Ringmaster(
        config,
        options or RunOptions(),
        EventSink(events),
        out if out is not None else sys.stdout,
    )
    return await ringmaster.run()


async def check_players(
    config: CompetitionConfig, *, show_stderr: bool = True, say: Callable[[str], None] = print
) -> list[str]:
    """The ``check`` action: every player's startup check; returns the failures."""
    competition = make_competition(config)
    failures: list[str] = []
    for item in competition.player_checks():
        try:
            description = await check_player(
                item.player, item.settings, stderr="inherit" if show_stderr else "discard"
            )
        except EngineStartError as exc:
            failures.append(f"player {item.player.code!r}: {exc.message}")
            continue
        first_line = description.splitlines()[0] if description else ""
        say(f"player {item.player.code}: ok {first_line}".rstrip())
    return failures
