"""Time controls as control-file values: the systems, how they are written, what engines are told.

Owns the frozen :class:`TimeControl` (absolute, Japanese byo-yomi, Canadian,
Fischer, fixed time per move), how a control file writes one
(``Absolute(300)``, ``ByoYomi(60, 10, 3)``, ``Canadian(600, 300, 25)``,
``Fischer(60, 2)``, ``PerMove(0.5)``; a ``TimeControl`` value passes as it
is), the GTP command that announces it to an engine at game start, and the
SGF ``TM``/``OT`` text.  How a running clock counts down is
:mod:`arena.clock`'s job; this module only describes.

Times are seconds, floats allowed.  A whole number is written to an engine
as an integer (``time_settings`` takes integers), a fractional one as a
decimal (KataGo and the sample engine accept them; an engine that refuses a
time command is still clocked by the arena).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Final, Literal

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.control.values import ConfigToken, Where, describe_value, token_arguments

TimeSystem = Literal["absolute", "byoyomi", "canadian", "fischer", "per_move"]

DEFAULT_TIME_MARGIN: Final = 0.05  # seconds an engine may overrun its clock without losing
KATA_TIME_SETTINGS: Final = "kata-time_settings"
KGS_TIME_SETTINGS: Final = "kgs-time_settings"
TIME_SETTINGS: Final = "time_settings"
TIME_LEFT: Final = "time_left"
TIME_COMMANDS: Final = (TIME_SETTINGS, TIME_LEFT, KGS_TIME_SETTINGS, KATA_TIME_SETTINGS)


def format_seconds(value: float) -> str:
    """A time for GTP or SGF: ``30``, ``0.1``, ``12.345`` (at most millisecond precision)."""
    if value == int(value):
        return str(int(value))
    return f"{value:.3f}".rstrip("0").rstrip(".")


@attrs.frozen
class TimeControl:
    """One player's time system.

    ``period_time`` is a byo-yomi period, the Canadian period for ``stones``
    moves, or the time for every move with ``per_move``; ``periods`` counts
    byo-yomi periods; ``increment`` is Fischer's, added after each move.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    system: TimeSystem
    main_time: float = 0.0
    period_time: float = 0.0
    periods: int = 0
    stones: int = 0
    increment: float = 0.0

    def describe(self) -> str:
        """In words, for reports and the SGF root comment: ``byo-yomi 60s + 3x10s``."""
        main = format_seconds(self.main_time)
        period = format_seconds(self.period_time)
        if self.system == "absolute":
            return f"absolute {main}s"
        if self.system == "byoyomi":
            return f"byo-yomi {main}s + {self.periods}x{period}s"
        if self.system == "canadian":
            return f"canadian {main}s + {period}s per {self.stones} stones"
        if self.system == "fischer":
            return f"fischer {main}s + {format_seconds(self.increment)}s per move"
        return f"{period}s per move"

    @property
    def sgf_overtime(self) -> str | None:
        """The SGF ``OT`` text (None for absolute time, which has no overtime)."""
        period = format_seconds(self.period_time)
        if self.system == "byoyomi":
            return f"{self.periods}x{period} byo-yomi"
        if self.system == "canadian":
            return f"{self.stones}/{period} canadian"
        if self.system == "fischer":
            return f"{format_seconds(self.increment)} fischer"
        if self.system == "per_move":
            return f"{period} per move"
        return None

    @property
    def whole_seconds(self) -> bool:
        """Every time in whole seconds (then ``time_left`` gives GTP's integers)."""
        return all(t == int(t) for t in (self.main_time, self.period_time, self.increment))

    @property
    def required_command(self) -> str | None:
        """A command the engine must list to be clocked this way (none: the arena keeps
        every clock, Fischer included, and tells the engine with ``time_left``)."""
        return None

    @property
    def overtime_count(self) -> int:
        """Stones (Canadian) or periods (byo-yomi) at the start of overtime."""
        if self.system == "byoyomi":
            return self.periods
        if self.system == "canadian":
            return self.stones
        if self.system == "per_move":
            return 1
        return 0

    def settings_command(self, supported: Collection[str]) -> tuple[str, ...] | None:
        """The command announcing this control to an engine that lists ``supported``.

        Fischer goes by ``kata-time_settings`` where the engine lists it;
        else, as for the others, by ``kgs-time_settings`` where it lists that,
        else GTP's ``time_settings`` (byo-yomi then as one stone per period, as
        kgsGtp does).  Fischer told those ways is an absolute main time: the
        arena adds the increment to its own clock after each move, and the
        engine sees it in the ``time_left`` before its next move.  None when
        the engine lists none of them.
        """
        main = format_seconds(self.main_time)
        period = format_seconds(self.period_time)
        if self.system == "fischer":
            if KATA_TIME_SETTINGS in supported:
                return (KATA_TIME_SETTINGS, "fischer", main, format_seconds(self.increment))
            if KGS_TIME_SETTINGS in supported:
                return (KGS_TIME_SETTINGS, "absolute", main)
            if TIME_SETTINGS in supported:
                return (TIME_SETTINGS, main, "0", "0")
            return None
        if KGS_TIME_SETTINGS in supported:
            if self.system == "absolute":
                return (KGS_TIME_SETTINGS, "absolute", main)
            if self.system == "byoyomi":
                return (KGS_TIME_SETTINGS, "byoyomi", main, period, str(self.periods))
            if self.system == "canadian":
                return (KGS_TIME_SETTINGS, "canadian", main, period, str(self.stones))
            return (KGS_TIME_SETTINGS, "canadian", "0", period, "1")
        if TIME_SETTINGS not in supported:
            return None
        if self.system == "absolute":
            return (TIME_SETTINGS, main, "0", "0")
        if self.system == "byoyomi":
            return (TIME_SETTINGS, main, period, "1")
        if self.system == "canadian":
            return (TIME_SETTINGS, main, period, str(self.stones))
        return (TIME_SETTINGS, "0", period, "1")


