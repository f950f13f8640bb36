"""``arena watch X.ctl``: a read-only dashboard of a run another process owns.

The watcher never takes the run lock for long and never writes.  A few times
a second it looks at the competition's files and turns what is new into the
same events the ringmaster sends (:mod:`arena.run.events`), for the same
:class:`tui.tracker.RunTracker`:

* ``X.status`` + ``X.journal`` (through :func:`arena.store.journal.read_state`): the
  competition's snapshot, rebuilt when either file changes; new journal lines
  are the finished (or void) games;
* ``X.log`` (the ringmaster's event log, one timestamped line each): games
  starting and ending, engine stderr lines, stop requests, run start and end.
  This ties the watcher to the wording of those log lines; lines it does not
  know are ignored.

It exits when the run ends (the lock is free: :func:`arena.store.files.is_running`)
or on Ctrl-C or ``q``.  When stdout is not a terminal it prints one plain
line per newly finished game instead of the dashboard.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Final

import attrs
import trio
from rich.console import Console

from arena.control.config import CompetitionConfig
from arena.errors import StateError
from arena.run.events import (
    EngineWarning,
    Event,
    GameFinished,
    GameStarted,
    RunState,
    RunStateChanged,
    looks_like_warning,
)
from arena.run.keys import watch_keys
from arena.store.files import CompetitionFiles, is_running
from arena.store.journal import ResultEntry, entry_from_json, read_state
from arena.store.restore import load_competition
from tui.live import LiveDashboard, open_live, print_final
from tui.tracker import KEY_HELP_WATCH, RunTracker

POLL_SECONDS: Final = 0.25  # files are looked at (and a frame drawn) four times a second
LOCK_POLL_SECONDS: Final = 1.0  # is the run still going?
LOG_TAIL_BYTES: Final = 4 * 1024 * 1024  # how much of an old log to read when attaching
JOURNAL_TAIL_BYTES: Final = 64 * 1024  # enough old results for the "recent" list

_STAMPED = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) (.*)$")
_STARTING = re.compile(r"^starting game (\S+): (\S+) \(b\) vs (\S+) \(w\)$")
_ENDED = re.compile(r"^(?:finished|void) game (\S+):")
_STDERR = re.compile(r"^(\S+) (\S+) stderr: (.*)$")


def _final_state(message: str) -> RunState:
    if message.startswith("halting"):
        return RunState.HALTED
    if message.startswith(("interrupted", "stop requested")):
        return RunState.STOPPED
    return RunState.FINISHED


def _read_from(path: Path, offset: int) -> tuple[bytes, int]:
    """Complete lines of ``path`` from ``offset``; the new offset (after the last newline)."""
    try:
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            if size < offset:
                offset = 0  # the file was replaced (a reset): start again
            file.seek(offset)
            data = file.read()
    except FileNotFoundError:
        return b"", 0
    end = data.rfind(b"\n") + 1
    return data[:end], offset + end


def _tail_offset(path: Path, keep: int) -> int:
    """Where to start reading an existing file so as to read about its last ``keep`` bytes."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return 0
    if size <= keep:
        return 0
    with open(path, "rb") as file:
        file.seek(size - keep)
        skipped = file.readline()  # a partial line
    return size - keep + len(skipped)


