"""benchmarks/mercy_agreement.py: what it counts, on few playouts (no timing)."""

from __future__ import annotations

from engines.mcts.fastboard import FastBoard
from tests.benchmark_scripts import load_benchmark

mercy = load_benchmark("mercy_agreement")


def test_a_lead_no_playout_reaches_stops_nothing_and_changes_nothing() -> None:
    shares = mercy.agreement(FastBoard(9), 82, 50)  # more stones than the board has points
    assert shares == {"stopped": 0.0, "changed": 0.0}


def test_a_small_lead_stops_playouts_and_changes_some_verdicts() -> None:
    # a lead of 9 (the komi plus one stone is the least) is reached in most playouts
    # from the empty board, long before their end: some then turn round
    small = mercy.agreement(FastBoard(9), 9, 200)
    large = mercy.agreement(FastBoard(9), 20, 200)
    assert small["stopped"] > large["stopped"] > 0.2
    assert small["changed"] > 0
    assert small["changed"] <= small["stopped"]
