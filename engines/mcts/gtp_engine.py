"""The sample engine's GTP front end: command handlers, the clocks, thinking in slices.

The game itself (board, komi, setup stones, moves, and the commands that
change them, ``loadsgf`` and ``printsgf`` included) is the shared
:class:`engines.gamekeeper.GameKeeper`; this module owns the clocks and maps
the engine's other commands onto :class:`~engines.mcts.search.Search`.  The search
runs in slices of a few milliseconds with a trio checkpoint between them, so
that the server can read input meanwhile and stop at once when the
controller closes the engine's output.  A ``quit`` or the end of input queued
behind a ``genmove`` waits for its full answer (see :mod:`gtp.server`).

Under a clock a move is timed from the moment the server hands the engine
the ``genmove`` (the handler is an ordinary function that notes the time and
returns the coroutine that thinks) to the moment its answer is ready.  The
allowance comes from :mod:`engines.mcts.timecontrol`: the search stops at the
target once it has run :data:`~engines.mcts.timecontrol.MIN_SIMULATIONS`
simulations, else goes on towards the hard limit until it has; what the move
took beyond the planned search is reported back as the overrun that sets the
next moves' safety margin, with, on Linux, the time the engine waited for a
processor before it could read the command (its thread's run-queue wait in
``/proc/thread-self/schedstat`` since the ``time_left`` or answer before).
A move the search never reached (no simulation finished) is the best move
by the priors, never a pass or a resignation while a legal move that fills
no own eye remains; its explanation says so.
It resigns only when its search has found the game lost (every well-searched
move below ``--resign-threshold``, 5%) at ``--resign-moves`` (3) of its
moves in a row, KataGo's rule: one search's verdict at a few thousand
simulations is not enough.
Each board size is warmed up (its tables built, the simulation time
measured) before its first move, so that no clocked move pays for that.

Scoring and statuses (``final_score``, ``final_status_list``,
``kgs-genmove_cleanup``) come from the ownership that a search of the
current position collects, read by :mod:`engines.mcts.scoring`.

Live analysis (``lz-analyze``, ``kata-analyze``) is registered here and runs
in :mod:`engines.mcts.analysis` on this engine's search, so the tree it grows
is kept for the next move.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Awaitable
from importlib import metadata
from typing import Final, Literal

import attrs
import trio

from engines.gamekeeper import GameKeeper
from engines.mcts import core
from engines.mcts.analysis import AnalyzeRequest, LiveAnalysis, parse_analyze_args
from engines.mcts.fastboard import BLACK, PASS, WHITE, FastBoard, geometry
from engines.mcts.parallel import WorkerError, WorkerPool
from engines.mcts.results import losing
from engines.mcts.scoring import Status, chains_of, classify_chains
from engines.mcts.search import RESIGN, Decision, Search, SearchConfig
from engines.mcts.timecontrol import (
    MIN_SIMULATIONS,
    Allowance,
    Clock,
    SafetyMargin,
    SimulationRate,
    TimeSettings,
    longest_stall,
    stretched_target,
)
from gtp.arguments import parse_float, parse_int
from gtp.board import Board, format_score
from gtp.server import GtpFailure, GtpServer, Handler
from gtp.vertex import Colour, Point, format_vertex

ENGINE_NAME: Final = "arena-mcts"
SLICE_SECONDS: Final = 0.02  # search time between two checkpoints
FALLBACK_MOVE_TIME: Final = 5.0  # seconds, when neither playouts nor time limit a move
WARM_UP_SIMULATIONS: Final = 8  # run on an empty board of each new size before its first move
# Linux: the second field is how long this thread has been runnable without a CPU (ns)
RUN_QUEUE_FILE: Final = "/proc/thread-self/schedstat"

HandicapCompensation = Literal["full", "short", "none"]


def engine_version() -> str:
    """The package's version, and after a ``+`` the core in use: ``mypyc`` or ``pure``."""
    try:
        version = metadata.version("gtp-arena")
    except metadata.PackageNotFoundError:
        version = "0"
    return f"{version}+{core.core_name()}"


