"""The vocabulary of control-file settings: the Player and game settings and their frozen types.

Owns the ``Player`` settings (:class:`PlayerConfig`) and the game settings
(:class:`GameSettings`, time control included).  The value checkers every
competition type uses live in :mod:`arena.control.values` (and are importable
from here too); :mod:`arena.competitions.loader` runs the file and assembles the
competition from these.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, Literal

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.control.timecontrol import (
    DEFAULT_TIME_MARGIN,
    TimeControl,
    parse_time_control,
    parse_time_margin,
)
from arena.control.values import ConfigToken as ConfigToken
from arena.control.values import Where as Where
from arena.control.values import as_bool as as_bool
from arena.control.values import as_choice as as_choice
from arena.control.values import as_cluster_address as as_cluster_address
from arena.control.values import as_float as as_float
from arena.control.values import as_identifier as as_identifier
from arena.control.values import as_int as as_int
from arena.control.values import as_str as as_str
from arena.control.values import as_str_dict as as_str_dict
from arena.control.values import as_timeout as as_timeout
from arena.control.values import cluster_address as cluster_address
from arena.control.values import describe_value as describe_value
from arena.control.values import expand_path, token_arguments
from arena.control.values import token_factory as token_factory
from gtp.handicap import max_fixed_handicap
from gtp.vertex import MAX_BOARD_SIZE, MIN_BOARD_SIZE

HandicapStyle = Literal["fixed", "free"]
Scorer = Literal["players", "internal", "referee", "referee_if_disagree"]
SCORERS: Final = ("players", "internal", "referee", "referee_if_disagree")
# Scorers that need a referee engine (the ``referee`` setting).
REFEREE_SCORERS: Final = frozenset({"referee", "referee_if_disagree"})
Compensation = Literal["no", "full", "short"]
KoRuleName = Literal["simple", "positional", "situational"]

DEFAULT_STARTUP_TIMEOUT: Final = 30.0
DEFAULT_COMMAND_TIMEOUT: Final = 60.0


# ---------------------------------------------------------------------------
# Frozen configuration


@attrs.frozen
class PlayerConfig:
    """One ``Player`` definition, with paths resolved and defaults filled in."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    code: str
    command: tuple[str, ...]
    cwd: str | None = None
    environ: tuple[tuple[str, str], ...] = ()
    discard_stderr: bool = False
    startup_gtp_commands: tuple[tuple[str, ...], ...] = ()
    gtp_aliases: tuple[tuple[str, str], ...] = ()
    is_reliable_scorer: bool = True
    allow_claim: bool = False
    sgf_player_name_from_gtp: bool = True
    startup_timeout: float | None = DEFAULT_STARTUP_TIMEOUT
    command_timeout: float | None = DEFAULT_COMMAND_TIMEOUT
    move_timeout: float | None = None  # genmove; None means no limit (a clock replaces it)
    time_control: TimeControl | None = None  # this player's own clock (time odds)
    # Dask worker resources one game of this player needs (``resources={'GPU': 1}``);
    # only a cluster run reads them.
    resources: tuple[tuple[str, float], ...] = ()

    def gtp_name(self, command: str) -> str:
        """The command name to send for ``command``, after ``gtp_aliases``."""
        for name, alias in self.gtp_aliases:
            if name == command:
                return alias
        return command

    @property
    def environ_dict(self) -> dict[str, str]:
        return dict(self.environ)


