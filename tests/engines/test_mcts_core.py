"""The engine's two cores: compiled (mypyc) and pure Python play the same.

The test process runs the compiled core where the install built it; the pure
one runs in subprocesses under ``ARENA_MCTS_PURE=1``, so both paths run in CI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engines.mcts import core
from engines.mcts.fastboard import FastBoard
from engines.mcts.policy import POLICY_NAMES
from tests.engines import core_fingerprints

ROOT = Path(__file__).resolve().parents[2]
PLAYOUTS = 1000  # per policy and position


def run_pure(*args: str, stdin: str = "") -> str:
    env = {**os.environ, core.PURE_ENV: "1"}
    done = subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )
    return done.stdout


def test_the_compiled_core_runs_where_the_ci_built_it() -> None:
    # CI installs with gcc and the Python headers: the build must not have fallen back.
    if os.environ.get("CI") != "true" or core.forced_pure():
        pytest.skip("only checked in CI, without ARENA_MCTS_PURE")
    assert core.select() == ("mypyc", "")
    assert core_fingerprints.FastBoard.__module__ == "engines.mcts.fastboard"
    assert not str(sys.modules["engines.mcts.policy"].__file__).endswith(".py")


@pytest.mark.slow
def test_seeded_playouts_and_searches_are_the_same_in_both_cores() -> None:
    pure = json.loads(
        run_pure("-m", "tests.engines.core_fingerprints", str(PLAYOUTS)).strip().splitlines()[-1]
    )
    assert pure["core"] == "pure"
    here = core_fingerprints.fingerprints(PLAYOUTS)
    assert set(here) == {
        f"{pos}/{what}"
        for pos in ("empty", "midgame")
        for what in (
            *POLICY_NAMES,
            "default, FastRandom",
            "search default",
            "search graph",
            "search puct",
        )
    }
    different = sorted(key for key in here if here[key] != pure["fingerprints"][key])
    assert different == [], f"{core.core_name()} core differs from pure Python: {different}"


def test_the_environment_variable_forces_the_pure_core_and_the_engine_says_so() -> None:
    answers = run_pure(
        "-m", "engines.mcts", "--seed", "3", "--playouts", "50", stdin="version\ngenmove b\nquit\n"
    )
    version, move, _quit = (line for line in answers.splitlines() if line.startswith("="))
    assert version.endswith("+pure")
    assert len(move.split()) == 2
    assert "core: pure Python (ARENA_MCTS_PURE is set)" in " ".join(
        run_pure("-m", "engines.mcts", "--help").split()
    )


def test_the_engine_names_the_core_it_runs() -> None:
    answers = subprocess.run(
        [sys.executable, "-m", "engines.mcts", "--playouts", "20"],
        cwd=ROOT,
        input="version\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={k: v for k, v in os.environ.items() if k != core.PURE_ENV},
    ).stdout
    name = core.core_name() if not core.forced_pure() else None
    version = answers.splitlines()[0]
    assert version.startswith("= ") and version.split("+")[-1] in ("mypyc", "pure")
    if name is not None:
        assert version.endswith(f"+{name}")


def test_the_source_finder_loads_only_the_hot_modules_from_source(tmp_path: Path) -> None:
    finder = core._SourceFinder(core.HERE)
    spec = finder.find_spec("engines.mcts.policy", None)
    assert spec is not None and spec.origin == str(core.HERE / "policy.py")
    assert finder.find_spec("engines.mcts.gtp_engine", None) is None
    assert finder.find_spec("policy", None) is None


def test_a_stale_or_partial_build_is_not_used(tmp_path: Path) -> None:
    for name in core.COMPILED:
        (tmp_path / f"{name}.py").write_text(f"# {name}\n")
    assert core._compiled_present(tmp_path) == "not built"
    suffix = __import__("importlib").machinery.EXTENSION_SUFFIXES[0]
    (tmp_path / f"fastboard{suffix}").write_bytes(b"")
    assert core._compiled_present(tmp_path).startswith("not built: patterns")
    for name in core.COMPILED:
        (tmp_path / f"{name}{suffix}").write_bytes(b"")
    assert core._compiled_present(tmp_path) == f"no {core.DIGEST_FILE} from the build"
    (tmp_path / core.DIGEST_FILE).write_text(core.source_digest(tmp_path) + "\n")
    assert core._compiled_present(tmp_path) == ""
    (tmp_path / "tree.py").write_text("# edited since the build\n")
    assert core._compiled_present(tmp_path).startswith("stale")


def test_a_copied_board_is_equal_and_independent() -> None:
    board = core_fingerprints.midgame()
    copy = board.copy()
    assert isinstance(copy, FastBoard)
    assert (copy.color, copy.pat, copy.hash, copy.ko, copy.to_move) == (
        board.color,
        board.pat,
        board.hash,
        board.ko,
        board.to_move,
    )
    copy.play(copy.empties[0])
    assert copy.color != board.color and copy.hash != board.hash
