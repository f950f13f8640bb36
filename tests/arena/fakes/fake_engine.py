"""A scriptable GTP engine for the arena's fault-path tests (blocking I/O, starts fast).

Run as ``python fake_engine.py [options]``.  It plays the moves given with
``--moves`` (then passes), or with ``--fill`` the first empty point, and
misbehaves on request at its N-th genmove (counting from 1): crash, hang,
answer a given text, write protocol garbage, flood stderr.  Other options
make it fail a command, claim, score, describe itself, explain its moves or
report CPU time, or crash or hang when sent a given command (``--crash-on``, ``--hang-on``).
``--cpus-file`` records, at each genmove, the CPUs the engine may run on.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))

from gtp.handicap import fixed_handicap_points
from gtp.vertex import format_vertex


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--name", default="fake")
    p.add_argument("--version", default="1.0")
    p.add_argument("--moves", default="")
    p.add_argument("--crash-at", type=int, default=0)
    p.add_argument("--hang-at", type=int, default=0)
    p.add_argument("--garbage-at", type=int, default=0)
    p.add_argument("--answer-at", default="", help="N:TEXT")
    p.add_argument("--resign-at", type=int, default=0)
    p.add_argument("--claim-at", type=int, default=0)
    p.add_argument("--stderr-per-move", type=int, default=0, help="bytes of stderr per genmove")
    p.add_argument("--fail", action="append", default=[], help="COMMAND:MESSAGE")
    p.add_argument("--reject-play-at", default="", help="N:MESSAGE for the N-th play")
    p.add_argument("--score", default="")
    p.add_argument("--describe", default="")
    p.add_argument("--explain", action="store_true")
    p.add_argument("--cpu-time", default="")
    p.add_argument("--env-file", default="", help="append game id, slot, pid")
    p.add_argument("--crash-once", default="", help="crash at --crash-at only if FILE is absent")
    p.add_argument("--ignore-eof", action="store_true", help="linger after end of input")
    p.add_argument("--crash-in-game", default="", help="crash at --crash-at only in this game")
    p.add_argument("--fill", action="store_true", help="play the first empty point, not --moves")
    p.add_argument("--crash-on", default="", help="crash when sent this command")
    p.add_argument("--hang-on", default="", help="hang when sent this command")
    p.add_argument("--dead", default=None, help="final_status_list dead answer")
    p.add_argument(
        "--cpus-file", default="", help="at each genmove append slot, pid and the CPUs it may use"
    )
    return p.parse_args(argv)


def main(argv: list[str]) -> int:
    options = parse_args(argv)
    moves = [m for m in options.moves.split(",") if m]
    failures = dict(item.split(":", 1) for item in options.fail)
    answer_at, _, answer_text = options.answer_at.partition(":")
    reject_at, _, reject_text = options.reject_play_at.partition(":")
    size = 19
    occupied: set[str] = set()  # for --fill: points played by either side in this game
    genmoves = 0
    plays = 0
    if options.env_file:
        with open(options.env_file, "a") as env_file:
            game = os.environ.get("GOMILL_GAME_ID", "-")
            slot = os.environ.get("GOMILL_SLOT", "-")
            env_file.write(f"{game} {slot} {os.getpid()}\n")
    commands = [
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "quit",
        "boardsize",
        "clear_board",
        "komi",
        "play",
        "genmove",
        "fixed_handicap",
        "place_free_handicap",
        "set_free_handicap",
    ]
    if options.score:
        commands.append("final_score")
    if options.dead is not None:
        commands.append("final_status_list")
    if options.describe:
        commands.append("gomill-describe_engine")
    if options.explain:
        commands.append("gomill-explain_last_move")
    if options.cpu_time:
        commands.append("gomill-cpu_time")
    if options.claim_at:
        commands.append("gomill-genmove_ex")
    out = sys.stdout
    while True:
        line = sys.stdin.readline()
        if not line:
            if options.ignore_eof:
                time.sleep(3600)
            return 0
        words = line.split()
        if not words:
            continue
        command_id = ""
        if words[0].isdigit():
            command_id = words.pop(0)
        name, args = words[0], words[1:]
        ok, text = True, ""
        if name == options.crash_on:
            os._exit(3)
        if name == options.hang_on:
            time.sleep(3600)
        if name in failures:
            ok, text = False, failures[name]
        elif name == "protocol_version":
            text = "2"
        elif name == "name":
            text = options.name
        elif name == "version":
            text = options.version
        elif name == "list_commands":
            text = "\n".join(commands)
        elif name == "known_command":
            text = "true" if args and args[0] in commands else "false"
        elif name == "boardsize":
            size = int(args[0])
        elif name == "fixed_handicap" or name == "place_free_handicap":
            points = fixed_handicap_points(size, int(args[0]))
            text = " ".join(format_vertex(p, size) for p in points)
        elif name in ("genmove", "gomill-genmove_ex"):
            if name == "gomill-genmove_ex" and not args:
                text = "claim"
            else:
                genmoves += 1
                if options.cpus_file:
                    with open(options.cpus_file, "a") as cpus_file:
                        slot = os.environ.get("GOMILL_SLOT", "-")
                        cpus = ",".join(str(cpu) for cpu in sorted(os.sched_getaffinity(0)))
                        cpus_file.write(f"{slot} {os.getpid()} {cpus}\n")
                if options.stderr_per_move:
                    chunk = ("x" * 99 + "\n") * (options.stderr_per_move // 100)
                    sys.stderr.write(chunk)
                    sys.stderr.flush()
                first_time = not options.crash_once or not os.path.exists(options.crash_once)
                this_game = options.crash_in_game in ("", os.environ.get("GOMILL_GAME_ID"))
                if genmoves == options.crash_at and first_time and this_game:
                    if options.crash_once:
                        open(options.crash_once, "w").close()
                    os._exit(3)
                if genmoves == options.hang_at:
                    time.sleep(3600)
                if genmoves == options.garbage_at:
                    out.write("this is not GTP\n\n")
                    out.flush()
                    continue
                if str(genmoves) == answer_at:
                    text = answer_text
                elif genmoves == options.resign_at:
                    text = "resign"
                elif genmoves == options.claim_at:
                    text = "claim"
                elif options.fill:
                    free = (format_vertex((row, col), size) for row in range(size)
                            for col in range(size))  # fmt: skip
                    text = next((v for v in free if v not in occupied), "pass")
                    occupied.add(text)
                else:
                    text = moves[genmoves - 1] if genmoves <= len(moves) else "pass"
        elif name == "play":
            plays += 1
            if len(args) > 1:
                occupied.add(args[1].upper())
            if str(plays) == reject_at:
                ok, text = False, reject_text
        elif name == "final_score":
            text = options.score
        elif name == "final_status_list" and options.dead is not None:
            text = options.dead
        elif name == "gomill-describe_engine":
            text = options.describe
        elif name == "gomill-explain_last_move":
            text = f"thinking about move {genmoves}"
        elif name == "gomill-cpu_time":
            text = options.cpu_time
        elif name == "quit":
            out.write(f"={command_id}\n\n")
            out.flush()
            return 0
        elif name == "clear_board":
            occupied.clear()
        elif name not in ("komi", "set_free_handicap"):
            ok, text = False, "unknown command"
        status = "=" if ok else "?"
        out.write(f"{status}{command_id} {text}\n\n" if text else f"{status}{command_id}\n\n")
        out.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