@attrs.frozen
class Adjudication:
    """``Adjudication(margin, moves=4, after=20, every=1)``: end a one-sided game early.

    From move ``after`` on, every ``every`` moves, the referee engine is asked
    ``final_score``; when it gives the same player a lead of at least
    ``margin`` points ``moves`` checks in a row, that player wins by
    adjudication.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    margin: float
    moves: int = 4  # consecutive checks beyond the margin
    after: int = 20  # no check before this many moves have been played
    every: int = 1  # moves between checks

    def describe(self) -> str:
        text = (
            f"margin {_format_number(self.margin)} for {self.moves} checks from move {self.after}"
        )
        if self.every != 1:
            text += f", every {self.every} moves"
        return text


ADJUDICATION_ARGUMENTS: Final = ("margin", "moves", "after", "every")


def parse_adjudication(value: object, where: Where) -> Adjudication | None:
    """An ``adjudicate`` setting: None or ``Adjudication(...)``."""
    if value is None or isinstance(value, Adjudication):
        return value
    if not isinstance(value, ConfigToken) or value.kind != "Adjudication":
        raise where.error(f"expected Adjudication(...) or None, not {describe_value(value)}")
    arguments = token_arguments(value, ADJUDICATION_ARGUMENTS, where)
    if "margin" not in arguments:
        raise where.error("Adjudication needs margin")
    margin = as_float(arguments["margin"], where.child(": Adjudication margin"))
    if margin <= 0:
        raise where.error(f"Adjudication margin must be positive, not {margin:g}")
    values: dict[str, int] = {}
    for name, least in (("moves", 1), ("after", 0), ("every", 1)):
        if name in arguments:
            number = as_int(arguments[name], where.child(f": Adjudication {name}"))
            if number < least:
                raise where.error(f"Adjudication {name} must be at least {least}, not {number}")
            values[name] = number
    return Adjudication(margin, **values)


@attrs.frozen
class GameSettings:
    """How one game is played and scored."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    board_size: int
    komi: float
    handicap: int | None = None
    handicap_style: HandicapStyle = "fixed"
    move_limit: int = 1000
    scorer: Scorer = "players"
    internal_scorer_handicap_compensation: Compensation = "full"
    ko_rule: KoRuleName = "simple"
    allow_suicide: bool = True  # Gomill's referee never rejected self-capture
    time_control: TimeControl | None = None  # None: no clock (move_timeout applies)
    time_margin: float = DEFAULT_TIME_MARGIN  # seconds over the clock that do not lose
    # The referee engine: its player code as written, and (resolved by the
    # loader from ``players``) its Player, which the game starts or reuses.
    referee: str | None = None
    referee_player: PlayerConfig | None = None
    adjudicate: Adjudication | None = None  # None: games are never adjudicated

    def describe(self) -> str:
        """``board size: 9   handicap: 2 (free)   komi: 0.5``, as Gomill's reports."""
        text = f"board size: {self.board_size}   "
        if self.handicap is not None:
            text += f"handicap: {self.handicap} ({self.handicap_style})   "
        text += f"komi: {_format_number(self.komi)}"
        if self.time_control is not None:
            text += f"   time: {self.time_control.describe()}"
        return text

    def rules_description(self) -> str:
        """The ruleset in words, for the SGF ``RU`` property."""
        ko = {
            "simple": "simple ko",
            "positional": "positional superko",
            "situational": "situational superko",
        }[self.ko_rule]
        suicide = "suicide allowed" if self.allow_suicide else "suicide forbidden"
        if self.scorer == "internal":
            scoring = "area scoring"
            if self.handicap:
                scoring += f" (handicap compensation {self.internal_scorer_handicap_compensation})"
        elif self.scorer == "referee":
            scoring = f"scored by the referee {self.referee}"
        elif self.scorer == "referee_if_disagree":
            scoring = f"scored by the players (the referee {self.referee} if they disagree)"
        else:
            scoring = "scored by the players"
        return f"{ko}, {suicide}, {scoring}"


# ---------------------------------------------------------------------------
# Player


PLAYER_ARGUMENTS: Final = (
    "command",
    "cwd",
    "environ",
    "discard_stderr",
    "startup_gtp_commands",
    "gtp_aliases",
    "is_reliable_scorer",
    "allow_claim",
    "sgf_player_name_from_gtp",
    "startup_timeout",
    "command_timeout",
    "move_timeout",
    "time_control",
    "resources",
)


def _command_words(value: object, where: Where) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            words = shlex.split(value)
        except ValueError as exc:
            raise where.error(f"cannot split the command line: {exc}") from exc
    elif isinstance(value, (list, tuple)):
        words = [as_str(word, where) for word in value]
    else:
        raise where.error(f"expected a string or a list of strings, not {describe_value(value)}")
    if not words or not words[0]:
        raise where.error("empty command")
    return tuple(words)


