"""What a run tells the world: typed, frozen events, the ringmaster's only output.

The ringmaster (and everything under it) never prints, never writes a log line
and never formats text: it emits these events on an :class:`EventBus`, and
subscribers render them (plain lines on stdout, ``X.log``, ``X.hist`` and
``X.events`` in :mod:`arena.output`, the live dashboard in :mod:`tui`).

Every event but :class:`SnapshotTaken` and :class:`KeyPressed` has a JSON form
(:func:`event_to_json`, :func:`event_from_json`): one object per line of
``X.events``, which is what ``arena watch`` follows. Game results in it are the
journal's JSON; records and competition snapshots stay in memory (the watcher
rebuilds the snapshot from ``X.status`` and ``X.journal``). ``X.events`` gets
only a few of the :class:`MovePlayed` events
(:class:`arena.output.files.RunFiles` thins them out per game). A
:class:`MovePlayed` event of a game played here also carries both clocks
(:class:`ClockFace`, under a time control) and, at most twice a second, the board
(:class:`BoardPicture`, one character a point): the ringmaster reads them from
the game only for the events it emits, which are rate-limited, so a move costs
nothing more.

A :class:`GameFinished` event is emitted only once the game's record, journal
entry and status are durable on disk (:mod:`arena.store.writer`).
"""

from __future__ import annotations

import base64
import binascii
import enum
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, assert_never, cast

import attrs
import trio

from arena import fields_eq, fields_hash, fields_repr
from arena.clock import PlayerClock
from arena.competitions.registry import load_reference
from arena.competitions.snapshots import CompetitionSnapshot, HistoryNote
from arena.results import ArenaLatency, GameRecord, GameResult
from gtp.board import Board
from gtp.vertex import PASS, RESIGN, Colour, Move

DEFAULT_EVENT_BUFFER: Final = 1024
NOTE_LINES: Final = "arena.reports.notes:note_lines"  # a tuner's history notes in words


class RunState(enum.Enum):
    CHECKING = "checking"  # startup checks
    RUNNING = "running"
    STOPPING = "stopping"  # no new games; waiting for the games in progress
    FINISHED = "finished"  # the competition or the run's --max-games is done
    STOPPED = "stopped"  # stopped on request (Ctrl-X, `arena stop`, Ctrl-C)
    HALTED = "halted"  # stopped by repeated void games or an error


@attrs.frozen
class RunStateChanged:
    """The run started (RUNNING, with its slots), is stopping, or ended (with the reason)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    state: RunState
    message: str = ""
    parallel: int | None = None  # slots, with RUNNING


@attrs.frozen
class GameStarted:
    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    game_id: str
    black: str  # player codes
    white: str
    slot: int  # -1 when not known (a watcher of an older run)
    worker: str | None = None  # where the game is played, when not here


# What a clock's overtime count counts, by time system (absolute and Fischer have none;
# a fixed time per move is one stone a period: its count says nothing).
_OVERTIME_UNITS: Final = {"byoyomi": "periods", "canadian": "stones"}
EMPTY_POINT: Final = "."
STONE_CHARS: Final = {Colour.BLACK: "X", Colour.WHITE: "O"}


@attrs.frozen
class ClockFace:
    """What a player's clock shows after its latest move.

    ``seconds`` is the main time left, or in overtime the time left in the
    current period; ``count`` (in overtime) the byo-yomi periods or Canadian
    stones left, the current one included, as ``unit`` ("periods", "stones")
    says; 0 and "" otherwise.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    seconds: float
    count: int = 0
    unit: str = ""

    def to_json(self) -> list[Any]:
        return [round(self.seconds, 3), self.count, self.unit]

    @classmethod
    def from_json(cls, data: object) -> ClockFace:
        if not isinstance(data, list) or len(data) != 3:
            raise ValueError(f"not a clock: {data!r}")
        return cls(float(data[0]), int(data[1]), str(data[2]))


def clock_face(clock: PlayerClock) -> ClockFace:
    reading = clock.reading
    unit = _OVERTIME_UNITS.get(clock.control.system, "") if reading.count else ""
    return ClockFace(reading.seconds, reading.count if unit else 0, unit)


