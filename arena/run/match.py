"""Play one game between two engines and return its :class:`GameRecord`.

The procedure is Gomill's: each engine gets its ``startup_gtp_commands``, then
``boardsize``, ``clear_board`` and ``komi``; handicap stones are placed
(``fixed_handicap`` to both, or ``place_free_handicap`` to Black and
``set_free_handicap`` to White); then ``genmove`` (``gomill-genmove_ex ...
claim`` for a player allowed to claim) and ``play`` alternate until the referee
(:mod:`arena.run.referee`) ends the game; then the game is scored.

Every engine fault becomes part of the result (GTP-SGF-RULES.md §8):

* a failure response to a setup command, an engine that cannot start, dies or
  breaks the protocol: the game is void and will be replayed (with
  ``crash_result = "forfeit"`` a death or protocol error forfeits instead);
* a failure response to ``genmove``, an ill-formed or illegal move: the mover
  forfeits; ``illegal move`` from the opponent's ``play``: the mover forfeits;
  any other ``play`` failure: the opponent forfeits;
* any command that overruns its timeout: that engine loses on time;
* a fault after the result is known is only noted in the record.

Cancellation (a stop at once) is never turned into a result.
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Callable
from typing import Protocol

import attrs
import trio

from arena.control.settings import PlayerConfig
from arena.results import GameJob, GameRecord, GameResult, PlayedMove
from arena.run.engines import (
    EngineFacts,
    EngineProvider,
    EngineSession,
    GroupWatch,
    StderrRoute,
    format_komi,
)
from arena.run.referee import Referee, check_fixed_handicap_answer, check_free_handicap_answer
from gtp.errors import CommandFailed, EngineGone, EngineStartError, EngineTimeout, ProtocolError
from gtp.vertex import Colour, Move, format_vertex

BLACK, WHITE = Colour.BLACK, Colour.WHITE


class MoveObserver(Protocol):
    def __call__(self, game_id: str, colour: Colour, move: Move, moves_played: int) -> None: ...


@attrs.frozen
class MatchOptions:
    """How a game's faults and output are handled (the competition's choices)."""

    crash_result: str = "void"  # or "forfeit"
    stderr_log: Callable[[str, str], None] | None = None  # (player code, line)
    gtp_log: Callable[[str], None] | None = None  # one traffic line, already labelled
    on_move: MoveObserver | None = None


class _Stop(Exception):
    """The game has a result (held by the referee)."""


class _Void(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _who(player: PlayerConfig, colour: Colour) -> str:
    return f"{player.code} ({colour.gtp_name})"


@attrs.define
class _Game:
    job: GameJob
    options: MatchOptions
    sessions: dict[Colour, EngineSession]
    referee: Referee
    moves: list[PlayedMove] = attrs.Factory(list)
    notes: list[str] = attrs.Factory(list)

    # -- one command, with faults mapped to outcomes ---------------------------

    async def call(self, colour: Colour, name: str, *args: str, timeout: float | None) -> str:
        """Run a command on ``colour``'s engine; CommandFailed is left to the caller."""
        session = self.sessions[colour]
        try:
            return await session.client.command(name, *args, timeout=timeout)
        except (EngineTimeout, EngineGone, ProtocolError) as exc:
            raise self.fault(colour, session, exc) from None

    def fault(
        self,
        colour: Colour,
        session: EngineSession,
        exc: EngineTimeout | EngineGone | ProtocolError,
    ) -> _Stop | _Void:
        """What an engine fault means for the game; the caller raises it."""
        referee = self.referee
        if isinstance(exc, EngineTimeout):
            who = _who(session.player, colour)
            what = f"{who} did not answer {exc.command!r} within {exc.timeout:g}s"
            if referee.is_over:
                self.notes.append(f"late error: {what}")
            else:
                referee.forfeit(colour, what, on_time=True)
            return _Stop()
        what = f"{_who(session.player, colour)}: {exc.message}"
        if referee.is_over:
            self.notes.append(f"late error: {what}")
            return _Stop()
        if self.options.crash_result == "forfeit":
            referee.forfeit(colour, what)
            return _Stop()
        return _Void(what)

    async def setup_command(self, colour: Colour, name: str, *args: str) -> str:
        player = self.sessions[colour].player
        try:
            return await self.call(colour, name, *args, timeout=player.command_timeout)
        except CommandFailed as exc:
            raise _Void(f"{_who(player, colour)} rejected {exc.command!r}: {exc.failure}") from None

    # -- the game --------------------------------------------------------------

    async def run(self) -> None:
        try:
            await self.setup()
            referee = self.referee
            black, white = self.sessions[BLACK], self.sessions[WHITE]
            # referee.is_over and referee.needs_scoring, read directly (once a move).
            while referee.outcome is None:
                if referee.consecutive_passes >= 2:
                    await self.score()
                    break
                if referee.to_move is BLACK:
                    await self.one_move(BLACK, black, white)
                else:
                    await self.one_move(WHITE, white, black)
        except _Stop:
            pass

    async def setup(self) -> None:
        settings = self.job.settings
        for colour in (BLACK, WHITE):
            session = self.sessions[colour]
            for words in session.player.startup_gtp_commands:
                await self.setup_command(colour, *words)
            await self.setup_command(colour, "boardsize", str(settings.board_size))
            await self.setup_command(colour, "clear_board")
            await self.setup_command(colour, "komi", format_komi(settings.komi))
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
            raise _Void(f"bad handicap placement: {exc}") from None
        self.referee.place_handicap(points)

    async def one_move(
        self, colour: Colour, session: EngineSession, opponent_session: EngineSession
    ) -> None:
        """``colour`` generates a move and its opponent is told about it.

        This is the hot path (once per move): the commands go straight to the
        clients (no :meth:`call` coroutine in between) and the sessions come
        from the caller rather than from dict lookups keyed by the enum.
        """
        referee = self.referee
        player = session.player
        claim = session.claim_supported
        colour_word = "b" if colour is BLACK else "w"  # colour.value, without the enum machinery
        try:
            if claim:
                answer = await session.client.command(
                    session.gtp("gomill-genmove_ex"),
                    colour_word,
                    "claim",
                    timeout=player.move_timeout,
                )
            else:
                answer = await session.client.command(
                    "genmove", colour_word, timeout=player.move_timeout
                )
        except CommandFailed as exc:
            referee.forfeit(colour, f"{_who(player, colour)} failed {exc.command!r}: {exc.failure}")
            raise _Stop from None
        except (EngineTimeout, EngineGone, ProtocolError) as exc:
            raise self.fault(colour, session, exc) from None
        move = referee.interpret_genmove(colour, answer, claim_allowed=claim)
        if move is None:
            raise _Stop
        comment = ""
        if "gomill-explain_last_move" in session.supported:
            with contextlib.suppress(CommandFailed):
                comment = await self.call(
                    colour,
                    session.gtp("gomill-explain_last_move"),
                    timeout=player.command_timeout,
                )
        self.moves.append(PlayedMove(colour, move, comment))
        on_move = self.options.on_move
        if on_move is not None:
            on_move(self.job.game_id, colour, move, referee.moves_played)
        if referee.outcome is not None:
            return
        vertex = format_vertex(move.point, self.job.settings.board_size)
        try:
            await opponent_session.client.command(
                "play", colour_word, vertex, timeout=opponent_session.player.command_timeout
            )
        except CommandFailed as exc:
            referee.play_rejected(colour, exc.failure)
            raise _Stop from None
        except (EngineTimeout, EngineGone, ProtocolError) as exc:
            raise self.fault(colour.opponent, opponent_session, exc) from None

    async def score(self) -> None:
        referee = self.referee
        if self.job.settings.scorer == "internal":
            referee.score_internally()
            return
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
            except (EngineTimeout, EngineGone, ProtocolError) as exc:
                self.notes.append(f"{_who(player, colour)} could not score: {exc.message}")
        referee.score_from_players(answers)

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
            except (CommandFailed, EngineTimeout, EngineGone, ProtocolError, ValueError):
                continue
            times[colour] = total
        return times


