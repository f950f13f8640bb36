"""Match statistics (pure): win rates, Elo with intervals, LOS and SPRT.

Everything here is plain arithmetic on counts, standard library only, so the
competitions, reports and the dashboard can call it on every result.

Counting.  A :class:`WDL` tally is kept from one player's side.  A jigo is a
draw (half a point each, as Gomill counts it).  A game that counts but has no
known winner and is not a jigo (unscorable, scorers disagreed, stopped at
``move_limit``) is kept as ``unknown``: it is shown, but it is left out of every
figure here, because it says nothing about who is stronger.

Elo is the logistic scale: a score fraction ``p`` is worth
``-400 * log10(1/p - 1)`` Elo, so 75 % is about +190.85 and 90 % about +381.7.
Intervals are two-sided normal-approximation intervals at ``confidence``
(default 95 %).  Elo values are ``math.inf`` / ``-math.inf`` for a score of
100 % / 0 %; see :func:`elo_estimate` for how intervals behave there.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence

import attrs

from arena import fields_eq, fields_hash, fields_repr

DEFAULT_CONFIDENCE = 0.95


def z_value(confidence: float) -> float:
    """The two-sided normal quantile: 1.95996... for 0.95."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence!r}")
    return normal_quantile(0.5 + confidence / 2.0)


# AS241's coefficients, highest power first: numerator and denominator of the central
# region (|p - 0.5| <= 0.425), of the tails up to r = 5, and beyond.
_CENTRAL = (
    (2.5090809287301226727e3, 3.3430575583588128105e4, 6.7265770927008700853e4,
     4.5921953931549871457e4, 1.3731693765509461125e4, 1.9715909503065514427e3,
     1.3314166789178437745e2, 3.3871328727963666080e0),
    (5.2264952788528545610e3, 2.8729085735721942674e4, 3.9307895800092710610e4,
     2.1213794301586595867e4, 5.3941960214247511077e3, 6.8718700749205790830e2,
     4.2313330701600911252e1, 1.0),
)  # fmt: skip
_NEAR_TAIL = (
    (7.7454501427834140764e-4, 2.2723844989269184583e-2, 2.4178072517745061177e-1,
     1.2704582524523683826e0, 3.6478483247632046050e0, 5.7694972214606914055e0,
     4.6303378461565452959e0, 1.4234371107496835773e0),
    (1.0507500716444168432e-9, 5.4759380849953449460e-4, 1.5198666563616457197e-2,
     1.4810397642748007459e-1, 6.8976733498510000455e-1, 1.6763848301838038494e0,
     2.0531916266377588219e0, 1.0),
)  # fmt: skip
_FAR_TAIL = (
    (2.0103343992922881327e-7, 2.7115555687434875782e-5, 1.2426609473880784386e-3,
     2.6532189526576123093e-2, 2.9656057182850489123e-1, 1.7848265399172913358e0,
     5.4637849111641143699e0, 6.6579046435011037772e0),
    (2.0442631033899397856e-15, 1.4215117583164458887e-7, 1.8463183175100546818e-5,
     7.8686913114561325910e-4, 1.4875361290850614853e-2, 1.3692988092273580531e-1,
     5.9983220655588793769e-1, 1.0),
)  # fmt: skip


def _polynomial(coefficients: tuple[float, ...], r: float) -> float:
    """Horner's rule, highest power first (the standard library's order of operations)."""
    value = coefficients[0]
    for coefficient in coefficients[1:]:
        value = value * r + coefficient
    return value


