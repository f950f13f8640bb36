"""The Monte Carlo tuner through the real arena: runs, stops, resumes, dumps the tree, refuses.

Engines are the scriptable fake engine as real processes: the 'winner'
candidate plays a move and the opponent resigns; the 'loser' candidate
resigns at once.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, iter_journal

FAKE = str(Path(__file__).resolve().parents[1] / "arena" / "fakes" / "fake_engine.py")


def write_ctl(directory: Path, kinds: list[str], split: int, extra: str = "") -> Path:
    fake = [sys.executable, FAKE]
    path = directory / "tune.ctl"
    path.write_text(
        "competition_type = 'mc_tuner'\n"
        f"players = {{'opp': Player({[*fake, '--resign-at', '1', '--name', 'opp']!r})}}\n"
        f"parameters = [Parameter('kind', scale=EXPLICIT({kinds!r}), split={split})]\n"
        "def make_candidate(kind):\n"
        f"    fake = {fake!r}\n"
        "    if kind == 'winner':\n"
        "        return Player(fake + ['--moves', 'E5', '--name', 'winner'])\n"
        "    return Player(fake + ['--resign-at', '1', '--name', kind])\n"
        "board_size = 9\nkomi = 7.5\n"
        "opponent = 'opp'\ncandidate_colour = 'b'\n"
        "number_of_games = 10\n"
        "exploration_coefficient = 0.45\ninitial_visits = 2\ninitial_wins = 1\n"
        "log_tree_to_history_period = 4\n" + extra
    )
    return path


def arena(*words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena_cli", *words],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_tuning_runs_stops_resumes_and_reports_the_winner(tmp_path: Path) -> None:
    ctl = write_ctl(tmp_path, ["loser", "winner"], 2)
    first = arena("run", str(ctl), "-q", "-j", "2", "-g", "5")
    assert first.returncode == 0, first.stderr
    files = CompetitionFiles.for_control_file(ctl)
    assert len(list(iter_journal(files))) == 5
    second = arena("run", str(ctl), "-q", "-j", "2")
    assert second.returncode == 0, second.stderr

    results = [e.result for e in iter_journal(files) if isinstance(e, ResultEntry)]
    assert sorted(r.game_id for r in results) == [str(n) for n in range(10)]
    for result in results:
        assert result.white == "opp" and result.black in ("#0", "#1")
        assert (result.winning_player == result.black) == (result.black == "#1")
        sgf = files.sgf_path(result.game_id).read_text()
        assert f"Black {result.black} " in sgf  # the candidate's code in the root comment
        label = "(1) kind: winner" if result.black == "#1" else "(0) kind: loser"
        assert f"EV[tune {label}]" in sgf

    shown = arena("show", str(ctl))
    assert shown.returncode == 0, shown.stderr
    assert "best candidate: (1) kind: winner" in shown.stdout
    assert "games played: 10/10" in shown.stdout
    rows = [line.split() for line in shown.stdout.splitlines() if line.startswith("(")]
    assert [row[0] for row in rows] == ["(1)", "(0)"]  # most games first
    assert int(rows[0][4]) + int(rows[1][4]) == 10

    history = files.hist.read_text()
    assert "tree after 4 games:" in history and "tree after 8 games:" in history
    assert history.count("(1) kind: winner") >= 2


def test_kl_ucb_tuning_reports_the_winner(tmp_path: Path) -> None:
    ctl = write_ctl(tmp_path, ["loser", "winner", "loser2"], 3, "selection_rule = 'kl-ucb'\n")
    done = arena("run", str(ctl), "-q", "-j", "3")
    assert done.returncode == 0, done.stderr
    shown = arena("show", str(ctl)).stdout
    assert "best candidate: (1) kind: winner" in shown
    assert "selection rule: kl-ucb" in shown and "games played: 10/10" in shown


def test_a_changed_parameter_is_refused_on_resume(tmp_path: Path) -> None:
    ctl = write_ctl(tmp_path, ["loser", "winner"], 2)
    first = arena("run", str(ctl), "-q", "-g", "2")
    assert first.returncode == 0, first.stderr
    write_ctl(tmp_path, ["loser", "winner", "other"], 3)
    refused = arena("run", str(ctl), "-q")
    assert refused.returncode == 1
    message = refused.stderr.strip()
    assert "\n" not in message and "Traceback" not in message
    assert "Parameter definitions changed" in message and "split of kind was 2, now 3" in message
    files = CompetitionFiles.for_control_file(ctl)
    assert len(list(iter_journal(files))) == 2


def test_check_starts_the_opponent_and_a_sample_candidate(tmp_path: Path) -> None:
    ctl = write_ctl(tmp_path, ["loser", "winner"], 2)
    checked = arena("check", str(ctl))
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.splitlines() == ["player opp: ok opp:1.0", "player #1: ok winner:1.0"]
