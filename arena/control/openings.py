"""Opening suites: SGF main lines that games start from, read and checked when the file loads.

Owns the ``openings`` setting, written ``openings = "dir-or-file.sgf"`` or
``openings = Openings("dir", moves=8, order="random", seed=3)``: a directory
of SGF files (each file's games, in name order) or one SGF file (each game of
the collection), the main line of each, optionally cut to ``moves`` moves,
played in file order (``sequential``) or in a seeded random order that goes
through the whole suite before repeating one.  Paths are relative to the
control file.

:class:`Opening` is plain data (the moves, the name) carried by a game's job;
:class:`OpeningBook` gives the opening of each colour-swapped pair of games
(:meth:`OpeningBook.for_pair`).  :func:`check_book` plays every opening
through the rules of the games that use it, so a wrong-size or illegal
opening is a one-line error at load time naming the file and the move.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.control.namespace import ControlFile
from arena.control.settings import GameSettings
from arena.control.values import (
    ConfigToken,
    Where,
    as_choice,
    as_int,
    as_str,
    describe_value,
    token_arguments,
)
from gtp.board import Board, IllegalMove, KoRule
from gtp.vertex import Colour, Point, format_vertex

if TYPE_CHECKING:
    from sgfmill import sgf

OpeningOrder = Literal["sequential", "random"]
OPENINGS_ARGUMENTS: Final = ("path", "moves", "order", "seed")
_ILLEGAL_WORDS: Final = {
    "occupied": "an occupied point",
    "ko": "a ko-forbidden point",
    "superko": "a repeated position (superko)",
    "suicide": "suicide",
    "off board": "off the board",
}


@attrs.frozen
class Opening:
    """The moves a game starts from (its job carries it), and where they came from."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    name: str  # the file, and ``#n`` for the n-th game of a collection
    moves: tuple[tuple[Colour, Point | None], ...]  # None: a pass


@attrs.frozen(cache_hash=True)
class OpeningBook:
    """A suite of openings and the order they are played in."""

    __repr__ = fields_repr

    source: str  # the setting as written
    board_size: int
    openings: tuple[Opening, ...]
    order: OpeningOrder = "sequential"
    seed: int = 0

    def for_pair(self, pair: int) -> Opening:
        """The opening of the ``pair``-th colour-swapped pair (games 2*pair and 2*pair + 1)."""
        count = len(self.openings)
        cycle, index = divmod(pair, count)
        if self.order == "sequential":
            return self.openings[index]
        # One shuffle per pass through the suite, fixed by the seed, so a game
        # replayed after a stop or in a later run gets the same opening.
        order = list(range(count))
        random.Random(f"{self.seed}:{cycle}").shuffle(order)
        return self.openings[order[index]]

    def describe(self) -> str:
        return f"{len(self.openings)} openings from {self.source} ({self.order} order)"


# ---------------------------------------------------------------------------
# Reading the suite


def _files(path: Path, where: Where) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() == ".sgf" and p.is_file())
        if not files:
            raise where.error(f"no .sgf files in {path}")
        return files
    if not path.is_file():
        raise where.error(f"no such file or directory: {path}")
    return [path]


def _read_file(path: Path, moves: int | None, where: Where) -> list[tuple[int, Opening]]:
    """(board size, opening) for each game in one SGF file."""
    # sgfmill (~3 ms of CPU to import) only when a control file has openings.
    from sgfmill import sgf, sgf_grammar

    try:
        trees = sgf_grammar.parse_sgf_collection(path.read_bytes())
    except OSError as exc:
        raise where.error(f"cannot read {path.name}: {exc.strerror}") from exc
    except ValueError as exc:
        raise where.error(f"{path.name} is not SGF: {exc}") from exc
    found = []
    for number, tree in enumerate(trees, start=1):
        name = path.name if len(trees) == 1 else f"{path.name}#{number}"
        try:
            game = sgf.Sgf_game.from_coarse_game_tree(tree)
            size = game.get_size()
            played: list[tuple[Colour, Point | None]] = []
            for index, node in enumerate(game.get_main_sequence()):
                if node.has_setup_stones() or (index == 0 and node.has_property("HA")):
                    raise where.error(
                        f"{name}: setup or handicap stones are not supported in openings"
                    )
                try:
                    colour, point = node.get_move()
                except ValueError as exc:
                    raise where.error(
                        f"{name}: move {len(played) + 1}: {_bad_move(node, size, exc)}"
                    ) from exc
                if colour is None:
                    continue
                played.append((Colour.parse(colour), point))
                if moves is not None and len(played) == moves:
                    break
        except ValueError as exc:
            raise where.error(f"{name}: cannot read the game: {exc}") from exc
        if not played:
            raise where.error(f"{name}: the main line has no moves")
        found.append((size, Opening(name, tuple(played))))
    return found