def _result(game: _Game, cpu: dict[Colour, float | None]) -> GameResult:
    outcome = game.referee.outcome
    assert outcome is not None
    job = game.job
    return GameResult(
        game_id=job.game_id,
        black=job.black.code,
        white=job.white.code,
        winner=outcome.winner,
        end=outcome.end,
        margin=outcome.margin,
        moves=game.referee.moves_played,
        cpu_black=cpu[BLACK],
        cpu_white=cpu[WHITE],
        reason=outcome.reason,
    )


async def play_game(
    job: GameJob, provider: EngineProvider, options: MatchOptions | None = None
) -> GameRecord:
    """Play ``job`` with engines from ``provider``; never raises for an engine fault."""
    options = options or MatchOptions()
    started = datetime.datetime.now().replace(microsecond=0)
    sessions: dict[Colour, EngineSession] = {}
    game = _Game(job, options, sessions, Referee(job.settings))
    void_reason: str | None = None
    cpu_start: dict[Colour, float | None] = {}
    cpu: dict[Colour, float | None] = {BLACK: None, WHITE: None}
    try:
        try:
            needed = frozenset({job.black.code, job.white.code})
            for colour in (BLACK, WHITE):
                player = job.player(colour)
                stderr_sink, traffic_sink = _sinks(player, colour, options)
                sessions[colour] = await provider.acquire(
                    player,
                    job.game_id,
                    keep=needed,
                    stderr_sink=stderr_sink,
                    traffic_sink=traffic_sink,
                )
        except EngineStartError as exc:
            void_reason = str(exc)
        else:
            for colour, session in sessions.items():
                cpu_start[colour] = session.cpu_seconds() if provider.reuse else 0.0
            try:
                await game.run()
            except _Void as void:
                void_reason = void.reason
            if void_reason is None:
                cpu = await game.cpu_times()
                for colour, session in sessions.items():
                    reported = cpu[colour]
                    if reported is not None:
                        previous = session.last_cpu_report
                        session.last_cpu_report = reported
                        if provider.reuse and previous is not None:
                            cpu[colour] = max(0.0, reported - previous)
                    elif provider.reuse:
                        now, before = session.cpu_seconds(), cpu_start[colour]
                        if now is not None and before is not None:
                            cpu[colour] = max(0.0, now - before)
    finally:
        with trio.CancelScope(shield=True):
            for session in sessions.values():
                note = session.end_game()
                if note:
                    game.notes.append(note)
                await provider.release(session, healthy=void_reason is None)
    if void_reason is None and not provider.reuse:
        for colour, session in sessions.items():
            if cpu[colour] is None:
                cpu[colour] = session.exit_cpu_seconds()
    record_fields = {
        "job": job,
        "handicap_stones": game.referee.handicap_stones,
        "moves": tuple(game.moves),
        "player_names": (
            _name(sessions.get(BLACK), job.black),
            _name(sessions.get(WHITE), job.white),
        ),
        "descriptions": (
            _description(sessions.get(BLACK)),
            _description(sessions.get(WHITE)),
        ),
        "notes": (*game.referee.notes, *game.notes),
        "date": started.isoformat(sep=" "),
    }
    if void_reason is not None:
        return GameRecord(result=None, void_reason=void_reason, **record_fields)  # type: ignore[arg-type]
    return GameRecord(result=_result(game, cpu), **record_fields)  # type: ignore[arg-type]


