"""Runs of a competition in-process with fake engines: files, replays, halts, stops, events."""

from __future__ import annotations

import io
import json
from functools import partial
from pathlib import Path

import pytest
import trio
from sgfmill import sgf

from arena.api import run_competition
from arena.competitions.loader import load_control_file
from arena.control.config import CompetitionConfig
from arena.events import (
    Event,
    EventBus,
    GameFinished,
    GameStarted,
    MovePlayed,
    RunState,
    RunStateChanged,
)
from arena.output.plain import PlainLines
from arena.run.ringmaster import RunError, RunOptions, RunSummary
from arena.store.files import CompetitionFiles, RunLock
from arena.store.journal import ResultEntry, VoidEntry, iter_journal

from .fakes import fake_command

MOVES_B = "--moves=D4,E4,F4"
MOVES_W = "--moves=D6,E6,F6"


def write_competition(
    directory: Path,
    black: list[str] | None = None,
    white: list[str] | None = None,
    *,
    games: int | None = 4,
    extra: str = "",
    black_command: tuple[str, ...] | None = None,
) -> CompetitionConfig:
    b = black_command or fake_command(MOVES_B, *(black or []))
    w = fake_command(MOVES_W, *(white or []))
    text = (
        "competition_type = 'playoff'\n"
        f"players = {{'a': Player({list(b)!r}), 'b': Player({list(w)!r})}}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        + extra
        + f"matchups = [Matchup('a', 'b', alternating=True, number_of_games={games})]\n"
    )
    path = directory / "comp.ctl"
    path.write_text(text)
    return load_control_file(path)


async def run(
    config: CompetitionConfig,
    *,
    events: list[Event] | None = None,
    quiet: bool = False,
    **options: object,
) -> tuple[RunSummary, str]:
    """Run in-process with the plain lines of ``arena run`` (returned) and every event."""
    out = io.StringIO()
    bus = EventBus()
    bus.subscribe(PlainLines(config.code, quiet=quiet, out=out, err=io.StringIO()))
    if events is not None:
        bus.subscribe(events.append, moves=True)
    run_options = RunOptions(keyboard=False, handle_signals=False, **options)  # type: ignore[arg-type]
    summary = await run_competition(config, run_options, events=bus)
    return summary, out.getvalue()


def results(config: CompetitionConfig) -> list[str]:
    files = CompetitionFiles.for_control_file(config.control_path)
    return [e.result.game_id for e in iter_journal(files) if isinstance(e, ResultEntry)]


async def test_a_run_plays_every_game_and_writes_every_file(tmp_path: Path) -> None:
    config = write_competition(tmp_path)
    summary, out = await run(config, parallel=2)
    assert summary.state is RunState.FINISHED and summary.games_recorded == 4
    assert sorted(results(config)) == ["0_0", "0_1", "0_2", "0_3"]
    files = CompetitionFiles.for_control_file(config.control_path)
    for game_id in ("0_0", "0_1", "0_2", "0_3"):
        game = sgf.Sgf_game.from_bytes(files.sgf_path(game_id).read_bytes())
        assert game.get_root().get("GN") == game_id
        assert game.get_root().get("RE") == "W+7.5"
    status = json.loads(files.status.read_text())
    assert status["journal"]["records"] == 4
    assert len(files.hist.read_text().splitlines()) == 4
    log = files.log.read_text()
    assert "run started (parallel 2)" in log and "run finished: competition complete" in log
    assert "a v b (4/4 games)" in files.report.read_text()
    assert sorted(line for line in out.splitlines() if line.startswith("game ")) == [
        "game 0_0: b beat a W+7.5",
        "game 0_1: a beat b W+7.5",
        "game 0_2: b beat a W+7.5",
        "game 0_3: a beat b W+7.5",
    ]
    assert out.splitlines()[-1] == "competition complete"
    # Running again has nothing to do.
    again, _ = await run(config)
    assert again.games_recorded == 0 and again.message == "competition already complete"


async def test_quiet_prints_nothing(tmp_path: Path) -> None:
    config = write_competition(tmp_path, games=1)
    _, out = await run(config, quiet=True)
    assert out == ""


