"""What the three tuners' control files share: opponent, colour, game settings, candidates.

Owns the settings every tuner reads the same way (``opponent``,
``candidate_colour``, the game settings, ``make_candidate``), the checks of
a ``Parameter(...)`` token's arguments, errors raised by the user's own
functions (pointing at the control file's line where we can tell), and
:func:`make_player`, which calls ``make_candidate(*engine_parameters)`` and
checks the ``Player`` it returns.

The game settings of every tuner come from :func:`parse_game_settings` (the
same table of settings as a playoff's), so a per-game setting added there
reaches every tuner's games.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from arena.control.namespace import ControlFile
from arena.control.settings import (
    GAME_SETTINGS,
    ConfigToken,
    GameSettings,
    PlayerConfig,
    Where,
    as_choice,
    as_float,
    as_identifier,
    as_int,
    build_game_settings,
    describe_value,
    interpret_game_setting,
    parse_player,
)
from arena.errors import ControlFileError
from gtp.vertex import Colour

NOT_FOR_TUNERS: Final = {
    "matchups": "a tuner plays candidates against the opponent; matchups are for playoffs",
    "competitors": "competitors are for all-play-all tournaments",
}


def reject_other_types_settings(control: ControlFile, tuner: str) -> None:
    for name, why in NOT_FOR_TUNERS.items():
        if control.has(name):
            raise control.where(name).error(f"not used by the {tuner} ({why})")


def line_in(exc: BaseException, path: Path) -> int | None:
    """The last line of the control file in ``exc``'s traceback, if any."""
    filename = str(path.resolve())
    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == filename:
            line = lineno
    return line


def user_error(where: Where, what: str, exc: Exception) -> ControlFileError:
    """A one-line error for an exception raised by a function of the control file."""
    line = line_in(exc, where.path)
    return Where(where.path, where.setting, line or where.line).error(
        f"{what}: {type(exc).__name__}: {exc}"
    )


def required(control: ControlFile, name: str, what: str) -> object:
    if not control.has(name):
        raise control.where(name).error(f"not set ({what})")
    return control.get(name)


def optional_positive(control: ControlFile, name: str, default: int | None) -> int | None:
    if not control.has(name):
        return default
    value = as_int(control.get(name), control.where(name))
    if value < 1:
        raise control.where(name).error(f"must be a positive integer, not {value}")
    return value


def required_positive(control: ControlFile, name: str) -> int:
    value = as_int(required(control, name, "a positive integer"), control.where(name))
    if value < 1:
        raise control.where(name).error(f"must be a positive integer, not {value}")
    return value


def fraction(control: ControlFile, name: str, default: float | None = None) -> float:
    """A number in (0, 1] (required when there is no default)."""
    if default is not None and not control.has(name):
        return default
    where = control.where(name)
    value = as_float(required(control, name, "a number between 0.0 and 1.0"), where)
    if not 0.0 < value <= 1.0:
        raise where.error(f"must be between 0.0 and 1.0 (above 0.0), not {value:g}")
    return value


def parse_opponent(control: ControlFile) -> str:
    players = control.get("players")
    known = set(players) if isinstance(players, dict) else set()
    where = control.where("opponent")
    opponent = as_identifier(required(control, "opponent", "the opponent's player code"), where)
    if opponent not in known:
        raise where.error(f"unknown player {opponent!r}")
    return opponent


def parse_candidate_colour(control: ControlFile, *, allow_random: bool) -> Colour | None:
    """``'b'`` or ``'w'``; with ``allow_random`` also ``'random'`` (None: chosen per game)."""
    where = control.where("candidate_colour")
    choices = ("b", "w", "random") if allow_random else ("b", "w")
    what = "'b', 'w' or 'random'" if allow_random else "'b' or 'w'"
    text = as_choice(required(control, "candidate_colour", what), choices, where)
    return None if text == "random" else Colour.parse(text)


def parse_game_settings(control: ControlFile) -> GameSettings:
    """The game settings given at the top level (``board_size`` and ``komi`` required)."""
    values: dict[str, object] = {}
    for name in GAME_SETTINGS:
        if control.has(name):
            values[name] = interpret_game_setting(name, control.get(name), control.where(name))
    for name in ("board_size", "komi"):
        if name not in values:
            raise control.where(name).error("not set (required for a tuner)")
    return build_game_settings(values, control.where("board_size"))


def parse_make_candidate(control: ControlFile) -> Callable[..., object]:
    function = required(control, "make_candidate", "a function returning a Player")
    if not callable(function):
        raise control.where("make_candidate").error(
            f"expected a function returning a Player, not {describe_value(function)}"
        )
    return function


def parameter_tokens(control: ControlFile) -> list[object]:
    tokens = required(control, "parameters", "a list of Parameter(...)")
    if not isinstance(tokens, (list, tuple)) or not tokens:
        raise control.where("parameters").error("expected a non-empty list of Parameter(...)")
    return list(tokens)


def parameter_arguments(
    token: object,
    index: int,
    allowed: Sequence[str],
    needed: Sequence[str],
    where: Where,
) -> tuple[str, dict[str, Any], Where]:
    """The code, the keyword arguments and the ``parameter CODE`` location of a Parameter."""
    if not isinstance(token, ConfigToken) or token.kind != "Parameter":
        raise where.error(f"item {index}: expected Parameter(...), not {describe_value(token)}")
    arguments = dict(token.kwargs)
    if len(token.args) > 1:
        raise where.error(f"item {index}: Parameter takes only the code as a positional argument")
    if token.args:
        if "code" in arguments:
            raise where.error(f"item {index}: code given twice")
        arguments["code"] = token.args[0]
    for name in arguments:
        if name not in allowed:
            raise where.error(f"item {index}: unknown Parameter argument {name!r}")
    for name in ("code", *needed):
        if arguments.get(name) is None:
            raise where.error(f"item {index}: Parameter needs {name}")
    code = as_identifier(arguments["code"], where)
    return code, arguments, Where(where.path, f"parameter {code}", token.line or where.line)


def check_unique_codes(codes: Sequence[str], where: Where) -> None:
    for code in codes:
        if list(codes).count(code) > 1:
            raise where.error(f"duplicate parameter code {code!r}")


def check_format(fmt: str, value: object, item: Where) -> None:
    try:
        fmt % (value,)
    except (TypeError, ValueError) as exc:
        raise item.error(f"format {fmt!r} cannot show {describe_value(value)}: {exc}") from exc


def make_player(
    make_candidate: Callable[..., object],
    values: Sequence[object],
    code: str,
    where: Where,
    directory: Path,
) -> PlayerConfig:
    """``make_candidate(*values)`` checked as a Player with player code ``code``."""
    try:
        token = make_candidate(*values)
    except Exception as exc:
        raise user_error(where, f"failed for candidate {code}", exc) from exc
    if not isinstance(token, ConfigToken) or token.kind != "Player":
        raise where.error(
            f"must return a Player(...), not {describe_value(token)} (candidate {code})"
        )
    return parse_player(code, token, where.child(f" (candidate {code})"), directory)