@attrs.frozen
class BoardPicture:
    """A game's stones: ``points`` has ``size`` rows of ``size`` characters, the top row
    (the highest line number) first, ``X`` black, ``O`` white, ``.`` empty; ``captures``
    are the stones black and white have captured."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    size: int
    points: str
    captures: tuple[int, int] = (0, 0)

    def __attrs_post_init__(self) -> None:
        if len(self.points) != self.size * self.size or set(self.points) - set(".XO"):
            raise ValueError(f"not a {self.size}x{self.size} board: {self.points!r}")

    def at(self, row: int, col: int) -> str:
        """The character of a point, rows counted from the bottom (GTP's row 0 is line 1)."""
        return self.points[(self.size - 1 - row) * self.size + col]

    def to_json(self) -> dict[str, Any]:
        """Packed (:func:`_pack_points`): 100 characters for a 19x19 board, not 361."""
        return {
            "size": self.size,
            "stones": _pack_points(self.points),
            "captures": list(self.captures),
        }

    @classmethod
    def from_json(cls, data: object) -> BoardPicture:
        if not isinstance(data, dict):
            raise ValueError(f"not a board: {data!r}")
        size = int(data["size"])
        black, white = data.get("captures", (0, 0))
        points = _unpack_points(_text(data, "stones"), size * size)
        return cls(size, points, (int(black), int(white)))


_POINT_DIGITS: Final = {".": 0, "X": 1, "O": 2}
_DIGIT_POINTS: Final = ".XO"
_POINTS_PER_BYTE: Final = 5  # 3**5 = 243 values fit a byte


def _pack_points(points: str) -> str:
    """Five points a byte (base 3, the first point the lowest digit), then base64.

    X.events holds a board once a second per game, and a watcher reads only its
    last few MB when it attaches: a packed board keeps that tail long.
    """
    packed = bytearray()
    for start in range(0, len(points), _POINTS_PER_BYTE):
        value = 0
        for char in reversed(points[start : start + _POINTS_PER_BYTE]):
            value = value * 3 + _POINT_DIGITS[char]
        packed.append(value)
    return base64.b64encode(bytes(packed)).decode("ascii")


def _unpack_points(text: str, count: int) -> str:
    try:
        packed = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError) as exc:
        raise ValueError(f"not a packed board: {text!r}") from exc
    chars: list[str] = []
    for value in packed:
        if value >= 3**_POINTS_PER_BYTE:
            raise ValueError(f"not a packed board: {text!r}")
        for _ in range(_POINTS_PER_BYTE):
            value, digit = divmod(value, 3)
            chars.append(_DIGIT_POINTS[digit])
    if len(chars) < count or set(chars[count:]) - {"."}:
        raise ValueError(f"not a packed board of {count} points: {text!r}")
    return "".join(chars[:count])


def board_picture(board: Board) -> BoardPicture:
    """The board's stones and captures (a few hundred points read: at most twice a second)."""
    size = board.size
    cells = bytearray(EMPTY_POINT * (size * size), "ascii")
    for colour, char in STONE_CHARS.items():
        code = ord(char)
        for row, col in board.stones(colour):
            cells[(size - 1 - row) * size + col] = code
    captures = board.captures
    return BoardPicture(
        size, cells.decode("ascii"), (captures[Colour.BLACK], captures[Colour.WHITE])
    )


@attrs.frozen
class MovePlayed:
    """The latest move of a game (at most one per game every few tens of ms).

    Of a game played here, also both clocks (None without a time control) and,
    in some of the events, the board after the move (None in the others).
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    game_id: str
    colour: Colour
    move: Move
    moves_played: int
    black_clock: ClockFace | None = None
    white_clock: ClockFace | None = None
    board: BoardPicture | None = None


@attrs.frozen
class GameFinished:
    """A game is over and its record is durable: a counted result, or a void game."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    game_id: str
    black: str
    white: str
    result: GameResult | None  # None for a void game (replayed later)
    void_reason: str | None = None
    sgf_path: str | None = None  # the record written, if any
    counted: bool = True  # False: a duplicate of a result already counted (ignored)
    latency: ArenaLatency | None = None  # the arena's own delays in the game
    # In memory only (not in X.events): the whole record, and the competition
    # after this game (None when the ringmaster skipped it as too costly now).
    record: GameRecord | None = attrs.field(default=None, eq=False, repr=False)
    snapshot: CompetitionSnapshot | None = attrs.field(default=None, eq=False, repr=False)


