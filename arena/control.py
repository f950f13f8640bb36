"""Load and validate Gomill-style control files into frozen configuration.

A control file is Python source run in a namespace that provides ``Player``
(and, for playoffs, ``Matchup``).  ``competition_type`` must be its first
statement.  Variables of the user's own are allowed and ignored; every setting
we know is checked (see :mod:`arena.settings`), and a bad one raises
:class:`ControlFileError` whose message is one line naming the file, the line
where we can tell, and the setting.

This module owns running the file, the common settings and the playoff's
``Matchup``; other competition types register their own parser with
:func:`register_competition_type`.
"""

from __future__ import annotations

import ast
import os
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, Literal

import attrs

from arena.matchstats import sprt_from_control
from arena.settings import (
    GAME_SETTINGS,
    ConfigToken,
    ControlFileError,
    GameSettings,
    PlayerConfig,
    Where,
    as_bool,
    as_choice,
    as_identifier,
    as_int,
    as_str,
    build_game_settings,
    describe_value,
    interpret_game_setting,
    parse_player,
    token_factory,
)
from arena.stats import SPRT
from arena.tuner_tree import PREDEFINED_SCALES

__all__ = [
    "CompetitionConfig",
    "CompetitionType",
    "ControlFile",
    "ControlFileError",
    "GameSettings",
    "MatchupConfig",
    "PlayerConfig",
    "PlayoffSettings",
    "load_control_file",
    "register_competition_type",
]

CrashResult = Literal["void", "forfeit"]
KNOWN_LATER_TYPES: Final = ("mc_tuner", "ce_tuner")


@attrs.frozen
class MatchupConfig:
    """One playoff ``Matchup``: two players, how many games, their settings."""

    id: str
    name: str
    player_1: str
    player_2: str
    settings: GameSettings
    alternating: bool = False
    number_of_games: int | None = None
    event: str = ""
    sprt: SPRT | None = None  # stop the matchup once this test decides

    def game_id(self, game_number: int) -> str:
        """``<id>_<n>``, zero-padded to the width of the last game number."""
        if self.number_of_games is None or self.number_of_games <= 0:
            return f"{self.id}_{game_number}"
        width = len(str(self.number_of_games - 1))
        return f"{self.id}_{game_number:0{width}d}"


@attrs.frozen
class PlayoffSettings:
    matchups: tuple[MatchupConfig, ...]


@attrs.frozen
class CompetitionConfig:
    """A whole control file, validated."""

    control_path: Path
    competition_type: str
    players: Mapping[str, PlayerConfig]
    specific: object  # PlayoffSettings for playoffs; other types bring their own
    description: str | None = None
    record_games: bool = True
    skip_player_checks: bool = False
    stderr_to_log: bool = True
    reuse_engines: bool = False
    crash_result: CrashResult = "void"

    @property
    def code(self) -> str:
        """The competition code: the control file's name without its extension."""
        return self.control_path.stem

    @property
    def directory(self) -> Path:
        return self.control_path.parent

    @property
    def playoff(self) -> PlayoffSettings:
        if not isinstance(self.specific, PlayoffSettings):
            raise TypeError(f"{self.competition_type} competition has no matchups")
        return self.specific


# ---------------------------------------------------------------------------
# The loader


class ControlFile:
    """The executed namespace of a control file, with the line of each setting."""

    def __init__(self, path: Path, namespace: Mapping[str, Any], lines: Mapping[str, int]) -> None:
        self.path = path
        self.namespace = namespace
        self.lines = lines

    @property
    def directory(self) -> Path:
        return self.path.parent

    def where(self, setting: str) -> Where:
        return Where(self.path, setting, self.lines.get(setting))

    def has(self, setting: str) -> bool:
        return setting in self.namespace and self.namespace[setting] is not None

    def get(self, setting: str, default: Any = None) -> Any:
        value = self.namespace.get(setting)
        return default if value is None else value


@attrs.frozen
class CompetitionType:
    """How to read the settings of one competition type."""

    name: str
    namespace: Mapping[str, str]  # name in the control file -> token kind
    parse: Callable[[ControlFile], object]
    objects: Mapping[str, object] = attrs.field(factory=dict)  # names given as they are


_COMPETITION_TYPES: dict[str, CompetitionType] = {}


def register_competition_type(competition_type: CompetitionType) -> None:
    _COMPETITION_TYPES[competition_type.name] = competition_type


