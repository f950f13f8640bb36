"""The engine's command line for the knobs of issue 18: prior weights and the mercy rule."""

from __future__ import annotations

import subprocess
import sys

import pytest

from engines.mcts.__main__ import options_from_args
from engines.mcts.priors import PriorWeights

ENGINE = [sys.executable, "-m", "engines.mcts"]


def test_prior_weights_and_mercy_reach_the_search() -> None:
    options = options_from_args(["--prior-weights", "shape=2,near_last=0", "--mercy", "30"])
    assert options.search.prior_weights == PriorWeights(shape=2.0, near_last=0.0)
    assert options.search.mercy == 30
    assert options_from_args([]).search.prior_weights == PriorWeights()


@pytest.mark.parametrize(
    "args", [["--prior-weights", "shape=x"], ["--prior-weights", "nearby=1"], ["--mercy", "-1"]]
)
def test_bad_knobs_are_one_clear_error(args: list[str]) -> None:
    result = subprocess.run([*ENGINE, *args], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    last = result.stderr.splitlines()[-1]
    assert "error:" in last
    assert ("prior weight" in last) or ("mercy" in last)


def test_help_names_the_prior_weights_and_their_defaults() -> None:
    result = subprocess.run([*ENGINE, "--help"], capture_output=True, text=True, timeout=30)
    assert "--prior-weights" in result.stdout
    assert "--mercy" in result.stdout
    assert "shape=1" in " ".join(result.stdout.split())
