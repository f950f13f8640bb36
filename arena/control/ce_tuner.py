"""The cross-entropy tuner's control-file settings (``competition_type = "ce_tuner"``).

Owns :class:`CeTunerSettings` (the settings Gomill's cem_tuner documents:
``parameters`` with ``Parameter(code, initial_mean, initial_variance,
transform, format)``, ``make_candidate``, ``candidate_colour`` (``'b'``,
``'w'`` or ``'random'``), ``opponent``, ``number_of_generations``,
``samples_per_generation``, ``batch_size``, ``elite_proportion``,
``step_size`` and the game settings) and :func:`ce_candidate_player`, which
transforms a sample into engine parameters and calls ``make_candidate``.

Loading checks each ``transform`` and ``format`` at the initial mean and
makes the candidate at the initial means, so a bad function is a one-line
error then, not mid-run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.control.config import CompetitionConfig
from arena.control.namespace import ControlFile
from arena.control.openings import OpeningBook, openings_setting
from arena.control.settings import GameSettings, PlayerConfig, Where, as_float, as_str
from arena.control.tuner_common import (
    check_format,
    check_unique_codes,
    fraction,
    make_player,
    parameter_arguments,
    parameter_tokens,
    parse_candidate_colour,
    parse_game_settings,
    parse_make_candidate,
    parse_opponent,
    reject_other_types_settings,
    required_positive,
    user_error,
)
from arena.tuning.cem import Gaussian, Sample
from gtp.vertex import Colour

CE_PARAMETER_ARGUMENTS: Final = ("code", "initial_mean", "initial_variance", "transform", "format")
# Where a transform is tried to notice that it changed between runs (in standard deviations
# from the initial mean).
_PROBES: Final = (-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0)


def _identity(value: float) -> float:
    return value


@attrs.frozen
class CeParameter:
    """One ``Parameter`` of a cross-entropy tuner."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    code: str
    initial_mean: float
    initial_variance: float
    transform: Callable[[float], Any] = attrs.field(eq=False)
    format: str

    @property
    def transform_name(self) -> str:
        if self.transform is _identity:
            return "identity"
        return getattr(self.transform, "__name__", type(self.transform).__name__)

    def describe(self, engine_value: object) -> str:
        """The engine parameter through ``format`` (``[code?value]`` when it does not fit)."""
        try:
            return self.format % (engine_value,)
        except (TypeError, ValueError):
            return f"[{self.code}?{engine_value!r}]"

    def fingerprint(self) -> dict[str, Any]:
        """What must not change between runs (the format may)."""
        if self.transform is _identity:
            transform: Any = "identity"
        else:
            spread = math.sqrt(self.initial_variance) or 1.0
            transform = [_probe(self.transform, self.initial_mean + k * spread) for k in _PROBES]
        return {
            "code": self.code,
            "initial_mean": self.initial_mean,
            "initial_variance": self.initial_variance,
            "transform": transform,
        }


def _probe(transform: Callable[[float], Any], value: float) -> str:
    try:
        return repr(transform(value))
    except Exception as exc:
        return f"error: {type(exc).__name__}"


