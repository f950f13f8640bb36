"""Answers one command (argv[1]) badly in the way argv[2] names; all else is normal.

Modes: garbage (``C3``), wrong_id (the id plus one), no_id, prompt (``GTP> ``
without newline), flood (50 MB without a blank line), panic (``! panic``),
comment (``# thinking...``), gmp (byte 1), space (``= ``), bare (``=``), twice
(two answers), close_stdout (closes stdout), answer:TEXT (success with TEXT),
fail:TEXT (failure with TEXT).  After an answer that breaks the channel
(garbage, wrong_id, prompt, flood, panic, comment, gmp, close_stdout) the fake
stays as it is until it is killed: it reads no more input, so the end of its
input does not end it, and a controller that stops it must signal it.
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

# Answers after which the controller must give up on the channel.
BREAKING = {
    "garbage": b"C3\n\n",
    "panic": b"! panic\n\n",
    "comment": b"# thinking...\n\n",
    "gmp": b"\x01\x02\x03\x04",
}


def misbehave(command: Command) -> bytes | None:
    mode = sys.argv[2]
    cid = "" if command.id is None else str(command.id)
    if mode == "bare":
        return b"=\n\n"
    if mode == "space":
        return f"={cid} \n\n".encode()
    if mode == "no_id":
        return b"= D4\n\n"
    if mode == "twice":
        return ok(command, "one") + ok(command, "two")
    if mode.startswith("answer:"):
        return ok(command, mode[len("answer:") :])
    if mode.startswith("fail:"):
        return format_response(False, mode[len("fail:") :], command.id)
    out = sys.stdout.buffer
    if mode == "wrong_id":
        out.write(f"={(command.id or 0) + 1} D4\n\n".encode())
        out.flush()
    elif mode in BREAKING:
        out.write(BREAKING[mode])
        out.flush()
    elif mode == "prompt":
        out.write(b"GTP> ")
        out.flush()
    elif mode == "flood":
        chunk = b"= " + b"y" * (1024 * 1024 - 3) + b"\n"
        try:
            for _ in range(50):
                out.write(chunk)
            out.flush()
        except BrokenPipeError:
            pass  # the controller closed the pipe: stay all the same
    elif mode == "close_stdout":
        out.flush()
        os.close(1)
    else:
        raise SystemExit(f"unknown mode {mode}")
    while True:  # stuck: whether the end of input or SIGTERM came first decides nothing
        time.sleep(1000)


if __name__ == "__main__":
    serve({sys.argv[1]: misbehave})
