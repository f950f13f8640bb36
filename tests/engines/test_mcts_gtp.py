"""``python -m engines.mcts`` as a real subprocess: GTP conformance (GTP-SGF-RULES.md §7.1),
the engine's own commands, quitting during a long search, and the command line."""

from __future__ import annotations

import contextlib
import os
import re
import select
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import attrs
import pytest

from engines.mcts.config import SearchConfig
from engines.mcts.timecontrol import MARGIN_FLOOR, MIN_SIMULATIONS

ENGINE = [sys.executable, "-m", "engines.mcts"]
FAST = ["--playouts", "20", "--seed", "1", "--ownership-playouts", "100"]


class EngineProcess:
    """A line-oriented GTP conversation with a subprocess, with timeouts."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [*ENGINE, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._buffer = b""

    def send(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw)
        self.proc.stdin.flush()

    def read_response(self, timeout: float = 30.0) -> str:
        """The next response (up to its blank line), without the terminator."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no complete response; got {self._buffer!r}")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                data = os.read(fd, 65536)
                if not data:
                    raise EOFError(f"engine closed its output; got {self._buffer!r}")
                self._buffer += data
        response, self._buffer = self._buffer.split(b"\n\n", 1)
        return response.decode()

    def ask(self, line: str, timeout: float = 30.0) -> str:
        self.send(line.encode() + b"\n")
        return self.read_response(timeout)

    def ok(self, line: str) -> str:
        response = self.ask(line)
        assert response.startswith("="), f"{line!r} -> {response!r}"
        return response[1:].strip()

    def fails(self, line: str) -> str:
        response = self.ask(line)
        assert response.startswith("?"), f"{line!r} -> {response!r}"
        return response[1:].strip()

    def close(self) -> int:
        if self.proc.poll() is None:
            with contextlib.suppress(BrokenPipeError):
                self.send(b"quit\n")
        try:
            return self.proc.wait(10)
        finally:
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()


@pytest.fixture(scope="module")
def engine() -> Iterator[EngineProcess]:
    process = EngineProcess(*FAST)
    yield process
    assert process.close() == 0


@pytest.fixture
def fresh(engine: EngineProcess) -> EngineProcess:
    """The shared engine on a cleared 9x9 board with komi 7.5."""
    engine.ok("boardsize 9")
    engine.ok("clear_board")
    engine.ok("komi 7.5")
    return engine


# --------------------------------------------------------------------------
# §7.1, the bad-input catalogue (E-numbers)


@pytest.mark.parametrize(
    "noise",
    [b"\n", b" \t \t\n", b"# comment only\n"],
    ids=["E1-empty", "E2-whitespace", "E3-comment"],
)
def test_lines_without_a_command_get_no_response(engine: EngineProcess, noise: bytes) -> None:
    engine.send(noise)
    assert engine.ask("name") == "= arena-mcts"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("name # trailing comment", "= arena-mcts"),  # E4
        ("42 name", "=42 arena-mcts"),  # E9
        ("42 frobnicate", "?42 unknown command"),  # E10
        ("NAME", "? unknown command"),  # E11
        ("-5 name", "= arena-mcts"),  # E12
        ("protocol_version", "= 2"),
        ("known_command genmove", "= true"),
        ("known_command kgs-genmove_cleanup", "= true"),
        ("known_command frobnicate", "= false"),
    ],
)
def test_command_line_handling(engine: EngineProcess, line: str, expected: str) -> None:
    assert engine.ask(line) == expected


def test_tabs_become_spaces(engine: EngineProcess) -> None:  # E7
    commands = engine.ok("\tlist_commands\t").splitlines()
    for name in (
        "boardsize",
        "clear_board",
        "komi",
        "play",
        "genmove",
        "undo",
        "fixed_handicap",
        "place_free_handicap",
        "set_free_handicap",
        "final_score",
        "final_status_list",
        "showboard",
        "time_settings",
        "time_left",
        "kgs-time_settings",
        "kgs-genmove_cleanup",
        "gomill-describe_engine",
        "gomill-cpu_time",
        "gomill-explain_last_move",
        "gomill-genmove_ex",
        "quit",
    ):
        assert name in commands