@attrs.frozen
class EngineStderr:
    """A line an engine wrote on its stderr during a game."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    game_id: str
    player: str
    line: str
    warning: bool = False  # it reports a warning or an error (counted on the dashboard)


@attrs.frozen
class RunWarning:
    """Something the arena itself wants the user to know (not fatal)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    text: str


@attrs.frozen
class TreeDump:
    """A tuner's notes for the history file (the Monte Carlo tuner's tree, a generation, theta)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    lines: tuple[str, ...]

    @classmethod
    def of(cls, notes: Iterable[HistoryNote]) -> TreeDump:
        """The event for a competition's notes, worded as ``X.hist`` shows them."""
        # Only tuners leave notes: the words for them are loaded with the first.
        note_lines = cast("Callable[[HistoryNote], list[str]]", load_reference(NOTE_LINES))
        return cls(tuple(line for note in notes for line in note_lines(note)))


@attrs.frozen
class WorkersChanged:
    """How many workers the cluster the games are played on has (sent on every change)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    workers: int
    threads: int  # games the workers can play at once


@attrs.frozen
class KeyPressed:
    """A key typed on the run's terminal that the ringmaster does not act on (the dashboard's)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    key: bytes


@attrs.frozen
class SnapshotTaken:
    """The competition as it stands (sent when a run starts, before any game)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    snapshot: CompetitionSnapshot = attrs.field(eq=False, repr=False)


Event = (
    RunStateChanged
    | GameStarted
    | MovePlayed
    | GameFinished
    | EngineStderr
    | RunWarning
    | TreeDump
    | SnapshotTaken
    | WorkersChanged
    | KeyPressed
)
Subscriber = Callable[[Event], None]

_WARNING_WORDS: Final = re.compile(
    r"warn|error|exception|traceback|fatal|panic|abort|assert", re.IGNORECASE
)


def looks_like_warning(line: str) -> bool:
    """Whether an engine's stderr line reports a warning or an error (for the dashboard)."""
    return _WARNING_WORDS.search(line) is not None


@attrs.define
class EventBus:
    """Hands each event to every subscriber, in order, as it is emitted.

    Subscribers must be quick and must not block (the file subscribers append
    a line; the dashboard's hands the event to a channel).  Only subscribers
    that ask for them get :class:`MovePlayed` events, and the match runner
    reports moves only when one does.  An exception from a subscriber
    propagates to the ringmaster, which ends the run with it.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq

    _all: list[Subscriber] = attrs.Factory(list)
    _moves: list[Subscriber] = attrs.Factory(list)

    def subscribe(self, subscriber: Subscriber, *, moves: bool = False) -> None:
        self._all.append(subscriber)
        if moves:
            self._moves.append(subscriber)

    def emit(self, event: Event) -> None:
        for subscriber in self._moves if isinstance(event, MovePlayed) else self._all:
            subscriber(event)

    @property
    def wants_moves(self) -> bool:
        return bool(self._moves)

    @property
    def subscribed(self) -> bool:
        return bool(self._all)


@attrs.define
class ChannelSubscriber:
    """Forwards events to a trio memory channel without ever blocking the arena.

    When the receiver falls behind and the buffer is full, events are dropped
    (counted in ``dropped``; the next snapshot has the truth).  Once the
    receiving end is closed, nothing more is sent.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq

    channel: trio.MemorySendChannel[Event] | None
    dropped: int = 0

    def __call__(self, event: Event) -> None:
        if self.channel is None:
            return
        try:
            self.channel.send_nowait(event)
        except trio.WouldBlock:
            self.dropped += 1
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.channel = None


def open_event_channel(
    buffer: int = DEFAULT_EVENT_BUFFER,
) -> tuple[trio.MemorySendChannel[Event], trio.MemoryReceiveChannel[Event]]:
    return trio.open_memory_channel[Event](buffer)


# ---------------------------------------------------------------------------
# JSON lines (X.events)


