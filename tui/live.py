"""The live display of a run: one trio task draws the dashboard from the arena's events.

:func:`run_with_display` is what ``arena run`` calls.  It picks one of three
outputs:

* ``--quiet``: nothing but errors (the ringmaster's own quiet mode);
* stdout is not a terminal (a pipe, a file, a dumb terminal): one plain line
  per finished game, as the ringmaster prints them;
* otherwise the dashboard: ``rich.live.Live`` on the alternate screen with
  auto refresh off.  :func:`follow_events` folds the events into a
  :class:`tui.tracker.RunTracker` (in batches, a twentieth of a second
  apart) and draws at most four frames a second, and at once when the run
  changes state, so a Ctrl-X is acknowledged on screen within 50 ms of being
  read; a resized terminal is redrawn at once (SIGWINCH).

Keys: the ringmaster reads Ctrl-X (stop after the games in progress) from the
terminal; Ctrl-C is SIGINT, which stops the run at once.  While the dashboard
is up, what the arena writes on stderr is held back (and shown as warnings),
then written out when the screen is restored.
"""

from __future__ import annotations

import contextlib
import io
import signal
import sys
from collections.abc import Callable, Iterator
from typing import IO, Final

import attrs
import trio
from rich.console import Console
from rich.live import Live
from rich.text import Text

from arena.competitions.snapshots import CompetitionSnapshot
from arena.control.config import CompetitionConfig
from arena.errors import StateError
from arena.run.events import Event, open_event_channel
from arena.run.keys import stdin_is_foreground_terminal
from arena.run.ringmaster import RunOptions, RunSummary, run_competition
from arena.store.files import CompetitionFiles
from arena.store.journal import read_state
from arena.store.restore import load_competition
from tui.dashboard import final_lines, render_dashboard
from tui.tracker import KEY_HELP_NO_KEYS, KEY_HELP_RUN, RunTracker

FRAME_SECONDS: Final = 0.25  # at most 4 frames a second
BATCH_SECONDS: Final = 0.05  # events are taken in batches at most this far apart
EVENT_BUFFER: Final = 16384  # room for a burst of move events between two wake-ups


class _Discard(io.StringIO):
    """Where the ringmaster's plain lines go while the dashboard shows them instead."""

    def write(self, text: str) -> int:
        return len(text)


class _HeldLines(io.StringIO):
    """Stands in for stderr under the dashboard: keeps whole lines, shows them as warnings."""

    def __init__(self, on_line: Callable[[str], None]) -> None:
        super().__init__()
        self.lines: list[str] = []
        self._partial = ""
        self._on_line = on_line

    def write(self, text: str) -> int:
        data = self._partial + text
        *complete, self._partial = data.split("\n")
        for item in complete:
            self.lines.append(item)
            self._on_line(item)
        return len(text)

    def flush(self) -> None:
        pass

    def release(self, target: IO[str]) -> None:
        for item in self.lines:
            print(item, file=target)
        if self._partial:
            print(self._partial, file=target)
        target.flush()


@contextlib.contextmanager
def _stderr_held(on_line: Callable[[str], None]) -> Iterator[None]:
    saved = sys.stderr
    held = _HeldLines(on_line)
    sys.stderr = held
    try:
        yield
    finally:
        sys.stderr = saved
        held.release(saved)


def initial_snapshot(config: CompetitionConfig) -> CompetitionSnapshot | None:
    """The competition as on disk before the run (None if its state cannot be read)."""
    files = CompetitionFiles.for_control_file(config.control_path)
    try:
        return load_competition(config, read_state(files, config.competition_type)).snapshot()
    except (StateError, ValueError, OSError):
        return None  # the run itself reports the problem


