"""Bradley–Terry ratings for an all-play-all (pure): every player's Elo, with intervals.

Fitted by maximum likelihood on the logistic Elo scale from the pairwise
tallies of :mod:`arena.stats.elo`, with a small prior of virtual draws so that a
player with all wins or all losses stays finite; see :func:`bradley_terry`.
Standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.stats.elo import DEFAULT_CONFIDENCE, WDL, Interval, z_value

# Natural-log rating units (the Bradley–Terry / logistic parameter) per Elo point.
_NATS_PER_ELO = math.log(10.0) / 400.0


@attrs.frozen
class PlayerRating:
    """One player's rating relative to the anchor; ``elo`` is None when not connected to it."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    player: str
    games: int  # games with a known outcome
    points: float  # a jigo is half a point
    elo: Interval | None


@attrs.frozen
class Ratings:
    """Bradley–Terry ratings of an all-play-all, in the order the players were given."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    anchor: str
    confidence: float
    players: tuple[PlayerRating, ...]
    iterations: int  # Newton steps taken

    def __getitem__(self, player: str) -> PlayerRating:
        for rating in self.players:
            if rating.player == player:
                return rating
        raise KeyError(player)


def tally_pairings(
    games: Iterable[tuple[str, str, float | None]],
) -> dict[tuple[str, str], WDL]:
    """Aggregate (player, opponent, player's score or None) into one WDL per ordered pair.

    Each game is filed under ``(player, opponent)`` as given; see
    :func:`bradley_terry` for how both orders are combined.
    """
    counts: dict[tuple[str, str], list[int]] = {}
    for player, opponent, score in games:
        row = counts.setdefault((player, opponent), [0, 0, 0, 0])
        if score is None:
            row[3] += 1
        elif score == 1.0:
            row[0] += 1
        elif score == 0.0:
            row[1] += 1
        elif score == 0.5:
            row[2] += 1
        else:
            raise ValueError(f"a game score must be 0, 0.5, 1 or None, not {score!r}")
    return {pair: WDL(*row) for pair, row in counts.items()}


def bradley_terry(
    players: Sequence[str],
    results: Mapping[tuple[str, str], WDL],
    *,
    elo_anchor: str | None = None,
    prior_draws: float = 1.0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Ratings:
    """Maximum-likelihood Bradley–Terry ratings on the logistic Elo scale.

    ``results[(a, b)]`` is a's tally against b; (a, b) and (b, a) entries are
    added together.  A jigo is half a win for each side.  The model is
    P(i beats j) = 1 / (1 + 10^((R_j - R_i)/400)); the anchor (``elo_anchor``,
    default the first player) is fixed at 0.

    Prior: every pair of players who have played each other also gets
    ``prior_draws / (len(players) - 1)`` virtual draws, so in a full
    all-play-all each player carries ``prior_draws`` virtual draws in total.
    That keeps a player with all wins or all losses finite and barely moves
    anyone else; with two players the rating is exactly the pairwise Elo of
    (W + prior/2) / (N + prior).

    Intervals: ±z·sqrt((I⁻¹)_ii), with I the observed information (minus the
    Hessian of the log-likelihood, including the virtual draws) with the
    anchor's row and column removed: the uncertainty of each player's
    difference to the anchor.  Players with no games linking them to the
    anchor get ``elo=None``.  Fitted by Newton's method with step halving.
    """
    index = {name: i for i, name in enumerate(players)}
    if len(index) != len(players) or not players:
        raise ValueError("players must be a non-empty list of distinct names")
    anchor = players[0] if elo_anchor is None else elo_anchor
    if anchor not in index:
        raise ValueError(f"elo_anchor {anchor!r} is not one of the players")
    if prior_draws <= 0.0:
        raise ValueError(f"prior_draws must be positive, not {prior_draws!r}")
    z = z_value(confidence)
    k = len(players)
    # wins[i][j]: points i took from j (jigo = half); games and points per player.
    wins = [[0.0] * k for _ in range(k)]
    games = [0] * k
    points = [0.0] * k
    for (a, b), wdl in results.items():
        if a not in index or b not in index or a == b:
            raise ValueError(f"results for an unknown or self pairing {(a, b)!r}")
        i, j = index[a], index[b]
        wins[i][j] += wdl.points
        wins[j][i] += wdl.losses + 0.5 * wdl.draws
        games[i] += wdl.games
        games[j] += wdl.games
        points[i] += wdl.points
        points[j] += wdl.losses + 0.5 * wdl.draws
    virtual = prior_draws / max(1, k - 1) / 2.0
    for i in range(k):
        for j in range(i + 1, k):
            if wins[i][j] + wins[j][i] > 0.0:
                wins[i][j] += virtual
                wins[j][i] += virtual

    members = _component(wins, index[anchor])
    free = [i for i in members if i != index[anchor]]
    logit, variances, iterations = _fit(wins, index[anchor], free)
    scale = 1.0 / _NATS_PER_ELO
    intervals: dict[int, Interval] = {index[anchor]: Interval(0.0, 0.0, 0.0)}
    for i in free:
        elo = (logit[i] - logit[index[anchor]]) * scale
        half = z * math.sqrt(variances[i]) * scale
        intervals[i] = Interval(elo, elo - half, elo + half)
    return Ratings(
        anchor=anchor,
        confidence=confidence,
        players=tuple(
            PlayerRating(name, games[i], points[i], intervals.get(i))
            for i, name in enumerate(players)
        ),
        iterations=iterations,
    )


def _component(wins: list[list[float]], start: int) -> list[int]:
    """Players linked to ``start`` through pairs that have played, in index order."""
    seen = {start}
    stack = [start]
    while stack:
        i = stack.pop()
        for j, row in enumerate(wins):
            if j not in seen and wins[i][j] + row[i] > 0.0:
                seen.add(j)
                stack.append(j)
    return sorted(seen)


def _log_likelihood(wins: list[list[float]], rating: list[float], members: list[int]) -> float:
    total = 0.0
    for a, i in enumerate(members):
        for j in members[a + 1 :]:
            n_ij, n_ji = wins[i][j], wins[j][i]
            if n_ij + n_ji:
                d = rating[i] - rating[j]
                # log σ(d) = -log(1 + e^-d), written to avoid overflow for large |d|
                total -= n_ij * _log1pexp(-d) + n_ji * _log1pexp(d)
    return total


def _log1pexp(x: float) -> float:
    return x + math.log1p(math.exp(-x)) if x > 0.0 else math.log1p(math.exp(x))


def _fit(
    wins: list[list[float]], anchor: int, free: list[int]
) -> tuple[list[float], dict[int, float], int]:
    """Newton iterations for the ratings of ``free`` (natural-log units, anchor at 0).

    Returns the ratings, the variances (I⁻¹)_ii and the number of steps.
    """
    k = len(wins)
    rating = [0.0] * k
    members = [anchor, *free]
    if not free:
        return rating, {}, 0
    iterations = 0
    while True:
        gradient, information = _derivatives(wins, rating, free)
        factor = _cholesky(information)
        step = _cholesky_solve(factor, gradient)
        iterations += 1
        current = _log_likelihood(wins, rating, members)
        scale = 1.0
        while True:  # the log-likelihood is concave: halve until it does not drop
            trial = rating.copy()
            for i, s in zip(free, step, strict=True):
                trial[i] += scale * s
            if _log_likelihood(wins, trial, members) >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2.0
        rating = trial
        if max(abs(s) for s in step) * scale < 1e-9 or iterations >= 100:
            break
    _, information = _derivatives(wins, rating, free)
    diagonal = _inverse_diagonal(_cholesky(information))
    return rating, dict(zip(free, diagonal, strict=True)), iterations


def _derivatives(
    wins: list[list[float]], rating: list[float], free: list[int]
) -> tuple[list[float], list[list[float]]]:
    """Gradient of the log-likelihood and the information matrix, over ``free`` players.

    ∂ℓ/∂r_i = Σ_j (w_ij - n_ij p_ij);  I_ii = Σ_j n_ij p_ij (1 - p_ij);
    I_ij = -n_ij p_ij (1 - p_ij), with n_ij = w_ij + w_ji and p_ij = σ(r_i - r_j).
    The anchor's terms feed the diagonal but have no row or column.
    """
    k = len(wins)
    position = {i: a for a, i in enumerate(free)}
    m = len(free)
    gradient = [0.0] * m
    information = [[0.0] * m for _ in range(m)]
    for i in range(k):
        a = position.get(i)
        for j in range(i + 1, k):
            n = wins[i][j] + wins[j][i]
            if not n:
                continue
            b = position.get(j)
            if a is None and b is None:
                continue
            p = 1.0 / (1.0 + math.exp(rating[j] - rating[i]))
            weight = n * p * (1.0 - p)
            flow = wins[i][j] - n * p
            if a is not None:
                gradient[a] += flow
                information[a][a] += weight
            if b is not None:
                gradient[b] -= flow
                information[b][b] += weight
            if a is not None and b is not None:
                information[a][b] -= weight
                information[b][a] -= weight
    return gradient, information


def _cholesky(matrix: list[list[float]]) -> list[list[float]]:
    """Lower-triangular L with L Lᵀ = matrix (symmetric positive definite)."""
    m = len(matrix)
    lower = [[0.0] * m for _ in range(m)]
    for i in range(m):
        row_i = lower[i]
        for j in range(i + 1):
            row_j = lower[j]
            s = matrix[i][j] - sum(row_i[t] * row_j[t] for t in range(j))
            if i == j:
                if s <= 0.0:
                    raise ArithmeticError("information matrix is not positive definite")
                row_i[i] = math.sqrt(s)
            else:
                row_i[j] = s / row_j[j]
    return lower


def _cholesky_solve(lower: list[list[float]], rhs: list[float]) -> list[float]:
    m = len(lower)
    y = [0.0] * m
    for i in range(m):
        y[i] = (rhs[i] - sum(lower[i][t] * y[t] for t in range(i))) / lower[i][i]
    x = [0.0] * m
    for i in reversed(range(m)):
        x[i] = (y[i] - sum(lower[t][i] * x[t] for t in range(i + 1, m))) / lower[i][i]
    return x


def _inverse_diagonal(lower: list[list[float]]) -> list[float]:
    """diag(A⁻¹) from A = L Lᵀ: A⁻¹ = L⁻ᵀ L⁻¹, so (A⁻¹)_ii = Σ_t (L⁻¹)_ti²."""
    m = len(lower)
    inverse = [[0.0] * m for _ in range(m)]  # L⁻¹, lower triangular, by forward substitution
    for col in range(m):
        inverse[col][col] = 1.0 / lower[col][col]
        for i in range(col + 1, m):
            s = sum(lower[i][t] * inverse[t][col] for t in range(col, i))
            inverse[i][col] = -s / lower[i][i]
    return [sum(inverse[t][i] ** 2 for t in range(i, m)) for i in range(m)]
