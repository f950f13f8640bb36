"""Writes argv[1] MiB (default 1) to stderr before answering each echo, then a marker line."""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gtp.protocol import Command
from tests.fakes._engine import ok, serve

LINE = b"x" * 1023 + b"\n"


def flood_then_echo(command: Command) -> bytes:
    mebibytes = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    block = LINE * 1024
    for _ in range(mebibytes):
        sys.stderr.buffer.write(block)
    sys.stderr.buffer.write(b"end of flood " + " ".join(command.args).encode() + b"\n")
    sys.stderr.buffer.flush()
    return ok(command, " ".join(command.args))


if __name__ == "__main__":
    serve({"echo": flood_then_echo})
