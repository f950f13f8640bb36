"""Statistics: Elo, Wilson, LOS, pentanomial, SPRT and Bradley–Terry against independent values.

Every expected number below was worked out from the formula quoted next to it
(with z = 1.959963984540054, the 97.5 % normal quantile), not by calling
arena.stats.elo.  "elo(p)" means -400·log10(1/p - 1) throughout.
"""

from __future__ import annotations

import math
import random
from statistics import NormalDist

import pytest

from arena.stats.elo import (
    SPRT,
    WDL,
    Interval,
    Pentanomial,
    SprtDecision,
    elo_estimate,
    elo_from_score,
    likelihood_of_superiority,
    normal_quantile,
    pairing_stats,
    pentanomial_elo_estimate,
    score_from_elo,
    sprt_llr,
    sprt_llr_pentanomial,
    sprt_status,
    wilson_interval,
)
from arena.stats.ratings import bradley_terry, tally_pairings

Z95 = 1.959963984540054
ELO_PER_NAT = 400.0 / math.log(10.0)
INF = math.inf


def close(actual: float, expected: float, tol: float = 1e-6) -> bool:
    if math.isinf(expected):
        return actual == expected
    return math.isclose(actual, expected, rel_tol=tol, abs_tol=tol)


def assert_interval(actual: Interval, value: float, lower: float, upper: float) -> None:
    got = (actual.value, actual.lower, actual.upper)
    assert all(close(a, e) for a, e in zip(got, (value, lower, upper), strict=True)), got


# --- Elo from a score fraction ------------------------------------------------


@pytest.mark.parametrize(
    ("score", "elo"),
    [
        # elo(p) = -400·log10(1/p - 1): the logistic Elo curve (Elo 1978; Wikipedia, "Elo rating
        # system", expected score E = 1/(1 + 10^(-D/400)) solved for D).
        (0.5, 0.0),
        (0.75, 190.848501887865),  # -400·log10(1/3)
        (0.25, -190.848501887865),
        (0.9, 381.69700377572985),  # -400·log10(1/9)
        (0.1, -381.69700377572985),
        (2 / 3, 120.41199826559247),  # -400·log10(1/2)
        (0.6, 70.43650362227247),  # -400·log10(2/3)
        (0.99, 798.2540778390188),  # -400·log10(1/99)
        (1.0, INF),
        (0.0, -INF),
    ],
)
def test_elo_from_score(score: float, elo: float) -> None:
    assert close(elo_from_score(score), elo)
    if not math.isinf(elo):
        assert close(score_from_elo(elo), score)


def test_score_from_elo_at_400_is_ten_to_one() -> None:
    # E = 1/(1 + 10^(-400/400)) = 10/11
    assert close(score_from_elo(400.0), 10 / 11)
    assert close(score_from_elo(-400.0), 1 / 11)
    # far outside any real match, still a fraction rather than an overflow
    assert (score_from_elo(-1e6), score_from_elo(1e6)) == (0.0, 1.0)


@pytest.mark.parametrize("score", [-0.1, 1.5, math.nan])
def test_elo_from_score_rejects_non_fractions(score: float) -> None:
    with pytest.raises(ValueError, match="score fraction"):
        elo_from_score(score)


# --- Wilson score interval ----------------------------------------------------


@pytest.mark.parametrize(
    ("successes", "trials", "lower", "upper"),
    [
        # Wilson (1927), as in Wikipedia "Binomial proportion confidence interval":
        # centre (p + z²/2n)/(1 + z²/n), half-width z/(1 + z²/n)·sqrt(p(1-p)/n + z²/4n²).
        (0, 10, 0.0, 0.2775327998628892),  # k = 0: upper = z²/(n + z²)
        (10, 10, 0.7224672001371107, 1.0),  # k = n: lower = n/(n + z²)
        (5, 10, 0.236593090512564, 0.7634069094874361),
        (7, 20, 0.18119182410108206, 0.5671457233147638),
        (81, 263, 0.2552885198782742, 0.36620957698280004),
        (1, 1, 0.20654931437723745, 1.0),
        (2.5, 10, 0.08094782420999444, 0.5578185757214501),  # jigos count as half wins
        (0, 0, 0.0, 1.0),  # no games: no information
    ],
)
def test_wilson_interval(successes: float, trials: int, lower: float, upper: float) -> None:
    interval = wilson_interval(successes, trials)
    assert close(interval.lower, lower) and close(interval.upper, upper)
    assert interval.value == (successes / trials if trials else 0.5)