# ---------------------------------------------------------------------------
# Control file


TIME_CONTROL_NAMES: Final[Mapping[str, tuple[str, ...]]] = {
    "Absolute": ("main",),
    "ByoYomi": ("main", "period", "periods"),
    "Canadian": ("main", "period", "stones"),
    "Fischer": ("main", "increment"),
    "PerMove": ("seconds",),
}


def _seconds(value: object, where: Where, *, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise where.error(f"expected a number of seconds, not {describe_value(value)}")
    seconds = float(value)
    if not math.isfinite(seconds) or seconds < 0 or (positive and seconds == 0):
        wanted = "a positive" if positive else "a non-negative"
        raise where.error(f"expected {wanted} number of seconds, not {describe_value(value)}")
    return seconds


def _count(value: object, where: Where) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise where.error(f"expected a positive integer, not {describe_value(value)}")
    return value


def parse_time_control(value: object, where: Where) -> TimeControl | None:
    """A ``time_control`` setting: None, a TimeControl, or one of the constructors above."""
    if value is None or isinstance(value, TimeControl):
        return value
    if not isinstance(value, ConfigToken) or value.kind not in TIME_CONTROL_NAMES:
        known = ", ".join(f"{name}(...)" for name in TIME_CONTROL_NAMES)
        raise where.error(f"expected one of {known}, not {describe_value(value)}")
    kind = value.kind
    names = TIME_CONTROL_NAMES[kind]
    arguments = token_arguments(value, names, where)
    missing = [name for name in names if name not in arguments]
    if missing:
        raise where.error(f"{kind} needs {', '.join(missing)}")
    at = {name: where.child(f": {kind} {name}") for name in names}
    if kind == "Absolute":
        return TimeControl("absolute", _seconds(arguments["main"], at["main"], positive=True))
    if kind == "ByoYomi":
        return TimeControl(
            "byoyomi",
            _seconds(arguments["main"], at["main"]),
            _seconds(arguments["period"], at["period"], positive=True),
            periods=_count(arguments["periods"], at["periods"]),
        )
    if kind == "Canadian":
        return TimeControl(
            "canadian",
            _seconds(arguments["main"], at["main"]),
            _seconds(arguments["period"], at["period"], positive=True),
            stones=_count(arguments["stones"], at["stones"]),
        )
    if kind == "Fischer":
        return TimeControl(
            "fischer",
            _seconds(arguments["main"], at["main"], positive=True),
            increment=_seconds(arguments["increment"], at["increment"]),
        )
    return TimeControl(
        "per_move", period_time=_seconds(arguments["seconds"], at["seconds"], positive=True)
    )


def parse_time_margin(value: object, where: Where) -> float:
    return _seconds(value, where)
