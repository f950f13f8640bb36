"""Integration matches with GNU Go (real processes, real clock)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sgfmill import sgf

from arena.api import run_competition
from arena.competitions.loader import load_control_file
from arena.control.config import CompetitionConfig
from arena.events import RunState
from arena.results import EndReason
from arena.run.ringmaster import RunOptions
from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, iter_journal

pytestmark = pytest.mark.gnugo


def gnugo_ctl(directory: Path, gnugo: str, matchups: str, extra: str = "") -> CompetitionConfig:
    path = directory / "gg.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        "def gnugo(level):\n"
        f"    return Player([{gnugo!r}, '--mode', 'gtp', '--chinese-rules',\n"
        "                   '--capture-all-dead', '--level', str(level)], move_timeout=60)\n"
        "players = {'gnugo-l0': gnugo(0), 'gnugo-l1': gnugo(1),\n"
        f"           'random': Player([{sys.executable!r}, '-m', 'engines.random',\n"
        "                             '--seed', '3'])}\n"
        "board_size = 9\nkomi = 7.5\n" + extra + f"matchups = [{matchups}]\n"
    )
    return load_control_file(path)


async def run(config: CompetitionConfig, parallel: int = 2) -> list[ResultEntry]:
    options = RunOptions(parallel=parallel, keyboard=False, handle_signals=False)
    summary = await run_competition(config, options)
    assert summary.state is RunState.FINISHED, summary.message
    files = CompetitionFiles.for_control_file(config.control_path)
    entries = [e for e in iter_journal(files) if isinstance(e, ResultEntry)]
    for entry in entries:
        assert files.sgf_path(entry.result.game_id).exists()
    return entries


@pytest.mark.parametrize("scorer", ["players", "internal"])
async def test_gnugo_level_0_against_level_1_alternating_in_parallel(
    tmp_path: Path, gnugo: str, scorer: str
) -> None:
    config = gnugo_ctl(
        tmp_path,
        gnugo,
        f"Matchup('gnugo-l0', 'gnugo-l1', alternating=True, number_of_games=2, scorer={scorer!r})",
    )
    entries = await run(config)
    results = sorted((e.result for e in entries), key=lambda r: r.game_id)
    assert [(r.black, r.white) for r in results] == [
        ("gnugo-l0", "gnugo-l1"),
        ("gnugo-l1", "gnugo-l0"),
    ]
    for result in results:
        assert result.end in (EndReason.SCORE, EndReason.RESIGN)
        assert result.winner is not None and result.margin is not None
        assert result.cpu_black is not None and result.cpu_white is not None
    report = CompetitionFiles.for_control_file(config.control_path).report.read_text()
    assert "gnugo-l0 v gnugo-l1 (2/2 games)" in report
    assert "player gnugo-l0: GNU Go:" in report


@pytest.mark.parametrize("style", ["fixed", "free"])
async def test_handicap_games(tmp_path: Path, gnugo: str, style: str) -> None:
    config = gnugo_ctl(
        tmp_path,
        gnugo,
        f"Matchup('gnugo-l0', 'random', handicap=3, handicap_style={style!r}, komi=0.5,"
        " scorer='internal', number_of_games=1)",
    )
    (entry,) = await run(config, parallel=1)
    files = CompetitionFiles.for_control_file(config.control_path)
    game = sgf.Sgf_game.from_bytes(files.sgf_path(entry.result.game_id).read_bytes())
    assert game.get_handicap() == 3
    black_stones, _, _ = game.get_root().get_setup_stones()
    assert len(black_stones) == 3
    if style == "fixed":
        assert black_stones == {(2, 2), (6, 6), (6, 2)}  # C3 G7 C7
    first_move = game.get_main_sequence()[1].get_move()
    assert first_move[0] == "w"


async def test_move_limit_gives_a_void_result(tmp_path: Path, gnugo: str) -> None:
    config = gnugo_ctl(
        tmp_path, gnugo, "Matchup('gnugo-l0', 'gnugo-l1', move_limit=10, number_of_games=1)"
    )
    (entry,) = await run(config, parallel=1)
    assert entry.result.end is EndReason.MOVE_LIMIT and entry.result.sgf_result == "Void"
    assert entry.result.moves == 10


def test_the_console_script_refuses_a_missing_engine_binary(tmp_path: Path, gnugo: str) -> None:
    path = tmp_path / "missing.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        "players = {'gnugo': Player(['" + gnugo + "', '--mode', 'gtp']),\n"
        "           'ghost': Player('ghost-engine-that-does-not-exist --gtp')}\n"
        "board_size = 9\nkomi = 7.5\n"
        "matchups = [Matchup('gnugo', 'ghost', number_of_games=2)]\n"
    )
    done = subprocess.run(["arena", "run", str(path)], capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "startup check failed: player 'ghost': cannot start" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["missing.ctl"]
