"""An instant GTP engine that thinks by the clock: for ``clock_stress.py`` and the clock's tests.

It plays ``instant_engine.py``'s moves (Black fills the left columns and
White the right ones, no capture ever, then both pass) and, for each
genmove, sleeps a share (``--share``, default 0.9) of what its clock allows
that move, as it was told by ``time_settings``, ``kgs-time_settings``,
``kata-time_settings fischer`` and ``time_left`` (seconds may be decimals).
It times its own think with CLOCK_MONOTONIC from the moment it has read the
command line to the moment it writes the answer, and answers
``gomill-explain_last_move`` with that time in nanoseconds (``think_ns=N``),
so each move's SGF comment carries the engine's own figure next to what the
arena charged.

Misbehaviour on request: ``--sleep K:SECONDS`` thinks that long at its K-th
genmove of a game (from 1, counted from ``clear_board``; repeatable);
``--think SECONDS`` thinks that long when it knows no clock; ``--deaf`` lists
no time command and refuses them all; ``--refuse`` lists them but answers
each with a failure; ``--plain-time`` lists only GTP's own ``time_settings``
and ``time_left`` (as GNU Go does).

``--log FILE`` appends a line to FILE when each genmove is read (``start GAME
K NS PLANNED_NS``) and one when its answer is written (``end GAME K NS``), in
CLOCK_MONOTONIC nanoseconds, GAME being ``PID:N`` for this process's N-th game
(counted by ``clear_board``; its ``version`` says ``pid PID``): the engine's
own account of its time, even for a move the arena stopped waiting for.  Only the
standard library, so it starts fast.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from instant_engine import move_lists

BASE_COMMANDS = (
    "protocol_version",
    "name",
    "version",
    "list_commands",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "quit",
    "gomill-explain_last_move",
)
TIME_COMMANDS = ("time_settings", "time_left", "kgs-time_settings", "kata-time_settings")


class Clock:
    """What the engine was told about its time (KGS conventions)."""

    def __init__(self) -> None:
        self.system = "none"
        self.main = self.period = self.increment = 0.0
        self.count = 0  # byo-yomi periods or Canadian stones
        self.left: dict[str, tuple[float, int]] = {}

    def settings(self, system: str, numbers: list[float]) -> None:
        self.system = system
        self.main = numbers[0] if numbers else 0.0
        if system in ("byoyomi", "canadian"):
            self.period, self.count = numbers[1], int(numbers[2])
        elif system == "fischer":
            self.increment = numbers[1]
        self.left = {}

    def allowance(self, colour: str) -> float | None:
        """What the clock allows this move: the arena's own rule, seen from here."""
        if self.system == "none":
            return None
        seconds, count = self.left.get(colour, (self.main, 0))
        if self.system in ("absolute", "fischer"):
            return seconds
        if count == 0:  # main time, then the first period
            overtime = self.period * (self.count if self.system == "byoyomi" else 1)
            return seconds + overtime if seconds > 0 else overtime
        if self.system == "byoyomi":
            return count * self.period
        return seconds


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--share", type=float, default=0.9)
    p.add_argument("--think", type=float, default=0.0)
    p.add_argument("--sleep", action="append", default=[], help="K:SECONDS")
    p.add_argument("--deaf", action="store_true")
    p.add_argument("--refuse", action="store_true")
    p.add_argument("--plain-time", action="store_true")
    p.add_argument("--log", default=None, help="FILE: the engine's own times (see above)")
    return p.parse_args(argv)


def main(argv: list[str]) -> int:
    options = parse_args(argv)
    sleeps = {int(k): float(s) for k, s in (item.split(":") for item in options.sleep)}
    commands = BASE_COMMANDS if options.deaf else BASE_COMMANDS + TIME_COMMANDS
    if options.plain_time:
        commands = (*BASE_COMMANDS, "time_settings", "time_left")
    size = 19
    lists = move_lists(size)
    played = {"b": 0, "w": 0}
    genmoves = 0
    last_think_ns = 0
    clock = Clock()
    read, write, flush = sys.stdin.readline, sys.stdout.write, sys.stdout.flush
    pid, games = os.getpid(), 0
    game_id = f"{pid}:0"
    log_fd = None
    if options.log:
        log_fd = os.open(options.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    monotonic_ns = time.monotonic_ns
    while True:
        line = read()
        started = monotonic_ns()
        if not line:
            return 0
        words = line.split()
        if not words:
            continue
        ident = words.pop(0) if words[0].isdigit() else ""
        command, args = (words[0], words[1:]) if words else ("", [])
        ok, answer = True, ""
        if command in TIME_COMMANDS and (options.deaf or options.refuse):
            ok, answer = False, "unknown command" if options.deaf else "not today"
        elif command == "genmove":
            genmoves += 1
            colour = args[0][0].lower()
            allowed = clock.allowance(colour)
            think = options.think if allowed is None else options.share * allowed
            think = sleeps.get(genmoves, think)
            if log_fd is not None:  # one write: lines from many engines never interleave
                os.write(
                    log_fd, f"start {game_id} {genmoves} {started} {int(think * 1e9)}\n".encode()
                )
            if think > 0:
                time.sleep(max(0.0, think - (monotonic_ns() - started) / 1e9))
            moves = lists[colour]
            n = played[colour]
            answer = moves[n] if n < len(moves) else "pass"
            played[colour] = n + 1
        elif command == "gomill-explain_last_move":
            answer = f"think_ns={last_think_ns}"
        elif command == "time_settings":
            main_time, period, stones = (float(a) for a in args)
            if period == 0:
                clock.settings("absolute", [main_time])
            elif stones == 0:
                clock.settings("none", [])
            else:
                clock.settings("canadian", [main_time, period, stones])
        elif command in ("kgs-time_settings", "kata-time_settings"):
            clock.settings(args[0], [float(a) for a in args[1:]])
        elif command == "time_left":
            seconds = float(args[1])
            if not math.isfinite(seconds):
                ok, answer = False, "bad time"
            else:
                clock.left[args[0][0].lower()] = (seconds, int(args[2]))
        elif command == "boardsize":
            size = int(args[0])
            lists = move_lists(size)
        elif command == "clear_board":
            played = {"b": 0, "w": 0}
            genmoves = 0
            games += 1
            game_id = f"{pid}:{games}"
        elif command == "protocol_version":
            answer = "2"
        elif command == "name":
            answer = "clocked"
        elif command == "version":
            answer = f"1 pid {pid}"
        elif command == "list_commands":
            answer = "\n".join(commands)
        elif command == "quit":
            write(f"={ident}\n\n")
            flush()
            return 0
        elif command not in commands:
            ok, answer = False, "unknown command"
        status = "=" if ok else "?"
        text = f"{status}{ident} {answer}\n\n" if answer else f"{status}{ident}\n\n"
        if command == "genmove":
            # Before the write: once written, the arena may read the answer
            # while this process waits to run again.
            last_think_ns = monotonic_ns() - started
            if log_fd is not None:
                os.write(log_fd, f"end {game_id} {genmoves} {started + last_think_ns}\n".encode())
        write(text)
        flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
