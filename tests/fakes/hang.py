"""Answers everything except one command (argv[1], default genmove): never answers that."""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import time

from tests.fakes._engine import serve


def hang(_command: object) -> None:
    while True:
        time.sleep(1000)


if __name__ == "__main__":
    serve({sys.argv[1] if len(sys.argv) > 1 else "genmove": hang})
