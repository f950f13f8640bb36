"""The HTML report of real runs, opened in headless Chromium as a person would open it.

Real engines (the sample engine at a few playouts and the random player, 7x7)
play a playoff with two matchups (its page written at the end of the run by
``html_report = True``), an all-play-all, a Monte Carlo tuner, and the
cross-entropy and SPSA tuners of examples/ (shrunk to a few games; pages
written by ``arena report X.ctl --html``); engines that think by the clock
play a playoff under byo-yomi.  Each page is loaded from disk in
Chromium (Debian's package; CI installs it), and the test checks what a
reader would see: no console error or failed load, nothing fetched but the
file itself, every plot there with its title, drawn at a readable size, and
a screenshot that is not blank, neither as a whole nor where each plot is.

Skips locally when Chromium is absent; fails under CI=true.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from arena.store.files import CompetitionFiles
from tests.browser import PageVisit, find_chromium, open_page, pixel_spread
from tests.report_runs import (
    allplayall_control,
    arena,
    ce_tuner_control,
    clocked_control,
    playoff_control,
    spsa_tuner_control,
    tuner_control,
)

pytestmark = pytest.mark.slow

# What the reader's browser shows of each plot: its SVG, its size and place on
# the page, how many shapes it drew, and its text.
FIGURES = """
Array.from(document.querySelectorAll("figure.plot")).map((figure) => {
  const svg = figure.querySelector("svg");
  const box = svg.getBoundingClientRect();
  return {
    id: figure.id,
    svgs: figure.querySelectorAll("svg").length,
    left: box.left + window.scrollX,
    top: box.top + window.scrollY,
    width: box.width,
    height: box.height,
    shapes: svg.querySelectorAll("path, use, rect, polygon, image").length,
    texts: Array.from(svg.querySelectorAll("text")).map((text) => text.textContent),
  };
})
"""


@pytest.fixture(scope="module")
def chromium() -> str:
    path = find_chromium()
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Chromium is required when CI=true (apt-get install -y chromium)")
        pytest.skip("Chromium is not installed")
    return path


def check_page(page: Path, chromium: str, expected: dict[str, str]) -> PageVisit:
    """Open ``page``; ``expected`` maps each plot's id, in page order, to its title."""
    visit = open_page(page, FIGURES, chromium=chromium)
    assert visit.errors == []
    assert all(url == page.as_uri() or url.startswith("data:") for url in visit.requests)
    assert visit.requests[0] == page.as_uri()
    figures: list[dict[str, Any]] = visit.value
    assert [figure["id"] for figure in figures] == list(expected)
    width, height, spread = pixel_spread(visit.screenshot)
    assert width == 1280 and height > 1000
    assert spread > 10, "the screenshot is blank"
    for figure in figures:
        title = expected[figure["id"]]
        assert figure["svgs"] == 1
        assert title in figure["texts"], (figure["id"], figure["texts"][:8])
        assert figure["width"] > 450 and figure["height"] > 200, figure
        assert figure["shapes"] >= 10, figure
        box = (figure["left"], figure["top"], figure["width"], figure["height"])
        assert pixel_spread(visit.screenshot, box)[2] > 8, f"{figure['id']} looks blank"
    (page.parent / f"{page.stem}.png").write_bytes(visit.screenshot)
    return visit


def test_playoff_page_written_at_the_end_of_a_run(tmp_path: Path, chromium: str) -> None:
    ctl = playoff_control(tmp_path, games=4, html_report=True)
    run = arena("run", str(ctl), "-j", "2", "-q")
    assert run.returncode == 0, run.stderr
    page = CompetitionFiles.for_control_file(ctl).html_report
    assert page.exists()
    check_page(
        page,
        chromium,
        {
            "fig-elo-0": "Elo: mcts-16 against mcts-8",
            "fig-colour-0": "Wins by colour",
            "fig-length-0": "Game length",
            "fig-time-0": "Time per move",
            "fig-elo-1": "Elo: uct-48 against mcts-8",
            "fig-colour-1": "Wins by colour",
            "fig-length-1": "Game length",
            "fig-time-1": "Time per move",
        },
    )


def test_allplayall_page(tmp_path: Path, chromium: str) -> None:
    ctl = allplayall_control(tmp_path, rounds=2, competitors=3)
    run = arena("run", str(ctl), "-j", "2", "-q")
    assert run.returncode == 0, run.stderr
    files = CompetitionFiles.for_control_file(ctl)
    assert not files.html_report.exists()  # html_report is not set: only on request
    report = arena("report", str(ctl), "--html")
    assert report.returncode == 0, report.stderr
    assert report.stdout.splitlines()[-1] == f"wrote {files.html_report}"
    visit = check_page(
        files.html_report,
        chromium,
        {
            "fig-ratings": "Bradley–Terry ratings",
            "fig-ratings-history": "Ratings against games played",
            "fig-colour": "Wins by colour",
            "fig-length": "Game length",
            "fig-time": "Time per move",
            "fig-elo-AvB": "Elo: mcts-32 against mcts-12",
            "fig-elo-AvC": "Elo: mcts-32 against random",
            "fig-elo-BvC": "Elo: mcts-12 against random",
        },
    )
    names = next(f for f in visit.value if f["id"] == "fig-ratings")["texts"]
    assert {"mcts-32", "mcts-12", "random"} <= set(names)


