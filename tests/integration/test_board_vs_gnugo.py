"""Differential tests of gtp.board against GNU Go (a real process, one for the module).

Random games are played with our board (simple ko, suicide forbidden: GNU Go's
defaults) and replayed move by move into GNU Go, which must accept every move;
the ko recaptures and suicides our board refuses on the way are sent too, and
GNU Go must refuse them.  Stones and captures are compared along the way, and at
the end our Tromp-Taylor count is compared with GNU Go's ``final_score`` under
``--chinese-rules`` whenever GNU Go sees no dead stones.

GNU Go is driven by a small synchronous helper over pipes that uses our sans-I/O
layer (gtp.protocol), so these tests do not depend on the async client.
"""

from __future__ import annotations

import os
import random
import select
import subprocess
import time
from collections.abc import Iterator

import attrs
import pytest

from gtp.board import Board, fixed_handicap_points, format_score, max_fixed_handicap
from gtp.protocol import Response, ResponseReader, format_command
from gtp.vertex import Colour, Point, format_vertex, parse_vertex

pytestmark = pytest.mark.gnugo

GNUGO_ARGS = ("--mode", "gtp", "--chinese-rules")
COMMAND_TIMEOUT = 60.0  # seconds; final_score plays the game out, the rest is instant
GAMES = 500
SEED = 20240611
SIZES = (5, 5, 6, 7, 7, 9, 9, 9)
KOMIS = (0.5, 7.5, 0.0, -3.5)
STONE_CHECK_EVERY = 16  # moves between comparisons of the whole position


