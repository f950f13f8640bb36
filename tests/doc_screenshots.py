"""Remake the screenshots of the HTML report in docs/ from real runs, opened in headless Chromium.

Plays the competitions of :mod:`tests.report_runs` at a size that makes the
plots say something (about 400 games of the sample engine on 7x7, several
minutes on two cores), writes each page, and keeps the top of each as a PNG:

    python -m tests.doc_screenshots [DIRECTORY]      (default: docs)
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path

from PIL import Image

from arena.store.files import CompetitionFiles
from tests.browser import open_page
from tests.report_runs import (
    allplayall_control,
    arena,
    ce_tuner_control,
    playoff_control,
    spsa_tuner_control,
    tuner_control,
)

# (file name, how much of the page's top to keep, in CSS pixels)
SHOTS = {
    "duel": ("report-playoff.png", 1560),
    "league": ("report-allplayall.png", 1480),
    "tune": ("report-tuner.png", 1600),
    "ce": ("report-ce-tuner.png", 1900),
    "spsa": ("report-spsa-tuner.png", 1500),
}


def run(*words: str) -> None:
    done = arena(*words)
    if done.returncode != 0:
        raise SystemExit(f"arena {' '.join(words)} failed: {done.stderr.strip()}")


def main() -> None:
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        controls = [
            playoff_control(directory, games=24, html_report=True),
            allplayall_control(directory, rounds=4, competitors=5),
            tuner_control(directory, games=90),
            ce_tuner_control(directory, generations=6, samples=8, batch=2, playouts=24),
            spsa_tuner_control(directory, iterations=60, playouts=24),
        ]
        for ctl in controls:
            print(f"playing {ctl.name} ...", flush=True)
            run("run", str(ctl), "-j", "2", "-q")
            run("report", str(ctl), "--html", "-q")
            name, height = SHOTS[ctl.stem]
            page = CompetitionFiles.for_control_file(ctl).html_report
            visit = open_page(page, "document.title", height=height, full_page=False)
            if visit.errors:
                raise SystemExit(f"{page.name}: {visit.errors}")
            with Image.open(io.BytesIO(visit.screenshot)) as image:
                image.convert("RGB").save(target / name, optimize=True)
            print(f"wrote {target / name}")


if __name__ == "__main__":
    main()