def normal_quantile(p: float) -> float:
    """The standard normal distribution's inverse CDF at ``p`` in (0, 1).

    ``statistics.NormalDist().inv_cdf(p)``, computed as the standard library computes it
    (Wichura, M.J. (1988), "Algorithm AS241: The Percentage Points of the Normal
    Distribution", Applied Statistics 37 (3): 477-484), without importing ``statistics``
    and with it ``fractions`` and ``decimal`` (4 ms of CPU at every start of the arena).
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be between 0 and 1, not {p!r}")
    q = p - 0.5
    if math.fabs(q) <= 0.425:
        r = 0.180625 - q * q
        numerator, denominator = _CENTRAL
        return _polynomial(numerator, r) * q / _polynomial(denominator, r)
    r = math.sqrt(-math.log(p if q <= 0.0 else 1.0 - p))
    if r <= 5.0:
        r, (numerator, denominator) = r - 1.6, _NEAR_TAIL
    else:
        r, (numerator, denominator) = r - 5.0, _FAR_TAIL
    x = _polynomial(numerator, r) / _polynomial(denominator, r)
    return -x if q < 0.0 else x


def elo_from_score(score: float) -> float:
    """Logistic Elo difference for an expected score fraction in [0, 1] (±inf at the ends)."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score fraction must be in [0, 1], not {score!r}")
    if score == 0.0:
        return -math.inf
    if score == 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score fraction for a logistic Elo difference (inverse of :func:`elo_from_score`)."""
    if elo < 0.0:  # the same value, written so that 10^x cannot overflow
        odds = math.pow(10.0, elo / 400.0)
        return odds / (1.0 + odds)
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


# ---------------------------------------------------------------------------
# Tallies

_GAME_SCORES = (0.0, 0.5, 1.0)


@attrs.frozen
class WDL:
    """Wins, losses, draws (jigos) and unknown results, from one player's side."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    wins: int = 0
    losses: int = 0
    draws: int = 0
    unknown: int = 0

    def __attrs_post_init__(self) -> None:
        if min(self.wins, self.losses, self.draws, self.unknown) < 0:
            raise ValueError(f"negative count in {self!r}")

    @classmethod
    def from_scores(cls, scores: Iterable[float | None]) -> WDL:
        """Tally game scores for the player: 1 win, 0.5 jigo, 0 loss, None unknown."""
        counts = {1.0: 0, 0.0: 0, 0.5: 0}
        unknown = 0
        for score in scores:
            if score is None:
                unknown += 1
            elif score in counts:
                counts[score] += 1
            else:
                raise ValueError(f"a game score must be 0, 0.5, 1 or None, not {score!r}")
        return cls(counts[1.0], counts[0.0], counts[0.5], unknown)

    @property
    def games(self) -> int:
        """Games with a known outcome (unknown results excluded)."""
        return self.wins + self.losses + self.draws

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        """Score fraction (a jigo is half a win); 0.5 when no game has a known outcome."""
        return self.points / self.games if self.games else 0.5

    def __add__(self, other: WDL) -> WDL:
        return WDL(
            self.wins + other.wins,
            self.losses + other.losses,
            self.draws + other.draws,
            self.unknown + other.unknown,
        )

    def swapped(self) -> WDL:
        """The same games from the opponent's side."""
        return WDL(self.losses, self.wins, self.draws, self.unknown)


@attrs.frozen
class Pentanomial:
    """Games played in colour-swapped pairs, counted by the player's score in the pair.

    ``counts[k]`` is the number of pairs in which the player scored ``k / 2``
    points (0, 0.5, 1, 1.5, 2), as fastchess counts them.  ``incomplete``
    counts pairs left out because a game's result was unknown.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    incomplete: int = 0

    def __attrs_post_init__(self) -> None:
        if len(self.counts) != 5 or min(self.counts) < 0 or self.incomplete < 0:
            raise ValueError(f"bad pentanomial counts {self.counts!r}")

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[float | None, float | None]]) -> Pentanomial:
        """Count pairs of game scores (1, 0.5, 0, or None for unknown) for the player."""
        counts = [0, 0, 0, 0, 0]
        incomplete = 0
        for first, second in pairs:
            if first is None or second is None:
                incomplete += 1
                continue
            if first not in _GAME_SCORES or second not in _GAME_SCORES:
                raise ValueError(f"bad game scores in pair {(first, second)!r}")
            counts[int(2.0 * (first + second))] += 1
        return cls((counts[0], counts[1], counts[2], counts[3], counts[4]), incomplete)

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def score(self) -> float:
        """Score fraction over all games of the counted pairs; 0.5 when there are none."""
        if not self.pairs:
            return 0.5
        return sum(k * n for k, n in enumerate(self.counts)) / (4.0 * self.pairs)


# ---------------------------------------------------------------------------
# Per pairing


@attrs.frozen
class Interval:
    """A point estimate with a two-sided interval (``lower <= value <= upper``)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    value: float
    lower: float
    upper: float

    @property
    def margin(self) -> float:
        """Half the interval's width: the ``±`` figure (inf when a bound is infinite)."""
        return (self.upper - self.lower) / 2.0

    def contains(self, x: float) -> bool:
        return self.lower <= x <= self.upper


