"""Time allowances as pure arithmetic: every system with injected clocks, margins and speeds."""

from __future__ import annotations

import pytest

from engines.mcts.gtp_engine import run_queue_seconds
from engines.mcts.timecontrol import (
    INITIAL_OVERRUN,
    MARGIN_FLOOR,
    MIN_SIMULATIONS,
    OVERRUN_WINDOW,
    Allowance,
    Clock,
    SafetyMargin,
    SimulationRate,
    TimeSettings,
    allowance,
    longest_stall,
    moves_left,
)
from gtp.vertex import Colour

B = Colour.BLACK
M = 0.05  # the safety margin the cases are computed with
FAST = 0.001  # seconds a simulation: the minimum simulations need 0.016 s


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


BYOYOMI = TimeSettings("byoyomi", 60.0, 10.0, periods=5)
SHORT_BYOYOMI = TimeSettings("byoyomi", 5.0, 0.25, periods=3)
CANADIAN = TimeSettings("canadian", 600.0, 300.0, stones=25)
PER_MOVE = TimeSettings("canadian", 0.0, 0.2, stones=1)  # what PerMove(0.2) is announced as
ABSOLUTE = TimeSettings("absolute", 600.0)
FISCHER = TimeSettings("fischer", 60.0, increment=2.0)

# (settings, seconds, count, empty points, seconds a simulation, target, limit)
CASES = [
    # Japanese byo-yomi in overtime: the period, less the margin, is both target and limit
    ("byoyomi period", BYOYOMI, 10.0, 5, 81, FAST, 10 - M, 10 - M),
    ("byoyomi 0.2 s left", SHORT_BYOYOMI, 0.2, 3, 70, FAST, 0.2 - M, 0.2 - M),
    ("byoyomi nothing left", BYOYOMI, 0.0, 1, 81, FAST, 0.0, 0.0),
    # ... in main time: main time's share plus the period; never a second period
    ("byoyomi main", BYOYOMI, 60.0, 0, 81, FAST, 60 / 40.5 + 10 - M, 60 + 10 - M),
    (
        "byoyomi main nearly gone",
        SHORT_BYOYOMI,
        0.5,
        0,
        81,
        FAST,
        0.5 / 40.5 + 0.25 - M,
        0.5 + 0.25 - M,
    ),
    # Canadian in overtime: the time over the stones; at most twice that share
    ("canadian period", CANADIAN, 300.0, 25, 81, FAST, 12 - M, 24 - M),
    ("canadian last stone", CANADIAN, 3.0, 1, 81, FAST, 3 - M, 3 - M),
    ("canadian main", CANADIAN, 600.0, 0, 81, FAST, 600 / 40.5 + 12 - M, 600 + 12 - M),
    ("canadian main just gone", CANADIAN, 0.0, 0, 81, FAST, 12 - M, 12 - M),
    # a fixed time per move: all of it but the margin
    ("per move", PER_MOVE, 0.2, 1, 81, FAST, 0.2 - M, 0.2 - M),
    ("per move, slow", PER_MOVE, 0.2, 1, 81, 0.05, 0.2 - M, 0.2 - M),
    # absolute: the remaining time over half the empty points (at least 10 moves)
    ("absolute", ABSOLUTE, 600.0, 0, 81, FAST, 600 / 40.5, 600 - M),
    ("absolute endgame", ABSOLUTE, 100.0, 0, 10, FAST, 100 / 10, 100 - M),
    ("absolute share", ABSOLUTE, 100.0, 0, 4, FAST, 100 * 0.1, 100 - M),
    (
        "absolute, the minimum simulations",
        ABSOLUTE,
        1.0,
        0,
        81,
        0.01,
        MIN_SIMULATIONS * 0.01,
        1 - M,
    ),
    ("absolute, the minimum up to the limit", ABSOLUTE, 0.1, 0, 81, 0.01, 0.1 - M, 0.1 - M),
    ("absolute nearly gone", ABSOLUTE, 0.01, 0, 81, FAST, 0.0, 0.0),
    # Fischer: main time's share plus the increment, within the main time
    ("fischer", FISCHER, 60.0, 0, 81, FAST, 60 / 40.5 + 2, 60 - M),
    ("fischer low", FISCHER, 2.5, 0, 81, FAST, 2.5 / 40.5 + 2, 2.5 - M),
    ("fischer lower than the increment", FISCHER, 1.0, 0, 81, FAST, 1 - M, 1 - M),
]


