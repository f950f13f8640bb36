"""The sample engine's GTP front end: command handlers, the clocks, thinking in slices.

The game itself (board, komi, setup stones, moves, and the commands that
change them, ``loadsgf`` and ``printsgf`` included) is the shared
:class:`engines.gamekeeper.GameKeeper`; this module owns the clocks and maps
the engine's other commands onto :class:`~engines.mcts.search.Search`.  The search
runs in slices of a few milliseconds with a trio checkpoint between them, so
that the server can read input meanwhile and stop at once when the
controller closes the engine's output.  A ``quit`` or the end of input queued
behind a ``genmove`` waits for its full answer (see :mod:`gtp.server`).

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
from importlib import metadata
from typing import Final, Literal

import attrs
import trio

from engines.gamekeeper import GameKeeper
from engines.mcts.analysis import AnalyzeRequest, LiveAnalysis, parse_analyze_args
from engines.mcts.fastboard import BLACK, PASS, WHITE, FastBoard, geometry
from engines.mcts.parallel import WorkerError, WorkerPool
from engines.mcts.scoring import Status, chains_of, classify_chains
from engines.mcts.search import RESIGN, Decision, Search, SearchConfig
from engines.mcts.timecontrol import Clock, TimeSettings
from gtp.arguments import parse_float, parse_int
from gtp.board import Board, format_score
from gtp.server import GtpFailure, GtpServer, Handler
from gtp.vertex import Colour, Point, format_vertex

ENGINE_NAME: Final = "arena-mcts"
SLICE_SECONDS: Final = 0.02  # search time between two checkpoints
FALLBACK_MOVE_TIME: Final = 5.0  # seconds, when neither playouts nor time limit a move

HandicapCompensation = Literal["full", "short", "none"]


def engine_version() -> str:
    try:
        return metadata.version("gtp-arena")
    except metadata.PackageNotFoundError:
        return "0"


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
    _status_cache: tuple[object, dict[Point, Status]] | None = attrs.field(init=False, default=None)

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
            print(f"{ENGINE_NAME}: {exc}; searching in this process from now on",
                  file=sys.stderr, flush=True)
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
        self._clock.reset(self._clock.settings)

    @property
    def _setup_key(self) -> object:
        return (self.game.setup_black, self.game.setup_white)

    # ------------------------------------------------------------------
    # Playing

    async def genmove(self, args: tuple[str, ...]) -> str:
        colour = _parse_colour(args)
        return await self._generate(colour, cleanup=False, allow_claim=False)

    async def genmove_cleanup(self, args: tuple[str, ...]) -> str:
        colour = _parse_colour(args)
        return await self._generate(colour, cleanup=True, allow_claim=False)

    async def genmove_ex(self, args: tuple[str, ...]) -> str:
        if not args:
            return "claim"
        colour = Colour.parse(args[0])
        return await self._generate(colour, cleanup=False, allow_claim="claim" in args[1:])

    async def _generate(self, colour: Colour, *, cleanup: bool, allow_claim: bool) -> str:
        cpu_start = time.process_time()
        wall_start = time.perf_counter()
        try:
            decision = await self._think(colour, cleanup=cleanup, started=wall_start)
        finally:
            self._cpu_seconds += time.process_time() - cpu_start
        self._clock.spent(colour, time.perf_counter() - wall_start)
        if allow_claim and decision.claim and decision.move != RESIGN:
            self._explanation = self._explain(colour, decision, "claim")
            return "claim"
        if decision.move == RESIGN:
            self._explanation = self._explain(colour, decision, "resign")
            return "resign"
        point = None if decision.move == PASS else self._geo_point(decision.move)
        self.board.play(colour, point)  # legal by construction; a bug if not
        answer = format_vertex(point, self.size)
        self._explanation = self._explain(colour, decision, answer)
        return answer

    def _geo_point(self, index: int) -> Point:
        return geometry(self.size).point(index)

    async def _think(self, colour: Colour, *, cleanup: bool, started: float) -> Decision:
        fast, history, moves = self._fast_position(colour)
        komi = self._effective_komi()
        search = self._search
        if not cleanup and self._opponent_passed(colour):
            margin = fast.area_score() - komi
            if (margin > 0) == (colour is Colour.BLACK) and margin != 0:
                search.set_position(
                    fast, komi, history=history, setup_key=self._setup_key, moves=moves
                )
                return Decision(PASS, 1.0, search.root_visits, (), False)
        search.track_ownership = cleanup
        search.set_position(fast, komi, history=history, setup_key=self._setup_key, moves=moves)
        budget = self._clock.budget(colour, len(fast.empties))
        if budget is None and self.options.move_time > 0:
            budget = self.options.move_time
        if budget is None and self.options.playouts == 0:
            budget = FALLBACK_MOVE_TIME
        if budget is not None:  # counted from the command, not from here
            budget = max(0.0, budget - (time.perf_counter() - started))
        await self._run(search, self.options.playouts, budget)
        decision = search.decide(allow_resign=not cleanup)
        if cleanup and decision.move == PASS:
            decision = self._cleanup_move(search, fast, decision)
        return decision

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

    async def _run(self, search: Search, playouts: int, budget: float | None) -> int:
        """Simulate until the playouts are done or the budget is spent, in slices."""
        deadline = None if budget is None else time.perf_counter() + budget
        done = 0
        batch = 4
        while True:
            if playouts and done >= playouts:
                break
            count = batch if not playouts else min(batch, playouts - done)
            if deadline is not None:
                left = deadline - time.perf_counter()
                if left <= 0:
                    break
                if left < SLICE_SECONDS:  # the last slice ends near the deadline
                    count = max(1, int(count * left / SLICE_SECONDS))
            batch = self._run_slice(search, count)
            done += count
            await trio.sleep(0)
        return done

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

    def _explain(self, colour: Colour, decision: Decision, answer: str) -> str:
        pv = " ".join(self._spell(m) for m in decision.principal_variation)
        text = (
            f"{answer}: win rate {100 * decision.win_rate:.1f}% for {colour.gtp_name},"
            f" {decision.root_visits} root visits"
        )
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
            fast, self._effective_komi(), history=history, setup_key=self._setup_key,
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
        await self._run(search, self.options.ownership_playouts, None)
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
        return ""

    def kgs_time_settings(self, args: tuple[str, ...]) -> str:
        if not args:
            raise GtpFailure("expected a time system")
        system = args[0]
        numbers = [parse_float(a) for a in args[1:]]
        if any(n < 0 for n in numbers):
            raise GtpFailure("times must not be negative")
        expected = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}
        if system not in expected or len(numbers) != expected[system]:
            raise GtpFailure("expected none, absolute M, byoyomi M P N or canadian M B S")
        if system == "none":
            settings = TimeSettings("none")
        elif system == "absolute":
            settings = TimeSettings("absolute", numbers[0])
        elif system == "byoyomi":
            main, period, periods = numbers
            if periods == 0 or period == 0:
                settings = TimeSettings("absolute", main)
            else:
                settings = TimeSettings("byoyomi", main, period, periods=int(periods))
        else:
            main, period, stones = numbers
            if stones == 0:
                settings = TimeSettings("absolute", main) if period == 0 else TimeSettings("none")
            else:
                settings = TimeSettings("canadian", main, period, stones=int(stones))
        self._clock.reset(settings)
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
