"""What the tuners share at run time: building a game job, void games, refusing changed files.

* :func:`tuner_job` and :func:`candidate_job` are where a tuner turns "these
  two players, these game settings" into a :class:`arena.results.GameJob`
  (clocks travel in the settings; openings as :mod:`arena.competitions.jobs`
  lays them out: a colour-swapped pair of games per opening).
* :class:`VoidGames` counts void games and says when to halt, as the playoff
  does: a void game before any result of this run, or straight after
  another void game; :class:`TunerBookkeeping` gives the three tuners the
  same ``record_void`` and ``take_history_notes``.
* :func:`refuse_changed` raises the one-line :class:`StateError` for a
  setting that must not change between runs.
* :func:`candidate_score` is how a tuner scores a game for one player
  (a win 1, a loss 0, a game without a winner a half).

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from arena.competitions.jobs import make_job, second_of_pair
from arena.competitions.snapshots import HistoryNote
from arena.control.openings import Opening, OpeningBook
from arena.control.settings import GameSettings, PlayerConfig
from arena.errors import StateError
from arena.results import GameJob, GameResult
from gtp.vertex import Colour


def tuner_job(
    *,
    game_id: str,
    pairing: str,
    game_number: int,
    black: PlayerConfig,
    white: PlayerConfig,
    settings: GameSettings,
    event: str,
    opening: Opening | None = None,
) -> GameJob:
    """A game between two given players in given colours (the SPSA tuner's pairs)."""
    return GameJob(
        game_id=game_id,
        pairing=pairing,
        game_number=game_number,
        black=black,
        white=white,
        settings=settings,
        event=event,
        opening=opening,
    )


def candidate_job(
    *,
    game_id: str,
    game_number: int,
    candidate: PlayerConfig,
    opponent: PlayerConfig,
    candidate_colour: Colour,
    settings: GameSettings,
    event: str,
    openings: OpeningBook | None = None,
) -> GameJob:
    """A candidate against the fixed opponent, the candidate playing ``candidate_colour``.

    With ``openings``, games ``2k`` and ``2k + 1`` are pair ``k``: the same
    opening, and the candidate takes the other colour in the second game.
    """
    swap = candidate_colour is Colour.WHITE
    if openings is not None and second_of_pair(game_number):
        swap = not swap
    return make_job(
        game_id=game_id,
        pairing=candidate.code,
        game_number=game_number,
        first=candidate,
        second=opponent,
        settings=settings,
        event=event,
        swap_colours=swap,
        openings=openings,
    )


def candidate_colour_in(result: GameResult, opponent: str) -> Colour:
    """The colour the candidate played in ``result`` (the one the opponent did not)."""
    return Colour.WHITE if result.black == opponent else Colour.BLACK


def candidate_score(result: GameResult, code: str) -> float:
    """``code``'s points from the game: 1 for a win, 0 for a loss, 0.5 without a winner."""
    if result.winner is None:
        return 0.5
    return 1.0 if result.winning_player == code else 0.0


@attrs.define
class VoidGames:
    """Void games of a tuner and the rule for halting on them (see module docstring)."""

    count: int = 0  # void games seen, replays included (saved in the state)
    _working: bool = False
    _last_was_void: bool = False

    def counted(self) -> None:
        """A game of this run counted."""
        self._working = True
        self._last_was_void = False

    def void(self, *, live: bool) -> bool:
        """Note a void game; True when the run should halt."""
        self.count += 1
        if not live:
            return False
        halt = not self._working or self._last_was_void
        self._last_was_void = True
        return halt


class TunerBookkeeping:
    """What every tuner does the same way with void games and its history notes.

    The tuner keeps ``_voids`` and ``_history`` (lines for ``X.hist``: tree
    dumps, finished generations, theta) and frees a game's place with
    ``_release``.
    """

    _voids: VoidGames
    _history: list[HistoryNote]

    def _release(self, game_id: str) -> None:
        raise NotImplementedError

    def record_void(self, game_id: str, pairing: str, *, live: bool) -> bool:
        halt = self._voids.void(live=live)
        if live:
            self._release(game_id)
        return halt

    def take_history_notes(self) -> list[HistoryNote]:
        """Notes for the history file since the last call."""
        notes, self._history = self._history, []
        return notes


def refuse_changed(before: Mapping[str, Any], now: Mapping[str, Any], names: Iterable[str]) -> None:
    """StateError naming the first of ``names`` whose value differs from earlier runs."""
    for name in names:
        if before.get(name) != now.get(name):
            raise StateError(
                f"{name} was {before.get(name)!r} in earlier runs, not {now.get(name)!r};"
                " results at different settings cannot be mixed (start a new competition,"
                " or `arena reset`)"
            )


def describe_parameter_change(
    before: object, now: list[dict[str, Any]], fields: Iterable[str]
) -> str:
    """What differs between two lists of Parameter fingerprints, in a few words."""
    if not isinstance(before, list):
        return "no earlier definitions"
    old_codes = [p.get("code") for p in before if isinstance(p, dict)]
    if old_codes != [p["code"] for p in now]:
        old = ", ".join(str(code) for code in old_codes)
        return f"codes were {old}, now {', '.join(str(p['code']) for p in now)}"
    for old_parameter, new in zip(before, now, strict=True):
        for name in fields:
            old_value, new_value = old_parameter.get(name), new[name]
            if old_value == new_value:
                continue
            if isinstance(new_value, (list, dict)):
                return f"the {name} of {new['code']} changed"
            return f"{name} of {new['code']} was {old_value!r}, now {new_value!r}"
    return "definitions differ"


def refuse_changed_parameters(
    before: object, now: list[dict[str, Any]], fields: Iterable[str], why: str
) -> None:
    """StateError when the Parameter fingerprints differ from earlier runs."""
    if before != now:
        raise StateError(
            "the Parameter definitions changed since earlier runs ("
            + describe_parameter_change(before, now, fields)
            + f"); {why} (start a new competition, or `arena reset`)"
        )


def check_opponent(result: GameResult, colour: Colour, opponent: str) -> None:
    """StateError when the game's other player is not this tuner's opponent."""
    other = result.player(colour.opponent)
    if other != opponent:
        raise StateError(
            f"game {result.game_id} was played against {other}, but the opponent is now"
            f" {opponent} (start a new competition, or `arena reset`)"
        )
