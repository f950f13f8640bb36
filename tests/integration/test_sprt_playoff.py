"""SPRT in a real playoff: the sample engine against the random engine stops once it is sure."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, iter_journal


@pytest.mark.slow  # about 25 games of 300 playouts a move: 30-50 s on 2 busy cores
def test_sprt_ends_a_400_game_matchup_early_for_h1(tmp_path: Path) -> None:
    ctl = tmp_path / "sprt.ctl"
    mcts = [sys.executable, "-m", "engines.mcts", "--playouts", "300", "--seed", "5"]
    random = [sys.executable, "-m", "engines.random", "--seed", "5"]
    ctl.write_text(
        "competition_type = 'playoff'\n"
        "players = {\n"
        f"  'mcts': Player({mcts!r}, allow_claim=True, move_timeout=60),\n"
        f"  'random': Player({random!r}, move_timeout=10),\n"
        "}\n"
        "board_size = 7\nkomi = 7.5\nscorer = 'internal'\nmove_limit = 300\n"
        "reuse_engines = True\n"
        "matchups = [Matchup('mcts', 'random', alternating=True, number_of_games=400,\n"
        "                    sprt=SPRT(elo0=0, elo1=100, alpha=0.05, beta=0.05))]\n"
    )
    run = subprocess.run(
        ["arena", "run", str(ctl), "--parallel", "2"], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "competition complete"
    files = CompetitionFiles.for_control_file(ctl)
    results = [e.result for e in iter_journal(files) if isinstance(e, ResultEntry)]
    # Straight wins decide after 12 colour-swapped pairs; a few losses would take longer.
    assert 24 <= len(results) <= 60
    assert sum(r.winning_player == "mcts" for r in results) >= 0.9 * len(results)
    report = files.report.read_text()
    assert "SPRT (pentanomial) elo0 0 elo1 100 alpha 0.05 beta 0.05: LLR " in report
    decided = next(line for line in report.splitlines() if line.startswith("SPRT "))
    assert decided.endswith(" games") and ", H1 accepted after " in decided
    assert f"mcts v random ({len(results)}/400 games)" in report
