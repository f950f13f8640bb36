"""The clock's arithmetic, system by system, in tables; and what engines and SGF are told."""

from __future__ import annotations

import pytest

from arena.clock import ClockReading, PlayerClock, loss_reason, time_left_arguments
from arena.control.timecontrol import TimeControl

ABSOLUTE = TimeControl("absolute", 10.0)
BYOYOMI = TimeControl("byoyomi", 10.0, 30.0, periods=3)
BYOYOMI_ONLY = TimeControl("byoyomi", 0.0, 30.0, periods=3)
CANADIAN = TimeControl("canadian", 5.0, 60.0, stones=5)
CANADIAN_ONLY = TimeControl("canadian", 0.0, 60.0, stones=5)
FISCHER = TimeControl("fischer", 10.0, increment=2.0)
PER_MOVE = TimeControl("per_move", period_time=1.0)


def play(
    control: TimeControl, margin: float, moves: list[float]
) -> list[tuple[bool, ClockReading]]:
    clock = PlayerClock(control, margin)
    return [(c.in_time, c.left) for c in map(clock.charge, moves)]


# (control, margin, seconds of each move) -> (in time?, clock after the move) for each move
CASES = [
    # absolute: one pot of time; exactly all of it is in time, the margin forgives a little
    (ABSOLUTE, 0.0, [3, 4], [(True, ClockReading(7)), (True, ClockReading(3))]),
    (ABSOLUTE, 0.0, [10], [(True, ClockReading(0))]),
    (ABSOLUTE, 0.0, [10.01], [(False, ClockReading(10))]),
    (ABSOLUTE, 0.05, [10.05, 0.05], [(True, ClockReading(0)), (True, ClockReading(0))]),
    (ABSOLUTE, 0.05, [9.0, 1.06], [(True, ClockReading(1)), (False, ClockReading(1))]),
    # byo-yomi: main time runs out into the periods (the move that spills is in the first)
    (BYOYOMI, 0.0, [8, 5], [(True, ClockReading(2)), (True, ClockReading(30, 3))]),
    (BYOYOMI, 0.0, [10], [(True, ClockReading(30, 3))]),  # main time used exactly
    (BYOYOMI, 0.0, [45], [(True, ClockReading(30, 2))]),  # 35s into overtime: one period gone
    # a period used within keeps it (reset); each whole period run past is used up
    (BYOYOMI_ONLY, 0.0, [29, 30], [(True, ClockReading(30, 3))] * 2),
    (BYOYOMI_ONLY, 0.0, [31, 29], [(True, ClockReading(30, 2))] * 2),
    (BYOYOMI_ONLY, 0.0, [61], [(True, ClockReading(30, 1))]),
    (BYOYOMI_ONLY, 0.0, [90], [(True, ClockReading(30, 1))]),  # all three, exactly
    (BYOYOMI_ONLY, 0.0, [90.001], [(False, ClockReading(30, 3))]),
    (BYOYOMI_ONLY, 0.0, [61, 30.5], [(True, ClockReading(30, 1)), (False, ClockReading(30, 1))]),
    # the margin keeps the last period
    (BYOYOMI_ONLY, 0.05, [61, 30.05], [(True, ClockReading(30, 1))] * 2),
    # Canadian: stones counted down in a period, then a fresh period
    (
        CANADIAN_ONLY,
        0.0,
        [10, 10, 10, 10, 10, 1],
        [
            (True, ClockReading(50, 4)),
            (True, ClockReading(40, 3)),
            (True, ClockReading(30, 2)),
            (True, ClockReading(20, 1)),
            (True, ClockReading(60, 5)),
            (True, ClockReading(59, 4)),
        ],
    ),
    (CANADIAN_ONLY, 0.0, [10, 50], [(True, ClockReading(50, 4)), (True, ClockReading(0, 3))]),
    (CANADIAN_ONLY, 0.0, [10, 50.5], [(True, ClockReading(50, 4)), (False, ClockReading(50, 4))]),
    # main time spills into the first period, and that move is one of its stones
    (CANADIAN, 0.0, [7], [(True, ClockReading(58, 4))]),
    (CANADIAN, 0.0, [65.5], [(False, ClockReading(5))]),
    # Fischer: the increment comes after each move made in time
    (FISCHER, 0.0, [3, 3], [(True, ClockReading(9)), (True, ClockReading(8))]),
    (FISCHER, 0.0, [10], [(True, ClockReading(2))]),
    (FISCHER, 0.0, [10.5], [(False, ClockReading(10))]),
    (FISCHER, 0.1, [10.1, 2.1], [(True, ClockReading(2))] * 2),
    # a fixed time per move: nothing carries over
    (PER_MOVE, 0.0, [0.2, 1.0], [(True, ClockReading(1, 1))] * 2),
    (PER_MOVE, 0.05, [1.05], [(True, ClockReading(1, 1))]),
    (PER_MOVE, 0.05, [0.5, 1.06], [(True, ClockReading(1, 1)), (False, ClockReading(1, 1))]),
]


