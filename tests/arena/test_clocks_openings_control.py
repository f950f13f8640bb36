"""Control files with time controls and opening suites: what they become, and the errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.competitions.allplayall import AllPlayAll
from arena.competitions.base import Competition
from arena.competitions.loader import load_control_file
from arena.competitions.mc_tuner import McTuner
from arena.competitions.playoff import Playoff
from arena.control.timecontrol import TimeControl
from arena.results import EndReason, GameJob, GameResult
from gtp.vertex import Colour

from .test_control import GAME, HEADER, PLAYERS, load_error, write


def write_sgf(path: Path, moves: str, size: int = 9, extra: str = "") -> Path:
    """An SGF game: ``moves`` like ``B[cc];W[gg]``."""
    path.write_text(f"(;FF[4]GM[1]SZ[{size}]{extra};{moves})")
    return path


# ---------------------------------------------------------------------------
# Time controls


def test_time_controls_per_matchup_and_per_player(tmp_path: Path) -> None:
    text = (
        HEADER
        + "players = {'a': Player('enga', time_control=PerMove(0.5)), 'b': Player('engb')}\n"
        + GAME
        + "time_control = ByoYomi(main=60, period=10, periods=3)\n"
        + "time_margin = 0.2\n"
        + "matchups = [\n"
        + "    Matchup('a', 'b'),\n"
        + "    Matchup('a', 'b', id='c', time_control=Canadian(600, 300, stones=25)),\n"
        + "    Matchup('a', 'b', id='f', time_control=Fischer(60, 2), time_margin=0),\n"
        + "    Matchup('a', 'b', id='x', time_control=Absolute(300)),\n"
        + "]\n"
    )
    config = load_control_file(write(tmp_path, text))
    first, canadian, fischer, absolute = config.playoff.matchups
    assert first.settings.time_control == TimeControl("byoyomi", 60, 10, periods=3)
    assert first.settings.time_margin == 0.2
    assert canadian.settings.time_control == TimeControl("canadian", 600, 300, stones=25)
    assert fischer.settings.time_control == TimeControl("fischer", 60, increment=2)
    assert fischer.settings.time_margin == 0
    assert absolute.settings.time_control == TimeControl("absolute", 300)
    # Time odds: player a's own clock wins over the matchup's.
    assert config.players["a"].time_control == TimeControl("per_move", period_time=0.5)
    job = Playoff(config).next_job()
    assert job is not None
    assert job.time_control(Colour.BLACK) == TimeControl("per_move", period_time=0.5)
    assert job.time_control(Colour.WHITE) == first.settings.time_control
    assert first.settings.describe() == "board size: 9   komi: 7.5   time: byo-yomi 60s + 3x10s"


def test_the_default_margin_and_no_clock(tmp_path: Path) -> None:
    config = load_control_file(
        write(tmp_path, HEADER + PLAYERS + GAME + "matchups = [Matchup('a', 'b')]\n")
    )
    (matchup,) = config.playoff.matchups
    assert matchup.settings.time_control is None
    assert matchup.settings.time_margin == 0.05


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("time_control = 30", ":5: time_control: expected one of Absolute(...), ByoYomi(...)"),
        ("time_control = ByoYomi(60, 10)", "time_control: ByoYomi needs periods"),
        ("time_control = ByoYomi(60, 0, 3)", "time_control: ByoYomi period: expected a positive"),
        ("time_control = ByoYomi(60, 10, 1.5)", "ByoYomi periods: expected a positive integer"),
        ("time_control = Canadian(-1, 10, 5)", "Canadian main: expected a non-negative number"),
        ("time_control = Fischer(60, inc=2)", "unknown Fischer argument 'inc'"),
        ("time_control = Absolute(0)", "Absolute main: expected a positive number of seconds"),
        ("time_control = PerMove(1, 2)", "PerMove takes 1 values (seconds)"),
        ("time_margin = -0.1", ":5: time_margin: expected a non-negative number of seconds"),
    ],
)
def test_bad_time_settings_are_one_line_errors(tmp_path: Path, setting: str, expected: str) -> None:
    text = HEADER + PLAYERS + GAME + setting + "\nmatchups = [Matchup('a', 'b')]\n"
    message = load_error(tmp_path, text)
    assert expected in message, message


def test_fischer_needs_no_command_at_the_startup_check(tmp_path: Path) -> None:
    """The arena keeps a Fischer clock for any engine (time_left tells it the increments)."""
    text = HEADER + PLAYERS + GAME + "matchups = [Matchup('a', 'b', time_control=Fischer(5, 1))]\n"
    checks = Playoff(load_control_file(write(tmp_path, text))).player_checks()
    assert [c.required_commands for c in checks] == [frozenset()] * 2


# ---------------------------------------------------------------------------
# Openings


def suite(tmp_path: Path, count: int = 3) -> Path:
    directory = tmp_path / "openings"
    directory.mkdir()
    for n in range(count):
        write_sgf(directory / f"o{n}.sgf", f"B[{'abcdefghi'[n]}a];W[ee];B[cc]")
    return directory


def playoff_with(tmp_path: Path, openings: str, games: int = 6, extra: str = "") -> Playoff:
    text = (
        HEADER
        + PLAYERS
        + GAME
        + f"openings = {openings}\n"
        + extra
        + f"matchups = [Matchup('a', 'b', number_of_games={games})]\n"
    )
    return Playoff(load_control_file(write(tmp_path, text)))


def jobs_of(competition: Competition, count: int) -> list[GameJob]:
    jobs = []
    for _ in range(count):
        job = competition.next_job()
        assert job is not None
        jobs.append(job)
    return jobs


def test_each_opening_starts_two_adjacent_games_with_colours_swapped(tmp_path: Path) -> None:
    suite(tmp_path)
    playoff = playoff_with(tmp_path, "'openings'", games=8)
    (matchup,) = playoff.config.playoff.matchups
    assert matchup.alternating  # openings make a matchup alternate
    jobs = jobs_of(playoff, 8)
    names = [job.opening.name if job.opening else None for job in jobs]
    assert names == ["o0.sgf", "o0.sgf", "o1.sgf", "o1.sgf", "o2.sgf", "o2.sgf", "o0.sgf", "o0.sgf"]
    for first, second in zip(jobs[::2], jobs[1::2], strict=True):
        assert (first.black.code, first.white.code) == (second.white.code, second.black.code)
    assert jobs[0].opening is not None
    assert jobs[0].opening.moves == (
        (Colour.BLACK, (8, 0)),
        (Colour.WHITE, (4, 4)),
        (Colour.BLACK, (6, 2)),
    )


def test_a_cut_and_a_seeded_random_order(tmp_path: Path) -> None:
    suite(tmp_path, count=5)
    shuffled = playoff_with(tmp_path, "Openings('openings', moves=2, order='random', seed=7)", 20)
    jobs = jobs_of(shuffled, 20)
    names = [job.opening.name for job in jobs if job.opening]
    first_pass = names[0:10:2]
    assert sorted(first_pass) == [f"o{n}.sgf" for n in range(5)]  # each once per pass
    assert first_pass != sorted(first_pass) or names[10:20:2] != sorted(names[10:20:2])
    assert all(job.opening is not None and len(job.opening.moves) == 2 for job in jobs)
    again = playoff_with(tmp_path, "Openings('openings', moves=2, order='random', seed=7)", 20)
    assert [j.opening for j in jobs_of(again, 20)] == [j.opening for j in jobs]


def test_one_sgf_file_with_a_collection(tmp_path: Path) -> None:
    (tmp_path / "book.sgf").write_text("(;FF[4]SZ[9];B[aa];W[bb])(;FF[4]SZ[9];B[cc];W[dd];B[ee])")
    playoff = playoff_with(tmp_path, "'book.sgf'", games=4)
    names = [job.opening.name for job in jobs_of(playoff, 4) if job.opening]
    assert names == ["book.sgf#1", "book.sgf#1", "book.sgf#2", "book.sgf#2"]


def test_a_replayed_game_gets_the_same_opening_and_colours(tmp_path: Path) -> None:
    suite(tmp_path)
    playoff = playoff_with(tmp_path, "'openings'")
    jobs = jobs_of(playoff, 4)
    playoff.job_abandoned(jobs[3])
    replayed = playoff.next_job()
    assert replayed == jobs[3]


def test_all_play_all_pairs_per_matchup(tmp_path: Path) -> None:
    suite(tmp_path)
    text = (
        "competition_type = 'allplayall'\n"
        "players = {'a': Player('a'), 'b': Player('b'), 'c': Player('c')}\n"
        "competitors = ['a', 'b', 'c']\nrounds = 4\n" + GAME + "openings = 'openings'\n"
    )
    competition = AllPlayAll(load_control_file(write(tmp_path, text)))
    jobs = jobs_of(competition, 12)
    by_pairing: dict[str, list[GameJob]] = {}
    for job in jobs:
        by_pairing.setdefault(job.pairing, []).append(job)
    for pairing_jobs in by_pairing.values():
        pairing_jobs.sort(key=lambda j: j.game_number)
        first, second = pairing_jobs[0], pairing_jobs[1]
        assert first.opening == second.opening and first.opening is not None
        assert first.black == second.white


TUNER = """competition_type = 'mc_tuner'
players = {'opp': Player('opp')}
def make(x):
    return Player('cand --x=%s' % x)
