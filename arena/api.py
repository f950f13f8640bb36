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

Games are scheduled like a one-matchup playoff (colours alternate by default,
void games are replayed and the match halts when they repeat, as a run does).
Startup checks run first and raise :class:`gtp.errors.EngineStartError` for an
engine that cannot play.  With ``record_dir`` each game's SGF is written there.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.competitions.playoff import Playoff
from arena.control.config import CompetitionConfig, MatchupConfig, PlayoffSettings
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
from arena.results import GameRecord, GameResult
from arena.run.engines import EngineProvider, StderrRoute, check_player
from arena.run.match import MatchOptions, play_game
from arena.store.files import CompetitionFiles
from arena.store.sgf import write_game_record

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

    player_1: str
    player_2: str
    results: tuple[GameResult, ...]
    void_games: tuple[tuple[str, str], ...]  # (game id, reason)
    records: tuple[GameRecord, ...]
    halted: str | None = None  # why the match stopped early, if it did

    def wins(self, player: str) -> float:
        """Games won by ``player`` (a jigo counts half)."""
        total = 0.0
        for result in self.results:
            if result.is_jigo:
                total += 0.5
            elif result.winning_player == player:
                total += 1
        return total

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
            values[name] = interpret_game_setting(name, value, where.child(f" {name}"))
        return build_game_settings(values, where)
    except ControlFileError as exc:
        raise ValueError(str(exc)) from None


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
    **game_settings: Any,
) -> MatchResult:
    """Play ``games`` games between two engines and return their results.

    ``player_1`` takes Black in even-numbered games (all games unless
    ``alternating``).  Any game setting (``handicap``, ``scorer``,
    ``move_limit``, ``ko_rule``, ...) may be given by keyword; the scorer
    defaults to ``internal`` here.  Raises ValueError for bad settings and
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
    directory = Path(record_dir) if record_dir is not None else Path.cwd()
    matchup = MatchupConfig(
        id="match",
        name=f"{first.code} v {second.code}",
        player_1=first.code,
        player_2=second.code,
        settings=settings,
        alternating=alternating,
        number_of_games=games,
        event="match",
    )
    config = CompetitionConfig(
        control_path=directory / "match.ctl",
        competition_type="playoff",
        players={first.code: first, second.code: second},
        specific=PlayoffSettings((matchup,)),
        reuse_engines=reuse_engines,
        crash_result="forfeit" if crash_result == "forfeit" else "void",
    )
    if check:
        for player in (first, second):
            await check_player(player, settings)
    playoff = Playoff(config)
    files = CompetitionFiles(directory, "match") if record_dir is not None else None
    results: list[GameResult] = []
    voids: list[tuple[str, str]] = []
    records: list[GameRecord] = []
    halted: list[str] = []
    running: set[str] = set()
    changed = [trio.Event()]

    def notify() -> None:
        changed[0].set()
        changed[0] = trio.Event()

    async def slot(number: int) -> None:
        async with trio.open_nursery() as nursery:
            provider = EngineProvider(
                nursery, stderr=stderr, reuse=reuse_engines, slot=number if parallel > 1 else None
            )
            while True:
                job = None if halted else playoff.next_job()
                if job is None:
                    if not running:
                        break
                    await changed[0].wait()
                    continue
                running.add(job.game_id)
                record = await play_game(job, provider, MatchOptions(crash_result=crash_result))
                running.discard(job.game_id)
                records.append(record)
                if files is not None:
                    write_game_record(files, record)
                if record.result is not None:
                    playoff.record_result(record.result, {})
                    results.append(record.result)
                else:
                    reason = record.void_reason or "void"
                    voids.append((job.game_id, reason))
                    if playoff.record_void(job.game_id, job.pairing, live=True):
                        halted.append(f"too many void games (last: {reason})")
                notify()
            await provider.close_all()

    async with trio.open_nursery() as nursery:
        for number in range(parallel):
            nursery.start_soon(slot, number)
    return MatchResult(
        player_1=first.code,
        player_2=second.code,
        results=tuple(sorted(results, key=lambda r: r.game_id)),
        void_games=tuple(voids),
        records=tuple(records),
        halted=halted[0] if halted else None,
    )
