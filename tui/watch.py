"""``arena watch X.ctl``: a read-only dashboard of a run another process owns.

The watcher never takes the run lock for long and never writes.  A few times
a second it looks at the competition's files and feeds what is new to the
same :class:`tui.tracker.RunTracker` the live display uses:

* ``X.events`` (JSON lines, :mod:`arena.events`): the run's own events,
  decoded as they were emitted: runs starting and ending, games starting and
  finishing, their move numbers, clocks and boards (a line a second at most),
  engine warnings.
  When attaching, the last few MB are read, so the recent results and the
  games in progress are there at once;
* ``X.status`` + ``X.journal`` (through :func:`arena.store.journal.read_state`):
  the competition's snapshot, rebuilt when either file changes.

It shows only what these files record.  The competition is rebuilt from the
control file plus the recorded state, and before a run has recorded any (no
``X.status`` yet: its first result is not durable) a tuner's random draws are
not known: the run drew its seed when it started and keeps it in memory
until then, so a fresh competition here would show samples the run never
plays.  Those parts are left out (:func:`recorded_only`) until the state is
on disk.

Nothing depends on the wording of ``X.log``.  It exits when the run ends (the
lock is free: :func:`arena.store.files.is_running`) or on Ctrl-C or ``q``;
a run that is not going on is shown as stopped, or finished when the
competition is complete, whatever the last events said (a killed run says
nothing).
When stdout is not a terminal it prints one plain line per newly finished
game instead of the dashboard, and a summary at the end; a competition that
is not running is shown by its final picture (in plain text without a
terminal), with the games per second of its last run.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Final

import attrs
import trio
from rich.console import Console

from arena import fields_repr
from arena.competitions.snapshots import CompetitionSnapshot
from arena.competitions.tuner_snapshots import CeTunerSnapshot
from arena.control.config import CompetitionConfig
from arena.errors import StateError
from arena.events import (
    GameFinished,
    KeyPressed,
    RunState,
    RunStateChanged,
    event_from_json,
)
from arena.keys import watch_keys
from arena.output.wording import finished_line
from arena.store.files import CompetitionFiles, is_running
from arena.store.journal import read_state
from arena.store.restore import load_competition
from tui.live import LiveDashboard, open_live, print_final
from tui.tracker import KEY_HELP_WATCH, RunTracker

POLL_SECONDS: Final = 0.25  # files are looked at (and a frame drawn) four times a second
LOCK_POLL_SECONDS: Final = 1.0  # is the run still going?
EVENTS_TAIL_BYTES: Final = 4 * 1024 * 1024  # how much of the old events to read when attaching
FINAL_PICTURE_LINES: Final = 200  # room for the final picture when printed to a pipe or file
_NEW_RUN_OR_ENDED: Final = frozenset(
    {RunState.CHECKING, RunState.RUNNING, RunState.FINISHED, RunState.STOPPED, RunState.HALTED}
)


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


def recorded_only(snapshot: CompetitionSnapshot, state_recorded: bool) -> CompetitionSnapshot:
    """The snapshot without what the competition's files do not record (module docstring).

    Only the cross-entropy tuner shows random draws (its generation's
    samples, from the seed in the state); the Monte Carlo tuner's candidates
    and SPSA's parameters follow from the control file, and neither shows
    the seed's tie-breaks or perturbation signs.
    """
    if state_recorded or not isinstance(snapshot, CeTunerSnapshot):
        return snapshot
    return attrs.evolve(snapshot, candidates=())


def _signature(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return (-1, -1)
    return (stat.st_size, stat.st_mtime_ns)


@attrs.define
class CompetitionFollower:
    """Reads what is new in a competition's files and feeds it to a tracker."""

    __repr__ = fields_repr

    config: CompetitionConfig
    tracker: RunTracker
    files: CompetitionFiles = attrs.field(init=False)
    on_result: Callable[[GameFinished], None] | None = None  # for plain output
    _events_offset: int | None = None
    _signatures: tuple[tuple[int, int], ...] = ()
    errors: int = 0

    def __attrs_post_init__(self) -> None:
        self.files = CompetitionFiles.for_control_file(self.config.control_path)

    def poll(self) -> bool:
        """Read what changed since the last call; True when anything did."""
        files = self.files
        signatures = (_signature(files.status), _signature(files.journal), _signature(files.events))
        if signatures == self._signatures:
            return False
        first = not self._signatures
        results_changed = first or signatures[:2] != self._signatures[:2]
        self._signatures = signatures
        self._read_events(first)
        if not results_changed:
            return True  # events alone: no new snapshot needed (it can be costly)
        try:
            loaded = read_state(files, self.config.competition_type)
            snapshot = recorded_only(
                load_competition(self.config, loaded).snapshot(),
                state_recorded=loaded.competition is not None,
            )
        except (StateError, ValueError, OSError):
            if first:
                raise
            self.errors += 1  # caught mid-change; the next poll will see it whole
        else:
            self.tracker.set_snapshot(snapshot)
        return True

    def _read_events(self, first: bool) -> None:
        if self._events_offset is None:
            self._events_offset = _tail_offset(self.files.events, EVENTS_TAIL_BYTES)
        data, self._events_offset = _read_from(self.files.events, self._events_offset)
        now_wall, now = time.time(), self.tracker.clock()
        tracker = self.tracker
        for raw in data.splitlines():
            try:
                fields = json.loads(raw)
                event = event_from_json(fields)
                wall = float(fields.get("time", now_wall))
            except (ValueError, TypeError, AttributeError):
                continue
            if isinstance(event, RunStateChanged) and event.state in _NEW_RUN_OR_ENDED:
                tracker.forget_games()  # games a killed run left "in progress" are gone
            tracker.handle(event, now - max(0.0, now_wall - wall))
            if isinstance(event, GameFinished) and not first and self.on_result is not None:
                self.on_result(event)


def _plain_console(out: IO[str], width: int) -> Console:
    """The final picture as plain text (a pipe or a file), tall enough to hold all of it."""
    return Console(
        file=out, width=width, height=FINAL_PICTURE_LINES, color_system=None, force_terminal=False
    )


async def _wait_for_quit(done: trio.CancelScope, tracker: RunTracker | None = None) -> None:
    """Ctrl-C (SIGINT) or ``q`` ends the watch (the run goes on); other keys go to ``tracker``.

    (``n``/Tab and ``p`` step through the games' boards, drawn at the next poll.)
    """

    def on_key(key: bytes) -> None:
        if key in (b"q", b"Q", b"\x03"):
            done.cancel()
        elif tracker is not None:
            tracker.handle(KeyPressed(key))

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
                follower.tracker.no_run()
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
    plain = not console.is_terminal or console.is_dumb_terminal
    tracker = RunTracker(
        config.code, key_help=KEY_HELP_WATCH, watching=True, board_keys=keys and not plain
    )

    def print_line(event: GameFinished) -> None:
        print(finished_line(event), file=out, flush=True)

    follower = CompetitionFollower(config, tracker, on_result=print_line if plain else None)
    follower.poll()
    running = is_running(files)
    if not running:
        tracker.no_run()
        print_final(_plain_console(out, console.width) if plain else console, tracker)
        return 0

    def still_running() -> bool:
        return is_running(files)

    with trio.CancelScope() as scope:
        async with trio.open_nursery() as nursery:
            if keys:
                nursery.start_soon(_wait_for_quit, scope, tracker)
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