def _bad_move(node: sgf.Tree_node, size: int, exc: ValueError) -> str:
    """What is wrong with a node's move (sgfmill's message is often empty)."""
    for key in ("B", "W"):
        if node.has_property(key):
            raw = node.get_raw(key).decode("utf-8", "replace")
            detail = f" ({exc})" if str(exc) else ""
            return f"{key}[{raw}] is not a point on a {size}x{size} board{detail}"
    return str(exc) or "not a move"


def read_book(
    path: Path,
    where: Where,
    *,
    source: str,
    moves: int | None = None,
    order: OpeningOrder = "sequential",
    seed: int = 0,
) -> OpeningBook:
    """Read a suite from a directory or a file; every opening must have the same board size."""
    openings: list[Opening] = []
    board_size = None
    for file in _files(path, where):
        for size, opening in _read_file(file, moves, where):
            if board_size is None:
                board_size = size
            elif size != board_size:
                raise where.error(
                    f"{opening.name}: board size {size}, but the other openings are {board_size}"
                )
            openings.append(opening)
    assert board_size is not None
    return OpeningBook(source, board_size, tuple(openings), order, seed)


def parse_openings(value: object, where: Where, directory: Path) -> OpeningBook | None:
    """An ``openings`` setting: None, a path, or ``Openings(path, moves=, order=, seed=)``."""
    if value is None or isinstance(value, OpeningBook):
        return value
    if isinstance(value, (str, bytes)):
        token = ConfigToken("Openings", (value,), {}, where.line)
    elif isinstance(value, ConfigToken) and value.kind == "Openings":
        token = value
    else:
        raise where.error(f"expected a path or Openings(...), not {describe_value(value)}")
    arguments = token_arguments(token, OPENINGS_ARGUMENTS, where)
    if arguments.get("path") is None:
        raise where.error("Openings needs a path (a directory of SGF files or one SGF file)")
    source = as_str(arguments["path"], where)
    moves = None
    if arguments.get("moves") is not None:
        moves = as_int(arguments["moves"], where.child(": moves"))
        if moves < 1:
            raise where.error(f"moves must be a positive integer, not {moves}")
    order = as_choice(arguments.get("order", "sequential"), ("sequential", "random"), where)
    seed = as_int(arguments.get("seed", 0), where.child(": seed"))
    path = Path(source).expanduser()
    if not path.is_absolute():
        path = directory / path
    return read_book(
        path,
        where,
        source=source,
        moves=moves,
        order="random" if order == "random" else "sequential",
        seed=seed,
    )


# ---------------------------------------------------------------------------
# Checking a suite against the games that use it


def openings_setting(control: ControlFile, settings: GameSettings) -> OpeningBook | None:
    """The top-level ``openings`` of a type whose games share ``settings``, checked against them."""
    if not control.has("openings"):
        return None
    where = control.where("openings")
    book = parse_openings(control.get("openings"), where, control.directory)
    if book is not None:
        check_book(book, settings, where)
    return book


def check_book(book: OpeningBook, settings: GameSettings, where: Where) -> None:
    """Raise a one-line error unless every opening can start games with these settings."""
    if settings.handicap is not None:
        raise where.error(
            "openings cannot be combined with handicap (an opening starts from an empty board)"
        )
    problem = opening_problem(
        book, settings.board_size, settings.ko_rule, settings.allow_suicide, settings.move_limit
    )
    if problem is not None:
        raise where.error(problem)


@functools.lru_cache(maxsize=64)  # many matchups share one suite and one ruleset
def opening_problem(
    book: OpeningBook,
    board_size: int,
    ko_rule: str,
    allow_suicide: bool,
    move_limit: int,
) -> str | None:
    """Why the suite cannot start these games (the file and the move), or None."""
    if book.board_size != board_size:
        first = book.openings[0].name
        return f"{first}: board size {book.board_size}, but the games are {board_size}x{board_size}"
    for opening in book.openings:
        if len(opening.moves) >= move_limit:
            return f"{opening.name}: {len(opening.moves)} moves reach the move_limit ({move_limit})"
        board = Board(board_size, ko_rule=KoRule(ko_rule), allow_suicide=allow_suicide)
        passes = 0
        for number, (colour, point) in enumerate(opening.moves, start=1):
            move = f"move {number} ({colour.letter} {format_vertex(point, board_size)})"
            try:
                board.play(colour, point)
            except IllegalMove as exc:
                return f"{opening.name}: {move} is illegal: {_ILLEGAL_WORDS[exc.reason]}"
            passes = passes + 1 if point is None else 0
            if passes == 2:
                return f"{opening.name}: {move} is a second pass in a row, which ends the game"
    return None
