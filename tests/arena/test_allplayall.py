"""All-play-all: letters and game ids, scheduling and colours, the grid, ratings, control rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.competitions.allplayall import AllPlayAll
from arena.competitions.loader import load_control_file
from arena.competitions.registry import make_competition
from arena.competitions.snapshots import AllPlayAllSnapshot
from arena.control.allplayall import competitor_letter
from arena.errors import ControlFileError, StateError
from arena.reports.allplayall import results_grid
from arena.reports.text import competition_report
from arena.results import EndReason
from gtp.vertex import Colour

from .helpers import result

B, W = Colour.BLACK, Colour.WHITE
PLAYERS = "players = {" + ", ".join(f"'{c}': Player('eng{c}')" for c in "abcdef") + "}\n"


def allplayall(
    directory: Path,
    competitors: str = "['a', 'b', 'c']",
    extra: str = "rounds = 2\n",
    name: str = "aa.ctl",
) -> AllPlayAll:
    path = directory / name
    path.write_text(
        "competition_type = 'allplayall'\n"
        + PLAYERS
        + f"board_size = 9\nkomi = 7.5\ncompetitors = {competitors}\n"
        + extra
    )
    competition = make_competition(load_control_file(path))
    assert isinstance(competition, AllPlayAll)
    return competition


def play_all(competition: AllPlayAll, winner: Colour | None = B) -> list[str]:
    """Issue every game and record it (Black wins unless told); returns the ids in order."""
    ids = []
    while (job := competition.next_job()) is not None:
        ids.append(job.game_id)
        end = EndReason.SCORE if winner is None else EndReason.RESIGN
        competition.record_result(
            result(job.game_id, job.black.code, job.white.code, winner, end), {}
        )
    return ids


@pytest.mark.parametrize(
    ("index", "letter"),
    [(0, "A"), (1, "B"), (25, "Z"), (26, "AA"), (27, "AB"), (51, "AZ"), (52, "BA"), (701, "ZZ"),
     (702, "AAA")],
)  # fmt: skip
def test_competitor_letters_run_a_to_z_then_aa(index: int, letter: str) -> None:
    assert competitor_letter(index) == letter


@pytest.mark.parametrize(
    ("rounds", "first", "last"),
    [
        ("None", "AvB_0", None),
        ("1", "AvB_0", "AvB_0"),
        ("10", "AvB_0", "AvB_9"),
        ("11", "AvB_00", "AvB_10"),
        ("100", "AvB_00", "AvB_99"),
        ("101", "AvB_000", "AvB_100"),
    ],
)
def test_game_ids_are_padded_to_the_width_of_the_last_round(
    tmp_path: Path, rounds: str, first: str, last: str | None
) -> None:
    competition = allplayall(tmp_path, "['a', 'b']", f"rounds = {rounds}\n")
    ids = []
    for _ in range(120):
        job = competition.next_job()
        if job is None:
            break
        ids.append(job.game_id)
    assert ids[0] == first
    if last is None:
        assert len(ids) == 120 and ids[11] == "AvB_11"  # unlimited: never padded, never ends
    else:
        assert ids[-1] == last


def test_pairing_with_fewest_games_goes_next_and_colours_alternate(tmp_path: Path) -> None:
    competition = allplayall(tmp_path)
    jobs = []
    while (job := competition.next_job()) is not None:
        jobs.append((job.game_id, job.black.code, job.white.code))
    assert jobs == [
        ("AvB_0", "a", "b"),
        ("AvC_0", "a", "c"),
        ("BvC_0", "b", "c"),
        ("AvB_1", "b", "a"),
        ("AvC_1", "c", "a"),
        ("BvC_1", "c", "b"),
    ]
    assert not competition.is_complete()  # issued, not finished
    for game_id, black, white in jobs:
        assert competition.record_result(result(game_id, black, white, B), {})
    assert competition.is_complete()
    assert not competition.record_result(result("AvB_0", "a", "b", W), {})  # a duplicate


def test_every_competitor_is_checked_with_the_game_settings(tmp_path: Path) -> None:
    checks = allplayall(tmp_path, extra="rounds = 0\nboard_size = 13\n").player_checks()
    assert [(c.player.code, c.settings.board_size) for c in checks] == [
        ("a", 13),
        ("b", 13),
        ("c", 13),
    ]


def test_grid_matches_gomills_layout(tmp_path: Path) -> None:
    path = tmp_path / "grid.ctl"
    path.write_text(
        "competition_type = 'allplayall'\n"
        "players = {c: Player('x') for c in ['gnugo-l1', 'gnugo-l2', 'gnugo-l3']}\n"
        "board_size = 9\nkomi = 6\nrounds = 20\n"
        "competitors = ['gnugo-l1', 'gnugo-l2', 'gnugo-l3']\n"
    )
    competition = make_competition(load_control_file(path))
    # The example grid of allplayalls.rst: l1 4-5 l2, l1 3-5 l3, l2 3-5 l3.
    wins = {"AvB": (4, 5), "AvC": (3, 5), "BvC": (3, 5)}
    numbers = dict.fromkeys(wins, 0)
    codes = {"A": "gnugo-l1", "B": "gnugo-l2", "C": "gnugo-l3"}
    for pairing, (first, second) in wins.items():
        p1, p2 = codes[pairing[0]], codes[pairing[2]]
        for winner, count in ((p1, first), (p2, second)):
            for _ in range(count):
                n = numbers[pairing]
                numbers[pairing] += 1
                black, white = (p1, p2) if n % 2 == 0 else (p2, p1)
                colour = B if winner == black else W
                competition.record_result(result(f"{pairing}_{n:02d}", black, white, colour), {})
    snapshot = competition.snapshot()
    assert isinstance(snapshot, AllPlayAllSnapshot)
    assert results_grid(snapshot) == [
        "            A   B   C",
        "A gnugo-l1     4-5 3-5",
        "B gnugo-l2 5-4     3-5",
        "C gnugo-l3 5-3 5-3",
    ]


def test_grid_counts_jigos_as_halves_and_leaves_out_unknown_results(tmp_path: Path) -> None:
    competition = allplayall(tmp_path, extra="rounds = 4\n")
    competition.record_result(result("AvB_0", "a", "b", B), {})
    competition.record_result(result("AvB_1", "b", "a", None), {})  # jigo
    competition.record_result(result("AvB_2", "a", "b", None, EndReason.UNKNOWN), {})
    competition.record_result(result("AvB_3", "b", "a", None, EndReason.MOVE_LIMIT), {})
    competition.record_result(result("AvC_0", "a", "c", None, EndReason.UNKNOWN), {})
    snapshot = competition.snapshot()
    assert results_grid(snapshot) == [
        "       A       B     C",
        "A a         1.5-0.5",
        "B b 0.5-1.5",
        "C c",
    ]
    first = snapshot.matchups[0].stats
    assert first is not None
    assert (first.pairing.wdl.wins, first.pairing.wdl.draws, first.pairing.wdl.unknown) == (1, 1, 2)


def test_report_has_grid_ratings_then_each_pairing_with_its_figures(tmp_path: Path) -> None:
    competition = allplayall(tmp_path, extra="rounds = 4\ndescription = 'three of them'\n")
    play_all(competition)  # Black always wins: every pairing is 2-2, every pair 1-1
    report = competition_report(competition.snapshot())
    lines = report.splitlines()
    assert lines[:4] == ["allplayall: aa", "", "three of them", ""]
    assert lines[4] == "board size: 9   komi: 7.5   rounds: 4   games played: 12"
    assert lines[6:10] == ["     A   B   C", "A a     2-2 2-2", "B b 2-2     2-2", "C c 2-2 2-2"]
    order = [
        report.index("ratings (Bradley-Terry, a = 0, 95% intervals"),
        report.index("AvB: a v b (4/4 games)"),
        report.index("AvC: a v c (4/4 games)"),
        report.index("BvC: b v c (4/4 games)"),
        report.index("player a: (no description yet)"),
    ]
    assert order == sorted(order)
    # Equal results: every rating and every pairing's Elo is 0; pairs are all 1-1.
    assert "colour-swapped pairs 0-0-2-0-0 (2 pairs)" in report
    assert "a v b: Elo 0 ± " in report
    ratings = competition.snapshot().ratings
    assert [round(r.elo.value, 6) if r.elo else None for r in ratings.players] == [0, 0, 0]


def test_ratings_follow_the_results_and_the_anchor(tmp_path: Path) -> None:
    competition = allplayall(tmp_path, extra="rounds = 20\nelo_anchor = 'b'\n")
    for job in iter(competition.next_job, None):
        # c beats everyone; a beats b.
        winner = "c" if "c" in (job.black.code, job.white.code) else "a"
        colour = B if job.black.code == winner else W
        competition.record_result(result(job.game_id, job.black.code, job.white.code, colour), {})
    ratings = competition.snapshot().ratings
    assert ratings.anchor == "b"
    elo = {r.player: r.elo for r in ratings.players}
    assert elo["b"] is not None and elo["b"].value == 0
    assert elo["a"] is not None and elo["c"] is not None
    assert 0 < elo["a"].lower < elo["a"].value < elo["c"].value
    report = competition_report(competition.snapshot())
    assert "ratings (Bradley-Terry, b = 0, 95% intervals" in report


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ("", "competitors: not set"),
        ("competitors = 'abc'\n", "competitors: expected a list of player codes"),
        ("competitors = ['a', 'x']\n", "competitors: unknown player 'x'"),
        ("competitors = ['a', 'b', 'a']\n", "competitors: player 'a' is listed more than once"),
        ("competitors = ['a']\n", "competitors: an all-play-all needs at least two competitors"),
        ("competitors = ['a', 'b']\nrounds = -1\n", "rounds: must not be negative, not -1"),
        ("competitors = ['a', 'b']\nrounds = 2.5\n", "rounds: expected an integer"),
        ("competitors = ['a', 'b']\nelo_anchor = 'c'\n", "elo_anchor: 'c' is not one of the"),
        ("competitors = ['a', 'b']\nhandicap = 2\n", "handicap: not used in an all-play-all"),
        ("competitors = ['a', 'b']\nmatchups = []\n", "matchups: not used in an all-play-all"),
    ],
)
def test_bad_settings_are_one_line_errors(tmp_path: Path, settings: str, expected: str) -> None:
    path = tmp_path / "bad.ctl"
    path.write_text(
        "competition_type = 'allplayall'\n" + PLAYERS + "board_size = 9\nkomi = 7.5\n" + settings
    )
    with pytest.raises(ControlFileError) as info:
        load_control_file(path)
    message = str(info.value)
    assert expected in message and "\n" not in message
    assert message.startswith(str(path))


def test_board_size_and_komi_are_required(tmp_path: Path) -> None:
    path = tmp_path / "bad.ctl"
    path.write_text(
        "competition_type = 'allplayall'\n" + PLAYERS + "komi = 7.5\ncompetitors = ['a', 'b']\n"
    )
    with pytest.raises(ControlFileError, match="board_size: not set"):
        load_control_file(path)


BEFORE = ("['a', 'b', 'c']", "rounds = 4\n")


@pytest.mark.parametrize(
    ("competitors", "extra"),
    [
        ("['a', 'b', 'c', 'd']", "rounds = 4\n"),  # a competitor added at the end
        ("['a', 'b', 'c']", "rounds = 6\n"),  # more rounds
        ("['a', 'b', 'c']", ""),  # unlimited
        ("['a', 'b', 'c']", "rounds = 4\nmove_limit = 300\nscorer = 'internal'\n"),
    ],
)
def test_allowed_changes_between_runs(tmp_path: Path, competitors: str, extra: str) -> None:
    old = allplayall(tmp_path, *BEFORE)
    play_all(old)
    state = json.loads(json.dumps(old.to_state()))
    new = allplayall(tmp_path, competitors, extra)
    new.load_state(state)
    assert new.snapshot().games_played == 12
    job = new.next_job()
    if "'d'" in competitors:
        assert job is not None and job.game_id == "AvD_0"  # the new pairings go first
    elif "rounds = 4" in extra:
        assert job is None and new.is_complete()
    else:
        assert job is not None and job.game_id == "AvB_4"


@pytest.mark.parametrize(
    ("competitors", "extra", "message"),
    [
        ("['a', 'b']", "rounds = 4\n", "competitors were a, b, c in earlier runs"),
        ("['a', 'c', 'b']", "rounds = 4\n", "none removed or reordered"),
        ("['d', 'a', 'b', 'c']", "rounds = 4\n", "may be added at the end of the list"),
        ("['a', 'b', 'c']", "rounds = 3\n", "rounds was 4 in earlier runs"),
        ("['a', 'b', 'c']", "rounds = 4\nboard_size = 13\n", "board_size was 9"),
        ("['a', 'b', 'c']", "rounds = 4\nkomi = 6.5\n", "komi was 7.5"),
    ],
)
def test_other_changes_between_runs_are_refused(
    tmp_path: Path, competitors: str, extra: str, message: str
) -> None:
    old = allplayall(tmp_path, *BEFORE)
    play_all(old)
    state = json.loads(json.dumps(old.to_state()))
    new = allplayall(tmp_path, competitors, extra)
    with pytest.raises(StateError, match=message):
        new.load_state(state)


def test_limiting_unlimited_rounds_is_refused(tmp_path: Path) -> None:
    old = allplayall(tmp_path, "['a', 'b']", "")
    state = old.to_state()
    with pytest.raises(StateError, match="rounds was unset"):
        allplayall(tmp_path, "['a', 'b']", "rounds = 10\n").load_state(state)


def test_journal_results_from_other_competitors_are_refused(tmp_path: Path) -> None:
    reordered = allplayall(tmp_path, "['b', 'a', 'c']")
    with pytest.raises(StateError, match="competitors A and B are now b and a"):
        reordered.record_result(result("AvB_0", "a", "c", B), {})
    shorter = allplayall(tmp_path, "['a', 'b']")
    with pytest.raises(StateError, match="game AvC_0 is not a game of this all-play-all"):
        shorter.record_result(result("AvC_0", "a", "c", B), {})


def test_void_games_halt_per_pairing_as_in_playoffs(tmp_path: Path) -> None:
    competition = allplayall(tmp_path)
    job = competition.next_job()
    assert job is not None and job.pairing == "AvB"
    assert competition.record_void(job.game_id, job.pairing, live=True)  # first game: halt
    again = competition.next_job()
    assert again is not None and again.game_id == "AvB_0"  # replayed with the same id


def test_state_round_trip_keeps_results_pairs_and_grid(tmp_path: Path) -> None:
    old = allplayall(tmp_path, extra="rounds = 3\n")
    play_all(old, winner=W)
    restored = allplayall(tmp_path, extra="rounds = 3\n")
    restored.load_state(json.loads(json.dumps(old.to_state())))
    assert competition_report(restored.snapshot()) == competition_report(old.snapshot())
    assert restored.is_complete()
    stats = restored.snapshot().matchups[0].stats
    assert stats is not None and stats.pairs.counts == (0, 0, 1, 0, 0)
