"""A legal random Go player over GTP, the test suite's quick and predictable opponent.

Run it with ``python -m engines.random [--seed N] [--name NAME]``.  It keeps a
:class:`gtp.board.Board` (simple ko, no suicide) and answers the required
commands plus ``undo``, the handicap commands, ``final_score`` (area scoring, all
stones alive), ``showboard``, ``time_settings`` and ``time_left``.  ``genmove``
picks uniformly among the legal moves that do not fill one of the mover's own
eyes and passes when none is left; a seed makes the whole game reproducible.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Final

import attrs

from gtp.arguments import parse_float, parse_int
from gtp.board import Board, IllegalMove, fixed_handicap_points, format_score
from gtp.server import GtpFailure, GtpServer, run_stdio
from gtp.vertex import (
    MAX_BOARD_SIZE,
    MIN_BOARD_SIZE,
    Colour,
    Point,
    format_vertex,
    parse_colour_and_vertex,
    parse_vertex,
)

ENGINE_NAME: Final = "random"
ENGINE_VERSION: Final = "0.1"
DEFAULT_SIZE: Final = 19
DEFAULT_KOMI: Final = 7.5

def _expect(args: tuple[str, ...], count: int, what: str) -> None:
    if len(args) != count:
        raise GtpFailure(f"syntax error: expected {what}")


@attrs.define
class RandomEngine:
    """The game state and the GTP handlers of the random player."""

    rng: random.Random
    size: int = DEFAULT_SIZE
    komi: float = DEFAULT_KOMI
    board: Board = attrs.field(init=False)
    _neighbours: dict[Point, tuple[Point, ...]] = attrs.field(init=False, factory=dict)
    _diagonals: dict[Point, tuple[Point, ...]] = attrs.field(init=False, factory=dict)

    def __attrs_post_init__(self) -> None:
        self._new_board(self.size)

    def register(self, server: GtpServer) -> None:
        for name, handler in (
            ("boardsize", self.handle_boardsize),
            ("clear_board", self.handle_clear_board),
            ("komi", self.handle_komi),
            ("play", self.handle_play),
            ("genmove", self.handle_genmove),
            ("undo", self.handle_undo),
            ("fixed_handicap", self.handle_fixed_handicap),
            ("place_free_handicap", self.handle_place_free_handicap),
            ("set_free_handicap", self.handle_set_free_handicap),
            ("final_score", self.handle_final_score),
            ("showboard", self.handle_showboard),
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

    def handle_boardsize(self, args: tuple[str, ...]) -> str:
        _expect(args, 1, "one integer")
        size = parse_int(args[0])
        if not MIN_BOARD_SIZE <= size <= MAX_BOARD_SIZE:
            raise GtpFailure("unacceptable size")
        self._new_board(size)
        return ""

    def handle_clear_board(self, args: tuple[str, ...]) -> str:
        self._new_board(self.size)
        return ""

    def handle_komi(self, args: tuple[str, ...]) -> str:
        _expect(args, 1, "one float")
        self.komi = parse_float(args[0])
        return ""

    def handle_play(self, args: tuple[str, ...]) -> str:
        colour, point = parse_colour_and_vertex(args, self.size)
        try:
            self.board.play(colour, point)
        except IllegalMove:
            raise GtpFailure("illegal move") from None
        return ""

    def handle_genmove(self, args: tuple[str, ...]) -> str:
        _expect(args, 1, "a colour")
        colour = Colour.parse(args[0])
        point = self.choose_move(colour)
        self.board.play(colour, point)
        return format_vertex(point, self.size)

    def handle_undo(self, args: tuple[str, ...]) -> str:
        try:
            self.board.undo()
        except ValueError:
            raise GtpFailure("cannot undo") from None
        return ""

    def handle_fixed_handicap(self, args: tuple[str, ...]) -> str:
        _expect(args, 1, "one integer")
        stones = parse_int(args[0])
        self._require_empty_board()
        try:
            points = fixed_handicap_points(self.size, stones)
        except ValueError:
            raise GtpFailure("invalid number of stones") from None
        self.board.place_handicap(points)
        return " ".join(format_vertex(point, self.size) for point in points)

    def handle_place_free_handicap(self, args: tuple[str, ...]) -> str:
        _expect(args, 1, "one integer")
        stones = parse_int(args[0])
        if not 2 <= stones < self.size * self.size:
            raise GtpFailure("invalid number of stones")
        self._require_empty_board()
        try:
            points = fixed_handicap_points(self.size, stones)
        except ValueError:
            points = self.rng.sample(self.board.empty_points(), stones)
        self.board.place_handicap(points)
        return " ".join(format_vertex(point, self.size) for point in points)

    def handle_set_free_handicap(self, args: tuple[str, ...]) -> str:
        if not 2 <= len(args) < self.size * self.size:
            raise GtpFailure("invalid number of stones")
        points: list[Point] = []
        for word in args:
            point = parse_vertex(word, self.size)
            if point is None:
                raise GtpFailure("pass is not a handicap stone")
            if point in points:
                raise GtpFailure(f"repeated vertex: {word}")
            points.append(point)
        self._require_empty_board()
        self.board.place_handicap(points)
        return ""

    def handle_final_score(self, args: tuple[str, ...]) -> str:
        return format_score(self.board.area_score(self.komi))

    def handle_showboard(self, args: tuple[str, ...]) -> str:
        return "\n" + self.board.ascii()

    def handle_time_settings(self, args: tuple[str, ...]) -> str:
        _expect(args, 3, "three integers")
        for word in args:
            parse_int(word)
        return ""

    def handle_time_left(self, args: tuple[str, ...]) -> str:
        _expect(args, 3, "a colour and two integers")
        Colour.parse(args[0])
        parse_int(args[1])
        parse_int(args[2])
        return ""

    # --------------------------------------------------------------- helpers

    def _require_empty_board(self) -> None:
        if not self.board.is_empty() or self.board.moves_played:
            raise GtpFailure("board not empty")

    def _new_board(self, size: int) -> None:
        if size != self.size or not self._neighbours:
            self._neighbours, self._diagonals = _adjacency(size)
        self.size = size
        self.board = Board(size)


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


def build_server(seed: int | None = None, name: str = ENGINE_NAME) -> GtpServer:
    """A GTP server playing random legal moves (seeded for reproducible games)."""
    server = GtpServer(name, ENGINE_VERSION)
    RandomEngine(random.Random(seed)).register(server)
    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engines.random",
        description="A GTP engine that plays random legal moves (never filling its own eyes).",
    )
    parser.add_argument("--seed", type=int, default=None, help="seed for reproducible games")
    parser.add_argument("--name", default=ENGINE_NAME, help="the name it reports over GTP")
    options = parser.parse_args(argv)
    if not options.name or any(c.isspace() for c in options.name):
        parser.error("--name must be a non-empty word without spaces")
    return run_stdio(build_server(options.seed, options.name))


if __name__ == "__main__":
    sys.exit(main())
