"""The playoff: scheduling, colours, replays, void halting, duplicates and state."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.competitions.playoff import Playoff
from arena.errors import StateError
from arena.results import EndReason
from gtp.vertex import Colour

from .helpers import playoff_config, result

B, W = Colour.BLACK, Colour.WHITE


def test_fewest_games_goes_next_and_limits_are_kept(tmp_path: Path) -> None:
    config = playoff_config(
        tmp_path,
        "Matchup('a', 'b', number_of_games=3), Matchup('a', 'c', id='x', number_of_games=1)",
    )
    playoff = Playoff(config)
    issued = []
    while (job := playoff.next_job()) is not None:
        issued.append(job.game_id)
    assert issued == ["0_0", "x_0", "0_1", "0_2"]
    assert not playoff.is_complete()
    for game_id in issued:
        black, white = ("a", "c") if game_id.startswith("x") else ("a", "b")
        assert playoff.record_result(result(game_id, black, white, B), {})
    assert playoff.is_complete()
    assert playoff.next_job() is None


def test_alternating_swaps_colours_on_odd_games(tmp_path: Path) -> None:
    playoff = Playoff(playoff_config(tmp_path, "Matchup('a', 'b', alternating=True)"))
    jobs = [playoff.next_job() for _ in range(4)]
    assert [(j.black.code, j.white.code) for j in jobs if j] == [
        ("a", "b"),
        ("b", "a"),
        ("a", "b"),
        ("b", "a"),
    ]
    assert [j.game_id for j in jobs if j] == ["0_0", "0_1", "0_2", "0_3"]  # unlimited: no padding


def test_non_alternating_keeps_the_first_player_black(tmp_path: Path) -> None:
    playoff = Playoff(playoff_config(tmp_path, "Matchup('b', 'a', number_of_games=12)"))
    jobs = [playoff.next_job() for _ in range(3)]
    assert [(j.game_id, j.black.code, j.white.code) for j in jobs if j] == [
        ("0_00", "b", "a"),
        ("0_01", "b", "a"),
        ("0_02", "b", "a"),
    ]


def test_abandoned_and_void_games_are_replayed_with_the_same_id(tmp_path: Path) -> None:
    playoff = Playoff(playoff_config(tmp_path, "Matchup('a', 'b', number_of_games=4)"))
    first, second, third = (playoff.next_job() for _ in range(3))
    assert first and second and third
    playoff.record_result(result(first.game_id, "a", "b", W), {})
    playoff.job_abandoned(second)
    assert not playoff.record_void(third.game_id, "0", live=True)
    again = [playoff.next_job() for _ in range(3)]
    assert [j.game_id for j in again if j] == ["0_1", "0_2", "0_3"]
    assert playoff.next_job() is None


def test_void_games_halt_as_gomill_does(tmp_path: Path) -> None:
    playoff = Playoff(playoff_config(tmp_path, "Matchup('a', 'b'), Matchup('a', 'c')"))
    # The first game of a matchup in this run is void: halt.
    job = playoff.next_job()
    assert job is not None and job.pairing == "0"
    assert playoff.record_void(job.game_id, job.pairing, live=True)
    # After a success, one void is tolerated, a second in a row halts.
    playoff.record_result(result("1_0", "a", "c", B), {})
    assert not playoff.record_void("1_1", "1", live=True)
    assert playoff.record_void("1_1", "1", live=True)
    # A success in between clears the probation.
    playoff.record_result(result("1_1", "a", "c", B), {})
    assert not playoff.record_void("1_2", "1", live=True)
    playoff.record_result(result("1_2", "a", "c", B), {})
    assert not playoff.record_void("1_3", "1", live=True)
    # Replayed voids only count.
    assert not playoff.record_void("0_9", "0", live=False)
    assert playoff.snapshot().matchups[0].tally.void_games == 2


def test_duplicate_results_are_ignored(tmp_path: Path) -> None:
    playoff = Playoff(playoff_config(tmp_path, "Matchup('a', 'b')"))
    assert playoff.record_result(result("0_5", "a", "b", B), {"a": "A 1.0"})
    assert not playoff.record_result(result("0_5", "a", "b", W), {})
    tally = playoff.snapshot().matchups[0].tally
    assert tally.games == 1 and tally.players["a"].wins == 1
    # game 5 is finished, so numbering skips it
    assert [playoff.next_job().game_id for _ in range(6)] == [  # type: ignore[union-attr]
        "0_0",
        "0_1",
        "0_2",
        "0_3",
        "0_4",
        "0_6",
    ]


def test_tally_counts_every_kind_of_result(tmp_path: Path) -> None:
    playoff = Playoff(playoff_config(tmp_path, "Matchup('a', 'b', alternating=True)"))
    results = [
        result("0_0", "a", "b", B, cpu=(1.0, 2.0)),
        result("0_1", "b", "a", B, EndReason.FORFEIT, cpu=(3.0, None)),
        result("0_2", "a", "b", W, EndReason.TIME),
        result("0_3", "b", "a", None, margin=0.0),
        result("0_4", "a", "b", None, EndReason.UNKNOWN),
        result("0_5", "b", "a", None, EndReason.MOVE_LIMIT),
    ]
    for item in results:
        playoff.record_result(item, {})
    tally = playoff.snapshot().matchups[0].tally
    a, b = tally.players["a"], tally.players["b"]
    assert (tally.games, tally.jigos, tally.unknown, tally.move_limit) == (6, 1, 1, 1)
    assert (a.wins, a.black_wins, a.white_wins, a.black_games, a.white_games) == (1.5, 1, 0.5, 3, 3)
    assert (b.wins, b.black_wins, b.white_wins) == (2.5, 1.5, 1)
    assert (a.forfeits, a.time_losses, b.forfeits, b.time_losses) == (1, 1, 0, 0)
    assert (a.average_cpu, b.average_cpu) == (1.0, 2.5)


def test_state_round_trip_and_resume(tmp_path: Path) -> None:
    config = playoff_config(tmp_path, "Matchup('a', 'b', number_of_games=5)")
    playoff = Playoff(config)
    for game_id in ("0_0", "0_1", "0_3"):
        playoff.record_result(result(game_id, "a", "b", B), {"a": "engine A"})
    playoff.record_void("0_2", "0", live=True)
    state = playoff.to_state()
    assert state["matchups"]["0"]["finished_below"] == 2
    assert state["matchups"]["0"]["finished_above"] == [3]
    resumed = Playoff(config)
    resumed.load_state(state)
    assert resumed.snapshot() == playoff.snapshot()
    assert [resumed.next_job().game_id for _ in range(2)] == ["0_2", "0_4"]  # type: ignore[union-attr]
    assert resumed.next_job() is None


def test_changed_players_are_refused_and_removed_matchups_kept(tmp_path: Path) -> None:
    config = playoff_config(tmp_path, "Matchup('a', 'b'), Matchup('a', 'c', id='gone')")
    playoff = Playoff(config)
    playoff.record_result(result("0_0", "a", "b", B), {})
    playoff.record_result(result("gone_0", "a", "c", B), {})
    state = playoff.to_state()
    changed = Playoff(playoff_config(tmp_path, "Matchup('c', 'b')"))
    with pytest.raises(StateError, match="inconsistent with the control file"):
        changed.load_state(state)
    shrunk = Playoff(playoff_config(tmp_path, "Matchup('b', 'a')"))
    shrunk.load_state(state)
    snapshot = shrunk.snapshot()
    assert [(m.id, m.settings is None, m.tally.games) for m in snapshot.matchups] == [
        ("0", False, 1),
        ("gone", True, 1),
    ]


@pytest.mark.parametrize(
    "state",
    [{}, {"matchups": {"0": {}}}, {"matchups": {"0": {"tally": {}, "finished_below": 0}}}],
)
def test_malformed_state_is_a_state_error(tmp_path: Path, state: dict[str, object]) -> None:
    playoff = Playoff(playoff_config(tmp_path, "Matchup('a', 'b')"))
    with pytest.raises(StateError):
        playoff.load_state(state)


def test_player_checks_use_each_players_first_matchup(tmp_path: Path) -> None:
    config = playoff_config(
        tmp_path,
        "Matchup('a', 'b', board_size=13, number_of_games=0),"
        " Matchup('c', 'a', board_size=7), Matchup('a', 'b', board_size=5)",
    )
    checks = Playoff(config).player_checks()
    assert [(c.player.code, c.settings.board_size) for c in checks] == [
        ("a", 7),
        ("b", 5),
        ("c", 7),
    ]