@pytest.mark.parametrize(
    ("settings", "seconds", "count", "empty_points", "simulation", "target", "limit"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_allowance(
    settings: TimeSettings,
    seconds: float,
    count: int,
    empty_points: int,
    simulation: float,
    target: float,
    limit: float,
) -> None:
    got = allowance(
        settings,
        seconds,
        count,
        empty_points=empty_points,
        margin=M,
        simulation_seconds=simulation,
        cap=1000.0,
    )
    assert got is not None
    assert got.target == pytest.approx(target)
    assert got.limit == pytest.approx(limit)
    assert 0 <= got.target <= got.limit


def test_no_time_system_no_allowance() -> None:
    assert (
        allowance(TimeSettings("none"), 0.0, 0, empty_points=81, margin=M, simulation_seconds=FAST)
        is None
    )


@pytest.mark.parametrize("margin", [0.0, 0.03, 0.1, 0.5])
@pytest.mark.parametrize(
    ("settings", "seconds", "count"),
    [
        (BYOYOMI, 10.0, 3),
        (PER_MOVE, 0.2, 1),
        (CANADIAN, 20.0, 4),
        (ABSOLUTE, 2.0, 0),
        (FISCHER, 3.0, 0),
    ],
)
def test_the_limit_keeps_the_margin_back(
    settings: TimeSettings, seconds: float, count: int, margin: float
) -> None:
    # Whatever the speed, never more than what the clock allows this move minus the margin.
    for simulation in (1e-4, 0.01, 1.0):
        got = allowance(
            settings,
            seconds,
            count,
            empty_points=60,
            margin=margin,
            simulation_seconds=simulation,
        )
        assert got is not None
        assert got.limit <= max(0.0, seconds - margin) + 1e-12
        assert got.target <= got.limit


def test_moves_left() -> None:
    assert moves_left(81) == 40.5
    assert moves_left(361) == 180.5
    assert moves_left(6) == 10


def test_the_controller_sets_the_clock() -> None:
    clock = Clock(CANADIAN)
    clock.time_left(B, 20, 4)  # in overtime: 20 s for 4 stones
    got = clock.allowance(B, 81, margin=M, simulation_seconds=FAST)
    assert got == Allowance(pytest.approx(5 - M), pytest.approx(10 - M))  # type: ignore[arg-type]
    clock.time_left(B, 0, 0)  # main time gone, overtime not started
    got = clock.allowance(B, 81, margin=M, simulation_seconds=FAST)
    assert got is not None and got.target == pytest.approx(12 - M)
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


def test_fischer_adds_the_increment_after_each_move() -> None:
    clock = Clock(FISCHER)
    clock.spent(B, 5.0)
    assert clock.remaining(B) == (57.0, 0)
    clock.spent(B, 100.0)  # over the clock: nothing left but the increment
    assert clock.remaining(B) == (2.0, 0)


def test_the_cap_bounds_target_and_limit() -> None:
    clock = Clock(ABSOLUTE, cap=2.0)
    assert clock.allowance(B, 81, margin=M, simulation_seconds=FAST) == Allowance(2.0, 2.0)
    clock = Clock(TimeSettings("absolute", 100_000.0))  # the default cap: 30 s
    assert clock.allowance(B, 81, margin=M, simulation_seconds=FAST) == Allowance(30.0, 30.0)


def test_the_margin_is_the_floor_plus_the_worst_recent_overrun_and_stall() -> None:
    margin = SafetyMargin()
    assert margin.seconds == pytest.approx(MARGIN_FLOOR + INITIAL_OVERRUN)
    margin.record(0.01)
    assert margin.seconds == pytest.approx(MARGIN_FLOOR + 0.01)
    margin.record(0.2, stall=0.03)  # one bad move ...
    margin.record(-0.5)  # (finishing early is no overrun)
    assert margin.seconds == pytest.approx(MARGIN_FLOOR + 0.2 + 0.03)
    for _ in range(OVERRUN_WINDOW - 2):  # the window holds the bad move and these
        margin.record(0.002, stall=0.001)
    assert margin.seconds == pytest.approx(MARGIN_FLOOR + 0.2 + 0.03)  # still in the window
    margin.record(0.002, stall=0.001)
    assert margin.seconds == pytest.approx(MARGIN_FLOOR + 0.002 + 0.001)  # ... then forgotten


@pytest.mark.parametrize(
    ("slices", "stall"),
    [
        ([], 0.0),
        ([(10, 0.02), (10, 0.09)], 0.0),  # too few to say what is usual
        ([(10, 0.02)] * 5, 0.0),
        ([(10, 0.02)] * 5 + [(10, 0.05)], 0.03),
        ([(5, 0.01), (20, 0.04), (10, 0.02), (1, 0.032)], 0.03),  # the last: 1 sim, 32 ms
    ],
)
def test_longest_stall(slices: list[tuple[int, float]], stall: float) -> None:
    assert longest_stall(slices) == pytest.approx(stall)


def test_simulation_rate_follows_the_measurements() -> None:
    rate = SimulationRate()
    rate.reset(8, 0.08)
    assert rate.seconds == pytest.approx(0.01)
    for _ in range(30):
        rate.record(100, 0.2)
    assert rate.seconds == pytest.approx(0.002, rel=0.01)
    rate.record(0, 1.0)  # nothing measured: nothing changes
    assert rate.seconds == pytest.approx(0.002, rel=0.01)


def test_the_run_queue_wait_only_grows() -> None:
    # Linux tells each thread how long it waited for a processor; elsewhere: None.
    first = run_queue_seconds()
    if first is None:
        pytest.skip("no /proc/thread-self/schedstat here")
    second = run_queue_seconds()
    assert second is not None and 0 <= first <= second