def test_wilson_interval_narrows_with_lower_confidence() -> None:
    assert wilson_interval(30, 50, 0.8).margin < wilson_interval(30, 50, 0.95).margin


@pytest.mark.parametrize(("successes", "trials"), [(-1, 10), (11, 10), (1, -1)])
def test_wilson_interval_rejects_bad_counts(successes: float, trials: int) -> None:
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(successes, trials)


# --- Elo interval per pairing (trinomial) ---------------------------------------


@pytest.mark.parametrize(
    ("wdl", "elo", "lower", "upper"),
    [
        # cutechess/fastchess: μ = (W + D/2)/N, σ² = (W(1-μ)² + D(½-μ)² + Lμ²)/N,
        # bounds elo(μ ± z·sqrt(σ²/N)).
        # 60-30-10: μ = .65, σ² = .6·.35² + .1·.15² + .3·.65² = .2025, se = .045,
        # μ ± z·se = .561802, .738198.
        (WDL(60, 30, 10), 107.53812491703204, 43.164888302968265, 180.080302653605),
        # 50-50: μ = .5, σ² = .25, se = .05, μ ± .098 -> ±68.99.
        (WDL(50, 50, 0), 0.0, -68.98875106670988, 68.98875106670991),
        # 30 wins, 50 losses, 20 jigos: μ = .4, σ² = .3·.36 + .2·.01 + .5·.16 = .19.
        (WDL(30, 50, 20), -70.4365036222725, -135.3006183018544, -10.12515840404091),
        # 9-1: μ = .9, σ² = .09, μ + z·se = 1.086 > 1: clamped, upper bound +inf.
        (WDL(9, 1, 0), 381.69700377572985, 158.98518507251032, INF),
        # 10-0: σ² = 0, so the Wilson bound: elo(10/(10 + z²)) = elo(.722467).
        (WDL(10, 0, 0), INF, 166.20152718389093, INF),
        (WDL(0, 10, 0), -INF, -INF, -166.20152718389093),
        # 10 jigos: σ² = 0 again; Wilson on 5/10: elo(.236593), elo(.763407).
        (WDL(0, 0, 10), 0.0, -203.50161162773185, 203.50161162773196),
        # unknown results are left out entirely
        (WDL(60, 30, 10, unknown=7), 107.53812491703204, 43.164888302968265, 180.080302653605),
        (WDL(0, 0, 0, unknown=3), 0.0, -INF, INF),
    ],
)
def test_elo_estimate(wdl: WDL, elo: float, lower: float, upper: float) -> None:
    assert_interval(elo_estimate(wdl), elo, lower, upper)


def test_elo_estimate_is_antisymmetric_between_the_two_sides() -> None:
    ours, theirs = elo_estimate(WDL(37, 21, 4)), elo_estimate(WDL(21, 37, 4))
    assert close(ours.value, -theirs.value)
    assert close(ours.lower, -theirs.upper) and close(ours.upper, -theirs.lower)


# --- Likelihood of superiority ------------------------------------------------


@pytest.mark.parametrize(
    ("wdl", "los"),
    [
        # LOS = Φ((W-L)/sqrt(W+L)) (Chess Programming Wiki, "Match Statistics"); Φ from tables:
        (WDL(60, 40, 0), 0.9772498680518208),  # Φ(20/10) = Φ(2)
        (WDL(40, 60, 0), 0.02275013194817921),  # Φ(-2)
        (WDL(55, 45, 100), 0.8413447460685429),  # Φ(10/10) = Φ(1): draws ignored
        (WDL(1, 0, 0), 0.8413447460685429),  # Φ(1/1)
        (WDL(5, 0, 3), 0.9873263406612658),  # Φ(5/√5) = Φ(2.2360680)
        (WDL(10, 10, 5), 0.5),
        (WDL(0, 0, 4), 0.5),  # no decisive game
        (WDL(), 0.5),
    ],
)
def test_likelihood_of_superiority(wdl: WDL, los: float) -> None:
    assert close(likelihood_of_superiority(wdl), los)


