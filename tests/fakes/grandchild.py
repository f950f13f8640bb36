"""Starts ``sleep 1000`` in its own process group, then behaves.

``quit`` is answered and the engine exits, leaving the sleeper behind; the
command ``die`` makes it exit at once without an answer.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import os
import subprocess

from tests.fakes._engine import serve


def die(_command: object) -> None:
    os._exit(0)


if __name__ == "__main__":
    sleeper = subprocess.Popen(["sleep", "1000"], stdin=subprocess.DEVNULL)
    print(f"grandchild {sleeper.pid}", file=sys.stderr, flush=True)
    serve({"die": die})
    os._exit(0)  # leave the sleeper running, unwaited
