"""Live analysis for GTP controllers: ``lz-analyze`` and ``kata-analyze``.

Owns what these commands (as Lizzie and Sabaki send them) add to the engine:
their arguments (:func:`parse_analyze_args`), the loop that grows the search
until the controller sends another line, and the ``info`` lines streamed
through :meth:`GtpServer.send_raw` once per interval: root statistics with
Wilson lower confidence bounds, principal variations and, for KataGo's
command, ownership.  The engine (:mod:`engines.mcts.gtp_engine`) registers the
commands, sets its search to the analysed position and lends it here, so the
tree grown during analysis is kept for the next move.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Final

import attrs
import trio

from engines.mcts.search import Search
from gtp.arguments import FLOAT_SYNTAX
from gtp.server import RAW_RESPONSE_DONE, GtpFailure, GtpServer
from gtp.vertex import Colour

# The syntax of a GTP float; the engine's other number arguments use it too.
ANALYSIS_MAX_VISITS: Final = 1_000_000  # root visits at which analysis stops growing the tree
ANALYSIS_PV_LENGTH: Final = 20
IDLE_POLL_SECONDS: Final = 0.01  # how often an analysis that stopped searching looks at input
LCB_Z: Final = 1.96  # normal quantile of the lower confidence bound (95 % two-sided)
# kata-analyze options we accept (true or false) but have no data for.
_IGNORED_KATA_FLAGS: Final = frozenset(
    {
        "ownershipstdev",
        "movesownership",
        "movesownershipstdev",
        "pvvisits",
        "pvedgevisits",
        "rootinfo",
    }
)


@attrs.frozen
class AnalyzeRequest:
    """The arguments of ``lz-analyze`` / ``kata-analyze``."""

    colour: Colour | None = None  # None: the side to move
    interval: float = 0.0  # seconds between two info lines; 0: no info lines
    max_moves: int = 0  # moves per line at most (0: every move with visits)
    ownership: bool = False  # kata-analyze only


def parse_analyze_args(args: tuple[str, ...], *, kata: bool) -> AnalyzeRequest:
    """``[colour] [interval] [interval N] [minmoves N] [maxmoves N] [ownership B]``.

    The interval is in centiseconds.  ``minmoves`` is accepted, but only moves
    with visits are ever reported.  Raises :class:`GtpFailure` on bad arguments.
    """
    command = "kata-analyze" if kata else "lz-analyze"
    colour: Colour | None = None
    interval = 0.0
    max_moves = 0
    ownership = False
    i = 0
    if args and args[0].lower() in ("b", "w", "black", "white"):
        colour = Colour.parse(args[0])
        i = 1
    if i < len(args) and FLOAT_SYNTAX.fullmatch(args[i]):
        interval = _parse_interval(command, args[i])
        i += 1
    while i < len(args):
        key = args[i].lower()
        known = key in ("interval", "minmoves", "maxmoves") or (
            kata and (key == "ownership" or key in _IGNORED_KATA_FLAGS)
        )
        if key in ("allow", "avoid"):
            raise GtpFailure(f"{command}: {key} is not supported")
        if not known:
            if i == 0:
                raise GtpFailure(
                    f"{command}: expected a colour (b, w, black, white) or an interval"
                    f" in centiseconds, got {args[i]!r}"
                )
            raise GtpFailure(f"{command}: unknown argument {args[i]!r}")
        if i + 1 >= len(args):
            raise GtpFailure(f"{command}: {args[i]} needs a value")
        value = args[i + 1]
        if key == "interval":
            interval = _parse_interval(command, value)
        elif key in ("minmoves", "maxmoves"):
            if not (value.isascii() and value.isdigit()):
                raise GtpFailure(f"{command}: {args[i]} needs a whole number, got {value!r}")
            if key == "maxmoves":
                max_moves = int(value)
        else:
            if value.lower() not in ("true", "false"):
                raise GtpFailure(f"{command}: {args[i]} needs true or false, got {value!r}")
            if key == "ownership":
                ownership = value.lower() == "true"
        i += 2
    return AnalyzeRequest(colour, interval / 100, max_moves, ownership)


def _parse_interval(command: str, text: str) -> float:
    if not FLOAT_SYNTAX.fullmatch(text):
        raise GtpFailure(f"{command}: interval must be a number of centiseconds, got {text!r}")
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise GtpFailure(f"{command}: interval must not be negative, got {text!r}")
    return value


def lower_confidence_bound(win_rate: float, visits: int) -> float:
    """Wilson score lower bound of a win rate measured over ``visits`` simulations.

    Like the normal bound ``w - z * sqrt(w (1 - w) / n)`` for many visits, but it
    stays well below 1 for a move that won its only few simulations.
    """
    if visits <= 0:
        return 0.0
    z2 = LCB_Z * LCB_Z
    spread = LCB_Z * math.sqrt(win_rate * (1 - win_rate) / visits + z2 / (4 * visits * visits))
    bound = (win_rate + z2 / (2 * visits) - spread) / (1 + z2 / visits)
    return min(1.0, max(0.0, bound))


def _permyriad(value: float) -> int:
    return min(10000, max(0, round(value * 10000)))


@attrs.frozen
class LiveAnalysis:
    """One analysis command at work on a search already set to the analysed position."""

    search: Search
    request: AnalyzeRequest
    colour: Colour  # the side to move in the analysed position
    kata: bool  # KataGo's line format (and ownership), else Leela Zero's
    spell: Callable[[int], str]  # a move as GTP writes it

    async def run(
        self,
        server: GtpServer,
        command_id: int | None,
        run_slice: Callable[[Search, int], int],
    ) -> str:
        """Search until the controller sends a line, one info line per interval.

        ``run_slice(search, count)`` runs ``count`` simulations and returns how
        many the next slice should run.
        """
        await server.send_raw(f"={'' if command_id is None else command_id}\n".encode())
        search = self.search
        interval = self.request.interval
        next_report = time.perf_counter() + interval
        batch = 4
        while not (server.input_pending or server.input_ended):
            if interval and time.perf_counter() >= next_report:
                line = self.line()
                if line:
                    await server.send_raw(line.encode())
                next_report = time.perf_counter() + interval
            room = ANALYSIS_MAX_VISITS - search.root_visits
            if room <= 0:
                await trio.sleep(IDLE_POLL_SECONDS)  # big enough: keep memory bounded
                continue
            batch = run_slice(search, min(batch, room))
            await trio.sleep(0)
        await server.send_raw(b"\n")
        return RAW_RESPONSE_DONE

    def line(self) -> str:
        """One line of info blocks, most visited move first ("" before any visit)."""
        search = self.search
        spell = self.spell
        kata = self.kata
        stats = search.root_stats()
        if self.request.max_moves:
            stats = stats[: self.request.max_moves]
        blocks: list[str] = []
        for order, s in enumerate(stats):
            line = search.principal_variation_from(s.move, ANALYSIS_PV_LENGTH)
            pv = " ".join(spell(m) for m in line)
            w = s.win_rate
            lcb = lower_confidence_bound(w, s.visits)
            if kata:
                numbers = (
                    f"utility {2 * w - 1:.6f} winrate {w:.6f} scoreMean 0.0 scoreLead 0.0"
                    f" prior {s.prior:.6f} lcb {lcb:.6f}"
                )
            else:
                numbers = (
                    f"winrate {_permyriad(w)} prior {_permyriad(s.prior)} lcb {_permyriad(lcb)}"
                )
            blocks.append(
                f"info move {spell(s.move)} visits {s.visits} {numbers} order {order} pv {pv}"
            )
        if not blocks:
            return ""
        if kata and self.request.ownership:
            blocks.append(self.ownership_block())
        return " ".join(blocks) + "\n"

    def ownership_block(self) -> str:
        """KataGo's ``ownership``: +1 the analysed side's, row by row from the top left."""
        ownership = self.search.ownership()
        sign = 1.0 if self.colour is Colour.BLACK else -1.0
        geo = self.search.root_board.geo
        size = geo.size
        values = [
            sign * ownership.get(geo.index((row, col)), 0.0) + 0.0  # + 0.0: no "-0.0000"
            for row in reversed(range(size))
            for col in range(size)
        ]
        return "ownership " + " ".join(f"{v:.4f}" for v in values)
