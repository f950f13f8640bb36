"""Clock bookkeeping and the time budget of one move (pure, no clock reads).

Owns what the controller told the engine about time (GTP ``time_settings`` and
``time_left``, KGS ``kgs-time_settings`` with ``none``, ``absolute``,
``byoyomi`` and ``canadian``) and turns it into seconds to think for the next
move: a share of the remaining main time, or of the current byo-yomi period,
never more than a per-move cap and always minus a safety margin for the
round trip and the search's last slice (a quarter second, or 30% of the
move's time when that is shorter: at 0.1 s a move the engine thinks about
56 ms, not the 20 ms floor).  When the controller sends no ``time_left``,
the engine's own spending (reported with :meth:`Clock.spent`) keeps the
clock running.
"""

from __future__ import annotations

import math
from typing import Final, Literal

import attrs

from gtp.vertex import Colour

TimeSystem = Literal["none", "absolute", "canadian", "byoyomi"]

SAFETY_MARGIN: Final = 0.25  # seconds kept back for process and pipe latency
SAFETY_SHARE: Final = 0.3  # ... or this share of the move's time, when less
MIN_BUDGET: Final = 0.02


@attrs.frozen
class TimeSettings:
    """The time system of a game.  ``periods`` is for Japanese byo-yomi only."""

    system: TimeSystem = "none"
    main_time: float = 0.0
    period_time: float = 0.0  # Canadian: for ``stones`` moves; byo-yomi: one period
    stones: int = 0  # Canadian only
    periods: int = 0  # byo-yomi only

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
        if s.main_time > 0 or s.system in ("none", "absolute"):
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

    def budget(self, colour: Colour, empty_points: int) -> float | None:
        """Seconds to think about ``colour``'s next move; None when time is unlimited.

        In main time: the remaining time divided by an estimate of our moves
        still to come (half the empty points, at least 10), at most ``share``
        of it, plus what overtime will give each move anyway.  In Canadian
        overtime: the period's time over its stones; in byo-yomi: most of one
        period.  Then minus a safety margin (:data:`SAFETY_MARGIN`, or
        :data:`SAFETY_SHARE` of a short move's time), at most ``cap``.
        """
        s = self.settings
        if s.system == "none":
            return None
        clock = self._clocks[colour]
        per_overtime_move = self._per_overtime_move()
        if clock.count == 0:
            moves_left = max(10.0, empty_points / 2)
            think = clock.seconds * min(self.share, 1.0 / moves_left) + per_overtime_move
        elif s.system == "canadian":
            think = 0.9 * clock.seconds / clock.count
        else:
            think = per_overtime_move
        think = min(think - min(SAFETY_MARGIN, SAFETY_SHARE * think), self.cap)
        return max(think, MIN_BUDGET)

    def _per_overtime_move(self) -> float:
        s = self.settings
        if s.system == "canadian" and s.stones:
            return 0.9 * s.period_time / s.stones
        if s.system == "byoyomi" and s.periods:
            return 0.8 * s.period_time
        return 0.0

    def spent(self, colour: Colour, seconds: float) -> None:
        """Account for a move ``colour`` made (the controller's time_left overrides it)."""
        s = self.settings
        if s.system == "none":
            return
        clock = self._clocks[colour]
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
        if s.system == "canadian":
            return f"canadian {s.main_time:g}s + {s.period_time:g}s per {s.stones} stones"
        return f"byoyomi {s.main_time:g}s + {s.periods} x {s.period_time:g}s"