def _assignment_lines(tree: ast.Module) -> dict[str, int]:
    lines: dict[str, int] = {}

    def names(target: ast.expr) -> list[str]:
        if isinstance(target, ast.Name):
            return [target.id]
        if isinstance(target, (ast.Tuple, ast.List)):
            return [n for element in target.elts for n in names(element)]
        return []

    for statement in tree.body:
        targets: list[ast.expr] = []
        if isinstance(statement, ast.Assign):
            targets = list(statement.targets)
        elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
            targets = [statement.target]
        for target in targets:
            for name in names(target):
                lines[name] = statement.lineno
    return lines


def _competition_type(tree: ast.Module, path: Path) -> str:
    first = tree.body[0] if tree.body else None
    if (
        not isinstance(first, ast.Assign)
        or len(first.targets) != 1
        or not isinstance(first.targets[0], ast.Name)
        or first.targets[0].id != "competition_type"
    ):
        line = first.lineno if first is not None else None
        raise ControlFileError(
            "must be set first in the control file",
            path=path,
            line=line,
            setting="competition_type",
        )
    where = Where(path, "competition_type", first.lineno)
    if not isinstance(first.value, ast.Constant) or not isinstance(first.value.value, str):
        raise where.error("expected a string such as 'playoff'")
    name = first.value.value
    if name not in _COMPETITION_TYPES:
        if name in KNOWN_LATER_TYPES:
            raise where.error(f"competition type {name!r} is not supported yet")
        known = ", ".join(repr(k) for k in sorted(_COMPETITION_TYPES))
        raise where.error(f"unknown competition type {name!r} (known: {known})")
    return name


def _error_line(exc: BaseException, filename: str) -> int | None:
    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == filename:
            line = lineno
    if line is None and isinstance(exc, SyntaxError) and exc.filename == filename:
        line = exc.lineno
    return line


def load_control_file(path: str | os.PathLike[str]) -> CompetitionConfig:
    """Read, run and validate a control file.  Raises :class:`ControlFileError`."""
    control_path = Path(os.path.abspath(path))
    shown = Path(path)
    try:
        source = control_path.read_bytes()
    except OSError as exc:
        raise ControlFileError(f"cannot read the control file: {exc.strerror}", path=shown) from exc
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ControlFileError("the control file is not UTF-8 text", path=shown) from exc
    filename = str(control_path)
    try:
        tree = ast.parse(text, filename=filename)
    except SyntaxError as exc:
        raise ControlFileError(f"syntax error: {exc.msg}", path=shown, line=exc.lineno) from exc
    type_name = _competition_type(tree, shown)
    competition_type = _COMPETITION_TYPES[type_name]
    namespace: dict[str, Any] = {"__name__": "__control_file__", "__file__": filename}
    namespace["Player"] = token_factory("Player", filename)
    for name, kind in competition_type.namespace.items():
        namespace[name] = token_factory(kind, filename)
    namespace.update(competition_type.objects)
    try:
        exec(compile(tree, filename, "exec"), namespace)
    except Exception as exc:
        raise ControlFileError(
            f"error while running the control file: {type(exc).__name__}: {exc}",
            path=shown,
            line=_error_line(exc, filename),
        ) from exc
    control = ControlFile(shown, namespace, _assignment_lines(tree))
    players = parse_players(control)
    specific = competition_type.parse(control)
    return _parse_common(control, control_path, type_name, players, specific)


def _parse_common(
    control: ControlFile,
    control_path: Path,
    type_name: str,
    players: dict[str, PlayerConfig],
    specific: object,
) -> CompetitionConfig:
    values: dict[str, Any] = {}
    description = control.get("description")
    if description is not None:
        values["description"] = as_str(description, control.where("description")).strip()
    for name in ("record_games", "skip_player_checks", "stderr_to_log", "reuse_engines"):
        if control.has(name):
            values[name] = as_bool(control.get(name), control.where(name))
    if control.has("crash_result"):
        values["crash_result"] = as_choice(
            control.get("crash_result"), ("void", "forfeit"), control.where("crash_result")
        )
    return CompetitionConfig(
        control_path=control_path,
        competition_type=type_name,
        players=players,
        specific=specific,
        **values,
    )


def parse_players(control: ControlFile) -> dict[str, PlayerConfig]:
    where = control.where("players")
    if not control.has("players"):
        raise where.error("not set (a dictionary of player code -> Player(...))")
    players = control.get("players")
    if not isinstance(players, dict):
        raise where.error(f"expected a dictionary of Player(...), not {describe_value(players)}")
    result = {}
    for code, token in players.items():
        item = where.child(f"[{code!r}]")
        as_identifier(code, item)
        result[code] = parse_player(code, token, item, control.directory)
    return result


