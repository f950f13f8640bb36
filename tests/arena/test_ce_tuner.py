"""The cross-entropy tuner: the update on fixed samples, scheduling, state and resume, errors."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.competitions.ce_tuner import CeTuner
from arena.competitions.loader import load_control_file
from arena.competitions.registry import make_competition
from arena.control.ce_tuner import ce_settings
from arena.errors import ControlFileError, StateError
from arena.reports.notes import note_lines
from arena.reports.text import competition_report
from arena.results import EndReason, GameJob, GameResult
from arena.tuning.cem import (
    Gaussian,
    elite_count,
    finish_generation,
    ranking,
    update_distribution,
)
from gtp.vertex import Colour

# Gomill's sample control file (cem_tuner.rst), only the two engine commands replaced.
GOMILL_SAMPLE = '''competition_type = "ce_tuner"

description = """\\
This is a sample control file.

It illustrates the available settings for the cross entropy tuner.
"""

players = {
    'gnugo-l10' : Player("gnugo-stand-in --mode=gtp --chinese-rules "
                         "--capture-all-dead --level=10"),
    }

def fuego(max_games, additional_commands=[]):
    commands = [
        "go_param timelimit 999999",
        "uct_max_memory 350000000",
        "uct_param_search number_threads 1",
        "uct_param_player reuse_subtree 0",
        "uct_param_player ponder 0",
        "uct_param_player max_games %d" % max_games,
        ]
    return Player(
        "fuego-stand-in --quiet",
        startup_gtp_commands=commands+additional_commands)

FUEGO_MAX_GAMES = 1000

def exp_10(f):
    return 10.0**f

parameters = [
    Parameter('rave_weight_initial',
              # Mean and variance are in terms of log_10 (rave_weight_initial)
              initial_mean = -1.0,
              initial_variance = 1.5,
              transform = exp_10,
              format = "I: %4.2f"),

    Parameter('rave_weight_final',
              # Mean and variance are in terms of log_10 (rave_weight_final)
              initial_mean = 3.5,
              initial_variance = 1.5,
              transform = exp_10,
              format = "F: %4.2f"),
    ]

def make_candidate(rwi, rwf):
    return fuego(
        FUEGO_MAX_GAMES,
        ["uct_param_search rave_weight_initial %f" % rwi,
         "uct_param_search rave_weight_final %f" % rwf])

board_size = 9
komi = 7.5
opponent = 'gnugo-l10'
candidate_colour = 'w'

number_of_generations = 5
samples_per_generation = 100
batch_size = 10
elite_proportion = 0.1
step_size = 0.8
'''

SETTINGS: dict[str, str] = {
    "players": "{'opp': Player('opponent-engine')}",
    "parameters": "[Parameter('x', initial_mean=0.0, initial_variance=1.0, format='x: %.3f')]",
    "board_size": "9",
    "komi": "7.5",
    "opponent": "'opp'",
    "candidate_colour": "'b'",
    "number_of_generations": "3",
    "samples_per_generation": "4",
    "batch_size": "2",
    "elite_proportion": "0.5",
    "step_size": "0.5",
}
MAKE_CANDIDATE = (
    "def make_candidate(*values):\n    return Player(['cand'] + [repr(v) for v in values])\n"
)


def ce_ctl(tmp_path: Path, prelude: str = "", **changes: str | None) -> Path:
    """A ce_tuner control file with SETTINGS, some replaced (None drops a setting)."""
    settings = {**SETTINGS, **changes}
    lines = ["competition_type = 'ce_tuner'", prelude, MAKE_CANDIDATE]
    lines += [f"{key} = {value}" for key, value in settings.items() if value is not None]
    path = tmp_path / "cem.ctl"
    path.write_text("\n".join(lines) + "\n")
    return path


def make_tuner(tmp_path: Path, seed: int = 7, **changes: str | None) -> CeTuner:
    return CeTuner(load_control_file(ce_ctl(tmp_path, **changes)), seed=seed)


def sample_of(job: GameJob, tuner: CeTuner) -> float:
    candidate = job.black if job.black.code != tuner.settings.opponent else job.white
    return float(candidate.command[1])


def finish(tuner: CeTuner, job: GameJob, candidate_wins: bool | None) -> bool:
    """Record ``job``'s result: the candidate wins, loses, or (None) no winner."""
    opponent = tuner.settings.opponent
    candidate_colour = Colour.WHITE if job.black.code == opponent else Colour.BLACK
    winner = (
        None
        if candidate_wins is None
        else (candidate_colour if candidate_wins else candidate_colour.opponent)
    )
    end = EndReason.SCORE if winner is None else EndReason.RESIGN
    result = GameResult(job.game_id, job.black.code, job.white.code, winner, end)
    return tuner.record_result(result, {})