def _signature(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return (-1, -1)
    return (stat.st_size, stat.st_mtime_ns)


@attrs.define
class CompetitionFollower:
    """Reads what is new in a competition's files and feeds it to a tracker as events."""

    config: CompetitionConfig
    tracker: RunTracker
    files: CompetitionFiles = attrs.field(init=False)
    on_result: Callable[[GameFinished], None] | None = None  # for plain output
    _log_offset: int | None = None
    _journal_offset: int | None = None
    _signatures: tuple[tuple[int, int], ...] = ()
    errors: int = 0

    def __attrs_post_init__(self) -> None:
        self.files = CompetitionFiles.for_control_file(self.config.control_path)

    def poll(self) -> bool:
        """Read what changed since the last call; True when anything did."""
        files = self.files
        signatures = (_signature(files.status), _signature(files.journal), _signature(files.log))
        if signatures == self._signatures:
            return False
        first = not self._signatures
        results_changed = first or signatures[:2] != self._signatures[:2]
        self._signatures = signatures
        self._read_log()
        if not results_changed:
            return True  # the log alone: no new snapshot needed (it can be costly)
        self._read_journal()
        try:
            loaded = read_state(files, self.config.competition_type)
            snapshot = load_competition(self.config, loaded).snapshot()
        except (StateError, ValueError, OSError):
            if first:
                raise
            self.errors += 1  # caught mid-change; the next poll will see it whole
        else:
            self.tracker.set_snapshot(snapshot)
        return True

    def _emit(self, event: Event, at: float | None = None) -> None:
        self.tracker.handle(event, at)

    def _read_log(self) -> None:
        if self._log_offset is None:
            self._log_offset = _tail_offset(self.files.log, LOG_TAIL_BYTES)
        data, self._log_offset = _read_from(self.files.log, self._log_offset)
        now_wall, now = time.time(), self.tracker.clock()
        for raw in data.decode("utf-8", "replace").splitlines():
            match = _STAMPED.match(raw)
            if match is None:
                continue
            stamp, text = match.groups()
            try:
                wall = time.mktime(time.strptime(stamp, "%Y-%m-%d %H:%M:%S"))
            except ValueError:
                continue
            self._log_line(text, now - max(0.0, now_wall - wall))

    def _log_line(self, text: str, at: float) -> None:
        tracker = self.tracker
        if text.startswith("run started"):
            tracker.forget_games()
            self._emit(RunStateChanged(RunState.RUNNING))
        elif match := _STARTING.match(text):
            game_id, black, white = match.groups()
            self._emit(GameStarted(game_id, black, white, -1), at)
        elif match := _ENDED.match(text):
            tracker.game_ended(match.group(1))
        elif text.startswith(("stop requested", "halting competition")):
            self._emit(RunStateChanged(RunState.STOPPING, text))
        elif text.startswith("run finished: "):
            message = text.removeprefix("run finished: ")
            tracker.forget_games()
            self._emit(RunStateChanged(_final_state(message), message))
        elif (match := _STDERR.match(text)) and looks_like_warning(match.group(3)):
            game_id, player, line = match.groups()
            self._emit(EngineWarning(game_id, player, line), at)

    def _read_journal(self) -> None:
        first = self._journal_offset is None
        if self._journal_offset is None:
            self._journal_offset = _tail_offset(self.files.journal, JOURNAL_TAIL_BYTES)
        data, self._journal_offset = _read_from(self.files.journal, self._journal_offset)
        for raw in data.splitlines():
            try:
                entry = entry_from_json(json.loads(raw))
            except (ValueError, KeyError, TypeError):
                continue
            if isinstance(entry, ResultEntry):
                event = GameFinished(entry.result.game_id, entry.result)
            else:
                event = GameFinished(entry.game_id, None, entry.reason)
            self._emit(event)
            if not first and self.on_result is not None:
                self.on_result(event)


def plain_result_line(event: GameFinished) -> str:
    """The line the ringmaster prints for a finished game when stdout is not a terminal."""
    if event.result is not None:
        return f"game {event.game_id}: {event.result.describe()}"
    return f"game {event.game_id}: void ({event.void_reason or 'unknown failure'})"


async def _wait_for_quit(done: trio.CancelScope) -> None:
    """Ctrl-C (SIGINT) or ``q`` ends the watch (the run goes on)."""

    def on_key(key: bytes) -> None:
        if key in (b"q", b"Q", b"\x03"):
            done.cancel()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(watch_keys, on_key)
        try:
            receiver = trio.open_signal_receiver(signal.SIGINT)
        except (RuntimeError, ValueError):
            return
        with receiver as signals:
            async for _ in signals:
                done.cancel()
                return


async def _follow(
    follower: CompetitionFollower,
    draw: Callable[[], None],
    *,
    poll: float,
    running: Callable[[], bool],
) -> None:
    """Poll the files and draw until the run is over."""
    checked = trio.current_time()
    while True:
        await trio.sleep(poll)
        follower.poll()
        if trio.current_time() - checked >= LOCK_POLL_SECONDS:
            checked = trio.current_time()
            if not running():
                follower.poll()
                draw()
                return
        draw()


async def watch_competition(
    config: CompetitionConfig,
    *,
    console: Console | None = None,
    out: IO[str] | None = None,
    poll: float = POLL_SECONDS,
    keys: bool = True,
) -> int:
    """Show the competition until its run ends or the user leaves; the exit status.

    ``keys=False`` leaves SIGINT and the keyboard alone (for tests and embedding).
    """
    console = console or Console()
    out = out or sys.stdout
    files = CompetitionFiles.for_control_file(config.control_path)
    tracker = RunTracker(config.code, key_help=KEY_HELP_WATCH, watching=True)
    plain = not console.is_terminal or console.is_dumb_terminal

    def print_line(event: GameFinished) -> None:
        print(plain_result_line(event), file=out, flush=True)

    follower = CompetitionFollower(config, tracker, on_result=print_line if plain else None)
    follower.poll()
    running = is_running(files)
    if not running:
        if plain:
            view = tracker.view()
            total = "" if view.games_total is None else f"/{view.games_total}"
            print(f"{config.code}: not running; {view.games_done}{total} games", file=out)
        else:
            print_final(console, tracker)
        return 0

    def still_running() -> bool:
        return is_running(files)

    with trio.CancelScope() as scope:
        async with trio.open_nursery() as nursery:
            if keys:
                nursery.start_soon(_wait_for_quit, scope)
            if plain:
                view = tracker.view()
                print(f"watching {config.code}: {view.games_done} games so far", file=out)
                await _follow(follower, lambda: None, poll=poll, running=still_running)
            else:
                with open_live(console) as live:
                    dashboard = LiveDashboard(tracker, live)
                    dashboard.draw()
                    await _follow(follower, dashboard.draw, poll=poll, running=still_running)
            nursery.cancel_scope.cancel()
    if plain:
        view = tracker.view()
        print(f"{config.code}: {view.state.value} {view.message}".rstrip(), file=out)
    else:
        print_final(console, tracker)
    return 0
