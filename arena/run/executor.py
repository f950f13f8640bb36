"""Where games are played: the executor a ringmaster's slots hand their jobs to.

An executor gives each slot a :class:`Slot`: a job, the game's sink
(:class:`arena.run.sink.GameSink`, told when the game starts and where) and
the competition's ``crash_result`` in, a :class:`arena.results.GameRecord`
out, never raising for an engine fault.  It also runs the startup checks, and
reports its own events (the workers of a cluster) while a run lasts.  Both
executors have the game played by :func:`arena.run.match.play_game`:
:class:`LocalExecutor` here, with engines from an
:class:`arena.run.engines.EngineProvider` per slot (kept between games with
``reuse_engines``; pinned to the slot's own cores with ``affinity``);
:class:`arena.run.cluster.DaskExecutor` on a Dask cluster's workers.

Only two exceptions cross this boundary, both about the machines, never the
engines: :class:`GameLost` (the worker playing a game was lost: the game is
void and replayed, but a void of this kind never halts the run) and
:class:`ExecutorLost` (no more games can be played: the run stops, the
finished games are kept).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Final, Protocol, cast

import attrs
import trio

from arena import fields_eq, fields_hash, fields_repr
from arena.competitions.base import PlayerCheck
from arena.competitions.registry import load_reference
from arena.errors import RunError
from arena.events import Event
from arena.results import GameJob, GameRecord
from arena.run.affinity import SlotCores
from arena.run.engines import EngineProvider, GroupWatch, StderrRoute, check_player, open_provider
from arena.run.sink import GameSink
from gtp.errors import EngineStartError

# The game's modules (match, game, referee, the GTP client: ~8 ms of CPU to import) are
# loaded with the first game, not at the run's start: a run may play none (``-g 0``, a
# competition already complete).  A "module:name" string, as the registry's types.
PLAY_GAME: Final = "arena.run.match:play_game"


class PlayGame(Protocol):
    """What ``PLAY_GAME`` names (checked by mypy below)."""

    def __call__(
        self, job: GameJob, provider: EngineProvider, sink: GameSink, *, crash_result: str
    ) -> Awaitable[GameRecord]: ...


if TYPE_CHECKING:
    from arena.run.match import play_game as _play_game

    _NAMED: PlayGame = _play_game  # the string above names a PlayGame


class Slot(Protocol):
    """A slot's way to have games played (see module docstring)."""

    async def __call__(self, job: GameJob, sink: GameSink, crash_result: str) -> GameRecord:
        """Play ``job``; ``sink.started`` is called once, as the game starts."""
        ...


class GameLost(Exception):
    """The machine playing a game was lost mid-game; ``record`` is the game, void."""

    def __init__(self, record: GameRecord) -> None:
        super().__init__(record.void_reason)
        self.record = record


class ExecutorLost(RunError):
    """No more games can be played (the cluster's scheduler is gone); one line for the user."""


class Executor(Protocol):
    def slot(self, slot: int) -> contextlib.AbstractAsyncContextManager[Slot]:
        """A slot's way to play games, for as long as the context lasts."""
        ...

    async def check_players(self, checks: list[PlayerCheck]) -> list[tuple[str, EngineStartError]]:
        """Every startup check (at once); the failures, by player code."""
        ...

    async def emit_events(self, emit: Callable[[Event], None]) -> None:
        """Emit the executor's own events while the games are played (until cancelled)."""
        ...


@attrs.frozen
class LocalExecutor:
    """Plays games on this machine (see module docstring)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    stderr: StderrRoute = "log"
    reuse_engines: bool = False
    numbered_slots: bool = True  # GOMILL_SLOT in the engines' environment
    watch: GroupWatch | None = None
    # Slot number -> the CPUs its engines are pinned to (``affinity``); empty: not pinned.
    slot_cores: SlotCores = ()

    @contextlib.asynccontextmanager
    async def slot(self, slot: int) -> AsyncIterator[Slot]:
        async with open_provider(
            stderr=self.stderr,
            reuse=self.reuse_engines,
            slot=slot if self.numbered_slots else None,
            watch=self.watch,
            cores=self.slot_cores[slot] if self.slot_cores else None,
        ) as provider:

            async def play(job: GameJob, sink: GameSink, crash_result: str) -> GameRecord:
                play_game = cast(PlayGame, load_reference(PLAY_GAME))
                sink.started(None)
                return await play_game(job, provider, sink, crash_result=crash_result)

            yield play

    async def check_players(self, checks: list[PlayerCheck]) -> list[tuple[str, EngineStartError]]:
        errors: list[tuple[str, EngineStartError]] = []

        async def check(item: PlayerCheck) -> None:
            try:
                await check_player(
                    item.player,
                    item.settings,
                    stderr="discard",
                    watch=self.watch,
                    required=item.required_commands,
                )
            except EngineStartError as exc:
                errors.append((item.player.code, exc))

        async with trio.open_nursery() as nursery:
            for item in checks:
                nursery.start_soon(check, item)
        return errors

    async def emit_events(self, emit: Callable[[Event], None]) -> None:
        return None  # nothing to report about this machine
