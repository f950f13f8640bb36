"""Plain-text reports in Gomill's layout: what ``show`` prints and ``X.report`` holds."""

from __future__ import annotations

from arena.competitions.snapshots import (
    AllPlayAllSnapshot,
    CeTunerSnapshot,
    CompetitionSnapshot,
    PlayoffSnapshot,
    SpsaTunerSnapshot,
    TunerSnapshot,
)
from arena.reports.allplayall import allplayall_report
from arena.reports.ce_tuner import ce_tuner_report
from arena.reports.playoff import playoff_report
from arena.reports.spsa_tuner import spsa_tuner_report
from arena.reports.tuner import tuner_report


def competition_report(snapshot: CompetitionSnapshot) -> str:
    """The report for any competition's snapshot."""
    if isinstance(snapshot, PlayoffSnapshot):
        return playoff_report(snapshot)
    if isinstance(snapshot, AllPlayAllSnapshot):
        return allplayall_report(snapshot)
    if isinstance(snapshot, TunerSnapshot):
        return tuner_report(snapshot)
    if isinstance(snapshot, CeTunerSnapshot):
        return ce_tuner_report(snapshot)
    if isinstance(snapshot, SpsaTunerSnapshot):
        return spsa_tuner_report(snapshot)
    raise TypeError(f"no report for {type(snapshot).__name__}")
