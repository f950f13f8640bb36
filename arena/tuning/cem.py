"""The cross-entropy method's pure arithmetic: a Gaussian per parameter, elites, the update.

As in section 3 of Chaslot, Winands, Szita and van den Herik, *Cross-entropy
for Monte-Carlo Tree Search* (ICGA Journal 31(3), 2008), with the choices
Gomill's ``ce_tuner`` made:

* the distribution is an independent Gaussian per optimiser parameter
  (a mean and a variance each);
* each generation draws ``samples_per_generation`` samples; the
  ``elite_count`` samples with the most wins are the elite, where
  ``elite_count = max(1, int(elite_proportion * samples + 0.5))``; equal
  wins are ranked by sample number (the earlier sample first);
* the elite's mean and variance (the population variance, dividing by the
  number of elites) are blended into the old ones with the step size:
  ``new = step_size * elite + (1 - step_size) * old``, for the mean and for
  the variance alike.

Also :class:`FinishedGeneration`, what a tuner's state keeps of each
finished generation.  No I/O; randomness comes from the ``random.Random``
the caller passes.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

Sample = tuple[float, ...]  # one optimiser parameter per Parameter


@attrs.frozen
class Gaussian:
    """Independent normal laws, one per parameter: ``means[i]`` and ``variances[i]``."""

    means: tuple[float, ...]
    variances: tuple[float, ...]

    def sample(self, rng: random.Random) -> Sample:
        return tuple(
            rng.gauss(mean, math.sqrt(variance))
            for mean, variance in zip(self.means, self.variances, strict=True)
        )

    def samples(self, count: int, rng: random.Random) -> list[Sample]:
        return [self.sample(rng) for _ in range(count)]

    def to_json(self) -> dict[str, Any]:
        return {"mean": list(self.means), "variance": list(self.variances)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], dimension: int) -> Gaussian:
        """Raises ValueError (or KeyError/TypeError) for data that does not fit."""
        means = tuple(_finite(v) for v in data["mean"])
        variances = tuple(_finite(v) for v in data["variance"])
        if len(means) != dimension or len(variances) != dimension:
            raise ValueError(f"a distribution of {len(means)} parameters, expected {dimension}")
        if any(v < 0 for v in variances):
            raise ValueError(f"negative variance in {variances!r}")
        return cls(means, variances)


def _finite(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"expected a number, not {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"expected a finite number, not {value!r}")
    return number


def elite_count(elite_proportion: float, samples_per_generation: int) -> int:
    """How many samples of a generation are elite (at least one)."""
    return max(1, int(elite_proportion * samples_per_generation + 0.5))


def ranking(wins: Sequence[float]) -> list[int]:
    """Sample numbers, most wins first; equal wins keep sample order."""
    return sorted(range(len(wins)), key=lambda number: (-wins[number], number))


def elite_statistics(elites: Sequence[Sample]) -> Gaussian:
    """The elite samples' mean and population variance, per parameter."""
    if not elites:
        raise ValueError("no elite samples")
    count = len(elites)
    means: list[float] = []
    variances: list[float] = []
    for axis in range(len(elites[0])):
        values = [sample[axis] for sample in elites]
        mean = math.fsum(values) / count
        means.append(mean)
        variances.append(math.fsum((v - mean) ** 2 for v in values) / count)
    return Gaussian(tuple(means), tuple(variances))


def update_distribution(old: Gaussian, elites: Sequence[Sample], step_size: float) -> Gaussian:
    """The next generation's distribution: the elite's statistics smoothed by ``step_size``."""
    elite = elite_statistics(elites)
    keep = 1.0 - step_size
    return Gaussian(
        tuple(
            step_size * new + keep * before
            for new, before in zip(elite.means, old.means, strict=True)
        ),
        tuple(
            step_size * new + keep * before
            for new, before in zip(elite.variances, old.variances, strict=True)
        ),
    )


@attrs.frozen
class GenerationOutcome:
    """What a finished generation decided: the ranking, the elite and the next distribution."""

    order: tuple[int, ...]  # sample numbers, most wins first
    elite: tuple[int, ...]  # the first ``elite_count`` of ``order``
    next_distribution: Gaussian


def finish_generation(
    distribution: Gaussian,
    samples: Sequence[Sample],
    wins: Sequence[float],
    *,
    elite_proportion: float,
    step_size: float,
) -> GenerationOutcome:
    """Rank a generation's samples by wins, take the elite, update the distribution."""
    if len(samples) != len(wins):
        raise ValueError(f"{len(samples)} samples but {len(wins)} win counts")
    order = ranking(wins)
    elite = order[: elite_count(elite_proportion, len(samples))]
    updated = update_distribution(distribution, [samples[n] for n in elite], step_size)
    return GenerationOutcome(tuple(order), tuple(elite), updated)


@attrs.frozen
class FinishedGeneration:
    """What the state keeps of a finished generation (for the reports).

    ``samples`` and ``wins`` (every sample of the generation and its wins, in
    sample order) are empty in a state written before they were kept.
    """

    number: int
    distribution: Gaussian
    games: int
    elite_count: int
    best: int
    best_sample: Sample
    best_wins: float
    elite_mean: Sample
    samples: tuple[Sample, ...] = ()
    wins: tuple[float, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "distribution": self.distribution.to_json(),
            "games": self.games,
            "elite_count": self.elite_count,
            "best": self.best,
            "best_sample": list(self.best_sample),
            "best_wins": self.best_wins,
            "elite_mean": list(self.elite_mean),
            "samples": [list(sample) for sample in self.samples],
            "wins": list(self.wins),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], dimension: int) -> FinishedGeneration:
        best_sample = tuple(float(v) for v in data["best_sample"])
        elite_mean = tuple(float(v) for v in data["elite_mean"])
        samples = tuple(tuple(_finite(v) for v in sample) for sample in data.get("samples", ()))
        wins = tuple(_finite(w) for w in data.get("wins", ()))
        if len(best_sample) != dimension or len(elite_mean) != dimension:
            raise ValueError("a finished generation of another number of parameters")
        if any(len(sample) != dimension for sample in samples) or len(wins) != len(samples):
            raise ValueError("a finished generation's samples do not fit its parameters")
        return cls(
            int(data["number"]),
            Gaussian.from_json(data["distribution"], dimension),
            int(data["games"]),
            int(data["elite_count"]),
            int(data["best"]),
            best_sample,
            float(data["best_wins"]),
            elite_mean,
            samples,
            wins,
        )
