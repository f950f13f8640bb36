"""Live analysis of ``python -m engines.mcts`` as Lizzie and Sabaki use it: ``lz-analyze`` and
``kata-analyze`` stream info lines until the controller sends another line, then end with a
blank line, and the engine goes on answering commands normally."""

from __future__ import annotations

import contextlib
import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import trio
import trio.testing

from engines.mcts import analysis
from engines.mcts.gtp_engine import EngineOptions, MctsEngine, build_server

ENGINE = [sys.executable, "-m", "engines.mcts", "--seed", "1", "--playouts", "50"]
VERTEX = re.compile(r"^(pass|[A-HJ-T]([1-9]|1[0-9]))$")


class Engine:
    """A GTP conversation with the engine subprocess, read line by line with timeouts."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            ENGINE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self._buffer = b""

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def read_line(self, timeout: float = 20.0) -> str:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no complete line; got {self._buffer!r}")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                data = os.read(self.proc.stdout.fileno(), 65536)
                if not data:
                    raise EOFError(f"engine closed its output; got {self._buffer!r}")
                self._buffer += data
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()

    def read_response(self) -> list[str]:
        """The lines of the next response, up to (not including) its blank line."""
        lines = [self.read_line()]
        while lines[-1] != "":
            lines.append(self.read_line())
        return lines[:-1]

    def ok(self, line: str) -> str:
        self.send(line)
        response = "\n".join(self.read_response())
        assert response.startswith("="), f"{line!r} -> {response!r}"
        return response[1:].strip()

    def analyse(self, line: str, info_lines: int, stop: str) -> tuple[str, list[str], list[str]]:
        """Start an analysis, let ``info_lines`` arrive, send ``stop``.

        Returns the status line, the info lines, and the response to ``stop``
        (empty when ``stop`` is an empty line, which gets no response).
        """
        self.send(line)
        header = self.read_line()
        assert header.startswith("="), f"{line!r} -> {header!r}"
        infos: list[str] = []
        while len(infos) < info_lines:
            got = self.read_line()
            assert got, f"{line!r}: response ended before {info_lines} info lines"
            infos.append(got)
        self.send(stop)
        while (got := self.read_line()) != "":
            infos.append(got)  # lines written before the engine saw ``stop``
        answer = self.read_response() if stop.strip() else []
        return header, infos, answer

    def close(self) -> int:
        if self.proc.poll() is None:
            with contextlib.suppress(BrokenPipeError):
                self.send("quit")
        try:
            return self.proc.wait(10)
        finally:
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    process = Engine()
    try:
        yield process
    finally:
        assert process.close() == 0


def blocks(line: str) -> list[dict[str, str | list[str]]]:
    """Split one info line into its moves: key/value pairs, then ``pv`` and its moves."""
    assert line.startswith("info "), line
    parsed: list[dict[str, str | list[str]]] = []
    for chunk in line.split("info ")[1:]:
        words = chunk.split()
        if "ownership" in words:  # kata-analyze puts ownership after the last move
            words = words[: words.index("ownership")]
        pv = words.index("pv")
        fields: dict[str, str | list[str]] = dict(zip(words[:pv:2], words[1:pv:2], strict=True))
        fields["pv"] = words[pv + 1 :]
        parsed.append(fields)
    return parsed


def check_lz_line(line: str) -> int:
    """Check one lz-analyze line as Lizzie reads it; returns its total visits."""
    moves = blocks(line)
    assert moves
    for order, move in enumerate(moves):
        assert {"move", "visits", "winrate", "prior", "lcb", "order", "pv"} <= move.keys()
        assert isinstance(move["move"], str) and VERTEX.match(move["move"])
        assert move["order"] == str(order)
        winrate, prior, lcb = (int(str(move[key])) for key in ("winrate", "prior", "lcb"))
        assert 0 <= lcb <= winrate <= 10000 and 0 <= prior <= 10000
        assert move["pv"] and move["pv"][0] == move["move"]
    visits = [int(str(m["visits"])) for m in moves]
    assert visits == sorted(visits, reverse=True) and visits[-1] > 0
    return sum(visits)


def test_lz_analyze_streams_until_the_next_command(engine: Engine) -> None:
    engine.ok("boardsize 9")
    engine.ok("clear_board")
    engine.ok("play b E5")
    header, infos, answer = engine.analyse("lz-analyze 10", 3, "genmove w")
    assert header == "="
    totals = [check_lz_line(line) for line in infos]
    assert totals == sorted(totals) and totals[-1] > totals[0]  # the search goes on
    suggested = {m["move"] for line in infos for m in blocks(line)}
    assert "E5" not in suggested  # White to move: the occupied point is never offered
    assert len(answer) == 1 and answer[0].startswith("= ")
    move = answer[0][2:]
    assert VERTEX.match(move) and move != "E5"
    assert engine.ok("play b pass") == ""  # the game goes on after the analysis


def test_kata_analyze_for_a_given_colour_with_ownership(engine: Engine) -> None:
    engine.ok("boardsize 7")
    engine.ok("clear_board")
    header, infos, answer = engine.analyse(
        "kata-analyze white interval 10 maxmoves 3 ownership true", 2, ""
    )
    assert header == "=" and answer == []
    for line in infos:
        moves = blocks(line)
        assert 1 <= len(moves) <= 3
        for order, move in enumerate(moves):
            for key in ("utility", "winrate", "scoreMean", "scoreLead", "prior", "lcb", "order"):
                assert key in move, (key, line)
            winrate, lcb = float(str(move["winrate"])), float(str(move["lcb"]))
            assert 0.0 <= lcb <= winrate <= 1.0 and 0.0 <= float(str(move["prior"])) <= 1.0
            assert float(str(move["utility"])) == pytest.approx(2 * winrate - 1, abs=1e-5)
            assert move["order"] == str(order)
        ownership = line.split(" ownership ")[1].split()
        assert len(ownership) == 7 * 7 and all(-1 <= float(v) <= 1 for v in ownership)
    # An empty line stopped the analysis and got no answer of its own.
    assert engine.ok("genmove w") not in ("", "resign")
    assert engine.ok("name") == "arena-mcts"


def test_an_id_is_echoed_and_the_interrupting_command_answered(engine: Engine) -> None:
    engine.ok("boardsize 9")
    engine.ok("clear_board")
    header, infos, answer = engine.analyse("7 lz-analyze b 10 maxmoves 1", 2, "8 name")
    assert header == "=7"
    assert all(len(blocks(line)) == 1 for line in infos)
    assert answer == ["=8 arena-mcts"]


def test_analysis_commands_are_listed(engine: Engine) -> None:
    listed = engine.ok("list_commands").split()
    assert "lz-analyze" in listed and "kata-analyze" in listed
    assert engine.ok("known_command lz-analyze") == "true"
    assert engine.ok("known_command kata-analyze") == "true"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("lz-analyze -5", "interval must not be negative"),
        ("lz-analyze b soon", "unknown argument 'soon'"),
        ("lz-analyze x 10", "expected a colour"),
        ("kata-analyze 10 interval", "interval needs a value"),
        ("kata-analyze 10 maxmoves -1", "maxmoves needs a whole number"),
        ("kata-analyze 10 ownership maybe", "ownership needs true or false"),
        ("lz-analyze 10 ownership true", "unknown argument 'ownership'"),
        ("lz-analyze 10 avoid b D4 1", "avoid is not supported"),
    ],
)
def test_bad_arguments_fail_with_one_clear_line(engine: Engine, line: str, message: str) -> None:
    engine.send(line)
    response = engine.read_response()
    assert len(response) == 1 and response[0].startswith("? "), response
    assert message in response[0]
    assert engine.ok("name") == "arena-mcts"


def test_end_of_input_ends_the_analysis_and_the_engine() -> None:
    process = Engine()
    try:
        process.send("boardsize 9")
        assert process.read_response() == ["="]
        process.send("lz-analyze 5")
        assert process.read_line() == "="
        assert process.read_line().startswith("info move ")
        assert process.proc.stdin is not None
        process.proc.stdin.close()
        while process.read_line() != "":
            pass  # the response is closed by its blank line
        assert process.proc.wait(10) == 0
    finally:
        if process.proc.poll() is None:
            process.proc.kill()
            process.proc.wait()
        for stream in (process.proc.stdin, process.proc.stdout, process.proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()


async def test_a_full_tree_stops_growing_but_keeps_reporting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # In process, with the memory bound lowered from a million root visits to 40.
    monkeypatch.setattr(analysis, "ANALYSIS_MAX_VISITS", 40)
    server = build_server(MctsEngine(EngineOptions(playouts=20, seed=1)))
    to_engine, engine_in = trio.testing.memory_stream_one_way_pair()
    engine_out, from_engine = trio.testing.memory_stream_one_way_pair()
    buffer = b""

    async def read_line() -> str:
        nonlocal buffer
        with trio.fail_after(20):
            while b"\n" not in buffer:
                buffer += await from_engine.receive_some()
        line, buffer = buffer.split(b"\n", 1)
        return line.decode()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server.serve, engine_in, engine_out)
        await to_engine.send_all(b"boardsize 5\nlz-analyze 1\n")
        assert [await read_line(), await read_line()] == ["=", ""]  # boardsize
        assert await read_line() == "="
        totals: list[int] = []
        while totals[-3:] != [40, 40, 40]:  # the same tree, reported again and again
            totals.append(check_lz_line(await read_line()))
            assert totals[-1] <= 40
        await to_engine.send_all(b"genmove b\n")
        while (line := await read_line()) != "":
            totals.append(check_lz_line(line))
        assert max(totals) == 40 and totals == sorted(totals)
        answer = await read_line()
        assert VERTEX.match(answer[2:]) and answer.startswith("= ")
        await to_engine.send_all(b"quit\n")
        assert await read_line() == ""
        assert await read_line() == "="
