"""The SPSA tuner's control-file settings (``competition_type = "spsa_tuner"``).

Owns :class:`SpsaTunerSettings`: ``parameters`` with ``Parameter(code,
start, min, max, c_end, r_end, format)``, ``make_candidate``,
``number_of_iterations``, ``A`` (default a tenth of the iterations, the
usual rule of thumb), ``alpha`` (default 0.602), ``gamma`` (default 0.101)
and the game settings.  There is no opponent: each iteration's games are
``theta + c*delta`` against ``theta - c*delta``, so ``players`` may be
left out, and ``opponent`` and ``candidate_colour`` are refused.

Loading makes the candidate at the start values, so a bad
``make_candidate`` is a one-line error then, not mid-run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.control.config import CompetitionConfig
from arena.control.namespace import ControlFile
from arena.control.openings import OpeningBook, openings_setting
from arena.control.settings import GameSettings, PlayerConfig, Where, as_float, as_str
from arena.control.tuner_common import (
    check_format,
    check_unique_codes,
    make_player,
    parameter_arguments,
    parameter_tokens,
    parse_game_settings,
    parse_make_candidate,
    reject_other_types_settings,
    required_positive,
)
from arena.tuning.spsa import Axis, Schedule

SPSA_PARAMETER_ARGUMENTS: Final = ("code", "start", "min", "max", "c_end", "r_end", "format")
_NO_OPPONENT: Final = "the games are theta + c*delta against theta - c*delta, in both colours"


@attrs.frozen
class SpsaParameter:
    """One ``Parameter`` of an SPSA tuner."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    code: str
    start: float
    axis: Axis
    format: str

    def describe(self, value: float) -> str:
        try:
            return self.format % (value,)
        except (TypeError, ValueError):
            return f"[{self.code}?{value!r}]"

    def fingerprint(self) -> dict[str, object]:
        """What must not change between runs (the format may)."""
        axis = self.axis
        return {
            "code": self.code,
            "start": self.start,
            "min": axis.minimum,
            "max": axis.maximum,
            "c_end": axis.c_end,
            "r_end": axis.r_end,
        }


@attrs.frozen
class SpsaTunerSettings:
    """The ``spsa_tuner`` part of a control file."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    parameters: tuple[SpsaParameter, ...]
    make_candidate: Callable[..., object] = attrs.field(eq=False)
    settings: GameSettings
    schedule: Schedule
    # With openings, iteration k's two games both start from the k-th opening.
    openings: OpeningBook | None = None

    @property
    def axes(self) -> tuple[Axis, ...]:
        return tuple(p.axis for p in self.parameters)

    @property
    def start(self) -> tuple[float, ...]:
        return tuple(p.start for p in self.parameters)

    def describe(self, theta: Sequence[float]) -> tuple[str, ...]:
        return tuple(p.describe(v) for p, v in zip(self.parameters, theta, strict=True))


def spsa_settings(config: CompetitionConfig) -> SpsaTunerSettings:
    if not isinstance(config.specific, SpsaTunerSettings):
        raise TypeError(f"{config.competition_type} competition is not an SPSA tuner")
    return config.specific


def spsa_candidate_player(
    settings: SpsaTunerSettings, theta: Sequence[float], code: str, where: Where, directory: Path
) -> PlayerConfig:
    """``make_candidate(*theta)`` as the player ``code``."""
    return make_player(settings.make_candidate, tuple(theta), code, where, directory)


# ---------------------------------------------------------------------------
# Control file


def _parse_parameter(token: object, index: int, where: Where) -> SpsaParameter:
    needed = ("start", "min", "max", "c_end", "r_end")
    code, arguments, item = parameter_arguments(
        token, index, SPSA_PARAMETER_ARGUMENTS, needed, where
    )
    values = {name: as_float(arguments[name], item.child(f": {name}")) for name in needed}
    low, high = values["min"], values["max"]
    if not low < high:
        raise item.error(f"min ({low:g}) must be below max ({high:g})")
    if not low <= values["start"] <= high:
        raise item.error(f"start ({values['start']:g}) must be between min and max")
    for name in ("c_end", "r_end"):
        if values[name] <= 0:
            raise item.error(f"{name} must be positive, not {values[name]:g}")
    text = arguments.get("format")
    fmt = f"{code}: %s" if text is None else as_str(text, item.child(": format"))
    check_format(fmt, values["start"], item)
    axis = Axis(low, high, values["c_end"], values["r_end"])
    return SpsaParameter(code, values["start"], axis, fmt)


def _positive_float(control: ControlFile, name: str, default: float) -> float:
    if not control.has(name):
        return default
    value = as_float(control.get(name), control.where(name))
    if value <= 0:
        raise control.where(name).error(f"must be positive, not {value:g}")
    return value


def parse_spsa_tuner(control: ControlFile) -> SpsaTunerSettings:
    """Read and check every ``spsa_tuner`` setting; raises ControlFileError."""
    reject_other_types_settings(control, "SPSA tuner")
    for name in ("opponent", "candidate_colour"):
        if control.has(name):
            raise control.where(name).error(f"not used by the SPSA tuner ({_NO_OPPONENT})")
    iterations = required_positive(control, "number_of_iterations")
    a_constant = 0.1 * iterations
    if control.has("A"):
        a_constant = as_float(control.get("A"), control.where("A"))
        if a_constant < 0:
            raise control.where("A").error(f"must not be negative, not {a_constant:g}")
    schedule = Schedule(
        iterations,
        a_constant,
        alpha=_positive_float(control, "alpha", 0.602),
        gamma=_positive_float(control, "gamma", 0.101),
    )
    where = control.where("parameters")
    parameters = tuple(
        _parse_parameter(token, index, where)
        for index, token in enumerate(parameter_tokens(control))
    )
    check_unique_codes([p.code for p in parameters], where)
    game_settings = parse_game_settings(control)
    settings = SpsaTunerSettings(
        parameters=parameters,
        make_candidate=parse_make_candidate(control),
        settings=game_settings,
        schedule=schedule,
        openings=openings_setting(control, game_settings),
    )
    spsa_candidate_player(
        settings, settings.start, "candidate", control.where("make_candidate"), control.directory
    )
    return settings