def test_pairing_stats_collects_the_figures() -> None:
    stats = pairing_stats(WDL(7, 13, 0))
    # Wilson for 7/20 (see the table above)
    assert_interval(stats.win_rate, 0.35, 0.18119182410108206, 0.5671457233147638)
    assert stats.elo.value < 0 < stats.elo.upper
    assert close(stats.los, 0.5 * (1 + math.erf(-6 / math.sqrt(40))))  # Φ(-6/√20)


# --- Tallies --------------------------------------------------------------------


def test_wdl_from_scores_counts_jigo_as_draw_and_none_as_unknown() -> None:
    wdl = WDL.from_scores([1, 1, 0, 0.5, None, 1])
    assert wdl == WDL(wins=3, losses=1, draws=1, unknown=1)
    assert (wdl.games, wdl.points, wdl.score) == (5, 3.5, 0.7)
    assert wdl.swapped() == WDL(1, 3, 1, 1)
    assert wdl + wdl.swapped() == WDL(4, 4, 2, 2)


@pytest.mark.parametrize("bad", [0.25, 2, -1])
def test_wdl_from_scores_rejects_other_scores(bad: float) -> None:
    with pytest.raises(ValueError, match="game score"):
        WDL.from_scores([1, bad])


def test_tally_pairings_files_games_under_ordered_pairs() -> None:
    tally = tally_pairings(
        [("a", "b", 1.0), ("a", "b", 0.0), ("b", "a", 0.5), ("a", "c", None), ("a", "b", 1.0)]
    )
    assert tally == {
        ("a", "b"): WDL(2, 1, 0),
        ("b", "a"): WDL(0, 0, 1),
        ("a", "c"): WDL(0, 0, 0, 1),
    }


# --- Pentanomial ----------------------------------------------------------------


def test_pentanomial_from_pairs() -> None:
    penta = Pentanomial.from_pairs(
        [(1, 0), (1, 1), (0.5, 1), (0, 0), (None, 1), (0, 0.5), (0.5, 0.5), (0, 1)]
    )
    # pair scores 1, 2, 1.5, 0, (skipped), 0.5, 1, 1
    assert penta == Pentanomial((1, 1, 3, 1, 1), incomplete=1)
    assert penta.pairs == 7
    with pytest.raises(ValueError, match="bad game scores"):
        Pentanomial.from_pairs([(0.25, 0.25)])


def test_pentanomial_elo_interval() -> None:
    # fastchess: pair scores normalised to a = 0, ¼, ½, ¾, 1; counts 1, 2, 5, 3, 1 (12 pairs):
    # μ = (.5 + 2.5 + 2.25 + 1)/12 = .5208333, σ² = Σ c(a - μ)²/12 = .0672743,
    # se = sqrt(σ²/12) = .0748745, bounds elo(μ ± z·se) = elo(.374083), elo(.667584).
    estimate = pentanomial_elo_estimate(Pentanomial((1, 2, 5, 3, 1)))
    assert_interval(estimate, 14.484869061777905, -89.42025785955737, 121.13012824337332)


def test_pentanomial_interval_is_narrower_when_pairs_cancel_colour_bias() -> None:
    # 40 pairs each won by the player taking black (1-1 in every pair): per game this is
    # 40-40 (a wide trinomial interval) but every pair scored exactly 1, so there is no
    # pair variance: the Wilson fallback over 80 games is narrower.
    trinomial = elo_estimate(WDL(40, 40, 0))
    pentanomial = pentanomial_elo_estimate(Pentanomial((0, 0, 40, 0, 0)))
    assert pentanomial.value == trinomial.value == 0.0
    assert pentanomial.margin < trinomial.margin