@attrs.frozen
class CeTunerSettings:
    """The ``ce_tuner`` part of a control file."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    parameters: tuple[CeParameter, ...]
    make_candidate: Callable[..., object] = attrs.field(eq=False)
    candidate_colour: Colour | None  # None: 'random', chosen for each game
    opponent: str
    settings: GameSettings
    number_of_generations: int
    samples_per_generation: int
    batch_size: int
    elite_proportion: float
    step_size: float
    # With openings, a sample's games 2k and 2k + 1 are a colour-swapped pair
    # from the k-th opening (so every sample meets the same openings).
    openings: OpeningBook | None = None

    @property
    def initial_distribution(self) -> Gaussian:
        return Gaussian(
            tuple(p.initial_mean for p in self.parameters),
            tuple(p.initial_variance for p in self.parameters),
        )

    @property
    def colour_text(self) -> str:
        return "random" if self.candidate_colour is None else self.candidate_colour.gtp_name

    def engine_parameters(self, sample: Sample, where: Where) -> tuple[object, ...]:
        """Each optimiser parameter through its ``transform`` (ControlFileError if one fails)."""
        values = []
        for parameter, value in zip(self.parameters, sample, strict=True):
            try:
                values.append(parameter.transform(value))
            except Exception as exc:
                item = Where(where.path, f"parameter {parameter.code}", where.line)
                raise user_error(item, f"transform failed at {value:g}", exc) from exc
        return tuple(values)

    def describe(self, sample: Sample) -> tuple[str, ...]:
        """Formatted engine parameters of ``sample`` (never raises: ``[code?]`` if needed)."""
        described = []
        for parameter, value in zip(self.parameters, sample, strict=True):
            try:
                engine_value = parameter.transform(value)
            except Exception:
                described.append(f"[{parameter.code}?{value:g}]")
                continue
            described.append(parameter.describe(engine_value))
        return tuple(described)


def ce_settings(config: CompetitionConfig) -> CeTunerSettings:
    if not isinstance(config.specific, CeTunerSettings):
        raise TypeError(f"{config.competition_type} competition is not a cross-entropy tuner")
    return config.specific


def ce_candidate_player(
    settings: CeTunerSettings, sample: Sample, code: str, where: Where, directory: Path
) -> PlayerConfig:
    """The Player for a sample: ``make_candidate(*transformed sample)`` with player ``code``."""
    values = settings.engine_parameters(sample, where)
    return make_player(settings.make_candidate, values, code, where, directory)


# ---------------------------------------------------------------------------
# Control file


def _parse_parameter(token: object, index: int, where: Where) -> CeParameter:
    code, arguments, item = parameter_arguments(
        token, index, CE_PARAMETER_ARGUMENTS, ("initial_mean", "initial_variance"), where
    )
    mean = as_float(arguments["initial_mean"], item.child(": initial_mean"))
    variance = as_float(arguments["initial_variance"], item.child(": initial_variance"))
    if variance < 0:
        raise item.error(f"initial_variance must not be negative, not {variance:g}")
    transform = arguments.get("transform")
    if transform is None:
        transform = _identity
    elif not callable(transform):
        raise item.error(f"transform must be a function, not {transform!r}")
    text = arguments.get("format")
    fmt = f"{code}: %s" if text is None else as_str(text, item.child(": format"))
    try:
        value = transform(mean)
    except Exception as exc:
        raise user_error(item, f"transform failed at the initial mean {mean:g}", exc) from exc
    check_format(fmt, value, item)
    return CeParameter(code, mean, variance, transform, fmt)


def _parse_parameters(control: ControlFile) -> tuple[CeParameter, ...]:
    where = control.where("parameters")
    parameters = tuple(
        _parse_parameter(token, index, where)
        for index, token in enumerate(parameter_tokens(control))
    )
    check_unique_codes([p.code for p in parameters], where)
    return parameters


def parse_ce_tuner(control: ControlFile) -> CeTunerSettings:
    """Read and check every ``ce_tuner`` setting; raises ControlFileError."""
    reject_other_types_settings(control, "cross-entropy tuner")
    opponent = parse_opponent(control)
    colour = parse_candidate_colour(control, allow_random=True)
    generations = required_positive(control, "number_of_generations")
    samples = required_positive(control, "samples_per_generation")
    batch_size = required_positive(control, "batch_size")
    elite_proportion = fraction(control, "elite_proportion")
    step_size = fraction(control, "step_size")
    parameters = _parse_parameters(control)
    game_settings = parse_game_settings(control)
    openings = openings_setting(control, game_settings)
    if openings is not None and batch_size % 2:
        raise control.where("batch_size").error(
            f"must be even with openings (each opening is played twice, colours swapped),"
            f" not {batch_size}"
        )
    settings = CeTunerSettings(
        parameters=parameters,
        make_candidate=parse_make_candidate(control),
        candidate_colour=colour,
        opponent=opponent,
        settings=game_settings,
        number_of_generations=generations,
        samples_per_generation=samples,
        batch_size=batch_size,
        elite_proportion=elite_proportion,
        step_size=step_size,
        openings=openings,
    )
    means: Sequence[float] = settings.initial_distribution.means
    ce_candidate_player(
        settings, tuple(means), "candidate", control.where("make_candidate"), control.directory
    )
    return settings
