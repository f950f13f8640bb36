"""Play one game between two engines and return its :class:`GameRecord`.

:func:`play_game` gets the two engine sessions (from an
:class:`arena.run.engines.EngineProvider`, which may keep them between
games), has the game played (:class:`arena.run.game.Game`: setup, clocks,
opening, moves, scoring, every engine fault made a result), gathers the
engines' CPU time and makes the record (a referee engine, when the settings
name one, is got from the same provider the first time the game needs it and
given back with the players' engines); :func:`play_single_game` is the same
as one self-contained function of the job, starting and stopping its own
engines.

Cancellation (a stop at once) is never turned into a result.
"""

from __future__ import annotations

import datetime
from collections.abc import Awaitable, Callable

import trio

from arena.control.settings import PlayerConfig
from arena.results import GameJob, GameRecord, GameResult
from arena.run.engines import EngineFacts, EngineProvider, EngineSession, GroupWatch, StderrRoute
from arena.run.game import BLACK, WHITE, Game, Void
from arena.run.game import MatchOptions as MatchOptions
from arena.run.game import MoveObserver as MoveObserver
from arena.run.referee import Referee
from gtp.errors import EngineStartError
from gtp.vertex import Colour


def _result(game: Game, cpu: dict[Colour, float | None]) -> GameResult:
    outcome = game.referee.outcome
    assert outcome is not None
    job = game.job
    times = {colour: t if t.moves else None for colour, t in game.times.items()}
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
        times_black=times[BLACK],
        times_white=times[WHITE],
    )


async def play_game(
    job: GameJob, provider: EngineProvider, options: MatchOptions | None = None
) -> GameRecord:
    """Play ``job`` with engines from ``provider``; never raises for an engine fault."""
    options = options or MatchOptions()
    started = datetime.datetime.now().replace(microsecond=0)
    sessions: dict[Colour, EngineSession] = {}
    game = Game(job, options, sessions, Referee(job.settings))
    void_reason: str | None = None
    stall: float | None = None
    cpu_start: dict[Colour, float | None] = {}
    cpu: dict[Colour, float | None] = {BLACK: None, WHITE: None}
    try:
        try:
            needed = frozenset({job.black.code, job.white.code})
            judge = job.settings.referee_player
            if judge is not None:
                needed |= {judge.code}
                game.acquire_judge = _judge_acquirer(judge, job.game_id, provider, needed, options)
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
            except Void as void:
                void_reason, stall = void.reason, void.stall
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
        game.close()
        with trio.CancelScope(shield=True):
            for session in sessions.values():
                note = session.end_game()
                if note:
                    game.notes.append(note)
                await provider.release(session, healthy=void_reason is None)
            if game.judge is not None:
                note = game.judge.end_game()
                if note:
                    game.notes.append(f"referee: {note}")
                await provider.release(game.judge, healthy=void_reason is None)
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
        "latency": game.latency,
    }
    if void_reason is not None:
        return GameRecord(
            result=None,
            void_reason=void_reason,
            stall=stall,
            **record_fields,  # type: ignore[arg-type]
        )
    return GameRecord(result=_result(game, cpu), **record_fields)  # type: ignore[arg-type]


def _judge_acquirer(
    judge: PlayerConfig,
    game_id: str,
    provider: EngineProvider,
    needed: frozenset[str],
    options: MatchOptions,
) -> Callable[[], Awaitable[EngineSession]]:
    """How the game gets its referee engine when it first needs it (started or reused)."""
    stderr_log, gtp_log = options.stderr_log, options.gtp_log
    code = judge.code
    label = f"{code} (referee)"

    async def acquire() -> EngineSession:
        return await provider.acquire(
            judge,
            game_id,
            keep=needed,
            stderr_sink=(lambda line: stderr_log(code, line)) if stderr_log is not None else None,
            traffic_sink=(lambda line: gtp_log(f"{label} {line}")) if gtp_log is not None else None,
        )

    return acquire


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
