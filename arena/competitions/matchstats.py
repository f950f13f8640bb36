"""Statistics of one matchup (pure): colour-swapped pairs, the SPRT stop, figures and their text.

Playoffs and all-play-all tournaments keep, per matchup, a :class:`PairCounter`
(games ``2k`` and ``2k+1`` of an alternating matchup are one colour-swapped
pair, counted by player_1's score in the pair, as fastchess does) and, when the
matchup has an SPRT, the decision once it is reached (:class:`SprtOutcome`).
:func:`matchup_stats` turns a matchup's counts into the frozen
:class:`MatchupStats` that snapshots carry, and :func:`stats_lines` is how
``show`` and ``X.report`` print them.  The arithmetic itself is
:mod:`arena.stats.elo`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.results import GameResult
from arena.stats.elo import (
    SPRT,
    WDL,
    Interval,
    PairingStats,
    Pentanomial,
    SprtDecision,
    SprtStatus,
    pairing_stats,
    pentanomial_elo_estimate,
    sprt_status,
)


def player_score(result: GameResult, player: str) -> float | None:
    """``player``'s score in a counted game: 1, 0.5 (jigo), 0, or None when unknown."""
    if result.is_jigo:
        return 0.5
    if result.winning_player == player:
        return 1.0
    if result.losing_player == player:
        return 0.0
    return None


def matchup_wdl(wins_1: float, wins_2: float, jigos: int, unknown: int) -> WDL:
    """player_1's tally from a matchup's counts (``wins_*`` include half a point per jigo)."""
    return WDL(
        wins=round(wins_1 - 0.5 * jigos),
        losses=round(wins_2 - 0.5 * jigos),
        draws=jigos,
        unknown=unknown,
    )


@attrs.define
class PairCounter:
    """Colour-swapped pairs of one matchup, from player_1's side.

    ``halves`` holds the finished game of each pair still waiting for its
    partner: pair number -> (player_1 had Black, player_1's score or None).  Two
    games of a pair with the same colours (a matchup that does not alternate)
    are not counted.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq

    counts: list[int] = attrs.Factory(lambda: [0, 0, 0, 0, 0])
    incomplete: int = 0  # pairs with an unknown result
    halves: dict[int, tuple[bool, float | None]] = attrs.Factory(dict)

    def add(self, game_number: int, player_1_black: bool, score: float | None) -> None:
        pair = game_number // 2
        other = self.halves.pop(pair, None)
        if other is None:
            self.halves[pair] = (player_1_black, score)
            return
        other_black, other_score = other
        if other_black == player_1_black:
            return
        if score is None or other_score is None:
            self.incomplete += 1
            return
        self.counts[round(2.0 * (score + other_score))] += 1

    def pentanomial(self) -> Pentanomial:
        c = self.counts
        return Pentanomial((c[0], c[1], c[2], c[3], c[4]), self.incomplete)

    def to_json(self) -> dict[str, Any]:
        return {
            "counts": list(self.counts),
            "incomplete": self.incomplete,
            "halves": [[pair, *half] for pair, half in sorted(self.halves.items())],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PairCounter:
        counts = [int(n) for n in data["counts"]]
        if len(counts) != 5:
            raise ValueError(f"pair counts need 5 numbers, not {counts!r}")
        halves: dict[int, tuple[bool, float | None]] = {}
        for pair, black, score in data.get("halves", []):
            halves[int(pair)] = (bool(black), None if score is None else float(score))
        return cls(counts, int(data.get("incomplete", 0)), halves)


@attrs.frozen
class SprtOutcome:
    """An SPRT that has decided: the decision and the games counted when it did."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    decision: SprtDecision
    games: int

    def to_json(self) -> dict[str, Any]:
        return {"decision": self.decision.value, "games": self.games}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SprtOutcome:
        return cls(SprtDecision(data["decision"]), int(data["games"]))


def sprt_model(sprt: SPRT, alternating: bool) -> str:
    """The model an SPRT uses: its own ``model`` if set, else the pairs when colours alternate.

    A matchup whose colours alternate (always so with openings: each opening is played
    twice, colours swapped) is counted in pairs, as fastchess does: the two games of a pair
    share an opening, so their results are not independent, and the pair score (five
    outcomes) is.  A matchup that does not alternate has no pairs and counts games.
    """
    if sprt.model is not None:
        return sprt.model
    return "pentanomial" if alternating else "trinomial"


def sprt_tally(sprt: SPRT, wdl: WDL, pairs: Pentanomial, alternating: bool) -> WDL | Pentanomial:
    """What an SPRT is run on: pair counts under the pentanomial model, else game counts."""
    return pairs if sprt_model(sprt, alternating) == "pentanomial" else wdl


def check_sprt(
    sprt: SPRT, wdl: WDL, pairs: Pentanomial, *, alternating: bool
) -> SprtOutcome | None:
    """The outcome if the test has now decided, else None."""
    status = sprt_status(sprt, sprt_tally(sprt, wdl, pairs, alternating))
    if status.decision is SprtDecision.CONTINUE:
        return None
    return SprtOutcome(status.decision, wdl.games + wdl.unknown)