def _gtp_command(value: object, where: Where) -> tuple[str, ...]:
    if isinstance(value, str):
        words = value.split()
    elif isinstance(value, (list, tuple)):
        words = [as_str(word, where) for word in value]
    else:
        raise where.error(f"expected a GTP command (string or list), not {describe_value(value)}")
    if not words:
        raise where.error("empty GTP command")
    from gtp.protocol import is_well_formed_word  # the GTP codec: not needed at the start

    for word in words:
        if not is_well_formed_word(word):
            raise where.error(f"{word!r} cannot be sent as a GTP word")
    return tuple(words)


def parse_player(code: str, token: object, where: Where, directory: Path) -> PlayerConfig:
    """Validate one ``Player(...)`` for player ``code``."""
    if not isinstance(token, ConfigToken) or token.kind != "Player":
        raise where.error(f"expected Player(...), not {describe_value(token)}")
    where = Where(where.path, where.setting, token.line or where.line)
    arguments = dict(token.kwargs)
    if len(token.args) > 1:
        raise where.error("Player takes the command as its only positional argument")
    if token.args:
        if "command" in arguments:
            raise where.error("command given twice")
        arguments["command"] = token.args[0]
    for name in arguments:
        if name not in PLAYER_ARGUMENTS:
            raise where.error(f"unknown Player argument {name!r}")
    if arguments.get("command") is None:
        raise where.error("Player needs a command")

    def at(name: str) -> Where:
        return where.child(f".{name}")

    command = list(_command_words(arguments["command"], at("command")))
    executable = os.path.expanduser(command[0])
    if "/" in executable:
        executable = expand_path(executable, directory)
    command[0] = executable
    values: dict[str, Any] = {"code": code, "command": tuple(command)}
    cwd = arguments.get("cwd")
    if cwd is not None:
        values["cwd"] = expand_path(as_str(cwd, at("cwd")), directory)
    if arguments.get("environ") is not None:
        values["environ"] = tuple(as_str_dict(arguments["environ"], at("environ")).items())
    if arguments.get("gtp_aliases") is not None:
        values["gtp_aliases"] = tuple(
            as_str_dict(arguments["gtp_aliases"], at("gtp_aliases")).items()
        )
    commands = arguments.get("startup_gtp_commands")
    if commands is not None:
        if not isinstance(commands, (list, tuple)):
            raise at("startup_gtp_commands").error(
                f"expected a list of GTP commands, not {describe_value(commands)}"
            )
        values["startup_gtp_commands"] = tuple(
            _gtp_command(item, at("startup_gtp_commands")) for item in commands
        )
    for name in ("discard_stderr", "is_reliable_scorer", "allow_claim", "sgf_player_name_from_gtp"):
        if arguments.get(name) is not None:
            values[name] = as_bool(arguments[name], at(name))
    for name in ("startup_timeout", "command_timeout", "move_timeout"):
        if name in arguments:
            values[name] = as_timeout(arguments[name], at(name))
    if arguments.get("time_control") is not None:
        values["time_control"] = parse_time_control(arguments["time_control"], at("time_control"))
    if arguments.get("resources") is not None:
        values["resources"] = as_resources(arguments["resources"], at("resources"))
    return PlayerConfig(**values)


def as_resources(value: object, where: Where) -> tuple[tuple[str, float], ...]:
    """Dask worker resources: names to positive amounts, sorted by name."""
    if not isinstance(value, dict):
        raise where.error(
            f"expected a dictionary of resource name -> amount, not {describe_value(value)}"
        )
    amounts = {}
    for name, amount in value.items():
        text = as_str(name, where.child(" key"))
        if not text or any(c.isspace() or c in "=," for c in text):
            raise where.error(f"{name!r} is not a resource name")
        number = as_float(amount, where.child(f"[{name!r}]"))
        if number <= 0:
            raise where.child(f"[{name!r}]").error(f"expected a positive amount, not {amount!r}")
        amounts[text] = number
    return tuple(sorted(amounts.items()))


# ---------------------------------------------------------------------------
# Game settings


GAME_SETTINGS: Final = (
    "board_size",
    "komi",
    "handicap",
    "handicap_style",
    "move_limit",
    "scorer",
    "internal_scorer_handicap_compensation",
    "ko_rule",
    "allow_suicide",
    "time_control",
    "time_margin",
    "referee",
    "adjudicate",
)
_REQUIRED_GAME_SETTINGS: Final = ("board_size", "komi")


