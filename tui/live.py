"""The live display of a run: one trio task draws the dashboard from the arena's events.

:func:`show_run` draws the dashboard of a run it is handed (what to await, and
the bus the run emits on): ``rich.live.Live`` on the alternate screen with
auto refresh off.  :func:`follow_events` folds the events into a
:class:`tui.tracker.RunTracker` (in batches, a twentieth of a second apart)
and draws at most four frames a second, and at once when the run changes
state, so a Ctrl-X is acknowledged on screen within 50 ms of being read; a
resized terminal is redrawn at once (SIGWINCH).  This module knows the run
only by its events: ``arena run`` (:mod:`arena_cli.run`) assembles the run,
its files, and the dashboard or, when :func:`uses_dashboard` says no, plain
lines.

Keys: the ringmaster reads Ctrl-X (stop after the games in progress) from the
terminal and passes the other keys on as :class:`arena.events.KeyPressed`
events (``n`` or Tab, ``p``: the next or previous game's board, drawn at
once); Ctrl-C is SIGINT, which stops the run at once.  The arena writes
nothing on the terminal under the dashboard: its warnings are events, shown
with the engines' warnings.
"""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

import attrs
import trio
from rich.console import Console
from rich.live import Live
from rich.text import Text

from arena import fields_repr
from arena.errors import lone_exception
from arena.events import ChannelSubscriber, Event, EventBus, open_event_channel
from tui.dashboard import final_lines, render_dashboard
from tui.tracker import RunTracker

FRAME_SECONDS: Final = 0.25  # at most 4 frames a second
BATCH_SECONDS: Final = 0.05  # events are taken in batches at most this far apart
EVENT_BUFFER: Final = 16384  # room for a burst of move events between two wake-ups

T = TypeVar("T")


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

    __repr__ = fields_repr

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


def uses_dashboard(console: Console, *, quiet: bool = False) -> bool:
    return not quiet and console.is_terminal and not console.is_dumb_terminal


async def show_run(
    events: EventBus,
    run: Callable[[], Awaitable[T]],
    tracker: RunTracker,
    console: Console,
) -> T:
    """Await ``run`` with the dashboard drawn from what it emits on ``events``.

    Subscribes to ``events`` before the run starts; the screen is restored
    before an error of the run is raised, and the run's last frame stays on
    the terminal (:func:`print_final`) once it ended.
    """
    send, receive = open_event_channel(EVENT_BUFFER)
    events.subscribe(ChannelSubscriber(send), moves=True)
    outcome: list[T] = []
    failure: list[Exception] = []

    async def run_then_close() -> None:
        async with send:
            try:
                outcome.append(await run())
            except Exception as exc:  # reported after the screen is restored
                failure.append(exc)

    try:
        with open_live(console) as live:
            dashboard = LiveDashboard(tracker, live)
            dashboard.draw()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(redraw_on_resize, dashboard.draw)
                nursery.start_soon(run_then_close)
                await follow_events(receive, tracker, dashboard.draw)
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        raise lone_exception(group) from None
    if failure:
        raise failure[0]
    print_final(console, tracker)
    return outcome[0]
