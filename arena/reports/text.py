"""Plain-text reports in Gomill's layout: what ``show`` prints and ``X.report`` holds."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final, cast

from arena.competitions.registry import load_reference
from arena.competitions.snapshots import AllPlayAllSnapshot, CompetitionSnapshot, PlayoffSnapshot
from arena.reports.allplayall import allplayall_report
from arena.reports.playoff import playoff_report

if TYPE_CHECKING:
    from arena.reports.tuners import TunerSnapshots

# The tuners' reports, by name: a playoff's run never builds the tuners' classes (a
# tuner's snapshot means its modules are loaded already).
TUNERS_REPORT: Final = "arena.reports.tuners:tuners_report"


def competition_report(snapshot: CompetitionSnapshot) -> str:
    """The report for any competition's snapshot."""
    if isinstance(snapshot, PlayoffSnapshot):
        return playoff_report(snapshot)
    if isinstance(snapshot, AllPlayAllSnapshot):
        return allplayall_report(snapshot)
    report = cast("Callable[[TunerSnapshots], str]", load_reference(TUNERS_REPORT))
    return report(snapshot)