class GnuGo:
    """A synchronous GTP session with one GNU Go process over pipes."""

    def __init__(self, path: str) -> None:
        self._process = subprocess.Popen(
            [path, *GNUGO_ARGS],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self._reader = ResponseReader()
        self._next_id = 1

    def send(self, name: str, *args: str) -> Response:
        """Send one command and wait for its response (ids must match)."""
        command_id = self._next_id
        self._next_id += 1
        stdin = self._process.stdin
        stdout = self._process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(format_command(name, args, command_id))
        stdin.flush()
        deadline = time.monotonic() + COMMAND_TIMEOUT
        while True:
            response = self._reader.next_response()
            if response is not None:
                assert response.id == command_id, (name, args, response)
                return response
            left = deadline - time.monotonic()
            ready, _, _ = select.select([stdout.fileno()], [], [], max(left, 0))
            if not ready:
                pytest.fail(f"GNU Go gave no response to {name} {' '.join(args)} in time")
            data = os.read(stdout.fileno(), 65536)
            if not data:
                pytest.fail(f"GNU Go exited during {name} {' '.join(args)}")
            self._reader.feed(data)

    def ok(self, name: str, *args: str) -> str:
        response = self.send(name, *args)
        assert response.ok, f"GNU Go refused {name} {' '.join(args)}: {response.text}"
        return response.text

    def close(self) -> None:
        try:
            self.send("quit")
            self._process.wait(timeout=10)
        finally:
            if self._process.poll() is None:
                self._process.kill()
                self._process.wait()
            for pipe in (self._process.stdin, self._process.stdout):
                if pipe is not None:
                    pipe.close()


@pytest.fixture(scope="module")
def gnugo_session(gnugo: str) -> Iterator[GnuGo]:
    session = GnuGo(gnugo)
    try:
        yield session
    finally:
        session.close()


@attrs.define
class Tally:
    games: int = 0
    moves: int = 0
    passed_out: int = 0
    scored: int = 0
    handicap_games: int = 0
    refused_ko: int = 0
    refused_suicide: int = 0
    captures: int = 0


def parse_gnugo_score(text: str) -> float:
    """GNU Go's ``W+7.5`` / ``B+31.0`` / ``0`` as our signed score (> 0: White)."""
    if text == "0":
        return 0.0
    winner, _, margin = text.partition("+")
    assert winner in ("W", "B") and margin, text
    return float(margin) if winner == "W" else -float(margin)


def fills_own_eye(board: Board, colour: Colour, point: Point) -> bool:
    row, col = point
    size = board.size
    around = [(row + 1, col), (row - 1, col), (row, col + 1), (row, col - 1)]
    return all(board.get(p) is colour for p in around if 0 <= p[0] < size and 0 <= p[1] < size)


def vertices(points: list[Point], size: int) -> set[str]:
    return {format_vertex(p, size) for p in points}


def stones_from_gnugo(gnugo: GnuGo, colour: Colour) -> set[str]:
    return set(gnugo.ok("list_stones", colour.gtp_name).upper().split())


def check_position(board: Board, gnugo: GnuGo, record: list[str]) -> None:
    for colour in (Colour.BLACK, Colour.WHITE):
        assert stones_from_gnugo(gnugo, colour) == vertices(board.stones(colour), board.size), (
            f"{colour.gtp_name} stones differ after {' '.join(record)}\n{board}"
        )
        assert int(gnugo.ok("captures", colour.gtp_name)) == board.captures[colour], (
            f"{colour.gtp_name} captures differ after {' '.join(record)}\n{board}"
        )


def play_one_game(gnugo: GnuGo, rng: random.Random, tally: Tally) -> None:
    size = rng.choice(SIZES)
    komi = rng.choice(KOMIS)
    board = Board(size)  # simple ko, no suicide: GNU Go's defaults
    gnugo.ok("boardsize", str(size))
    gnugo.ok("clear_board")
    gnugo.ok("komi", f"{komi:g}")
    colour = Colour.BLACK
    handicap = 0
    if size >= 7 and rng.random() < 0.2:
        handicap = rng.randint(2, max_fixed_handicap(size))
        placed = set(gnugo.ok("fixed_handicap", str(handicap)).upper().split())
        stones = fixed_handicap_points(size, handicap)
        assert placed == vertices(stones, size), f"fixed_handicap {handicap} on {size}x{size}"
        board.place_handicap(stones)
        colour = Colour.WHITE
        tally.handicap_games += 1
    record = [f"{size}x{size} komi {komi:g} handicap {handicap}:"]
    passes = 0
    move_cap = 3 * size * size
    while passes < 2 and board.moves_played < move_cap:
        candidates = board.empty_points()
        rng.shuffle(candidates)
        chosen: Point | None = None
        probed = False
        for point in candidates:
            if fills_own_eye(board, colour, point):
                continue
            reason = board.legality(colour, point)
            if reason is None:
                chosen = point
                break
            if not probed and reason in ("ko", "suicide"):
                # We refuse it: GNU Go must refuse it too, and stay unchanged.
                probed = True
                vertex = format_vertex(point, size)
                response = gnugo.send("play", colour.gtp_name, vertex)
                assert not response.ok, (
                    f"GNU Go accepted {colour.gtp_name} {vertex}, which we refuse ({reason}),"
                    f" after {' '.join(record)}\n{board}"
                )
                assert response.text == "illegal move"
                if reason == "ko":
                    tally.refused_ko += 1
                else:
                    tally.refused_suicide += 1
        captured = board.play(colour, chosen)
        tally.captures += len(captured)
        vertex = format_vertex(chosen, size)
        record.append(f"{colour.letter}:{vertex}")
        response = gnugo.send("play", colour.gtp_name, vertex)
        assert response.ok, f"GNU Go refused {vertex}: {response.text}\n{' '.join(record)}\n{board}"
        passes = passes + 1 if chosen is None else 0
        colour = colour.opponent
        if board.moves_played % STONE_CHECK_EVERY == 0:
            check_position(board, gnugo, record)
    check_position(board, gnugo, record)
    tally.games += 1
    tally.moves += board.moves_played
    if passes < 2:
        return  # stopped by the move cap: the position is not settled
    tally.passed_out += 1
    if gnugo.ok("final_status_list", "dead").strip():
        return
    theirs = parse_gnugo_score(gnugo.ok("final_score"))
    ours = board.area_score(komi, handicap_compensation=handicap)
    assert ours == theirs, (
        f"area score {format_score(ours)} but GNU Go says {format_score(theirs)}"
        f" after {' '.join(record)}\n{board}"
    )
    tally.scored += 1


@pytest.mark.slow
def test_random_games_agree_with_gnugo(gnugo_session: GnuGo) -> None:
    rng = random.Random(SEED)
    tally = Tally()
    started = time.perf_counter()
    for _ in range(GAMES):
        play_one_game(gnugo_session, rng, tally)
    elapsed = time.perf_counter() - started
    print(
        f"\n{tally.games} games, {tally.moves} moves ({tally.captures} stones captured,"
        f" {tally.handicap_games} with handicap) in {elapsed:.1f}s;"
        f" refused by both: {tally.refused_ko} ko, {tally.refused_suicide} suicide;"
        f" {tally.passed_out} passed out, {tally.scored} scored against GNU Go's final_score"
    )
    assert tally.games == GAMES
    # Most games end with every group settled; the score check must cover many.
    assert tally.scored >= GAMES // 3
    assert tally.refused_ko >= 10
    assert tally.refused_suicide >= 10


# A ko: Black's C2 takes the white stone at B2; can White take back at B2?
KO_SETUP = ["B B3", "W C3", "B A2", "W D2", "B B1", "W C1", "W B2", "B C2"]


@pytest.mark.parametrize(
    ("between", "retake_allowed"),
    [
        pytest.param([], False, id="immediately"),
        pytest.param(["W pass", "B pass"], True, id="after-two-passes"),
        pytest.param(["W E5", "B E4"], True, id="after-moves-elsewhere"),
        pytest.param(["B E5"], True, id="after-black-moved-again"),
        pytest.param(["W E5"], True, id="after-white-moved-elsewhere"),
    ],
)
def test_ko_timing_agrees_with_gnugo(
    gnugo_session: GnuGo, between: list[str], retake_allowed: bool
) -> None:
    board = Board(5)
    gnugo_session.ok("boardsize", "5")
    gnugo_session.ok("clear_board")
    for move in [*KO_SETUP, *between]:
        colour_text, vertex = move.split()
        board.play(Colour.parse(colour_text), parse_vertex(vertex, 5))
        gnugo_session.ok("play", colour_text, vertex)
    assert board.is_legal(Colour.WHITE, parse_vertex("B2", 5)) is retake_allowed
    assert gnugo_session.send("play", "W", "B2").ok is retake_allowed


@pytest.mark.parametrize("size", [s for s in range(7, 20) if s != 12])
def test_fixed_handicap_agrees_with_gnugo(gnugo_session: GnuGo, size: int) -> None:
    # 12x12 is left out: GNU Go puts handicap on the 4th line from 12x12 up,
    # the GTP spec from 13x13 up.
    gnugo_session.ok("boardsize", str(size))
    for stones in range(2, max_fixed_handicap(size) + 1):
        gnugo_session.ok("clear_board")
        placed = gnugo_session.ok("fixed_handicap", str(stones)).split()
        points = {parse_vertex(v, size) for v in placed}
        assert points == set(fixed_handicap_points(size, stones)), (size, stones, placed)
    gnugo_session.ok("clear_board")
    refused = gnugo_session.send("fixed_handicap", str(max_fixed_handicap(size) + 1))
    assert not refused.ok
