"""The thinnest trio controller: a bound on what any trio-based arena can cost per move.

Issue 31 asks the arena's own CPU per 9x9 move to be at most 0.8x Gomill's
(``benchmarks/gomill_side_by_side.py``).  This script is not an arena: it is the
least a controller built on trio can do to play the side-by-side's games, so
that its CPU per move, measured by the side-by-side's own method
(``gomill_side_by_side.py --floor`` runs it as a third harness), says whether
0.8x is within reach of any trio design, or out of it.

What it does, and nothing more: reads the side-by-side's control file (a
playoff of two copies of one engine command, board size, number of games);
plays ``-j`` games at a time, each a trio task; starts both engines of a game
(``subprocess.Popen``, pipes), sets them up (``boardsize``, ``clear_board``,
``komi`` in one write), then plays the moves as the arena does: the opponent's
``play`` and the mover's ``genmove`` in one write (``gtp.connection.Connection``
frames them and checks the answers), the answer read with a non-blocking
``os.read`` and, when nothing is there yet, one ``trio.lowlevel.wait_readable``
on the pipe; every move refereed by ``gtp.board.Board``; the game ends at two
passes (the last pass told to the other engine); an SGF record with the moves
goes to ``<control file>.games/``; ``quit`` to both engines and a wait.

What it leaves out, all of which an arena needs: timeouts, clocks, engine
faults and their reports, stderr, events for a dashboard, journal and status
files, scoring, results.  So the real arena cannot be cheaper per move than
this; if this costs more than 0.8x Gomill's CPU per move, no arena on trio's
scheduler with this I/O reaches it.

Usage (as the side-by-side runs a harness): python benchmarks/trio_floor.py X.ctl run -j 2 -q [-g 0]
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import trio

from gtp.board import Board
from gtp.connection import Connection
from gtp.protocol import Response
from gtp.vertex import Colour, parse_move_answer, vertex_words

COLUMNS = "abcdefghijklmnopqrstuvwxyz"


class _Player:
    def __init__(self, command: list[str], **_: Any) -> None:
        self.command = command


class _Matchup:
    def __init__(self, *players: str, number_of_games: int = 1, **_: Any) -> None:
        self.players = players
        self.games = number_of_games


def read_control(path: Path) -> tuple[list[str], int, float, int]:
    """Engine command, board size, komi and number of games of a side-by-side control file."""
    names: dict[str, Any] = {"Player": _Player, "Matchup": _Matchup}
    exec(path.read_text(), names)  # the benchmark's own file: trusted
    players = names["players"]
    matchup = names["matchups"][0]
    return players[matchup.players[0]].command, names["board_size"], names["komi"], matchup.games


class Engine:
    """One engine process: its pipes and its sans-I/O connection."""

    def __init__(self, command: list[str], name: str) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.write_fd = self.process.stdin.fileno()
        self.read_fd = self.process.stdout.fileno()
        os.set_blocking(self.read_fd, False)
        self.connection = Connection(name)

    async def exchange(self, commands: tuple[tuple[str, ...], ...]) -> list[Response]:
        connection = self.connection
        os.write(self.write_fd, connection.send_many(commands))
        answers: list[Response] = []
        while True:
            try:
                data = os.read(self.read_fd, 65536)  # read before waiting, as gtp.client does
            except BlockingIOError:
                await trio.lowlevel.wait_readable(self.read_fd)
                continue
            if not data:
                raise RuntimeError(f"{connection.engine} went away")
            if connection.receive_all(data, answers):
                return answers

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self.write_fd, self.connection.send("quit"))
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        self.process.wait()
        self.process.stdout.close()


async def play_game(number: int, command: list[str], size: int, komi: float, records: Path) -> None:
    engines = [Engine(command, f"game{number}-b"), Engine(command, f"game{number}-w")]
    try:
        setup = (("boardsize", str(size)), ("clear_board",), ("komi", str(komi)))
        for engine in engines:
            await engine.exchange(setup)
        board = Board(size)
        vertices = vertex_words(size)
        colour, passes = Colour.BLACK, 0
        last: str | None = None
        nodes: list[str] = []
        while passes < 2:
            engine = engines[0 if colour is Colour.BLACK else 1]
            genmove = ("genmove", colour.gtp_name)
            commands = (
                (genmove,) if last is None else (("play", colour.opponent.gtp_name, last), genmove)
            )
            answers = await engine.exchange(commands)
            if not all(answer.ok for answer in answers):
                raise RuntimeError(f"game {number}: refused: {answers}")
            move = parse_move_answer(answers[-1].text, size)
            board.play(colour, move.point)
            if move.point is None:
                passes += 1
                nodes.append(f";{colour.gtp_name[0].upper()}[]")
                last = "pass"
            else:
                passes = 0
                row, column = move.point
                nodes.append(
                    f";{colour.gtp_name[0].upper()}[{COLUMNS[column]}{COLUMNS[size - 1 - row]}]"
                )
                last = vertices[move.point]
            colour = colour.opponent
        # the last pass reaches the other engine, as the arena tells it before scoring
        await engines[0 if colour is Colour.BLACK else 1].exchange(
            (("play", colour.opponent.gtp_name, "pass"),)
        )
        record = f"(;FF[4]GM[1]SZ[{size}]KM[{komi}]{''.join(nodes)})\n"
        (records / f"game_{number:03d}.sgf").write_text(record)
    finally:
        for engine in engines:
            engine.close()


async def run(control: Path, parallel: int, limit: int | None) -> None:
    command, size, komi, games = read_control(control)
    if limit is not None:
        games = min(games, limit)
    records = control.with_suffix(".games")
    records.mkdir(exist_ok=True)
    numbers = iter(range(games))

    async def slot() -> None:
        for number in numbers:
            await play_game(number, command, size, komi, records)

    async with trio.open_nursery() as nursery:
        for _ in range(parallel):
            nursery.start_soon(slot)


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] != "run":
        sys.exit("usage: trio_floor.py X.ctl run [-j N] [-q] [-g N]")
    control, options = Path(argv[0]), argv[2:]
    parallel, limit = 1, None
    if "-j" in options:
        parallel = int(options[options.index("-j") + 1])
    if "-g" in options:
        limit = int(options[options.index("-g") + 1])
    trio.run(run, control, parallel, limit)


if __name__ == "__main__":
    main(sys.argv[1:])