def wilson_interval(
    successes: float, trials: float, confidence: float = DEFAULT_CONFIDENCE
) -> Interval:
    """Proportion ``successes / trials`` with its Wilson score interval.

    Wilson (1927): centre ``(p + z²/2n) / (1 + z²/n)``, half-width
    ``z / (1 + z²/n) * sqrt(p(1-p)/n + z²/4n²)``.  Half successes (jigos) are
    allowed.  With no trials the proportion is 0.5 in [0, 1].
    """
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, not {successes!r}/{trials!r}")
    if trials == 0:
        return Interval(0.5, 0.0, 1.0)
    z = z_value(confidence)
    p = successes / trials
    z2n = z * z / trials
    centre = (p + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * math.sqrt(p * (1.0 - p) / trials + z2n / (4.0 * trials))
    # At k = 0 (k = n) the lower (upper) bound is exactly 0 (1); say so rather than trust rounding.
    lower = 0.0 if successes == 0 else max(0.0, centre - half)
    upper = 1.0 if successes == trials else min(1.0, centre + half)
    return Interval(p, lower, upper)


def _elo_from_mean(
    mean: float, variance: float, samples: int, games: int, confidence: float
) -> Interval:
    # cutechess/fastchess: the interval on the mean score is mean ± z·sqrt(var/N),
    # with var the sample's own (population) variance, mapped to Elo bound by bound.
    if samples == 0:
        return Interval(0.0, -math.inf, math.inf)
    if variance == 0.0:
        # Every game ended the same way (all wins, all losses or all jigos): the
        # interval would collapse to a point.  Use the Wilson interval on the score
        # instead, which is honest about small samples (and finite on the inner side).
        wilson = wilson_interval(mean * games, games, confidence)
        return Interval(elo_from_score(mean), *map(elo_from_score, (wilson.lower, wilson.upper)))
    half = z_value(confidence) * math.sqrt(variance / samples)
    lower = max(0.0, mean - half)
    upper = min(1.0, mean + half)
    return Interval(elo_from_score(mean), elo_from_score(lower), elo_from_score(upper))


def elo_estimate(wdl: WDL, confidence: float = DEFAULT_CONFIDENCE) -> Interval:
    """Elo difference from a trinomial tally, with its interval.

    Per-game variance ``σ² = (W(1-μ)² + D(½-μ)² + L μ²) / N`` around the mean
    score ``μ``; bounds ``elo(μ ± z·σ/√N)``, clamped to scores in [0, 1] (so a
    bound can be ±inf).  When every game ended the same way the variance is 0, so
    the bounds come from the Wilson interval on the score instead; at 0 % or 100 %
    the estimate is then ∓inf/±inf with a finite inner bound.  No games: 0 in
    (-inf, inf).
    """
    n = wdl.games
    mean = wdl.score
    if n == 0:
        return Interval(0.0, -math.inf, math.inf)
    variance = (
        wdl.wins * (1.0 - mean) ** 2 + wdl.draws * (0.5 - mean) ** 2 + wdl.losses * mean**2
    ) / n
    return _elo_from_mean(mean, variance, n, n, confidence)


def pentanomial_elo_estimate(
    penta: Pentanomial, confidence: float = DEFAULT_CONFIDENCE
) -> Interval:
    """Elo difference from pair counts, with the interval from the pair variance (fastchess).

    Pair scores are normalised to 0, ¼, ½, ¾, 1; ``μ`` is their mean, ``σ²``
    their variance over the pairs, bounds ``elo(μ ± z·σ/√pairs)``.
    """
    n = penta.pairs
    mean = penta.score
    variance = sum(c * (k / 4.0 - mean) ** 2 for k, c in enumerate(penta.counts)) / n if n else 0.0
    return _elo_from_mean(mean, variance, n, 2 * n, confidence)


def likelihood_of_superiority(wdl: WDL) -> float:
    """LOS = Φ((W - L) / sqrt(W + L)), draws ignored; 0.5 with no decisive game.

    Normal approximation of the probability that the player is the stronger,
    as cutechess reports it (formula on the Chess Programming Wiki, "Match
    Statistics": LOS = ½[1 + erf((W - L) / sqrt(2W + 2L))]).
    """
    decisive = wdl.wins + wdl.losses
    if decisive == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wdl.wins - wdl.losses) / math.sqrt(2.0 * decisive)))


