"""The cross-entropy and SPSA tuners through ``arena run`` and the library, with real engines.

The engines are the scriptable fake engine as real processes, filling the
board from the corner and resigning at a chosen move: the one that resigns
later wins.  How long a candidate lasts is a function of its parameter, so
its strength is: for the cross-entropy tuner the candidate beats the
opponent when x > 0; for SPSA the engine lasts longest at x = 2.  The odds
of the asserted regions were measured on the real tuner objects with these
outcomes (3,000 cross-entropy runs: final mean at least 0.03; 2,000 SPSA
runs with 2 games in flight: final theta between 1.75 and 2.25).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from arena.api import run_control_file
from arena.competitions.ce_tuner import CeTuner
from arena.competitions.loader import load_control_file
from arena.competitions.spsa_tuner import SpsaTuner
from arena.competitions.tuner_snapshots import CeTunerSnapshot, SpsaTunerSnapshot
from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, iter_journal, read_state
from arena.store.restore import load_competition

FAKE = str(Path(__file__).resolve().parents[1] / "arena" / "fakes" / "fake_engine.py")
ENGINE = f"[sys.executable, {FAKE!r}, '--fill', '--resign-at']"


def ce_ctl(directory: Path, samples: int = 10, generations: int = 4) -> Path:
    path = directory / "cem.ctl"
    path.write_text(
        "competition_type = 'ce_tuner'\n"
        "import sys\n"
        "def lasting(moves):\n"
        f"    return Player({ENGINE} + [str(moves)])\n"
        "players = {'opp': lasting(4)}\n"
        "parameters = [Parameter('x', initial_mean=0.0, initial_variance=1.0,"
        " format='x: %.2f')]\n"
        "def make_candidate(x):\n"
        "    return lasting(max(1, min(12, round(4.5 + 3 * x))))  # wins when x > 0\n"
        "board_size = 9\nkomi = 7.5\nopponent = 'opp'\ncandidate_colour = 'b'\n"
        f"number_of_generations = {generations}\nsamples_per_generation = {samples}\n"
        "batch_size = 1\n"
        "elite_proportion = 0.3\nstep_size = 0.8\n"
    )
    return path


def spsa_ctl(directory: Path, c_end: float = 0.4, iterations: int = 20) -> Path:
    path = directory / "spsa.ctl"
    path.write_text(
        "competition_type = 'spsa_tuner'\n"
        "import sys\n"
        f"parameters = [Parameter('x', start=0.5, min=0, max=4, c_end={c_end}, r_end=0.2,"
        " format='x: %.3f')]\n"
        "def make_candidate(x):\n"
        f"    return Player({ENGINE} + [str(max(1, round(10 - 3 * abs(x - 2))))])\n"
        f"board_size = 9\nkomi = 7.5\nnumber_of_iterations = {iterations}\n"
    )
    return path


def arena(*words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena_cli", *words],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def restored(ctl: Path) -> CeTuner | SpsaTuner:
    config = load_control_file(ctl)
    files = CompetitionFiles.for_control_file(ctl)
    competition = load_competition(config, read_state(files, config.competition_type))
    assert isinstance(competition, (CeTuner, SpsaTuner))
    return competition


def test_cross_entropy_tuning_stops_resumes_and_moves_to_the_winning_region(
    tmp_path: Path,
) -> None:
    ctl = ce_ctl(tmp_path)
    first = arena("run", str(ctl), "-q", "-j", "3", "-g", "14")  # stops inside generation 1
    assert first.returncode == 0, first.stderr
    assert "generation g1 of 4   games played: 14/40" in arena("show", str(ctl)).stdout
    second = arena("run", str(ctl), "-q", "-j", "3")
    assert second.returncode == 0, second.stderr

    files = CompetitionFiles.for_control_file(ctl)
    results = [e.result for e in iter_journal(files) if isinstance(e, ResultEntry)]
    assert sorted(r.game_id for r in results) == sorted(
        f"g{g}#{n}r0" for g in range(4) for n in range(10)
    )
    assert all(r.white == "opp" and r.black == r.game_id[:-2] for r in results)
    sgf = files.sgf_path("g0#3r0").read_text()
    assert "EV[cem g0#3 x: " in sgf

    tuner = restored(ctl)
    snapshot = tuner.snapshot()
    assert isinstance(snapshot, CeTunerSnapshot) and snapshot.complete
    assert snapshot.games_played == 40 and len(snapshot.generations) == 4
    assert snapshot.distribution.means[0] > 0.0  # the winning region
    assert snapshot.distribution.variances[0] < 1.0
    shown = arena("show", str(ctl)).stdout
    assert "all 4 generations played   games played: 40/40" in shown
    assert f"final distribution: x: {snapshot.distribution.means[0]:.2f}" in shown
    history = files.hist.read_text()
    assert all(f"generation g{g}" in history for g in range(4))
    assert history.count("*  x: ") == 4 * 3  # three elite samples a generation


def test_a_changed_sample_count_is_refused_on_resume(tmp_path: Path) -> None:
    ctl = ce_ctl(tmp_path)
    first = arena("run", str(ctl), "-q", "-g", "2")
    assert first.returncode == 0, first.stderr
    ce_ctl(tmp_path, samples=12)
    refused = arena("run", str(ctl), "-q")
    assert refused.returncode == 1
    message = refused.stderr.strip()
    assert "\n" not in message and "Traceback" not in message
    assert "samples_per_generation was 10 in earlier runs, not 12" in message


def test_spsa_tuning_plays_pairs_resumes_and_finds_the_optimum(tmp_path: Path) -> None:
    ctl = spsa_ctl(tmp_path)
    first = arena("run", str(ctl), "-q", "-j", "2", "-g", "9")  # stops inside iteration 5
    assert first.returncode == 0, first.stderr
    second = arena("run", str(ctl), "-q", "-j", "2")
    assert second.returncode == 0, second.stderr

    files = CompetitionFiles.for_control_file(ctl)
    results = [e.result for e in iter_journal(files) if isinstance(e, ResultEntry)]
    assert sorted(r.game_id for r in results) == sorted(
        f"{k:02d}_{g}" for k in range(1, 21) for g in (0, 1)
    )
    for result in results:
        k = int(result.game_id[:2])
        plus_black = result.game_id.endswith("_0")
        assert (result.black, result.white) == (
            (f"#{k}+", f"#{k}-") if plus_black else (f"#{k}-", f"#{k}+")
        )
    tuner = restored(ctl)
    snapshot = tuner.snapshot()
    assert isinstance(snapshot, SpsaTunerSnapshot) and snapshot.complete
    (x,) = snapshot.parameters
    assert 1.5 < x.value < 2.5, x.trajectory
    shown = arena("show", str(ctl)).stdout
    assert "iterations: 20/20   games played: 40/40" in shown
    assert f"x: {x.value:.3f}" in shown and "trajectory (theta after so many iterations)" in shown


def test_a_changed_spsa_parameter_is_refused_on_resume(tmp_path: Path) -> None:
    ctl = spsa_ctl(tmp_path)
    first = arena("run", str(ctl), "-q", "-g", "2")
    assert first.returncode == 0, first.stderr
    spsa_ctl(tmp_path, c_end=0.5)
    refused = arena("run", str(ctl), "-q")
    assert refused.returncode == 1
    message = refused.stderr.strip()
    assert "\n" not in message and "c_end of x was 0.4, now 0.5" in message
    assert len(list(iter_journal(CompetitionFiles.for_control_file(ctl)))) == 2


async def test_both_tuners_through_the_library_with_games_in_parallel(tmp_path: Path) -> None:
    cem = await run_control_file(ce_ctl(tmp_path, samples=6, generations=2), parallel=4)
    assert isinstance(cem, CeTunerSnapshot) and cem.complete and cem.games_played == 12
    assert [g.games for g in cem.generations] == [6, 6]
    assert [c.code for c in cem.candidates] == []  # complete: no generation under way
    spsa = await run_control_file(spsa_ctl(tmp_path, iterations=6), parallel=3)
    assert isinstance(spsa, SpsaTunerSnapshot) and spsa.complete and spsa.games_played == 12
    # Below 2 - c, plus beats minus exactly when delta is +1: theta rises every iteration.
    assert spsa.parameters[0].trajectory == tuple(sorted(spsa.parameters[0].trajectory))
    assert spsa.parameters[0].value > 0.5
    assert not (tmp_path / "cem.journal").exists()  # in memory: nothing written