@attrs.frozen
class EngineOptions:
    """Everything the command line sets."""

    search: SearchConfig = attrs.field(factory=SearchConfig)
    playouts: int = 1000  # simulations per move; 0: time decides
    seed: int = 0
    move_time: float = 0.0  # seconds per move without time settings (0: playouts decide)
    max_move_time: float = 30.0  # cap under time settings
    time_share: float = 0.1  # most of the remaining main time one move may take
    ownership_playouts: int = 500  # simulations behind final_score / final_status_list
    handicap_compensation: HandicapCompensation = "full"
    workers: int = 0  # worker processes for playouts (0: in this process)
    batch: int = 4  # leaves per message to a worker
    share: bool = True  # this process plays out too while the workers are busy

    def __attrs_post_init__(self) -> None:
        if self.playouts < 0 or self.ownership_playouts < 1:
            raise ValueError("playouts must not be negative, ownership playouts at least 1")
        if self.move_time < 0 or self.max_move_time <= 0 or not 0 < self.time_share <= 1:
            raise ValueError("move times must be positive and time_share in (0, 1]")
        if self.handicap_compensation not in ("full", "short", "none"):
            raise ValueError(f"unknown handicap compensation {self.handicap_compensation!r}")
        if not 0 <= self.workers <= 64 or self.batch < 1:
            raise ValueError("workers must be in 0..64 and batch at least 1")


def describe_options(options: EngineOptions) -> list[str]:
    """``name value`` for the seed and every option that differs from its default.

    The seed is always there (the command line picks a fresh one unless told),
    so that a game can be replayed; the rest stays short enough for an SGF
    comment or a report.
    """
    lines = [f"seed {options.seed}"]
    for settings, defaults, skip in (
        (options, EngineOptions(), {"search", "seed"}),
        (options.search, SearchConfig(), set()),
    ):
        for field in attrs.fields(type(settings)):
            value = getattr(settings, field.name)
            if field.name not in skip and value != getattr(defaults, field.name):
                shown = f"{value:g}" if isinstance(value, float) else str(value)
                lines.append(f"{field.name} {shown}")
    return lines


