"""Time budgets: a share of main time, the byo-yomi allowance, the cap, the clocks."""

from __future__ import annotations

import pytest

from engines.mcts.timecontrol import SAFETY_MARGIN, Clock, TimeSettings
from gtp.vertex import Colour

B = Colour.BLACK


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((0, 1, 0), TimeSettings("none")),  # byo-yomi time without stones: no limit
        ((300, 0, 0), TimeSettings("absolute", 300.0)),
        ((600, 30, 5), TimeSettings("canadian", 600.0, 30.0, 5)),
        ((0, 60, 10), TimeSettings("canadian", 0.0, 60.0, 10)),
    ],
)
def test_gtp_time_settings(args: tuple[int, int, int], expected: TimeSettings) -> None:
    assert TimeSettings.from_gtp(*args) == expected


@pytest.mark.parametrize(
    ("settings", "empty_points", "expected"),
    [
        (TimeSettings("none"), 81, None),
        # absolute: remaining / max(10, empty / 2), at most 10% of it
        (TimeSettings("absolute", 600.0), 81, 600 / 40.5 - SAFETY_MARGIN),
        (TimeSettings("absolute", 100.0), 10, 100 * 0.1 - SAFETY_MARGIN),
        # a short move keeps back 30% of its time rather than the whole margin
        (TimeSettings("absolute", 100.0), 361, 0.7 * 100 / 180.5),
        (TimeSettings("byoyomi", 0.0, 0.1, periods=1), 81, 0.7 * 0.08),
        # Canadian with no main time: the period over its stones
        (TimeSettings("canadian", 0.0, 300.0, 25), 81, 0.9 * 12 - SAFETY_MARGIN),
        # Japanese byo-yomi with no main time: most of a period
        (TimeSettings("byoyomi", 0.0, 10.0, periods=5), 81, 0.8 * 10 - SAFETY_MARGIN),
        # main time plus what overtime will give each move anyway
        (TimeSettings("byoyomi", 60.0, 10.0, periods=3), 81, 60 / 40.5 + 8 - SAFETY_MARGIN),
        # never more than the cap
        (TimeSettings("absolute", 100_000.0), 81, 30.0),
    ],
)
def test_budget(settings: TimeSettings, empty_points: int, expected: float | None) -> None:
    clock = Clock(settings)
    budget = clock.budget(B, empty_points)
    if expected is None:
        assert budget is None
    else:
        assert budget == pytest.approx(expected)


def test_the_controller_sets_the_clock() -> None:
    clock = Clock(TimeSettings("canadian", 600.0, 300.0, 25))
    clock.time_left(B, 20, 4)  # in overtime: 20 s for 4 stones
    assert clock.budget(B, 81) == pytest.approx(0.9 * 5 - SAFETY_MARGIN)
    clock.time_left(B, 0, 0)  # nothing left at all
    assert clock.budget(B, 81) == pytest.approx(0.9 * 12 - SAFETY_MARGIN)
    with pytest.raises(ValueError):
        clock.time_left(B, -1, 0)


def test_our_own_spending_moves_the_clock_into_overtime() -> None:
    clock = Clock(TimeSettings("canadian", 10.0, 60.0, 5))
    clock.spent(B, 4.0)
    assert clock.remaining(B) == (6.0, 0)
    clock.spent(B, 8.0)  # 2 s into the first overtime period, for the first of 5 stones
    assert clock.remaining(B) == (58.0, 4)
    for _ in range(4):
        clock.spent(B, 1.0)
    assert clock.remaining(B) == (60.0, 5)  # a fresh period
    assert clock.remaining(Colour.WHITE) == (10.0, 0)


def test_byoyomi_periods_are_lost_only_by_overrunning() -> None:
    clock = Clock(TimeSettings("byoyomi", 0.0, 10.0, periods=3))
    clock.spent(B, 9.0)
    assert clock.remaining(B) == (10.0, 3)
    clock.spent(B, 12.0)
    assert clock.remaining(B) == (10.0, 2)


def test_small_caps_and_tiny_budgets() -> None:
    clock = Clock(TimeSettings("absolute", 1.0), cap=5.0)
    assert clock.budget(B, 81) == pytest.approx(0.02)  # never zero or negative
    assert Clock(TimeSettings("absolute", 1000.0), cap=2.0).budget(B, 81) == 2.0
