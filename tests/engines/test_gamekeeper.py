"""engines.gamekeeper: the board commands both engines share, loadsgf and printsgf.

In process, the keeper's handlers are called as the server calls them; as
processes, ``engines.random`` and ``engines.mcts`` answer the same script
word for word; and GNU Go reads back what ``printsgf`` writes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sgfmill import sgf

from engines.gamekeeper import GameKeeper
from gtp.server import GtpFailure
from gtp.vertex import Colour, format_vertex

GUARD_S = 60.0

# Handicap 2, a white setup stone, then W E5, B D6, W E6, B pass.
RECORD = b"(;FF[4]GM[1]SZ[9]KM[0.5]HA[2]AB[cc][gg]AW[aa];W[ee];B[dd];W[ed];B[])"


def keeper() -> GameKeeper:
    return GameKeeper(9, 7.5)


def write(tmp_path: Path, data: bytes, name: str = "game.sgf") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def stones(game: GameKeeper, colour: Colour) -> set[str]:
    return {format_vertex(p, game.size) for p in game.board.stones(colour)}


def failure(call: object, *args: str) -> str:
    with pytest.raises(GtpFailure) as info:
        call(args)  # type: ignore[operator]
    return info.value.message


# --------------------------------------------------------------------------
# loadsgf


@pytest.mark.parametrize(
    ("until", "to_play", "black", "white", "moves"),
    [
        ((), "white", {"C7", "G3", "D6"}, {"A9", "E5", "E6"}, 4),  # all of it
        (("3",), "white", {"C7", "G3", "D6"}, {"A9", "E5"}, 2),  # before move 3
        (("1",), "white", {"C7", "G3"}, {"A9"}, 0),
        (("E6",), "white", {"C7", "G3", "D6"}, {"A9", "E5"}, 2),  # before the move at E6
        (("99",), "white", {"C7", "G3", "D6"}, {"A9", "E5", "E6"}, 4),
    ],
)
def test_loadsgf_replays_the_record_up_to_a_move(
    tmp_path: Path,
    until: tuple[str, ...],
    to_play: str,
    black: set[str],
    white: set[str],
    moves: int,
) -> None:
    new_games: list[int] = []
    game = keeper()
    game.on_new_game = lambda: new_games.append(game.size)
    game.boardsize(("13",))
    assert game.loadsgf((write(tmp_path, RECORD), *until)) == to_play
    assert (game.size, game.komi, game.handicap) == (9, 0.5, 2)
    assert stones(game, Colour.BLACK) == black and stones(game, Colour.WHITE) == white
    assert game.board.moves_played == moves
    assert game.side_to_move.gtp_name == to_play
    assert new_games == [13, 9]
    if moves:
        assert game.undo(()) == ""  # the replayed moves are the game's history
        assert game.board.moves_played == moves - 1


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (None, "No such file or directory"),
        (b"not sgf at all", "no SGF data found"),
        (b"(;SZ[9]KM[x])", "bad komi KM[x]"),
        (b"(;SZ[26])", "unacceptable size 26"),
        (b"(;SZ[9];B[ee];W[ee])", "move 2 (white E5) is illegal"),
        (b"(;SZ[9];B[ee];AW[aa])", "setup stones after the first node"),
    ],
)
def test_loadsgf_failures_name_the_file_and_change_nothing(
    tmp_path: Path, data: bytes | None, expected: str
) -> None:
    game = keeper()
    game.play(("b", "D4"))
    name = str(tmp_path / "missing.sgf") if data is None else write(tmp_path, data)
    message = failure(game.loadsgf, name)
    assert message.startswith(f"cannot load file {name!r}: ")
    assert expected in message
    assert (game.size, stones(game, Colour.BLACK), game.komi) == (9, {"D4"}, 7.5)


def test_loadsgf_arguments(tmp_path: Path) -> None:
    game = keeper()
    assert failure(game.loadsgf).startswith("syntax error")
    assert failure(game.loadsgf, "a", "b", "c").startswith("syntax error")
    name = write(tmp_path, RECORD)
    assert "not a move number or a vertex" in failure(game.loadsgf, name, "Z99")


# --------------------------------------------------------------------------
# printsgf


def test_printsgf_writes_setup_komi_handicap_and_moves(tmp_path: Path) -> None:
    game = keeper()
    game.set_komi(("0.5",))
    assert set(game.fixed_handicap(("2",)).split()) == {"G7", "C3"}
    for move in (("w", "E5"), ("b", "D6"), ("w", "pass")):
        game.play(move)
    text = game.printsgf(())
    record = sgf.Sgf_game.from_string(text)
    root = record.get_root()
    assert (record.get_size(), record.get_komi(), record.get_handicap()) == (9, 0.5, 2)
    assert root.get_setup_stones() == ({(6, 6), (2, 2)}, set(), set())
    moves = [node.get_move() for node in record.get_main_sequence()[1:]]
    assert moves == [("w", (4, 4)), ("b", (5, 3)), ("w", None)]
    assert "\n\n" not in text  # a GTP answer may not hold an empty line
    # Written to a file, read back by another keeper: the same game.
    path = tmp_path / "out.sgf"
    assert game.printsgf((str(path),)) == ""
    other = keeper()
    assert other.loadsgf((str(path),)) == "black"
    assert other.board.ascii() == game.board.ascii() and other.handicap == 2
    assert other.printsgf(()) == text


def test_printsgf_after_loadsgf_keeps_a_setup_position(tmp_path: Path) -> None:
    game = keeper()
    game.loadsgf((write(tmp_path, b"(;SZ[7]AB[cc]AW[dd]PL[W])"),))
    assert game.side_to_move is Colour.WHITE
    again = keeper()
    again.loadsgf((write(tmp_path, game.printsgf(()).encode(), "again.sgf"),))
    assert again.board.ascii() == game.board.ascii()
    assert again.side_to_move is Colour.WHITE and again.handicap == 0


def test_printsgf_to_an_unwritable_place(tmp_path: Path) -> None:
    name = str(tmp_path / "no" / "such" / "dir.sgf")
    assert failure(keeper().printsgf, name) == (
        f"cannot write file {name!r}: No such file or directory"
    )


# --------------------------------------------------------------------------
# Both engines, one set of answers

SCRIPT = [
    "boardsize", "boardsize 0", "boardsize 26", "boardsize x", "boardsize 9",
    "clear_board", "komi", "komi NaN", "komi 6.5",
    "play", "play black", "play red D4", "play black I5", "play black J10",
    "play black D4", "play white D4", "undo", "undo", "undo",
    "fixed_handicap 1", "fixed_handicap 2", "fixed_handicap 2", "clear_board",
    "fixed_handicap 10", "place_free_handicap 1", "set_free_handicap D4",
    "set_free_handicap D4 D4", "set_free_handicap pass E5", "set_free_handicap Z99 D4",
    "set_free_handicap D4 E5", "undo", "play white F6", "showboard",
    "boardsize 5", "place_free_handicap 9", "showboard", "clear_board",
    "loadsgf", "loadsgf /no/such/file.sgf", "loadsgf {record} 3", "showboard",
    "printsgf", "printsgf {written}", "loadsgf {written}", "showboard", "printsgf extra words",
]  # fmt: skip


def run_script(module: str, tmp_path: Path) -> list[str]:
    record = write(tmp_path, RECORD)
    written = tmp_path / f"{module}.sgf"
    script = (
        "".join(line.format(record=record, written=written) + "\n" for line in SCRIPT) + "quit\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", module, "--seed", "1"],
        input=script.encode(),
        capture_output=True,
        timeout=GUARD_S,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    return done.stdout.decode().replace(str(written), "WRITTEN").split("\n\n")[:-1]


def test_both_engines_answer_the_board_commands_alike(tmp_path: Path) -> None:
    random_answers = run_script("engines.random", tmp_path)
    mcts_answers = run_script("engines.mcts", tmp_path)
    assert len(random_answers) == len(SCRIPT) + 1
    assert random_answers == mcts_answers
    answers = dict(zip(SCRIPT, random_answers, strict=False))
    assert answers["boardsize 26"] == "? unacceptable size"
    assert answers["play white D4"] == "? illegal move"
    assert answers["fixed_handicap 1"] == "? invalid number of stones"
    assert answers["set_free_handicap D4 D4"].startswith("? bad vertex list")
    assert answers["loadsgf {record} 3"] == "= white"
    assert answers["printsgf"].startswith("= (;FF[4]")
    assert random_answers.count("? cannot undo") == 3  # twice after undoing D4, once at a handicap


@pytest.mark.gnugo
def test_gnu_go_reads_what_printsgf_writes(tmp_path: Path, gnugo: str) -> None:
    game = keeper()
    game.boardsize(("9",))
    game.fixed_handicap(("3",))
    for move in (("w", "E5"), ("b", "D6"), ("w", "C6"), ("b", "pass"), ("w", "F4")):
        game.play(move)
    path = tmp_path / "ours.sgf"
    game.printsgf((str(path),))
    done = subprocess.run(
        [gnugo, "--mode", "gtp"],
        input=f"loadsgf {path}\nlist_stones black\nlist_stones white\nquit\n".encode(),
        capture_output=True,
        timeout=GUARD_S,
        check=True,
    )
    to_play, black, white, _ = done.stdout.decode().split("\n\n")[:4]
    assert to_play == "= black"
    assert set(black.removeprefix("=").split()) == stones(game, Colour.BLACK)
    assert set(white.removeprefix("=").split()) == stones(game, Colour.WHITE)
