"""``benchmarks/gomill_side_by_side.py``: its pure parts (no Gomill build, no harness run).

The move count read from SGF records, the per-move and per-game derivations, the RESULT
aggregation (medians of per-round ratios) and the control file both harnesses read.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.benchmark_scripts import BENCHMARKS, load_benchmark

gsbs = load_benchmark("gomill_side_by_side")

# as Gomill 0.8.3 writes a game: a comment before the last pass, in the same node
GOMILL_SGF = b"""(;FF[4]AP[gomill:0.8.3]
C[Event: t
Black x instant:1
White y instant:1]
GM[1]PB[instant:1]PW[instant:1]RE[W+7.5]SZ[9];B[df];W[ac];B[tt];
C[y beat x W+7.5]W[tt])
"""
# as the arena writes one: empty values for passes
ARENA_SGF = b"(;FF[4]AP[gtp-arena:0.1.0]PB[x]PW[y]AB[aa]SZ[9];B[hg];W[ih]\n;B[];W[])\n"


def test_moves_are_the_b_and_w_properties_passes_included() -> None:
    assert gsbs.count_moves(GOMILL_SGF) == 4
    assert gsbs.count_moves(ARENA_SGF) == 4


def test_brackets_and_letters_inside_values_are_not_moves() -> None:
    sgf = rb"(;C[a B[x\] W[y\] ;B[cc\]]GN[W]B[aa];W[bb])"
    assert gsbs.count_moves(sgf) == 2


def test_cpu_per_move_is_the_marginal_cost_of_the_extra_moves() -> None:
    # 40 games: 80 moves at 0.8 s, 2,480 moves at 0.944 s
    assert gsbs.cpu_per_move(0.944, 0.812, 2480, 80) == pytest.approx(0.132 / 2400)
    with pytest.raises(ValueError):
        gsbs.cpu_per_move(1.0, 0.5, 80, 80)


def test_cpu_per_game_leaves_out_the_startup() -> None:
    assert gsbs.cpu_per_game(0.5, 0.1, 40) == pytest.approx(0.01)
    with pytest.raises(ValueError):
        gsbs.cpu_per_game(0.5, 0.1, 0)


def runs(scale: float) -> dict[str, object]:
    Run = gsbs.Run
    return {
        "start": Run(0.1 * scale, 0.0, 0.1, 0, 0),
        "9x9 n0": Run(0.5 * scale, 2.0, 1.0, 40, 80),
        "9x9 n60": Run(0.74 * scale, 2.0, 1.0, 40, 2480),
        "19x19 n0": Run(0.3 * scale, 1.0, 1.0, 12, 24),
        "19x19 n300": Run(0.66 * scale, 1.0, 1.0, 12, 3624),
    }


def test_derive_gives_one_rounds_figures() -> None:
    figures = gsbs.derive(runs(1.0))
    assert figures["startup_cpu"] == pytest.approx(0.1)
    assert figures["cpu_per_move_9x9"] == pytest.approx(0.24 / 2400)
    assert figures["cpu_per_move_19x19"] == pytest.approx(0.36 / 3600)
    assert figures["cpu_per_game_9x9_n60"] == pytest.approx(0.64 / 40)
    assert figures["cpu_per_game_19x19_n300"] == pytest.approx(0.56 / 12)


def test_result_is_the_median_of_per_round_ratios() -> None:
    gomill = gsbs.derive(runs(1.0))
    rounds = [{"arena": gsbs.derive(runs(scale)), "gomill": gomill} for scale in (0.5, 3.0, 0.75)]
    result = gsbs.aggregate(rounds)
    for figure in gsbs.UNITS:
        assert result[f"{figure}_ratio"] == pytest.approx(0.75)
        assert result[f"{figure}_ratio_quartiles"] == pytest.approx([0.625, 1.875])
    assert result["arena_startup_cpu_ms"] == pytest.approx(75.0)
    assert result["gomill_startup_cpu_ms"] == pytest.approx(100.0)
    assert result["gomill_cpu_per_move_9x9_us"] == pytest.approx(100.0)
    for key in (
        "cpu_per_move_9x9_ratio",
        "cpu_per_move_19x19_ratio",
        "cpu_per_game_9x9_n60_ratio",
        "startup_cpu_ratio",
    ):
        assert key in result
    with pytest.raises(ValueError):
        gsbs.aggregate([])


def test_the_control_file_declares_the_case() -> None:
    case = gsbs.Case("9x9 n60", 9, 60, 40)
    text = gsbs.control_file(["python3", "engine.py"], case)
    # a control file is Python run with Player and Matchup in scope (both harnesses)
    scope: dict[str, object] = {
        "Player": lambda command: ("player", tuple(command)),
        "Matchup": lambda *players, **settings: ("matchup", players, settings),
    }
    exec(text, scope)
    command = ("python3", "engine.py", "--moves", "60")
    assert scope["players"] == {"x": ("player", command), "y": ("player", command)}
    assert scope["board_size"] == 9
    assert scope["skip_player_checks"] is True
    assert scope["matchups"] == [
        ("matchup", ("x", "y"), {"alternating": True, "number_of_games": 40})
    ]


def test_a_missing_build_script_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(gsbs.BenchmarkError, match="no Gomill peer build script"):
        gsbs.build_peer(tmp_path / "nowhere", tmp_path / "cache")


def test_the_trio_floor_is_reported_against_gomill_beside_the_arena() -> None:
    gomill = gsbs.derive(runs(1.0))
    rounds = [
        {"arena": gsbs.derive(runs(1.2)), "gomill": gomill, "floor": gsbs.derive(runs(scale))}
        for scale in (0.5, 0.9, 0.7)
    ]
    result = gsbs.aggregate(rounds)
    assert result["cpu_per_move_9x9_ratio"] == pytest.approx(1.2)
    assert result["floor_cpu_per_move_9x9_ratio"] == pytest.approx(0.7)
    assert result["floor_startup_cpu_ms"] == pytest.approx(70.0)
    # without --floor, no floor figure
    plain = gsbs.aggregate([{"arena": r["arena"], "gomill": r["gomill"]} for r in rounds])
    assert not any(key.startswith("floor") for key in plain)


def test_the_trio_floor_plays_the_side_by_sides_games(tmp_path: Path) -> None:
    """The floor harness reads a case's control file and plays it out with real engines."""
    engine = BENCHMARKS / "instant_engine.py"  # 30 moves a side on 9x9, then passes
    case = gsbs.Case("9x9 n60", 9, 60, 3)
    control = tmp_path / "bench.ctl"
    text = gsbs.control_file([sys.executable, str(engine)], case)
    control.write_text(text.replace(", '--moves', '60'", ""))  # (the peer's option)
    command = gsbs.harness_command("floor", Path("unused"), control, case)
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    records = sorted((tmp_path / "bench.games").glob("*.sgf"))
    assert len(records) == 3
    assert [gsbs.count_moves(path.read_bytes()) for path in records] == [62, 62, 62]
