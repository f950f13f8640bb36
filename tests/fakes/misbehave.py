"""Answers one command (argv[1]) badly in the way argv[2] names; all else is normal.

Modes: garbage (``C3``), wrong_id (the id plus one), no_id, prompt (``GTP> ``
without newline, then waits), flood (50 MB without a blank line), panic
(``! panic``), comment (``# thinking...``), gmp (byte 1), space (``= ``),
bare (``=``), twice (two answers), close_stdout (closes stdout, keeps
running), answer:TEXT (success with TEXT), fail:TEXT (failure with TEXT).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import os
import time

from gtp.protocol import Command, format_response
from tests.fakes._engine import ok, serve

FIXED = {
    "garbage": b"C3\n\n",
    "panic": b"! panic\n\n",
    "comment": b"# thinking...\n\n",
    "gmp": b"\x01\x02\x03\x04",
    "bare": b"=\n\n",
}


def misbehave(command: Command) -> bytes | None:
    mode = sys.argv[2]
    cid = "" if command.id is None else str(command.id)
    if mode in FIXED:
        return FIXED[mode]
    if mode == "space":
        return f"={cid} \n\n".encode()
    if mode == "wrong_id":
        return f"={(command.id or 0) + 1} D4\n\n".encode()
    if mode == "no_id":
        return b"= D4\n\n"
    if mode == "twice":
        return ok(command, "one") + ok(command, "two")
    if mode.startswith("answer:"):
        return ok(command, mode[len("answer:"):])
    if mode.startswith("fail:"):
        return format_response(False, mode[len("fail:"):], command.id)
    out = sys.stdout.buffer
    if mode == "prompt":
        out.write(b"GTP> ")
        out.flush()
    elif mode == "flood":
        chunk = b"= " + b"y" * (1024 * 1024 - 3) + b"\n"
        for _ in range(50):
            out.write(chunk)
        out.flush()
    elif mode == "close_stdout":
        out.flush()
        os.close(1)
    else:
        raise SystemExit(f"unknown mode {mode}")
    while True:
        time.sleep(1000)


if __name__ == "__main__":
    serve({sys.argv[1]: misbehave})
