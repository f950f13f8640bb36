"""SPSA's pure arithmetic: the gain schedules, the perturbation, the update within bounds.

Simultaneous perturbation stochastic approximation (Spall), in the form the
chess testing frameworks (fishtest, OpenBench) give it, where each parameter
states the perturbation ``c_end`` and the learning rate ``r_end`` it should
have at the last iteration ``N``:

* ``c_k = c / k**gamma`` with ``c = c_end * N**gamma`` (so ``c_N = c_end``);
* ``a_k = a / (A + k)**alpha`` with ``a = r_end * c_end**2 * (A + N)**alpha``
  (so ``a_N / c_N**2 = r_end``); ``r_k = a_k / c_k**2``;
* iteration ``k`` (1-based) draws ``delta``, +1 or -1 for each parameter,
  plays ``theta + c_k*delta`` against ``theta - c_k*delta`` (each clipped to
  the parameter's bounds) and scores ``result`` = the plus side's points
  minus the minus side's over the iteration's games;
* then ``theta_i += r_k,i * c_k,i * result * delta_i`` (that is
  ``a_k,i / c_k,i * result * delta_i``), clipped to ``[min_i, max_i]``.

No I/O; ``delta`` comes from a stream fixed by the seed and ``k``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import attrs

Vector = tuple[float, ...]


@attrs.frozen
class Axis:
    """One parameter's bounds and its final perturbation and learning rate."""

    minimum: float
    maximum: float
    c_end: float
    r_end: float

    def clip(self, value: float) -> float:
        return min(max(value, self.minimum), self.maximum)


@attrs.frozen
class Schedule:
    """The gain sequences of an SPSA run of ``iterations`` iterations."""

    iterations: int  # N
    a_constant: float  # A (the stability constant)
    alpha: float = 0.602
    gamma: float = 0.101

    def c(self, axis: Axis, k: int) -> float:
        """The perturbation size at iteration ``k`` (1-based)."""
        return axis.c_end * math.pow(self.iterations / k, self.gamma)

    def a(self, axis: Axis, k: int) -> float:
        """The gain at iteration ``k``."""
        scale = (self.a_constant + self.iterations) / (self.a_constant + k)
        return axis.r_end * axis.c_end**2 * math.pow(scale, self.alpha)

    def r(self, axis: Axis, k: int) -> float:
        """The learning rate at iteration ``k``: ``a_k / c_k**2``."""
        return self.a(axis, k) / self.c(axis, k) ** 2


def perturbation(seed: int, k: int, dimension: int) -> tuple[int, ...]:
    """Iteration ``k``'s signs: +1 or -1 per parameter, the same for the same seed and ``k``."""
    rng = random.Random(seed * 1_000_003 + k)
    return tuple(1 if rng.random() < 0.5 else -1 for _ in range(dimension))


def perturbed(
    theta: Sequence[float],
    delta: Sequence[int],
    k: int,
    axes: Sequence[Axis],
    schedule: Schedule,
) -> tuple[Vector, Vector]:
    """``theta + c_k*delta`` and ``theta - c_k*delta``, each clipped to the bounds."""
    plus: list[float] = []
    minus: list[float] = []
    for value, sign, axis in zip(theta, delta, axes, strict=True):
        step = schedule.c(axis, k) * sign
        plus.append(axis.clip(value + step))
        minus.append(axis.clip(value - step))
    return tuple(plus), tuple(minus)


def pair_result(plus_points: Sequence[float]) -> float:
    """``result`` of an iteration: plus side's points minus the minus side's."""
    return sum(2.0 * points - 1.0 for points in plus_points)


def update(
    theta: Sequence[float],
    delta: Sequence[int],
    k: int,
    result: float,
    axes: Sequence[Axis],
    schedule: Schedule,
) -> Vector:
    """``theta`` after iteration ``k`` scored ``result``: a gradient step within the bounds."""
    return tuple(
        axis.clip(value + schedule.a(axis, k) / schedule.c(axis, k) * result * sign)
        for value, sign, axis in zip(theta, delta, axes, strict=True)
    )