def play_serially(tuner: CeTuner, wins: Callable[[float], bool], games: int | None = None) -> int:
    played = 0
    while games is None or played < games:
        job = tuner.next_job()
        if job is None:
            break
        assert finish(tuner, job, wins(sample_of(job, tuner)))
        played += 1
    return played


# ---------------------------------------------------------------------------
# The arithmetic


@pytest.mark.parametrize(
    ("proportion", "samples", "expected"),
    [
        (0.1, 100, 10),
        (0.1, 5, 1),
        (0.1, 4, 1),
        (0.05, 10, 1),
        (0.15, 10, 2),
        (0.25, 10, 3),
        (0.5, 4, 2),
        (1.0, 7, 7),
        (0.01, 1, 1),
    ],
)
def test_elite_count_rounds_half_up_and_keeps_at_least_one(
    proportion: float, samples: int, expected: int
) -> None:
    assert elite_count(proportion, samples) == expected


@pytest.mark.parametrize(
    ("wins", "order"),
    [([2, 2, 0, 1], [0, 1, 3, 2]), ([1, 3, 3, 0], [1, 2, 0, 3]), ([0.5, 1, 0.5], [1, 0, 2])],
)
def test_ranking_puts_most_wins_first_and_equal_wins_in_sample_order(
    wins: list[float], order: list[int]
) -> None:
    assert ranking(wins) == order


@pytest.mark.parametrize(
    ("old", "samples", "wins", "proportion", "step", "elite", "new_mean", "new_variance"),
    [
        # Elite {1, 3}: mean 2, population variance 1; half-way from N(0, 1).
        (
            ((0.0,), (1.0,)),
            [(1.0,), (3.0,), (-2.0,), (0.0,)],
            [2, 2, 0, 1],
            0.5,
            0.5,
            (0, 1),
            (1.0,),
            (1.0,),
        ),
        # Equal wins go to the earlier sample: elite {3, -2} (samples 1 and 2).
        (
            ((0.0,), (1.0,)),
            [(1.0,), (3.0,), (-2.0,), (0.0,)],
            [1, 3, 3, 0],
            0.5,
            0.8,
            (1, 2),
            (0.8 * 0.5,),
            (0.8 * 6.25 + 0.2,),
        ),
        # One elite (0.1 of 4 rounds to 0, kept at 1): variance shrinks towards 0.
        (
            ((1.0,), (1.0,)),
            [(4.0,), (5.0,), (6.0,), (7.0,)],
            [0, 0, 3, 1],
            0.1,
            0.8,
            (2,),
            (0.8 * 6.0 + 0.2,),
            (0.2,),
        ),
        # Two parameters, each updated on its own; step 1 forgets the old distribution.
        (
            ((0.0, 10.0), (1.0, 4.0)),
            [(1.0, 20.0), (-1.0, 40.0), (3.0, 0.0)],
            [2, 0, 1],
            0.6,
            1.0,
            (0, 2),
            (2.0, 10.0),
            (1.0, 100.0),
        ),
    ],
)
def test_generation_update_on_fixed_samples(
    old: tuple[tuple[float, ...], tuple[float, ...]],
    samples: list[tuple[float, ...]],
    wins: list[float],
    proportion: float,
    step: float,
    elite: tuple[int, ...],
    new_mean: tuple[float, ...],
    new_variance: tuple[float, ...],
) -> None:
    start = Gaussian(*old)
    outcome = finish_generation(start, samples, wins, elite_proportion=proportion, step_size=step)
    assert outcome.elite == elite
    assert outcome.next_distribution.means == pytest.approx(new_mean)
    assert outcome.next_distribution.variances == pytest.approx(new_variance)


