"""engines.random as a real process over pipes: GTP-SGF-RULES.md §7.1 (E15-E38) and its play.

A small synchronous controller drives ``python -m engines.random``; the rules
board ``gtp.board`` is the referee that checks every move it generates.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
from collections.abc import Iterator

import pytest

from gtp.board import Board, format_score
from gtp.protocol import Response, ResponseReader
from gtp.vertex import Colour, Point, parse_vertex

GUARD_S = 30.0  # only against hangs; nothing here measures time

REQUIRED = [
    "protocol_version", "name", "version", "known_command", "list_commands", "quit",
    "boardsize", "clear_board", "komi", "play", "genmove",
]  # fmt: skip
ALSO = ["undo", "fixed_handicap", "set_free_handicap", "final_score", "showboard"]


class Engine:
    """A synchronous GTP controller for one ``python -m engines.random`` process."""

    def __init__(self, *options: str, game_id: str | None = None) -> None:
        env = {k: v for k, v in os.environ.items() if k != "GOMILL_GAME_ID"}
        if game_id is not None:
            env["GOMILL_GAME_ID"] = game_id
        self.process = subprocess.Popen(
            [sys.executable, "-m", "engines.random", *options],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.reader = ResponseReader()

    def send(self, command: str) -> Response:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command.encode() + b"\n")
        self.process.stdin.flush()
        fd = self.process.stdout.fileno()
        while (response := self.reader.next_response()) is None:
            ready, _, _ = select.select([fd], [], [], GUARD_S)
            assert ready, f"no answer to {command!r}"
            data = os.read(fd, 65536)
            assert data, f"the engine exited instead of answering {command!r}"
            self.reader.feed(data)
        return response

    def ok(self, command: str) -> str:
        response = self.send(command)
        assert response.ok, f"{command!r} failed: {response.text}"
        return response.text

    def fails(self, command: str) -> str:
        response = self.send(command)
        assert not response.ok, f"{command!r} succeeded: {response.text}"
        return response.text

    def genmove(self, colour: Colour, size: int) -> Point | None:
        return parse_vertex(self.ok(f"genmove {colour.gtp_name}"), size)

    def quit(self) -> tuple[int, bytes]:
        assert self.ok("quit") == ""
        _, stderr = self.process.communicate(timeout=GUARD_S)
        return self.process.returncode, stderr


@pytest.fixture
def engine() -> Iterator[Engine]:
    gtp = Engine("--seed", "1")
    yield gtp
    assert gtp.quit() == (0, b"")


@pytest.fixture(scope="module")
def shared() -> Iterator[Engine]:
    """One engine for the stateless tables; each case resets it first."""
    gtp = Engine("--seed", "2")
    yield gtp
    assert gtp.quit() == (0, b"")


def reset(gtp: Engine, size: int = 19) -> None:
    gtp.ok(f"boardsize {size}")
    gtp.ok("clear_board")
    gtp.ok("komi 7.5")


def test_required_and_listed_commands_are_known(engine: Engine) -> None:
    listed = engine.ok("list_commands").split("\n")
    assert set(REQUIRED + ALSO) <= set(listed)
    for command in listed:
        assert engine.ok(f"known_command {command}") == "true"
    assert engine.ok("known_command frobnicate") == "false"
    assert engine.ok("protocol_version") == "2"
    assert engine.ok("name") == "random"


def test_name_option() -> None:
    gtp = Engine("--name", "Randy")
    assert gtp.ok("name") == "Randy"
    assert gtp.quit() == (0, b"")


REJECTED = [
    # E15, E18: boardsize
    "boardsize", "boardsize -1", "boardsize abc", "boardsize 9.0", "boardsize 9 9",
    # E20: komi is a finite 32-bit float
    "komi", "komi NaN", "komi nan", "komi inf", "komi -inf", "komi 1e400", "komi 1e39",
    "komi 6,5", "komi 1_0", "komi 0x10", "komi 5 5",
    # E22, E23, E29, E31: play
    "play", "play red D4", "play D4", "play black", "play black I5", "play black T20",
    "play black A0", "play black Z25", "play black D04", "play black resign",
    "play black D4 E5",
    # E33: genmove
    "genmove", "genmove purple", "genmove black white",
    # E35, E36: handicap
    "fixed_handicap", "fixed_handicap 1", "fixed_handicap 10", "fixed_handicap 2.5",
    "fixed_handicap -2", "set_free_handicap", "set_free_handicap D4",
    "set_free_handicap D4 D4", "set_free_handicap pass Q16", "set_free_handicap Z99 D4",
    "set_free_handicap D4 I5",
    # E38: time
    "time_settings 600 30", "time_settings -1 0 0", "time_settings 1 2 three",
    "time_left black ten 0", "time_left purple 10 0",
]  # fmt: skip


@pytest.mark.parametrize("command", REJECTED)
def test_bad_arguments_fail_and_change_nothing(shared: Engine, command: str) -> None:
    reset(shared)
    text = shared.fails(command)
    assert text != "illegal move"  # a syntax error, not a rules verdict
    assert shared.ok("final_score") == "W+7.5"  # still the empty board and komi 7.5


@pytest.mark.parametrize("size", ["0", "1", "26", "99999"])
def test_e17_unacceptable_sizes(shared: Engine, size: str) -> None:
    reset(shared, 9)
    assert shared.fails(f"boardsize {size}") == "unacceptable size"
    assert shared.ok("final_score") == "W+7.5"


@pytest.mark.parametrize("size", [2, 7, 25])
def test_acceptable_sizes(shared: Engine, size: int) -> None:
    reset(shared, size)
    corner = "Z25" if size == 25 else "G7" if size == 7 else "B2"
    shared.ok(f"play black {corner}")
    assert shared.fails(f"play white {corner}") == "illegal move"


@pytest.mark.parametrize(
    ("komi", "score"),
    [("-1000", "B+1000"), ("1e6", "W+1000000"), ("0", "0"), ("5.5", "W+5.5"), ("+.5", "W+0.5")],
)
def test_e19_ridiculous_komi_is_accepted(shared: Engine, komi: str, score: str) -> None:
    reset(shared)
    assert shared.ok(f"komi {komi}") == ""
    assert shared.ok("final_score") == score


def test_e21_e25_e30_e32_plays(engine: Engine) -> None:
    engine.ok("boardsize 19")
    engine.ok("clear_board")
    assert engine.ok("play b d4") == ""  # colours and vertices in any case
    assert engine.ok("play W Q16") == ""
    assert engine.fails("play black D4") == "illegal move"
    assert engine.fails("play white q16") == "illegal move"
    assert engine.ok("play white D5") == ""  # the same colour twice is fine
    assert engine.ok("play white E5") == ""
    assert engine.ok("play black pass") == ""
    assert engine.ok("play W PASS") == ""
    # Black D4 + White Q16, D5, E5 on 19x19: area 1 vs 3, komi 7.5
    assert engine.ok("final_score") == "W+9.5"


def test_e26_immediate_ko_recapture_is_illegal(engine: Engine) -> None:
    engine.ok("boardsize 5")
    engine.ok("clear_board")
    for move in ["b B3", "b C2", "b C4", "w D2", "w D4", "w E3", "w C3", "b D3"]:
        engine.ok(f"play {move}")  # Black D3 takes the white stone on C3
    assert engine.fails("play w C3") == "illegal move"
    engine.ok("play w A1")  # a ko threat elsewhere
    engine.ok("play b A5")
    assert engine.ok("play w C3") == ""  # now the recapture is allowed


def test_e28_suicide_is_illegal(engine: Engine) -> None:
    engine.ok("boardsize 5")
    engine.ok("clear_board")
    for move in ["w A2", "w B1"]:
        engine.ok(f"play {move}")
    assert engine.fails("play b A1") == "illegal move"
    # two black stones that would leave themselves without a liberty
    for move in ["b E1", "w E2", "w D2", "w C1"]:
        engine.ok(f"play {move}")
    assert engine.fails("play b D1") == "illegal move"
    assert engine.ok("play w D1") == ""  # ...but White may play there and capture


@pytest.mark.parametrize("colour", ["black", "white"])
def test_e34_genmove_passes_when_only_pass_is_left(engine: Engine, colour: str) -> None:
    engine.ok("boardsize 2")
    engine.ok("clear_board")
    engine.ok("play b A1")
    engine.ok("play b B2")
    # White: A2 and B1 are suicide; Black: they are its own eyes.
    assert engine.ok(f"genmove {colour}").lower() == "pass"


def test_e35_fixed_handicap(engine: Engine) -> None:
    engine.ok("boardsize 19")
    engine.ok("clear_board")
    assert set(engine.ok("fixed_handicap 4").split()) == {"D4", "Q16", "D16", "Q4"}
    assert engine.fails("play white Q16") == "illegal move"
    assert engine.fails("fixed_handicap 2") == "board not empty"
    engine.ok("boardsize 9")
    engine.ok("clear_board")
    assert set(engine.ok("fixed_handicap 3").split()) == {"C3", "G7", "C7"}
    engine.ok("boardsize 8")
    engine.ok("clear_board")
    engine.fails("fixed_handicap 5")
    engine.ok("play black A1")
    assert engine.fails("fixed_handicap 2") == "board not empty"


def test_e36_set_free_handicap(engine: Engine) -> None:
    engine.ok("boardsize 19")
    engine.ok("clear_board")
    assert engine.ok("set_free_handicap D4 q16 K10") == ""
    assert engine.fails("play white K10") == "illegal move"
    assert engine.ok("final_score") == "B+353.5"
    assert engine.fails("set_free_handicap A1 A2") == "board not empty"


def test_e37_undo(engine: Engine) -> None:
    engine.ok("boardsize 9")
    engine.ok("clear_board")
    assert engine.fails("undo") == "cannot undo"
    engine.ok("fixed_handicap 2")
    assert engine.fails("undo") == "cannot undo"
    assert engine.fails("play white C3") == "illegal move"  # the handicap stays
    engine.ok("play white E5")
    assert engine.ok("undo") == ""
    assert engine.ok("play black E5") == ""  # E5 is empty again
    vertex = engine.ok("genmove white")
    assert engine.ok("undo") == ""
    assert engine.ok(f"play white {vertex}") == ""  # the generated move was taken back


def test_e38_time_commands(engine: Engine) -> None:
    assert engine.ok("time_settings 0 1 0") == ""
    assert engine.ok("time_settings 600 30 5") == ""
    assert engine.ok("time_left white 30 0") == ""


def test_showboard(engine: Engine) -> None:
    engine.ok("boardsize 5")
    engine.ok("clear_board")
    engine.ok("play black A1")
    engine.ok("play white E5")
    rows = {line.split()[0]: line.split()[1:6] for line in engine.ok("showboard").split("\n")}
    assert rows["A"] == ["B", "C", "D", "E"]
    assert rows["1"] == ["X", ".", ".", ".", "."]
    assert rows["5"] == [".", ".", ".", ".", "O"]


# --------------------------------------------------------------------------
# Playing: legal, never filling its own eyes, reproducible


def neighbours(point: Point, size: int, steps: list[tuple[int, int]]) -> list[Point]:
    row, col = point
    around = [(row + dr, col + dc) for dr, dc in steps]
    return [(r, c) for r, c in around if 0 <= r < size and 0 <= c < size]


def fills_own_eye(board: Board, colour: Colour, point: Point) -> bool:
    """An empty point surrounded by ``colour`` that is not a false eye."""
    size = board.size
    if any(
        board.get(n) is not colour
        for n in neighbours(point, size, [(1, 0), (-1, 0), (0, 1), (0, -1)])
    ):
        return False
    diagonals = neighbours(point, size, [(1, 1), (1, -1), (-1, 1), (-1, -1)])
    hostile = sum(board.get(d) is colour.opponent for d in diagonals)
    return hostile == 0 if len(diagonals) < 4 else hostile < 2


def test_plays_legal_moves_until_only_pass_is_left(engine: Engine) -> None:
    size = 7
    engine.ok(f"boardsize {size}")
    engine.ok("clear_board")
    engine.ok("komi 0.5")
    referee = Board(size)
    colour, passes, moves = Colour.BLACK, 0, 0
    while passes < 2:
        assert moves < 3000, "the game does not end"
        point = engine.genmove(colour, size)
        moves += 1
        if point is None:
            passes += 1
        else:
            passes = 0
            assert referee.is_legal(colour, point), f"move {moves}: illegal {point}"
            assert not fills_own_eye(referee, colour, point), f"move {moves}: own eye {point}"
        referee.play(colour, point)
        colour = colour.opponent
    assert moves > size * size // 2
    for mover in Colour:
        for point in referee.empty_points():
            assert fills_own_eye(referee, mover, point) or not referee.is_legal(mover, point)
    assert engine.ok("final_score") == format_score(referee.area_score(0.5))


def play_out(seed: str | None, count: int, game_id: str | None = None) -> list[str]:
    gtp = Engine(*(["--seed", seed] if seed is not None else []), game_id=game_id)
    gtp.ok("boardsize 9")
    gtp.ok("clear_board")
    moves = [gtp.ok(f"genmove {'black' if i % 2 == 0 else 'white'}") for i in range(count)]
    assert gtp.quit() == (0, b"")
    return moves


def test_a_seed_makes_games_reproducible() -> None:
    first = play_out("7", 40)
    assert play_out("7", 40) == first
    assert play_out("8", 40) != first


def test_each_game_of_an_arena_is_its_own_and_a_replay_the_same() -> None:
    """No --seed: the game id seeds it (GOMILL_GAME_ID), so games differ and replays agree."""
    first = play_out(None, 40, game_id="0_1")
    assert play_out(None, 40, game_id="0_1") == first
    assert play_out(None, 40, game_id="0_2") != first
    # --seed still fixes the game, whatever the id.
    assert play_out("7", 40, game_id="0_1") == play_out("7", 40, game_id="0_2")
