"""Prints a usage banner on stdout before speaking GTP."""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fakes._engine import serve

if __name__ == "__main__":
    sys.stdout.write("Usage: foo [options]\n")
    sys.stdout.flush()
    serve()