@pytest.mark.parametrize(
    ("line", "answer"),
    [
        ("boardsize", None),  # E15
        ("boardsize 0", "unacceptable size"),  # E17
        ("boardsize 1", "unacceptable size"),
        ("boardsize 26", "unacceptable size"),
        ("boardsize 99999", "unacceptable size"),
        ("boardsize -1", None),  # E18
        ("boardsize abc", None),
        ("boardsize 9.0", None),
        ("komi NaN", None),  # E20
        ("komi inf", None),
        ("komi 1e400", None),
        ("komi 6,5", None),
        ("play black I5", None),  # E22
        ("play black J10", None),  # E23, off the 9x9 board
        ("play black A0", None),
        ("play red D4", None),  # E29
        ("play D4", None),
        ("play black", None),
        ("play black resign", None),  # E31
        ("genmove", None),  # E33
        ("genmove purple", None),
        ("fixed_handicap 1", "invalid number of stones"),  # E35
        ("fixed_handicap 10", "invalid number of stones"),
        ("fixed_handicap 2.5", None),
        ("set_free_handicap D4 D4", None),  # E36
        ("set_free_handicap D4", None),
        ("set_free_handicap pass E5", None),
        ("set_free_handicap Z99 D4", None),
        ("undo", "cannot undo"),  # E37
        ("time_settings 600 30", None),  # E38
        ("time_settings -1 0 0", None),
        ("time_left black ten 0", None),
        ("kgs-time_settings fischer 10 5", None),
        ("kgs-time_settings byoyomi 10 5", None),
        ("final_status_list zombie", None),
    ],
)
def test_bad_arguments_fail_without_harm(
    fresh: EngineProcess, line: str, answer: str | None
) -> None:
    message = fresh.fails(line)
    if answer is not None:
        assert message == answer
    assert fresh.ok("name") == "arena-mcts"  # still answering


@pytest.mark.parametrize(
    "line",
    [
        "komi -1000",  # E19
        "komi 1e6",
        "komi 0",
        "boardsize 2",
        "boardsize 25",
        "time_settings 0 1 0",  # E38: no time limit
        "time_settings 300 0 0",
        "time_settings 60 30 5",
        "time_left white 100 0",
        "time_left b 30 3",
        "kgs-time_settings none",
        "kgs-time_settings absolute 600",
        "kgs-time_settings byoyomi 600 30 5",
        "kgs-time_settings canadian 600 300 25",
        "play black pass",  # E30
        "play W PASS",
    ],
)
def test_acceptable_arguments(fresh: EngineProcess, line: str) -> None:
    fresh.ok(line)


def test_case_insensitive_moves_and_same_colour_twice(fresh: EngineProcess) -> None:  # E21, E32
    fresh.ok("boardsize 19")
    fresh.ok("clear_board")
    fresh.ok("play b d4")
    fresh.ok("play W Q16")
    fresh.ok("play white D5")
    fresh.ok("play white E6")
    assert fresh.fails("play black T20")  # E23 on 19x19
    assert fresh.fails("play black Z25")


def test_occupied_points_and_suicide_are_illegal(fresh: EngineProcess) -> None:  # E25, E28
    fresh.ok("play black D4")
    assert fresh.fails("play black D4") == "illegal move"
    assert fresh.fails("play white D4") == "illegal move"
    fresh.ok("play black A2")
    fresh.ok("play black B1")
    assert fresh.fails("play white A1") == "illegal move"  # a lone stone in Black's eye


def test_ko_recapture_is_illegal(fresh: EngineProcess) -> None:  # E26
    # Black: D5 E6 F5 E4(after capture); White: D4 F4 E3 and E5 to be captured.
    for move in ("b D5", "b E6", "b F5", "w E5", "w D4", "w F4", "w E3"):
        fresh.ok(f"play {move}")
    fresh.ok("play b E4")  # captures E5: a ko
    assert fresh.fails("play w E5") == "illegal move"
    fresh.ok("play w pass")
    fresh.ok("play b pass")
    fresh.ok("play w E5")  # legal once the ko threat passed