def test_update_is_the_smoothed_elite_mean_and_population_variance() -> None:
    old = Gaussian((2.0, -1.0), (0.5, 3.0))
    elites = [(1.0, 0.0), (2.0, 2.0), (6.0, 1.0)]
    new = update_distribution(old, elites, 0.25)
    # elite means 3 and 1, population variances 14/3 and 2/3
    assert new.means == pytest.approx((0.25 * 3 + 0.75 * 2.0, 0.25 * 1 + 0.75 * -1.0))
    assert new.variances == pytest.approx((0.25 * 14 / 3 + 0.75 * 0.5, 0.25 * 2 / 3 + 0.75 * 3))


# ---------------------------------------------------------------------------
# Gomill's sample file, settings and errors


def test_gomills_sample_control_file_runs_unchanged_but_for_the_engines(tmp_path: Path) -> None:
    path = tmp_path / "sample.ctl"
    path.write_text(GOMILL_SAMPLE)
    config = load_control_file(path)
    settings = ce_settings(config)
    assert [p.code for p in settings.parameters] == ["rave_weight_initial", "rave_weight_final"]
    assert (settings.number_of_generations, settings.samples_per_generation) == (5, 100)
    assert (settings.batch_size, settings.elite_proportion, settings.step_size) == (10, 0.1, 0.8)
    assert settings.candidate_colour is Colour.WHITE
    tuner = make_competition(config)
    job = tuner.next_job()
    assert job is not None and job.game_id == "g0#0r0" and job.black.code == "gnugo-l10"
    assert job.white.code == "g0#0"
    commands = [" ".join(words) for words in job.white.startup_gtp_commands]
    assert commands[5] == "uct_param_player max_games 1000"
    assert commands[6].startswith("uct_param_search rave_weight_initial ")
    report = competition_report(tuner.snapshot())
    assert "distribution for generation g0: I: 0.10; F: 3162.28" in report
    assert "optimiser mean~variance: -1.00~1.50 3.50~1.50" in report
    assert "games played: 0/5000" in report
    assert "elite: 10 (proportion 0.1)   step size: 0.8" in report


def _error(tmp_path: Path, prelude: str = "", **changes: str | None) -> str:
    with pytest.raises(ControlFileError) as caught:
        load_control_file(ce_ctl(tmp_path, prelude, **changes))
    return str(caught.value)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"number_of_generations": None}, "number_of_generations: not set"),
        ({"samples_per_generation": "0"}, ":13: samples_per_generation: must be a positive"),
        ({"batch_size": "2.5"}, "batch_size: expected an integer"),
        ({"elite_proportion": "1.5"}, "elite_proportion: must be between 0.0 and 1.0"),
        ({"step_size": "0"}, "step_size: must be between 0.0 and 1.0"),
        ({"candidate_colour": "'x'"}, "candidate_colour: expected one of 'b', 'w', 'random'"),
        ({"opponent": "'nobody'"}, "opponent: unknown player 'nobody'"),
        ({"parameters": "[]"}, "parameters: expected a non-empty list of Parameter"),
        (
            {"parameters": "[Parameter('x', initial_mean=0, initial_variance=-1)]"},
            "parameter x: initial_variance must not be negative",
        ),
        ({"parameters": "[Parameter('x', initial_mean=0)]"}, "Parameter needs initial_variance"),
        (
            {"parameters": "[Parameter('x', initial_mean=0, initial_variance=1, split=3)]"},
            "unknown Parameter argument 'split'",
        ),
        (
            {"parameters": "[Parameter('x', initial_mean=0, initial_variance=1, transform=3)]"},
            "parameter x: transform must be a function",
        ),
        (
            {"parameters": "[Parameter('x', initial_mean=0, initial_variance=1, format='%d %d')]"},
            "parameter x: format '%d %d' cannot show 0.0",
        ),
        (
            {
                "parameters": "[Parameter('x', initial_mean=0, initial_variance=1),"
                " Parameter('x', initial_mean=1, initial_variance=1)]"
            },
            "duplicate parameter code 'x'",
        ),
        ({"komi": None}, "komi: not set"),
        ({"matchups": "[]"}, "matchups: not used by the cross-entropy tuner"),
    ],
)
def test_control_file_errors_name_the_file_and_setting(
    tmp_path: Path, changes: dict[str, str | None], expected: str
) -> None:
    message = _error(tmp_path, **changes)
    assert message.startswith(str(tmp_path / "cem.ctl") + ":")
    assert expected in message and "\n" not in message


