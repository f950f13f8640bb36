"""Shared test configuration: where GNU Go lives and when its tests may skip."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

GNUGO_CANDIDATES = ("gnugo", "/usr/games/gnugo")


def find_gnugo() -> str | None:
    for candidate in GNUGO_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


@pytest.fixture(scope="session")
def gnugo() -> str:
    """Path of the GNU Go binary.  Skips locally when absent; fails under CI=true."""
    path = find_gnugo()
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("GNU Go is required when CI=true (apt-get install -y gnugo)")
        pytest.skip("GNU Go is not installed")
    return path


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared/ reference folder beside the checkout."""
    return Path(__file__).resolve().parents[2] / "shared"
