"""Clock bookkeeping and the time allowance of one move (pure: no clock reads, no I/O).

Owns what the controller told the engine about time (GTP ``time_settings``
and ``time_left``; KGS ``kgs-time_settings`` and KataGo ``kata-time_settings``
with ``none``, ``absolute``, ``byoyomi``, ``canadian`` and, KataGo only,
``fischer``), the engine's own measurements that the allowance depends on
(:class:`SafetyMargin`, :class:`SimulationRate`), and the arithmetic that
turns them into an :class:`Allowance`: a *target* for the whole move, from
reading ``genmove`` to writing the answer, and a hard *limit* it must never
pass.

How each system is spent (``margin`` is the measured safety margin, see below):

* absolute: the main time spread over the moves still expected (half the
  empty points, at least :data:`MIN_MOVES_LEFT`), at most ``share`` of it;
  limit: the main time minus the margin.
* Fischer: the same share of the main time plus the increment; limit: the
  main time minus the margin (the increment only comes after the move).
* Japanese byo-yomi: in main time, the main time's share plus one period
  (limit: main time and one period, minus the margin: a period is never
  given away); in overtime the period itself, minus the margin, as target
  and limit, since time a move leaves in its period is lost anyway.
* Canadian (a fixed time per move is Canadian with one stone and no main
  time): in main time, the main time's share plus a stone's share of the
  period (limit: main time plus that stone's share, minus the margin); in
  overtime the time left over the stones left, minus the margin, and the
  limit twice that share (at most what is left), minus the margin.

Whatever the system, the engine leaves room for :data:`MIN_SIMULATIONS`
simulations: the target is raised to what they take at the engine's
measured rate, up to the limit (and the search keeps going past the target
until it has run them, never past the limit).  Nothing exceeds ``cap``
(``--max-move-time``).

The safety margin is measured, not guessed: after every timed move the
engine reports its *overrun*, the seconds from reading ``genmove`` to
handing back the answer beyond the search time it planned (preparing the
position, the search's last slice, deciding, and whatever the machine's
load adds to those; on Linux also the time it waited for a processor before
it could read the command), and its longest *stall*, how much longer than usual
its slowest slice of simulations took (:func:`longest_stall`: time spent
waiting for the processor, which the untimed reading of the command and
writing of the answer can suffer too).  The margin is :data:`MARGIN_FLOOR`
(the pipe and the controller's side, which the engine cannot time) plus the
largest overrun (:data:`INITIAL_OVERRUN` before the first) and the largest
stall of the last :data:`OVERRUN_WINDOW` timed moves.

In main time a move whose search is unsure when it reaches its target (the
best two root moves close in visits) goes on, up to twice its target and
never past its limit (:func:`stretched_target`).

When the controller sends no ``time_left``, the engine's own spending
(:meth:`Clock.spent`) keeps the clock running.
"""

from __future__ import annotations

import math
import statistics
from collections import deque
from collections.abc import Sequence
from typing import Final, Literal

import attrs

from gtp.vertex import Colour

TimeSystem = Literal["none", "absolute", "canadian", "byoyomi", "fischer"]

MIN_SIMULATIONS: Final = 16  # simulations every move has room for, time permitting
MARGIN_FLOOR: Final = 0.03  # seconds for the pipe and the controller, which we cannot time
INITIAL_OVERRUN: Final = 0.05  # seconds assumed before the first timed move
OVERRUN_WINDOW: Final = 10  # timed moves whose worst overrun sets the margin
MIN_MOVES_LEFT: Final = 10  # main time is never planned over fewer moves than this
INITIAL_SIMULATION_SECONDS: Final = 0.005  # assumed before the engine has timed any
RATE_WEIGHT: Final = 0.3  # weight of the newest move in the measured simulation time
UNSURE_RATIO: Final = 0.8  # the runner-up has this share of the best move's visits: unsure
UNSURE_STRETCH: Final = 2.0  # an unsure move in main time may take this many times its target


@attrs.frozen
class TimeSettings:
    """The time system of a game.

    ``period_time`` is a byo-yomi period or the Canadian period for
    ``stones`` moves; ``periods`` counts byo-yomi periods; ``increment`` is
    Fischer's, added after each move.
    """

    system: TimeSystem = "none"
    main_time: float = 0.0
    period_time: float = 0.0
    stones: int = 0  # Canadian only
    periods: int = 0  # byo-yomi only
    increment: float = 0.0  # Fischer only

    @classmethod
    def from_gtp(cls, main_time: int, byo_yomi_time: int, byo_yomi_stones: int) -> TimeSettings:
        """GTP ``time_settings`` (Canadian): byo-yomi time > 0 with 0 stones means no limit."""
        if min(main_time, byo_yomi_time, byo_yomi_stones) < 0:
            raise ValueError("time settings must not be negative")
        if byo_yomi_time > 0 and byo_yomi_stones == 0:
            return cls("none")
        if byo_yomi_time == 0:
            return cls("absolute", float(main_time))
        return cls("canadian", float(main_time), float(byo_yomi_time), byo_yomi_stones)