def interpret_game_setting(name: str, value: object, where: Where) -> object:
    """Check one game setting's value (``None`` is allowed where it means unset)."""
    if name == "board_size":
        size = as_int(value, where)
        if not MIN_BOARD_SIZE <= size <= MAX_BOARD_SIZE:
            raise where.error(f"must be between {MIN_BOARD_SIZE} and {MAX_BOARD_SIZE}, not {size}")
        return size
    if name == "komi":
        return as_float(value, where)
    if name == "handicap":
        if value is None:
            return None
        stones = as_int(value, where)
        if stones < 2:
            raise where.error(f"must be at least 2 (or None), not {stones}")
        return stones
    if name == "handicap_style":
        return as_choice(value, ("fixed", "free"), where)
    if name == "move_limit":
        limit = as_int(value, where)
        if limit <= 0:
            raise where.error(f"must be a positive integer, not {limit}")
        return limit
    if name == "scorer":
        return as_choice(value, SCORERS, where)
    if name == "internal_scorer_handicap_compensation":
        return as_choice(value, ("no", "full", "short"), where)
    if name == "ko_rule":
        return as_choice(value, ("simple", "positional", "situational"), where)
    if name == "allow_suicide":
        return as_bool(value, where)
    if name == "time_control":
        return parse_time_control(value, where)
    if name == "time_margin":
        return parse_time_margin(value, where)
    if name == "referee":
        return None if value is None else as_str(value, where)
    if name == "adjudicate":
        return parse_adjudication(value, where)
    raise AssertionError(name)


def build_game_settings(values: Mapping[str, object], where: Where) -> GameSettings:
    """Make GameSettings from checked values, then check the handicap against the size."""
    for name in _REQUIRED_GAME_SETTINGS:
        if name not in values:
            raise where.error(f"{name} is not set (give it here or at the top level)")
    settings = GameSettings(**values)  # type: ignore[arg-type]
    if settings.referee is None:
        if settings.scorer in REFEREE_SCORERS:
            raise where.error(f"scorer {settings.scorer!r} needs a referee (a player code)")
        if settings.adjudicate is not None:
            raise where.error("adjudicate needs a referee (a player code)")
    handicap = settings.handicap
    if handicap is not None:
        size = settings.board_size
        if settings.handicap_style == "fixed":
            limit = max_fixed_handicap(size)
            if limit == 0:
                raise where.error(f"fixed handicap is not defined on a {size}x{size} board")
        else:
            limit = size * size - 1
        if handicap > limit:
            raise where.error(
                f"handicap {handicap} is too large for {settings.handicap_style} handicap"
                f" on {size}x{size} (at most {limit})"
            )
    return settings


def with_referee_players(value: Any, players: Mapping[str, PlayerConfig], where: Where) -> Any:
    """``value`` (a competition's settings) with each GameSettings' referee code resolved.

    Walks attrs instances and tuples; raises a ControlFileError for a
    referee that names no player.
    """
    if isinstance(value, GameSettings):
        code = value.referee
        if code is None:
            return value
        player = players.get(code)
        if player is None:
            known = ", ".join(sorted(players)) or "none"
            raise where.error(f"referee {code!r} is not a player code (players: {known})")
        return attrs.evolve(value, referee_player=player)
    if isinstance(value, tuple):
        items = [with_referee_players(item, players, where) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return tuple(items)
    if attrs.has(type(value)):
        changes = {}
        for field in attrs.fields(type(value)):
            if not field.init:
                continue
            old = getattr(value, field.name)
            new = with_referee_players(old, players, where)
            if new is not old:
                changes[field.alias or field.name] = new
        return attrs.evolve(value, **changes) if changes else value
    return value


def _format_number(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


def as_affinity(value: object, where: Where) -> int:
    """The ``affinity`` setting as cores per game slot: True is 1, False or None is 0 (off)."""
    if value is None or value is False:
        return 0
    if value is True:
        return 1
    if isinstance(value, int) and value >= 0:
        return value
    raise where.error(
        f"expected True, False or a number of cores per game slot, not {describe_value(value)}"
    )
