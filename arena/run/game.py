"""One game's conversation with its two engines: setup, clocks, opening, moves, scoring.

:class:`Game` holds what a game is made of while it is played (the referee,
the engine sessions, the moves, the clocks, the times measured) and
conducts it (:meth:`Game.conduct`); :func:`arena.run.match.play_game` gets
the engines, has it conducted and makes the record.  The game reports its
moves to its :class:`arena.run.sink.GameSink`.

The procedure is Gomill's: each engine gets its ``startup_gtp_commands``, then
``boardsize``, ``clear_board`` and ``komi``; handicap stones are placed
(``fixed_handicap`` to both, or ``place_free_handicap`` to Black and
``set_free_handicap`` to White); then ``genmove`` (``gomill-genmove_ex ...
claim`` for a player allowed to claim) and ``play`` alternate until the referee
(:mod:`arena.run.referee`) ends the game; then the game is scored.

A referee engine (the ``referee`` setting) is started or reused only when it
is first needed: to score (scorer ``referee``, or ``referee_if_disagree`` when
the players' answers do not settle the result; also at ``move_limit``) or to
check for adjudication (``adjudicate``: from move ``after``, every ``every``
moves, its ``final_score``; a lead of ``margin`` or more for the same player
``moves`` checks in a row ends the game).  It is given ``boardsize``,
``clear_board``, ``komi``, the handicap stones (``set_free_handicap``) and the
moves so far (``play``), then asked ``final_score`` (and, to score, for the
record, ``final_status_list dead``).  Any fault of the referee engine (a
failure response, a timeout, a crash, an answer that is not a score) makes the
game void: it is replayed, never scored by anyone else.

Clocks and openings: a clocked player's engine is told its time control after
``komi`` (``kgs-time_settings`` where it lists it, else ``time_settings``;
``kata-time_settings`` for Fischer) and ``time_left`` before each genmove; an
opening's moves go to both engines with ``play`` before the first genmove.
Each move is one round trip: the opponent's latest move (``play``), under a
clock ``time_left``, and ``genmove`` go to the engine in one write, and the
answers are read in one wait (a move before scoring or an adjudication check
is sent on its own).  Each genmove is timed from the moment that write is
made to the moment the response line is read (:class:`gtp.client.GtpClient` keeps both times)
and, under a clock, charged to it (:mod:`arena.clock`): the genmove's
timeout is the clock's allowance plus the margin (``move_timeout`` does not
apply), and a move past it loses on time.  The gap from each response read
to the next command written is the arena's own latency, kept per game.

Every engine fault becomes part of the result (GTP-SGF-RULES.md §8):

* a failure response to a setup command, an engine that cannot start, dies or
  breaks the protocol: the game is void and will be replayed (with
  ``crash_result = "forfeit"`` a death or protocol error forfeits instead);
* a failure response to ``genmove``, an ill-formed or illegal move: the mover
  forfeits; ``illegal move`` from the opponent's ``play``: the mover forfeits;
  any other ``play`` failure: the opponent forfeits;
* any command that overruns its timeout: that engine loses on time;
* a fault after the result is known is only noted in the record.

A game ends by one route: an exception out of :meth:`Game.conduct`'s loop,
:class:`Stop` (the referee holds the result) or :class:`Void`.  An engine
fault (:class:`gtp.errors.EngineFault`: a timeout, a vanished engine, protocol
garbage) goes through :meth:`Game.fault`, which settles what it means and
raises one of them; a refused command (``CommandFailed``) is decided where it
was sent.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Final, NoReturn

import attrs

from arena.clock import Charge, PlayerClock, loss_reason, time_left_arguments
from arena.control.settings import Adjudication, PlayerConfig
from arena.control.timecontrol import TIME_LEFT, TIME_SETTINGS
from arena.results import ArenaLatency, GameJob, MoveTimes, PlayedMove
from arena.run.engines import EngineSession, format_komi
from arena.run.referee import (
    Referee,
    check_fixed_handicap_answer,
    check_free_handicap_answer,
    parse_final_score,
)
from arena.run.sink import QUIET, GameSink
from arena.run.stalls import (
    Doubt,
    RunQueueProbe,
    answered_doubt,
    beyond_doubt,
    stall_reason,
    waited_since,
)
from gtp.board import Board
from gtp.client import Answer, GtpClient
from gtp.errors import CommandFailed, EngineFault, EngineStartError, EngineTimeout
from gtp.vertex import PASS, Colour, Move, Point, format_vertex, vertex_words

BLACK, WHITE = Colour.BLACK, Colour.WHITE
# A clocked genmove's timeout is its clock's allowance plus the margin plus
# this: the timeout counts from a little before the clock starts (the
# command line is made first), so no engine is stopped while its clock runs.
CLOCK_TIMEOUT_SLACK = 0.005


class Stop(Exception):
    """The game has a result (held by the referee)."""


class Void(Exception):
    """The game is void (replayed later); ``stall``: the machine stalled a clock this long."""

    def __init__(self, reason: str, stall: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.stall = stall


_GENMOVE_BLACK: Final = ("genmove", "b")
_GENMOVE_WHITE: Final = ("genmove", "w")


def _who(player: PlayerConfig, colour: Colour) -> str:
    return f"{player.code} ({colour.gtp_name})"


@attrs.define
class _Clocked:
    """A clocked player: its clock, and the settings command its engine was told by."""

    clock: PlayerClock
    announced_by: str | None
    time_left: bool  # the engine lists time_left
    refused: bool = False  # it failed a time command (noted once)
    engine_probe: RunQueueProbe | None = None  # its engine's wait for a CPU (arena.run.stalls)


class _Spent:
    """One player's genmove times in a game, added up as they come (:class:`MoveTimes`)."""

    __slots__ = ("longest", "moves", "total")

    def __init__(self) -> None:
        self.moves = 0
        self.total = 0.0
        self.longest = 0.0

    def add(self, seconds: float) -> None:
        self.moves += 1
        self.total += seconds
        if seconds > self.longest:
            self.longest = seconds

    @property
    def times(self) -> MoveTimes:
        return MoveTimes(self.moves, self.total, self.longest)


