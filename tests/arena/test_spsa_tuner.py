"""The SPSA tuner: gains, perturbations and updates within bounds, pairs, state, errors."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.competitions.loader import load_control_file
from arena.competitions.spsa_tuner import SpsaTuner
from arena.control.spsa_tuner import spsa_settings
from arena.errors import ControlFileError, StateError
from arena.reports.notes import note_lines
from arena.reports.text import competition_report
from arena.results import EndReason, GameJob, GameResult
from arena.tuning.spsa import (
    Axis,
    Schedule,
    pair_result,
    perturbation,
    perturbed,
    update,
)
from gtp.vertex import Colour

SETTINGS: dict[str, str] = {
    "parameters": "[Parameter('x', start=1.0, min=0, max=4, c_end=0.5, r_end=0.1,"
    " format='x: %.3f'), Parameter('y', start=-2.0, min=-3, max=3, c_end=0.25, r_end=0.4)]",
    "board_size": "9",
    "komi": "7.5",
    "number_of_iterations": "10",
}
MAKE_CANDIDATE = (
    "def make_candidate(*values):\n    return Player(['cand'] + [repr(v) for v in values])\n"
)


def spsa_ctl(tmp_path: Path, **changes: str | None) -> Path:
    settings = {**SETTINGS, **changes}
    lines = ["competition_type = 'spsa_tuner'", MAKE_CANDIDATE]
    lines += [f"{key} = {value}" for key, value in settings.items() if value is not None]
    path = tmp_path / "spsa.ctl"
    path.write_text("\n".join(lines) + "\n")
    return path


def make_tuner(tmp_path: Path, seed: int = 3, **changes: str | None) -> SpsaTuner:
    return SpsaTuner(load_control_file(spsa_ctl(tmp_path, **changes)), seed=seed)


def values(job: GameJob, colour: Colour) -> tuple[float, ...]:
    return tuple(float(v) for v in job.player(colour).command[1:])


def finish(tuner: SpsaTuner, job: GameJob, winner: Colour | None) -> bool:
    end = EndReason.SCORE if winner is None else EndReason.RESIGN
    return tuner.record_result(
        GameResult(job.game_id, job.black.code, job.white.code, winner, end), {}
    )


def plus_wins(job: GameJob) -> Colour:
    return Colour.BLACK if job.black.code.endswith("+") else Colour.WHITE


def play_serially(
    tuner: SpsaTuner, winner: Callable[[GameJob], Colour | None], games: int | None = None
) -> int:
    played = 0
    while games is None or played < games:
        job = tuner.next_job()
        if job is None:
            break
        assert finish(tuner, job, winner(job))
        played += 1
    return played


# ---------------------------------------------------------------------------
# The arithmetic

AXIS = Axis(minimum=0.0, maximum=10.0, c_end=2.0, r_end=0.002)


@pytest.mark.parametrize(
    ("schedule", "k", "c", "a"),
    [
        # At the last iteration the gains are the stated ends: c_N = c_end, a_N/c_N^2 = r_end.
        (Schedule(100, 10.0), 100, 2.0, 0.002 * 4),
        # c = c_end * N^gamma, a = r_end * c_end^2 * (A + N)^alpha.
        (Schedule(100, 10.0), 1, 2.0 * 100**0.101, 0.008 * (110 / 11) ** 0.602),
        (Schedule(100, 0.0, alpha=1.0, gamma=0.5), 25, 2.0 * 2.0, 0.008 * 4.0),
        (Schedule(1, 0.0), 1, 2.0, 0.008),
    ],
)
def test_gain_schedules(schedule: Schedule, k: int, c: float, a: float) -> None:
    assert schedule.c(AXIS, k) == pytest.approx(c)
    assert schedule.a(AXIS, k) == pytest.approx(a)
    assert schedule.r(AXIS, k) == pytest.approx(a / c**2)


@pytest.mark.parametrize(
    ("scores", "result"),
    [((1, 1), 2.0), ((1, 0), 0.0), ((0, 0), -2.0), ((0.5, 1), 1.0), ((0.5, 0.5), 0.0)],
)
def test_pair_result_is_the_plus_sides_points_minus_the_minus_sides(
    scores: tuple[float, float], result: float
) -> None:
    assert pair_result(scores) == result


@pytest.mark.parametrize(
    ("theta", "delta", "result", "expected"),
    [
        # step = a_k / c_k * result * delta; with N = k = 1, A = 0: a/c = r_end * c_end = 0.004
        ((5.0, 5.0), (1, -1), 2.0, (5.008, 4.992)),
        ((5.0, 5.0), (-1, 1), 1.0, (4.996, 5.004)),
        ((5.0, 5.0), (1, 1), 0.0, (5.0, 5.0)),
        # clipped to [min, max]
        ((9.999, 0.001), (1, -1), 2.0, (10.0, 0.0)),
        ((0.0, 10.0), (1, -1), -2.0, (0.0, 10.0)),
    ],
)
def test_update_steps_along_delta_and_stays_within_bounds(
    theta: tuple[float, float],
    delta: tuple[int, int],
    result: float,
    expected: tuple[float, float],
) -> None:
    new = update(theta, delta, 1, result, (AXIS, AXIS), Schedule(1, 0.0))
    assert new == pytest.approx(expected)


@pytest.mark.parametrize(
    ("theta", "delta", "plus", "minus"),
    [
        ((5.0, 5.0), (1, -1), (7.0, 3.0), (3.0, 7.0)),
        ((9.0, 1.0), (1, 1), (10.0, 3.0), (7.0, 0.0)),  # each side clipped on its own
        ((0.0, 10.0), (-1, 1), (0.0, 10.0), (2.0, 8.0)),
    ],
)
def test_perturbed_candidates_are_clipped_to_the_bounds(
    theta: tuple[float, float],
    delta: tuple[int, int],
    plus: tuple[float, float],
    minus: tuple[float, float],
) -> None:
    got_plus, got_minus = perturbed(theta, delta, 1, (AXIS, AXIS), Schedule(1, 0.0))
    assert got_plus == pytest.approx(plus) and got_minus == pytest.approx(minus)


def test_perturbation_signs_are_fixed_by_seed_and_iteration_and_balanced() -> None:
    assert perturbation(5, 17, 3) == perturbation(5, 17, 3)
    signs = [s for k in range(1, 2001) for s in perturbation(5, k, 2)]
    assert set(signs) == {-1, 1} and abs(sum(signs)) < 200


# ---------------------------------------------------------------------------
# Settings and errors


def test_defaults_follow_the_usual_practice(tmp_path: Path) -> None:
    settings = spsa_settings(load_control_file(spsa_ctl(tmp_path)))
    schedule = settings.schedule
    assert (schedule.iterations, schedule.a_constant) == (10, 1.0)  # A: 10% of N
    assert (schedule.alpha, schedule.gamma) == (0.602, 0.101)
    assert [p.code for p in settings.parameters] == ["x", "y"]
    assert settings.parameters[1].format == "y: %s"


def _error(tmp_path: Path, **changes: str | None) -> str:
    with pytest.raises(ControlFileError) as caught:
        load_control_file(spsa_ctl(tmp_path, **changes))
    return str(caught.value)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"number_of_iterations": None}, "number_of_iterations: not set"),
        ({"number_of_iterations": "0"}, ":8: number_of_iterations: must be a positive integer"),
        ({"A": "-1"}, "A: must not be negative"),
        ({"alpha": "0"}, "alpha: must be positive"),
        ({"gamma": "'x'"}, "gamma: expected a number"),
        ({"opponent": "'x'"}, "opponent: not used by the SPSA tuner"),
        ({"candidate_colour": "'b'"}, "candidate_colour: not used by the SPSA tuner"),
        (
            {"parameters": "[Parameter('x', start=1, min=2, max=1, c_end=1, r_end=1)]"},
            "parameter x: min (2) must be below max (1)",
        ),
        (
            {"parameters": "[Parameter('x', start=5, min=0, max=1, c_end=1, r_end=1)]"},
            "parameter x: start (5) must be between min and max",
        ),
        (
            {"parameters": "[Parameter('x', start=0, min=0, max=1, c_end=0, r_end=1)]"},
            "parameter x: c_end must be positive",
        ),
        ({"parameters": "[Parameter('x', start=0, min=0, max=1)]"}, "Parameter needs c_end"),
        (
            {"parameters": "[Parameter('x', start=0, min=0, max=1, c_end=1, r_end=1, split=2)]"},
            "unknown Parameter argument 'split'",
        ),
        ({"board_size": None}, "board_size: not set"),
    ],
)
def test_control_file_errors_name_the_file_and_setting(
    tmp_path: Path, changes: dict[str, str | None], expected: str
) -> None:
    message = _error(tmp_path, **changes)
    assert message.startswith(str(tmp_path / "spsa.ctl") + ":")
    assert expected in message and "\n" not in message


# ---------------------------------------------------------------------------
# Iterations


def test_an_iteration_is_a_colour_swapped_pair_of_plus_against_minus(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path)
    first, second = tuner.next_job(), tuner.next_job()
    assert first is not None and second is not None
    assert (first.game_id, second.game_id) == ("01_0", "01_1")
    assert (first.black.code, first.white.code) == ("#1+", "#1-")
    assert (second.black.code, second.white.code) == ("#1-", "#1+")
    settings = tuner.settings
    delta = perturbation(3, 1, 2)
    c = [settings.schedule.c(p.axis, 1) for p in settings.parameters]
    step = (c[0] * delta[0], c[1] * delta[1])
    assert values(first, Colour.BLACK) == pytest.approx((1.0 + step[0], -2 + step[1]))
    assert values(first, Colour.WHITE) == pytest.approx((1.0 - step[0], -2 - step[1]))
    assert values(second, Colour.WHITE) == values(first, Colour.BLACK)
    third = tuner.next_job()  # several iterations in flight at once
    assert third is not None and third.game_id == "02_0"


def test_theta_moves_when_both_games_of_an_iteration_are_in(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path)
    first, second = tuner.next_job(), tuner.next_job()
    assert first is not None and second is not None
    assert finish(tuner, first, plus_wins(first))
    assert tuner.theta == (1.0, -2.0) and tuner.snapshot().iterations_done == 0
    assert finish(tuner, second, plus_wins(second))
    settings = tuner.settings
    delta = perturbation(3, 1, 2)
    expected = update((1.0, -2.0), delta, 1, 2.0, settings.axes, settings.schedule)
    assert tuner.theta == expected
    snapshot = tuner.snapshot()
    assert snapshot.iterations_done == 1 and snapshot.trajectory_iterations == (0, 1)
    assert snapshot.parameters[0].trajectory == (1.0, expected[0])


def test_a_split_pair_or_two_draws_leave_theta_alone(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path)
    play_serially(tuner, lambda job: Colour.BLACK, games=2)  # each side wins once
    play_serially(tuner, lambda job: None, games=2)  # two games without a winner
    snapshot = tuner.snapshot()
    assert tuner.theta == (1.0, -2.0) and snapshot.iterations_done == 2
    assert snapshot.plus_score == 2.0 and snapshot.games_played == 4


def test_theta_climbs_towards_what_wins(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path, number_of_iterations="60")

    def larger_x_wins(job: GameJob) -> Colour:
        black, white = values(job, Colour.BLACK)[0], values(job, Colour.WHITE)[0]
        return Colour.BLACK if black > white else Colour.WHITE

    assert play_serially(tuner, larger_x_wins) == 120
    assert tuner.theta[0] > 2.0
    assert tuner.theta[1] == pytest.approx(-2.0, abs=1.5)  # no signal: a random walk
    assert tuner.is_complete()


def test_an_abandoned_game_is_replayed_by_the_same_candidates(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path)
    jobs = [tuner.next_job() for _ in range(4)]
    assert all(jobs)
    assert jobs[3] is not None and finish(tuner, jobs[3], Colour.WHITE)
    for job in jobs[:3]:
        assert job is not None
        tuner.job_abandoned(job)
    again = [tuner.next_job() for _ in range(3)]
    assert [(j.game_id, j.black, j.white) for j in again if j] == [
        (j.game_id, j.black, j.white) for j in jobs[:3] if j
    ]


def test_duplicates_and_strangers_do_not_count(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path)
    first, second = tuner.next_job(), tuner.next_job()
    assert first is not None and second is not None
    assert finish(tuner, first, Colour.BLACK) and not finish(tuner, first, Colour.BLACK)
    assert finish(tuner, second, Colour.BLACK) and not finish(tuner, second, Colour.WHITE)
    assert tuner.snapshot().games_played == 2
    with pytest.raises(StateError, match="iteration 11, but this tuner has 10 iterations"):
        tuner.record_result(GameResult("11_0", "#11+", "#11-", None, EndReason.SCORE), {})
    with pytest.raises(StateError, match="not the iteration's #3\\+ and #3-"):
        tuner.record_result(GameResult("03_0", "#3-", "#3+", None, EndReason.SCORE), {})


def test_no_more_than_the_iterations_asked_for(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path, number_of_iterations="3")
    jobs = [tuner.next_job() for _ in range(7)]
    assert [j.game_id for j in jobs if j] == ["1_0", "1_1", "2_0", "2_1", "3_0", "3_1"]
    assert jobs[6] is None and not tuner.is_complete()


# ---------------------------------------------------------------------------
# State and resume


def test_a_resumed_tuner_goes_on_as_if_never_stopped(tmp_path: Path) -> None:
    straight = make_tuner(tmp_path)
    play_serially(straight, plus_wins)
    stopped = make_tuner(tmp_path)
    play_serially(stopped, plus_wins, games=7)  # iteration 4 half done
    resumed = SpsaTuner(load_control_file(spsa_ctl(tmp_path)), seed=99)
    resumed.load_state(json.loads(json.dumps(stopped.to_state())))
    job = resumed.next_job()
    assert job is not None and job.game_id == "04_1"
    assert finish(resumed, job, plus_wins(job))
    play_serially(resumed, plus_wins)
    assert resumed.theta == straight.theta and resumed.is_complete()
    notes = [line for note in straight.take_history_notes() for line in note_lines(note)]
    assert len(notes) == 10 and notes[-1] == "theta after 10 iterations: " + "; ".join(
        straight.settings.describe(straight.theta)
    )
    assert resumed.snapshot().parameters == straight.snapshot().parameters


def test_a_status_behind_the_journal_is_caught_up(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path)
    state = json.loads(json.dumps(tuner.to_state()))  # before iteration 1 was issued
    first, second = tuner.next_job(), tuner.next_job()
    assert first is not None and second is not None
    results = []
    for job in (first, second):
        winner = plus_wins(job)
        results.append(GameResult(job.game_id, job.black.code, job.white.code, winner,
                                  EndReason.RESIGN))  # fmt: skip
        tuner.record_result(results[-1], {})
    restored = SpsaTuner(load_control_file(spsa_ctl(tmp_path)))
    restored.load_state(state)
    assert all(restored.record_result(result, {}) for result in results)
    assert restored.theta == tuner.theta  # the same signs, the same start


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"number_of_iterations": "20"}, "number_of_iterations was 10 in earlier runs, not 20"),
        ({"A": "5"}, "A was 1.0 in earlier runs, not 5.0"),
        ({"gamma": "0.2"}, "gamma was 0.101"),
        ({"komi": "0.5"}, "komi was 7.5"),
        (
            {
                "parameters": "[Parameter('x', start=1.0, min=0, max=4, c_end=0.5, r_end=0.1),"
                " Parameter('y', start=-2.0, min=-3, max=3, c_end=0.3, r_end=0.4)]"
            },
            "Parameter definitions changed since earlier runs (c_end of y was 0.25, now 0.3)",
        ),
        (
            {"parameters": "[Parameter('x', start=1.0, min=0, max=4, c_end=0.5, r_end=0.1)]"},
            "(codes were x, y, now x)",
        ),
    ],
)
def test_resume_refuses_changed_parameters_and_schedule(
    tmp_path: Path, changes: dict[str, str], expected: str
) -> None:
    tuner = make_tuner(tmp_path)
    play_serially(tuner, plus_wins, games=3)
    changed = SpsaTuner(load_control_file(spsa_ctl(tmp_path, **changes)))
    with pytest.raises(StateError) as caught:
        changed.load_state(json.loads(json.dumps(tuner.to_state())))
    assert expected in str(caught.value) and "arena reset" in str(caught.value)


def test_format_and_make_candidate_may_change(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path)
    play_serially(tuner, plus_wins, games=4)
    path = spsa_ctl(
        tmp_path,
        parameters=SETTINGS["parameters"].replace("format='x: %.3f'", "format='X=%.1f'"),
    )
    path.write_text(path.read_text().replace("['cand']", "['other-engine']"))
    changed = SpsaTuner(load_control_file(path))
    changed.load_state(json.loads(json.dumps(tuner.to_state())))
    job = changed.next_job()
    assert job is not None and job.black.command[0] == "other-engine"
    assert changed.snapshot().parameters[0].formatted.startswith("X=")


def test_the_trajectory_is_thinned_not_unbounded(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path, number_of_iterations="1000")
    play_serially(tuner, plus_wins, games=1400)
    snapshot = tuner.snapshot()
    iterations = snapshot.trajectory_iterations
    assert len(iterations) <= 257 and iterations[0] == 0 and iterations[-1] == 700
    assert len(json.dumps(tuner.to_state())) < 30_000


def test_report_shows_each_parameters_trajectory(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path, number_of_iterations="40")
    play_serially(tuner, plus_wins, games=50)
    report = competition_report(tuner.snapshot())
    assert "iterations: 25/40   games played: 50/80" in report
    assert "plus side's points: 100.0%" in report
    lines = report.splitlines()
    header = lines.index("trajectory (theta after so many iterations)")
    assert lines[header + 1].split() == ["iteration", "x", "y"]
    rows = [line.split() for line in lines[header + 2 :] if line.strip()]
    assert rows[0] == ["0", "1", "-2"] and rows[-1][0] == "25" and len(rows) <= 21
    assert math.isclose(float(rows[-1][1]), tuner.theta[0], rel_tol=1e-3)
    (x_row,) = [line for line in lines if line.startswith("x ")]
    assert x_row.split()[1:3] == ["x:", f"{tuner.theta[0]:.3f}"]