def test_genmove_passes_when_nothing_else_is_legal(engine: EngineProcess) -> None:  # E34
    engine.ok("boardsize 2")
    engine.ok("clear_board")
    engine.ok("play black A1")
    engine.ok("play black B2")
    assert engine.ok("genmove white") == "PASS".lower()


def test_handicap_commands(fresh: EngineProcess) -> None:  # E35, E37
    assert set(fresh.ok("fixed_handicap 3").split()) == {"C3", "G7", "C7"}
    assert fresh.fails("fixed_handicap 2") == "board not empty"
    fresh.ok("play white E5")
    fresh.ok("undo")
    assert fresh.fails("undo") == "cannot undo"
    board = fresh.ok("showboard")
    assert board.count("X") == 3
    fresh.ok("clear_board")
    placed = fresh.ok("place_free_handicap 4").split()
    assert len(placed) == 4 and len(set(placed)) == 4
    fresh.ok("clear_board")
    fresh.ok("set_free_handicap A1 B2 C3")
    assert fresh.ok("showboard").count("X") == 3
    assert fresh.fails("set_free_handicap D4 E5") == "board not empty"
    fresh.ok("boardsize 8")
    fresh.ok("clear_board")
    assert fresh.fails("fixed_handicap 5") == "invalid number of stones"


def test_genmove_plays_a_legal_move_and_explains_it(fresh: EngineProcess) -> None:
    move = fresh.ok("genmove black")
    assert move not in ("resign", "pass")
    assert fresh.fails(f"play white {move}") == "illegal move"  # the engine played it
    explanation = fresh.ok("gomill-explain_last_move")
    assert explanation.startswith(move)
    assert "win rate" in explanation and "visits" in explanation
    assert float(fresh.ok("gomill-cpu_time")) > 0


def test_describe_engine_is_name_version_and_what_differs_from_the_defaults(
    engine: EngineProcess,
) -> None:
    # A few lines for every SGF root comment and report: not every knob.
    name, *options = engine.ok("gomill-describe_engine").splitlines()
    assert name.startswith("arena-mcts ") and len(name.split()) == 2
    assert options == ["seed 1", "playouts 20", "ownership_playouts 100"]
    defaults = SearchConfig()
    rave = next(name for name in ("off", "k", "mse") if name != defaults.rave)
    noise = defaults.noise_fraction + 0.25
    process = EngineProcess("--seed", "5", "--rave", rave, "--noise", f"{noise:g}")
    try:
        _, *options = process.ok("gomill-describe_engine").splitlines()
        assert options == ["seed 5", f"noise_fraction {noise:g}", f"rave {rave}"]
    finally:
        assert process.close() == 0
    # Prior weights: only those changed, as --prior-weights takes them.
    process = EngineProcess("--seed", "5", "--prior-weights", "shape=2,atari=0")
    try:
        _, *options = process.ok("gomill-describe_engine").splitlines()
        assert options == ["seed 5", "prior_weights atari=0,shape=2"]
    finally:
        assert process.close() == 0


def test_genmove_ex_lists_its_keywords_and_claims_a_won_game(fresh: EngineProcess) -> None:
    assert fresh.ok("gomill-genmove_ex") == "claim"
    fresh.ok("boardsize 5")
    fresh.ok("clear_board")
    for move in ("A4", "B4", "C4", "D4", "E4", "B5", "D5", "A2", "B2", "C2", "D2", "E2"):
        fresh.ok(f"play black {move}")
    fresh.ok("play white C1")
    assert fresh.ok("gomill-genmove_ex black claim") == "claim"
    # without the keyword it just plays
    assert fresh.ok("gomill-genmove_ex black frobnicate") not in ("claim", "resign")


def test_dead_stones_and_score(fresh: EngineProcess) -> None:
    fresh.ok("boardsize 7")
    fresh.ok("clear_board")
    fresh.ok("komi 0.5")
    for col in "ABCDEFG":
        fresh.ok(f"play black {col}4")
        fresh.ok(f"play black {col}6")
        fresh.ok(f"play white {col}3")
        fresh.ok(f"play white {col}2")
    fresh.ok("play white C7")  # alone on the first line behind Black's wall: dead
    fresh.ok("play black F1")  # the same behind White's wall
    dead = fresh.ok("final_status_list dead").split()
    assert set(dead) == {"C7", "F1"}
    alive = fresh.ok("final_status_list alive").split()
    assert {"A4", "G6", "A3", "G2"} <= set(alive)
    assert not {"C7", "F1"} & set(alive)
    assert fresh.ok("final_status_list seki") == ""
    # Black rows 4 to 7 (28 points), White rows 1 to 3 (21) and komi 0.5
    assert fresh.ok("final_score") == "B+6.5"