@attrs.define
class Game:
    """One game being played (see the module docstring); :meth:`conduct` plays it out."""

    job: GameJob
    sessions: dict[Colour, EngineSession]
    referee: Referee
    sink: GameSink = QUIET
    crash_result: str = "void"  # an engine's death or protocol error: "void" or "forfeit"
    moves: list[PlayedMove] = attrs.Factory(list)
    notes: list[str] = attrs.Factory(list)
    clocks: dict[Colour, _Clocked] = attrs.Factory(dict)
    _black_times: _Spent = attrs.field(factory=_Spent, init=False)
    _white_times: _Spent = attrs.field(factory=_Spent, init=False)
    _vertices: Mapping[Point, str] = attrs.field(init=False)
    # The arena's latency: gaps from a response read to the next command written.
    last_read: float | None = None
    lag_commands: int = 0
    lag_total: float = 0.0
    lag_max: float = 0.0
    # The arena's own wait for a CPU, read around clocked moves (arena.run.stalls).
    arena_probe: RunQueueProbe | None = None
    # The referee engine: how to get it (None: no referee), once got, the
    # moves it has been told, and the adjudication's run of checks.
    acquire_judge: Callable[[], Awaitable[EngineSession]] | None = None
    judge: EngineSession | None = None
    judge_told: int = 0
    leader: Colour | None = None
    lead_checks: int = 0
    # The latest move's ``play`` (its words), owed to the engine to move
    # next: sent in one write with that engine's genmove, or alone before anything
    # else (scoring, an adjudication check).
    owed_play: tuple[str, str, str] | None = None

    def __attrs_post_init__(self) -> None:
        # The canonical spelling of every point, for the play owed after each move.
        self._vertices = vertex_words(self.job.settings.board_size)

    @property
    def times(self) -> dict[Colour, MoveTimes]:
        """Each player's genmoves so far: how many, their total and longest time."""
        return {BLACK: self._black_times.times, WHITE: self._white_times.times}

    def clock(self, colour: Colour) -> PlayerClock | None:
        """``colour``'s clock (None: no time control); what a sink reads at a move."""
        clocked = self.clocks.get(colour)
        return None if clocked is None else clocked.clock

    @property
    def board(self) -> Board:
        """The board as the referee keeps it; what a sink reads at a move."""
        return self.referee.board

    def close(self) -> None:
        """Let go of what the clocks read (the game is over)."""
        probes = [clocked.engine_probe for clocked in self.clocks.values()]
        for probe in (*probes, self.arena_probe):
            if probe is not None:
                probe.close()

    # -- one command, with faults mapped to outcomes ---------------------------

    async def call(self, colour: Colour, name: str, *args: str, timeout: float | None) -> str:
        """Run a command on ``colour``'s engine; CommandFailed is left to the caller."""
        session = self.sessions[colour]
        try:
            return await session.client.command(name, *args, timeout=timeout)
        except EngineFault as exc:
            self.fault(colour, session, exc)

    def fault(self, colour: Colour, session: EngineSession, exc: EngineFault) -> NoReturn:
        """End the game for ``colour``'s engine fault: the one way a fault ends a game.

        A timeout loses on time; a death or protocol garbage makes the game void
        (forfeited with ``crash_result = "forfeit"``); after the result, a note.
        """
        referee = self.referee
        if isinstance(exc, EngineTimeout):
            who = _who(session.player, colour)
            what = f"{who} did not answer {exc.command!r} within {exc.timeout:g}s"
            if referee.is_over:
                self.notes.append(f"late error: {what}")
            else:
                referee.forfeit(colour, what, on_time=True)
            raise Stop
        what = f"{_who(session.player, colour)}: {exc.message}"
        if referee.is_over:
            self.notes.append(f"late error: {what}")
            raise Stop
        if self.crash_result == "forfeit":
            referee.forfeit(colour, what)
            raise Stop
        raise Void(what)

    async def setup_command(self, colour: Colour, name: str, *args: str) -> str:
        player = self.sessions[colour].player
        try:
            return await self.call(colour, name, *args, timeout=player.command_timeout)
        except CommandFailed as exc:
            raise Void(f"{_who(player, colour)} rejected {exc.command!r}: {exc.failure}") from None

    async def setup_commands(self, colour: Colour, commands: list[tuple[str, ...]]) -> None:
        """Setup commands to ``colour``'s engine, in order; the first refusal voids the game.

        They go in one write, each answer with the engine's command timeout
        (counted from the answer before it, as one at a time).  The commands
        after a refused one are answered too (the game is void all the same,
        and its engines are not kept).
        """
        session = self.sessions[colour]
        player = session.player
        if len(commands) < 2:
            for words in commands:
                await self.setup_command(colour, *words)
            return
        try:
            limits = [player.command_timeout] * len(commands)
            answers = await session.client.commands(*commands, limits=limits)
        except EngineFault as exc:
            self.fault(colour, session, exc)
        for answer in answers:
            if isinstance(answer, CommandFailed):
                raise Void(f"{_who(player, colour)} rejected {answer.command!r}: {answer.failure}")
            if isinstance(answer, EngineFault):
                self.fault(colour, session, answer)

    # -- the game --------------------------------------------------------------

    def account(self, client: GtpClient) -> None:
        """The arena's gap before ``client``'s last command; its response is the latest read."""
        last = self.last_read
        if last is not None:
            gap = client.sent_at - last
            self.lag_commands += 1
            self.lag_total += gap
            if gap > self.lag_max:
                self.lag_max = gap
        self.last_read = client.received_at

    @property
    def latency(self) -> ArenaLatency | None:
        if not self.lag_commands:
            return None
        return ArenaLatency(self.lag_commands, self.lag_total, self.lag_max)

    async def conduct(self) -> None:
        """Set up, play the opening and the moves, score; returns with the referee's result.

        Raises :class:`Void` for a game to replay.
        """
        try:
            await self.setup()
            await self.play_opening()
            referee = self.referee
            black, white = self.sessions[BLACK], self.sessions[WHITE]
            black_clock, white_clock = self.clocks.get(BLACK), self.clocks.get(WHITE)
            adjudication = self.job.settings.adjudicate
            # referee.is_over and referee.needs_scoring, read directly (once a move).
            while referee.outcome is None:
                if referee.consecutive_passes >= 2 or referee.limit_reached:
                    await self.tell_owed_play()
                    await self.score()
                    break
                if referee.to_move is BLACK:
                    await self.one_move(BLACK, black, black_clock)
                else:
                    await self.one_move(WHITE, white, white_clock)
                if (
                    adjudication is not None
                    and adjudication.after <= referee.moves_played
                    and self.adjudication_due(adjudication)
                ):
                    await self.tell_owed_play()
                    await self.adjudication_check(adjudication)
        except Stop:
            pass

    async def setup(self) -> None:
        settings = self.job.settings
        for colour in (BLACK, WHITE):
            # The run loop's I/O clock tells a clock how its engine's answers
            # were heard (answered_doubt); unclocked, nothing reads it.  Set
            # before the setup commands, so that it has seen a whole wait by
            # the first genmove.
            self.sessions[colour].client.hear(self.job.time_control(colour) is not None)
        for colour in (BLACK, WHITE):
            await self.setup_commands(
                colour,
                [
                    *self.sessions[colour].player.startup_gtp_commands,
                    ("boardsize", str(settings.board_size)),
                    ("clear_board",),
                    ("komi", format_komi(settings.komi)),
                ],
            )
        for colour in (BLACK, WHITE):
            await self.setup_clock(colour)
        stones = settings.handicap
        if stones is None:
            return
        try:
            if settings.handicap_style == "fixed":
                points = None
                for colour in (BLACK, WHITE):
                    answer = await self.setup_command(colour, "fixed_handicap", str(stones))
                    points = check_fixed_handicap_answer(answer, settings)
                assert points is not None
            else:
                answer = await self.setup_command(BLACK, "place_free_handicap", str(stones))
                points = check_free_handicap_answer(answer, settings)
                size = settings.board_size
                vertices = [format_vertex(p, size) for p in points]
                await self.setup_command(WHITE, "set_free_handicap", *vertices)
        except ValueError as exc:
            raise Void(f"bad handicap placement: {exc}") from None
        self.referee.place_handicap(points)

    async def setup_clock(self, colour: Colour) -> None:
        """Start ``colour``'s clock and tell its engine the time control (if it can be told)."""
        control = self.job.time_control(colour)
        session = self.sessions[colour]
        if control is None:
            if session.told_a_clock and session.supports(TIME_SETTINGS):
                # A reused engine: no time limits now (GTP: byo-yomi time, no stones).
                await self.setup_command(colour, session.gtp(TIME_SETTINGS), "0", "1", "0")
                session.told_a_clock = False
            return
        who = _who(session.player, colour)
        needed = control.required_command
        if needed is not None and not session.supports(needed):
            raise Void(
                f"{who} does not list {needed}, which its clock ({control.describe()}) needs"
            )
        process = session.client.process
        clocked = _Clocked(
            PlayerClock(control, self.job.settings.time_margin),
            None,
            session.supports(TIME_LEFT),
            engine_probe=None if process is None else RunQueueProbe.for_process(process.pid),
        )
        if self.arena_probe is None:
            self.arena_probe = RunQueueProbe.for_this_thread()
        command = control.settings_command(session.supported)
        unlisted = [] if command is not None else ["a time settings command"]
        if not clocked.time_left:
            unlisted.append(TIME_LEFT)
        if unlisted:
            self.notes.append(
                f"{who} does not list {' or '.join(unlisted)} (its clock runs all the same)"
            )
        if command is not None:
            name, *args = command
            try:
                await self.call(
                    colour, session.gtp(name), *args, timeout=session.player.command_timeout
                )
                clocked.announced_by = name
                session.told_a_clock = True
            except CommandFailed as exc:
                self.refused_time_command(clocked, who, exc)
        self.clocks[colour] = clocked

    def refused_time_command(self, clocked: _Clocked, who: str, exc: CommandFailed) -> None:
        if not clocked.refused:
            clocked.refused = True
            self.notes.append(
                f"{who} refused {exc.command!r}: {exc.failure} (its clock runs all the same)"
            )

    async def play_opening(self) -> None:
        """The opening's moves, to both engines and the referee, before the first genmove."""
        opening = self.job.opening
        if opening is None:
            return
        size = self.job.settings.board_size
        last = len(opening.moves)
        sink = self.sink
        for number, (colour, point) in enumerate(opening.moves, start=1):
            vertex = format_vertex(point, size)
            for target in (BLACK, WHITE):
                await self.setup_command(target, "play", colour.value, vertex)
            move = PASS if point is None else Move(point)
            if not self.referee.play(colour, move):
                raise Void(f"opening {opening.name}: move {number} ({vertex}) is illegal")
            ending = f"End of opening {opening.name} ({last} moves)" if number == last else ""
            self.moves.append(PlayedMove(colour, move, comment=ending))
            if sink.wants_moves:
                sink.move_played(colour, move, self.referee.moves_played, self)
            if self.referee.outcome is not None:
                raise Void(f"opening {opening.name} ended the game at move {number}")

    def lost_on_time(
        self,
        colour: Colour,
        player: PlayerConfig,
        clock: PlayerClock,
        charge: Charge,
        *,
        answered: bool = True,
    ) -> NoReturn:
        number = self.referee.moves_played + 1
        who = _who(player, colour)
        reason = loss_reason(who, number, charge, clock.control, answered=answered)
        self.referee.forfeit(colour, reason, on_time=True)
        raise Stop

    def stalled(
        self, colour: Colour, player: PlayerConfig, charge: Charge, doubt: Doubt
    ) -> NoReturn:
        """A move over its clock by no more than the machine explains: the game is void."""
        number = self.referee.moves_played + 1
        reason = stall_reason(_who(player, colour), number, charge, doubt)
        raise Void(reason, stall=doubt.total)

    async def one_move(
        self,
        colour: Colour,
        session: EngineSession,
        clocked: _Clocked | None,
    ) -> None:
        """``colour`` generates a move, which is owed to its opponent's engine.

        The opponent's latest move, owed to this engine, goes in the same write
        as its genmove (``time_left`` between them under a clock): one round
        trip a move (:meth:`gtp.client.GtpClient.commands`).  A refused ``play``
        ends the game as it would alone (:meth:`Referee.play_rejected`), the
        genmove's answer read and dropped; the genmove is timed, and charged to
        a clock, from that write, whose timeout is the genmove's (``move_timeout``,
        or the clock's allowance); before a genmove without a time limit the
        ``play`` keeps the engine's command timeout (a limit for each answer).
        The moves told before scoring or an adjudication check go alone
        (:meth:`tell_owed_play`).

        This is the hot path (once per move): the commands go straight to the
        clients (no :meth:`call` coroutine in between) and the sessions come
        from the caller rather than from dict lookups keyed by the enum.
        """
        referee = self.referee
        player = session.player
        client = session.client
        claim = session.claim_supported
        colour_word = "b" if colour is BLACK else "w"  # colour.value, without the enum machinery
        arena_waited = engine_waited = None
        told_time_left = False
        owed, self.owed_play = self.owed_play, None
        if clocked is None:
            timeout = player.move_timeout
        batch: list[tuple[str, ...]] = [] if owed is None else [owed]
        if clocked is not None:
            if clocked.time_left:
                clock = clocked.clock
                left, periods = time_left_arguments(
                    clock.reading, clock.control, clocked.announced_by
                )
                batch.append((session.gtp(TIME_LEFT), colour_word, left, periods))
                told_time_left = True
            timeout = clocked.clock.timeout + CLOCK_TIMEOUT_SLACK
            if clocked.engine_probe is not None:
                engine_waited = clocked.engine_probe.waited()
            if self.arena_probe is not None:
                arena_waited = self.arena_probe.waited()
        if claim:
            genmove: tuple[str, ...] = (session.gtp("gomill-genmove_ex"), colour_word, "claim")
        else:
            genmove = _GENMOVE_BLACK if colour is BLACK else _GENMOVE_WHITE
        if clocked is not None:
            started = time.perf_counter()  # a clock's overrun counts from here at the latest
        try:
            if not batch:
                answer = await client.command(*genmove, timeout=timeout)
            else:
                batch.append(genmove)
                if timeout is None:
                    # An untimed genmove: its play keeps the command timeout.
                    limits = (player.command_timeout, None)
                    answers = await client.commands(*batch, limits=limits)
                else:
                    answers = await client.commands(*batch, timeout=timeout)
                answer = self.genmove_answer(
                    colour, owed is not None, clocked if told_time_left else None, answers
                )
        except CommandFailed as exc:
            referee.forfeit(colour, f"{_who(player, colour)} failed {exc.command!r}: {exc.failure}")
            raise Stop from None
        except EngineTimeout as exc:
            if clocked is None:
                self.fault(colour, session, exc)
            clock = clocked.clock
            elapsed = time.perf_counter() - max(started, client.sent_at)
            overran = Charge(elapsed, clock.allowance, clock.margin, False, clock.reading)
            # No answer when the arena looked: only a late write of the command and
            # the engine's own wait for a CPU are in doubt.
            doubt = Doubt(
                max(0.0, client.written_at - client.sent_at),
                waited_since(clocked.engine_probe, engine_waited) or 0.0,
            )
            if not beyond_doubt(overran, doubt):
                self.stalled(colour, player, overran, doubt)
            self.lost_on_time(colour, player, clock, overran, answered=False)
        except EngineFault as exc:
            self.fault(colour, session, exc)
        self.account(client)
        seconds = client.received_at - client.sent_at
        spent = self._black_times if colour is BLACK else self._white_times
        spent.add(seconds)
        time_left: float | None = None
        overtime_left = 0
        if clocked is not None:
            charge = clocked.clock.charge(seconds)
            if not charge.in_time:
                doubt = answered_doubt(
                    client.hearing,
                    waited_since(self.arena_probe, arena_waited),
                    waited_since(clocked.engine_probe, engine_waited),
                    client.written_at - client.sent_at,
                )
                if not beyond_doubt(charge, doubt):
                    self.stalled(colour, player, charge, doubt)
                self.lost_on_time(colour, player, clocked.clock, charge)
            time_left, overtime_left = charge.left.seconds, charge.left.count
        move = referee.interpret_genmove(colour, answer, claim_allowed=claim)
        if move is None:
            raise Stop
        comment = ""
        if "gomill-explain_last_move" in session.supported:
            with contextlib.suppress(CommandFailed):
                comment = await self.call(
                    colour,
                    session.gtp("gomill-explain_last_move"),
                    timeout=player.command_timeout,
                )
            self.account(client)
        self.moves.append(PlayedMove(colour, move, comment, seconds, time_left, overtime_left))
        sink = self.sink
        if sink.wants_moves:
            sink.move_played(colour, move, referee.moves_played, self)
        if referee.outcome is not None:
            return
        point = move.point
        self.owed_play = ("play", colour_word, "pass" if point is None else self._vertices[point])

    def genmove_answer(
        self, colour: Colour, played: bool, clocked: _Clocked | None, answers: list[Answer]
    ) -> str:
        """The genmove's answer from a write of [play] [time_left] genmove, in order.

        A refused ``play`` ends the game (Stop); a refused ``time_left`` is
        noted; the genmove's refusal or a fault that cut the write short is
        raised, as a lone genmove's would be.
        """
        rest = iter(answers)
        if played:
            answer = next(rest)
            if isinstance(answer, CommandFailed):
                self.referee.play_rejected(colour.opponent, answer.failure)
                raise Stop
            if isinstance(answer, EngineFault):
                raise answer
        if clocked is not None:
            answer = next(rest)
            if isinstance(answer, CommandFailed):
                self.refused_time_command(
                    clocked, _who(self.sessions[colour].player, colour), answer
                )
            elif isinstance(answer, EngineFault):
                raise answer
        answer = next(rest)
        if not isinstance(answer, str):
            raise answer
        return answer

    async def tell_owed_play(self) -> None:
        """Send the latest move's ``play`` on its own (what comes next is not a genmove)."""
        owed = self.owed_play
        if owed is None:
            return
        self.owed_play = None
        colour = self.referee.to_move  # the engine the move is owed to
        session = self.sessions[colour]
        client = session.client
        try:
            await client.command(*owed, timeout=session.player.command_timeout)
        except CommandFailed as exc:
            self.referee.play_rejected(colour.opponent, exc.failure)
            raise Stop from None
        except EngineFault as exc:
            self.fault(colour, session, exc)
        self.account(client)

    # -- the referee engine ----------------------------------------------------

    @property
    def judge_name(self) -> str:
        """The referee engine as the record names it: its player code and its name."""
        settings = self.job.settings
        code = settings.referee or "?"
        session = self.judge
        if session is None or session.sgf_name in ("", code):
            return code
        return f"{code} ({session.sgf_name})"

    async def judge_command(self, name: str, *args: str) -> str:
        """A command to the referee engine; any fault of it makes the game void."""
        session = self.judge
        assert session is not None
        try:
            return await session.client.command(
                session.gtp(name), *args, timeout=session.player.command_timeout
            )
        except CommandFailed as exc:
            what = f"rejected {exc.command!r}: {exc.failure}"
        except EngineFault as exc:
            what = self.judge_fault(exc)
        raise Void(f"the referee {self.judge_name} {what}")

    @staticmethod
    def judge_fault(exc: EngineFault) -> str:
        """What the referee engine did wrong, as the void reason words it."""
        if isinstance(exc, EngineTimeout):
            return f"did not answer {exc.command!r} within {exc.timeout:g}s"
        return exc.message

    async def referee_engine(self) -> EngineSession:
        """The referee engine, set up for this game and told every move played so far."""
        settings = self.job.settings
        if self.judge is None:
            if self.acquire_judge is None:
                raise Void(f"no referee engine for {settings.referee!r} (its Player is not known)")
            try:
                self.judge = await self.acquire_judge()
            except EngineStartError as exc:
                raise Void(f"the referee: {exc}") from None
            for words in self.judge.player.startup_gtp_commands:
                await self.judge_command(*words)
            await self.judge_command("boardsize", str(settings.board_size))
            await self.judge_command("clear_board")
            await self.judge_command("komi", format_komi(settings.komi))
            stones = self.referee.handicap_stones
            if stones:
                size = settings.board_size
                vertices = [format_vertex(point, size) for point in stones]
                await self.judge_command("set_free_handicap", *vertices)
        size = settings.board_size
        for played in self.moves[self.judge_told :]:
            await self.judge_command(
                "play", played.colour.value, format_vertex(played.move.point, size)
            )
            self.judge_told += 1
        return self.judge

    def adjudication_due(self, adjudication: Adjudication) -> bool:
        """Whether the referee engine is asked for the score after this move."""
        referee = self.referee
        if referee.outcome is not None or referee.consecutive_passes >= 2 or referee.limit_reached:
            return False
        return not (referee.moves_played - adjudication.after) % adjudication.every

    async def adjudication_check(self, adjudication: Adjudication) -> None:
        """Ask the referee engine for the score; end the game once one side stays far ahead."""
        if not self.adjudication_due(adjudication):
            return
        referee = self.referee
        await self.referee_engine()
        answer = await self.judge_command("final_score")
        # The referee's time is not the arena's latency: the next gap is not counted.
        self.last_read = None
        score = parse_final_score(answer)
        if score is None:
            raise Void(
                f"the referee {self.judge_name} answered final_score with {answer.strip()!r}"
            )
        leader = score.winner if score.margin >= adjudication.margin else None
        if leader is None:
            self.leader, self.lead_checks = None, 0
            return
        if leader is self.leader:
            self.lead_checks += 1
        else:
            self.leader, self.lead_checks = leader, 1
        if self.lead_checks >= adjudication.moves:
            reason = (
                f"adjudicated by the referee {self.judge_name}: {answer.strip()} at move"
                f" {referee.moves_played}, {leader.gtp_name} ahead by at least"
                f" {adjudication.margin:g} for {self.lead_checks} checks"
            )
            referee.adjudicate(leader, reason)

    async def score_by_referee(self) -> None:
        session = await self.referee_engine()
        answer = await self.judge_command("final_score")
        dead: str | None = None
        if session.supports("final_status_list"):
            try:
                dead = await session.client.command(
                    session.gtp("final_status_list"),
                    "dead",
                    timeout=session.player.command_timeout,
                )
            except CommandFailed as exc:
                self.notes.append(
                    f"the referee {self.judge_name} gave no dead stones: {exc.failure}"
                )
            except EngineFault as exc:
                raise Void(f"the referee {self.judge_name} {self.judge_fault(exc)}") from None
        try:
            self.referee.score_from_referee(self.judge_name, answer, dead)
        except ValueError as exc:
            raise Void(str(exc)) from None

    async def score(self) -> None:
        referee = self.referee
        scorer = self.job.settings.scorer
        if scorer == "internal":
            referee.score_internally()
            return
        if scorer == "referee" or referee.limit_reached:
            await self.score_by_referee()
            return
        answers = await self.players_scores()
        if scorer == "players":
            referee.score_from_players(answers)
            return
        outcome = referee.players_outcome(answers)
        if referee.players_settled(outcome):
            referee.settle(outcome)
            return
        self.notes.append(f"the players' scores did not settle the game ({outcome.reason or '?'})")
        await self.score_by_referee()

    async def players_scores(self) -> dict[Colour, str | None]:
        """The reliable scorers' ``final_score`` answers (failures noted, not asked: absent)."""
        answers: dict[Colour, str | None] = {}
        for colour in (BLACK, WHITE):
            session = self.sessions[colour]
            player = session.player
            if not player.is_reliable_scorer or not session.supports("final_score"):
                continue
            try:
                answers[colour] = await session.client.command(
                    session.gtp("final_score"), timeout=player.command_timeout
                )
            except CommandFailed as exc:
                self.notes.append(f"{_who(player, colour)} could not score: {exc.failure}")
            except EngineFault as exc:
                self.notes.append(f"{_who(player, colour)} could not score: {exc.message}")
        return answers

    async def cpu_times(self) -> dict[Colour, float | None]:
        """CPU per engine from ``gomill-cpu_time`` (None when unsupported or failing)."""
        times: dict[Colour, float | None] = {BLACK: None, WHITE: None}
        for colour in (BLACK, WHITE):
            session = self.sessions[colour]
            if not session.supports("gomill-cpu_time") or not session.client.usable:
                continue
            try:
                text = await session.client.command(
                    session.gtp("gomill-cpu_time"), timeout=session.player.command_timeout
                )
                total = float(text.strip())
            except (CommandFailed, EngineFault, ValueError):
                continue
            times[colour] = total
        return times