def test_a_failing_transform_is_reported_at_its_line(tmp_path: Path) -> None:
    prelude = "def bad(f):\n    return 1 / 0\n"
    message = _error(
        tmp_path,
        prelude,
        parameters="[Parameter('x', initial_mean=0, initial_variance=1, transform=bad)]",
    )
    assert ":3: parameter x: transform failed at the initial mean 0: ZeroDivisionError" in message


def test_make_candidate_must_return_a_player(tmp_path: Path) -> None:
    path = ce_ctl(tmp_path)
    path.write_text(path.read_text().replace("return Player(", "return ("))
    with pytest.raises(ControlFileError, match="make_candidate: must return a Player"):
        load_control_file(path)


# ---------------------------------------------------------------------------
# Scheduling and results


def test_games_go_round_the_samples_and_wait_for_the_generation(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path)
    jobs = [tuner.next_job() for _ in range(8)]
    assert [j.game_id for j in jobs if j] == [
        "g0#0r0", "g0#1r0", "g0#2r0", "g0#3r0", "g0#0r1", "g0#1r1", "g0#2r1", "g0#3r1"
    ]  # fmt: skip
    assert all(j is not None and j.white.code == "opp" for j in jobs)  # candidate_colour 'b'
    assert tuner.next_job() is None  # all 8 in flight: the next generation needs their results
    assert jobs[0] is not None
    tuner.job_abandoned(jobs[0])
    again = tuner.next_job()
    assert again is not None and again.game_id == "g0#0r0" and again.black == jobs[0].black
    assert tuner.snapshot().generation == 0


def test_a_generation_updates_the_distribution_from_its_elite(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path)
    samples = [c.sample[0] for c in tuner.snapshot().candidates]
    play_serially(tuner, lambda x: x > 0, games=8)
    snapshot = tuner.snapshot()
    assert snapshot.generation == 1 and snapshot.games_played == 8
    wins = [2.0 if x > 0 else 0.0 for x in samples]
    elite = sorted(range(4), key=lambda n: (-wins[n], n))[:2]
    values = [samples[n] for n in elite]
    mean = sum(values) / 2
    variance = sum((v - mean) ** 2 for v in values) / 2
    assert snapshot.distribution.means[0] == pytest.approx(0.5 * mean)
    assert snapshot.distribution.variances[0] == pytest.approx(0.5 * variance + 0.5)
    (first,) = snapshot.generations
    assert first.distribution.means == (0.0,) and first.elite_count == 2
    assert first.best.code == f"g0#{elite[0]}" and first.best.wins == wins[elite[0]]
    (note,) = tuner.take_history_notes()
    notes = note_lines(note)
    assert notes[0] == "generation g0" and notes[1].startswith("distribution: x: 0.000")
    assert sum(line.split()[0].endswith("*") for line in notes[2:-1]) == 2
    assert tuner.take_history_notes() == []


def test_a_jigo_counts_half(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path)
    job = tuner.next_job()
    assert job is not None and finish(tuner, job, None)
    assert tuner.snapshot().candidates[0].wins == 0.5


@pytest.mark.parametrize("end", [EndReason.UNKNOWN, EndReason.MOVE_LIMIT])
def test_a_game_with_no_result_counts_nothing(tmp_path: Path, end: EndReason) -> None:
    """'players disagreed' is no half win: else every sample of a generation could tie."""
    tuner = make_tuner(tmp_path)
    job = tuner.next_job()
    assert job is not None
    result = GameResult(job.game_id, job.black.code, job.white.code, None, end)
    assert tuner.record_result(result, {})
    candidate = tuner.snapshot().candidates[0]
    assert candidate.wins == 0.0
    assert tuner.next_job() is not None  # the game counted as played