# --- SPRT -------------------------------------------------------------------------


def reference_trinomial_llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """GSPRT LLR computed a different way: θ from the quadratic, not by iteration.

    Van den Bergh, "Comments on Normalized Elo" (2020), prop. 1.1: under mean s the ML
    outcome distribution is p_i = p̂_i/(1 + θ d_i) with d_i = a_i - s and
    Σ p̂_i d_i/(1 + θ d_i) = 0.  With three outcomes, multiplying out gives
    Aθ² + Bθ + C = 0, C = Σ p̂_i d_i, B = Σ p̂_i d_i (Σ_{j≠i} d_j), A = Σ p̂_i d_i Π_{j≠i} d_j;
    the root wanted is the only one with every 1 + θ d_i > 0.  LLR = Σ n_i log(p1_i/p0_i).
    (All counts here are non-zero, so no regularisation is involved.)
    """
    counts = (losses, draws, wins)
    n = sum(counts)
    freqs = [c / n for c in counts]
    outcomes = (0.0, 0.5, 1.0)

    def log_mle(elo: float) -> list[float]:
        s = 1 / (1 + 10 ** (-elo / 400))
        d = [a - s for a in outcomes]
        c = sum(f * x for f, x in zip(freqs, d, strict=True))
        b = sum(freqs[i] * d[i] * sum(d[j] for j in range(3) if j != i) for i in range(3))
        a = sum(freqs[i] * d[i] * math.prod(d[j] for j in range(3) if j != i) for i in range(3))
        # roots q/A and C/q with q = -(B + sign(B)·sqrt(B² - 4AC))/2 (stable, and A = 0 at s = ½)
        q = -(b + math.copysign(math.sqrt(b * b - 4 * a * c), b)) / 2
        roots = [c / q] + ([q / a] if a else [])
        (theta,) = [t for t in roots if all(1 + t * x > 0 for x in d)]
        return [math.log(f / (1 + theta * x)) for f, x in zip(freqs, d, strict=True)]

    p0, p1 = log_mle(elo0), log_mle(elo1)
    return sum(c * (y - x) for c, x, y in zip(counts, p0, p1, strict=True))


@pytest.mark.parametrize(
    ("wins", "draws", "losses", "elo0", "elo1", "decision"),
    [
        (520, 40, 440, 0, 10, SprtDecision.CONTINUE),
        (560, 40, 400, 0, 10, SprtDecision.ACCEPT_H1),
        (480, 40, 480, 0, 10, SprtDecision.CONTINUE),
        (430, 40, 530, 0, 10, SprtDecision.ACCEPT_H0),
        (55, 5, 40, -10, 40, SprtDecision.CONTINUE),
        (60, 5, 35, -10, 40, SprtDecision.ACCEPT_H1),
        (160, 10, 80, 0, 50, SprtDecision.ACCEPT_H1),
        (30, 2, 70, 0, 35, SprtDecision.ACCEPT_H0),
    ],
)
def test_sprt_llr_and_decision(
    wins: int, draws: int, losses: int, elo0: float, elo1: float, decision: SprtDecision
) -> None:
    sprt = SPRT(elo0, elo1)
    expected = reference_trinomial_llr(wins, draws, losses, elo0, elo1)
    status = sprt_status(sprt, WDL(wins, losses, draws))
    assert close(status.llr, expected, 1e-7)
    assert status.decision is decision
    # For a narrow Elo window the GSPRT is close to the approximation
    # N(s1 - s0)(2μ - s0 - s1)/(2σ²) (Van den Bergh, "A quick derivation of the
    # loglikelihood ratio for SPRT"); within 20 % even for the wider windows here.
    n = wins + draws + losses
    mu = (wins + draws / 2) / n
    var = (wins * (1 - mu) ** 2 + draws * (0.5 - mu) ** 2 + losses * mu**2) / n
    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    approx = n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert abs(status.llr - approx) <= 0.2 * abs(approx) + 0.05


