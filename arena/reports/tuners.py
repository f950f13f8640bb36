"""The text report of any of the three tuners (its module loaded only by a tuner's run)."""

from __future__ import annotations

from arena.competitions.tuner_snapshots import CeTunerSnapshot, SpsaTunerSnapshot, TunerSnapshot
from arena.reports.ce_tuner import ce_tuner_report
from arena.reports.spsa_tuner import spsa_tuner_report
from arena.reports.tuner import tuner_report

TunerSnapshots = TunerSnapshot | CeTunerSnapshot | SpsaTunerSnapshot


def tuners_report(snapshot: TunerSnapshots) -> str:
    """The report for a Monte Carlo, cross-entropy or SPSA tuner's snapshot."""
    if isinstance(snapshot, CeTunerSnapshot):
        return ce_tuner_report(snapshot)
    if isinstance(snapshot, SpsaTunerSnapshot):
        return spsa_tuner_report(snapshot)
    return tuner_report(snapshot)