async def test_a_crashed_game_is_void_and_replayed_with_the_same_id(tmp_path: Path) -> None:
    marker = tmp_path / "crashed"
    config = write_competition(
        tmp_path, ["--crash-at=2", "--crash-in-game=0_2", f"--crash-once={marker}"]
    )
    summary, _ = await run(config)
    assert summary.state is RunState.FINISHED
    assert (summary.games_recorded, summary.void_games) == (4, 1)
    assert sorted(results(config)) == ["0_0", "0_1", "0_2", "0_3"]
    files = CompetitionFiles.for_control_file(config.control_path)
    assert files.void_sgf_path("0_2").exists()  # one move was played before the crash
    voids = [e for e in iter_journal(files) if isinstance(e, VoidEntry)]
    assert [v.game_id for v in voids] == ["0_2"] and "exited with status 3" in voids[0].reason
    assert "void games (replayed): 1" in files.report.read_text()


@pytest.mark.parametrize(
    ("crash_args", "recorded"),
    [
        (["--crash-at=1"], 0),  # the matchup's first game is void
        (["--crash-at=1", "--crash-in-game=0_1"], 1),  # the same game void twice in a row
    ],
)
async def test_void_games_halt_the_run(
    tmp_path: Path, crash_args: list[str], recorded: int
) -> None:
    config = write_competition(tmp_path, crash_args)
    summary, _ = await run(config)
    assert summary.state is RunState.HALTED
    assert "halting competition: too many void games in matchup 0" in summary.message
    assert summary.games_recorded == recorded


async def test_a_missing_engine_fails_the_startup_check_and_nothing_is_recorded(
    tmp_path: Path,
) -> None:
    config = write_competition(tmp_path, black_command=("/no/such/engine", "--gtp"))
    with pytest.raises(RunError, match="startup check failed: player 'a': cannot start"):
        await run(config)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["comp.ctl"]


async def test_a_second_run_is_refused_while_one_holds_the_lock(tmp_path: Path) -> None:
    config = write_competition(tmp_path, games=1)
    files = CompetitionFiles.for_control_file(config.control_path)
    with RunLock(files.lock), pytest.raises(RunError, match="already running"):
        await run(config)


async def test_max_games_and_resume(tmp_path: Path) -> None:
    config = write_competition(tmp_path, games=5)
    first, _ = await run(config, max_games=2)
    assert first.state is RunState.FINISHED and first.games_recorded == 2
    second, _ = await run(config, parallel=2)
    assert second.games_recorded == 3
    assert sorted(results(config)) == ["0_0", "0_1", "0_2", "0_3", "0_4"]


async def test_stop_file_finishes_games_in_progress(tmp_path: Path) -> None:
    config = write_competition(tmp_path, games=None)
    files = CompetitionFiles.for_control_file(config.control_path)
    summary: list[RunSummary] = []

    async def runner() -> None:
        summary.append((await run(config, parallel=2))[0])

    async with trio.open_nursery() as nursery:
        nursery.start_soon(runner)
        while not files.journal.exists():
            await trio.sleep(0.05)
        files.cmd.write_text("stop\n")
    assert summary[0].state is RunState.STOPPED
    assert summary[0].message == "stop requested (arena stop)"
    recorded = results(config)
    assert len(recorded) == len(set(recorded)) >= 1
    assert all(files.sgf_path(game_id).exists() for game_id in recorded)
    assert not files.cmd.exists()


class MovesSeen(list[Event]):
    """The events of a run; ``ready`` is set once every game in ``games`` has played a move."""

    def __init__(self, games: set[str]) -> None:
        super().__init__()
        self.waiting = set(games)
        self.ready = trio.Event()

    def append(self, event: Event) -> None:
        super().append(event)
        if isinstance(event, MovePlayed):
            self.waiting.discard(event.game_id)
            if not self.waiting:
                self.ready.set()


async def test_cancelled_games_are_replayed_on_the_next_run(tmp_path: Path) -> None:
    config = write_competition(tmp_path, ["--hang-at=2"], games=2, extra="")
    events = MovesSeen({"0_0", "0_1"})
    async with trio.open_nursery() as nursery:
        nursery.start_soon(partial(run, config, parallel=2, events=events))
        # Cancelled with both games under way (they hang at a's second move).
        with trio.fail_after(60):
            await events.ready.wait()
        nursery.cancel_scope.cancel()
    assert results(config) == []
    fixed = write_competition(tmp_path, games=2)
    summary, _ = await run(fixed, parallel=2)
    assert sorted(results(fixed)) == ["0_0", "0_1"] and summary.games_recorded == 2


