"""The Monte Carlo tuner's control-file settings and how a candidate's Player is made.

Owns the ``mc_tuner`` settings (``parameters`` with ``Parameter``, the scales
``LINEAR``/``LOG``/``EXPLICIT`` or user functions, ``make_candidate``,
``candidate_colour``, ``opponent``, the algorithm and reporting settings and
the game settings; ``komi`` must be fractional) as the frozen
:class:`McTunerSettings`, and :func:`candidate_player`, which calls
``make_candidate(*engine_parameters)`` and checks the ``Player`` it returns.
Every first-generation candidate is made once when the file is loaded, so a
bad ``make_candidate`` or scale is a one-line error then, not mid-run.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Final

import attrs

from arena.competitions.tuner_tree import ExplicitScale, ParameterSpec, Space, centres
from arena.competitions.tuner_tree import Path as TreePath
from arena.control.config import CompetitionConfig
from arena.control.namespace import ControlFile
from arena.control.openings import OpeningBook, openings_setting
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
    as_str,
    build_game_settings,
    describe_value,
    interpret_game_setting,
    parse_player,
)
from arena.errors import ControlFileError
from gtp.vertex import Colour

PARAMETER_ARGUMENTS: Final = ("code", "scale", "split", "format")
_NOT_FOR_TUNER: Final = {
    "matchups": "a tuner plays candidates against the opponent; matchups are for playoffs",
    "competitors": "competitors are for all-play-all tournaments",
}


@attrs.frozen
class McTunerSettings:
    """The ``mc_tuner`` part of a control file."""

    parameters: tuple[ParameterSpec, ...]
    make_candidate: Callable[..., object] = attrs.field(eq=False)
    candidate_colour: Colour
    opponent: str
    settings: GameSettings
    exploration_coefficient: float
    initial_visits: int
    initial_wins: int
    max_depth: int = 1
    number_of_games: int | None = None
    summary_spec: tuple[int, ...] = (30,)
    log_tree_to_history_period: int | None = None
    number_of_running_simulations_to_show: int = 12
    # With openings, a candidate plays each opening twice, colours swapped
    # (candidate_colour in the first game of the pair).
    openings: OpeningBook | None = None

    @property
    def space(self) -> Space:
        return Space(tuple(p.split for p in self.parameters))

    def engine_parameters(self, path: TreePath) -> tuple[object, ...]:
        """The engine parameters of the candidate at ``path`` (each scale at its centre)."""
        optimiser = self.space.optimiser_parameters(path)
        return tuple(p.scale(f) for p, f in zip(self.parameters, optimiser, strict=True))

    def formatted(self, values: tuple[object, ...]) -> tuple[str, ...]:
        return tuple(p.format_value(v) for p, v in zip(self.parameters, values, strict=True))

    def shown_at_level(self, level: int) -> int:
        """How many candidates to show at ``level`` (1-based): ``summary_spec``, last repeated."""
        spec = self.summary_spec
        if not spec:
            return 0
        return spec[min(level, len(spec)) - 1]


def tuner_settings(config: CompetitionConfig) -> McTunerSettings:
    if not isinstance(config.specific, McTunerSettings):
        raise TypeError(f"{config.competition_type} competition is not a Monte Carlo tuner")
    return config.specific


# ---------------------------------------------------------------------------
# Control file


def _line_in(exc: BaseException, path: Path) -> int | None:
    """The last line of the control file in ``exc``'s traceback, if any."""
    filename = str(path.resolve())
    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == filename:
            line = lineno
    return line


def _user_error(where: Where, what: str, exc: Exception) -> ControlFileError:
    line = _line_in(exc, where.path)
    return Where(where.path, where.setting, line or where.line).error(
        f"{what}: {type(exc).__name__}: {exc}"
    )


def _parse_parameter(token: object, index: int, max_depth: int, where: Where) -> ParameterSpec:
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
        if name not in PARAMETER_ARGUMENTS:
            raise where.error(f"item {index}: unknown Parameter argument {name!r}")
    for name in ("code", "scale", "split"):
        if arguments.get(name) is None:
            raise where.error(f"item {index}: Parameter needs {name}")
    code = as_identifier(arguments["code"], where)
    item = Where(where.path, f"parameter {code}", token.line or where.line)
    scale = arguments["scale"]
    if not callable(scale):
        raise item.error(
            f"scale must be a function such as LINEAR(0, 1), not {describe_value(scale)}"
        )
    split = as_int(arguments["split"], item.child(": split"))
    if split < 1:
        raise item.error(f"split must be a positive integer, not {split}")
    text = arguments.get("format")
    fmt = f"{code}: %s" if text is None else as_str(text, item.child(": format"))
    if isinstance(scale, ExplicitScale) and max_depth > 1 and len(scale.values) != split**max_depth:
        raise item.error(
            f"with max_depth {max_depth} and split {split}, EXPLICIT needs"
            f" {split}**{max_depth} = {split**max_depth} values, not {len(scale.values)}"
        )
    spec = ParameterSpec(code, scale, split, fmt)
    for f in centres(split):
        try:
            value = scale(f)
        except Exception as exc:
            raise _user_error(item, f"scale failed at {f:g}", exc) from exc
        try:
            spec.format_value(value)
        except (TypeError, ValueError) as exc:
            raise item.error(f"format {fmt!r} cannot show {describe_value(value)}: {exc}") from exc
    return spec


def _optional_positive(control: ControlFile, name: str, default: int | None) -> int | None:
    if not control.has(name):
        return default
    value = as_int(control.get(name), control.where(name))
    if value < 1:
        raise control.where(name).error(f"must be a positive integer, not {value}")
    return value


