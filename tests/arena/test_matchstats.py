"""Per-matchup statistics: colour-swapped pairs, the SPRT stop in playoffs, the report lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.competitions.matchstats import PairCounter, format_elo_brief, matchup_stats, stats_lines
from arena.competitions.playoff import Playoff
from arena.errors import ControlFileError
from arena.reports.text import competition_report
from arena.stats.elo import (
    SPRT,
    WDL,
    Pentanomial,
    SprtDecision,
    elo_estimate,
    sprt_llr,
    sprt_llr_pentanomial,
)
from gtp.vertex import Colour

from .helpers import playoff_config, result

B, W = Colour.BLACK, Colour.WHITE


@pytest.mark.parametrize(
    ("games", "counts", "incomplete", "waiting"),
    [
        ([], (0, 0, 0, 0, 0), 0, []),
        ([(0, True, 1.0)], (0, 0, 0, 0, 0), 0, [0]),
        ([(0, True, 1.0), (1, False, 1.0)], (0, 0, 0, 0, 1), 0, []),
        ([(1, False, 0.0), (0, True, 1.0)], (0, 0, 1, 0, 0), 0, []),  # finish order is free
        ([(0, True, 0.5), (1, False, 1.0)], (0, 0, 0, 1, 0), 0, []),  # a jigo is half
        ([(0, True, 0.0), (1, False, 0.0), (3, False, 0.5)], (1, 0, 0, 0, 0), 0, [1]),
        ([(0, True, None), (1, False, 1.0)], (0, 0, 0, 0, 0), 1, []),  # unknown result
        ([(0, True, 1.0), (1, True, 1.0)], (0, 0, 0, 0, 0), 0, []),  # same colours: no pair
    ],
)
def test_pairs_are_games_2k_and_2k_plus_1_with_colours_swapped(
    games: list[tuple[int, bool, float | None]],
    counts: tuple[int, ...],
    incomplete: int,
    waiting: list[int],
) -> None:
    pairs = PairCounter()
    for number, black, score in games:
        pairs.add(number, black, score)
    assert pairs.pentanomial() == Pentanomial(counts, incomplete)  # type: ignore[arg-type]
    assert sorted(pairs.halves) == waiting
    assert PairCounter.from_json(json.loads(json.dumps(pairs.to_json()))) == pairs


def test_report_lines_for_a_pairing() -> None:
    # 15-5: score 0.75 -> -400 log10(1/0.75 - 1) = +190.8 Elo; per-game sd sqrt(0.75 * 0.25),
    # 0.75 -+ 1.96 * 0.433 / sqrt(20) = 0.560, 0.940 -> +42, +477 Elo, half width 218.
    # LOS = Phi(10 / sqrt(20)) = 0.9873.  Wilson (n 20, z 1.96): 53.1% to 88.8%.
    # Pairs 0-1-3-4-2: mean pair score 0.675 -> +127; pair sd 0.225, 0.675 -+ 1.96 * 0.225 /
    # sqrt(10) = 0.536, 0.814 -> +25, +257 (fastchess's pentanomial interval).
    stats = matchup_stats("a", "b", WDL(15, 5), Pentanomial((0, 1, 3, 4, 2)))
    assert stats_lines(stats) == [
        "a v b: Elo +191 ± 218 (+42 to +477), LOS 98.7%, score 75.0% (53.1% to 88.8%)",
        "colour-swapped pairs 0-1-3-4-2 (10 pairs): Elo +127 ± 116 (+25 to +257)",
    ]
    assert stats_lines(matchup_stats("a", "b", WDL(unknown=3), Pentanomial())) == []


@pytest.mark.parametrize(
    ("sprt", "expected"),
    [
        ("SPRT(0, 100)", SPRT(0, 100)),
        ("SPRT(-5, 5, alpha=0.1, beta=0.2)", SPRT(-5, 5, 0.1, 0.2)),
        ("SPRT(elo0=0, elo1=50, alpha=0.05, beta=0.05)", SPRT(0, 50)),
        ("SPRT(0, 50, model='trinomial')", SPRT(0, 50, model="trinomial")),
        ("None", None),
    ],
)
def test_matchup_sprt_setting(tmp_path: Path, sprt: str, expected: SPRT | None) -> None:
    config = playoff_config(tmp_path, f"Matchup('a', 'b', sprt={sprt})")
    assert config.playoff.matchups[0].sprt == expected


@pytest.mark.parametrize(
    ("sprt", "message"),
    [
        ("5", "expected SPRT(elo0, elo1, alpha, beta), not 5"),
        ("SPRT(100, 0)", "SPRT elo0 must be less than elo1"),
        ("SPRT(0)", "SPRT takes elo0, elo1 and optionally alpha, beta and model"),
        ("SPRT(0, 10, model='binomial')", "SPRT model must be 'trinomial' or 'pentanomial'"),
        ("SPRT(0, 10, model=5)", "SPRT model must be 'trinomial' or 'pentanomial', not 5"),
        ("SPRT(0, 10, alpha=2)", "SPRT alpha must be between 0 and 1"),
        ("SPRT(0, 'x')", "expected a number"),
    ],
)
def test_bad_sprt_settings_are_one_line_errors(tmp_path: Path, sprt: str, message: str) -> None:
    with pytest.raises(ControlFileError) as info:
        playoff_config(tmp_path, f"Matchup('a', 'b', sprt={sprt})")
    text = str(info.value)
    assert message in text and "matchup 0" in text and "\n" not in text


def sprt_playoff(tmp_path: Path, alternating: bool) -> Playoff:
    return Playoff(
        playoff_config(
            tmp_path,
            f"Matchup('a', 'b', alternating={alternating}, number_of_games=400, sprt=SPRT(0, 100))",
        )
    )


@pytest.mark.parametrize(
    ("alternating", "winner", "decision", "games"),
    [
        # Against H0 elo 0 / H1 elo 100 (alpha = beta = 0.05, bounds -+2.94), straight wins
        # decide after 12 games, or 12 pairs when pairs are counted, straight losses after 9
        # (arena.stats.elo's LLR, tested there).
        (False, "a", SprtDecision.ACCEPT_H1, 12),
        (True, "a", SprtDecision.ACCEPT_H1, 24),
        (False, "b", SprtDecision.ACCEPT_H0, 9),
    ],
)
def test_sprt_stops_the_matchup_once_decided(
    tmp_path: Path, alternating: bool, winner: str, decision: SprtDecision, games: int
) -> None:
    playoff = sprt_playoff(tmp_path, alternating)
    played = 0
    while (job := playoff.next_job()) is not None:
        colour = B if job.black.code == winner else W
        playoff.record_result(result(job.game_id, job.black.code, job.white.code, colour), {})
        played += 1
        assert played <= 400
    assert played == games
    assert playoff.is_complete()
    stats = playoff.snapshot().matchups[0].stats
    assert stats is not None and stats.sprt_outcome is not None
    assert (stats.sprt_outcome.decision, stats.sprt_outcome.games) == (decision, games)
    report = competition_report(playoff.snapshot())
    assert f"{decision.value} accepted after {games} games" in report
    assert f"a v b ({games}/400 games)" in report


def test_games_in_progress_at_the_decision_still_count_and_the_decision_stays(
    tmp_path: Path,
) -> None:
    playoff = sprt_playoff(tmp_path, alternating=False)
    jobs = [playoff.next_job() for _ in range(14)]  # 14 games in progress at once
    for job in jobs:
        assert job is not None
        winner = B if job.game_number < 12 else W  # the last two are losses for a
        playoff.record_result(result(job.game_id, "a", "b", winner), {})
    assert playoff.next_job() is None and playoff.is_complete()
    stats = playoff.snapshot().matchups[0].stats
    assert stats is not None and stats.sprt_outcome is not None and stats.sprt_status is not None
    assert stats.sprt_outcome.games == 12 and stats.pairing.wdl == WDL(12, 2)
    assert stats.sprt_status.decision is SprtDecision.CONTINUE  # the LLR moved back inside
    restored = sprt_playoff(tmp_path, alternating=False)
    restored.load_state(json.loads(json.dumps(playoff.to_state())))
    assert restored.next_job() is None
    assert competition_report(restored.snapshot()) == competition_report(playoff.snapshot())


def test_without_sprt_the_matchup_plays_all_its_games(tmp_path: Path) -> None:
    playoff = Playoff(playoff_config(tmp_path, "Matchup('a', 'b', number_of_games=30)"))
    played = 0
    while (job := playoff.next_job()) is not None:
        playoff.record_result(result(job.game_id, "a", "b", B), {})
        played += 1
    assert played == 30
    stats = playoff.snapshot().matchups[0].stats
    assert stats is not None and stats.sprt is None and stats.pairs.pairs == 0  # not alternating
    assert "SPRT" not in competition_report(playoff.snapshot())


def test_snapshot_figures_are_json_ready(tmp_path: Path) -> None:
    playoff = sprt_playoff(tmp_path, alternating=False)
    for job in iter(playoff.next_job, None):
        playoff.record_result(result(job.game_id, "a", "b", B), {})
    stats = playoff.snapshot().matchups[0].stats
    assert stats is not None
    data = json.loads(json.dumps(stats.to_json(), allow_nan=False))
    assert data["wdl"] == {"wins": 12, "losses": 0, "draws": 0, "unknown": 0}
    assert data["elo"]["value"] is None and data["elo"]["upper"] is None  # +inf: all wins
    assert data["elo"]["lower"] > 0
    assert data["sprt"]["decision"] == "H1" and data["sprt"]["elo1"] == 100


def test_colour_advantage_alone_accepts_h0(tmp_path: Path) -> None:
    playoff = sprt_playoff(tmp_path, alternating=True)
    for job in iter(playoff.next_job, None):  # Black always wins: every pair is 1-1
        playoff.record_result(result(job.game_id, job.black.code, job.white.code, B), {})
    stats = playoff.snapshot().matchups[0].stats
    assert stats is not None and stats.sprt_outcome is not None
    assert stats.sprt_outcome.decision is SprtDecision.ACCEPT_H0
    assert stats.pairs.counts == (0, 0, stats.pairs.pairs, 0, 0)


def test_brief_elo_shows_the_finite_bound_of_a_clean_sweep() -> None:
    sweep = elo_estimate(WDL(10, 0, 0))
    assert sweep.value == float("inf")
    text = format_elo_brief(sweep)
    assert text.startswith("≥ +") and "inf" not in text
    wiped = elo_estimate(WDL(0, 10, 0))
    assert format_elo_brief(wiped).startswith("≤ -")
    even = elo_estimate(WDL(5, 5, 0))
    assert format_elo_brief(even).startswith("0 ± ")


@pytest.mark.parametrize(
    ("wdl", "shown"),
    [(WDL(2, 0, 0), "-113 to +inf"), (WDL(0, 2, 0), "-inf to +113")],
    ids=["two-wins", "two-losses"],
)
def test_a_sweep_too_short_to_tell_shows_its_range(wdl: WDL, shown: str) -> None:
    # Not "≥ -113" for the player who won both games.
    assert format_elo_brief(elo_estimate(wdl)) == shown


def played_out(playoff: Playoff, winner_of: dict[int, str]) -> Playoff:
    """Plays every game the playoff asks for; game k is won by ``winner_of[k % len]``."""
    for job in iter(playoff.next_job, None):
        winner = winner_of[job.game_number % len(winner_of)]
        colour = B if job.black.code == winner else W
        playoff.record_result(result(job.game_id, job.black.code, job.white.code, colour), {})
    return playoff


@pytest.mark.parametrize(
    ("settings", "model"),
    [
        ("alternating=True", "pentanomial"),  # colour-swapped pairs: counted in pairs
        ("alternating=False", "trinomial"),  # no pairs: counted in games
        ("alternating=True, sprt=SPRT(0, 100, model='trinomial')", "trinomial"),
        ("alternating=True, sprt=SPRT(0, 100, model='pentanomial')", "pentanomial"),
    ],
)
def test_the_sprt_model_is_chosen_by_the_pairing_unless_set(
    tmp_path: Path, settings: str, model: str
) -> None:
    sprt = "" if "sprt=" in settings else ", sprt=SPRT(0, 100)"
    config = playoff_config(tmp_path, f"Matchup('a', 'b', number_of_games=20, {settings}{sprt})")
    # a wins games 0, 1, 2 of every 4 and loses game 3: pairs score 2, 1, 2, 1...
    playoff = played_out(Playoff(config), {0: "a", 1: "a", 2: "a", 3: "b"})
    stats = playoff.snapshot().matchups[0].stats
    assert stats is not None and stats.sprt_status is not None
    assert stats.sprt_status.model == model
    wdl, pairs = stats.pairing.wdl, stats.pairs
    sprt_setting = config.playoff.matchups[0].sprt
    assert sprt_setting is not None
    expected = (
        sprt_llr_pentanomial(sprt_setting, pairs)
        if model == "pentanomial"
        else sprt_llr(sprt_setting, wdl)
    )
    assert stats.sprt_status.llr == expected
    report = competition_report(playoff.snapshot())
    assert f"SPRT ({model}) elo0 0 elo1 100 alpha 0.05 beta 0.05: LLR {expected:.2f}" in report
    assert stats.to_json()["sprt"]["model"] == model


def test_openings_make_an_sprt_count_pairs(tmp_path: Path) -> None:
    book = tmp_path / "openings"
    book.mkdir()
    for n in range(3):
        (book / f"o{n}.sgf").write_text(f"(;SZ[9];B[{'abc'[n]}a])")
    config = playoff_config(
        tmp_path,
        f"Matchup('a', 'b', number_of_games=12, openings={str(book)!r}, sprt=SPRT(0, 100))",
    )
    assert config.playoff.matchups[0].alternating
    playoff = played_out(Playoff(config), {0: "a", 1: "b"})  # every pair 1-1
    stats = playoff.snapshot().matchups[0].stats
    assert stats is not None and stats.sprt_status is not None
    assert stats.sprt_status.model == "pentanomial" and stats.pairs.counts == (0, 0, 6, 0, 0)


def test_a_pentanomial_sprt_needs_colour_swapped_pairs(tmp_path: Path) -> None:
    with pytest.raises(ControlFileError) as info:
        playoff_config(tmp_path, "Matchup('a', 'b', sprt=SPRT(0, 10, model='pentanomial'))")
    text = str(info.value)
    assert "pentanomial" in text and "alternating=True" in text and "\n" not in text
