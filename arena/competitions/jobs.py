"""Building game jobs: the one path every competition type takes (pure, no I/O).

Every type makes its :class:`arena.results.GameJob` with :func:`make_job`, so a
job carries the same things whatever the type: the players in their colours,
the game settings (time control and margin included), the event text and,
with an opening suite, the opening.  With openings, games ``2k`` and
``2k + 1`` of a pairing are a colour-swapped pair that both start from pair
``k``'s opening (:meth:`arena.control.openings.OpeningBook.for_pair`); the
pair statistics (:class:`arena.competitions.matchstats.PairCounter`) count exactly
these pairs.

A type that chooses who plays each game (a tuner: which candidate plays the
opponent) keeps the choice of each pair in :class:`PairChoices`, so that both
games of a pair are the same candidate, also when one of them is replayed
after a stop or in a later run (the choices go into ``X.status``).

For a new competition type: build every job with :func:`make_job` (passing
the suite), swap colours on the second game of a pair (:func:`second_of_pair`),
and, if it picks a player per game, take the second game's player from its
:class:`PairChoices`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from arena import fields_eq, fields_repr
from arena.control.openings import OpeningBook
from arena.control.settings import GameSettings, PlayerConfig
from arena.results import GameJob


def second_of_pair(game_number: int) -> bool:
    """Whether the game is the second of its colour-swapped pair (odd numbers)."""
    return game_number % 2 == 1


def make_job(
    *,
    game_id: str,
    pairing: str,
    game_number: int,
    first: PlayerConfig,
    second: PlayerConfig,
    settings: GameSettings,
    event: str,
    swap_colours: bool,
    openings: OpeningBook | None,
) -> GameJob:
    """The job of one game: ``first`` takes Black unless ``swap_colours``; pair k's opening."""
    black, white = (second, first) if swap_colours else (first, second)
    return GameJob(
        game_id=game_id,
        pairing=pairing,
        game_number=game_number,
        black=black,
        white=white,
        settings=settings,
        event=event,
        opening=None if openings is None else openings.for_pair(game_number // 2),
    )


@attrs.define
class PairChoices:
    """The player chosen for each pair whose two games are not both finished (by player code).

    A pair's choice is made by its first game to be issued, kept while
    either game is issued or finished, and forgotten once both are finished,
    or once neither is (so a pair abandoned whole may be chosen afresh).
    """

    __repr__ = fields_repr
    __eq__ = fields_eq

    chosen: dict[int, str] = attrs.Factory(dict)

    def choice(self, game_number: int) -> str | None:
        return self.chosen.get(game_number // 2)

    def choose(self, game_number: int, code: str) -> None:
        self.chosen[game_number // 2] = code

    def finished(self, game_number: int, *, partner_finished: bool) -> None:
        """Game ``game_number`` has its result; the choice goes once its partner has one too."""
        if partner_finished:
            self.chosen.pop(game_number // 2, None)

    def released(self, game_number: int, *, partner_busy: bool) -> None:
        """Game ``game_number`` will be replayed; the choice stays while its partner is busy."""
        if not partner_busy:
            self.chosen.pop(game_number // 2, None)

    def to_json(self) -> dict[str, Any]:
        return {str(pair): code for pair, code in sorted(self.chosen.items())}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PairChoices:
        return cls({int(pair): str(code) for pair, code in data.items()})