def test_duplicates_and_old_generations_do_not_count(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path)
    job = tuner.next_job()
    assert job is not None and finish(tuner, job, True)
    assert not finish(tuner, job, True)
    play_serially(tuner, lambda x: True, games=7)
    assert tuner.snapshot().generation == 1
    assert not finish(tuner, job, False)  # generation 0 is closed
    assert tuner.snapshot().games_played == 8


def test_a_result_from_nowhere_is_refused(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path)
    with pytest.raises(StateError, match="generation 5"):
        tuner.record_result(GameResult("g5#0r0", "g5#0", "opp", None, EndReason.SCORE), {})
    with pytest.raises(StateError, match="not a game of this cross-entropy tuner"):
        tuner.record_result(GameResult("0_1", "g0#0", "opp", None, EndReason.SCORE), {})


def test_random_colour_is_fixed_per_game(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path, candidate_colour="'random'", samples_per_generation="20")
    jobs = [tuner.next_job() for _ in range(40)]
    colours = [Colour.WHITE if j and j.black.code == "opp" else Colour.BLACK for j in jobs]
    assert 5 < colours.count(Colour.WHITE) < 35
    for job in jobs:
        assert job is not None
        tuner.job_abandoned(job)
    again = [tuner.next_job() for _ in range(40)]
    assert [j.black.code if j else "" for j in again] == [j.black.code if j else "" for j in jobs]


def test_void_games_halt_first_or_twice_in_a_row(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path)
    job = tuner.next_job()
    assert job is not None
    assert tuner.record_void(job.game_id, job.pairing, live=True)
    job = tuner.next_job()
    assert job is not None and finish(tuner, job, True)
    job = tuner.next_job()
    assert job is not None and not tuner.record_void(job.game_id, job.pairing, live=True)
    job = tuner.next_job()
    assert job is not None and tuner.record_void(job.game_id, job.pairing, live=True)
    assert tuner.snapshot().void_games == 3


# ---------------------------------------------------------------------------
# State and resume


def roundtrip(tuner: CeTuner, path: Path) -> CeTuner:
    state = json.loads(json.dumps(tuner.to_state()))
    resumed = CeTuner(load_control_file(path), seed=999)  # the seed comes from the state
    resumed.load_state(state)
    return resumed


def test_a_resumed_tuner_goes_on_as_if_never_stopped(tmp_path: Path) -> None:
    path = ce_ctl(tmp_path)
    straight = make_tuner(tmp_path)
    play_serially(straight, lambda x: x > 0.3)
    stopped = make_tuner(tmp_path)
    play_serially(stopped, lambda x: x > 0.3, games=11)
    resumed = roundtrip(stopped, path)
    play_serially(resumed, lambda x: x > 0.3)
    a, b = straight.snapshot(), resumed.snapshot()
    assert a.complete and b.complete and b.games_played == 24
    assert a.distribution == b.distribution and a.generations == b.generations


