"""The vocabulary of control-file settings: checked values and their frozen types.

Owns the value checkers every competition type uses, the ``Player``
settings (:class:`PlayerConfig`) and the game settings (:class:`GameSettings`).
:mod:`arena.control.loader` runs the file and assembles the competition from these.
"""

from __future__ import annotations

import math
import os
import shlex
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import FrameType
from typing import Any, Final, Literal

import attrs

from arena.errors import ControlFileError
from gtp.handicap import max_fixed_handicap
from gtp.protocol import is_well_formed_word
from gtp.vertex import MAX_BOARD_SIZE, MIN_BOARD_SIZE

HandicapStyle = Literal["fixed", "free"]
Scorer = Literal["players", "internal"]
Compensation = Literal["no", "full", "short"]
KoRuleName = Literal["simple", "positional", "situational"]

DEFAULT_STARTUP_TIMEOUT: Final = 30.0
DEFAULT_COMMAND_TIMEOUT: Final = 60.0
IDENTIFIER_PUNCTUATION: Final = frozenset("-!$%&*+.:;<=>?^_~")


# ---------------------------------------------------------------------------
# Frozen configuration


@attrs.frozen
class PlayerConfig:
    """One ``Player`` definition, with paths resolved and defaults filled in."""

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
    move_timeout: float | None = None  # genmove; None means no limit
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
class GameSettings:
    """How one game is played and scored."""

    board_size: int
    komi: float
    handicap: int | None = None
    handicap_style: HandicapStyle = "fixed"
    move_limit: int = 1000
    scorer: Scorer = "players"
    internal_scorer_handicap_compensation: Compensation = "full"
    ko_rule: KoRuleName = "simple"
    allow_suicide: bool = True  # Gomill's referee never rejected self-capture

    def describe(self) -> str:
        """``board size: 9   handicap: 2 (free)   komi: 0.5``, as Gomill's reports."""
        text = f"board size: {self.board_size}   "
        if self.handicap is not None:
            text += f"handicap: {self.handicap} ({self.handicap_style})   "
        return text + f"komi: {_format_number(self.komi)}"

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
        else:
            scoring = "scored by the players"
        return f"{ko}, {suicide}, {scoring}"


# ---------------------------------------------------------------------------
# Tokens the control file creates


@attrs.define
class ConfigToken:
    """A ``Player(...)``/``Matchup(...)`` call, kept for validation later."""

    kind: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    line: int | None


def token_factory(kind: str, filename: str) -> Callable[..., ConfigToken]:
    def make(*args: Any, **kwargs: Any) -> ConfigToken:
        frame: FrameType | None = sys._getframe(1)
        line = None
        while frame is not None:
            if frame.f_code.co_filename == filename:
                line = frame.f_lineno
                break
            frame = frame.f_back
        return ConfigToken(kind, args, kwargs, line)

    make.__name__ = kind
    return make


# ---------------------------------------------------------------------------
# Value checking


@attrs.frozen
class Where:
    """Where a value came from, to build a one-line error about it."""

    path: Path
    setting: str
    line: int | None = None

    def error(self, message: str) -> ControlFileError:
        return ControlFileError(message, path=self.path, line=self.line, setting=self.setting)

    def child(self, name: str, line: int | None = None) -> Where:
        return Where(self.path, f"{self.setting}{name}", self.line if line is None else line)


def describe_value(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def as_bool(value: object, where: Where) -> bool:
    if not isinstance(value, bool):
        raise where.error(f"expected True or False, not {describe_value(value)}")
    return value


def as_int(value: object, where: Where) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise where.error(f"expected an integer, not {describe_value(value)}")
    return value


def as_float(value: object, where: Where) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise where.error(f"expected a number, not {describe_value(value)}")
    result = float(value)
    if not math.isfinite(result):
        raise where.error(f"expected a finite number, not {describe_value(value)}")
    return result


def as_str(value: object, where: Where) -> str:
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise where.error("expected UTF-8 text") from exc
    if not isinstance(value, str):
        raise where.error(f"expected a string, not {describe_value(value)}")
    return value


def as_identifier(value: object, where: Where) -> str:
    text = as_str(value, where)
    if not text or not all(
        (c.isascii() and c.isalnum()) or c in IDENTIFIER_PUNCTUATION for c in text
    ):
        raise where.error(
            f"{describe_value(value)} is not an identifier"
            " (ASCII letters, digits, - ! $ % & * + . : ; < = > ? ^ _ ~)"
        )
    return text


def as_choice(value: object, choices: tuple[str, ...], where: Where) -> str:
    if not isinstance(value, str) or value not in choices:
        wanted = ", ".join(repr(c) for c in choices)
        raise where.error(f"expected one of {wanted}, not {describe_value(value)}")
    return value


def as_timeout(value: object, where: Where) -> float | None:
    if value is None:
        return None
    seconds = as_float(value, where)
    if seconds <= 0:
        raise where.error(
            f"expected a positive number of seconds or None, not {describe_value(value)}"
        )
    return seconds


def as_str_dict(value: object, where: Where) -> dict[str, str]:
    if not isinstance(value, dict):
        raise where.error(f"expected a dictionary of strings, not {describe_value(value)}")
    return {
        as_str(k, where.child(" key")): as_str(v, where.child(f"[{k!r}]")) for k, v in value.items()
    }


def cluster_address(text: str) -> str:
    """A Dask scheduler address such as ``tcp://host:8786`` (a bare ``host:port`` is TCP).

    Raises ValueError with a one-line reason."""
    text = text.strip()
    address = text if "://" in text else f"tcp://{text}"
    host, _, port = address.split("://", 1)[1].rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"expected a scheduler address such as 'tcp://HOST:8786', not {text!r}")
    return address


def as_cluster_address(value: object, where: Where) -> str:
    try:
        return cluster_address(as_str(value, where))
    except ValueError as exc:
        raise where.error(str(exc)) from None


def _expand_path(text: str, directory: Path) -> str:
    expanded = os.path.expanduser(text)
    if os.path.isabs(expanded):
        return expanded
    return os.path.normpath(directory / expanded)


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
        executable = _expand_path(executable, directory)
    command[0] = executable
    values: dict[str, Any] = {"code": code, "command": tuple(command)}
    cwd = arguments.get("cwd")
    if cwd is not None:
        values["cwd"] = _expand_path(as_str(cwd, at("cwd")), directory)
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
        return as_choice(value, ("players", "internal"), where)
    if name == "internal_scorer_handicap_compensation":
        return as_choice(value, ("no", "full", "short"), where)
    if name == "ko_rule":
        return as_choice(value, ("simple", "positional", "situational"), where)
    if name == "allow_suicide":
        return as_bool(value, where)
    raise AssertionError(name)


def build_game_settings(values: Mapping[str, object], where: Where) -> GameSettings:
    """Make GameSettings from checked values, then check the handicap against the size."""
    for name in _REQUIRED_GAME_SETTINGS:
        if name not in values:
            raise where.error(f"{name} is not set (give it here or at the top level)")
    settings = GameSettings(**values)  # type: ignore[arg-type]
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


def _format_number(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)