async def test_events_describe_the_run(tmp_path: Path) -> None:
    config = write_competition(tmp_path, games=2)
    events: list[Event] = []
    await run(config, events=events)
    states = [e.state for e in events if isinstance(e, RunStateChanged)]
    assert states == [RunState.CHECKING, RunState.RUNNING, RunState.FINISHED]
    started = [e.game_id for e in events if isinstance(e, GameStarted)]
    finished = [e for e in events if isinstance(e, GameFinished)]
    assert started == ["0_0", "0_1"]
    assert [e.game_id for e in finished] == ["0_0", "0_1"]
    assert finished[-1].snapshot.games_played == 2
    # Move events are rate-limited per game: the first move is always reported,
    # later ones in order, never beyond the game's 8 moves.
    moves = [e.moves_played for e in events if isinstance(e, MovePlayed) and e.game_id == "0_0"]
    assert moves[0] == 1
    assert moves == sorted(set(moves))
    assert moves[-1] <= 8


async def test_engines_see_game_id_and_slot(tmp_path: Path) -> None:
    env_file = tmp_path / "env"
    config = write_competition(tmp_path, [f"--env-file={env_file}"], games=4)
    await run(config, parallel=2)
    lines = [" ".join(line.split()[:2]) for line in env_file.read_text().splitlines()]
    assert lines[0] == "startup-check -"
    games = sorted(lines[1:])
    assert [line.split()[0] for line in games] == ["0_0", "0_1", "0_2", "0_3"]
    assert {line.split()[1] for line in games} <= {"0", "1"}


async def test_reuse_engines_keeps_the_processes(tmp_path: Path) -> None:
    env_file = tmp_path / "env"
    config = write_competition(
        tmp_path, [f"--env-file={env_file}"], games=4, extra="reuse_engines = True\n"
    )
    summary, _ = await run(config)
    assert summary.games_recorded == 4
    lines = [" ".join(line.split()[:2]) for line in env_file.read_text().splitlines()]
    assert lines == ["startup-check -", "0_0 -"]


async def test_engine_stderr_goes_to_the_log_bounded(tmp_path: Path) -> None:
    config = write_competition(tmp_path, ["--stderr-per-move=300000"], games=1)
    summary, _ = await run(config)
    assert summary.games_recorded == 1
    log = CompetitionFiles.for_control_file(config.control_path).log
    assert 10_000 < log.stat().st_size < 100_000
    assert "0_0 a stderr: xxxx" in log.read_text()


async def test_log_gtp_writes_one_file_per_game(tmp_path: Path) -> None:
    config = write_competition(tmp_path, games=2)
    await run(config, log_gtp=True)
    logs = CompetitionFiles.for_control_file(config.control_path).gtplogs_dir
    assert sorted(p.name for p in logs.iterdir()) == ["0_0.log", "0_1.log"]
    first = (logs / "0_0.log").read_text().splitlines()
    assert first[0] == "a (black) >> 1 list_commands"


async def test_discard_stderr_keeps_it_out_of_the_log(tmp_path: Path) -> None:
    config = write_competition(tmp_path, ["--stderr-per-move=3000"], games=1)
    text = config.control_path.read_text().replace(
        "'--stderr-per-move=3000'])", "'--stderr-per-move=3000'], discard_stderr=True)"
    )
    config.control_path.write_text(text)
    summary, _ = await run(load_control_file(config.control_path))
    assert summary.games_recorded == 1
    log = CompetitionFiles.for_control_file(config.control_path).log.read_text()
    assert "stderr" not in log


async def test_record_games_false_writes_no_sgf(tmp_path: Path) -> None:
    config = write_competition(tmp_path, games=2, extra="record_games = False\n")
    summary, _ = await run(config)
    assert summary.games_recorded == 2
    assert not CompetitionFiles.for_control_file(config.control_path).games_dir.exists()