def run_queue_seconds() -> float | None:
    """Seconds this thread has waited, runnable, for a processor so far; None if unknown."""
    try:
        with open(RUN_QUEUE_FILE, "rb") as stats:
            return int(stats.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


def _next_batch(count: int, elapsed: float) -> int:
    """Simulations for the next slice: aimed at SLICE_SECONDS, at most doubling."""
    wanted = int(count * SLICE_SECONDS / max(elapsed, 1e-6))
    return max(1, min(wanted, 2 * count))


def _code(colour: Colour) -> int:
    return BLACK if colour is Colour.BLACK else WHITE


def _parse_colour(args: tuple[str, ...]) -> Colour:
    if len(args) != 1:
        raise GtpFailure("expected a colour")
    return Colour.parse(args[0])


@attrs.frozen
class _Thought:
    """A move's decision and the plan it was timed by."""

    decision: Decision
    allowance: Allowance | None  # None: time did not limit the move
    planned: float  # seconds from the command at which the search planned to stop
    margin: float  # the safety margin the allowance kept back
    stall: float = 0.0  # the search's longest stall (timecontrol.longest_stall)


@attrs.define
class MctsEngine:
    """One engine process's state; :func:`build_server` exposes it over GTP."""

    options: EngineOptions = attrs.field(factory=EngineOptions)
    server: GtpServer | None = None
    game: GameKeeper = attrs.Factory(lambda: GameKeeper(9, 7.5))
    _search: Search = attrs.field(init=False)
    _clock: Clock = attrs.field(init=False)
    _cpu_seconds: float = attrs.field(init=False, default=0.0)
    _explanation: str = attrs.field(init=False, default="")
    _margin: SafetyMargin = attrs.field(init=False, factory=SafetyMargin)
    _rate: SimulationRate = attrs.field(init=False, factory=SimulationRate)
    _warm_size: int = attrs.field(init=False, default=0)
    # run_queue_seconds() after the last answer or time_left: the wait since then,
    # read when a genmove arrives, is how long the engine was slow to read it
    _queue_mark: float | None = attrs.field(init=False, default=None)
    _status_cache: tuple[object, dict[Point, Status]] | None = attrs.field(init=False, default=None)
    # per colour, how many of its latest genmoves in a row found the game lost
    # (results.losing): it resigns at the search's ``resign_moves``-th
    _losing_moves: dict[Colour, int] = attrs.field(init=False, factory=dict)

    def __attrs_post_init__(self) -> None:
        self.game.on_new_game = self._new_game
        self._search = Search(self.options.search, self.options.seed)
        self._clock = Clock(share=self.options.time_share, cap=self.options.max_move_time)
        if self.options.workers:
            self._search.evaluator = WorkerPool(
                self.options.workers,
                self.options.search,
                seed=self.options.seed,
                batch=self.options.batch,
                share=self.options.share,
            )

    def close(self) -> None:
        """Stop the playout workers, if any."""
        evaluator = self._search.evaluator
        self._search.evaluator = None
        if evaluator is not None:
            evaluator.close()

    def _simulate(self, search: Search, count: int) -> None:
        """Run simulations; a playout worker that dies sends the search back in-process."""
        try:
            search.simulate(count)
        except WorkerError as exc:
            print(
                f"{ENGINE_NAME}: {exc}; searching in this process from now on",
                file=sys.stderr,
                flush=True,
            )
            self.close()

    @property
    def board(self) -> Board:
        return self.game.board

    @property
    def size(self) -> int:
        return self.game.size

    def _new_game(self) -> None:
        """boardsize, clear_board or loadsgf: what this engine knew of the last game goes."""
        self._explanation = ""
        self._status_cache = None
        self._losing_moves.clear()
        self._clock.reset(self._clock.settings)
        if self.size != self._warm_size:
            self.warm_up()

    def warm_up(self) -> None:
        """Search the empty board of the current size a little, on a search of its own.

        The first search on a board size builds tables (shapes, eyes, the
        board's geometry) that take far longer than a simulation; doing it
        here keeps that out of the first clocked move, and the time the
        simulations take is the engine's first measure of its speed.
        """
        size = self.size
        search = Search(attrs.evolve(self.options.search, noise_fraction=0.0), self.options.seed)
        search.set_position(FastBoard(size), self._effective_komi())
        search.simulate(1)  # the tables
        timed = time.perf_counter()
        search.simulate(WARM_UP_SIMULATIONS)
        self._rate.reset(WARM_UP_SIMULATIONS, time.perf_counter() - timed)
        self._warm_size = size

    @property
    def _setup_key(self) -> object:
        return (self.game.setup_black, self.game.setup_white)

    # ------------------------------------------------------------------
    # Playing

    # The genmove handlers are plain functions: the server calls them as soon
    # as it has read the command, so the time they note is when the move's
    # clock started for us; the coroutine they return does the thinking.

    def genmove(self, args: tuple[str, ...]) -> Awaitable[str]:
        started = self._start_move()
        colour = _parse_colour(args)
        return self._generate(colour, started, cleanup=False, allow_claim=False)

    def genmove_cleanup(self, args: tuple[str, ...]) -> Awaitable[str]:
        started = self._start_move()
        colour = _parse_colour(args)
        return self._generate(colour, started, cleanup=True, allow_claim=False)

    def genmove_ex(self, args: tuple[str, ...]) -> str | Awaitable[str]:
        started = self._start_move()
        if not args:
            return "claim"
        colour = Colour.parse(args[0])
        return self._generate(colour, started, cleanup=False, allow_claim="claim" in args[1:])

    def _start_move(self) -> tuple[float, float]:
        """When the command was handed over, and how late the engine was to read it.

        The second is the time the engine waited for a processor since its
        last answer or ``time_left``: mostly the wait to wake up and read this
        command, which the controller's clock counts and ours cannot see.
        """
        received = time.perf_counter()
        waited = run_queue_seconds()
        if waited is None or self._queue_mark is None:
            return received, 0.0
        return received, max(0.0, waited - self._queue_mark)

    async def _generate(
        self, colour: Colour, started: tuple[float, float], *, cleanup: bool, allow_claim: bool
    ) -> str:
        received, late = started
        cpu_start = time.process_time()
        try:
            thought = await self._think(colour, received, cleanup=cleanup)
        finally:
            self._cpu_seconds += time.process_time() - cpu_start
        decision = thought.decision
        if allow_claim and decision.claim and decision.move != RESIGN:
            answer = "claim"
        elif decision.move == RESIGN:
            answer = "resign"
        else:
            point = None if decision.move == PASS else self._geo_point(decision.move)
            self.board.play(colour, point)  # legal by construction; a bug if not
            answer = format_vertex(point, self.size)
        self._explanation = self._explain(colour, thought, answer, time.perf_counter() - received)
        took = time.perf_counter() - received
        self._clock.spent(colour, took)
        if self._clock.limited:
            self._margin.record(late + took - thought.planned, thought.stall)
        self._queue_mark = run_queue_seconds()
        return answer

    def _geo_point(self, index: int) -> Point:
        return geometry(self.size).point(index)

    async def _think(self, colour: Colour, received: float, *, cleanup: bool) -> _Thought:
        fast, history, moves = self._fast_position(colour)
        komi = self._effective_komi()
        search = self._search
        margin = self._margin.seconds
        if not cleanup and self._opponent_passed(colour):
            lead = fast.area_score() - komi
            if (lead > 0) == (colour is Colour.BLACK) and lead != 0:
                search.set_position(
                    fast, komi, history=history, setup_key=self._setup_key, moves=moves
                )
                decision = Decision(PASS, 1.0, search.root_visits, (), False, "score")
                return _Thought(decision, None, 0.0, margin)
        search.track_ownership = cleanup
        search.set_position(fast, komi, history=history, setup_key=self._setup_key, moves=moves)
        allowance = self._allowance(colour, len(fast.empties), margin)
        soft = hard = None
        if allowance is not None:  # counted from the command, not from here
            soft, hard = received + allowance.target, received + allowance.limit
        playouts = self.options.playouts
        minimum = min(MIN_SIMULATIONS, playouts) if playouts else MIN_SIMULATIONS
        # in main time an unsure search may go on past its target (see stretched_target)
        unsure = allowance if self._in_main_time(colour) else None
        stop, stall = await self._run(
            search, playouts, soft, hard, minimum, unsure=unsure, received=received
        )
        decision = search.decide(allow_resign=self._resigns(colour, search, cleanup=cleanup))
        if cleanup and decision.move == PASS:
            decision = self._cleanup_move(search, fast, decision)
        planned = max(0.0, stop - received)
        return _Thought(decision, allowance, planned, margin, stall)

    def _resigns(self, colour: Colour, search: Search, *, cleanup: bool) -> bool:
        """Whether ``colour`` may resign now: its search has found the game lost at
        this move and the ``resign_moves - 1`` before it (never while cleaning up).

        One search's verdict is not enough: at a few thousand simulations the
        estimate swings, and an opponent's mistake can turn a game the engine
        had given up (the 3,000-simulation rows: see benchmarks/engine_strength.py).
        """
        config = search.config
        search.flush()
        if cleanup or not losing(search.root, config):
            self._losing_moves[colour] = 0
            return False
        streak = self._losing_moves[colour] = self._losing_moves.get(colour, 0) + 1
        return streak >= config.resign_moves

    def _in_main_time(self, colour: Colour) -> bool:
        """True if ``colour``'s clock is limited and in main time (its allowance is the clock's)."""
        if not self._clock.limited:
            return False
        system = self._clock.settings.system
        return system in ("absolute", "fischer") or self._clock.remaining(colour)[1] == 0

    def _allowance(self, colour: Colour, empty_points: int, margin: float) -> Allowance | None:
        """The clock's allowance, else ``--move-time``, else the fallback when playouts are 0."""
        allowance = self._clock.allowance(
            colour, empty_points, margin=margin, simulation_seconds=self._rate.seconds
        )
        if allowance is None and self.options.move_time > 0:
            return Allowance(self.options.move_time, self.options.move_time)
        if allowance is None and self.options.playouts == 0:
            return Allowance(FALLBACK_MOVE_TIME, FALLBACK_MOVE_TIME)
        return allowance

    def _cleanup_move(self, search: Search, fast: FastBoard, decision: Decision) -> Decision:
        """Don't pass while opponent stones the playouts capture are on the board."""
        ownership = search.ownership()
        them = 3 - fast.to_move
        sign = 1 if them == BLACK else -1
        dead = [p for p, v in ownership.items() if fast.color[p] == them and v * sign < -0.5]
        if not dead:
            return decision
        for stats in search.root_stats():
            if stats.move not in (PASS, RESIGN):
                return Decision(
                    stats.move, stats.win_rate, decision.root_visits, (stats.move,), False
                )
        return decision

    async def _run(
        self,
        search: Search,
        playouts: int,
        soft: float | None = None,
        hard: float | None = None,
        minimum: int = 0,
        *,
        unsure: Allowance | None = None,
        received: float = 0.0,
    ) -> tuple[float, float]:
        """Simulate in slices until the playouts are done or time is up; when, and its stall.

        ``soft`` and ``hard`` are deadlines on the performance counter: the
        search stops at ``soft`` once it has run ``minimum`` simulations and
        goes on towards ``hard`` until it has.  The answer is the moment the
        search planned to stop: the deadline it reached, or when it had run
        its playouts (or, past ``soft``, its minimum); then the longest stall
        (:func:`~engines.mcts.timecontrol.longest_stall`) of its slices.
        With ``unsure`` (the move's allowance in main time, counted from
        ``received``), a search that reaches ``soft`` unsure of its move goes
        on to the :func:`~engines.mcts.timecontrol.stretched_target`, once.
        """
        per_simulation = self._rate.seconds
        batch = max(1, int(SLICE_SECONDS / per_simulation))
        done = 0
        started = time.perf_counter()
        extended = False
        slices: list[tuple[int, float]] = []
        while True:
            now = time.perf_counter()
            if playouts and done >= playouts:
                stop = now
                break
            if done < minimum:
                deadline = hard
            else:
                if not extended and soft is not None and done:
                    soft = max(soft, now)  # the minimum is what kept it going this long
                extended = True
                deadline = soft
            count = batch if not playouts else min(batch, playouts - done)
            if deadline is not None:
                left = deadline - now
                if left < per_simulation / 2 and unsure is not None and deadline == soft:
                    visits = [stats.visits for stats in search.root_stats()[:2]] + [0, 0]
                    stretched = received + stretched_target(unsure, visits[0], visits[1])
                    unsure = None  # asked once
                    if stretched > deadline:
                        soft = deadline = stretched
                        left = deadline - now
                if left < per_simulation / 2:  # not even half a simulation fits
                    stop = min(deadline, now)
                    break
                count = min(count, max(1, int(left / per_simulation)))
            slice_started = time.perf_counter()
            self._simulate(search, count)
            took = time.perf_counter() - slice_started
            slices.append((count, took))
            per_simulation = max(took, 1e-6) / count
            batch = _next_batch(count, took)
            done += count
            await trio.sleep(0)
        if done:
            self._rate.record(done, time.perf_counter() - started)
        return stop, longest_stall(slices)

    def _run_slice(self, search: Search, count: int) -> int:
        """Run ``count`` simulations; returns how many the next slice should run."""
        started = time.perf_counter()
        self._simulate(search, count)
        return _next_batch(count, time.perf_counter() - started)

    def _opponent_passed(self, colour: Colour) -> bool:
        moves = self.board.moves
        return bool(moves) and moves[-1][0] is colour.opponent and moves[-1][1] is None

    def _effective_komi(self) -> float:
        handicap = self.game.handicap
        komi = self.game.komi
        compensation = self.options.handicap_compensation
        if handicap and compensation == "full":
            return komi + handicap
        if handicap and compensation == "short":
            return komi + handicap - 1
        return komi

    def _fast_position(self, to_move: Colour) -> tuple[FastBoard, set[int], list[tuple[int, int]]]:
        """The game replayed on a fast board, its position hashes and its plays."""
        fast = FastBoard(self.size)
        geo = fast.geo
        fast.setup(
            black=[geo.index(p) for p in self.game.setup_black],
            white=[geo.index(p) for p in self.game.setup_white],
        )
        history = {fast.hash}
        plays: list[tuple[int, int]] = []
        for colour, point in self.board.moves:
            code = _code(colour)
            index = PASS if point is None else geo.index(point)
            fast.play(index, code)
            history.add(fast.hash)
            plays.append((code, index))
        fast.to_move = _code(to_move)
        return fast, history, plays

    def _explain(self, colour: Colour, thought: _Thought, answer: str, took: float) -> str:
        """``gomill-explain_last_move``: what chose the move, root visits, time and plan."""
        decision = thought.decision
        if decision.basis == "score":
            return f"{answer}: the opponent passed and {colour.gtp_name} leads on the board"
        timing = f"{decision.root_visits} root visits in {took:.3f} s"
        allowance = thought.allowance
        if allowance is not None and self._clock.limited:
            timing += (
                f" (target {allowance.target:.3f} s, planned {thought.planned:.3f} s,"
                f" limit {allowance.limit:.3f} s, margin {thought.margin:.3f} s)"
            )
        if decision.basis == "priors":
            return f"{answer}: no simulation finished, {timing}; the best move by the priors"
        text = f"{answer}: win rate {100 * decision.win_rate:.1f}% for {colour.gtp_name}, {timing}"
        pv = " ".join(self._spell(m) for m in decision.principal_variation)
        if pv:
            text += f"; pv {pv}"
        return text

    def _spell(self, move: int) -> str:
        if move == PASS:
            return "pass"
        if move == RESIGN:
            return "resign"
        return format_vertex(self._geo_point(move), self.size)

    # ------------------------------------------------------------------
    # Live analysis

    async def lz_analyze(self, args: tuple[str, ...]) -> str:
        return await self._analyze(parse_analyze_args(args, kata=False), kata=False)

    async def kata_analyze(self, args: tuple[str, ...]) -> str:
        return await self._analyze(parse_analyze_args(args, kata=True), kata=True)

    async def _analyze(self, request: AnalyzeRequest, *, kata: bool) -> str:
        """Analyse the current position on this engine's search until the next line."""
        server = self.server
        command = None if server is None else server.current_command
        if server is None or command is None:
            raise GtpFailure("live analysis needs a GTP connection")
        colour = request.colour or self.game.side_to_move
        fast, history, moves = self._fast_position(colour)
        if fast.passes >= 2:
            fast.passes = 0  # the game is over: show what would still be worth playing
        search = self._search
        search.track_ownership = request.ownership
        search.set_position(
            fast,
            self._effective_komi(),
            history=history,
            setup_key=self._setup_key,
            moves=moves,
        )
        analysis = LiveAnalysis(search, request, colour, kata=kata, spell=self._spell)
        return await analysis.run(server, command.id, self._run_slice)

    # ------------------------------------------------------------------
    # Scoring

    async def statuses(self) -> dict[Point, Status]:
        """The status of every stone, from the ownership of a fresh search."""
        key = (self.size, self.board.zobrist_hash, self.board.moves_played, self.game.komi)
        if self._status_cache is not None and self._status_cache[0] == key:
            return self._status_cache[1]
        fast, _history, _plays = self._fast_position(self.game.side_to_move)
        fast.passes = 0  # play the position out, dead stones included
        config = attrs.evolve(self.options.search, reuse_tree=False, noise_fraction=0.0)
        search = Search(config, self.options.seed)
        search.track_ownership = True
        search.set_position(fast, self._effective_komi())
        await self._run(search, self.options.ownership_playouts)
        result = classify_chains(fast, search.ownership())
        self._status_cache = (key, result)
        return result

    async def final_score(self, args: tuple[str, ...]) -> str:
        statuses = await self.statuses()
        fast = FastBoard(self.size)
        geo = fast.geo
        alive = {p for p, status in statuses.items() if status != "dead"}
        fast.setup(
            black=[geo.index(p) for p in self.board.stones(Colour.BLACK) if p in alive],
            white=[geo.index(p) for p in self.board.stones(Colour.WHITE) if p in alive],
        )
        white_margin = self._effective_komi() - fast.area_score()
        return format_score(white_margin)

    async def final_status_list(self, args: tuple[str, ...]) -> str:
        if len(args) != 1 or args[0] not in ("alive", "dead", "seki"):
            raise GtpFailure("expected alive, dead or seki")
        wanted = args[0]
        statuses = await self.statuses()
        size = self.size
        chains = chains_of(self.board, [p for p, s in statuses.items() if s == wanted])
        return "\n".join(" ".join(format_vertex(p, size) for p in chain) for chain in chains)

    # ------------------------------------------------------------------
    # Time

    def time_settings(self, args: tuple[str, ...]) -> str:
        if len(args) != 3:
            raise GtpFailure("expected three integers")
        main, byo, stones = (parse_int(a) for a in args)
        self._clock.reset(TimeSettings.from_gtp(main, byo, stones))
        return ""

    def time_left(self, args: tuple[str, ...]) -> str:
        if len(args) != 3:
            raise GtpFailure("expected a colour, a time and a count")
        colour = Colour.parse(args[0])
        seconds = parse_float(args[1])  # GTP says an integer; sub-second clocks need decimals
        stones = parse_int(args[2])
        self._clock.time_left(colour, seconds, stones)
        self._queue_mark = run_queue_seconds()  # the genmove usually comes next
        return ""

    def kgs_time_settings(self, args: tuple[str, ...]) -> str:
        """KGS: ``none``, ``absolute M``, ``byoyomi M P N`` or ``canadian M P S``."""
        self._clock.reset(_parse_time_system(args, fischer=False))
        return ""

    def kata_time_settings(self, args: tuple[str, ...]) -> str:
        """KataGo: the KGS systems and ``fischer M I`` (main time, increment per move)."""
        self._clock.reset(_parse_time_system(args, fischer=True))
        return ""

    # ------------------------------------------------------------------
    # Display and Gomill extensions

    def describe_engine(self, args: tuple[str, ...]) -> str:
        """Name and version, the seed, and the options that differ from the defaults."""
        return "\n".join([f"{ENGINE_NAME} {engine_version()}", *describe_options(self.options)])

    def cpu_time(self, args: tuple[str, ...]) -> str:
        return f"{self._cpu_seconds:.3f}"

    def explain_last_move(self, args: tuple[str, ...]) -> str:
        return self._explanation


def _parse_time_system(args: tuple[str, ...], *, fischer: bool) -> TimeSettings:
    """The time settings of ``kgs-time_settings`` (and, with Fischer, ``kata-time_settings``)."""
    if not args:
        raise GtpFailure("expected a time system")
    system = args[0]
    numbers = [parse_float(a) for a in args[1:]]
    if any(n < 0 for n in numbers):
        raise GtpFailure("times must not be negative")
    expected = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}
    if fischer:
        expected["fischer"] = 2
    if system not in expected or len(numbers) != expected[system]:
        raise GtpFailure(
            "expected none, absolute M, byoyomi M P N, canadian M P S"
            + (" or fischer M I" if fischer else "")
        )
    if system == "none":
        return TimeSettings("none")
    if system == "absolute":
        return TimeSettings("absolute", numbers[0])
    if system == "fischer":
        main, increment = numbers
        return TimeSettings("fischer", main, increment=increment)
    if system == "byoyomi":
        main, period, periods = numbers
        if periods == 0 or period == 0:
            return TimeSettings("absolute", main)
        return TimeSettings("byoyomi", main, period, periods=int(periods))
    main, period, stones = numbers
    if stones == 0:
        return TimeSettings("absolute", main) if period == 0 else TimeSettings("none")
    return TimeSettings("canadian", main, period, stones=int(stones))


def build_server(engine: MctsEngine) -> GtpServer:
    """A GTP server with every command of the engine registered."""
    server = GtpServer(ENGINE_NAME, engine_version())
    engine.server = server
    engine.game.register(server)
    handlers: dict[str, Handler] = {
        "genmove": engine.genmove,
        "final_score": engine.final_score,
        "final_status_list": engine.final_status_list,
        "time_settings": engine.time_settings,
        "time_left": engine.time_left,
        "kgs-time_settings": engine.kgs_time_settings,
        "kata-time_settings": engine.kata_time_settings,
        "kgs-genmove_cleanup": engine.genmove_cleanup,
        "gomill-describe_engine": engine.describe_engine,
        "gomill-cpu_time": engine.cpu_time,
        "gomill-explain_last_move": engine.explain_last_move,
        "gomill-genmove_ex": engine.genmove_ex,
        "lz-analyze": engine.lz_analyze,
        "kata-analyze": engine.kata_analyze,
    }
    for name, handler in handlers.items():
        server.register(name, handler)
    return server