SEKI = """
. . . . . . . . .
. X X X X X X X .
. X O O O O O X .
. X O X X X O X .
. X O X . . O X .
. X O O O O O X .
. X X X X X X X .
. . . . . . . . .
. . . . . . . . .
"""


def test_seki_is_recognised(fresh: EngineProcess) -> None:
    # The inner black chain and the white ring share E5 and F5; whoever fills
    # one is captured, so nobody does.
    for r, line in enumerate(SEKI.strip().splitlines()):
        for c, mark in enumerate(line.split()):
            if mark != ".":
                colour = "black" if mark == "X" else "white"
                fresh.ok(f"play {colour} {'ABCDEFGHJ'[c]}{9 - r}")
    seki = set(fresh.ok("final_status_list seki").split())
    assert seki == {
        "C4",
        "D4",
        "E4",
        "F4",
        "G4",
        "C5",
        "G5",
        "C6",
        "G6",
        "C7",
        "D7",
        "E7",
        "F7",
        "G7",
        "D5",
        "D6",
        "E6",
        "F6",
    }
    assert fresh.ok("final_status_list dead") == ""
    assert "B3" in fresh.ok("final_status_list alive").split()
    # Black: 81 points minus White's 14 stones and the 2 shared liberties
    assert fresh.ok("final_score") == "B+43.5"


def test_cleanup_genmove_removes_dead_stones_before_passing(fresh: EngineProcess) -> None:
    fresh.ok("boardsize 7")
    fresh.ok("clear_board")
    for col in "ABCDEFG":
        fresh.ok(f"play black {col}4")
        fresh.ok(f"play white {col}3")
    fresh.ok("play white C6")
    fresh.ok("play white pass")
    move = fresh.ok("kgs-genmove_cleanup black")
    assert move not in ("pass", "resign")


def test_engine_passes_after_a_pass_when_the_count_wins(fresh: EngineProcess) -> None:
    fresh.ok("boardsize 5")
    fresh.ok("clear_board")
    fresh.ok("komi 0.5")
    for col in "ABCDE":
        fresh.ok(f"play black {col}3")
    fresh.ok("play white pass")
    assert fresh.ok("genmove black") == "pass"


def test_showboard_draws_the_position(fresh: EngineProcess) -> None:
    fresh.ok("play black C3")
    fresh.ok("play white G7")
    board = fresh.ok("showboard")
    assert "A B C D E F G H J" in board
    assert board.count("X") == 1 and board.count("O") == 1


# --------------------------------------------------------------------------
# Quitting, determinism and the command line


# GTP is answered in order: every command read before ``quit`` or the end of
# input gets its real answer, with the whole search behind it, as GNU Go does
# (``echo 'genmove b' | gnugo --mode gtp`` thinks and plays).  A controller that
# wants the engine gone at once closes its pipes or sends SIGTERM.

VERTEX = re.compile(r"^[A-HJ-T](1[0-9]|[1-9])$")


