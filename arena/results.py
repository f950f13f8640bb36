"""Game jobs, game results and game records: the values that cross the arena's layers.

A :class:`GameJob` is what a competition asks the ringmaster to play.  The match
runner answers with a :class:`GameRecord`: the moves, comments and engine
descriptions needed for the SGF file, plus either a :class:`GameResult` (a game
that counts) or a void reason (a software failure: the game does not count and
is replayed).  Results serialise to plain JSON for the state journal.

A job is plain data (players, settings and time controls, the opening's
moves), so the game can be played anywhere; the record adds what the clocks
measured: each player's time per move and the arena's own latency.

Two different things are called "void" in Gomill and here:

* a *void game* (engine crash, failed setup): no result, replayed later;
* a game stopped at ``move_limit``: a counted result with no winner, SGF
  ``RE[Void]`` (:attr:`EndReason.MOVE_LIMIT`).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.control.openings import Opening
from arena.control.settings import GameSettings, PlayerConfig
from arena.control.timecontrol import TimeControl
from gtp.vertex import Colour, Move, Point


class EndReason(enum.Enum):
    """How a counted game ended."""

    SCORE = "score"  # two passes, then scored (no winner: jigo)
    RESIGN = "resign"
    FORFEIT = "forfeit"  # illegal or ill-formed move, failure response, crash as forfeit
    TIME = "time"  # a command overran its timeout
    CLAIM = "claim"  # gomill-genmove_ex claim, allowed for that player
    MOVE_LIMIT = "move_limit"  # stopped at move_limit: no winner, SGF RE[Void]
    UNKNOWN = "unknown"  # could not be scored, or the scorers disagreed
    ADJUDICATED = "adjudicated"  # stopped early: the referee engine saw a decided game


_SGF_SUFFIX: Mapping[EndReason, str] = {
    EndReason.RESIGN: "R",
    EndReason.FORFEIT: "F",
    EndReason.TIME: "T",
    EndReason.CLAIM: "",
    EndReason.ADJUDICATED: "",
}


def format_margin(margin: float) -> str:
    """A score margin the way SGF and Gomill write it: ``3.5``, ``31``."""
    if margin == int(margin):
        return str(int(margin))
    return f"{margin:.6f}".rstrip("0").rstrip(".")


def _optional_float(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise ValueError(f"expected a number or null, not {value!r}")


@attrs.frozen
class MoveTimes:
    """One player's genmoves in a game: how many, their total and longest time (seconds).

    Each is timed from the moment the command is written to the moment the
    response line is read, with or without a clock.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    moves: int = 0
    total: float = 0.0
    longest: float = 0.0

    def add(self, seconds: float) -> MoveTimes:
        return MoveTimes(self.moves + 1, self.total + seconds, max(self.longest, seconds))

    def to_json(self) -> dict[str, Any]:
        return {"moves": self.moves, "total": self.total, "max": self.longest}

    @classmethod
    def from_json(cls, data: object) -> MoveTimes | None:
        if data is None:
            return None
        if not isinstance(data, Mapping):
            raise ValueError(f"expected move times, not {data!r}")
        moves = data.get("moves", 0)
        if not isinstance(moves, int) or isinstance(moves, bool):
            raise ValueError(f"move times: moves {moves!r}")
        return cls(
            moves,
            _optional_float(data.get("total")) or 0.0,
            _optional_float(data.get("max")) or 0.0,
        )