parameters = [Parameter('x', scale=LINEAR(0, 1), split=3)]
make_candidate = make
candidate_colour = 'w'
opponent = 'opp'
exploration_coefficient = 0.5
initial_visits = 1
initial_wins = 1
board_size = 9
komi = 7.5
openings = 'openings'
"""


def _tuner_result(job: GameJob, winner: Colour) -> GameResult:
    return GameResult(job.game_id, job.black.code, job.white.code, winner, EndReason.RESIGN)


def test_a_tuner_plays_each_pair_with_one_candidate_both_colours(tmp_path: Path) -> None:
    suite(tmp_path)
    tuner = McTuner(load_control_file(write(tmp_path, TUNER)), seed=3)
    jobs = jobs_of(tuner, 6)
    for first, second in zip(jobs[::2], jobs[1::2], strict=True):
        assert first.white.code == second.black.code  # the candidate, White then Black
        assert first.black.code == second.white.code == "opp"
        assert first.opening == second.opening
    # The second game of a pair abandoned, and the first finished: the
    # replay is still that candidate's, also after a restart from the state.
    tuner.record_result(_tuner_result(jobs[0], Colour.BLACK), {})
    tuner.job_abandoned(jobs[1])
    state = tuner.to_state()
    restarted = McTuner(load_control_file(write(tmp_path, TUNER)), seed=3)
    restarted.load_state(state)
    for competition in (tuner, restarted):
        replay = competition.next_job()
        assert replay is not None and replay.game_id == jobs[1].game_id
        assert (replay.black.code, replay.white.code) == (jobs[1].black.code, "opp")
    # A candidate's win counts whichever colour it had.
    tuner.record_result(_tuner_result(jobs[1], Colour.BLACK), {})
    assert sum(c.games_won for c in tuner.snapshot().levels[0]) == 1


@pytest.mark.parametrize(
    ("content", "extra", "expected"),
    [
        ("B[aa];W[aa]", "", "o.sgf: move 2 (W A9) is illegal: an occupied point"),
        ("B[aa];W[tt];B[tt]", "", "o.sgf: move 3 (B pass) is a second pass in a row"),
        ("B[aa]", "handicap = 2\n", "openings cannot be combined with handicap"),
        ("B[aa];W[bb]", "move_limit = 2\n", "o.sgf: 2 moves reach the move_limit (2)"),
        ("B[ee];W[jj]", "", "o.sgf: move 2: W[jj] is not a point on a 9x9 board"),
    ],
)
def test_bad_openings_are_one_line_errors_naming_the_file_and_the_move(
    tmp_path: Path, content: str, extra: str, expected: str
) -> None:
    write_sgf(tmp_path / "o.sgf", content)
    text = (
        HEADER
        + PLAYERS
        + GAME
        + extra
        + "openings = 'o.sgf'\n"
        + "matchups = [Matchup('a', 'b')]\n"
    )
    message = load_error(tmp_path, text)
    assert expected in message, message


@pytest.mark.parametrize(
    ("setup", "setting", "expected"),
    [
        ("19", "'o.sgf'", "o.sgf: board size 19, but the games are 9x9"),
        ("setup", "'o.sgf'", "o.sgf: setup or handicap stones are not supported in openings"),
        ("empty", "'o.sgf'", "o.sgf: the main line has no moves"),
        ("garbage", "'o.sgf'", "o.sgf is not SGF"),
        ("", "'missing'", "openings: no such file or directory"),
        ("", "Openings('o.sgf', order='shuffled')", "expected one of 'sequential', 'random'"),
        ("", "Openings('o.sgf', moves=0)", "moves must be a positive integer"),
        ("", "3", "expected a path or Openings(...)"),
    ],
)
def test_bad_opening_files_and_settings(
    tmp_path: Path, setup: str, setting: str, expected: str
) -> None:
    path = tmp_path / "o.sgf"
    if setup == "19":
        write_sgf(path, "B[aa]", size=19)
    elif setup == "setup":
        write_sgf(path, "B[aa]", extra="AB[cc]")
    elif setup == "empty":
        path.write_text("(;FF[4]SZ[9])")
    elif setup == "garbage":
        path.write_text("not an sgf file")
    else:
        write_sgf(path, "B[aa]")
    text = HEADER + PLAYERS + GAME + f"openings = {setting}\nmatchups = [Matchup('a', 'b')]\n"
    message = load_error(tmp_path, text)
    assert expected in message, message


def test_openings_cannot_be_combined_with_fixed_colours(tmp_path: Path) -> None:
    write_sgf(tmp_path / "o.sgf", "B[aa]")
    text = (
        HEADER
        + PLAYERS
        + GAME
        + "openings = 'o.sgf'\nmatchups = [Matchup('a', 'b', alternating=False)]\n"
    )
    assert "alternating=False cannot be combined with openings" in load_error(tmp_path, text)


def test_the_example_control_file_loads() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "clock.ctl"
    config = load_control_file(example)
    main, odds, fast = config.playoff.matchups
    assert main.settings.time_control == TimeControl("byoyomi", 10, 0.5, periods=3)
    assert main.settings.time_margin == 0.1
    assert fast.settings.time_control == TimeControl("per_move", period_time=0.2)
    assert config.players["rave-half"].time_control == TimeControl("byoyomi", 5, 0.25, periods=3)
    assert main.openings is not None and len(main.openings.openings) == 4
    assert all(len(o.moves) == 6 for o in main.openings.openings)
    assert odds.alternating


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _example_with_openings(tmp_path: Path, name: str, extra: str = "") -> Path:
    text = (EXAMPLES / name).read_text().replace("board_size = 7", "board_size = 9")
    # make_candidate runs the sample engine from the examples folder's point of view.
    path = write(tmp_path, text + "openings = 'openings'\n" + extra, name)
    return path


def test_the_cross_entropy_tuner_plays_each_sample_through_the_openings_in_pairs(
    tmp_path: Path,
) -> None:
    from arena.competitions.ce_tuner import CeTuner

    suite(tmp_path)
    tuner = CeTuner(load_control_file(_example_with_openings(tmp_path, "ce_tuner.ctl")), seed=5)
    jobs = [job for job in (tuner.next_job() for _ in range(24)) if job is not None]
    by_sample: dict[str, list[GameJob]] = {}
    for job in jobs:
        by_sample.setdefault(job.pairing, []).append(job)
    assert len(by_sample) > 1
    for sample_jobs in by_sample.values():
        sample_jobs.sort(key=lambda j: j.game_number)
        names = [job.opening.name if job.opening else None for job in sample_jobs]
        assert names == ["o0.sgf", "o0.sgf", "o1.sgf", "o1.sgf"][: len(names)]
        for first, second in zip(sample_jobs[::2], sample_jobs[1::2], strict=False):
            assert (first.black.code, first.white.code) == (second.white.code, second.black.code)


def test_the_cross_entropy_tuner_wants_an_even_batch_with_openings(tmp_path: Path) -> None:
    suite(tmp_path)
    text = (EXAMPLES / "ce_tuner.ctl").read_text().replace("board_size = 7", "board_size = 9")
    text = text.replace("batch_size = 4", "batch_size = 3") + "openings = 'openings'\n"
    message = load_error(tmp_path, text)
    assert message.endswith(
        "batch_size: must be even with openings (each opening is played"
        " twice, colours swapped), not 3"
    ), message


def test_the_spsa_tuner_plays_each_iteration_from_its_own_opening(tmp_path: Path) -> None:
    from arena.competitions.spsa_tuner import SpsaTuner

    suite(tmp_path)
    tuner = SpsaTuner(load_control_file(_example_with_openings(tmp_path, "spsa_tuner.ctl")), seed=5)
    jobs = jobs_of(tuner, 6)
    names = [job.opening.name if job.opening else None for job in jobs]
    assert names == ["o0.sgf", "o0.sgf", "o1.sgf", "o1.sgf", "o2.sgf", "o2.sgf"]
    for first, second in zip(jobs[::2], jobs[1::2], strict=True):
        assert first.pairing == second.pairing
        assert (first.black.code, first.white.code) == (second.white.code, second.black.code)
