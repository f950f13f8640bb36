"""The ``allplayall`` control-file settings: competitors, rounds, the Elo anchor, game settings.

Competitors get letters A, B, C... in the order listed (AA, AB... after Z);
the matchup of competitors *i* < *j* has id ``AvB``.  :class:`AllPlayAllSettings`
turns the settings into one alternating matchup per pair (the competition
itself is :mod:`arena.competitions.allplayall`).
"""

from __future__ import annotations

from typing import Final

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.control.config import CompetitionConfig, MatchupConfig
from arena.control.namespace import ControlFile
from arena.control.openings import OpeningBook, openings_setting
from arena.control.settings import (
    GAME_SETTINGS,
    GameSettings,
    as_identifier,
    as_int,
    build_game_settings,
    describe_value,
    interpret_game_setting,
)

ALLPLAYALL_GAME_SETTINGS: Final = tuple(
    name
    for name in GAME_SETTINGS
    if name not in ("handicap", "handicap_style", "internal_scorer_handicap_compensation")
)
_NOT_FOR_ALLPLAYALL: Final = {
    "handicap": "all-play-all games have no handicap",
    "handicap_style": "all-play-all games have no handicap",
    "matchups": "an all-play-all plays every pair of competitors; matchups are for playoffs",
}


def competitor_letter(index: int) -> str:
    """A, B, ... Z, AA, AB, ... (the spreadsheet column names) for competitor ``index``."""
    if index < 0:
        raise ValueError(f"competitor index must not be negative, not {index}")
    letters = ""
    index += 1
    while index:
        index, remainder = divmod(index - 1, 26)
        letters = chr(ord("A") + remainder) + letters
    return letters


def matchup_id(first: int, second: int) -> str:
    """``AvB`` for competitors ``first`` < ``second``."""
    return f"{competitor_letter(first)}v{competitor_letter(second)}"


@attrs.frozen
class AllPlayAllSettings:
    """The all-play-all part of a control file."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    competitors: tuple[str, ...]
    settings: GameSettings
    rounds: int | None = None  # None: play on until stopped
    elo_anchor: str | None = None  # rated 0; default the first competitor
    openings: OpeningBook | None = None

    @property
    def anchor(self) -> str:
        return self.elo_anchor or self.competitors[0]

    def matchups(self, event: str) -> tuple[MatchupConfig, ...]:
        """One alternating matchup per pair of competitors, AvB, AvC, ... BvC, ..."""
        matchups = []
        for i, first in enumerate(self.competitors):
            for j in range(i + 1, len(self.competitors)):
                second = self.competitors[j]
                matchups.append(
                    MatchupConfig(
                        id=matchup_id(i, j),
                        name=f"{matchup_id(i, j)}: {first} v {second}",
                        player_1=first,
                        player_2=second,
                        settings=self.settings,
                        alternating=True,
                        number_of_games=self.rounds,
                        event=event,
                        openings=self.openings,
                    )
                )
        return tuple(matchups)


def parse_allplayall(control: ControlFile) -> AllPlayAllSettings:
    """Read ``competitors``, ``rounds``, ``elo_anchor`` and the game settings."""
    for name, why in _NOT_FOR_ALLPLAYALL.items():
        if control.has(name):
            raise control.where(name).error(f"not used in an all-play-all ({why})")
    where = control.where("competitors")
    if not control.has("competitors"):
        raise where.error("not set (a list of player codes)")
    listed = control.get("competitors")
    if not isinstance(listed, (list, tuple)):
        raise where.error(f"expected a list of player codes, not {describe_value(listed)}")
    players = control.get("players")
    known = set(players) if isinstance(players, dict) else set()
    competitors: list[str] = []
    for item in listed:
        code = as_identifier(item, where)
        if code not in known:
            raise where.error(f"unknown player {code!r}")
        if code in competitors:
            raise where.error(f"player {code!r} is listed more than once")
        competitors.append(code)
    if len(competitors) < 2:
        raise where.error("an all-play-all needs at least two competitors")
    rounds = None
    if control.has("rounds"):
        rounds = as_int(control.get("rounds"), control.where("rounds"))
        if rounds < 0:
            raise control.where("rounds").error(f"must not be negative, not {rounds}")
    anchor = None
    if control.has("elo_anchor"):
        anchor = as_identifier(control.get("elo_anchor"), control.where("elo_anchor"))
        if anchor not in competitors:
            raise control.where("elo_anchor").error(f"{anchor!r} is not one of the competitors")
    values: dict[str, object] = {}
    for name in ALLPLAYALL_GAME_SETTINGS:
        if control.has(name):
            values[name] = interpret_game_setting(name, control.get(name), control.where(name))
    for name in ("board_size", "komi"):
        if name not in values:
            raise control.where(name).error("not set (required for an all-play-all)")
    settings = build_game_settings(values, control.where("board_size"))
    openings = openings_setting(control, settings)
    return AllPlayAllSettings(tuple(competitors), settings, rounds, anchor, openings)


def allplayall_settings(config: CompetitionConfig) -> AllPlayAllSettings:
    if not isinstance(config.specific, AllPlayAllSettings):
        raise TypeError(f"{config.competition_type} competition is not an all-play-all")
    return config.specific
