"""Play one game between two engines and return its :class:`GameRecord`.

:func:`play_game` is the one way a game is played, wherever it is: in a
ringmaster's slot (:class:`arena.run.executor.LocalExecutor`, engines kept
between games with ``reuse_engines``), on a cluster worker
(:mod:`arena.run.remote`, engines of its own), and so for the library's
:func:`arena.api.play_match`.  It gets the two engine sessions (from an
:class:`arena.run.engines.EngineProvider`), has the game conducted
(:class:`arena.run.game.Game`: setup, clocks, opening, moves, scoring, every
engine fault made a result), gathers the engines' CPU time and makes the
record (a referee engine, when the settings name one, is got from the same
provider the first time the game needs it and given back with the players'
engines).  The game reports to one :class:`arena.run.sink.GameSink`.

Cancellation (a stop at once) is never turned into a result.
"""

from __future__ import annotations

import datetime
from collections.abc import Awaitable, Callable

import trio

from arena.control.settings import PlayerConfig
from arena.results import GameJob, GameRecord, GameResult
from arena.run.engines import EngineProvider, EngineSession
from arena.run.game import BLACK, WHITE, Game, Void
from arena.run.referee import Referee
from arena.run.sink import QUIET, GameSink
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
    job: GameJob,
    provider: EngineProvider,
    sink: GameSink = QUIET,
    *,
    crash_result: str = "void",
) -> GameRecord:
    """Play ``job`` with engines from ``provider``, reporting to ``sink``.

    ``crash_result``: what an engine's death or protocol error makes of the
    game, ``"void"`` (replayed) or ``"forfeit"``.  Never raises for an engine
    fault; :func:`arena.store.sgf.build_sgf` gives the record's SGF.
    """
    started = datetime.datetime.now().replace(microsecond=0)
    sessions: dict[Colour, EngineSession] = {}
    game = Game(job, sessions, Referee(job.settings), sink, crash_result)
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
                game.acquire_judge = _judge_acquirer(judge, job.game_id, provider, needed, sink)
            for colour in (BLACK, WHITE):
                player = job.player(colour)
                sessions[colour] = await provider.acquire(
                    player,
                    job.game_id,
                    keep=needed,
                    sink=sink,
                    label=f"{player.code} ({colour.gtp_name})",
                )
        except EngineStartError as exc:
            void_reason = str(exc)
        else:
            for colour, session in sessions.items():
                cpu_start[colour] = session.cpu_seconds() if provider.reuse else 0.0
            try:
                await game.conduct()
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
    sink: GameSink,
) -> Callable[[], Awaitable[EngineSession]]:
    """How the game gets its referee engine when it first needs it (started or reused)."""

    async def acquire() -> EngineSession:
        label = f"{judge.code} (referee)"
        return await provider.acquire(judge, game_id, keep=needed, sink=sink, label=label)

    return acquire


def _name(session: EngineSession | None, player: PlayerConfig) -> str:
    return session.sgf_name if session is not None else player.code


def _description(session: EngineSession | None) -> str:
    return session.summary if session is not None else ""