def test_finished_generations_keep_their_samples_and_wins_for_the_reports(
    tmp_path: Path,
) -> None:
    path = ce_ctl(tmp_path)
    tuner = make_tuner(tmp_path)
    play_serially(tuner, lambda x: x > 0.3, games=12)  # generation 0 done, 1 half played
    resumed = roundtrip(tuner, path)
    (generation,) = resumed.snapshot().generations
    assert generation == tuner.snapshot().generations[0]
    assert len(generation.samples) == len(generation.wins) == 4
    # Each sample played batch_size = 2 games; wins as counted; the elite is the ranking's top.
    assert all(w in (0.0, 1.0, 2.0) for w in generation.wins)
    assert generation.elite == tuple(ranking(list(generation.wins))[:2])
    assert generation.best.number == generation.elite[0]
    assert generation.samples[generation.best.number] == generation.best.sample
    # A state written before samples were kept still loads: the generation has none.
    state = json.loads(json.dumps(tuner.to_state()))
    for finished in state["finished"]:
        del finished["samples"], finished["wins"]
    older = CeTuner(load_control_file(path))
    older.load_state(state)
    (old,) = older.snapshot().generations
    assert (old.samples, old.wins, old.elite) == ((), (), ())
    assert old.distribution == generation.distribution


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"samples_per_generation": "5"}, "samples_per_generation was 4 in earlier runs, not 5"),
        ({"batch_size": "1"}, "batch_size was 2 in earlier runs, not 1; it may grow"),
        ({"opponent": "'other'", "players": "{'other': Player('x')}"}, "opponent was 'opp'"),
        ({"candidate_colour": "'random'"}, "candidate_colour was 'black' in earlier runs"),
        ({"komi": "6.5"}, "komi was 7.5"),
        (
            {"parameters": "[Parameter('y', initial_mean=0.0, initial_variance=1.0)]"},
            "Parameter definitions changed since earlier runs (codes were x, now y)",
        ),
        (
            {"parameters": "[Parameter('x', initial_mean=0.5, initial_variance=1.0)]"},
            "initial_mean of x was 0.0, now 0.5",
        ),
        (
            {
                "parameters": "[Parameter('x', initial_mean=0.0, initial_variance=1.0,"
                " transform=lambda f: 2 ** f)]"
            },
            "the transform of x changed",
        ),
    ],
)
def test_resume_refuses_the_changes_the_doc_calls_unsafe(
    tmp_path: Path, changes: dict[str, str], expected: str
) -> None:
    tuner = make_tuner(tmp_path)
    play_serially(tuner, lambda x: x > 0, games=3)
    state = json.loads(json.dumps(tuner.to_state()))
    changed = CeTuner(load_control_file(ce_ctl(tmp_path, **changes)))
    with pytest.raises(StateError) as caught:
        changed.load_state(state)
    assert expected in str(caught.value) and "arena reset" in str(caught.value)


def test_resume_accepts_the_safe_changes(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path)
    play_serially(tuner, lambda x: x > 0, games=8)  # generation 0 done
    state = json.loads(json.dumps(tuner.to_state()))
    changed = CeTuner(
        load_control_file(
            ce_ctl(
                tmp_path,
                batch_size="3",
                number_of_generations="2",
                elite_proportion="0.25",
                step_size="0.9",
                parameters="[Parameter('x', initial_mean=0.0, initial_variance=1.0,"
                " format='X=%.1f')]",
            )
        )
    )
    changed.load_state(state)
    assert changed.snapshot().distribution.engine[0].startswith("X=")
    played = play_serially(changed, lambda x: x > 0)
    assert played == 4 * 3  # the second (now last) generation, three games per sample
    snapshot = changed.snapshot()
    assert snapshot.complete and len(snapshot.generations) == 2
    assert snapshot.generations[1].elite_count == 1  # 0.25 of 4


def test_more_generations_after_the_end_go_on(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path, number_of_generations="1")
    play_serially(tuner, lambda x: x > 0)
    assert tuner.is_complete() and tuner.next_job() is None
    report = competition_report(tuner.snapshot())
    assert "final distribution: x: " in report and "all 1 generations played" in report
    more = CeTuner(load_control_file(ce_ctl(tmp_path, number_of_generations="2")))
    more.load_state(json.loads(json.dumps(tuner.to_state())))
    assert not more.is_complete()
    job = more.next_job()
    assert job is not None and job.game_id == "g1#0r0"


def test_report_shows_each_generations_distribution(tmp_path: Path) -> None:
    tuner = make_tuner(tmp_path)
    play_serially(tuner, lambda x: x > 0, games=17)
    report = competition_report(tuner.snapshot())
    assert "generation g2 of 3   games played: 17/24" in report
    rows = [line for line in report.splitlines() if line.startswith(("g0   ", "g1   "))]
    assert len(rows) == 2 and all("best g" in row and "elite mean x: " in row for row in rows)
    assert "candidates of generation g2, most wins first" in report
    assert report.count("g2#") == 4
    assert math.isfinite(tuner.snapshot().distribution.variances[0])
