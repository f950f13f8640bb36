"""A library call leaves the caller's process as it found it: gc, loggers, trio instruments.

``play_match`` runs in the caller's process and trio run (an engine author's
test suite, a notebook): whatever it changes there for its own run must be
given back, and the process-wide tunings the command line makes (freezing
the collector, silencing distributed's loggers) are the command line's alone.
"""

from __future__ import annotations

import gc
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.api import engine, play_match
from arena.store import writer as writer_module

from .fakes import fake_command


def logger_levels() -> dict[str, int]:
    names = ["", *logging.root.manager.loggerDict]
    return {name: logging.getLogger(name).level for name in names}


@pytest.fixture
def frozen_by_the_caller() -> Iterator[int]:
    """The caller froze its own objects: they must stay frozen after the match."""
    gc.freeze()
    try:
        yield gc.get_freeze_count()
    finally:
        gc.unfreeze()


def players() -> tuple[object, object]:
    return (
        engine(fake_command("--moves=D4,E4"), code="first"),
        engine(fake_command("--moves=D6,E6"), code="second"),
    )


async def test_play_match_leaves_the_callers_collector_as_it_was(
    frozen_by_the_caller: int, tmp_path: Path
) -> None:
    assert frozen_by_the_caller > 0
    result = await play_match(*players(), games=2, record_dir=tmp_path)
    assert result.games == 2
    # Still frozen (an unfreeze would empty the permanent generation), nothing more
    # frozen; a few of the caller's frozen objects may have died meanwhile.
    assert 0 < gc.get_freeze_count() <= frozen_by_the_caller
    assert gc.isenabled()


async def test_play_match_leaves_the_loggers_levels_alone(tmp_path: Path) -> None:
    before = logger_levels()
    await play_match(*players(), games=2, record_dir=tmp_path)
    after = logger_levels()
    assert {name: after[name] for name in before} == before


def _instruments() -> list[object]:
    # No public way to list a run's instruments: the runner's own list, read only.
    from trio._core._run import GLOBAL_RUN_CONTEXT

    return list(GLOBAL_RUN_CONTEXT.runner.instruments)


async def test_play_match_leaves_the_runs_instruments_as_they_were(tmp_path: Path) -> None:
    before = _instruments()
    await play_match(*players(), games=1, record_dir=tmp_path)
    assert _instruments() == before


def test_the_run_loop_imports_neither_trios_private_modules_nor_pytest() -> None:
    """The writer takes trio.testing's wait_all_tasks_blocked on first use, not at import."""
    code = (
        "import sys, arena.run.ringmaster, arena.store.writer;"
        "print(sorted(n for n in sys.modules if n in ('pytest', 'trio.testing')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    source = Path(writer_module.__file__ or "").read_text(encoding="utf-8")
    assert "trio._" not in source
