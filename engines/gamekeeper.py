"""The game an engine keeps over GTP: board size, komi, setup stones and moves, and their commands.

Shared by the engines we ship (:mod:`engines.random`, :mod:`engines.mcts`), so
that both answer ``boardsize``, ``clear_board``, ``komi``, ``play``, ``undo``,
``fixed_handicap``, ``place_free_handicap``, ``set_free_handicap``,
``loadsgf``, ``printsgf`` and ``showboard`` the same way, with the failure
texts of the GTP specification that controllers act on (``unacceptable
size``, ``illegal move``, ``cannot undo``, ``board not empty``, ``invalid
number of stones``, ``bad vertex list``) and ``cannot load file`` for
``loadsgf``; malformed arguments are ``syntax error: ...`` (or the vertex
parser's own words).  A failing command changes nothing.

The position is a :class:`gtp.board.Board` (simple ko, no suicide by
default) plus the setup stones it started from: handicap stones, or a game
record's ``AB``/``AW``.  ``loadsgf FILE [N | VERTEX]`` replays a record's main
line up to (not including) move ``N`` or the first move at ``VERTEX``, and
answers the colour to play; the moves it replays can be undone.
``printsgf [FILE]`` writes the game so far (setup, komi, handicap and moves)
as an SGF record, to the file or as the answer.

An engine reads :attr:`GameKeeper.board`, :attr:`~GameKeeper.komi`, the setup
stones, :attr:`~GameKeeper.handicap` and :attr:`~GameKeeper.side_to_move`, and
learns of a new game (``boardsize``, ``clear_board``, ``loadsgf``) through
``on_new_game``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Final

import attrs
from sgfmill import sgf

from gtp.arguments import parse_float, parse_int
from gtp.board import Board, IllegalMove, KoRule
from gtp.errors import VertexError
from gtp.handicap import fixed_handicap_points, max_fixed_handicap
from gtp.server import GtpFailure, GtpServer
from gtp.vertex import (
    MAX_BOARD_SIZE,
    MIN_BOARD_SIZE,
    Colour,
    Point,
    format_vertex,
    parse_colour_and_vertex,
    parse_stone_list,
    parse_vertex,
)

COMMANDS: Final = (
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "undo",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "loadsgf",
    "printsgf",
    "showboard",
)


def expect(args: tuple[str, ...], count: int, what: str) -> None:
    """A syntax error unless there are exactly ``count`` arguments."""
    if len(args) != count:
        raise GtpFailure(f"syntax error: expected {what}")


@attrs.frozen
class _Game:
    """Everything a new game replaces at once (so a failed loadsgf changes nothing)."""

    board: Board
    komi: float
    setup_black: tuple[Point, ...] = ()
    setup_white: tuple[Point, ...] = ()
    handicap: int = 0
    first_to_move: Colour | None = None  # told by a game record; else inferred


@attrs.define
class GameKeeper:
    """One engine's game and the GTP commands that set it up and change it."""

    size: int = 19
    komi: float = 7.5
    ko_rule: KoRule = KoRule.SIMPLE
    allow_suicide: bool = False
    on_new_game: Callable[[], None] | None = None
    board: Board = attrs.field(init=False)
    setup_black: tuple[Point, ...] = attrs.field(init=False, default=())
    setup_white: tuple[Point, ...] = attrs.field(init=False, default=())
    handicap: int = attrs.field(init=False, default=0)
    _first_to_move: Colour | None = attrs.field(init=False, default=None)

    def __attrs_post_init__(self) -> None:
        self.board = self._empty_board(self.size)

    def register(self, server: GtpServer) -> None:
        """Register every command of :data:`COMMANDS` on ``server``."""
        handlers = {
            "boardsize": self.boardsize,
            "clear_board": self.clear_board,
            "komi": self.set_komi,
            "play": self.play,
            "undo": self.undo,
            "fixed_handicap": self.fixed_handicap,
            "place_free_handicap": self.place_free_handicap,
            "set_free_handicap": self.set_free_handicap,
            "loadsgf": self.loadsgf,
            "printsgf": self.printsgf,
            "showboard": self.showboard,
        }
        for name in COMMANDS:
            server.register(name, handlers[name])

    # ------------------------------------------------------------------ reading

    @property
    def side_to_move(self) -> Colour:
        """Who plays next: after the last move its opponent; else as set up."""
        moves = self.board.moves
        if moves:
            return moves[-1][0].opponent
        if self._first_to_move is not None:
            return self._first_to_move
        return Colour.WHITE if self.handicap else Colour.BLACK

    # ---------------------------------------------------------------- new games

    def _empty_board(self, size: int) -> Board:
        return Board(size, ko_rule=self.ko_rule, allow_suicide=self.allow_suicide)

    def _start(self, game: _Game) -> None:
        self.board = game.board
        self.size = game.board.size
        self.komi = game.komi
        self.setup_black = game.setup_black
        self.setup_white = game.setup_white
        self.handicap = game.handicap
        self._first_to_move = game.first_to_move
        if self.on_new_game is not None:
            self.on_new_game()

    def new_game(self, size: int | None = None) -> None:
        """An empty board (of ``size``, or the same size); komi stays."""
        self._start(_Game(self._empty_board(self.size if size is None else size), self.komi))

    def boardsize(self, args: tuple[str, ...]) -> str:
        expect(args, 1, "one integer")
        size = parse_int(args[0])
        if not MIN_BOARD_SIZE <= size <= MAX_BOARD_SIZE:
            raise GtpFailure("unacceptable size")
        self.new_game(size)
        return ""

    def clear_board(self, args: tuple[str, ...]) -> str:
        self.new_game()
        return ""

    def set_komi(self, args: tuple[str, ...]) -> str:
        expect(args, 1, "one float")
        self.komi = parse_float(args[0])
        return ""

    # ------------------------------------------------------------------ playing

    def play(self, args: tuple[str, ...]) -> str:
        colour, point = parse_colour_and_vertex(args, self.size)
        try:
            self.board.play(colour, point)
        except IllegalMove:
            raise GtpFailure("illegal move") from None
        return ""

    def undo(self, args: tuple[str, ...]) -> str:
        try:
            self.board.undo()
        except ValueError:
            raise GtpFailure("cannot undo") from None
        return ""

    # ----------------------------------------------------------------- handicap

    def _require_empty_board(self) -> None:
        if not self.board.is_empty() or self.board.moves_played:
            raise GtpFailure("board not empty")

    def _handicap_count(self, args: tuple[str, ...]) -> int:
        expect(args, 1, "one integer")
        count = parse_int(args[0])
        self._require_empty_board()
        if not 2 <= count < self.size * self.size:
            raise GtpFailure("invalid number of stones")
        return count

    def _place_handicap(self, points: list[Point]) -> None:
        self.board.place_handicap(points)
        self.setup_black = tuple(points)
        self.setup_white = ()
        self.handicap = len(points)
        self._first_to_move = None

    def fixed_handicap(self, args: tuple[str, ...]) -> str:
        count = self._handicap_count(args)
        try:
            points = fixed_handicap_points(self.size, count)
        except ValueError:
            raise GtpFailure("invalid number of stones") from None
        self._place_handicap(points)
        return " ".join(format_vertex(p, self.size) for p in points)

    def place_free_handicap(self, args: tuple[str, ...]) -> str:
        """The fixed placement where the board has one; else corners and centre.

        The spec lets the engine place fewer stones than asked for; the
        controller counts the vertices of the answer.
        """
        count = self._handicap_count(args)
        size = self.size
        limit = max_fixed_handicap(size)
        if limit:
            points = fixed_handicap_points(size, min(count, limit))
        else:
            near = 1 if size >= 5 else 0
            far = size - 1 - near
            middle = size // 2
            spread = [(near, near), (far, far), (far, near), (near, far), (middle, middle)]
            points = list(dict.fromkeys(spread))[:count]
            if len(points) < 2:
                raise GtpFailure("invalid number of stones")
        self._place_handicap(points)
        return " ".join(format_vertex(p, size) for p in points)

    def set_free_handicap(self, args: tuple[str, ...]) -> str:
        self._require_empty_board()
        size = self.size
        try:
            points = parse_stone_list(args, size)
        except VertexError as exc:
            raise GtpFailure(f"bad vertex list: {exc}") from None
        if not 2 <= len(points) < size * size:
            raise GtpFailure(
                f"bad vertex list: 2 to {size * size - 1} stones on this board, not {len(points)}"
            )
        self._place_handicap(points)
        return ""

    # -------------------------------------------------------------- game records

    def loadsgf(self, args: tuple[str, ...]) -> str:
        if not 1 <= len(args) <= 2:
            raise GtpFailure("syntax error: expected a file name and a move number or vertex")
        name = args[0]
        try:
            data = Path(name).read_bytes()
        except OSError as exc:
            raise GtpFailure(f"cannot load file {name!r}: {exc.strerror}") from None
        try:
            game = self._game_from_sgf(data, args[1] if len(args) == 2 else None)
        except ValueError as exc:
            raise GtpFailure(f"cannot load file {name!r}: {exc}") from None
        self._start(game)
        return self.side_to_move.gtp_name

    def _game_from_sgf(self, data: bytes, until: str | None) -> _Game:
        """The game a record describes, up to move number or vertex ``until``; ValueError if bad."""
        record = sgf.Sgf_game.from_bytes(data)
        size = record.get_size()
        if not MIN_BOARD_SIZE <= size <= MAX_BOARD_SIZE:
            raise ValueError(f"unacceptable size {size}")
        root = record.get_root()
        try:
            komi = record.get_komi()
        except ValueError:
            raw = root.get_raw("KM").decode(errors="replace")
            raise ValueError(f"bad komi KM[{raw}]") from None
        handicap = record.get_handicap() or 0
        black, white, _ = root.get_setup_stones()
        board = self._empty_board(size)
        if black:
            board.set_stones(Colour.BLACK, sorted(black))
        if white:
            board.set_stones(Colour.WHITE, sorted(white))
        stop_at, stop_point = _until(until, size)
        first_to_move = Colour(root.get("PL")) if root.has_property("PL") else None
        number = 0
        for node in record.get_main_sequence():
            if node is not root and node.has_setup_stones():
                raise ValueError("setup stones after the first node are not supported")
            colour_code, point = node.get_move()
            if colour_code is None:
                continue
            number += 1
            colour = Colour(colour_code)
            if number == stop_at or (point is not None and point == stop_point):
                first_to_move = colour
                break
            try:
                board.play(colour, point)
            except IllegalMove:
                where = format_vertex(point, size)
                raise ValueError(f"move {number} ({colour.gtp_name} {where}) is illegal") from None
        return _Game(
            board, komi, tuple(sorted(black)), tuple(sorted(white)), handicap, first_to_move
        )

    def printsgf(self, args: tuple[str, ...]) -> str:
        if len(args) > 1:
            raise GtpFailure("syntax error: expected an optional file name")
        text = self.sgf_text()
        if not args:
            return text.rstrip("\n")
        try:
            Path(args[0]).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise GtpFailure(f"cannot write file {args[0]!r}: {exc.strerror}") from None
        return ""

    def sgf_text(self) -> str:
        """The game so far as an SGF record (FF[4], UTF-8)."""
        record = sgf.Sgf_game(self.size)
        root = record.get_root()
        root.set("KM", self.komi)
        if self.handicap:
            root.set("HA", self.handicap)
        if self.setup_black or self.setup_white:
            root.set_setup_stones(set(self.setup_black), set(self.setup_white))
        if not self.board.moves and (self.setup_black or self.setup_white):
            root.set("PL", self.side_to_move.value)
        for colour, point in self.board.moves:
            record.extend_main_sequence().set_move(colour.value, point)
        serialised: bytes = record.serialise()
        return serialised.decode("utf-8")

    def showboard(self, args: tuple[str, ...]) -> str:
        return "\n" + self.board.ascii()


def _until(word: str | None, size: int) -> tuple[int | None, Point | None]:
    """loadsgf's second argument: a move number, or the vertex of the first move to leave out."""
    if word is None:
        return None, None
    if word.isdigit():
        return parse_int(word), None
    try:
        point = parse_vertex(word, size)
    except VertexError as exc:
        raise ValueError(f"not a move number or a vertex: {word!r} ({exc})") from None
    if point is None:
        raise ValueError("not a move number or a vertex: 'pass'")
    return None, point
