"""Shared test configuration: where GNU Go lives and when its tests may skip, and the fast subset.

``python -m pytest -m fast`` runs the modules in :data:`FAST_MODULES`: the pure
and in-memory tests of every package, the fault paths of the GTP client and of
process supervision with the fake engines, and in-process runs with fake
engines; not the integration tests, nor the modules whose tests start whole
arena runs or engine searches as processes, play clocked games in real time or
play the MCTS engine against GNU Go.  A listed module's tests marked ``slow``
stay out.  A new test module joins the subset when it is added here (a listed
name that does not exist is an error, so the list cannot go stale unseen).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent

# The fast subset, by module (paths under tests/): about a minute and a half on
# an idle 2-core machine, where the whole suite takes six to seven.
FAST_MODULES = frozenset(
    {
        # gtp: all of it (the client's and the process's fault paths with fake engines)
        "gtp/test_arguments.py",
        "gtp/test_board.py",
        "gtp/test_client.py",
        "gtp/test_connection.py",
        "gtp/test_nursery_engines.py",
        "gtp/test_process.py",
        "gtp/test_protocol.py",
        "gtp/test_server.py",
        "gtp/test_vertex.py",
        # arena: control files, competitions, tuners, statistics, clocks, records,
        # the store, and runs in-process with fake engines
        "arena/test_allplayall.py",
        "arena/test_ce_tuner.py",
        "arena/test_cli.py",
        "arena/test_clock.py",
        "arena/test_clock_records.py",
        "arena/test_clocks_openings_control.py",
        "arena/test_cluster_parts.py",
        "arena/test_control.py",
        "arena/test_events.py",
        "arena/test_export.py",
        "arena/test_fields_repr.py",
        "arena/test_html_report.py",
        "arena/test_html_tuner_pages.py",
        "arena/test_match.py",
        "arena/test_matchstats.py",
        "arena/test_mc_tuner.py",
        "arena/test_output_files.py",
        "arena/test_playoff.py",
        "arena/test_records.py",
        "arena/test_referee.py",
        "arena/test_registry.py",
        "arena/test_reports.py",
        "arena/test_results.py",
        "arena/test_ringmaster.py",
        "arena/test_spsa_tuner.py",
        "arena/test_stalls.py",
        "arena/test_state.py",
        "arena/test_stats.py",
        "arena/test_writer.py",
        # engines: the board, the search and its policies, the options, the random player
        "engines/test_gamekeeper.py",
        "engines/test_mcts_analyze.py",
        "engines/test_mcts_fastboard.py",
        "engines/test_mcts_ladders.py",
        "engines/test_mcts_lgrf.py",
        "engines/test_mcts_nakade.py",
        "engines/test_mcts_options.py",
        "engines/test_mcts_policy.py",
        "engines/test_mcts_rave_graph.py",
        "engines/test_mcts_sacrifices.py",
        "engines/test_mcts_search.py",
        "engines/test_mcts_timecontrol.py",
        "engines/test_mcts_unsure_time.py",
        "engines/test_random.py",
        # tui: the views, the tracker, the dashboard and its frame rate (MockClock)
        "tui/test_dashboard.py",
        "tui/test_live.py",
        "tui/test_screen_truth.py",
        "tui/test_tracker.py",
        "tui/test_views.py",
        # the code's shape: the import order of the packages, the benchmarks' imports
        "test_benchmark_imports.py",
        "test_layers.py",
    }
)


def pytest_configure(config: pytest.Config) -> None:
    missing = sorted(name for name in FAST_MODULES if not (TESTS_DIR / name).is_file())
    if missing:
        raise pytest.UsageError(f"tests/conftest.py: FAST_MODULES names no module {missing}")


@pytest.hookimpl(tryfirst=True)  # before -m selects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        try:
            name = item.path.relative_to(TESTS_DIR).as_posix()
        except ValueError:
            continue
        if name in FAST_MODULES and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.fast)


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
