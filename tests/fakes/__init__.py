"""Tiny misbehaving GTP engines for the fault tests of gtp.client and gtp.process.

Each module runs as ``python -m tests.fakes.NAME`` or ``python tests/fakes/NAME.py``.
This package also holds what the tests need to run them and to check that
nothing of an engine's process group is left afterwards.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import trio

FAKES_DIR = Path(__file__).resolve().parent


def fake_command(name: str, *args: str) -> list[str]:
    """The argv that runs the fake engine ``tests/fakes/NAME.py`` with ``args``."""
    return [sys.executable, str(FAKES_DIR / f"{name}.py"), *args]


def group_members(pgid: int) -> list[tuple[int, str, int]]:
    """(pid, state letter, parent pid) of every process in group ``pgid``, zombies too."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                text = stat.read().decode("ascii", "replace")
        except OSError:
            continue  # gone meanwhile
        # "pid (comm) state ppid pgrp ...": comm may contain spaces and parentheses
        fields = text[text.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid:
            members.append((int(entry), fields[0], int(fields[1])))
    return members


def survivors(pgid: int) -> list[tuple[int, str, int]]:
    """Members of group ``pgid`` that still run, or that are zombies we failed to reap.

    A killed grandchild is a zombie until init (here a slow one, that reaps about
    once a second) collects it; it is dead already, so it does not count.
    """
    me = os.getpid()
    return [m for m in group_members(pgid) if m[1] != "Z" or m[2] == me]


async def assert_group_gone(pgid: int, wait: float = 5.0) -> None:
    """Fail unless nothing of process group ``pgid`` survives (the kernel gets ``wait`` s)."""
    with trio.move_on_after(wait):
        while survivors(pgid):
            await trio.sleep(0.02)
    left = survivors(pgid)
    assert not left, f"processes left in group {pgid} (pid, state, parent): {left}"
