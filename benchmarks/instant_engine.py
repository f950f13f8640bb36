"""An instant GTP engine for benchmarks: plays a fixed list of moves, then passes.

Black fills the left part of the board and White the right part, column by
column, so no stone is ever captured: 30 moves each on 9x9 and 149 each on
19x19, then both pass (games of 62 and 300 moves).  Blocking I/O and no
imports beyond the standard library keep its own cost negligible.

With ``ARENA_BENCH_TIMES=DIR`` in its environment the engine notes, on
CLOCK_MONOTONIC, when each command line arrived and when each response was
flushed, and writes them at exit to ``DIR/<GOMILL_SLOT>-<pid>.times`` (one
``r NS`` or ``s NS`` line each, ``q`` before the time of the quit response),
for ``benchmarks/harness_latency.py``; with ``ARENA_BENCH_THINK=SECONDS`` it
sleeps that long before answering each genmove (a paced engine).
"""

from __future__ import annotations

import os
import sys
import time

LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
MOVES_PER_SIDE = {9: 30, 19: 149}
COMMANDS = (
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
)


def move_lists(size: int) -> dict[str, list[str]]:
    count = MOVES_PER_SIDE.get(size, size)
    width = (size - 1) // 2 - 0  # columns each side may use, leaving the middle empty
    black = [f"{LETTERS[c]}{r}" for c in range(width) for r in range(1, size + 1)]
    white = [f"{LETTERS[size - 1 - c]}{r}" for c in range(width) for r in range(1, size + 1)]
    return {"b": black[:count], "w": white[:count]}


def write_times(directory: str, times: list[str]) -> None:
    slot = os.environ.get("GOMILL_SLOT", "0")
    with open(os.path.join(directory, f"{slot}-{os.getpid()}.times"), "w") as file:
        file.write("\n".join(times) + "\n")


def main() -> int:
    directory = os.environ.get("ARENA_BENCH_TIMES")
    times: list[str] = []
    try:
        return serve(times if directory else None)
    finally:
        if directory:
            write_times(directory, times)


def serve(times: list[str] | None) -> int:
    now = time.monotonic_ns
    think = float(os.environ.get("ARENA_BENCH_THINK", "0"))
    size = 19
    lists = move_lists(size)
    played = {"b": 0, "w": 0}
    read, write, flush = sys.stdin.readline, sys.stdout.write, sys.stdout.flush
    while True:
        line = read()
        if not line:
            return 0
        if times is not None:
            times.append(f"r {now()}")
        words = line.split()
        if not words:
            continue
        ident = words[0] if words[0].isdigit() else ""
        if ident:
            words = words[1:]
        command = words[0] if words else ""
        answer = ""
        if command == "genmove":
            if think:
                time.sleep(think)
            colour = words[1][0].lower()
            moves = lists[colour]
            n = played[colour]
            answer = moves[n] if n < len(moves) else "pass"
            played[colour] = n + 1
        elif command == "boardsize":
            size = int(words[1])
            lists = move_lists(size)
        elif command == "clear_board":
            played = {"b": 0, "w": 0}
        elif command == "protocol_version":
            answer = "2"
        elif command == "name":
            answer = "instant"
        elif command == "version":
            answer = "1"
        elif command == "list_commands":
            answer = "\n".join(COMMANDS)
        elif command == "quit":
            write(f"={ident}\n\n")
            flush()
            if times is not None:
                times.append(f"q {now()}")
            return 0
        write(f"={ident} {answer}\n\n" if answer else f"={ident}\n\n")
        flush()
        if times is not None:
            times.append(f"s {now()}")


if __name__ == "__main__":
    sys.exit(main())
