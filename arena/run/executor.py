"""Where games are played: the executor a ringmaster's slots hand their jobs to.

An executor gives each slot a way to play one game
(:data:`PlayGame`: a job and its options in, a :class:`arena.results.GameRecord`
out; never raising for an engine fault) and runs the startup checks.
:class:`LocalExecutor` plays here, with engines from an
:class:`arena.run.engines.EngineProvider` per slot (kept between games with
``reuse_engines``).  Other executors (games on other machines) implement the
same protocol around :func:`arena.run.match.play_single_game`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Protocol

import attrs
import trio

from arena.competitions.base import PlayerCheck
from arena.results import GameJob, GameRecord
from arena.run.engines import EngineProvider, GroupWatch, StderrRoute, check_player
from arena.run.match import MatchOptions, play_game
from gtp.errors import EngineStartError

PlayGame = Callable[[GameJob, MatchOptions], Awaitable[GameRecord]]


class Executor(Protocol):
    def slot(self, slot: int) -> contextlib.AbstractAsyncContextManager[PlayGame]:
        """A slot's way to play games, for as long as the context lasts."""
        ...

    async def check_players(
        self, checks: list[PlayerCheck]
    ) -> list[tuple[str, EngineStartError]]:
        """Every startup check (at once); the failures, by player code."""
        ...


@attrs.frozen
class LocalExecutor:
    """Plays games on this machine (see module docstring)."""

    stderr: StderrRoute = "log"
    reuse_engines: bool = False
    numbered_slots: bool = True  # GOMILL_SLOT in the engines' environment
    watch: GroupWatch | None = None

    @contextlib.asynccontextmanager
    async def slot(self, slot: int) -> AsyncIterator[PlayGame]:
        async with trio.open_nursery() as engines:
            provider = EngineProvider(
                engines,
                stderr=self.stderr,
                reuse=self.reuse_engines,
                slot=slot if self.numbered_slots else None,
                watch=self.watch,
            )

            async def play(job: GameJob, options: MatchOptions) -> GameRecord:
                return await play_game(job, provider, options)

            try:
                yield play
            finally:
                with trio.CancelScope(shield=True):
                    await provider.close_all()

    async def check_players(
        self, checks: list[PlayerCheck]
    ) -> list[tuple[str, EngineStartError]]:
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
