"""The frozen configuration a control file becomes: the competition and its playoff matchups.

Pure values, no parsing: :mod:`arena.competitions.loader` builds them, the
competitions (:mod:`arena.competitions`) and the run loop read them.  Each
competition type keeps its own settings in ``CompetitionConfig.specific``
(:class:`PlayoffSettings` for playoffs).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.control.openings import OpeningBook
from arena.control.settings import GameSettings, PlayerConfig
from arena.stats.elo import SPRT

CrashResult = Literal["void", "forfeit"]


@attrs.frozen
class MatchupConfig:
    """One playoff ``Matchup``: two players, how many games, their settings."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    id: str
    name: str
    player_1: str
    player_2: str
    settings: GameSettings
    alternating: bool = False
    number_of_games: int | None = None
    event: str = ""
    sprt: SPRT | None = None  # stop the matchup once this test decides
    openings: OpeningBook | None = None  # games 2k and 2k+1 start from pair k's opening

    def game_id(self, game_number: int) -> str:
        """``<id>_<n>``, zero-padded to the width of the last game number."""
        if self.number_of_games is None or self.number_of_games <= 0:
            return f"{self.id}_{game_number}"
        width = len(str(self.number_of_games - 1))
        return f"{self.id}_{game_number:0{width}d}"


@attrs.frozen
class PlayoffSettings:
    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    matchups: tuple[MatchupConfig, ...]


@attrs.frozen
class CompetitionConfig:
    """A whole control file, validated."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    control_path: Path
    competition_type: str
    players: Mapping[str, PlayerConfig]
    specific: object  # PlayoffSettings for playoffs; other types bring their own
    description: str | None = None
    record_games: bool = True
    skip_player_checks: bool = False
    stderr_to_log: bool = True
    reuse_engines: bool = False
    affinity: int = 0  # cores per game slot its engines are pinned to (0: not pinned)
    crash_result: CrashResult = "void"
    cluster: str | None = None  # a Dask scheduler's address: play the games there
    html_report: bool = False  # write X.html (with plots) next to X.report after each run

    @property
    def code(self) -> str:
        """The competition code: the control file's name without its extension."""
        return self.control_path.stem

    @property
    def directory(self) -> Path:
        return self.control_path.parent

    @property
    def playoff(self) -> PlayoffSettings:
        if not isinstance(self.specific, PlayoffSettings):
            raise TypeError(f"{self.competition_type} competition has no matchups")
        return self.specific