# ---------------------------------------------------------------------------
# Playoff


MATCHUP_ARGUMENTS: Final = ("id", "name", "alternating", "number_of_games", "sprt", *GAME_SETTINGS)


def _interpret_matchup_setting(name: str, value: object, where: Where) -> object:
    if name == "alternating":
        return as_bool(value, where)
    if name == "number_of_games":
        if value is None:
            return None
        count = as_int(value, where)
        if count < 0:
            raise where.error(f"must not be negative, not {count}")
        return count
    if name == "sprt":
        return sprt_from_control(value, where)
    return interpret_game_setting(name, value, where)


def parse_playoff(control: ControlFile) -> PlayoffSettings:
    defaults: dict[str, object] = {}
    for name in ("alternating", "number_of_games", *GAME_SETTINGS):
        if control.has(name):
            defaults[name] = _interpret_matchup_setting(
                name, control.get(name), control.where(name)
            )
    where = control.where("matchups")
    tokens = control.get("matchups")
    if not isinstance(tokens, (list, tuple)) or not tokens:
        raise where.error("expected a non-empty list of Matchup(...)")
    players = control.get("players")
    player_codes = set(players) if isinstance(players, dict) else set()
    matchups: list[MatchupConfig] = []
    seen: set[str] = set()
    for index, token in enumerate(tokens):
        if not isinstance(token, ConfigToken) or token.kind != "Matchup":
            raise where.error(f"item {index}: expected Matchup(...), not {describe_value(token)}")
        label = token.kwargs.get("id", index)
        item = Where(where.path, f"matchup {label}", token.line or where.line)
        matchup = _parse_matchup(token, index, defaults, player_codes, item, control.path.stem)
        if matchup.id in seen:
            raise item.error(f"duplicate matchup id {matchup.id!r}")
        seen.add(matchup.id)
        matchups.append(matchup)
    return PlayoffSettings(tuple(matchups))


def _parse_matchup(
    token: ConfigToken,
    index: int,
    defaults: Mapping[str, object],
    player_codes: set[str],
    where: Where,
    code: str,
) -> MatchupConfig:
    if len(token.args) != 2:
        raise where.error("Matchup needs two player codes")
    for name in token.kwargs:
        if name not in MATCHUP_ARGUMENTS:
            raise where.error(f"unknown Matchup argument {name!r}")
    player_1, player_2 = (as_str(arg, where) for arg in token.args)
    for player in (player_1, player_2):
        if player not in player_codes:
            raise where.error(f"unknown player {player!r}")
    if player_1 == player_2:
        raise where.error("a matchup needs two different players")
    values = dict(defaults)
    for name, value in token.kwargs.items():
        if name in ("id", "name"):
            continue
        if value is None and name in ("handicap", "number_of_games"):
            values[name] = None
            continue
        values[name] = _interpret_matchup_setting(name, value, where.child(f": {name}"))
    matchup_id = str(index)
    if token.kwargs.get("id") is not None:
        matchup_id = as_identifier(token.kwargs["id"], where.child(": id"))
    name = f"{player_1} v {player_2}"
    event = code
    if token.kwargs.get("name") is not None:
        name = " ".join(as_str(token.kwargs["name"], where.child(": name")).split())
        event = f"{code} ({name})"
    alternating = bool(values.pop("alternating", False))
    number_of_games = values.pop("number_of_games", None)
    assert number_of_games is None or isinstance(number_of_games, int)
    sprt = values.pop("sprt", None)
    assert sprt is None or isinstance(sprt, SPRT)
    return MatchupConfig(
        id=matchup_id,
        name=name,
        player_1=player_1,
        player_2=player_2,
        settings=build_game_settings(values, where),
        alternating=alternating,
        number_of_games=number_of_games,
        event=event,
        sprt=sprt,
    )


register_competition_type(
    CompetitionType("playoff", {"Matchup": "Matchup", "SPRT": "SPRT"}, parse_playoff)
)


def _parse_allplayall(control: ControlFile) -> object:
    from arena.allplayall import parse_allplayall  # late: arena.allplayall imports this module

    return parse_allplayall(control)


register_competition_type(CompetitionType("allplayall", {}, _parse_allplayall))


def _parse_mc_tuner(control: ControlFile) -> object:
    from arena.tuner_control import parse_mc_tuner  # late: it imports this module

    return parse_mc_tuner(control)


register_competition_type(
    CompetitionType(
        "mc_tuner", {"Parameter": "Parameter"}, _parse_mc_tuner, objects=PREDEFINED_SCALES
    )
)