def pipeline(script: str, *options: str) -> tuple[int, list[str]]:
    """``printf SCRIPT | python -m engines.mcts OPTIONS`` in a shell; (status, responses)."""
    engine = " ".join(shlex.quote(word) for word in [*ENGINE, *options])
    result = subprocess.run(
        f"printf {shlex.quote(script)} | {engine}",
        shell=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stderr == ""
    return result.returncode, result.stdout.split("\n\n")[:-1]


def test_the_printf_pipeline_answers_real_moves() -> None:
    status, answers = pipeline(
        "boardsize 9\nclear_board\nkomi 7.5\ngenmove b\ngenmove w\nquit\n",
        "--playouts",
        "50",
        "--seed",
        "3",
    )
    assert status == 0
    assert answers[:3] == ["=", "=", "="] and answers[5] == "="
    moves = [answer.removeprefix("= ") for answer in answers[3:5]]
    assert all(VERTEX.match(move) for move in moves), answers
    assert moves[0] != moves[1]


def test_echo_genmove_answers_a_real_move() -> None:
    status, answers = pipeline("genmove b\n", "--playouts", "50", "--seed", "3")
    assert status == 0 and len(answers) == 1
    assert VERTEX.match(answers[0].removeprefix("= ")), answers


@pytest.mark.parametrize("ending", ["quit\n", ""], ids=["quit", "eof"])
def test_a_genmove_queued_before_the_end_gets_the_full_search(ending: str) -> None:
    status, answers = pipeline(
        f"boardsize 9\ngenmove b\ngomill-explain_last_move\n{ending}",
        "--playouts",
        "300",
        "--seed",
        "3",
    )
    assert status == 0
    assert "300 root visits" in answers[2], answers


@pytest.mark.parametrize("how", ["closed-output", "sigterm"])
def test_the_controller_stops_a_long_genmove_at_once(how: str) -> None:
    # A minute of thinking, cut short by the controller's side of the pipes.
    process = EngineProcess("--playouts", "0", "--move-time", "60")
    try:
        process.ok("boardsize 9")
        process.send(b"genmove black\n")
        time.sleep(0.5)  # let the search get going
        assert process.proc.poll() is None
        if how == "closed-output":
            assert process.proc.stdout is not None
            process.proc.stdout.close()  # nobody reads the answer any more
            assert process.proc.wait(10) == 0
        else:
            process.proc.terminate()
            assert process.proc.wait(10) == -signal.SIGTERM
        assert process.proc.stderr is not None
        assert b"Traceback" not in process.proc.stderr.read()
    finally:
        if process.proc.poll() is None:
            process.proc.kill()
            process.proc.wait()
        for stream in (process.proc.stdin, process.proc.stdout, process.proc.stderr):
            if stream is not None and not stream.closed:
                with contextlib.suppress(BrokenPipeError):
                    stream.close()


@attrs.frozen
class Timing:
    """What ``gomill-explain_last_move`` says of a clocked move's time (seconds)."""

    visits: int
    took: float
    target: float
    planned: float
    limit: float
    margin: float


TIMING = re.compile(
    r"(?P<visits>\d+) root visits in (?P<took>[\d.]+) s \(target (?P<target>[\d.]+) s,"
    r" planned (?P<planned>[\d.]+) s, limit (?P<limit>[\d.]+) s, margin (?P<margin>[\d.]+) s\)"
)
ROUNDING = 0.002  # the explanation gives milliseconds; a few figures add up


def clocked_move(process: EngineProcess, colour: str) -> tuple[str, Timing]:
    move = process.ok(f"genmove {colour}")
    explanation = process.ok("gomill-explain_last_move")
    found = TIMING.search(explanation)
    assert found is not None, explanation
    numbers = found.groupdict()
    return move, Timing(int(numbers.pop("visits")), **{k: float(v) for k, v in numbers.items()})


def test_time_settings_bound_the_thinking_time() -> None:
    # Four seconds for the whole game: a move plans a small share of it, never
    # the 60 s that --move-time would otherwise allow.  Asserted is what the
    # engine planned and measured, never a wall-clock figure: the same on a
    # busy machine.
    process = EngineProcess("--playouts", "0", "--move-time", "60", "--seed", "2")
    try:
        process.ok("boardsize 9")
        process.ok("kgs-time_settings absolute 4")
        move, first = clocked_move(process, "black")
        assert VERTEX.match(move), move
        # Within the clock, less the margin the engine kept back ...
        assert first.limit == pytest.approx(4 - first.margin, abs=ROUNDING)
        assert first.target <= first.planned + ROUNDING
        assert first.planned <= first.limit + ROUNDING
        # ... and room for the minimum simulations, which the engine ran.
        assert first.visits >= MIN_SIMULATIONS
        _move, second = clocked_move(process, "white")  # White's clock is still full
        # The first move's overrun beyond its plan, as the engine measured it,
        # is now part of the margin.
        assert second.margin >= MARGIN_FLOOR + (first.took - first.planned) - ROUNDING
        assert second.limit == pytest.approx(4 - second.margin, abs=ROUNDING)
        _move, third = clocked_move(process, "black")
        # Black's own clock ran down by at least what the first move took.
        assert third.limit <= 4 - first.took - third.margin + ROUNDING
        assert third.visits >= 1
    finally:
        assert process.close() == 0


OPENING = ("b C7", "w G3", "b G7", "w C3", "b E5", "w E4")


@pytest.mark.parametrize(
    ("settings", "time_left"),
    [
        ("kgs-time_settings byoyomi 0 1 1", "time_left b 0 1"),
        ("kgs-time_settings canadian 0 1 1", "time_left b 0 1"),
        ("kgs-time_settings absolute 60", "time_left b 0.001 0"),
        ("kata-time_settings fischer 60 0", "time_left b 0.001 0"),
    ],
    ids=["byoyomi", "canadian", "absolute", "fischer"],
)
def test_no_time_left_still_plays_a_real_move(settings: str, time_left: str) -> None:
    # No time to search at all: the move comes from the priors, never a pass.
    process = EngineProcess("--playouts", "0", "--seed", "1")
    try:
        process.ok("boardsize 9")
        process.ok("clear_board")
        for move in OPENING:
            process.ok(f"play {move}")
        process.ok(settings)
        process.ok(time_left)
        answer = process.ok("genmove b")
        assert VERTEX.match(answer), answer
        assert answer not in {move.split()[1] for move in OPENING}
        explanation = process.ok("gomill-explain_last_move")
        assert "0 root visits" in explanation, explanation
        assert "the best move by the priors" in explanation, explanation
        assert "limit 0.000 s" in explanation, explanation
    finally:
        assert process.close() == 0


def test_same_seed_same_game() -> None:
    def moves(seed: str) -> list[str]:
        process = EngineProcess("--playouts", "30", "--seed", seed)
        try:
            process.ok("boardsize 7")
            played = [process.ok("genmove black"), process.ok("genmove white")]
            played.append(process.ok("genmove black"))
            return played
        finally:
            process.close()

    assert moves("7") == moves("7")


def test_help_lists_the_knobs() -> None:
    result = subprocess.run([*ENGINE, "--help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0
    for option in (
        "--playouts",
        "--seed",
        "--policy",
        "--selection",
        "--exploration",
        "--expand-threshold",
        "--temperature",
        "--noise",
        "--resign-threshold",
        "--move-time",
        "--max-move-time",
    ):
        assert option in result.stdout
    assert "uct" in result.stdout and "puct" in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--playouts", "lots"],
        ["--policy", "heavy"],
        ["--expand-threshold", "0"],
        ["--resign-moves", "0"],
    ],
)
def test_bad_options_are_one_clear_error(args: list[str]) -> None:
    result = subprocess.run([*ENGINE, *args], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "error:" in result.stderr.splitlines()[-1]


def _set_up_hopeless(engine: EngineProcess) -> None:
    """A game Black cannot win (7x7, komi 60.5), with moves left to play."""
    engine.ok("boardsize 7")
    engine.ok("clear_board")
    engine.ok("komi 60.5")


@pytest.mark.parametrize("moves", [1, 3])
def test_resigns_once_the_game_is_lost_at_resign_moves_genmoves_in_a_row(moves: int) -> None:
    """A lost game is resigned at the ``--resign-moves``-th genmove in a row that finds it
    lost, not at the first; a new game starts the count again."""
    engine = EngineProcess("--playouts", "300", "--seed", "3", "--resign-moves", str(moves))
    try:
        _set_up_hopeless(engine)
        answers = [engine.ok("genmove b") for _ in range(moves)]
        assert answers[-1] == "resign"
        assert "resign" not in answers[:-1]
        if moves > 1:
            _set_up_hopeless(engine)  # clear_board: the count starts again
            assert [engine.ok("genmove b") for _ in range(moves - 1)].count("resign") == 0
            assert engine.ok("genmove b") == "resign"
    finally:
        engine.close()
