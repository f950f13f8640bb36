"""Fake engines for the arena's tests, run as real processes."""

from __future__ import annotations

import sys
from pathlib import Path

from arena.control.settings import PlayerConfig

FAKE_ENGINE = str(Path(__file__).with_name("fake_engine.py"))
# The benchmarks' engine that thinks by the clock (and misbehaves on request).
CLOCKED_ENGINE = str(Path(__file__).resolve().parents[3] / "benchmarks" / "clocked_engine.py")


def fake_command(*args: str) -> tuple[str, ...]:
    return (sys.executable, FAKE_ENGINE, *args)


def fake_player(code: str, *args: str, **settings: object) -> PlayerConfig:
    return PlayerConfig(code, fake_command(*args), **settings)  # type: ignore[arg-type]


def random_player(code: str, seed: int = 1, **settings: object) -> PlayerConfig:
    command = (sys.executable, "-m", "engines.random", "--seed", str(seed))
    return PlayerConfig(code, command, **settings)  # type: ignore[arg-type]


def clocked_player(code: str, *args: str, **settings: object) -> PlayerConfig:
    command = (sys.executable, CLOCKED_ENGINE, *args)
    return PlayerConfig(code, command, **settings)  # type: ignore[arg-type]