@attrs.frozen
class MatchupStats:
    """The figures of one matchup, from player_1's side (Elo > 0: player_1 is stronger)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    player_1: str
    player_2: str
    pairing: PairingStats  # wins, Wilson interval on the score, Elo with interval, LOS
    pairs: Pentanomial
    pairs_elo: Interval | None  # None until a colour-swapped pair is complete
    sprt: SPRT | None = None
    sprt_status: SprtStatus | None = None
    sprt_outcome: SprtOutcome | None = None  # set once the test decided (the matchup stops)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready figures for watchers of the arena (inf becomes null)."""

        def interval(value: Interval | None) -> dict[str, float | None] | None:
            if value is None:
                return None
            return {k: _finite(v) for k, v in attrs.asdict(value).items()}

        data: dict[str, Any] = {
            "player_1": self.player_1,
            "player_2": self.player_2,
            "wdl": attrs.asdict(self.pairing.wdl),
            "score": interval(self.pairing.win_rate),
            "elo": interval(self.pairing.elo),
            "los": self.pairing.los,
            "pairs": list(self.pairs.counts),
            "pairs_elo": interval(self.pairs_elo),
        }
        if self.sprt is not None and self.sprt_status is not None:
            data["sprt"] = {
                **attrs.asdict(self.sprt),
                "llr": self.sprt_status.llr,
                "lower_bound": self.sprt_status.lower_bound,
                "upper_bound": self.sprt_status.upper_bound,
                "decision": (self.sprt_outcome or self.sprt_status).decision.value,
                "model": self.sprt_status.model,
            }
        return data


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def matchup_stats(
    player_1: str,
    player_2: str,
    wdl: WDL,
    pairs: Pentanomial,
    *,
    sprt: SPRT | None = None,
    alternating: bool = True,
    outcome: SprtOutcome | None = None,
) -> MatchupStats:
    """The figures for a matchup whose player_1 has the tally ``wdl``."""
    status = None
    if sprt is not None:
        status = sprt_status(sprt, sprt_tally(sprt, wdl, pairs, alternating))
    return MatchupStats(
        player_1=player_1,
        player_2=player_2,
        pairing=pairing_stats(wdl),
        pairs=pairs,
        pairs_elo=pentanomial_elo_estimate(pairs) if pairs.pairs else None,
        sprt=sprt,
        sprt_status=status,
        sprt_outcome=outcome,
    )


# ---------------------------------------------------------------------------
# Text


def format_elo(value: float) -> str:
    """``+191``, ``-35``, ``+inf``."""
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    text = f"{value:+.0f}"
    return "0" if text in ("+0", "-0") else text


def format_elo_interval(elo: Interval) -> str:
    """``+191 ± 80 (+120 to +280)``: the estimate, half the width (if finite), the bounds."""
    bounds = f"({format_elo(elo.lower)} to {format_elo(elo.upper)})"
    if math.isinf(elo.margin):
        return f"{format_elo(elo.value)} {bounds}"
    return f"{format_elo(elo.value)} ± {elo.margin:.0f} {bounds}"


def format_elo_brief(elo: Interval) -> str:
    """``+191 ± 80`` for tables; a clean sweep (an infinite estimate) by its finite bound.

    ``≥ +120`` (``≤ -120``) once the bound is on the sweeper's side of zero.
    Before that (2 wins of 2: the 95% bound is -113) the range is spelt out,
    ``-113 to +inf``: "at least -113" for a player who won every game would
    read as if it had lost.
    """
    if math.isinf(elo.value):
        if elo.value > 0 and not math.isinf(elo.lower):
            if elo.lower > 0:
                return f"≥ {format_elo(elo.lower)}"
            return f"{format_elo(elo.lower)} to +inf"
        if elo.value < 0 and not math.isinf(elo.upper):
            if elo.upper < 0:
                return f"≤ {format_elo(elo.upper)}"
            return f"-inf to {format_elo(elo.upper)}"
        return format_elo(elo.value)
    return format_elo_interval(elo).split(" (")[0]


def _percent(value: float) -> str:
    return f"{100.0 * value:.1f}%"


def stats_lines(stats: MatchupStats) -> list[str]:
    """The matchup's figures for ``show`` and the report (95% intervals)."""
    pairing = stats.pairing
    if pairing.wdl.games == 0:
        return []
    rate = pairing.win_rate
    lines = [
        f"{stats.player_1} v {stats.player_2}: Elo {format_elo_interval(pairing.elo)},"
        f" LOS {_percent(pairing.los)},"
        f" score {_percent(rate.value)} ({_percent(rate.lower)} to {_percent(rate.upper)})"
    ]
    pairs = stats.pairs
    if stats.pairs_elo is not None:
        counts = "-".join(str(n) for n in pairs.counts)
        lines.append(
            f"colour-swapped pairs {counts} ({pairs.pairs} pair{'' if pairs.pairs == 1 else 's'}):"
            f" Elo {format_elo_interval(stats.pairs_elo)}"
        )
    if stats.sprt is not None and stats.sprt_status is not None:
        sprt, status = stats.sprt, stats.sprt_status
        text = (
            f"SPRT ({status.model}) elo0 {sprt.elo0:g} elo1 {sprt.elo1:g}"
            f" alpha {sprt.alpha:g} beta {sprt.beta:g}:"
            f" LLR {status.llr:.2f} (bounds {status.lower_bound:.2f}, {status.upper_bound:.2f})"
        )
        outcome = stats.sprt_outcome
        if outcome is not None:
            text += f", {outcome.decision.value} accepted after {outcome.games} games"
        else:
            text += ", undecided"
        lines.append(text)
    return lines
