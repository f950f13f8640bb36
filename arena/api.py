"""The library API: ``await play_match(...)`` plays games between two engines, no files needed.

Example (inside a trio program or a pytest-trio test)::

    from arena.api import engine, play_match

    result = await play_match(
        engine([sys.executable, "-m", "engines.random", "--seed", "1"], code="random"),
        engine("gnugo --mode gtp --level 0", code="gnugo", move_timeout=30),
        games=4,
        board_size=9,
        komi=7.5,
    )
    print(result.wins("gnugo"), result.results[0].sgf_result)

The match is a one-matchup playoff played by the same run loop as ``arena
run`` (colours alternate by default, void games are replayed and the match
halts when they repeat).  Startup checks run first and raise
:class:`gtp.errors.EngineStartError` for an engine that cannot play (its
message names the engine and its command).  With
``record_dir`` the match is recorded there as a competition (SGF files,
journal, logs) exactly as ``arena run`` records one.

:func:`run_control_file` runs any control file's competition (a playoff, a
tournament, any of the tuners) through the same loop, in memory, and returns
its final snapshot, e.g. ``(await run_control_file("tune.ctl",
parallel=4)).distribution`` for a cross-entropy tuner.

:func:`run_competition` runs a competition on disk, next to its control file,
recorded as ``arena run`` records it (the command line calls it, with the
dashboard or plain lines subscribed): the state, the SGF files, ``X.log``,
``X.hist`` and ``X.events`` (opened once the startup checks have passed),
``X.gtplogs/`` with ``log_gtp``, and ``X.report`` as the run ends.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.competitions.base import Competition
from arena.competitions.loader import load_control_file
from arena.competitions.snapshots import CompetitionSnapshot
from arena.control.config import CompetitionConfig, MatchupConfig, PlayoffSettings
from arena.control.openings import OpeningBook, check_book, parse_openings
from arena.control.settings import (
    GAME_SETTINGS,
    GameSettings,
    PlayerConfig,
    Where,
    build_game_settings,
    interpret_game_setting,
    parse_player,
    token_factory,
)
from arena.errors import ControlFileError
from arena.events import Event, EventBus, GameFinished, RunState, RunStateChanged, SnapshotTaken
from arena.output.files import GtpLogs, RunFiles
from arena.reports.text import competition_report
from arena.results import GameRecord, GameResult
from arena.run.engines import StderrRoute
from arena.run.executor import Executor, LocalExecutor
from arena.run.ringmaster import Ringmaster, RunOptions, RunSummary, StartupCheckFailed
from arena.store.files import CompetitionFiles
from gtp.errors import EngineStartError

PlayerSpec = PlayerConfig | str | Sequence[str]


def engine(command: str | Sequence[str], *, code: str = "engine", **settings: Any) -> PlayerConfig:
    """A player from a command and any ``Player`` setting (``move_timeout=...``).

    Raises ValueError for a bad setting.
    """
    words = command if isinstance(command, str) else list(command)
    token = token_factory("Player", "<api>")(words, **settings)
    try:
        return parse_player(code, token, Where(Path("<api>"), f"engine {code!r}"), Path.cwd())
    except ControlFileError as exc:
        raise ValueError(str(exc)) from None


@attrs.frozen
class MatchResult:
    """What a match produced: counted results, void games, and every game record."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    player_1: str
    player_2: str
    results: tuple[GameResult, ...]
    void_games: tuple[tuple[str, str], ...]  # (game id, reason)
    records: tuple[GameRecord, ...]
    halted: str | None = None  # why the match stopped early, if it did

    def wins(self, player: str) -> int | float:
        """Games won by ``player``: an int, or a float ending in .5 when jigos count half."""
        total = 0.0
        for result in self.results:
            if result.is_jigo:
                total += 0.5
            elif result.winning_player == player:
                total += 1
        return int(total) if total.is_integer() else total

    @property
    def games(self) -> int:
        return len(self.results)


def _player(spec: PlayerSpec, code: str) -> PlayerConfig:
    if isinstance(spec, PlayerConfig):
        return spec
    return engine(spec, code=code)


def _settings(board_size: int, komi: float, extra: dict[str, Any]) -> GameSettings:
    values: dict[str, object] = {}
    where = Where(Path("<api>"), "play_match")
    try:
        for name, value in {"board_size": board_size, "komi": komi, **extra}.items():
            if name not in GAME_SETTINGS:
                raise ValueError(f"play_match: unknown game setting {name!r}")
            if value is None and name == "handicap":
                continue
            if name == "referee" and isinstance(value, PlayerConfig):
                # The library takes the referee engine itself (no players dict to look in).
                values["referee"], values["referee_player"] = value.code, value
                continue
            values[name] = interpret_game_setting(name, value, where.child(f" {name}"))
        return build_game_settings(values, where)
    except ControlFileError as exc:
        raise ValueError(str(exc)) from None


