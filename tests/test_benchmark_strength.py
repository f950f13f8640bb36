"""``benchmarks/engine_strength.py``: its control files, its reading of results, its verdicts.

The pure parts run on competitions written by hand (journal entries and SGF
records); one test plays a single short game against GNU Go through the arena.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sgfmill import sgf

from arena.competitions.loader import load_control_file
from arena.results import EndReason, GameResult
from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, StateStore, VoidEntry
from gtp.vertex import Colour
from tests.benchmark_scripts import load_benchmark

es = load_benchmark("engine_strength")

OURS, GNUGO = "uct-1000", "gnugo-l10"
OUR_DESCRIPTION = "arena-mcts 0.1.0\nseed {}\nplayouts 1000"
GNUGO_DESCRIPTION = "GNU Go:3.8"


def write_sgf(path: Path, moves: list[tuple[str, tuple[int, int] | None]]) -> None:
    game = sgf.Sgf_game(9)
    for colour, move in moves:
        game.extend_main_sequence().set_move(colour, move)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(game.serialise())


def fake_competition(directory: Path, code: str = "uct_1000_l10") -> Path:
    """Five counted games (two with the same moves), one void, one forfeit, one duplicate."""
    control = directory / f"{code}.ctl"
    control.write_text("# not run in these tests\n")
    files = CompetitionFiles.for_control_file(control)
    games = [
        (GameResult("vs-gnugo_0", OURS, GNUGO, Colour.BLACK, EndReason.RESIGN), 11),
        (GameResult("vs-gnugo_1", GNUGO, OURS, Colour.BLACK, EndReason.SCORE, 12.5), 12),
        (GameResult("vs-gnugo_2", OURS, GNUGO, Colour.BLACK, EndReason.SCORE, 3.5), 13),
        (GameResult("vs-gnugo_3", GNUGO, OURS, Colour.WHITE, EndReason.FORFEIT), 13),
        (GameResult("vs-gnugo_4", OURS, GNUGO, Colour.WHITE, EndReason.SCORE, 0.5), 14),
    ]
    store = StateStore(files, "playoff", durable=False)
    store.open()
    store.append(VoidEntry("vs-gnugo_3", "vs-gnugo", "engine crashed"))
    for result, seed in games:
        engines = {OURS: OUR_DESCRIPTION.format(seed), GNUGO: GNUGO_DESCRIPTION}
        store.append(ResultEntry(result, engines))
    store.append(ResultEntry(GameResult("vs-gnugo_0", OURS, GNUGO, None, EndReason.UNKNOWN)))
    store.close()
    repeated = [("b", (4, 4)), ("w", (2, 2)), ("b", None), ("w", None)]
    write_sgf(files.sgf_path("vs-gnugo_0"), [("b", (3, 3)), ("w", (5, 5))])
    write_sgf(files.sgf_path("vs-gnugo_1"), [("b", (4, 4)), ("w", (2, 6))])
    write_sgf(files.sgf_path("vs-gnugo_2"), repeated)
    write_sgf(files.sgf_path("vs-gnugo_3"), [("b", (4, 4))])
    write_sgf(files.sgf_path("vs-gnugo_4"), repeated)
    return control


def row(config: str, sims: int, games: int, wins: int, level: int = 10) -> object:
    return es.Row(
        config=config,
        sims=sims,
        level=level,
        games=games,
        wins=wins,
        jigo=0,
        no_result=0,
        voids=0,
        forfeits=0,
        opponent_forfeits=0,
        distinct_games=games,
        recorded_games=games,
        distinct_seeds=games,
        opponent=f"GNU Go 3.8 level {level}",
        updated=None,
    )


# ---------------------------------------------------------------------------
# Arguments and control files


def test_unknown_config_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(es.UsageError, match=r"unknown config 'tree'.*uct, rave"):
        es.parse_configs("uct,tree")
    assert es.parse_configs("rave, uct,rave") == ["rave", "uct"]


@pytest.mark.parametrize("text", ["0", "1000,x", "-5", ","])
def test_bad_sims_are_refused(text: str) -> None:
    with pytest.raises(es.UsageError, match="--sims"):
        es.parse_sims(text)


def test_bad_arguments_give_one_line_and_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert es.main(["--configs", "nope", "--games", "2"]) == 2
    assert es.main(["--configs", "uct"]) == 2  # no --games, not --report-only
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "engine_strength: unknown config 'nope' (known: uct, rave, heuristic-rave,"
        " heuristic-rave-graph, heuristic-rave-workers1, heuristic-rave-ladders,"
        " heuristic-rave-strict, heuristic-rave-lgrf, heuristic-rave-nakade,"
        " heuristic-rave-no-nakade, heuristic-rave-pv30, heuristic-rave-pv5,"
        " heuristic-rave-expand1, heuristic-rave-noresign, heuristic-rave-mercy20,"
        " heuristic-rave-expand8, heuristic-rave-expand8-mercy20, heuristic-rave-captures,"
        " heuristic-rave-amaf-any)",
        "engine_strength: give --games N (games per competition) or --report-only",
    ]


def test_a_config_the_engine_refuses_is_one_line_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(es.CONFIGS, "future", ("--no-such-flag", "x"))
    assert es.main(["--configs", "future", "--games", "1", "--workdir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith("engine_strength: config 'future': the engine refuses its options")
    assert "--no-such-flag" in err[0]
    assert list(tmp_path.iterdir()) == []  # nothing was started
    assert es.measure_sims_per_s("future", 10, es.speed_positions()) is None


def test_competition_codes_round_trip() -> None:
    code = es.competition_code("heuristic-rave-graph", 3000, 10)
    assert es.parse_competition_code(code) == ("heuristic-rave-graph", 3000, 10, "gnugo", None)
    code = es.competition_code("uct", 1000, 8, "arena")
    assert code == "uct_1000_l8_tt"
    assert es.parse_competition_code(code) == ("uct", 1000, 8, "arena", None)
    assert es.parse_competition_code("demo") is None
    assert es.parse_competition_code("uct_1000") is None


@pytest.mark.parametrize(
    ("given", "spec", "code"),
    [
        ("Absolute(60)", "Absolute(60)", "heuristic-rave_clock-absolute60_l10_tt"),
        (" ByoYomi(60,10, 3) ", "ByoYomi(60, 10, 3)", "heuristic-rave_clock-byoyomi60-10-3_l10_tt"),
        ("Canadian(600, 300, 25)", "Canadian(600, 300, 25)", None),
        ("Fischer(main=60, increment=2.5)", "Fischer(60, 2.5)", None),
        ("PerMove(0.5)", "PerMove(0.5)", "heuristic-rave_clock-permove0p5_l10_tt"),
    ],
)
def test_clocked_competition_codes_round_trip(given: str, spec: str, code: str | None) -> None:
    assert es.parse_time_control_spec(given) == spec
    made = es.competition_code("heuristic-rave", 3000, 10, "arena", spec)
    if code is not None:
        assert made == code
    assert "3000" not in made  # the clock, not the sims, names a clocked competition
    assert es.parse_competition_code(made) == ("heuristic-rave", 0, 10, "arena", spec)
    gnugo = es.competition_code("uct", 0, 8, "gnugo", spec)
    assert es.parse_competition_code(gnugo) == ("uct", 0, 8, "gnugo", spec)
    assert es.parse_competition_code("uct_clock-hourglass60_l10") is None
    assert es.parse_competition_code("uct_clock-absolute60-1_l10") is None


@pytest.mark.parametrize(
    "spec",
    [
        "Absolute(0)",
        "Absolute(-1)",
        "Absolute(60",
        "Hourglass(60)",
        "ByoYomi(60)",
        "ByoYomi(60, 10, 2.5)",
        "Absolute(1e3)",
        "Absolute(0.00001)",
        "Absolute(x=1)",
        "Absolute(60); import os",
        "",
    ],
)
def test_a_bad_time_control_is_one_line_and_status_2(
    spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(es.UsageError, match="--time-control"):
        es.parse_time_control_spec(spec)
    assert es.main(["--time-control", spec, "--games", "1", "--configs", "uct"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("engine_strength: --time-control:") and err.count("\n") == 1


def test_sims_are_refused_with_a_time_control(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--time-control", "Absolute(60)", "--sims", "3000", "--games", "1"]
    assert es.main(argv) == 2
    assert "--sims goes without --time-control" in capsys.readouterr().err


# The control file of the unclocked competition, as before --time-control: a running
# benchmark rewrites its .ctl whenever the text differs, so it must not change.
UNCLOCKED_CONTROL = """\
# Written by benchmarks/engine_strength.py on every run: edit the script, not this file.
competition_type = 'playoff'