@attrs.frozen
class Allowance:
    """Seconds one move may take, counted from reading ``genmove`` to the answer."""

    target: float  # what the move should take (the search stops here once it has enough)
    limit: float  # what it must never take more of: the clock's allowance minus the margin


def moves_left(empty_points: int) -> float:
    """How many more moves of ours main time is spread over: half the empty points, or 10."""
    return max(float(MIN_MOVES_LEFT), empty_points / 2)


def allowance(
    settings: TimeSettings,
    seconds: float,
    count: int,
    *,
    empty_points: int,
    margin: float,
    simulation_seconds: float,
    share: float = 0.1,
    cap: float = 30.0,
) -> Allowance | None:
    """The allowance of the next move, None when time is unlimited.

    ``seconds`` and ``count`` are the clock as GTP ``time_left`` gives it:
    main time with count 0, else the time left in the current period and the
    byo-yomi periods or Canadian stones left.  ``margin`` is the safety
    margin and ``simulation_seconds`` what one simulation takes, both as the
    engine measured them.  See the module docstring for each system.
    """
    system = settings.system
    if system == "none":
        return None
    main_share = 0.0
    if count == 0 or system in ("absolute", "fischer"):
        main_share = min(share * seconds, seconds / moves_left(empty_points))
    if system == "absolute":
        limit = seconds - margin
        target = main_share
    elif system == "fischer":
        limit = seconds - margin
        target = main_share + settings.increment
    elif system == "byoyomi":
        if count == 0:
            limit = seconds + settings.period_time - margin
            target = main_share + settings.period_time - margin
        else:
            limit = target = seconds - margin
    else:  # canadian
        if count == 0:
            stone_share = settings.period_time / max(settings.stones, 1)
            limit = seconds + stone_share - margin
            target = main_share + stone_share - margin
        else:
            fair = seconds / count
            limit = min(seconds, 2 * fair) - margin
            target = fair - margin
    limit = max(0.0, min(limit, cap))
    room = MIN_SIMULATIONS * simulation_seconds
    target = min(max(target, room, 0.0), limit)
    return Allowance(target, limit)


def stretched_target(allowance: Allowance, best_visits: int, second_visits: int) -> float:
    """The target of a move in main time whose search has reached its target.

    The search is unsure when its two most visited root moves are close (the
    runner-up has at least :data:`UNSURE_RATIO` of the best one's visits):
    the move may then take up to :data:`UNSURE_STRETCH` times its target,
    never past its limit (the clock minus the safety margin), and the next
    moves plan over what is left.  A sure move keeps its target.  Asked once
    a move, and only in main time: what a byo-yomi or Canadian period leaves
    is lost anyway, so there the target already spends it.
    """
    if best_visits <= 0 or second_visits < UNSURE_RATIO * best_visits:
        return allowance.target
    return max(allowance.target, min(allowance.limit, UNSURE_STRETCH * allowance.target))


@attrs.define
class SafetyMargin:
    """The margin kept back from each move's clock (see the module docstring).

    The floor, plus the worst overrun and the worst stall of the last
    ``window`` timed moves.
    """

    floor: float = MARGIN_FLOOR
    window: int = OVERRUN_WINDOW
    _overruns: deque[float] = attrs.field(init=False)
    _stalls: deque[float] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self._overruns = deque(maxlen=self.window)
        self._stalls = deque(maxlen=self.window)

    def record(self, overrun: float, stall: float = 0.0) -> None:
        """A timed move: its seconds beyond the planned search, and its longest stall.

        Negative figures count as none.
        """
        if math.isfinite(overrun) and math.isfinite(stall):
            self._overruns.append(max(0.0, overrun))
            self._stalls.append(max(0.0, stall))

    @property
    def worst_overrun(self) -> float:
        return max(self._overruns) if self._overruns else INITIAL_OVERRUN

    @property
    def worst_stall(self) -> float:
        return max(self._stalls, default=0.0)

    @property
    def seconds(self) -> float:
        return self.floor + self.worst_overrun + self.worst_stall


def longest_stall(slices: Sequence[tuple[int, float]]) -> float:
    """How much longer than usual the slowest of a search's slices took, in seconds.

    ``slices`` holds (simulations, seconds) for each slice of one move's
    search.  A slice's usual time is its simulations at the median time a
    simulation took in this search; the excess of the worst is time the
    process waited for the processor (or a collection paused it), which
    the reading of the command and the writing of the answer, untimed, can
    suffer too.  Fewer than three slices tell nothing: 0.
    """
    if len(slices) < 3:
        return 0.0
    typical = statistics.median(seconds / count for count, seconds in slices)
    return max(0.0, max(seconds - count * typical for count, seconds in slices))