def _required(control: ControlFile, name: str, what: str) -> object:
    if not control.has(name):
        raise control.where(name).error(f"not set ({what})")
    return control.get(name)


def parse_mc_tuner(control: ControlFile) -> McTunerSettings:
    """Read and check every ``mc_tuner`` setting; raises ControlFileError."""
    for name, why in _NOT_FOR_TUNER.items():
        if control.has(name):
            raise control.where(name).error(f"not used by the Monte Carlo tuner ({why})")
    players = control.get("players")
    known = set(players) if isinstance(players, dict) else set()
    where = control.where("opponent")
    opponent = as_identifier(_required(control, "opponent", "the opponent's player code"), where)
    if opponent not in known:
        raise where.error(f"unknown player {opponent!r}")
    colour_text = _required(control, "candidate_colour", "'b' or 'w'")
    colour = Colour.parse(as_choice(colour_text, ("b", "w"), control.where("candidate_colour")))
    exploration = as_float(
        _required(control, "exploration_coefficient", "a number such as 0.45"),
        control.where("exploration_coefficient"),
    )
    if exploration < 0:
        raise control.where("exploration_coefficient").error(
            f"must not be negative, not {exploration:g}"
        )
    initial_visits = as_int(
        _required(control, "initial_visits", "a positive integer"), control.where("initial_visits")
    )
    if initial_visits < 1:
        raise control.where("initial_visits").error(
            f"must be a positive integer, not {initial_visits}"
        )
    initial_wins = as_int(
        _required(control, "initial_wins", "an integer"), control.where("initial_wins")
    )
    if not 0 <= initial_wins <= initial_visits:
        raise control.where("initial_wins").error(
            f"must be between 0 and initial_visits ({initial_visits}), not {initial_wins}"
        )
    max_depth = _optional_positive(control, "max_depth", 1)
    assert max_depth is not None
    number_of_games = None
    if control.has("number_of_games"):
        number_of_games = as_int(control.get("number_of_games"), control.where("number_of_games"))
        if number_of_games < 0:
            raise control.where("number_of_games").error(
                f"must not be negative, not {number_of_games}"
            )
    summary_spec: tuple[int, ...] = (30,)
    if control.has("summary_spec"):
        spec_where = control.where("summary_spec")
        listed = control.get("summary_spec")
        if not isinstance(listed, (list, tuple)):
            raise spec_where.error(f"expected a list of integers, not {describe_value(listed)}")
        summary_spec = tuple(as_int(n, spec_where) for n in listed)
        if any(n < 0 for n in summary_spec):
            raise spec_where.error("the counts must not be negative")
    period = _optional_positive(control, "log_tree_to_history_period", None)
    running = _optional_positive(control, "number_of_running_simulations_to_show", 12)
    assert running is not None

    parameters = _parse_parameters(control, max_depth)
    make_candidate = _required(control, "make_candidate", "a function returning a Player")
    if not callable(make_candidate):
        raise control.where("make_candidate").error(
            f"expected a function returning a Player, not {describe_value(make_candidate)}"
        )
    values: dict[str, object] = {}
    for name in GAME_SETTINGS:
        if control.has(name):
            values[name] = interpret_game_setting(name, control.get(name), control.where(name))
    for name in ("board_size", "komi"):
        if name not in values:
            raise control.where(name).error("not set (required for a tuner)")
    komi = values["komi"]
    assert isinstance(komi, float)
    if komi == int(komi):
        raise control.where("komi").error(
            f"must be fractional for the Monte Carlo tuner (it cannot count jigos), not {komi:g}"
        )
    game_settings = build_game_settings(values, control.where("board_size"))
    openings = openings_setting(control, game_settings)
    settings = McTunerSettings(
        parameters=parameters,
        make_candidate=make_candidate,
        candidate_colour=colour,
        opponent=opponent,
        settings=game_settings,
        exploration_coefficient=exploration,
        initial_visits=initial_visits,
        initial_wins=initial_wins,
        max_depth=max_depth,
        number_of_games=number_of_games,
        summary_spec=summary_spec,
        log_tree_to_history_period=period,
        number_of_running_simulations_to_show=running,
        openings=openings,
    )
    # make_candidate must give a good Player for every first-generation candidate.
    space = settings.space
    for index in range(space.branching):
        candidate_player(settings, (index,), control.where("make_candidate"), control.directory)
    return settings


def _parse_parameters(control: ControlFile, max_depth: int) -> tuple[ParameterSpec, ...]:
    where = control.where("parameters")
    tokens = _required(control, "parameters", "a list of Parameter(...)")
    if not isinstance(tokens, (list, tuple)) or not tokens:
        raise where.error("expected a non-empty list of Parameter(...)")
    parameters = tuple(
        _parse_parameter(token, index, max_depth, where) for index, token in enumerate(tokens)
    )
    codes = [p.code for p in parameters]
    for code in codes:
        if codes.count(code) > 1:
            raise where.error(f"duplicate parameter code {code!r}")
    return parameters


def candidate_player(
    settings: McTunerSettings, path: TreePath, where: Where, directory: Path
) -> PlayerConfig:
    """The Player for the candidate at ``path``: ``make_candidate(*engine_parameters)``."""
    code = settings.space.player_code(path)
    try:
        values = settings.engine_parameters(path)
    except Exception as exc:
        raise _user_error(where, f"a scale failed for candidate {code}", exc) from exc
    try:
        token = settings.make_candidate(*values)
    except Exception as exc:
        raise _user_error(where, f"failed for candidate {code}", exc) from exc
    if not isinstance(token, ConfigToken) or token.kind != "Player":
        raise where.error(
            f"must return a Player(...), not {describe_value(token)} (candidate {code})"
        )
    return parse_player(code, token, where.child(f" (candidate {code})"), directory)
