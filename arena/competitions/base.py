"""The interface every competition type offers the run loop (pure: no I/O, no trio).

A competition decides which game to play next, takes results (live or replayed
from the journal), says whether repeated void games should halt the run,
serialises its aggregates for ``X.status`` and gives frozen snapshots
(:mod:`arena.competitions.snapshots`) to the reports and the live display.
The types are listed in :mod:`arena.competitions.registry`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.competitions.snapshots import CompetitionSnapshot, HistoryNote
from arena.control.config import CompetitionConfig
from arena.control.settings import GameSettings, PlayerConfig
from arena.results import GameJob, GameResult


@attrs.frozen
class PlayerCheck:
    """Start this player and check it accepts these game settings."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    player: PlayerConfig
    settings: GameSettings
    referee: bool = False  # checked as the games' referee engine, not as a player

    @property
    def required_commands(self) -> frozenset[str]:
        """Commands the engine must list for these games (Fischer time: kata-time_settings)."""
        if self.referee:
            return frozenset({"final_score"})
        control = self.player.time_control or self.settings.time_control
        needed = None if control is None else control.required_command
        return frozenset() if needed is None else frozenset({needed})

    @property
    def clocked(self) -> bool:
        """The player's games run under a clock."""
        if self.referee:
            return False
        return (self.player.time_control or self.settings.time_control) is not None


def with_referee_checks(checks: list[PlayerCheck]) -> list[PlayerCheck]:
    """``checks`` and a check of each referee engine their settings name (once each)."""
    referees: dict[PlayerConfig, PlayerCheck] = {}
    for check in checks:
        judge = check.settings.referee_player
        if judge is not None and judge not in referees:
            referees[judge] = PlayerCheck(judge, check.settings, referee=True)
    return [*checks, *referees.values()]


def is_clocked(checks: list[PlayerCheck]) -> bool:
    """Some engine of the competition plays under a clock."""
    return any(check.clocked for check in checks)


class Competition(Protocol):
    """What the run loop needs from a competition."""

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

    def snapshot(self) -> CompetitionSnapshot:
        """A frozen picture for reports and the live display."""
        ...

    def take_history_notes(self) -> list[HistoryNote]:
        """Notes for the history file since the last call (a tuner's tree, generation, theta)."""
        ...
