"""The interface every competition type offers the ringmaster (pure, no I/O).

A competition decides which game to play next, takes results (live or replayed
from the journal), says whether repeated void games should halt the run,
serialises its aggregates for ``X.status`` and gives frozen snapshots to the
reports and the live display.  Playoffs implement it in :mod:`arena.playoff`;
all-play-all tournaments and the tuner implement it in their own issues.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

import attrs

from arena.control import CompetitionConfig
from arena.results import GameJob, GameResult
from arena.settings import GameSettings, PlayerConfig
from arena.state import JournalEntry, LoadedState, ResultEntry


@attrs.frozen
class PlayerCheck:
    """Start this player and check it accepts these game settings."""

    player: PlayerConfig
    settings: GameSettings


class Competition(Protocol):
    """What the ringmaster needs from a competition."""

    config: CompetitionConfig

    def player_checks(self) -> list[PlayerCheck]:
        """The engines to check before the first game of a run."""
        ...

    def next_job(self) -> GameJob | None:
        """The next game to start now, or None if there is none (finished, or all issued)."""
        ...

    def job_abandoned(self, job: GameJob) -> None:
        """A job that will not finish in this run (stop at once); it may be issued again."""
        ...

    def record_result(self, result: GameResult, engines: Mapping[str, str]) -> bool:
        """Count a result; False when that game was already counted (a duplicate)."""
        ...

    def record_void(self, game_id: str, pairing: str, *, live: bool) -> bool:
        """Note a void game (it will be replayed); True when the run should halt."""
        ...

    def is_complete(self) -> bool:
        """Every game the control file asks for has a result."""
        ...

    def to_state(self) -> dict[str, Any]:
        """The aggregates for ``X.status`` (JSON-ready, size independent of game count)."""
        ...

    def load_state(self, state: Mapping[str, Any]) -> None:
        """Restore aggregates from ``X.status``; raises StateError if they don't fit."""
        ...

    def snapshot(self) -> Any:
        """A frozen picture for reports and the live display."""
        ...


def history_notes(competition: Competition) -> list[str]:
    """Extra lines for the history file since the last call (the tuner's tree dumps).

    A competition that has some offers ``take_history_notes() -> list[str]``.
    """
    take: Callable[[], list[str]] | None = getattr(competition, "take_history_notes", None)
    return [] if take is None else take()


CompetitionFactory = Callable[[CompetitionConfig], Competition]
_FACTORIES: dict[str, CompetitionFactory] = {}


def register_competition_class(competition_type: str, factory: CompetitionFactory) -> None:
    """Make ``competition_type`` playable (its control-file parser registers separately)."""
    _FACTORIES[competition_type] = factory


def make_competition(config: CompetitionConfig) -> Competition:
    """The competition object for a validated control file."""
    # Imported late to avoid a cycle; importing registers "allplayall", "mc_tuner" and "playoff".
    import arena.allplayall
    import arena.mc_tuner
    import arena.playoff  # noqa: F401

    factory = _FACTORIES.get(config.competition_type)
    if factory is None:
        raise ValueError(f"no competition class for {config.competition_type!r}")
    return factory(config)


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
