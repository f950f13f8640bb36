"""The Monte Carlo tuner's parameters: the predefined scales and one ``Parameter``'s spec.

Owns ``LINEAR``, ``LOG`` and ``EXPLICIT`` (callable, comparable, with the
text reports show and the fingerprint that state files keep), the centres
at which a first generation samples optimiser space, and
:class:`ParameterSpec` (code, scale, split, format).  Pure.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs


def _number(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number, not {value!r}")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name} must be finite, not {value!r}")
    return result


def _round_half_up(value: float) -> int:
    """Nearest integer, halves away from zero (not Python's round-half-even)."""
    return math.floor(value + 0.5) if value >= 0 else -math.floor(-value + 0.5)


def _format_bound(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


@attrs.frozen(init=False)
class LinearScale:
    """``LINEAR(lower_bound, upper_bound, integer=False)``: ``f -> lower + f*(upper-lower)``."""

    lower_bound: float
    upper_bound: float
    integer: bool

    def __init__(self, lower_bound: float, upper_bound: float, integer: bool = False) -> None:
        self.__attrs_init__(
            _number(lower_bound, "LINEAR lower bound"),
            _number(upper_bound, "LINEAR upper bound"),
            bool(integer),
        )

    def __call__(self, f: float) -> float | int:
        value = self.lower_bound + f * (self.upper_bound - self.lower_bound)
        return _round_half_up(value) if self.integer else value

    def describe(self) -> str:
        suffix = ", integer=True" if self.integer else ""
        low, high = _format_bound(self.lower_bound), _format_bound(self.upper_bound)
        return f"LINEAR({low}, {high}{suffix})"

    def fingerprint(self) -> list[Any]:
        return ["LINEAR", self.lower_bound, self.upper_bound, self.integer]


@attrs.frozen(init=False)
class LogScale:
    """``LOG(lower_bound, upper_bound, integer=False)``: ``f -> lower*(upper/lower)**f``."""

    lower_bound: float
    upper_bound: float
    integer: bool

    def __init__(self, lower_bound: float, upper_bound: float, integer: bool = False) -> None:
        low = _number(lower_bound, "LOG lower bound")
        high = _number(upper_bound, "LOG upper bound")
        if low <= 0 or high <= 0:
            raise ValueError(f"LOG bounds must be positive, not {lower_bound!r}, {upper_bound!r}")
        self.__attrs_init__(low, high, bool(integer))

    def __call__(self, f: float) -> float | int:
        low = math.log(self.lower_bound)
        value = math.exp(low + f * (math.log(self.upper_bound) - low))
        return _round_half_up(value) if self.integer else value

    def describe(self) -> str:
        suffix = ", integer=True" if self.integer else ""
        low, high = _format_bound(self.lower_bound), _format_bound(self.upper_bound)
        return f"LOG({low}, {high}{suffix})"

    def fingerprint(self) -> list[Any]:
        return ["LOG", self.lower_bound, self.upper_bound, self.integer]


@attrs.frozen(init=False)
class ExplicitScale:
    """``EXPLICIT(values)``: the unit interval cut into ``len(values)`` equal parts."""

    values: tuple[Any, ...]

    def __init__(self, values: Sequence[Any]) -> None:
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
            raise ValueError(f"EXPLICIT needs a non-empty list of values, not {values!r}")
        self.__attrs_init__(tuple(values))

    def __call__(self, f: float) -> Any:
        index = int(f * len(self.values))
        return self.values[min(max(index, 0), len(self.values) - 1)]

    def describe(self) -> str:
        return f"EXPLICIT({list(self.values)!r})"

    def fingerprint(self) -> list[Any]:
        return ["EXPLICIT", [repr(value) for value in self.values]]


Scale = Callable[[float], Any]
PREDEFINED_SCALES: Mapping[str, type] = {
    "LINEAR": LinearScale,
    "LOG": LogScale,
    "EXPLICIT": ExplicitScale,
}


def centres(split: int) -> list[float]:
    """The optimiser parameters of a first generation: centres of ``split`` equal divisions."""
    return [(k + 0.5) / split for k in range(split)]


@attrs.frozen
class ParameterSpec:
    """One ``Parameter``: code, scale, split and display format."""

    code: str
    scale: Scale = attrs.field(eq=False)
    split: int
    format: str

    def format_value(self, value: object) -> str:
        return self.format % (value,)

    def fingerprint(self) -> dict[str, Any]:
        """What must not change between runs (the format may)."""
        scale = self.scale
        if isinstance(scale, (LinearScale, LogScale, ExplicitScale)):
            described: Any = scale.fingerprint()
        else:
            described = ["function", [repr(scale(f)) for f in centres(self.split)]]
        return {"code": self.code, "split": self.split, "scale": described}