@attrs.frozen
class GameResult:
    """The outcome of one counted game.

    ``winner`` is None for a jigo (``SCORE``), ``MOVE_LIMIT`` and ``UNKNOWN``.
    ``margin`` is set only for a ``SCORE`` result whose margin is known.
    ``cpu_black``/``cpu_white`` are seconds, None when not known;
    ``times_black``/``times_white`` the time each took per move.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    game_id: str
    black: str  # player code
    white: str
    winner: Colour | None
    end: EndReason
    margin: float | None = None
    moves: int = 0
    cpu_black: float | None = None
    cpu_white: float | None = None
    reason: str = ""
    times_black: MoveTimes | None = None
    times_white: MoveTimes | None = None

    @property
    def is_jigo(self) -> bool:
        return self.end is EndReason.SCORE and self.winner is None

    @property
    def is_forfeit(self) -> bool:
        return self.end is EndReason.FORFEIT

    @property
    def winning_player(self) -> str | None:
        if self.winner is None:
            return None
        return self.black if self.winner is Colour.BLACK else self.white

    @property
    def losing_player(self) -> str | None:
        if self.winner is None:
            return None
        return self.white if self.winner is Colour.BLACK else self.black

    def player(self, colour: Colour) -> str:
        return self.black if colour is Colour.BLACK else self.white

    def cpu(self, colour: Colour) -> float | None:
        return self.cpu_black if colour is Colour.BLACK else self.cpu_white

    def times(self, colour: Colour) -> MoveTimes | None:
        return self.times_black if colour is Colour.BLACK else self.times_white

    @property
    def sgf_result(self) -> str:
        """The SGF ``RE`` value: ``B+3.5``, ``W+R``, ``B+F``, ``W+T``, ``B+``, ``0``, ``Void``."""
        end = self.end
        if end is EndReason.MOVE_LIMIT:
            return "Void"
        if end is EndReason.UNKNOWN:
            return "?"
        if self.winner is None:
            return "0" if end is EndReason.SCORE else "?"
        letter = self.winner.letter
        if end is EndReason.SCORE:
            return f"{letter}+" if self.margin is None else f"{letter}+{format_margin(self.margin)}"
        return f"{letter}+{_SGF_SUFFIX[end]}"

    def describe(self) -> str:
        """One line for the history file and the terminal: ``a beat b B+3.5``."""
        winner, loser = self.winning_player, self.losing_player
        if winner is not None and loser is not None:
            text = f"{winner} beat {loser} {self.sgf_result}"
        elif self.is_jigo:
            text = f"{self.black} vs {self.white} jigo"
        elif self.end is EndReason.MOVE_LIMIT:
            text = f"{self.black} vs {self.white} void (move limit)"
        else:
            text = f"{self.black} vs {self.white} ?"
        if self.reason and self.end not in (EndReason.SCORE, EndReason.RESIGN):
            text += f" ({self.reason})"
        return text

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game_id": self.game_id,
            "black": self.black,
            "white": self.white,
            "winner": None if self.winner is None else self.winner.letter,
            "end": self.end.value,
            "margin": self.margin,
            "moves": self.moves,
            "cpu_black": self.cpu_black,
            "cpu_white": self.cpu_white,
            "reason": self.reason,
            "sgf_result": self.sgf_result,
        }
        if self.times_black is not None:
            data["times_black"] = self.times_black.to_json()
        if self.times_white is not None:
            data["times_white"] = self.times_white.to_json()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameResult:
        """Inverse of :meth:`to_json`; raises ValueError for malformed data."""
        try:
            winner_text = data["winner"]
            winner = None if winner_text is None else Colour.parse(str(winner_text))
            moves = data.get("moves", 0)
            if not isinstance(moves, int) or isinstance(moves, bool):
                raise ValueError(f"moves: {moves!r}")
            return cls(
                game_id=str(data["game_id"]),
                black=str(data["black"]),
                white=str(data["white"]),
                winner=winner,
                end=EndReason(data["end"]),
                margin=_optional_float(data.get("margin")),
                moves=moves,
                cpu_black=_optional_float(data.get("cpu_black")),
                cpu_white=_optional_float(data.get("cpu_white")),
                reason=str(data.get("reason", "")),
                times_black=MoveTimes.from_json(data.get("times_black")),
                times_white=MoveTimes.from_json(data.get("times_white")),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"malformed game result: {exc}") from exc


@attrs.frozen
class GameJob:
    """One game a competition wants played.

    ``pairing`` groups games of the same players and settings (a playoff's
    matchup id); ``game_number`` counts within the pairing.  ``event`` is the
    SGF ``EV`` text.  ``opening``: the moves played before the first genmove
    (:mod:`arena.competitions.jobs` chooses it).  Each player's clock is its
    own ``time_control`` if it has one (time odds), else the settings'.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    game_id: str
    pairing: str
    game_number: int
    black: PlayerConfig
    white: PlayerConfig
    settings: GameSettings
    event: str = ""
    opening: Opening | None = None

    def player(self, colour: Colour) -> PlayerConfig:
        return self.black if colour is Colour.BLACK else self.white

    def time_control(self, colour: Colour) -> TimeControl | None:
        player = self.player(colour)
        return player.time_control or self.settings.time_control

    @property
    def clocked(self) -> bool:
        return self.time_control(Colour.BLACK) is not None or (
            self.time_control(Colour.WHITE) is not None
        )


@attrs.frozen
class PlayedMove:
    """One move of the game record (never a resignation).

    ``seconds``: the time its genmove took (None for an opening move).  Under
    a clock, ``time_left`` is what the mover's clock shows after it: main time
    left, or in overtime the time left in the period with ``overtime_left``
    byo-yomi periods or Canadian stones (SGF BL/WL, OB/OW).
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    colour: Colour
    move: Move
    comment: str = ""
    seconds: float | None = None
    time_left: float | None = None
    overtime_left: int = 0


@attrs.frozen
class ArenaLatency:
    """The arena's own delay in one game: from reading a response to writing the next command.

    Measured over the commands of the game's moves; what is left of a move's
    time once this is known to be small is the engines'.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    commands: int = 0
    total: float = 0.0
    longest: float = 0.0

    @property
    def mean(self) -> float:
        return self.total / self.commands if self.commands else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"commands": self.commands, "total": self.total, "max": self.longest}

    @classmethod
    def from_json(cls, data: object) -> ArenaLatency | None:
        if not isinstance(data, Mapping):
            return None
        try:
            return cls(int(data["commands"]), float(data["total"]), float(data["max"]))
        except (KeyError, TypeError, ValueError):
            return None


@attrs.frozen
class GameRecord:
    """Everything known about one finished or abandoned game.

    Exactly one of ``result`` and ``void_reason`` is set.  ``player_names`` are
    what goes into PB/PW; ``descriptions`` are the engines' self-descriptions
    (``gomill-describe_engine`` or name and version) for the root comment;
    ``notes`` go into the last node's comment (final messages, scorer answers,
    late errors).
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    job: GameJob
    result: GameResult | None
    void_reason: str | None = None
    handicap_stones: tuple[Point, ...] = ()
    moves: tuple[PlayedMove, ...] = ()
    player_names: tuple[str, str] = ("", "")  # black, white
    descriptions: tuple[str, str] = ("", "")  # black, white
    notes: tuple[str, ...] = ()
    date: str = ""  # ISO date the game started, for DT
    latency: ArenaLatency | None = None
    # A void game's clock was stalled by the machine this many seconds (arena.run.stalls).
    stall: float | None = None

    def __attrs_post_init__(self) -> None:
        if (self.result is None) == (self.void_reason is None):
            raise ValueError("a game record has either a result or a void reason")

    @property
    def is_void(self) -> bool:
        return self.result is None
