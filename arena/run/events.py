"""Events the ringmaster emits while it runs, for the live display and other watchers.

Events are frozen values sent on a trio memory channel.  Sending never blocks
the arena: when a watcher falls behind and the channel's buffer is full, move
events are dropped (the next snapshot has the truth); the others are delivered
as long as the buffer has room.  :func:`open_event_channel` makes a suitable
channel pair.
"""

from __future__ import annotations

import enum
import re
from typing import Final

import attrs
import trio

from arena.competitions.snapshots import CompetitionSnapshot
from arena.results import GameResult
from gtp.vertex import Colour, Move

DEFAULT_EVENT_BUFFER: Final = 1024


class RunState(enum.Enum):
    CHECKING = "checking"  # startup checks
    RUNNING = "running"
    STOPPING = "stopping"  # no new games; waiting for the games in progress
    FINISHED = "finished"  # the competition or the run's --max-games is done
    STOPPED = "stopped"  # stopped on request (Ctrl-X, `arena stop`, Ctrl-C)
    HALTED = "halted"  # stopped by repeated void games or an error


@attrs.frozen
class RunStateChanged:
    state: RunState
    message: str = ""


@attrs.frozen
class GameStarted:
    game_id: str
    black: str
    white: str
    slot: int


@attrs.frozen
class MovePlayed:
    game_id: str
    colour: Colour
    move: Move
    moves_played: int


@attrs.frozen
class GameFinished:
    game_id: str
    result: GameResult | None  # None for a void game
    void_reason: str | None = None
    # The competition after recording this game; None when the ringmaster skipped it
    # because it would cost too much (see Ringmaster._event_snapshot).
    snapshot: CompetitionSnapshot | None = None


@attrs.frozen
class EngineWarning:
    """A line an engine wrote on stderr that reports a warning or an error."""

    game_id: str
    player: str
    line: str


_WARNING_WORDS: Final = re.compile(
    r"warn|error|exception|traceback|fatal|panic|abort|assert", re.IGNORECASE
)


def looks_like_warning(line: str) -> bool:
    """Whether an engine's stderr line reports a warning or an error (for the dashboard)."""
    return _WARNING_WORDS.search(line) is not None


Event = RunStateChanged | GameStarted | MovePlayed | GameFinished | EngineWarning


def open_event_channel(
    buffer: int = DEFAULT_EVENT_BUFFER,
) -> tuple[trio.MemorySendChannel[Event], trio.MemoryReceiveChannel[Event]]:
    return trio.open_memory_channel[Event](buffer)


@attrs.define
class EventSink:
    """Non-blocking sender: drops events when there is no room or no receiver."""

    channel: trio.MemorySendChannel[Event] | None = None
    dropped: int = 0

    def emit(self, event: Event) -> None:
        if self.channel is None:
            return
        try:
            self.channel.send_nowait(event)
        except trio.WouldBlock:
            self.dropped += 1
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.channel = None
