"""An executor for whole runs without engines: games start, play moves and end when told.

With it a real ringmaster (its slots, its record writer, its files) runs a
competition while the test decides when each game ends, and waits for what
it needs to see (a game started, a game over) on a condition, never a sleep.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable

import attrs
import trio

from arena.competitions.base import PlayerCheck
from arena.events import Event
from arena.results import EndReason, GameJob, GameRecord, GameResult
from arena.run.executor import Slot
from arena.run.sink import GameSink
from gtp.errors import EngineStartError
from gtp.vertex import Colour, Move


@attrs.define
class GatedExecutor:
    """Each game starts at once, plays ``moves`` moves ``move_seconds`` apart, then waits.

    A waiting game ends (black wins by resignation) once :meth:`release`\\ d,
    or at once after :meth:`release_all`.
    """

    moves: int = 0
    move_seconds: float = 0.0
    started: list[str] = attrs.Factory(list)  # game ids, in the order they started
    slot_of: dict[str, int] = attrs.Factory(dict)
    moves_played: dict[str, int] = attrs.Factory(dict)
    waiting: set[str] = attrs.Factory(set)  # played their moves, waiting to end
    over: set[str] = attrs.Factory(set)  # play() has returned their record
    _released: set[str] = attrs.Factory(set)
    _release_all: bool = False
    _changed: trio.Event = attrs.Factory(trio.Event)

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    def release(self, *game_ids: str) -> None:
        self._released.update(game_ids)
        self._notify()

    def release_all(self) -> None:
        self._release_all = True
        self._notify()

    async def wait_until(self, condition: Callable[[], bool]) -> None:
        with trio.fail_after(60):
            while not condition():
                await self._changed.wait()

    @contextlib.asynccontextmanager
    async def slot(self, slot: int) -> AsyncIterator[Slot]:
        async def play(job: GameJob, sink: GameSink, crash_result: str) -> GameRecord:
            game_id = job.game_id
            sink.started(None)
            self.started.append(game_id)
            self.slot_of[game_id] = slot
            self._notify()
            for number in range(1, self.moves + 1):
                await trio.sleep(self.move_seconds)
                colour = Colour.BLACK if number % 2 else Colour.WHITE
                if sink.wants_moves:
                    sink.move_played(colour, Move((number % 9, 2)), number)
                self.moves_played[game_id] = number
                self._notify()
            self.waiting.add(game_id)
            self._notify()
            while not (self._release_all or game_id in self._released):
                await self._changed.wait()
            self.waiting.discard(game_id)
            self.over.add(game_id)
            self._notify()
            result = GameResult(
                game_id, job.black.code, job.white.code, Colour.BLACK, EndReason.RESIGN
            )
            return GameRecord(job, result)

        yield play

    async def check_players(self, checks: list[PlayerCheck]) -> list[tuple[str, EngineStartError]]:
        return []

    async def emit_events(self, emit: Callable[[Event], None]) -> None:
        return None
