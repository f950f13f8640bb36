"""Clocks and openings through `arena run`, with real engines and the real clock.

GNU Go against the sample engine under byo-yomi, records read back with
sgfmill; and an opening suite of 8 SGF files in a 16-game playoff, each
opening played twice with colours swapped.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from sgfmill import sgf

ARENA = [sys.executable, "-m", "arena_cli"]


def arena_run(ctl: Path, *args: str) -> None:
    done = subprocess.run(
        [*ARENA, "run", str(ctl), "-q", *args], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr


def records(ctl: Path) -> list[sgf.Sgf_game]:
    games = sorted(ctl.with_suffix(".games").iterdir())
    return [sgf.Sgf_game.from_bytes(path.read_bytes()) for path in games]


@pytest.mark.gnugo
def test_gnugo_against_the_sample_engine_under_byo_yomi(tmp_path: Path, gnugo: str) -> None:
    ctl = tmp_path / "byoyomi.ctl"
    ctl.write_text(
        "competition_type = 'playoff'\n"
        "players = {\n"
        f"    'gnugo': Player([{gnugo!r}, '--mode', 'gtp', '--level', '1']),\n"
        f"    'mcts': Player([{sys.executable!r}, '-m', 'engines.mcts', '--playouts', '0',\n"
        "                    '--max-move-time', '0.15', '--seed', '1']),\n"
        "}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        "time_control = ByoYomi(main=2, period=1, periods=3)\n"
        "matchups = [Matchup('gnugo', 'mcts', alternating=True, number_of_games=2)]\n"
    )
    arena_run(ctl, "-j", "2")
    games = records(ctl)
    assert len(games) == 2
    for game in games:
        root = game.get_root()
        assert root.get("TM") == 2
        assert root.get("OT") == "3x1 byo-yomi"
        assert not root.get("RE").endswith("+T"), root.get("C")
        moves = game.get_main_sequence()[1:]
        assert len(moves) > 10
        for node in moves:
            colour, _ = node.get_move()
            left = node.get("BL" if colour == "b" else "WL")
            assert 0 <= left <= 2
            if node.has_property("OB" if colour == "b" else "OW"):
                assert left == 1  # byo-yomi: the period is full again after a move in it
    # Each engine was told the clock its own way: GNU Go by time_settings.
    log = ctl.with_suffix(".log").read_text()
    assert "refused" not in log


@pytest.mark.gnugo
def test_gnugo_under_fischer_is_told_its_true_time_before_each_move(
    tmp_path: Path, gnugo: str
) -> None:
    """GNU Go lists no kata-time_settings: the arena keeps its Fischer clock and says
    time_left with it, increments added, before every move (read from the GTP log)."""
    ctl = tmp_path / "fischer.ctl"
    ctl.write_text(
        "competition_type = 'playoff'\n"
        "players = {\n"
        f"    'gnugo': Player([{gnugo!r}, '--mode', 'gtp', '--level', '1']),\n"
        f"    'mcts': Player([{sys.executable!r}, '-m', 'engines.mcts', '--playouts', '0',\n"
        "                    '--seed', '1']),\n"
        "}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        "time_control = Fischer(main=5, increment=1)\n"
        "matchups = [Matchup('gnugo', 'mcts', number_of_games=1)]\n"
    )
    arena_run(ctl, "--log-gtp")
    (game,) = records(ctl)
    root = game.get_root()
    assert not root.get("RE").endswith("+T"), root.get("C")
    log = next(ctl.with_suffix(".gtplogs").iterdir()).read_text().splitlines()
    gnugo_sent = [line.split(">> ", 1)[1] for line in log if line.startswith("gnugo (black) >> ")]
    assert any(line.split()[1:] == ["time_settings", "5", "0", "0"] for line in gnugo_sent)
    told = [int(line.split()[3]) for line in gnugo_sent if line.split()[1:2] == ["time_left"]]
    black = [node for node in game.get_main_sequence()[1:] if node.get_move()[0] == "b"]
    assert len(told) == len(black) > 5
    assert told[0] == 5
    # Before each later move, the clock after the one before, in whole seconds (rounded down).
    for before, previous in zip(told[1:], black, strict=False):
        assert before == int(previous.get("BL") + 1e-9)


def write_openings(directory: Path) -> list[tuple[tuple[str, str], ...]]:
    """Eight 9x9 openings of four moves; returns each one's moves."""
    directory.mkdir()
    openings = []
    letters = "abcdefghi"
    for n in range(8):
        moves = (
            ("b", letters[n] + "c"),
            ("w", letters[n] + "g"),
            ("b", letters[(n + 3) % 9] + "e"),
            ("w", letters[(n + 5) % 9] + "a"),
        )
        body = ";".join(f"{c.upper()}[{point}]" for c, point in moves)
        (directory / f"opening{n}.sgf").write_text(f"(;FF[4]GM[1]SZ[9];{body})")
        openings.append(moves)
    return openings


def test_each_of_8_openings_is_played_twice_with_colours_swapped(tmp_path: Path) -> None:
    openings = write_openings(tmp_path / "openings")
    random_engine = [sys.executable, "-m", "engines.random"]
    ctl = tmp_path / "openings.ctl"
    ctl.write_text(
        "competition_type = 'playoff'\n"
        "players = {\n"
        f"    'r1': Player({[*random_engine, '--seed', '1']!r}),\n"
        f"    'r2': Player({[*random_engine, '--seed', '2']!r}),\n"
        "}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        "move_limit = 40\nreuse_engines = True\n"
        "openings = Openings('openings', order='random', seed=5)\n"
        "matchups = [Matchup('r1', 'r2', number_of_games=16)]\n"
    )
    arena_run(ctl, "-j", "2")
    games = records(ctl)
    assert len(games) == 16
    seen: dict[tuple[tuple[str, str], ...], list[tuple[str, str]]] = {}
    for game in games:
        nodes = game.get_main_sequence()[1:]
        # The opening is the moves up to the one commented as its end.
        end = next(
            i
            for i, node in enumerate(nodes)
            if node.has_property("C") and "End of opening" in node.get("C")
        )
        assert end == 3
        played = tuple(
            (colour, sgf_point(point))
            for colour, point in (node.get_move() for node in nodes[: end + 1])
        )
        root = game.get_root()
        seen.setdefault(played, []).append((root.get("PB"), root.get("PW")))
    assert Counter(len(players) for players in seen.values()) == {2: 8}
    assert set(seen) == set(openings)
    for first, second in seen.values():
        assert first == (second[1], second[0])  # colours swapped


def sgf_point(point: tuple[int, int] | None) -> str:
    assert point is not None
    row, col = point
    return "abcdefghi"[col] + "abcdefghi"[8 - row]
