"""A legal random Go player over GTP, the test suite's quick and predictable opponent.

Run it with ``python -m engines.random [--seed N] [--name NAME]``.  Its game
(simple ko, no suicide) is the shared :class:`engines.gamekeeper.GameKeeper`,
which answers the board commands (``boardsize`` ... ``undo``, the handicap
commands, ``loadsgf``, ``printsgf``, ``showboard``); this module adds
``genmove``, ``final_score`` (area scoring, all stones alive), ``time_settings``
and ``time_left``.  ``genmove``
picks uniformly among the legal moves that do not fill one of the mover's own
eyes and passes when none is left; a seed makes the whole game reproducible.
With no ``--seed``, an arena's game id (``GOMILL_GAME_ID``) is the seed: each
game of a competition is its own, and a replayed game (same id) is the same
game; outside an arena the seed is random.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from typing import Final

import attrs

from engines.gamekeeper import GameKeeper, expect
from gtp.arguments import parse_int
from gtp.board import Board, format_score
from gtp.server import GtpServer, run_stdio
from gtp.vertex import Colour, Point, format_vertex

ENGINE_NAME: Final = "random"
ENGINE_VERSION: Final = "0.1"
DEFAULT_SIZE: Final = 19
DEFAULT_KOMI: Final = 7.5


@attrs.define
class RandomEngine:
    """The random player: the shared game keeper plus genmove, scoring and time commands."""

    rng: random.Random
    game: GameKeeper = attrs.Factory(lambda: GameKeeper(DEFAULT_SIZE, DEFAULT_KOMI))
    _neighbours: dict[Point, tuple[Point, ...]] = attrs.field(init=False, factory=dict)
    _diagonals: dict[Point, tuple[Point, ...]] = attrs.field(init=False, factory=dict)
    _adjacency_size: int = attrs.field(init=False, default=0)

    def __attrs_post_init__(self) -> None:
        self.game.on_new_game = self._new_game
        self._new_game()

    @property
    def board(self) -> Board:
        return self.game.board

    @property
    def size(self) -> int:
        return self.game.size

    def register(self, server: GtpServer) -> None:
        self.game.register(server)
        for name, handler in (
            ("genmove", self.handle_genmove),
            ("final_score", self.handle_final_score),
            ("time_settings", self.handle_time_settings),
            ("time_left", self.handle_time_left),
        ):
            server.register(name, handler)

    # ---------------------------------------------------------------- moves

    def choose_move(self, colour: Colour) -> Point | None:
        """A random legal point that does not fill an own eye; None to pass."""
        board = self.board
        candidates = board.empty_points()
        self.rng.shuffle(candidates)
        for point in candidates:
            if not self.fills_own_eye(colour, point) and board.is_legal(colour, point):
                return point
        return None

    def fills_own_eye(self, colour: Colour, point: Point) -> bool:
        """True for an empty point surrounded by ``colour`` that is not a false eye.

        A false eye is one with an opponent stone on two diagonal points (one
        on the edge or in a corner, where some diagonals are off the board).
        """
        get = self.board.get
        if any(get(n) is not colour for n in self._neighbours[point]):
            return False
        diagonals = self._diagonals[point]
        opponent = colour.opponent
        hostile = sum(1 for d in diagonals if get(d) is opponent)
        return hostile == 0 if len(diagonals) < 4 else hostile < 2

    # -------------------------------------------------------------- handlers

    def handle_genmove(self, args: tuple[str, ...]) -> str:
        expect(args, 1, "a colour")
        colour = Colour.parse(args[0])
        point = self.choose_move(colour)
        self.board.play(colour, point)
        return format_vertex(point, self.size)

    def handle_final_score(self, args: tuple[str, ...]) -> str:
        return format_score(self.board.area_score(self.game.komi))

    def handle_time_settings(self, args: tuple[str, ...]) -> str:
        expect(args, 3, "three integers")
        for word in args:
            parse_int(word)
        return ""

    def handle_time_left(self, args: tuple[str, ...]) -> str:
        expect(args, 3, "a colour and two integers")
        Colour.parse(args[0])
        parse_int(args[1])
        parse_int(args[2])
        return ""

    # --------------------------------------------------------------- helpers

    def _new_game(self) -> None:
        if self.size != self._adjacency_size:
            self._neighbours, self._diagonals = _adjacency(self.size)
            self._adjacency_size = self.size


def _adjacency(size: int) -> tuple[dict[Point, tuple[Point, ...]], dict[Point, tuple[Point, ...]]]:
    def on_board(points: list[Point]) -> tuple[Point, ...]:
        return tuple((r, c) for r, c in points if 0 <= r < size and 0 <= c < size)

    neighbours: dict[Point, tuple[Point, ...]] = {}
    diagonals: dict[Point, tuple[Point, ...]] = {}
    for row in range(size):
        for col in range(size):
            neighbours[row, col] = on_board(
                [(row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)]
            )
            diagonals[row, col] = on_board(
                [(row - 1, col - 1), (row - 1, col + 1), (row + 1, col - 1), (row + 1, col + 1)]
            )
    return neighbours, diagonals


def build_server(seed: int | str | None = None, name: str = ENGINE_NAME) -> GtpServer:
    """A GTP server playing random legal moves (seeded for reproducible games)."""
    server = GtpServer(name, ENGINE_VERSION)
    RandomEngine(random.Random(seed)).register(server)
    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engines.random",
        description="A GTP engine that plays random legal moves (never filling its own eyes).",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed for reproducible games (default: the arena's game id, GOMILL_GAME_ID)",
    )
    parser.add_argument("--name", default=ENGINE_NAME, help="the name it reports over GTP")
    options = parser.parse_args(argv)
    if not options.name or any(c.isspace() for c in options.name):
        parser.error("--name must be a non-empty word without spaces")
    seed: int | str | None = options.seed
    if seed is None:
        seed = os.environ.get("GOMILL_GAME_ID")  # a str seed is the same in every process
    return run_stdio(build_server(seed, options.name))


if __name__ == "__main__":
    sys.exit(main())
