"""``benchmarks/engine_collapses.py``: finding the move a lost game collapsed at."""

from __future__ import annotations

from tests.benchmark_scripts import load_benchmark

ec = load_benchmark("engine_collapses")

# Black's moves at even indices, White's at odd ones.
MOVES = [("b", "A1"), ("w", "B1"), ("b", "A3"), ("w", "B3")]
MOVES += [("b", "A5"), ("w", "B5"), ("b", "A7"), ("w", "B7")]


def test_the_collapse_is_our_move_after_which_the_lead_fell_most_by_the_reply() -> None:
    # leads[i]: after i moves.  Our moves are 0, 2, 4, 6; each is judged two moves later.
    leads = [0.0, 1.0, -2.0, -3.0, -25.0, -24.0, -60.0, -61.0, -62.0]
    # move 2: -2 -> -25 (23); move 4: -25 -> -60 (35) but from a position lost by more than 20
    assert ec.collapse_point(MOVES, leads, "b", drop=15, floor=20) == 2
    assert ec.collapse_point(MOVES, leads, "b", drop=15, floor=30) == 4


def test_no_collapse_below_the_drop_or_where_an_estimate_is_missing() -> None:
    leads = [0.0, 1.0, -2.0, -3.0, -10.0, -11.0, -12.0, -13.0, -14.0]
    assert ec.collapse_point(MOVES, leads, "b", drop=15, floor=20) is None
    gaps = [0.0, None, None, -3.0, None, -24.0, -60.0, -61.0, -62.0]
    assert ec.collapse_point(MOVES, gaps, "b", drop=15, floor=20) is None


def test_only_our_colours_moves_count() -> None:
    # The lead falls by 40 between 3 and 4 moves: Black's move 2 (judged over 2 -> 4) for
    # Black, White's move 3 (over 3 -> 5) for White, each side's own move.
    leads = [0.0, 0.0, 0.0, 0.0, -40.0, -40.0, -40.0, -40.0, -40.0]
    assert ec.collapse_point(MOVES, leads, "b", drop=15, floor=20) == 2
    assert ec.collapse_point(MOVES, leads, "w", drop=15, floor=20) == 3