def _openings(
    value: str | os.PathLike[str] | OpeningBook | None, settings: GameSettings, alternating: bool
) -> OpeningBook | None:
    if value is None:
        return None
    where = Where(Path("<api>"), "play_match openings")
    try:
        book = parse_openings(
            os.fspath(value) if isinstance(value, os.PathLike) else value, where, Path.cwd()
        )
        if book is not None:
            check_book(book, settings, where)
    except ControlFileError as exc:
        raise ValueError(str(exc)) from None
    if book is not None and not alternating:
        raise ValueError("play_match: openings are played in colour-swapped pairs (alternating)")
    return book


def _naming_the_command(error: EngineStartError, player: PlayerConfig) -> EngineStartError:
    """The startup failure, naming the engine's command when the message does not yet."""
    command = shlex.join(player.command)
    if command in error.message or " ".join(player.command) in error.message:
        return error
    return EngineStartError(f"{error.message} (command: {command})", engine=error.engine)


def _free_code(directory: Path) -> str:
    """``match``, or ``match-2``, ``match-3``... if an earlier match used that directory."""
    number = 1
    while True:
        code = "match" if number == 1 else f"match-{number}"
        files = CompetitionFiles(directory, code)
        if not any(path.exists() for path in files.outputs()):
            return code
        number += 1


_RUN_ENDS: Final = frozenset({RunState.FINISHED, RunState.STOPPED, RunState.HALTED})


