"""The Monte Carlo tuner's control-file settings and how a candidate's Player is made.

Owns the ``mc_tuner`` settings (``parameters`` with ``Parameter``, the scales
``LINEAR``/``LOG``/``EXPLICIT`` or user functions, ``make_candidate``,
``candidate_colour``, ``opponent``, the algorithm and reporting settings
(``selection_rule``: Gomill's ``'ucb'`` or ``'kl-ucb'``) and the game
settings; ``komi`` must be fractional) as the frozen
:class:`McTunerSettings`, and :func:`candidate_player`, which calls
``make_candidate(*engine_parameters)`` and checks the ``Player`` it returns.
Every first-generation candidate is made once when the file is loaded, so a
bad ``make_candidate`` or scale is a one-line error then, not mid-run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Final

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.control.config import CompetitionConfig
from arena.control.namespace import ControlFile
from arena.control.openings import OpeningBook, openings_setting
from arena.control.settings import (
    GameSettings,
    PlayerConfig,
    Where,
    as_choice,
    as_float,
    as_int,
    as_str,
    describe_value,
)
from arena.control.tuner_common import (
    check_format,
    check_unique_codes,
    make_player,
    optional_positive,
    parameter_arguments,
    parameter_tokens,
    parse_candidate_colour,
    parse_game_settings,
    parse_make_candidate,
    parse_opponent,
    reject_other_types_settings,
    required,
    user_error,
)
from arena.tuning.tuner_scales import ExplicitScale, ParameterSpec, centres
from arena.tuning.tuner_tree import SELECTION_RULES, SelectionRule, Space
from arena.tuning.tuner_tree import Path as TreePath
from gtp.vertex import Colour

PARAMETER_ARGUMENTS: Final = ("code", "scale", "split", "format")


@attrs.frozen
class McTunerSettings:
    """The ``mc_tuner`` part of a control file."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

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
    selection_rule: SelectionRule = "ucb"
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


def _parse_parameter(token: object, index: int, max_depth: int, where: Where) -> ParameterSpec:
    code, arguments, item = parameter_arguments(
        token, index, PARAMETER_ARGUMENTS, ("scale", "split"), where
    )
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
            raise user_error(item, f"scale failed at {f:g}", exc) from exc
        check_format(fmt, value, item)
    return spec


def _exploration(control: ControlFile, rule: SelectionRule) -> float:
    where = control.where("exploration_coefficient")
    if rule != "ucb" and not control.has("exploration_coefficient"):
        return 0.0  # not used by the other rules
    exploration = as_float(
        required(control, "exploration_coefficient", "a number such as 0.45"), where
    )
    if exploration < 0:
        raise where.error(f"must not be negative, not {exploration:g}")
    return exploration


def parse_mc_tuner(control: ControlFile) -> McTunerSettings:
    """Read and check every ``mc_tuner`` setting; raises ControlFileError."""
    reject_other_types_settings(control, "Monte Carlo tuner")
    opponent = parse_opponent(control)
    colour = parse_candidate_colour(control, allow_random=False)
    assert colour is not None
    rule: SelectionRule = "ucb"
    if control.has("selection_rule"):
        choice = as_choice(
            control.get("selection_rule"), SELECTION_RULES, control.where("selection_rule")
        )
        rule = "kl-ucb" if choice == "kl-ucb" else "ucb"
    exploration = _exploration(control, rule)
    initial_visits = as_int(
        required(control, "initial_visits", "a positive integer"), control.where("initial_visits")
    )
    if initial_visits < 1:
        raise control.where("initial_visits").error(
            f"must be a positive integer, not {initial_visits}"
        )
    initial_wins = as_int(
        required(control, "initial_wins", "an integer"), control.where("initial_wins")
    )
    if not 0 <= initial_wins <= initial_visits:
        raise control.where("initial_wins").error(
            f"must be between 0 and initial_visits ({initial_visits}), not {initial_wins}"
        )
    max_depth = optional_positive(control, "max_depth", 1)
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
    period = optional_positive(control, "log_tree_to_history_period", None)
    running = optional_positive(control, "number_of_running_simulations_to_show", 12)
    assert running is not None

    parameters = _parse_parameters(control, max_depth)
    make_candidate = parse_make_candidate(control)
    game_settings = parse_game_settings(control)
    if game_settings.komi == int(game_settings.komi):
        raise control.where("komi").error(
            "must be fractional for the Monte Carlo tuner (it cannot count jigos),"
            f" not {game_settings.komi:g}"
        )
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
        selection_rule=rule,
        openings=openings,
    )
    # make_candidate must give a good Player for every first-generation candidate.
    space = settings.space
    for index in range(space.branching):
        candidate_player(settings, (index,), control.where("make_candidate"), control.directory)
    return settings


def _parse_parameters(control: ControlFile, max_depth: int) -> tuple[ParameterSpec, ...]:
    where = control.where("parameters")
    parameters = tuple(
        _parse_parameter(token, index, max_depth, where)
        for index, token in enumerate(parameter_tokens(control))
    )
    check_unique_codes([p.code for p in parameters], where)
    return parameters


def candidate_player(
    settings: McTunerSettings, path: TreePath, where: Where, directory: Path
) -> PlayerConfig:
    """The Player for the candidate at ``path``: ``make_candidate(*engine_parameters)``."""
    code = settings.space.player_code(path)
    try:
        values = settings.engine_parameters(path)
    except Exception as exc:
        raise user_error(where, f"a scale failed for candidate {code}", exc) from exc
    return make_player(settings.make_candidate, values, code, where, directory)