async def follow_events(
    receive: trio.MemoryReceiveChannel[Event],
    tracker: RunTracker,
    draw: Callable[[], None],
    *,
    period: float = FRAME_SECONDS,
    batch: float = BATCH_SECONDS,
) -> None:
    """Fold events into ``tracker`` and ``draw``: every ``period`` s, at once on a state change.

    After each wake-up the task takes every event waiting and then rests for
    ``batch`` seconds, so a flood of moves costs a few wake-ups a second, not
    one per move, and a change of state is on screen within ``batch``
    seconds.  Returns once the channel is closed (after a last frame).
    """
    next_frame = trio.current_time()
    closed = False
    async with receive:
        while not closed:
            urgent = False
            with trio.move_on_at(next_frame):
                try:
                    urgent = tracker.handle(await receive.receive())
                except trio.EndOfChannel:
                    closed = True
            while not closed:
                try:
                    event = receive.receive_nowait()
                except trio.WouldBlock:
                    break
                except trio.EndOfChannel:
                    closed = True
                    break
                urgent = tracker.handle(event) or urgent
            now = trio.current_time()
            if urgent or closed or now >= next_frame:
                draw()
                next_frame = now + period
            if not closed:
                await trio.sleep(min(batch, max(0.0, next_frame - now)))


async def redraw_on_resize(draw: Callable[[], None]) -> None:
    """Draw again at once when the terminal is resized (main thread only; else a no-op)."""
    try:
        receiver = trio.open_signal_receiver(signal.SIGWINCH)
    except (RuntimeError, ValueError, AttributeError):
        return
    with receiver as signals:
        async for _ in signals:
            draw()


@attrs.define
class LiveDashboard:
    """Draws the tracker's view on a rich ``Live`` (the console's size is read per frame)."""

    tracker: RunTracker
    live: Live
    frames: int = 0

    def draw(self) -> None:
        self.live.update(render_dashboard(self.tracker.view()), refresh=True)
        self.frames += 1


def open_live(console: Console) -> Live:
    return Live(
        console=console,
        screen=True,
        auto_refresh=False,
        redirect_stdout=False,
        redirect_stderr=False,
    )


def print_final(console: Console, tracker: RunTracker) -> None:
    """What stays on the terminal once the alternate screen is gone."""
    lines = final_lines(tracker.view(), console.width, max(8, console.height))
    console.print(Text("\n", end="").join(lines), crop=True, overflow="crop")


def _lone_exception(error: BaseException) -> BaseException:
    """The single exception inside nested one-member exception groups, else the group."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def uses_dashboard(options: RunOptions, console: Console) -> bool:
    return not options.quiet and console.is_terminal and not console.is_dumb_terminal


async def run_with_display(
    config: CompetitionConfig, options: RunOptions, *, console: Console | None = None
) -> RunSummary:
    """Run the competition with the dashboard, plain lines, or quietly (module docstring)."""
    console = console or Console()
    if not uses_dashboard(options, console):
        return await run_competition(config, options)
    keys = options.keyboard and stdin_is_foreground_terminal()
    tracker = RunTracker(
        config.code,
        max_games=options.max_games,
        key_help=KEY_HELP_RUN if keys else KEY_HELP_NO_KEYS,
    )
    tracker.set_snapshot(initial_snapshot(config))
    send, receive = open_event_channel(EVENT_BUFFER)
    outcome: list[RunSummary] = []
    failure: list[Exception] = []

    async def run_then_close() -> None:
        async with send:
            try:
                outcome.append(await run_competition(config, options, events=send, out=_Discard()))
            except Exception as exc:  # reported after the screen is restored
                failure.append(exc)

    try:
        with _stderr_held(tracker.add_warning), open_live(console) as live:
            dashboard = LiveDashboard(tracker, live)
            dashboard.draw()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(redraw_on_resize, dashboard.draw)
                nursery.start_soon(run_then_close)
                await follow_events(receive, tracker, dashboard.draw)
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        raise _lone_exception(group) from None
    if failure:
        raise failure[0]
    print_final(console, tracker)
    return outcome[0]
