"""Ignores SIGTERM and stdin EOF: answers ``quit`` but never exits by itself."""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import signal
import time

from tests.fakes._engine import serve

if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    serve()
    while True:
        time.sleep(1000)
