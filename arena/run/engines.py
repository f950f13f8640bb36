"""Engine sessions for the arena: start a configured player, learn what it can do, stop it.

An :class:`EngineSession` is one running engine process of a player, as the
match runner sees it: the GTP client, the engine's name/version/description,
which optional commands it supports, the sink of the current game (its
stderr lines and GTP traffic go there, :class:`arena.run.sink.GameSink`),
and how much CPU it has used.  A session's engine is
started with :func:`gtp.client.start_engine`, its supervising tasks in a
nursery the caller owns (which stops the engine if it is cancelled), so
sessions can be closed in any order and a slot can keep the sessions of a
pairing between games (``reuse_engines``); no task or nursery of the session's
own, as starting and stopping engines is much of a short game's cost.
:class:`EngineProvider` hands sessions to the match runner and takes them back;
:func:`check_player` is the startup check.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Final, Literal

import attrs
import trio

from arena import fields_eq, fields_hash, fields_repr
from arena.control.settings import GameSettings, PlayerConfig
from arena.control.timecontrol import TIME_COMMANDS
from arena.run.sink import GameSink
from arena.run.stalls import usable_cores
from gtp.errors import CommandFailed, EngineStartError, GtpError
from gtp.spawn import StderrMode, spawn_child, split_command

if TYPE_CHECKING:
    from gtp.client import GtpClient
    from gtp.process import ShutdownTimings, SpawnedChild

STDERR_LOG_CAP: Final = 64 * 1024  # bytes of one engine's stderr kept in X.log per game
_OPTIONAL_COMMANDS: Final = (
    "gomill-describe_engine",
    "gomill-explain_last_move",
    "gomill-cpu_time",
    "gomill-genmove_ex",
    "final_score",
    "final_status_list",  # a referee engine's dead stones, for the record
    *TIME_COMMANDS,
)

StderrRoute = Literal["log", "discard", "inherit"]
GroupWatch = Callable[[int, bool], None]
"""Told ``(pgid, True)`` when an engine starts and ``(pgid, False)`` once it is reaped."""


@attrs.define(eq=False)
class EngineSession:
    """One running engine of a player (see module docstring); made by :func:`start_session`."""

    __repr__ = fields_repr

    player: PlayerConfig
    client: GtpClient = attrs.field(init=False)
    name: str = ""
    version: str = ""
    description: str = ""
    supported: frozenset[str] = frozenset()
    claim_supported: bool = False
    # The current game's sink (its stderr lines and GTP traffic) and the label of
    # this engine's traffic lines there; reset between games.
    sink: GameSink | None = None
    label: str = ""
    stderr_bytes: int = 0
    stderr_dropped: int = 0
    games_played: int = 0
    last_cpu_report: float | None = None  # the last gomill-cpu_time answer (cumulative)
    told_a_clock: bool = False  # a time control was announced to it (in an earlier game)
    _watch: GroupWatch | None = None
    _closing: bool = False

    @property
    def usable(self) -> bool:
        return self.client.usable and not self._closing

    def supports(self, command: str) -> bool:
        return command in self.supported

    def gtp(self, command: str) -> str:
        return self.player.gtp_name(command)

    @property
    def sgf_name(self) -> str:
        """PB/PW: ``name:version`` from GTP, or the player code."""
        if not self.player.sgf_player_name_from_gtp or not self.name:
            return self.player.code
        # A name or version of several lines: the first is the name (the rest is talk).
        name = self.name.splitlines()[0]
        version = self.version.splitlines()[0] if self.version else ""
        return f"{name}:{version}" if version else name

    @property
    def summary(self) -> str:
        """The engine description for reports and the SGF root comment."""
        if self.description:
            return self.description
        if self.name:
            return f"{self.name}:{self.version}" if self.version else self.name
        return ""

    def cpu_seconds(self) -> float | None:
        """CPU used by the engine process so far (Linux /proc), None if unknown."""
        process = self.client.process
        if process is None:
            return None
        status = process.exit_status
        if status is not None:
            return status.cpu_time
        try:
            with open(f"/proc/{process.pid}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            ticks = int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError, ValueError):
            return None
        return ticks / os.sysconf("SC_CLK_TCK")

    def exit_cpu_seconds(self) -> float | None:
        process = self.client.process
        if process is None or process.exit_status is None:
            return None
        return process.exit_status.cpu_time

    def begin_game(self, sink: GameSink | None, label: str) -> None:
        self.sink = sink
        self.label = label
        self.stderr_bytes = 0
        self.stderr_dropped = 0

    def end_game(self) -> str | None:
        """Stop routing output to this game; a note if stderr was cut short."""
        note = None
        if self.stderr_dropped:
            note = f"{self.stderr_dropped} bytes of stderr from {self.player.code} not logged"
        self.sink = None
        self.games_played += 1
        return note

    def _on_stderr(self, line: str) -> None:
        sink = self.sink
        if sink is None:
            return
        size = len(line) + 1
        if self.stderr_bytes + size > STDERR_LOG_CAP:
            self.stderr_dropped += size
            return
        self.stderr_bytes += size
        sink.stderr_line(self.player.code, line)

    def _on_traffic(self, line: str) -> None:
        sink = self.sink
        if sink is not None and sink.wants_traffic:
            sink.traffic_line(f"{self.label} {line}")

    def _on_reaped(self) -> None:
        watch = self._watch
        process = self.client.process
        if watch is not None and process is not None:
            watch(process.pgid, False)

    async def close(self) -> None:
        """Quit the engine and wait until it is gone (bounded; safe to repeat)."""
        self._closing = True
        await self.client.close_engine()


async def start_session(
    nursery: trio.Nursery,
    player: PlayerConfig,
    env: dict[str, str],
    stderr: StderrRoute,
    sink: GameSink | None = None,
    label: str = "",
    watch: GroupWatch | None = None,
    cores: frozenset[int] | None = None,
) -> EngineSession:
    """Start one engine of ``player``, its tasks in ``nursery``; EngineStartError if it cannot run.

    ``env`` is added to the player's environment; ``watch`` is told about the
    engine's process group when it starts and once it is reaped; ``cores``:
    the CPUs the engine (and every process it starts) may run on.  Stop the
    session with :meth:`EngineSession.close` (cancelling ``nursery`` stops it too).
    """
    # The GTP client and the engine process (gtp.client, gtp.launch, gtp.process: ~8 ms of
    # CPU to import) with the first engine, not at the run's start: a run may start none
    # (-g 0, a complete competition).
    from gtp.launch import start_engine
    from gtp.process import spawn_off_the_loop

    session = EngineSession(player, watch=watch)
    mode: StderrMode = "keep" if stderr == "log" else stderr
    environment = {**player.environ_dict, **env}
    # Spawned in a thread (other games' clocks run on), then taken over at once.
    if cores is None:
        child = await spawn_off_the_loop(
            player.command, name=player.code, cwd=player.cwd, env=environment, stderr=mode
        )
    else:
        argv = split_command(player.command)
        child = await trio.to_thread.run_sync(
            _spawn_pinned, cores, argv, player.code, player.cwd, environment, mode
        )
    session.client = client = start_engine(
        nursery,
        player.command,
        name=player.code,
        cwd=player.cwd,
        env=environment,
        stderr=mode,
        child=child,
        on_stderr_line=session._on_stderr if stderr == "log" else None,
        stderr_tail_bytes=4096,
        log=session._on_traffic if sink is not None and sink.wants_traffic else None,
        timings=arena_timings(),
        on_reaped=session._on_reaped if watch is not None else None,
        hears=False,  # a clocked game's setup turns it on (Game.setup)
    )
    if watch is not None and client.process is not None:
        watch(client.process.pgid, True)
    session.begin_game(sink, label)
    return session


@functools.cache
def arena_timings() -> ShutdownTimings:
    """How long the arena gives an engine to quit, exit, and exit after SIGTERM."""
    from gtp.process import ShutdownTimings

    return ShutdownTimings(quit_timeout=3.0, exit_grace=3.0, term_grace=3.0)


def _spawn_pinned(
    cores: frozenset[int],
    argv: list[str],
    name: str,
    cwd: str | None,
    env: dict[str, str],
    stderr: StderrMode,
) -> SpawnedChild:
    """Spawn from a thread pinned to ``cores`` (a worker thread of trio's), then pin the child.

    A new process starts with the CPU mask of the thread that spawned it, so
    the engine runs on its cores from its first instruction and whatever it
    starts before we could reach it inherits them too; the thread's own mask
    is put back before it serves anything else.  The child is pinned by pid
    as well, for a spawn path that does not inherit the mask.
    """
    previous = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cores)
    try:
        child = spawn_child(argv, name, cwd, env, stderr)
    finally:
        os.sched_setaffinity(0, previous)
    with contextlib.suppress(ProcessLookupError):  # it may be gone already (a bad binary)
        os.sched_setaffinity(child[0], cores)
    return child


_STARTS: trio.lowlevel.RunVar[trio.CapacityLimiter] = trio.lowlevel.RunVar("engine_starts")


def _engine_starts() -> trio.CapacityLimiter:
    """This trio run's limit on engines starting at once: the usable cores."""
    try:
        return _STARTS.get()
    except LookupError:
        limiter = trio.CapacityLimiter(usable_cores())
        _STARTS.set(limiter)
        return limiter


def engine_environment(game_id: str, slot: int | None) -> dict[str, str]:
    env = {"GOMILL_GAME_ID": game_id}
    if slot is not None:
        env["GOMILL_SLOT"] = str(slot)
    return env


@attrs.frozen
class EngineFacts:
    """What a player's engine says about itself that is the same in every process of it.

    The description (``gomill-describe_engine``) is not among them: it may name
    a random seed chosen by each process.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    supported: frozenset[str]  # the optional commands it implements
    name: str
    version: str
    claim_supported: bool

    def apply_to(self, session: EngineSession) -> None:
        session.supported = self.supported
        session.name = self.name
        session.version = self.version
        session.claim_supported = self.claim_supported


async def _learn(
    session: EngineSession, timeout: float | None, known: EngineFacts | None = None
) -> EngineFacts:
    """Name, version, optional commands and description, within the startup timeout.

    With ``known`` (what an earlier process of the same player said), only the
    description is asked for.
    """
    client = session.client
    player = session.player
    if known is not None and "gomill-describe_engine" not in known.supported:
        known.apply_to(session)  # nothing to ask this engine
        return known
    with trio.fail_after(timeout) if timeout is not None else _no_deadline():
        if known is None:
            known = await _learn_facts(session)
        known.apply_to(session)
        if "gomill-describe_engine" in known.supported:
            with contextlib.suppress(CommandFailed):
                session.description = (
                    await client.command(player.gtp_name("gomill-describe_engine"))
                ).strip()
    return known


async def _learn_facts(session: EngineSession) -> EngineFacts:
    client = session.client
    player = session.player
    try:
        commands = set(await client.list_commands())
    except CommandFailed:
        commands = set()
    supported = set()
    for command in _OPTIONAL_COMMANDS:
        name = player.gtp_name(command)
        if name in commands or (not commands and await client.known_command(name)):
            supported.add(command)
    said = {"name": "", "version": ""}
    for attribute in said:
        with contextlib.suppress(CommandFailed):
            said[attribute] = (await client.command(attribute)).strip()
    claim_supported = False
    if "gomill-genmove_ex" in supported and player.allow_claim:
        with contextlib.suppress(CommandFailed):
            keywords = await client.command(player.gtp_name("gomill-genmove_ex"))
            claim_supported = "claim" in keywords.split()
    return EngineFacts(frozenset(supported), said["name"], said["version"], claim_supported)


class _no_deadline:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


@attrs.define
class EngineProvider:
    """Starts sessions in a nursery the caller owns; optionally keeps them between games.

    With ``reuse`` a released healthy session is kept for its player and handed
    out again (after ``clear_board``, which the match sends anyway); sessions of
    players the next game does not need are closed first.

    What a player's first engine says about itself (:class:`EngineFacts`) is
    kept, so that the engines started for later games are only asked for their
    description: that saves three or more round trips per engine start, a
    noticeable share of a short game's cost.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq

    nursery: trio.Nursery
    stderr: StderrRoute = "log"
    reuse: bool = False
    slot: int | None = None
    watch: GroupWatch | None = None
    cores: frozenset[int] | None = None  # the CPUs this slot's engines run on (None: any)
    _idle: dict[str, EngineSession] = attrs.Factory(dict)
    _facts: dict[PlayerConfig, EngineFacts] = attrs.Factory(dict)

    async def acquire(
        self,
        player: PlayerConfig,
        game_id: str,
        *,
        keep: frozenset[str] = frozenset(),
        sink: GameSink | None = None,
        label: str = "",
    ) -> EngineSession:
        """A session ready for a game (name, version and capabilities known).

        ``keep``: player codes whose idle sessions should survive this call.
        ``sink`` gets this game's stderr lines and GTP traffic (from the very
        first command when the engine is new), the traffic labelled ``label``.
        Raises EngineStartError (also for a fault while learning about the engine).
        """
        for code in list(self._idle):
            if code != player.code and code not in keep:
                await self._idle.pop(code).close()
        idle = self._idle.pop(player.code, None)
        if idle is not None:
            if idle.usable and idle.player == player:
                idle.begin_game(sink, label)
                return idle
            await idle.close()
        env = engine_environment(game_id, self.slot)
        route: StderrRoute = "discard" if player.discard_stderr else self.stderr
        # No more engines starting at once than there are cores: a start is a
        # burst of CPU (an interpreter loading, tables built), and a storm of
        # them when games end together starves the games still playing.
        async with _engine_starts():
            session = await start_session(
                self.nursery, player, env, route, sink, label, self.watch, self.cores
            )
            try:
                self._facts[player] = await _learn(
                    session, player.startup_timeout, self._facts.get(player)
                )
            except (GtpError, trio.TooSlowError) as exc:
                await session.close()
                reason = "timed out" if isinstance(exc, trio.TooSlowError) else str(exc)
                raise EngineStartError(
                    f"engine {player.code!r} failed to start: {reason}", engine=player.code
                ) from exc
        return session

    async def release(self, session: EngineSession, *, healthy: bool = True) -> None:
        """Give a session back: kept when reusing and still healthy, else closed."""
        if self.reuse and healthy and session.usable and session.player.code not in self._idle:
            self._idle[session.player.code] = session
            return
        await session.close()

    async def close_all(self) -> None:
        while self._idle:
            _, session = self._idle.popitem()
            await session.close()


@contextlib.asynccontextmanager
async def open_provider(
    *,
    stderr: StderrRoute = "log",
    reuse: bool = False,
    slot: int | None = None,
    watch: GroupWatch | None = None,
    cores: frozenset[int] | None = None,
    facts: dict[PlayerConfig, EngineFacts] | None = None,
) -> AsyncIterator[EngineProvider]:
    """An :class:`EngineProvider` whose engines all stop when the context ends.

    ``facts``: what earlier engines of the same players said about themselves,
    shared with other providers (a cluster worker's games of one run).
    """
    async with trio.open_nursery() as nursery:
        provider = EngineProvider(
            nursery,
            stderr=stderr,
            reuse=reuse,
            slot=slot,
            watch=watch,
            cores=cores,
            facts={} if facts is None else facts,
        )
        try:
            yield provider
        finally:
            with trio.CancelScope(shield=True):
                await provider.close_all()


async def check_player(
    player: PlayerConfig,
    settings: GameSettings,
    *,
    stderr: StderrRoute = "discard",
    watch: GroupWatch | None = None,
    required: frozenset[str] = frozenset(),
) -> str:
    """The startup check of one player; returns its description, raises EngineStartError.

    The engine must start, speak GTP (protocol version 2 if it says), accept
    its ``startup_gtp_commands``, the board size, ``clear_board`` and the komi,
    all within its ``startup_timeout``, and list the ``required`` commands
    (``kata-time_settings`` for a Fischer clock).
    """
    timeout = player.startup_timeout
    error: EngineStartError | None = None
    description = ""
    async with trio.open_nursery() as nursery:
        try:
            session = await start_session(
                nursery, player, engine_environment("startup-check", None), stderr, watch=watch
            )
        except EngineStartError as exc:
            error = exc
        else:
            try:
                with trio.fail_after(timeout) if timeout is not None else _no_deadline():
                    await session.client.check_startup(timeout or 3600.0)
                    for words in player.startup_gtp_commands:
                        await session.client.command(*words)
                    await session.client.command("boardsize", str(settings.board_size))
                    await session.client.command("clear_board")
                    await session.client.command("komi", format_komi(settings.komi))
                await _learn(session, timeout)
                description = session.summary
                missing = sorted(c for c in required if not session.supports(c))
                if missing:
                    error = EngineStartError(
                        f"failed the startup check: does not list {', '.join(missing)},"
                        " which its time control needs",
                        engine=player.code,
                    )
            except trio.TooSlowError:
                error = EngineStartError(
                    f"failed the startup check: no answer within {timeout:g}s",
                    engine=player.code,
                )
            except EngineStartError as exc:
                error = exc
            except GtpError as exc:
                error = EngineStartError(
                    f"failed the startup check: {exc.message}", engine=player.code
                )
            finally:
                await session.close()
    if error is not None:
        raise error
    return description


def format_komi(komi: float) -> str:
    """Komi as a GTP float: ``7.5``, ``6``, ``-3.5``."""
    return str(int(komi)) if komi == int(komi) else repr(komi)
