"""A game sink for tests: records what a game reports."""

from __future__ import annotations

from collections.abc import Callable

from arena.run.sink import GameSink, LiveGame
from gtp.vertex import Colour, Move


class Recorded(GameSink):
    """Keeps every report; ``traffic``/``moves``: ask the game for those, and where
    traffic lines go besides ``self.traffic`` (a callable, such as a file's writer)."""

    def __init__(
        self,
        *,
        traffic: bool | Callable[[str], object] = False,
        moves: bool = False,
    ) -> None:
        self.wants_traffic = bool(traffic)
        self.wants_moves = moves
        self._traffic_to = traffic if callable(traffic) else None
        self.workers: list[str | None] = []
        self.stderr: list[tuple[str, str]] = []
        self.traffic: list[str] = []
        self.moves: list[tuple[Colour, Move, int]] = []

    def started(self, worker: str | None) -> None:
        self.workers.append(worker)

    def stderr_line(self, player: str, line: str) -> None:
        self.stderr.append((player, line))

    def traffic_line(self, line: str) -> None:
        self.traffic.append(line)
        if self._traffic_to is not None:
            self._traffic_to(line)

    def move_played(
        self, colour: Colour, move: Move, moves_played: int, game: LiveGame | None = None
    ) -> None:
        self.moves.append((colour, move, moves_played))
