"""The words of a tuner's history notes, as ``X.hist`` shows them."""

from __future__ import annotations

from typing import assert_never

from arena.competitions.snapshots import HistoryNote
from arena.competitions.tuner_snapshots import GenerationNote, ThetaNote, TreeNote
from arena.reports.ce_tuner import generation_lines
from arena.reports.tuner import tree_dump


def note_lines(note: HistoryNote) -> list[str]:
    """The history file's lines for one note."""
    match note:
        case TreeNote():
            return tree_dump(note.games, note.candidates)
        case GenerationNote():
            return generation_lines(note.number, note.distribution, note.candidates)
        case ThetaNote():
            return [f"theta after {note.iterations} iterations: {'; '.join(note.values)}"]
        case _:
            assert_never(note)