@attrs.define
class _RunRecord:
    """Subscriber: the run's files beside its state (see :func:`run_competition`).

    ``X.log``, ``X.hist`` and ``X.events`` are opened at the first event after
    the startup checks (a run whose checks fail leaves none); ``X.report`` is
    written as the run's last event comes, before anyone else hears of it.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq

    files: CompetitionFiles
    competition: Competition
    _run_files: RunFiles | None = None

    def __call__(self, event: Event) -> None:
        if self._run_files is None:
            match event:
                case SnapshotTaken() | RunStateChanged(state=RunState.CHECKING):
                    return
                case _:
                    self._run_files = RunFiles(self.files)
        match event:
            case RunStateChanged(state=state) if state in _RUN_ENDS:
                report = competition_report(self.competition.snapshot())
                self.files.report.write_text(report, encoding="utf-8")
            case _:
                pass
        self._run_files(event)

    def close(self) -> None:
        if self._run_files is not None:
            self._run_files.close()


async def _recorded_run(
    config: CompetitionConfig,
    options: RunOptions,
    files: CompetitionFiles,
    events: EventBus,
    executor: Executor | None,
) -> RunSummary:
    """The run loop on ``files``, its files subscribed first, then ``events``."""
    bus = EventBus()
    ringmaster = Ringmaster(
        config,
        options,
        bus,
        files,
        executor,
        gtp_logs=GtpLogs(files) if options.log_gtp else None,
    )
    record = _RunRecord(files, ringmaster.competition)
    bus.subscribe(record, moves=True)  # a few moves go to X.events
    bus.subscribe(events.emit, moves=True)  # the caller's bus keeps its moves to itself
    try:
        return await ringmaster.run()
    finally:
        record.close()


async def run_competition(
    config: CompetitionConfig,
    options: RunOptions | None = None,
    *,
    events: EventBus | None = None,
    executor: Executor | None = None,
) -> RunSummary:
    """Run a competition once on disk, next to its control file, as ``arena run`` does.

    The run loop (:class:`arena.run.ringmaster.Ringmaster`) with the
    competition's files, and the run recorded beside them (module docstring);
    ``events`` gets every event.  Raises :class:`arena.errors.RunError` (the
    lock, the state, failed startup checks, the disk).
    """
    files = CompetitionFiles.for_control_file(config.control_path)
    return await _recorded_run(
        config, options or RunOptions(), files, events or EventBus(), executor
    )


@attrs.define
class _Collector:
    """Subscriber: the finished games of a match, as the library returns them."""

    __repr__ = fields_repr
    __eq__ = fields_eq

    results: list[GameResult] = attrs.Factory(list)
    voids: list[tuple[str, str]] = attrs.Factory(list)
    records: list[GameRecord] = attrs.Factory(list)

    def __call__(self, event: Event) -> None:
        match event:
            case GameFinished(record=record, result=result):
                if record is not None:
                    self.records.append(record)
                if result is None:
                    self.voids.append((event.game_id, event.void_reason or "void"))
                elif event.counted:
                    self.results.append(result)
            case _:
                pass  # the match returns only its games


async def play_match(
    player_1: PlayerSpec,
    player_2: PlayerSpec,
    *,
    games: int = 2,
    board_size: int = 9,
    komi: float = 7.5,
    alternating: bool = True,
    parallel: int = 1,
    reuse_engines: bool = False,
    crash_result: str = "void",
    check: bool = True,
    record_dir: str | os.PathLike[str] | None = None,
    stderr: StderrRoute = "discard",
    max_games: int | None = None,
    openings: str | os.PathLike[str] | OpeningBook | None = None,
    **game_settings: Any,
) -> MatchResult:
    """Play ``games`` games between two engines and return their results.

    ``player_1`` takes Black in even-numbered games (all games unless
    ``alternating``).  Any game setting (``handicap``, ``scorer``,
    ``move_limit``, ``ko_rule``, ...) may be given by keyword; the scorer
    defaults to ``internal`` here.  The games are played by the same run loop
    as ``arena run`` (:class:`arena.run.ringmaster.Ringmaster`): in memory, or
    with ``record_dir`` as a competition there (``match.journal``,
    ``match.games/*.sgf``, ``match.log``...; ``match-2`` and so on when the
    directory already holds one).  Raises ValueError for bad settings and
    EngineStartError when an engine fails its startup check.
    """
    game_settings.setdefault("scorer", "internal")
    settings = _settings(board_size, komi, game_settings)
    first = _player(player_1, "player_1")
    second = _player(player_2, "player_2")
    if first.code == second.code:
        second = attrs.evolve(second, code=second.code + "_2")
    if games < 0 or parallel < 1:
        raise ValueError("games must be >= 0 and parallel >= 1")
    book = _openings(openings, settings, alternating)
    directory = Path(record_dir) if record_dir is not None else Path.cwd()
    code = "match"
    if record_dir is not None:
        directory.mkdir(parents=True, exist_ok=True)
        code = _free_code(directory)
    matchup = MatchupConfig(
        id="match",
        name=f"{first.code} v {second.code}",
        player_1=first.code,
        player_2=second.code,
        settings=settings,
        alternating=alternating,
        number_of_games=games,
        event="match",
        openings=book,
    )
    config = CompetitionConfig(
        control_path=directory / f"{code}.ctl",
        competition_type="playoff",
        players={first.code: first, second.code: second},
        specific=PlayoffSettings((matchup,)),
        reuse_engines=reuse_engines,
        crash_result="forfeit" if crash_result == "forfeit" else "void",
        skip_player_checks=not check,
    )
    collector = _Collector()
    events = EventBus()
    events.subscribe(collector)
    options = RunOptions(
        parallel=parallel, max_games=max_games, keyboard=False, handle_signals=False
    )
    executor = LocalExecutor(
        stderr=stderr, reuse_engines=reuse_engines, numbered_slots=parallel > 1
    )
    try:
        if record_dir is not None:
            files = CompetitionFiles(directory, code)
            summary = await _recorded_run(config, options, files, events, executor)
        else:
            summary = await Ringmaster(config, options, events, executor=executor).run()
    except StartupCheckFailed as exc:
        code, error = exc.failures[0]
        raise _naming_the_command(error, config.players[code]) from None
    return MatchResult(
        player_1=first.code,
        player_2=second.code,
        results=tuple(sorted(collector.results, key=lambda r: r.game_id)),
        void_games=tuple(collector.voids),
        records=tuple(collector.records),
        halted=summary.message if summary.state is RunState.HALTED else None,
    )


async def run_control_file(
    control_file: str | os.PathLike[str] | CompetitionConfig,
    *,
    parallel: int = 1,
    max_games: int | None = None,
    stderr: StderrRoute = "discard",
) -> CompetitionSnapshot:
    """Play a control file's competition in memory (nothing is written) and return its snapshot.

    The games are played by the run loop ``arena run`` uses, ``parallel`` at a
    time, each competition choosing its games as it does there (a tuner's
    next candidates, an SPSA tuner's iterations in flight).  Raises
    :class:`arena.errors.ControlFileError` for a bad control file and
    EngineStartError when a player fails its startup check.
    """
    if parallel < 1:
        raise ValueError("parallel must be >= 1")
    config = (
        control_file
        if isinstance(control_file, CompetitionConfig)
        else load_control_file(control_file)
    )
    ringmaster = Ringmaster(
        config,
        RunOptions(parallel=parallel, max_games=max_games, keyboard=False, handle_signals=False),
        EventBus(),
        files=None,
        executor=LocalExecutor(
            stderr=stderr, reuse_engines=config.reuse_engines, numbered_slots=parallel > 1
        ),
    )
    try:
        await ringmaster.run()
    except StartupCheckFailed as exc:
        raise exc.failures[0][1] from None
    return ringmaster.competition.snapshot()