description = 'heuristic-rave at 3000 simulations per move v GNU Go level 10, 9x9'

players = {
    'heuristic-rave-3000': Player(['/usr/bin/python3', '-m', 'engines.mcts', '--playouts', '3000', '--rave', 'mse', '--priors', 'heuristic'],
        cwd='/repo', is_reliable_scorer=False, move_timeout=900.0),
    'gnugo-l10': Player(['/usr/games/gnugo', '--mode', 'gtp', '--level', '10', '--chinese-rules', '--capture-all-dead'],
        is_reliable_scorer=False, move_timeout=900.0),
}

board_size = 9
komi = 7.5
scorer = 'internal'
move_limit = 400
reuse_engines = False
record_games = True

matchups = [
    Matchup('heuristic-rave-3000', 'gnugo-l10', id='vs-gnugo', alternating=True,
            number_of_games=200),
]
"""  # noqa: E501


def test_the_unclocked_control_file_is_unchanged() -> None:
    text = es.control_file_text(
        "heuristic-rave",
        3000,
        10,
        200,
        gnugo="/usr/games/gnugo",
        referee="arena",
        python="/usr/bin/python3",
        root=Path("/repo"),
    )
    assert text == UNCLOCKED_CONTROL
    assert es.competition_code("heuristic-rave", 3000, 10, "arena") == "heuristic-rave_3000_l10_tt"


def test_a_clocked_control_file_sets_the_clock_and_lets_time_decide(tmp_path: Path) -> None:
    spec = es.parse_time_control_spec("Absolute(60)")
    control = tmp_path / f"{es.competition_code('heuristic-rave', 0, 10, 'arena', spec)}.ctl"
    text = es.control_file_text(
        "heuristic-rave", 0, 10, 60, gnugo="/usr/games/gnugo", referee="arena", time_control=spec
    )
    assert "\ntime_control = Absolute(60)\n" in text
    assert "'--playouts', '0'" in text
    control.write_text(text)
    config = load_control_file(control)
    ours = config.players["heuristic-rave-clock"]
    assert ours.command[3:5] == ("--playouts", "0")
    assert ours.time_control is None  # the game's clock, the same for both
    assert ours.move_timeout == es.MOVE_TIMEOUT  # the backstop stays
    (matchup,) = config.playoff.matchups
    clock = matchup.settings.time_control
    assert clock is not None and (clock.system, clock.main_time) == ("absolute", 60.0)
    # the sims given are not the engine's: the clock decides
    again = es.control_file_text(
        "heuristic-rave", 3000, 10, 60, gnugo="/usr/games/gnugo", referee="arena", time_control=spec
    )
    assert "'--playouts', '0'" in again and "3000" not in again


def test_control_file_plays_alternating_9x9_scored_by_gnugo_alone(tmp_path: Path) -> None:
    control = tmp_path / f"{es.competition_code('rave', 3000, 10)}.ctl"
    control.write_text(es.control_file_text("rave", 3000, 10, 250, gnugo="/usr/games/gnugo"))
    config = load_control_file(control)
    ours, gnugo = config.players["rave-3000"], config.players["gnugo-l10"]
    assert ours.command[1:] == (
        "-m",
        "engines.mcts",
        "--playouts",
        "3000",
        "--rave",
        "mse",
        "--priors",
        "none",
    )
    assert "--seed" not in ours.command  # every game's fresh engine picks its own seed
    assert not ours.is_reliable_scorer and not ours.allow_claim
    assert gnugo.command == (
        "/usr/games/gnugo",
        "--mode",
        "gtp",
        "--level",
        "10",
        "--chinese-rules",
    )
    assert gnugo.is_reliable_scorer
    assert not config.reuse_engines
    (matchup,) = config.playoff.matchups
    assert (matchup.player_1, matchup.player_2) == ("rave-3000", "gnugo-l10")
    assert matchup.alternating and matchup.number_of_games == 250
    settings = matchup.settings
    assert (settings.board_size, settings.komi, settings.scorer) == (9, 7.5, "players")


def test_with_the_arena_as_referee_gnugo_captures_all_dead_and_nobody_is_asked(
    tmp_path: Path,
) -> None:
    # GNU Go's final_score calls seki stones dead; the arena counts the stones on the board
    control = tmp_path / f"{es.competition_code('uct', 1000, 10, 'arena')}.ctl"
    control.write_text(
        es.control_file_text("uct", 1000, 10, 20, gnugo="/usr/games/gnugo", referee="arena")
    )
    config = load_control_file(control)
    gnugo = config.players["gnugo-l10"]
    assert gnugo.command[-2:] == ("--chinese-rules", "--capture-all-dead")
    assert not gnugo.is_reliable_scorer
    (matchup,) = config.playoff.matchups
    assert matchup.settings.scorer == "internal"
    assert es.build_parser().parse_args([]).referee == "arena"


# ---------------------------------------------------------------------------
# Reading results


def test_a_competition_is_summarised_from_its_journal_and_records(tmp_path: Path) -> None:
    summary = es.read_competition(fake_competition(tmp_path))
    assert (summary.config, summary.sims, summary.level) == ("uct", 1000, 10)
    assert summary.games == 5  # the duplicate result of game 0 counts once
    assert summary.wins == 3  # games 0, 2 (ours black, black won) and 3 (gnugo forfeited)
    assert (summary.voids, summary.forfeits, summary.opponent_forfeits) == (1, 0, 1)
    assert (summary.distinct_games, summary.recorded_games) == (4, 5)
    assert summary.distinct_seeds == 4
    assert summary.opponent == "GNU Go 3.8 level 10"
    assert summary.win_rate == pytest.approx(0.6)
    assert summary.stderr == pytest.approx(math.sqrt(0.6 * 0.4 / 5))


def test_the_report_lists_competitions_with_games_and_writes_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_competition(tmp_path)
    (tmp_path / "rave_3000_l10.ctl").write_text("# no games yet\n")
    (tmp_path / "someone-elses.ctl").write_text("# not ours\n")
    output = tmp_path / "out.json"
    args = ["--report-only", "--no-speed", "--workdir", str(tmp_path), "--output", str(output)]
    assert es.main(args) == 0
    out = capsys.readouterr().out
    assert "60.0% ± 21.9%" in out
    assert "rave_3000" not in out and "someone" not in out
    (entry,) = json.loads(output.read_text())
    assert {"config", "sims", "games", "wins", "opponent", "sims_per_s"} <= set(entry)
    assert (entry["config"], entry["sims"], entry["games"], entry["wins"]) == ("uct", 1000, 5, 3)
    assert entry["opponent"] == "GNU Go 3.8 level 10"
    assert entry["sims_per_s"] is None  # --no-speed and no earlier measurement


def test_a_clocked_row_records_its_clock_and_our_losses_on_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ours = "uct-clock"
    control = tmp_path / "uct_clock-absolute60_l10_tt.ctl"
    control.write_text("# not run in these tests\n")
    files = CompetitionFiles.for_control_file(control)
    games = [
        GameResult("vs-gnugo_0", ours, GNUGO, Colour.BLACK, EndReason.RESIGN),
        GameResult("vs-gnugo_1", GNUGO, ours, Colour.BLACK, EndReason.TIME),  # ours lost on time
        GameResult("vs-gnugo_2", ours, GNUGO, Colour.WHITE, EndReason.FORFEIT),  # ours forfeited
        GameResult("vs-gnugo_3", GNUGO, ours, Colour.WHITE, EndReason.TIME),  # GNU Go on time
    ]
    store = StateStore(files, "playoff", durable=False)
    store.open()
    for seed, result in enumerate(games):
        engines = {ours: OUR_DESCRIPTION.format(seed), GNUGO: GNUGO_DESCRIPTION}
        store.append(ResultEntry(result, engines))
    store.close()
    summary = es.read_competition(control)
    assert (summary.config, summary.sims, summary.time_control) == ("uct", 0, "Absolute(60)")
    assert (summary.games, summary.wins) == (4, 2)
    assert (summary.forfeits, summary.time_losses, summary.opponent_forfeits) == (2, 1, 1)
    entry = summary.to_json()
    assert (entry["time_control"], entry["time_losses"], entry["sims"]) == ("Absolute(60)", 1, 0)
    assert es.read_competition(fake_competition(tmp_path)).to_json()["time_control"] is None
    output = tmp_path / "out.json"
    older = {"config": "uct", "sims": 1000, "level": 10, "games": 3, "wins": 1, "sims_per_s": 900}
    output.write_text(json.dumps([older]))  # an older row, without the key
    argv = ["--report-only", "--no-speed", "--workdir", str(tmp_path), "--output", str(output)]
    assert es.main(argv) == 0
    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if line.startswith("uct ") and "Absolute" in line]
    assert "n/a" in line and "Absolute(60) (1)" in line
    rows = json.loads(output.read_text())
    assert [(r["sims"], r.get("time_control")) for r in rows] == [
        (1000, None),
        (1000, None),
        (0, "Absolute(60)"),
    ]
    assert rows[2]["sims_per_s"] is None  # not measured under a clock
    assert "time_control" not in rows[0]  # the older row loads and is kept as it was


def test_a_clocked_row_never_supersedes_another_clock_or_the_unclocked() -> None:
    unclocked = {"config": "uct", "sims": 0, "level": 10, "engine_commit": "a"}
    minute = dict(unclocked, time_control="Absolute(60)")
    now = dict(unclocked, time_control="Absolute(120)", engine_commit="b")
    merged = es.merge_results([unclocked, minute], [now], lambda a, b: False)
    assert [r.get("superseded_by") for r in merged] == [None, None, None]
    later = dict(minute, engine_commit="c")
    merged = es.merge_results(merged, [later], lambda a, b: False)
    superseded = {
        r.get("time_control"): r.get("superseded_by") for r in merged if r["engine_commit"] != "c"
    }
    assert superseded == {None: None, "Absolute(60)": "c", "Absolute(120)": None}


def test_win_rate_and_standard_error() -> None:
    assert es.win_rate(30, 100) == pytest.approx((0.3, math.sqrt(0.21 / 100)))
    assert es.win_rate(0, 0) == (0.0, 0.0)


def test_verdicts_name_the_numbers_and_never_overclaim() -> None:
    rows = [
        row("uct", 3000, 100, 40),
        row("heuristic-rave", 3000, 100, 72),
        row("heuristic-rave-graph", 3000, 100, 70),
        row("heuristic-rave", 1000, 50, 20),
        row("heuristic-rave-graph", 1000, 50, 25),
        row("uct", 3000, 100, 99, level=1),  # another opponent: ignored
    ]
    best, graph = es.verdicts(rows, 10)
    assert best.startswith("best config at 3000 sims >= 70% v GNU Go level 10:")
    assert best.endswith(
        "heuristic-rave 72.0% ± 4.5% over 100 games: met (but 70% is within one standard error)"
    )
    assert "1000 sims: graph 50.0%" in graph and "tree 40.0%" in graph
    assert graph.index("1000 sims") < graph.index("3000 sims")
    assert "difference +10.0" in graph and "difference -2.0" in graph
    assert graph.split("; ")[0].endswith(": yes") and graph.endswith(": no")

    low = es.verdicts([row("uct", 3000, 100, 30)], 10)
    assert low[0].endswith("uct 30.0% ± 4.6% over 100 games: not met")
    near = es.verdicts([row("uct", 3000, 100, 67)], 10)
    assert near[0].endswith(
        "67.0% ± 4.7% over 100 games: not met (but 70% is within one standard error)"
    )
    assert low[1].endswith("not measured yet (no sims with games for both)")
    assert es.verdicts([], 10)[0].endswith("not measured yet (no games at 3000 sims)")


def test_results_keep_earlier_rows_and_mark_the_superseded(tmp_path: Path) -> None:
    output = tmp_path / "engine_strength.json"
    old = {
        "config": "uct",
        "sims": 1000,
        "level": 10,
        "games": 12,
        "wins": 0,
        "engine_commit": None,
    }
    other = {
        "config": "rave",
        "sims": 1000,
        "level": 10,
        "games": 12,
        "wins": 1,
        "engine_commit": None,
    }
    output.write_text(json.dumps([old, other]))
    now = {
        "config": "uct",
        "sims": 1000,
        "level": 10,
        "games": 5,
        "wins": 3,
        "engine_commit": "abc1234",
    }
    merged = es.merge_rows(es.earlier_rows(output), [now])
    assert [(r["config"], r["engine_commit"]) for r in merged] == [
        ("uct", None),
        ("rave", None),
        ("uct", "abc1234"),
    ]
    assert merged[0]["superseded_by"] == "abc1234"  # kept, and marked
    assert "superseded_by" not in merged[1]  # another configuration: untouched
    assert merged[2]["superseded_by"] is None
    # measuring the same commit again replaces its row instead of adding one
    again = es.merge_rows(merged, [dict(now, games=6)])
    assert [r["games"] for r in again] == [12, 12, 6]
    # a third commit supersedes the newest earlier row; the oldest keeps its successor
    third = es.merge_rows(again, [dict(now, engine_commit="fff0000")])
    assert [(r["engine_commit"], r["superseded_by"]) for r in third if r["config"] == "uct"] == [
        (None, "abc1234"),
        ("abc1234", "fff0000"),
        ("fff0000", None),
    ]
    # a row scored by the arena stands beside GNU Go's rows: it supersedes none of them
    arena = dict(now, engine_commit="def5678", referee="arena")
    beside = es.merge_rows(again, [arena])
    assert [r["superseded_by"] for r in beside if r["config"] == "uct"] == ["abc1234", None, None]
    assert es.earlier_rows(tmp_path / "missing.json") == []


def test_speed_positions_are_legal_and_measured() -> None:
    boards = es.speed_positions()
    assert [len(board.empties) for board in boards] == [81, 81 - 16, 81 - 30]
    speed = es.measure_sims_per_s("uct", 20, boards)
    assert speed is not None and speed > 0


def test_an_arena_stopped_short_of_its_batch_is_not_started_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `arena stop` lets the games in progress finish and exits 0: 3 of the 10 asked for
    counted = [0]
    batches: list[int | None] = []

    def run_arena(control: Path, *, parallel: int, max_games: int | None, label: str) -> int:
        batches.append(max_games)
        counted[0] += 3
        return 0

    monkeypatch.setattr(es, "run_arena", run_arena)
    monkeypatch.setattr(es, "counted_games", lambda control: counted[0])
    args = es.build_parser().parse_args(
        ["--configs", "uct", "--sims", "10", "--games", "10", "--batch", "0"]
    )
    args.configs, args.sims = es.parse_configs(args.configs), es.parse_sims(args.sims)
    es.run_competitions(args, tmp_path, "gnugo")
    assert batches == [10]
    assert "the arena stopped after 3 of 10 games; run this again to resume" in (
        capsys.readouterr().out
    )


# ---------------------------------------------------------------------------
# End to end


@pytest.mark.gnugo
def test_one_game_against_gnugo_through_the_arena_then_resume(
    gnugo: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", os.path.dirname(gnugo) + os.pathsep + os.environ["PATH"])
    common = ["--configs", "uct", "--sims", "10", "--level", "0", "--workdir", str(tmp_path)]
    assert es.main([*common, "--games", "1", "--no-speed"]) == 0
    assert es.main([*common, "--games", "1", "--no-speed"]) == 0  # complete: nothing to play
    (entry,) = json.loads((tmp_path / "engine_strength.json").read_text())
    assert (entry["config"], entry["sims"], entry["games"]) == ("uct", 10, 1)
    assert entry["opponent"].startswith("GNU Go") and entry["opponent"].endswith("level 0")
    assert entry["voids"] == 0 and entry["distinct_games"] == 1
    assert entry["referee"] == "arena"  # the default: the arena counts, GNU Go captures all dead
    assert sys.executable in (tmp_path / "uct_10_l0_tt.ctl").read_text()


def test_a_row_of_older_code_merged_late_is_the_one_superseded(tmp_path: Path) -> None:
    # a real repository with two commits: the older one is resumed and merged last
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(repo), *args],
            capture_output=True,
            text=True,
            check=True,
            env={
                **os.environ,
                "GIT_AUTHOR_NAME": "t",
                "GIT_AUTHOR_EMAIL": "t@t",
                "GIT_COMMITTER_NAME": "t",
                "GIT_COMMITTER_EMAIL": "t@t",
            },
        )
        return done.stdout.strip()

    git("init", "-q")
    git("commit", "-q", "--allow-empty", "-m", "old")
    old_commit = git("rev-parse", "--short=7", "HEAD")
    git("commit", "-q", "--allow-empty", "-m", "new")
    new_commit = git("rev-parse", "--short=7", "HEAD")
    older = es.git_older(repo)
    assert older(old_commit, new_commit) and not older(new_commit, old_commit)
    assert not older(old_commit, old_commit) and not older(None, new_commit)
    assert not older("ce3e74a+707e834", new_commit)  # not a commit git knows: merge order

    row = {
        "config": "heuristic-rave",
        "sims": 3000,
        "level": 10,
        "referee": "arena",
        "games": 200,
        "wins": 136,
    }
    first = es.merge_rows([], [dict(row, engine_commit=new_commit)], older)
    late = es.merge_rows(first, [dict(row, engine_commit=old_commit, games=124)], older)
    assert [(r["engine_commit"], r["superseded_by"]) for r in late] == [
        (new_commit, None),
        (old_commit, new_commit),
    ]
    # merged in commit order, the older row is superseded by the newer one as before
    in_order = es.merge_rows(
        es.merge_rows([], [dict(row, engine_commit=old_commit)], older),
        [dict(row, engine_commit=new_commit)],
        older,
    )
    assert [(r["engine_commit"], r["superseded_by"]) for r in in_order] == [
        (old_commit, new_commit),
        (new_commit, None),
    ]


def test_a_competition_keeps_the_engine_commit_it_started_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the games on disk were played by an older checkout: reported as its commit ...
    fake_competition(tmp_path)
    (tmp_path / "uct_1000_l10.commit").write_text("1111111\n")
    monkeypatch.setattr(es, "current_commit", lambda root: "2222222")
    assert (
        es.main(["--report-only", "--no-speed", "--configs", "uct", "--workdir", str(tmp_path)])
        == 0
    )
    (entry,) = json.loads((tmp_path / "engine_strength.json").read_text())
    assert entry["engine_commit"] == "1111111"
    # ... unless told otherwise
    assert (
        es.main(
            [
                "--report-only",
                "--no-speed",
                "--workdir",
                str(tmp_path),
                "--engine-commit",
                "3333333",
            ]
        )
        == 0
    )
    rows = json.loads((tmp_path / "engine_strength.json").read_text())
    assert [r["engine_commit"] for r in rows] == ["1111111", "3333333"]
    capsys.readouterr()
    # and resuming it from this checkout would mix two engines in one row: refused
    control = tmp_path / "uct_1000_l10.ctl"
    with pytest.raises(
        es.UsageError,
        match=r"uct_1000_l10: its 5 games were played by engine "
        r"commit 1111111, and this checkout is 2222222; give another --workdir",
    ):
        es.claim_commit(control, "uct_1000_l10", es.counted_games(control))
    monkeypatch.setattr(es, "run_arena", lambda *a, **k: pytest.fail("must not play"))
    args = es.build_parser().parse_args(["--configs", "uct", "--sims", "1000", "--games", "9"])
    args.configs, args.sims = es.parse_configs(args.configs), es.parse_sims(args.sims)
    code = es.competition_code("uct", 1000, 10, args.referee)
    (tmp_path / "run").mkdir()
    fake_competition(tmp_path / "run", code)
    (tmp_path / "run" / f"{code}.commit").write_text("1111111\n")
    with pytest.raises(es.UsageError, match="played by engine commit 1111111"):
        es.run_competitions(args, tmp_path / "run", "gnugo")
    # a fresh competition records this checkout's commit; resuming it from there is fine
    fresh = tmp_path / "rave_1000_l10.ctl"
    es.claim_commit(fresh, "rave_1000_l10", 0)
    assert es.recorded_commit(fresh) == "2222222"
    es.claim_commit(fresh, "rave_1000_l10", 3)
    # a competition from before commits were recorded is resumed as it was
    legacy = tmp_path / "uct_3000_l10.ctl"
    es.claim_commit(legacy, "uct_3000_l10", 5)
    assert es.recorded_commit(legacy) is None


def test_a_second_batch_is_pooled_with_the_first_into_one_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    fake_competition(first)
    (first / "uct_1000_l10.commit").write_text("1111111\n")
    fake_competition(second)
    (second / "uct_1000_l10.commit").write_text("2222222\n")
    files = CompetitionFiles.for_control_file(second / "uct_1000_l10.ctl")
    # the second batch's games differ from the first's, except game 1 (a repeat)
    write_sgf(files.sgf_path("vs-gnugo_0"), [("b", (6, 6)), ("w", (5, 5))])
    write_sgf(files.sgf_path("vs-gnugo_2"), [("b", (6, 2))])
    write_sgf(files.sgf_path("vs-gnugo_4"), [("b", (2, 6))])
    output = tmp_path / "results.json"
    assert (
        es.main(["--report-only", "--no-speed", "--workdir", str(first), "--output", str(output)])
        == 0
    )
    assert (
        es.main(
            [
                "--report-only",
                "--no-speed",
                "--workdir",
                str(second),
                "--pool-with",
                str(first),
                "--output",
                str(output),
            ]
        )
        == 0
    )
    assert "60.0% ± 15.5%" in capsys.readouterr().out  # the pooled row is the one reported
    earlier, pooled = json.loads(output.read_text())
    assert (earlier["engine_commit"], earlier["superseded_by"]) == ("1111111", "1111111+2222222")
    assert pooled["engine_commit"] == "1111111+2222222" and pooled["superseded_by"] is None
    assert (pooled["games"], pooled["wins"], pooled["voids"], pooled["opponent_forfeits"]) == (
        10,
        6,
        2,
        2,
    )
    assert pooled["win_rate"] == pytest.approx(0.6)
    assert pooled["stderr"] == pytest.approx(math.sqrt(0.24 / 10), abs=1e-4)
    # 4 distinct in the first batch, 3 new in the second (game 1 repeats, 2 and 4 differ)
    assert (pooled["distinct_games"], pooled["recorded_games"]) == (7, 10)
    assert pooled["distinct_seeds"] == 4  # both batches drew seeds 11 to 14: it shows


def test_pooling_is_refused_without_a_recorded_commit_or_when_playing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for directory in (first, second):
        directory.mkdir()
        fake_competition(directory)
    (second / "uct_1000_l10.commit").write_text("2222222\n")
    args = ["--report-only", "--no-speed", "--workdir", str(second), "--pool-with", str(first)]
    assert es.main(args) == 2
    err = capsys.readouterr().err
    assert "--pool-with" in err and "no engine commit recorded" in err
    assert len(err.strip().splitlines()) == 1
    assert es.main(["--games", "5", "--pool-with", str(first)]) == 2
    assert "--pool-with goes with --report-only" in capsys.readouterr().err
    assert es.main([*args[:-1], str(tmp_path / "missing")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_no_speed_keeps_a_figure_of_the_same_engine_commit_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_competition(tmp_path)
    (tmp_path / "uct_1000_l10.commit").write_text("2222222\n")
    output = tmp_path / "results.json"
    earlier = {
        "config": "uct",
        "sims": 1000,
        "level": 10,
        "referee": "gnugo",
        "games": 9,
        "wins": 1,
        "sims_per_s": 1234,
        "engine_commit": "1111111",
    }
    output.write_text(json.dumps([earlier]))
    args = ["--report-only", "--no-speed", "--workdir", str(tmp_path), "--output", str(output)]
    assert es.main(args) == 0
    rows = json.loads(output.read_text())
    assert [(r["engine_commit"], r["sims_per_s"]) for r in rows] == [
        ("1111111", 1234),
        ("2222222", None),  # the older code's speed is not this code's
    ]
    rows[1]["sims_per_s"] = 987  # as if measured with this code
    output.write_text(json.dumps(rows))
    assert es.main(args) == 0
    assert [r["sims_per_s"] for r in json.loads(output.read_text())] == [1234, 987]
    capsys.readouterr()
