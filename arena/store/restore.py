"""A competition rebuilt from what is on disk: the status snapshot plus the journal after it."""

from __future__ import annotations

from collections.abc import Iterable

from arena.competitions.base import Competition
from arena.competitions.registry import make_competition
from arena.control.config import CompetitionConfig
from arena.store.journal import JournalEntry, LoadedState, ResultEntry


def apply_entries(competition: Competition, entries: Iterable[JournalEntry]) -> int:
    """Re-apply journal entries (results deduplicated by game id); returns how many counted."""
    counted = 0
    for entry in entries:
        if isinstance(entry, ResultEntry):
            counted += competition.record_result(entry.result, entry.engines)
        else:
            competition.record_void(entry.game_id, entry.pairing, live=False)
    return counted


def load_competition(config: CompetitionConfig, loaded: LoadedState) -> Competition:
    """A competition restored from the status snapshot plus the journal entries after it."""
    competition = make_competition(config)
    if loaded.competition is not None:
        competition.load_state(loaded.competition)
    apply_entries(competition, loaded.pending)
    return competition