def _name(session: EngineSession | None, player: PlayerConfig) -> str:
    return session.sgf_name if session is not None else player.code


def _description(session: EngineSession | None) -> str:
    return session.summary if session is not None else ""


def _sinks(
    player: PlayerConfig, colour: Colour, options: MatchOptions
) -> tuple[Callable[[str], None] | None, Callable[[str], None] | None]:
    code = player.code
    stderr_log = options.stderr_log
    gtp_log = options.gtp_log
    label = f"{code} ({colour.gtp_name})"
    return (
        (lambda line: stderr_log(code, line)) if stderr_log is not None else None,
        (lambda line: gtp_log(f"{label} {line}")) if gtp_log is not None else None,
    )


async def play_single_game(
    job: GameJob,
    options: MatchOptions | None = None,
    *,
    stderr: StderrRoute = "log",
    slot: int | None = None,
    watch: GroupWatch | None = None,
    facts: dict[PlayerConfig, EngineFacts] | None = None,
) -> GameRecord:
    """The game as one self-contained function of its job: start both engines, play, stop them.

    What an executor on another machine runs (the ringmaster's local slots use
    :func:`play_game` with engines kept between games).  Never raises for an
    engine fault; :func:`arena.store.sgf.build_sgf` gives the record's SGF.
    ``facts``: what earlier engines of the same players said about themselves
    (:class:`arena.run.engines.EngineFacts`), shared between games.
    """
    async with trio.open_nursery() as nursery:
        provider = EngineProvider(
            nursery, stderr=stderr, slot=slot, watch=watch, facts={} if facts is None else facts
        )
        try:
            return await play_game(job, provider, options)
        finally:
            with trio.CancelScope(shield=True):
                await provider.close_all()