def test_tuner_page(tmp_path: Path, chromium: str) -> None:
    ctl = tuner_control(tmp_path, games=8)
    run = arena("run", str(ctl), "-j", "2", "-q")
    assert run.returncode == 0, run.stderr
    report = arena("report", str(ctl), "--html", "-q")
    assert report.returncode == 0, report.stderr
    visit = check_page(
        CompetitionFiles.for_control_file(ctl).html_report,
        chromium,
        {
            "fig-candidates": "Candidates over the parameter space",
            "fig-parameter-playouts": "By playouts",
            "fig-parameter-exploration": "By exploration",
            "fig-length": "Game length",
            "fig-time": "Time per move",
        },
    )
    # Every candidate's moves in one row, against the opponent's.
    times = next(f for f in visit.value if f["id"] == "fig-time")["texts"]
    assert {"candidates", "uct-32"} <= set(times)


def test_cross_entropy_tuner_page(tmp_path: Path, chromium: str) -> None:
    ctl = ce_tuner_control(tmp_path, generations=3, samples=5)
    run = arena("run", str(ctl), "-j", "2", "-q")
    assert run.returncode == 0, run.stderr
    report = arena("report", str(ctl), "--html", "-q")
    assert report.returncode == 0, report.stderr
    visit = check_page(
        CompetitionFiles.for_control_file(ctl).html_report,
        chromium,
        {
            "fig-distribution-rave_bias": "Distribution of rave_bias by generation",
            "fig-distribution-exploration": "Distribution of exploration by generation",
            "fig-samples": "Samples of generation g2 by wins",
            "fig-length": "Game length",
            "fig-time": "Time per move",
        },
    )
    texts = {f["id"]: f["texts"] for f in visit.value}
    assert {"g0", "g1", "g2", "final"} <= set(texts["fig-distribution-rave_bias"])
    assert {"candidates", "default"} <= set(texts["fig-time"])


def test_spsa_tuner_page(tmp_path: Path, chromium: str) -> None:
    ctl = spsa_tuner_control(tmp_path, iterations=6)
    run = arena("run", str(ctl), "-j", "2", "-q")
    assert run.returncode == 0, run.stderr
    report = arena("report", str(ctl), "--html", "-q")
    assert report.returncode == 0, report.stderr
    visit = check_page(
        CompetitionFiles.for_control_file(ctl).html_report,
        chromium,
        {
            "fig-trajectory-exploration": "Trajectory of exploration",
            "fig-trajectory-fpu": "Trajectory of fpu",
            "fig-plus-share": "Plus side's share of the points",
            "fig-length": "Game length",
            "fig-time": "Time per move",
        },
    )
    texts = {f["id"]: f["texts"] for f in visit.value}
    assert {"min 0.05", "max 2"} <= set(texts["fig-trajectory-exploration"])
    assert {"plus side", "minus side"} <= set(texts["fig-time"])


def test_clocked_playoff_page(tmp_path: Path, chromium: str) -> None:
    """Byo-yomi: time per move of every player (tests/integration/test_report_times.py checks
    the figures against the engines' own)."""
    ctl = clocked_control(tmp_path, games=2)
    run = arena("run", str(ctl), "-j", "2", "-q")
    assert run.returncode == 0, run.stderr
    report = arena("report", str(ctl), "--html", "-q")
    assert report.returncode == 0, report.stderr
    visit = check_page(
        CompetitionFiles.for_control_file(ctl).html_report,
        chromium,
        {
            "fig-elo-0": "Elo: a against b",
            "fig-colour-0": "Wins by colour",
            "fig-length-0": "Game length",
            "fig-time-0": "Time per move",
            "fig-elo-1": "Elo: a against late",
            "fig-colour-1": "Wins by colour",
            "fig-length-1": "Game length",
            "fig-time-1": "Time per move",
        },
    )
    texts = {f["id"]: f["texts"] for f in visit.value}
    assert {"a", "late"} <= set(texts["fig-time-1"])
    assert "lost on time (2)" in texts["fig-length-1"]


def test_the_browser_check_sees_errors_and_fetches(tmp_path: Path, chromium: str) -> None:
    """What check_page relies on: a broken page is seen as broken."""
    page = tmp_path / "broken.html"
    page.write_text(
        "<!DOCTYPE html><html><body><p>broken</p><img src='missing.png'>"
        "<script>console.error('boom'); undefinedFunction();</script></body></html>"
    )
    visit = open_page(page, "document.querySelectorAll('figure.plot').length", chromium=chromium)
    assert visit.value == 0
    assert any("boom" in error for error in visit.errors)
    assert any("undefinedFunction" in error for error in visit.errors)
    assert (tmp_path / "missing.png").as_uri() in visit.requests
