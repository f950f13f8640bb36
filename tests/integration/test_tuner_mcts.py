"""Tuning the sample engine's playouts against a fixed opponent finds the strongest setting."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.competitions.loader import load_control_file
from arena.competitions.mc_tuner import McTuner
from arena.store.files import CompetitionFiles
from arena.store.journal import read_state
from arena.store.restore import load_competition


@pytest.mark.slow  # 16 games on 7x7, most of them at 400 playouts: 30-70 s on 2 busy cores
def test_tuning_playouts_reports_400_as_best(tmp_path: Path) -> None:
    # On 7x7 with komi 7.5, Black at 400 playouts beats the 100-playout White in 20 of 20
    # trial games (29 of 30 before), at 25 playouts in 1 of 30 and at 10 in 0 of 20.  The
    # tuner driven with odds worse than those (0.05, 0.15, 0.9) reports 400 in 99.8% of
    # 10,000 simulated runs of 16 games.  A middle candidate at 100 playouts (the
    # opponent's own strength, 10 of 20 as Black) made it miss in 2.8% of runs, and it did
    # in CI.
    # plain UCT, the configuration these odds were measured with
    mcts = [
        sys.executable,
        "-m",
        "engines.mcts",
        "--rave",
        "off",
        "--priors",
        "none",
        "--ownership-playouts",
        "50",
        "--playouts",
    ]
    ctl = tmp_path / "playouts.ctl"
    ctl.write_text(
        "competition_type = 'mc_tuner'\n"
        "def mcts(playouts):\n"
        f"    return Player({mcts!r} + [str(playouts)], allow_claim=True)\n"
        "players = {'fixed': mcts(100)}\n"
        "parameters = [Parameter('playouts', scale=EXPLICIT([10, 25, 400]), split=3,"
        " format='playouts: %d')]\n"
        "def make_candidate(playouts):\n"
        "    return mcts(playouts)\n"
        "board_size = 7\nkomi = 7.5\n"
        "opponent = 'fixed'\ncandidate_colour = 'b'\n"
        "number_of_games = 16\n"
        "exploration_coefficient = 0.45\ninitial_visits = 2\ninitial_wins = 1\n"
        "reuse_engines = True\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "arena_cli", "run", str(ctl), "-q", "-j", "2"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    config = load_control_file(ctl)
    files = CompetitionFiles.for_control_file(ctl)
    tuner = load_competition(config, read_state(files, config.competition_type))
    assert isinstance(tuner, McTuner)
    snapshot = tuner.snapshot()
    assert snapshot.games_played == 16
    assert snapshot.best is not None
    games = {c.parameters: (c.games_won, c.games) for c in snapshot.candidates}
    history = (tmp_path / "playouts.hist").read_text()
    assert snapshot.best.parameters == ("playouts: 400",), (games, history)
