"""In main time an unsure search (best two root moves close in visits) may take longer."""

from __future__ import annotations

import time

import pytest

from engines.mcts.gtp_engine import EngineOptions, MctsEngine
from engines.mcts.results import MoveStats
from engines.mcts.timecontrol import (
    UNSURE_RATIO,
    UNSURE_STRETCH,
    Allowance,
    TimeSettings,
    allowance,
    stretched_target,
)


@pytest.mark.parametrize(
    ("target", "limit", "best", "second", "expected"),
    [
        (1.0, 10.0, 100, 50, 1.0),  # sure: the runner-up has half the best one's visits
        (1.0, 10.0, 100, 79, 1.0),  # just below the ratio
        (1.0, 10.0, 100, 80, 2.0),  # at the ratio: twice the target
        (1.0, 10.0, 100, 100, 2.0),  # a tie
        (1.0, 1.5, 100, 95, 1.5),  # never past the limit
        (1.0, 1.0, 100, 95, 1.0),  # no room at all
        (1.0, 10.0, 0, 0, 1.0),  # nothing searched: nothing to be unsure of
        (1.0, 10.0, 1, 0, 1.0),  # one move only
        (2.0, 1.5, 10, 9, 2.0),  # a target already past the limit is left alone
    ],
)
def test_an_unsure_move_stretches_its_target_up_to_the_limit(
    target: float, limit: float, best: int, second: int, expected: float
) -> None:
    assert stretched_target(Allowance(target, limit), best, second) == pytest.approx(expected)


def test_the_stretch_is_what_the_constants_say() -> None:
    assert 0 < UNSURE_RATIO < 1 and UNSURE_STRETCH > 1
    a = Allowance(0.5, 100.0)
    assert stretched_target(a, 1000, int(UNSURE_RATIO * 1000)) == UNSURE_STRETCH * 0.5
    assert stretched_target(a, 1000, int(UNSURE_RATIO * 1000) - 1) == 0.5


@pytest.mark.parametrize(("seconds", "empty"), [(60.0, 81), (20.0, 40), (3.0, 10), (0.5, 60)])
def test_under_an_absolute_clock_a_stretched_move_never_passes_the_clock(
    seconds: float, empty: int
) -> None:
    margin = 0.08
    got = allowance(
        TimeSettings("absolute", seconds),
        seconds,
        0,
        empty_points=empty,
        margin=margin,
        simulation_seconds=0.0005,
    )
    assert got is not None
    stretched = stretched_target(got, 500, 500)
    assert got.target <= stretched <= got.limit <= seconds - margin
    # main time is spread over the moves expected: a stretch is at most twice a share
    assert stretched <= UNSURE_STRETCH * max(got.target, 0.0)


class StubSearch:
    """Simulations of a fixed cost (0.2 ms each), and root statistics fixed by the test."""

    def __init__(self, visits: tuple[int, int]) -> None:
        self.visits = visits
        self.simulations = 0

    def simulate(self, count: int) -> int:
        time.sleep(0.0002 * count)
        self.simulations += count
        return count

    def root_stats(self) -> list[MoveStats]:
        moves = zip((20, 30), self.visits, strict=True)
        return [MoveStats(move, visits, 0.5) for move, visits in moves]


@pytest.mark.parametrize(("visits", "stretched"), [((100, 50), False), ((100, 90), True)])
async def test_the_engine_searches_on_past_its_target_only_when_unsure(
    visits: tuple[int, int], stretched: bool
) -> None:
    # The planned stop is a deadline the search reached: the target's, or the stretched one's.
    engine = MctsEngine(EngineOptions(playouts=0, seed=1))
    target, limit = 0.05, 10.0
    received = time.perf_counter()
    stop, _stall = await engine._run(
        StubSearch(visits),  # type: ignore[arg-type]
        0,
        received + target,
        received + limit,
        1,
        unsure=Allowance(target, limit),
        received=received,
    )
    planned = stop - received
    if stretched:
        assert planned > 1.5 * target  # went on to twice the target
        assert planned <= UNSURE_STRETCH * target + 1e-9
    else:
        assert planned <= target + 1e-9