@pytest.mark.parametrize(("control", "margin", "moves", "expected"), CASES)
def test_clock(
    control: TimeControl,
    margin: float,
    moves: list[float],
    expected: list[tuple[bool, ClockReading]],
) -> None:
    got = play(control, margin, moves)
    assert [ok for ok, _ in got] == [ok for ok, _ in expected]
    for (_, reading), (_, wanted) in zip(got, expected, strict=True):
        assert reading.count == wanted.count
        assert reading.seconds == pytest.approx(wanted.seconds)


@pytest.mark.parametrize(
    ("control", "moves", "allowance"),
    [
        (ABSOLUTE, [4], 6.0),
        (BYOYOMI, [], 100.0),  # main time and every period
        (BYOYOMI, [8, 33], 60.0),  # 31s into overtime
        (CANADIAN, [], 65.0),  # main time and the first period
        (CANADIAN_ONLY, [20], 40.0),
        (FISCHER, [4], 8.0),
        (PER_MOVE, [0.9], 1.0),
    ],
)
def test_allowance_and_timeout(control: TimeControl, moves: list[float], allowance: float) -> None:
    clock = PlayerClock(control, 0.25)
    for seconds in moves:
        assert clock.charge(seconds).in_time
    assert clock.allowance == pytest.approx(allowance)
    assert clock.timeout == pytest.approx(allowance + 0.25)


def test_a_move_that_lost_is_explained() -> None:
    clock = PlayerClock(PER_MOVE, 0.05)
    charge = clock.charge(1.162)
    assert not charge.in_time
    assert loss_reason("x (black)", 12, charge, PER_MOVE) == (
        "x (black) lost on time at move 12: took 1.162s; its clock allowed 1.000s"
        " + margin 0.05s (1s per move)"
    )


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError):
        PlayerClock(ABSOLUTE, -1)
    with pytest.raises(ValueError):
        PlayerClock(ABSOLUTE, 0).charge(-0.5)


# (control, engine lists kgs-time_settings / kata-time_settings) -> the settings command
@pytest.mark.parametrize(
    ("control", "supported", "command"),
    [
        (ABSOLUTE, {"kgs-time_settings"}, ("kgs-time_settings", "absolute", "10")),
        (ABSOLUTE, {"time_settings"}, ("time_settings", "10", "0", "0")),
        (BYOYOMI, {"kgs-time_settings"}, ("kgs-time_settings", "byoyomi", "10", "30", "3")),
        (BYOYOMI, {"time_settings"}, ("time_settings", "10", "30", "1")),
        (CANADIAN, {"kgs-time_settings"}, ("kgs-time_settings", "canadian", "5", "60", "5")),
        (CANADIAN, {"time_settings"}, ("time_settings", "5", "60", "5")),
        (PER_MOVE, {"kgs-time_settings"}, ("kgs-time_settings", "canadian", "0", "1", "1")),
        (PER_MOVE, {"time_settings"}, ("time_settings", "0", "1", "1")),
        (
            TimeControl("per_move", period_time=0.1),
            {"kgs-time_settings"},
            ("kgs-time_settings", "canadian", "0", "0.1", "1"),
        ),
        (
            FISCHER,
            {"kata-time_settings", "time_settings"},
            ("kata-time_settings", "fischer", "10", "2"),
        ),
        # Fischer without kata-time_settings: an absolute main time, the arena adding
        # the increment and telling the engine by time_left.
        (FISCHER, {"kgs-time_settings", "time_settings"}, ("kgs-time_settings", "absolute", "10")),
        (FISCHER, {"time_settings"}, ("time_settings", "10", "0", "0")),
        (FISCHER, set(), None),
        (ABSOLUTE, set(), None),
    ],
)
def test_settings_command(
    control: TimeControl, supported: set[str], command: tuple[str, ...] | None
) -> None:
    assert control.settings_command(supported) == command


@pytest.mark.parametrize(
    ("control", "reading", "announced_by", "words"),
    [
        (ABSOLUTE, ClockReading(7.9), "time_settings", ("7", "0")),  # whole seconds, rounded down
        (BYOYOMI, ClockReading(30, 2), "kgs-time_settings", ("30", "2")),
        (BYOYOMI, ClockReading(30, 2), "time_settings", ("30", "1")),  # one stone per period
        (CANADIAN, ClockReading(12.5, 3), "time_settings", ("12", "3")),
        (TimeControl("byoyomi", 0, 0.1, periods=1), ClockReading(0.1, 1), None, ("0.1", "1")),
        (TimeControl("absolute", 2.5), ClockReading(1.23456), None, ("1.234", "0")),
    ],
)
def test_time_left_arguments(
    control: TimeControl, reading: ClockReading, announced_by: str | None, words: tuple[str, str]
) -> None:
    assert time_left_arguments(reading, control, announced_by) == words


def test_sgf_descriptions() -> None:
    assert BYOYOMI.sgf_overtime == "3x30 byo-yomi"
    assert CANADIAN.sgf_overtime == "5/60 canadian"
    assert FISCHER.sgf_overtime == "2 fischer"
    assert PER_MOVE.sgf_overtime == "1 per move"
    assert ABSOLUTE.sgf_overtime is None
    assert BYOYOMI.describe() == "byo-yomi 10s + 3x30s"
