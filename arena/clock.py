"""The arithmetic of a game clock (pure: it reads no clock, does no I/O, knows no trio).

Owns :class:`PlayerClock`, one player's remaining time under a
:class:`arena.control.timecontrol.TimeControl` and the time margin.  The match
runner times each ``genmove`` (from the moment the command is written to the
moment the response line is read) and calls :meth:`PlayerClock.charge` with
the seconds; the clock says whether the move was in time and what is left,
for ``time_left`` and for the SGF's BL/WL and OB/OW.

The systems:

* absolute: one main time for the game;
* Fischer: main time, plus the increment after every move made in time;
* Canadian: main time, then periods of ``period_time`` for ``stones`` moves;
  a new period starts once its stones are played;
* Japanese byo-yomi: main time, then ``periods`` periods of ``period_time``;
  a move made within a period keeps it, each whole period a move runs past is
  used up, and a move past the last period loses;
* a fixed time per move: a Canadian period of one stone and no main time.

The move during which main time runs out goes on in overtime (it is one of
the Canadian period's stones).  A move that takes exactly what the clock
allows is in time.  The margin forgives lateness only where it would lose: a
move that overruns its whole allowance by at most the margin is in time and
leaves the clock as if it had taken exactly the allowance (main time 0, the
last byo-yomi period or Canadian period kept with nothing left).
"""

from __future__ import annotations

import math
from typing import Final

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.control.timecontrol import TIME_SETTINGS, TimeControl, format_seconds

EPSILON: Final = 1e-9  # seconds: float noise in sums, never a real difference


@attrs.frozen
class ClockReading:
    """What a clock shows: main time left (count 0), or overtime left and its count.

    In overtime ``seconds`` is the time left in the current period and
    ``count`` the byo-yomi periods or Canadian stones left, the current one
    included (GTP ``time_left``, SGF ``OB``/``OW``).
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    seconds: float
    count: int = 0

    @property
    def in_overtime(self) -> bool:
        return self.count > 0


@attrs.frozen
class Charge:
    """One move's time, as the clock judged it."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    elapsed: float
    allowed: float  # what the clock allowed the move, the margin excluded
    margin: float
    in_time: bool
    left: ClockReading  # after the move (unchanged for a move that lost)


class PlayerClock:
    """One player's clock (see the module docstring for the rules)."""

    def __init__(self, control: TimeControl, margin: float) -> None:
        if margin < 0 or not math.isfinite(margin):
            raise ValueError(f"the time margin must be a non-negative number, not {margin!r}")
        self.control = control
        self.margin = margin
        self._main = control.main_time
        self._overtime = False
        self._period_left = 0.0  # Canadian: time left in the current period
        self._count = 0  # byo-yomi periods or Canadian stones left in overtime
        if control.system == "per_move" or (
            control.main_time <= EPSILON and control.system in ("byoyomi", "canadian")
        ):
            self._start_overtime()

    def _start_overtime(self) -> None:
        control = self.control
        self._main = 0.0
        self._overtime = True
        self._period_left = control.period_time
        self._count = control.overtime_count

    # -- what the clock shows ----------------------------------------------------

    @property
    def reading(self) -> ClockReading:
        if not self._overtime:
            return ClockReading(self._main, 0)
        return ClockReading(self._period_left, self._count)

    @property
    def allowance(self) -> float:
        """The most the next move may take without counting the margin."""
        control = self.control
        system = control.system
        if system in ("absolute", "fischer"):
            return self._main
        if system == "byoyomi":
            periods = self._count if self._overtime else control.periods
            return self._main + periods * control.period_time
        if self._overtime:
            return self._period_left
        return self._main + control.period_time

    @property
    def timeout(self) -> float:
        """When the next move has lost at the latest: the allowance plus the margin."""
        return self.allowance + self.margin

    # -- a move ------------------------------------------------------------------

    def charge(self, elapsed: float) -> Charge:
        """Take ``elapsed`` seconds off for one move (a move that lost changes nothing)."""
        if elapsed < 0 or not math.isfinite(elapsed):
            raise ValueError(f"a move cannot take {elapsed!r} seconds")
        allowed = self.allowance
        if elapsed > allowed + self.margin + EPSILON:
            return Charge(elapsed, allowed, self.margin, False, self.reading)
        control = self.control
        spent = elapsed
        if not self._overtime:
            if spent <= self._main + EPSILON or control.system in ("absolute", "fischer"):
                self._main = max(0.0, self._main - spent)
                if control.system == "fischer":
                    self._main += control.increment
                elif self._main <= EPSILON and control.system != "absolute":
                    self._start_overtime()
                return Charge(elapsed, allowed, self.margin, True, self.reading)
            spent -= self._main
            self._start_overtime()
        if control.system == "byoyomi":
            # Each whole period the move ran past is used up; within the margin
            # of the last one, that one is kept.
            passed = max(0, math.ceil((spent - EPSILON) / control.period_time) - 1)
            self._count = max(1, self._count - passed)
        else:
            self._period_left = max(0.0, self._period_left - spent)
            self._count -= 1
            if self._count <= 0:
                self._start_overtime()
        return Charge(elapsed, allowed, self.margin, True, self.reading)


def loss_reason(
    who: str, move_number: int, charge: Charge, control: TimeControl, *, answered: bool = True
) -> str:
    """Why the game ended: the player, the move, its time and what its clock allowed.

    ``answered``: the move came, late; else the arena stopped waiting for it.
    """
    took = f"took {charge.elapsed:.3f}s" if answered else f"no answer in {charge.elapsed:.3f}s"
    return (
        f"{who} lost on time at move {move_number}: {took};"
        f" its clock allowed {charge.allowed:.3f}s + margin {format_seconds(charge.margin)}s"
        f" ({control.describe()})"
    )


def time_left_arguments(
    reading: ClockReading, control: TimeControl, announced_by: str | None
) -> tuple[str, str]:
    """The time and count words of ``time_left`` for this reading.

    Whole seconds (rounded down, as GTP's integers) when the control is in
    whole seconds, milliseconds otherwise.  Byo-yomi announced by plain
    ``time_settings`` (one stone per period) counts one stone in overtime.
    """
    if control.whole_seconds:
        seconds = str(math.floor(reading.seconds + EPSILON))
    else:
        seconds = format_seconds(math.floor(reading.seconds * 1000 + EPSILON) / 1000)
    count = reading.count
    if count and control.system == "byoyomi" and announced_by == TIME_SETTINGS:
        count = 1
    return seconds, str(count)