def test_sprt_bounds() -> None:
    # Wald: lower log(β/(1-α)), upper log((1-β)/α)
    assert close(SPRT(0, 5).lower_bound, -2.9444389791664403)  # -log 19
    assert close(SPRT(0, 5).upper_bound, 2.9444389791664403)
    sprt = SPRT(0, 5, alpha=0.05, beta=0.1)
    assert close(sprt.lower_bound, -2.251291798606495)  # log(.1/.95)
    assert close(sprt.upper_bound, 2.8903717578961645)  # log(.9/.05)


@pytest.mark.parametrize(
    ("wdl", "decision"),
    [
        # Against a player that never loses to the other, the LLR grows by about
        # log(s1/s0) per win: s1 = score_from(200) = .759747, log(.759747/.5) = .418377,
        # log 19 / .418377 = 7.04, so the 8th straight win decides H1 ...
        (WDL(7, 0, 0), SprtDecision.CONTINUE),
        (WDL(8, 0, 0), SprtDecision.ACCEPT_H1),
        # ... and each loss adds log((1 - s1)/(1 - s0)) = -.732915: 4.02 losses for H0.
        (WDL(0, 4, 0), SprtDecision.CONTINUE),
        (WDL(0, 5, 0), SprtDecision.ACCEPT_H0),
        (WDL(), SprtDecision.CONTINUE),
        (WDL(unknown=50), SprtDecision.CONTINUE),
    ],
)
def test_sprt_one_sided_runs_decide_at_the_wald_count(wdl: WDL, decision: SprtDecision) -> None:
    assert sprt_status(SPRT(0, 200), wdl).decision is decision


def test_sprt_llr_of_no_games_is_zero() -> None:
    assert sprt_llr(SPRT(0, 10), WDL()) == 0.0
    assert sprt_llr_pentanomial(SPRT(0, 10), Pentanomial()) == 0.0


def test_pentanomial_llr() -> None:
    sprt = SPRT(-5, 5)
    counts = (30, 150, 400, 180, 40)
    llr = sprt_llr_pentanomial(sprt, Pentanomial(counts))
    # Approximation N(s1 - s0)(2μ - s0 - s1)/(2σ²) over pairs, scores a = 0, ¼, ½, ¾, 1:
    # μ = (37.5 + 200 + 135 + 40)/800 = .515625, σ² = Σ c(a - μ)²/800.
    n = sum(counts)
    mu = sum(c * k / 4 for k, c in enumerate(counts)) / n
    var = sum(c * (k / 4 - mu) ** 2 for k, c in enumerate(counts)) / n
    s0, s1 = 1 / (1 + 10 ** (5 / 400)), 1 / (1 + 10 ** (-5 / 400))
    approx = n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert math.isclose(llr, approx, rel_tol=0.01)
    assert sprt_status(sprt, Pentanomial(counts)).llr == llr


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1", "expected"),
    [
        # Computed apart from the arena (mpmath, 30 digits, findroot on the Lagrange
        # condition Σ f_i (a_i - s) / (1 + θ (a_i - s)) = 0 for s = score of elo0 and of
        # elo1, then LLR = Σ n_i log(p1_i / p0_i) with p_i = f_i / (1 + θ (a_i - s))).
        ((30, 150, 400, 180, 40), -5, 5, 3.76516304099),
        ((10, 20, 40, 25, 5), 0, 10, -0.437486232891),
        ((2, 5, 10, 8, 3), 0, 50, 0.237296429654),
        ((4, 30, 60, 20, 1), 0, 5, -0.844088392881),
        ((50, 50, 50, 50, 50), -10, 10, 0.0),  # symmetric about ½ and about elo 0
    ],
)
def test_pentanomial_llr_table(
    counts: tuple[int, int, int, int, int], elo0: float, elo1: float, expected: float
) -> None:
    llr = sprt_llr_pentanomial(SPRT(elo0, elo1), Pentanomial(counts))
    assert math.isclose(llr, expected, rel_tol=1e-8, abs_tol=1e-9)