@attrs.define
class SimulationRate:
    """What one simulation takes, as the engine timed its searches (a moving average)."""

    seconds: float = INITIAL_SIMULATION_SECONDS

    def record(self, simulations: int, elapsed: float) -> None:
        if simulations <= 0 or not math.isfinite(elapsed) or elapsed <= 0:
            return
        self.seconds += RATE_WEIGHT * (elapsed / simulations - self.seconds)

    def reset(self, simulations: int, elapsed: float) -> None:
        """Start over from one measurement (a new board size)."""
        if simulations > 0 and math.isfinite(elapsed) and elapsed > 0:
            self.seconds = elapsed / simulations


@attrs.define
class _Remaining:
    """One player's clock: main time left, or time and stones/periods in overtime."""

    seconds: float
    count: int  # 0 while main time runs; then stones (Canadian) or periods (byo-yomi) left


@attrs.define
class Clock:
    """Both players' clocks under one :class:`TimeSettings`."""

    settings: TimeSettings = attrs.field(factory=TimeSettings)
    share: float = 0.1  # most of the remaining main time one move may take
    cap: float = 30.0  # seconds, never more per move
    _clocks: dict[Colour, _Remaining] = attrs.field(init=False, factory=dict)

    def __attrs_post_init__(self) -> None:
        self.reset(self.settings)

    def reset(self, settings: TimeSettings) -> None:
        self.settings = settings
        self._clocks = {colour: self._fresh() for colour in Colour}

    def _fresh(self) -> _Remaining:
        s = self.settings
        if s.main_time > 0 or s.system in ("none", "absolute", "fischer"):
            return _Remaining(s.main_time, 0)
        return self._overtime_start()

    def _overtime_start(self) -> _Remaining:
        s = self.settings
        return _Remaining(s.period_time, s.stones if s.system == "canadian" else s.periods)

    @property
    def limited(self) -> bool:
        return self.settings.system != "none"

    def time_left(self, colour: Colour, seconds: float, count: int) -> None:
        """GTP/KGS ``time_left``: count is 0 in main time, else stones or periods left."""
        if not math.isfinite(seconds) or seconds < 0 or count < 0:
            raise ValueError("time left must be a non-negative number")
        self._clocks[colour] = _Remaining(float(seconds), count)

    def remaining(self, colour: Colour) -> tuple[float, int]:
        clock = self._clocks[colour]
        return clock.seconds, clock.count

    def allowance(
        self, colour: Colour, empty_points: int, *, margin: float, simulation_seconds: float
    ) -> Allowance | None:
        """:func:`allowance` for ``colour``'s clock as it stands; None when time is unlimited."""
        seconds, count = self.remaining(colour)
        return allowance(
            self.settings,
            seconds,
            count,
            empty_points=empty_points,
            margin=margin,
            simulation_seconds=simulation_seconds,
            share=self.share,
            cap=self.cap,
        )

    def spent(self, colour: Colour, seconds: float) -> None:
        """Account for a move ``colour`` made (the controller's time_left overrides it)."""
        s = self.settings
        if s.system == "none":
            return
        clock = self._clocks[colour]
        if s.system == "fischer":
            clock.seconds = max(clock.seconds - seconds, 0.0) + s.increment
            return
        if clock.count == 0:
            clock.seconds -= seconds
            if clock.seconds >= 0 or s.system == "absolute":
                clock.seconds = max(clock.seconds, 0.0)
                return
            overflow = -clock.seconds
            fresh = self._overtime_start()
            clock.seconds, clock.count = fresh.seconds, fresh.count
            seconds = overflow
        if s.system == "canadian":
            clock.seconds = max(clock.seconds - seconds, 0.0)
            clock.count -= 1
            if clock.count <= 0:
                fresh = self._overtime_start()
                clock.seconds, clock.count = fresh.seconds, fresh.count
        elif s.system == "byoyomi":
            if seconds > s.period_time:
                clock.count = max(clock.count - 1, 1)
            clock.seconds = s.period_time

    def describe(self) -> str:
        s = self.settings
        if s.system == "none":
            return "none"
        if s.system == "absolute":
            return f"absolute {s.main_time:g}s"
        if s.system == "fischer":
            return f"fischer {s.main_time:g}s + {s.increment:g}s per move"
        if s.system == "canadian":
            return f"canadian {s.main_time:g}s + {s.period_time:g}s per {s.stones} stones"
        return f"byoyomi {s.main_time:g}s + {s.periods} x {s.period_time:g}s"
