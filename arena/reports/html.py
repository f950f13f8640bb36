"""The HTML report, ``X.html``: one self-contained page of tables and SVG plots per competition.

Written by ``arena report X.ctl --html``, and after every ``arena run`` of a
control file that sets ``html_report = True``.  The page is one file with its
styles and plots inline and no script: it opens offline, from anywhere.

Each competition type has its own page function, chosen by the type of the
competition's snapshot (:mod:`arena.competitions.snapshots`) in
:data:`PAGES`: playoffs and all-play-all in :mod:`arena.reports.html_pages`,
the Monte Carlo tuner in :mod:`arena.reports.html_tuner`, the cross-entropy
and SPSA tuners in :mod:`arena.reports.html_ce_tuner` and
:mod:`arena.reports.html_spsa_tuner`.  A new competition type adds a function
``(snapshot, PageInputs) -> PageContent`` and one line in the table; what
pages share is :mod:`arena.reports.html_common`, and plots use
:mod:`arena.reports.svg` for the style, the margins and the SVG text.

Importing this module imports matplotlib (the ``report`` extra, ``pip install
'gtp-arena[report]'``); the command line imports it only for the HTML report
and turns a missing matplotlib into one line naming that command.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from arena.competitions.snapshots import AllPlayAllSnapshot, CompetitionSnapshot, PlayoffSnapshot
from arena.competitions.tuner_snapshots import CeTunerSnapshot, SpsaTunerSnapshot, TunerSnapshot
from arena.control.config import CompetitionConfig
from arena.errors import StateError
from arena.reports.history import load_history
from arena.reports.html_ce_tuner import ce_tuner_page
from arena.reports.html_common import PageContent, PageInputs
from arena.reports.html_pages import allplayall_page, playoff_page
from arena.reports.html_parts import page
from arena.reports.html_spsa_tuner import spsa_tuner_page
from arena.reports.html_tuner import tuner_page
from arena.reports.svg import style
from arena.store.files import CompetitionFiles, atomic_write
from arena.store.sgf import application_version

PAGES: Final[Mapping[type[Any], Callable[[Any, PageInputs], PageContent]]] = {
    PlayoffSnapshot: playoff_page,
    AllPlayAllSnapshot: allplayall_page,
    TunerSnapshot: tuner_page,
    CeTunerSnapshot: ce_tuner_page,
    SpsaTunerSnapshot: spsa_tuner_page,
}


class HtmlReportError(StateError):
    """The HTML report could not be written (a StateError, so the CLI prints one line)."""


def render_html(snapshot: CompetitionSnapshot, inputs: PageInputs) -> str:
    """The whole page for ``snapshot``."""
    builder = PAGES.get(type(snapshot))
    if builder is None:
        raise HtmlReportError(f"there is no HTML report for {type(snapshot).__name__} yet")
    with style():
        content = builder(snapshot, inputs)
    written = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    meta = f"{content.summary} · written {written} by gtp-arena {application_version()}"
    return page(
        content.title,
        content.kind,
        content.description,
        meta,
        content.navigation,
        content.sections,
    )


def write_html_report(
    config: CompetitionConfig,
    snapshot: CompetitionSnapshot,
    files: CompetitionFiles,
    path: Path | None = None,
) -> Path:
    """Write the page to ``path`` (default ``X.html``) and return where it went."""
    history = load_history(files)
    text = render_html(snapshot, PageInputs(config, history))
    target = files.html_report if path is None else path
    try:
        atomic_write(target, text.encode("utf-8"), durable=False)
    except OSError as exc:
        raise HtmlReportError(f"cannot write {target}: {exc.strerror}") from None
    return target