def test_sprt_model_setting() -> None:
    assert SPRT(0, 5).model is None
    assert SPRT(0, 5, model="pentanomial").model == "pentanomial"
    with pytest.raises(ValueError, match="SPRT model must be 'trinomial' or 'pentanomial'"):
        SPRT(0, 5, model="binomial")
    status = sprt_status(SPRT(0, 5), Pentanomial((1, 2, 3, 2, 1)))
    assert status.model == "pentanomial"
    assert sprt_status(SPRT(0, 5), WDL(3, 2, 1)).model == "trinomial"


def test_pentanomial_llr_with_only_even_pair_scores_matches_trinomial() -> None:
    # Pairs scoring only 0, 1 or 2 have per-game scores 0, ½, 1: the same outcomes as a
    # trinomial tally with those counts (the zero cells only get fastchess's 0.001).
    sprt = SPRT(0, 10)
    expected = reference_trinomial_llr(400, 500, 300, 0, 10)
    assert math.isclose(
        sprt_llr_pentanomial(sprt, Pentanomial((300, 0, 500, 0, 400))), expected, rel_tol=1e-4
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((10, 0), "elo0 must be less than elo1"),
        ((0, 0), "elo0 must be less than elo1"),
        ((0, 5, 0.0), "alpha"),
        ((0, 5, 0.05, 1.0), "beta"),
        ((0, 5, 0.6, 0.5), "alpha \\+ beta"),
    ],
)
def test_sprt_rejects_bad_settings(args: tuple[float, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SPRT(*args)


# --- Bradley–Terry ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prior", "games", "elo_b"),
    [
        # b scored 10 of 40 against a.  Two players: the ML equation is n·σ(r) = W + D/2, so
        # with v virtual draws r_b = elo((10 + v/2)/(40 + v)) = -400·log10((30 + v/2)/(10 + v/2)).
        (1.0, 41, -185.24421611073913),  # -400·log10(30.5/10.5)
        (1e-9, 40, -190.848501887865),  # -400·log10(3): the plain pairwise Elo of 25 %
    ],
)
def test_two_players_rating_is_the_pairwise_elo(prior: float, games: int, elo_b: float) -> None:
    ratings = bradley_terry(["a", "b"], {("b", "a"): WDL(10, 30)}, prior_draws=prior)
    assert ratings.anchor == "a"
    assert ratings["a"].elo == Interval(0.0, 0.0, 0.0)
    rating_b = ratings["b"].elo
    assert rating_b is not None
    # Information n·p(1-p) in nats⁻² (p = b's expected score), so the interval is
    # ±z·(400/ln 10)/sqrt(n·p(1-p)).
    p = 1 / (1 + 10 ** (-elo_b / 400))
    half = Z95 * ELO_PER_NAT / math.sqrt(games * p * (1 - p))
    assert_interval(rating_b, elo_b, elo_b - half, elo_b + half)


def test_consistent_three_player_results_are_fitted_exactly() -> None:
    # a-b 30:10 (elo .75 = 190.85), b-c 30:10, a-c 36:4 (elo .9 = 381.70 = 2·190.85):
    # the data match the model exactly, so the ML ratings are 0, -190.85, -381.70.
    results = {("a", "b"): WDL(30, 10), ("b", "c"): WDL(30, 10), ("c", "a"): WDL(4, 36)}
    ratings = bradley_terry(["a", "b", "c"], results, prior_draws=1e-9)
    values = [r.elo.value for r in ratings.players if r.elo is not None]
    assert all(
        close(x, y, 1e-5) for x, y in zip(values, [0.0, -190.848501887865, -381.697], strict=True)
    )
    assert [(r.games, r.points) for r in ratings.players] == [(80, 66.0), (80, 40.0), (80, 14.0)]
    # Information with a's row and column removed, weights n·p(1-p): ab 40·.75·.25 = 7.5,
    # bc 7.5, ac 40·.9·.1 = 3.6, so I = [[15, -7.5], [-7.5, 11.1]], det = 110.25 and
    # var_b = 11.1/110.25, var_c = 15/110.25 (nats²); half-width z·(400/ln 10)·sqrt(var).
    for name, variance in (("b", 11.1 / 110.25), ("c", 15 / 110.25)):
        rating = ratings[name].elo
        assert rating is not None
        assert close(rating.margin, Z95 * ELO_PER_NAT * math.sqrt(variance), 1e-5)


def test_ratings_match_the_minorisation_maximisation_fit() -> None:
    # An independent fit by Hunter's MM algorithm ("MM algorithms for generalized
    # Bradley-Terry models", Ann. Statist. 2004, eq. 3): γ_i <- W_i / Σ_j n_ij/(γ_i + γ_j),
    # W_i = points of i, n_ij = games between i and j, both including the documented prior
    # (prior/(k-1) virtual draws per pair that played); Elo_i = 400·log10(γ_i/γ_anchor).
    players = ["a", "b", "c", "d", "e"]
    results = {
        ("a", "b"): WDL(7, 5, 1),
        ("a", "c"): WDL(3, 9),
        ("b", "c"): WDL(6, 6),
        ("b", "d"): WDL(11, 2),
        ("c", "d"): WDL(8, 4),
        ("d", "e"): WDL(5, 5, 2),
        ("e", "a"): WDL(2, 10),
        ("c", "e"): WDL(12, 0),
    }
    prior = 1.0
    k = len(players)
    won = [[0.0] * k for _ in range(k)]
    for (x, y), wdl in results.items():
        i, j = players.index(x), players.index(y)
        won[i][j] += wdl.wins + wdl.draws / 2 + prior / (k - 1) / 2
        won[j][i] += wdl.losses + wdl.draws / 2 + prior / (k - 1) / 2
    gamma = [1.0] * k
    for _ in range(3000):
        gamma = [
            sum(won[i])
            / sum((won[i][j] + won[j][i]) / (gamma[i] + gamma[j]) for j in range(k) if j != i)
            for i in range(k)
        ]
    mm_elo = [400 * math.log10(g / gamma[1]) for g in gamma]

    ratings = bradley_terry(players, results, elo_anchor="b", prior_draws=prior)
    fitted = [r.elo.value if r.elo is not None else math.nan for r in ratings.players]
    assert all(math.isclose(x, y, abs_tol=1e-6) for x, y in zip(fitted, mm_elo, strict=True))


def test_anchor_shifts_every_rating() -> None:
    results = {
        ("a", "b"): WDL(12, 8, 1),
        ("b", "c"): WDL(15, 5),
        ("a", "c"): WDL(14, 6),
        ("c", "d"): WDL(9, 11),
        ("d", "a"): WDL(3, 17),
    }
    players = ["a", "b", "c", "d"]
    by_a = bradley_terry(players, results)
    by_c = bradley_terry(players, results, elo_anchor="c")
    assert (by_a.anchor, by_c.anchor) == ("a", "c")
    c_seen_from_a = by_a["c"].elo
    assert c_seen_from_a is not None
    for name in players:
        a_based, c_based = by_a[name].elo, by_c[name].elo
        assert a_based is not None and c_based is not None
        assert close(c_based.value, a_based.value - c_seen_from_a.value, 1e-6)
    assert by_c["c"].elo == Interval(0.0, 0.0, 0.0)
    assert by_c["a"].elo is not None and by_c["a"].elo.margin == pytest.approx(c_seen_from_a.margin)


def test_results_in_both_orders_are_combined_and_jigos_are_halves() -> None:
    split = bradley_terry(["a", "b"], {("a", "b"): WDL(3, 1), ("b", "a"): WDL(1, 3, 2)})
    joined = bradley_terry(["a", "b"], {("a", "b"): WDL(7, 3)})  # 6-2 and 2 jigos: 7 of 10 points
    assert split["b"].elo is not None and joined["b"].elo is not None
    assert close(split["b"].elo.value, joined["b"].elo.value)
    assert split["b"].games == 10 and split["b"].points == 3.0


def test_players_with_all_wins_or_all_losses_get_finite_ratings() -> None:
    players = ["a", "b", "c", "d"]
    results = {
        ("a", "b"): WDL(10, 0),
        ("a", "c"): WDL(10, 0),
        ("a", "d"): WDL(10, 0),
        ("b", "c"): WDL(6, 4),
        ("b", "d"): WDL(10, 0),
        ("c", "d"): WDL(10, 0),
    }
    ratings = bradley_terry(players, results, elo_anchor="b")
    values = []
    for rating in ratings.players:
        assert rating.elo is not None
        assert all(math.isfinite(x) for x in (rating.elo.lower, rating.elo.upper))
        values.append(rating.elo.value)
    assert values == sorted(values, reverse=True)
    assert values[0] > 300 and values[3] < -300


def test_players_not_linked_to_the_anchor_have_no_rating() -> None:
    results = {("a", "b"): WDL(5, 5), ("c", "d"): WDL(7, 3)}
    ratings = bradley_terry(["a", "b", "c", "d", "e"], results)
    assert [r.elo is None for r in ratings.players] == [False, False, True, True, True]
    assert ratings["e"].games == 0
    assert bradley_terry(["a", "b"], {}).players[1].elo is None
    with pytest.raises(KeyError):
        ratings["z"]


@pytest.mark.parametrize(
    ("players", "results", "kwargs", "message"),
    [
        (["a", "b"], {}, {"elo_anchor": "z"}, "elo_anchor"),
        (["a", "a"], {}, {}, "distinct"),
        ([], {}, {}, "non-empty"),
        (["a", "b"], {("a", "z"): WDL(1)}, {}, "unknown"),
        (["a", "b"], {("a", "a"): WDL(1)}, {}, "self"),
        (["a", "b"], {}, {"prior_draws": 0.0}, "prior_draws"),
        (["a", "b"], {}, {"confidence": 1.0}, "confidence"),
    ],
)
def test_bradley_terry_rejects_bad_input(
    players: list[str], results: dict[tuple[str, str], WDL], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        bradley_terry(players, results, **kwargs)  # type: ignore[arg-type]


def test_bradley_terry_intervals_cover_the_true_differences() -> None:
    """200 simulated all-play-alls with known strengths: the 95 % intervals hold the truth.

    6 players spread over 400 Elo, 20 games per pairing (300 games a tournament),
    win probability from the logistic Elo curve, anchor = the first player.
    """
    true_elo = [0.0, 150.0, -100.0, 300.0, 50.0, -80.0]
    players = [f"p{i}" for i in range(len(true_elo))]
    rng = random.Random(20240605)
    covered = total = 0
    for _ in range(200):
        games = []
        for i in range(len(players)):
            for j in range(i + 1, len(players)):
                p_win = 1 / (1 + 10 ** ((true_elo[j] - true_elo[i]) / 400))
                for _ in range(20):
                    games.append((players[i], players[j], 1.0 if rng.random() < p_win else 0.0))
        ratings = bradley_terry(players, tally_pairings(games))
        for rating, truth in zip(ratings.players[1:], true_elo[1:], strict=True):
            assert rating.elo is not None
            total += 1
            covered += rating.elo.contains(truth - true_elo[0])
    coverage = covered / total
    print(f"Bradley-Terry 95% interval coverage: {coverage:.3f} over {total} intervals")
    assert 0.90 <= coverage <= 0.99  # at 0.99+ the intervals would be needlessly wide


def test_normal_quantile_is_the_standard_library_s() -> None:
    normal = NormalDist()
    grid = [i / 1000 for i in range(1, 1000)] + [1e-300, 1e-12, 0.075, 0.925, 1 - 1e-12]
    for p in grid:
        assert normal_quantile(p) == normal.inv_cdf(p), p
    for p in (0.0, 1.0, -0.5, 1.5):
        with pytest.raises(ValueError):
            normal_quantile(p)
