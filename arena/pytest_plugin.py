"""Pytest fixtures for engine authors: integration matches in your own test suite.

Enable it in your ``conftest.py`` (or with ``pytest -p arena.pytest_plugin``)::

    pytest_plugins = ["arena.pytest_plugin"]

and write async tests such as::

    async def test_my_engine_beats_random(arena_play_match, arena_engine, arena_random_player):
        mine = arena_engine(["./my-engine", "--gtp"], code="mine", move_timeout=10)
        result = await arena_play_match(mine, arena_random_player, games=4)
        assert result.wins("mine") >= 3

An async test that uses one of these fixtures runs under trio (pytest-trio)
without ``trio_mode`` or a marker: the plugin marks it.  An engine that
cannot start fails the test with one line naming the engine and its command,
not a traceback through the run loop.

Fixtures: ``arena_play_match`` (:func:`arena.api.play_match`, recording SGF
files in a temporary directory), ``arena_engine`` (:func:`arena.api.engine`),
``arena_random_player`` (the bundled random engine) and ``arena_gnugo_player``
(GNU Go level 0; the test is skipped when GNU Go is not installed).
"""

from __future__ import annotations

import inspect
import shutil
import sys
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

from arena.api import MatchResult, engine, play_match
from arena.control.settings import PlayerConfig
from arena.errors import lone_exception
from gtp.errors import EngineStartError

GNUGO_NAMES = ("gnugo", "/usr/games/gnugo")
FIXTURES = (
    "arena_record_dir",
    "arena_play_match",
    "arena_engine",
    "arena_random_player",
    "arena_gnugo_player",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the async tests that use the arena's fixtures under trio."""
    for item in items:
        if not isinstance(item, pytest.Function) or item.get_closest_marker("trio"):
            continue
        if not inspect.iscoroutinefunction(item.obj):
            continue
        if not set(FIXTURES).intersection(item.fixturenames):
            continue
        if not config.pluginmanager.hasplugin("trio"):
            raise pytest.UsageError(
                "arena.pytest_plugin runs async tests with pytest-trio: pip install pytest-trio"
            )
        item.add_marker(pytest.mark.trio)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """An engine that cannot start: one line naming it and its command."""
    report = yield
    if report.failed and call.excinfo is not None:
        error = lone_exception(call.excinfo.value)  # trio wraps a task's error in a group
        if isinstance(error, EngineStartError):
            report.longrepr = str(error)
    return report


@pytest.fixture
def arena_record_dir(tmp_path: Path) -> Path:
    """Where the matches of a test write their SGF files."""
    directory = tmp_path / "arena-games"
    directory.mkdir()
    return directory


@pytest.fixture
def arena_play_match(arena_record_dir: Path) -> Callable[..., Any]:
    """``await arena_play_match(p1, p2, games=..., ...)``: play_match recording SGF files."""

    async def run(player_1: Any, player_2: Any, **options: Any) -> MatchResult:
        options.setdefault("record_dir", arena_record_dir)
        return await play_match(player_1, player_2, **options)

    return run


@pytest.fixture
def arena_engine() -> Callable[..., PlayerConfig]:
    """:func:`arena.api.engine`: a player from a command and Player settings."""
    return engine


@pytest.fixture
def arena_random_player() -> PlayerConfig:
    """The bundled random engine (``python -m engines.random --seed 1``)."""
    return engine([sys.executable, "-m", "engines.random", "--seed", "1"], code="random")


@pytest.fixture
def arena_gnugo_player() -> PlayerConfig:
    """GNU Go at level 0 with Chinese rules; skips the test when GNU Go is missing."""
    for name in GNUGO_NAMES:
        path = shutil.which(name)
        if path:
            return engine(
                [path, "--mode", "gtp", "--level", "0", "--chinese-rules", "--capture-all-dead"],
                code="gnugo",
            )
    pytest.skip("GNU Go is not installed")