@attrs.frozen
class PairingStats:
    """The figures for one pairing, from the side of the player ``wdl`` counts for."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    wdl: WDL
    win_rate: Interval  # score fraction with its Wilson interval
    elo: Interval
    los: float


def pairing_stats(wdl: WDL, confidence: float = DEFAULT_CONFIDENCE) -> PairingStats:
    """Win rate (Wilson), Elo difference (trinomial) and LOS for one tally."""
    return PairingStats(
        wdl=wdl,
        win_rate=wilson_interval(wdl.points, wdl.games, confidence),
        elo=elo_estimate(wdl, confidence),
        los=likelihood_of_superiority(wdl),
    )


# ---------------------------------------------------------------------------
# SPRT


class SprtDecision(enum.Enum):
    ACCEPT_H0 = "H0"  # not better than elo0
    ACCEPT_H1 = "H1"  # at least elo1
    CONTINUE = "continue"


def _check_probability(_instance: object, attribute: attrs.Attribute[float], value: float) -> None:
    if not 0.0 < value < 1.0:
        raise ValueError(f"SPRT {attribute.name} must be between 0 and 1, not {value!r}")


SPRT_MODELS = ("trinomial", "pentanomial")


def _to_float(value: float) -> float:
    """``float`` as an attrs converter: a builtin's signature would cost attrs a parse of
    its text signature (tokenize's regexes, 2-4 ms of CPU at import)."""
    return float(value)


def _check_model(_instance: object, _attribute: object, value: str | None) -> None:
    if value is not None and value not in SPRT_MODELS:
        raise ValueError(f"SPRT model must be 'trinomial' or 'pentanomial', not {value!r}")


@attrs.frozen
class SPRT:
    """A sequential probability ratio test: H0 ``elo = elo0`` against H1 ``elo = elo1``.

    Elo is logistic Elo (see :func:`sprt_llr`).  ``alpha`` is the chance of
    accepting H1 when H0 holds, ``beta`` of accepting H0 when H1 holds.
    ``model`` is what the test counts: ``"trinomial"`` (games: loss, draw, win),
    ``"pentanomial"`` (colour-swapped pairs scoring 0, ½, 1, 1½ or 2), or None to
    choose by the matchup (pairs when its colours alternate, see
    :func:`arena.competitions.matchstats.sprt_model`).
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    elo0: float = attrs.field(converter=_to_float)
    elo1: float = attrs.field(converter=_to_float)
    alpha: float = attrs.field(default=0.05, converter=_to_float, validator=_check_probability)
    beta: float = attrs.field(default=0.05, converter=_to_float, validator=_check_probability)
    model: str | None = attrs.field(default=None, validator=_check_model, kw_only=True)

    def __attrs_post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT elo0 must be less than elo1 (got {self.elo0}, {self.elo1})")
        if self.alpha + self.beta >= 1.0:
            raise ValueError("SPRT alpha + beta must be less than 1")

    @property
    def lower_bound(self) -> float:
        """log(beta / (1 - alpha)): at or below it H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper_bound(self) -> float:
        """log((1 - beta) / alpha): at or above it H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    def decide(self, llr: float) -> SprtDecision:
        if llr >= self.upper_bound:
            return SprtDecision.ACCEPT_H1
        if llr <= self.lower_bound:
            return SprtDecision.ACCEPT_H0
        return SprtDecision.CONTINUE


@attrs.frozen
class SprtStatus:
    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    llr: float
    lower_bound: float
    upper_bound: float
    decision: SprtDecision
    model: str = "trinomial"  # what the LLR was computed on: "trinomial" or "pentanomial"


# A count of zero is replaced by this (as fastchess does) so that the constrained
# maximum-likelihood distributions below have every outcome in their support.
_ZERO_COUNT = 1e-3


def _constrained_log_mle(
    outcomes: Sequence[float], freqs: Sequence[float], mean: float
) -> list[float]:
    """log p_i of the distribution on ``outcomes`` with expectation ``mean`` nearest the data.

    Van den Bergh, "Comments on Normalized Elo" (2020), proposition 1.1: the
    maximum-likelihood p with Σ p_i a_i = s is p_i = p̂_i / (1 + θ(a_i - s)),
    with θ the root of Σ p̂_i (a_i - s) / (1 + θ(a_i - s)) = 0 in
    (-1/(a_max - s), -1/(a_min - s)); that sum falls strictly on the interval.
    """
    dev = [a - mean for a in outcomes]
    lo, hi = -1.0 / max(dev), -1.0 / min(dev)
    for _ in range(200):  # bisection: only the sign of the sum is trusted near the ends
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        total = sum(f * d / (1.0 + mid * d) for f, d in zip(freqs, dev, strict=True))
        if total > 0.0:
            lo = mid
        else:
            hi = mid
    theta = (lo + hi) / 2.0
    return [math.log(f) - math.log1p(theta * d) for f, d in zip(freqs, dev, strict=True)]


def _gsprt_llr(sprt: SPRT, outcomes: Sequence[float], counts: Sequence[int]) -> float:
    if sum(counts) == 0:
        return 0.0
    regular = [float(c) if c else _ZERO_COUNT for c in counts]
    total = sum(regular)
    freqs = [c / total for c in regular]
    log_p0 = _constrained_log_mle(outcomes, freqs, score_from_elo(sprt.elo0))
    log_p1 = _constrained_log_mle(outcomes, freqs, score_from_elo(sprt.elo1))
    return sum(c * (b - a) for c, a, b in zip(regular, log_p0, log_p1, strict=True))


def sprt_llr(sprt: SPRT, wdl: WDL) -> float:
    """Log-likelihood ratio of H1 to H0 for a trinomial tally (unknown results ignored).

    Model: logistic Elo, generalised SPRT (the "logistic" model of fishtest and
    fastchess).  Each hypothesis fixes the expected score s = 1/(1 + 10^(-elo/400));
    under it the outcome distribution is the maximum-likelihood one with that
    mean (Van den Bergh, see :func:`_constrained_log_mle`), and
    LLR = Σ n_i log(p1_i / p0_i) over loss/draw/win.  For small Elo differences
    this is close to N (s1 - s0)(2μ - s0 - s1) / (2σ²).  A zero count is taken
    as 0.001 so that, for example, a run of wins alone still decides.
    """
    return _gsprt_llr(sprt, (0.0, 0.5, 1.0), (wdl.losses, wdl.draws, wdl.wins))


def sprt_llr_pentanomial(sprt: SPRT, penta: Pentanomial) -> float:
    """As :func:`sprt_llr`, over pair scores 0, ¼, ½, ¾, 1 (per game) and pair counts."""
    return _gsprt_llr(sprt, (0.0, 0.25, 0.5, 0.75, 1.0), penta.counts)


def sprt_status(sprt: SPRT, tally: WDL | Pentanomial) -> SprtStatus:
    """The LLR, its bounds and the decision for a tally (trinomial or pentanomial)."""
    if isinstance(tally, WDL):
        llr, model = sprt_llr(sprt, tally), "trinomial"
    else:
        llr, model = sprt_llr_pentanomial(sprt, tally), "pentanomial"
    return SprtStatus(llr, sprt.lower_bound, sprt.upper_bound, sprt.decide(llr), model)
