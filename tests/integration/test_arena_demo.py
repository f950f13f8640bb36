"""The README's main command: the sample MCTS engine against the random engine."""

from __future__ import annotations

import subprocess
from pathlib import Path

from arena.results import EndReason
from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, iter_journal

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.ctl"


def test_demo_competition_runs_with_two_slots(tmp_path: Path) -> None:
    ctl = tmp_path / "demo.ctl"
    ctl.write_text(DEMO.read_text().replace("number_of_games=10", "number_of_games=2"))
    done = subprocess.run(
        ["arena", "run", str(ctl), "-j", "2"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "competition complete"
    files = CompetitionFiles.for_control_file(ctl)
    results = [e.result for e in iter_journal(files) if isinstance(e, ResultEntry)]
    assert sorted((r.game_id, r.black, r.white) for r in results) == [
        ("0_0", "mcts", "random"),
        ("0_1", "random", "mcts"),
    ]
    for result in results:
        assert result.winning_player == "mcts"
        assert result.end in (EndReason.CLAIM, EndReason.SCORE, EndReason.RESIGN)
        assert files.sgf_path(result.game_id).exists()
    shown = subprocess.run(["arena", "show", str(ctl)], capture_output=True, text=True, check=True)
    assert "mcts v random (2/2 games)" in shown.stdout
    assert "player mcts: arena-mcts" in shown.stdout