def event_to_json(event: Event) -> dict[str, Any] | None:
    """The event as one JSON object for ``X.events``; None for events not written there."""
    match event:
        case RunStateChanged():
            data: dict[str, Any] = {"event": "run", "state": event.state.value}
            if event.message:
                data["message"] = event.message
            if event.parallel is not None:
                data["parallel"] = event.parallel
            return data
        case GameStarted():
            data = {
                "event": "game_started",
                "game_id": event.game_id,
                "black": event.black,
                "white": event.white,
                "slot": event.slot,
            }
            if event.worker is not None:
                data["worker"] = event.worker
            return data
        case MovePlayed():
            data = {
                "event": "move",
                "game_id": event.game_id,
                "colour": event.colour.value,
                "move": _move_to_json(event.move),
                "moves": event.moves_played,
            }
            if event.black_clock is not None:
                data["clock_b"] = event.black_clock.to_json()
            if event.white_clock is not None:
                data["clock_w"] = event.white_clock.to_json()
            if event.board is not None:
                data["board"] = event.board.to_json()
            return data
        case GameFinished():
            data = {
                "event": "game_finished",
                "game_id": event.game_id,
                "black": event.black,
                "white": event.white,
                "result": None if event.result is None else event.result.to_json(),
            }
            if event.void_reason is not None:
                data["void_reason"] = event.void_reason
            if event.sgf_path is not None:
                data["sgf"] = event.sgf_path
            if not event.counted:
                data["counted"] = False
            if event.latency is not None:
                data["latency"] = event.latency.to_json()
            return data
        case EngineStderr():
            return {
                "event": "stderr",
                "game_id": event.game_id,
                "player": event.player,
                "line": event.line,
                "warning": event.warning,
            }
        case RunWarning():
            return {"event": "warning", "text": event.text}
        case TreeDump():
            return {"event": "tree", "lines": list(event.lines)}
        case WorkersChanged():
            return {"event": "workers", "workers": event.workers, "threads": event.threads}
        case SnapshotTaken() | KeyPressed():
            return None  # not written to X.events
        case _:
            assert_never(event)


def _move_to_json(move: Move) -> str | list[int]:
    if move.is_resign:
        return "resign"
    if move.point is None:
        return "pass"
    return list(move.point)


def _move_from_json(value: object) -> Move:
    if value == "resign":
        return RESIGN
    if value == "pass":
        return PASS
    if isinstance(value, list) and len(value) == 2 and all(type(n) is int for n in value):
        return Move((value[0], value[1]))
    raise ValueError(f"not a move: {value!r}")


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise ValueError(f"{key}: expected a string, not {value!r}")
    return value


def _optional_text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return None if value is None else str(value)


def event_from_json(data: object) -> Event:
    """Inverse of :func:`event_to_json`; raises ValueError for anything else."""
    if not isinstance(data, dict):
        raise ValueError("an event is a JSON object")
    try:
        kind = data["event"]
        if kind == "run":
            parallel = data.get("parallel")
            return RunStateChanged(
                RunState(data["state"]),
                str(data.get("message", "")),
                None if parallel is None else int(parallel),
            )
        if kind == "game_started":
            return GameStarted(
                _text(data, "game_id"),
                _text(data, "black"),
                _text(data, "white"),
                int(data.get("slot", -1)),
                _optional_text(data, "worker"),
            )
        if kind == "move":
            black, white, board = data.get("clock_b"), data.get("clock_w"), data.get("board")
            return MovePlayed(
                _text(data, "game_id"),
                Colour(data["colour"]),
                _move_from_json(data["move"]),
                int(data["moves"]),
                None if black is None else ClockFace.from_json(black),
                None if white is None else ClockFace.from_json(white),
                None if board is None else BoardPicture.from_json(board),
            )
        if kind == "game_finished":
            raw = data.get("result")
            return GameFinished(
                _text(data, "game_id"),
                _text(data, "black"),
                _text(data, "white"),
                None if raw is None else GameResult.from_json(raw),
                _optional_text(data, "void_reason"),
                _optional_text(data, "sgf"),
                bool(data.get("counted", True)),
                ArenaLatency.from_json(data.get("latency")),
            )
        if kind == "stderr":
            return EngineStderr(
                _text(data, "game_id"),
                _text(data, "player"),
                _text(data, "line"),
                bool(data.get("warning", False)),
            )
        if kind == "warning":
            return RunWarning(_text(data, "text"))
        if kind == "tree":
            return TreeDump(tuple(str(line) for line in data["lines"]))
        if kind == "workers":
            return WorkersChanged(int(data["workers"]), int(data.get("threads", 0)))
    except (KeyError, TypeError) as exc:
        raise ValueError(f"malformed event: {exc!r}") from exc
    raise ValueError(f"unknown event {data.get('event')!r}")
