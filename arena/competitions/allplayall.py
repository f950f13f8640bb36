"""All-play-all tournaments (pure): every pair of competitors plays, with a grid and ratings.

Owns the :class:`AllPlayAll` competition (its settings are read by
:mod:`arena.control.allplayall`, its report is :mod:`arena.reports.allplayall`).

An all-play-all runs as a playoff with one alternating matchup per pair of
competitors, as Gomill describes it: competitors get letters A, B, C... in the
order listed (AA, AB... after Z); the matchup of competitors *i* < *j* has id
``AvB``, its player_1 is the earlier competitor (Black in even-numbered games)
and its ``number_of_games`` is ``rounds``.  So scheduling (the pairing with the
fewest games goes next), game ids (``AvB_0``, padded to the width of the last
game number), void handling, tallies and pair statistics are the playoff's
(:mod:`arena.competitions.playoff`).  This module adds the rules for changing the control
file between runs (competitors may be added at the end and ``rounds``
increased; anything else that would change earlier results' meaning is
refused), the results grid, and Bradley–Terry ratings for every competitor.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from arena.competitions.base import PlayerCheck, with_referee_checks
from arena.competitions.playoff import Playoff
from arena.competitions.snapshots import (
    AllPlayAllSnapshot,
    GridCell,
    HistoryNote,
    PlayoffSnapshot,
)
from arena.control.allplayall import allplayall_settings, competitor_letter
from arena.control.config import CompetitionConfig, PlayoffSettings
from arena.errors import StateError
from arena.results import GameJob, GameResult
from arena.stats.elo import WDL
from arena.stats.ratings import bradley_terry

# ---------------------------------------------------------------------------
# The competition


class AllPlayAll:
    """An all-play-all tournament (implements :class:`arena.competitions.base.Competition`)."""

    competition_type = "allplayall"

    def __init__(self, config: CompetitionConfig) -> None:
        self.config = config
        self.settings = allplayall_settings(config)
        self._letters = tuple(competitor_letter(i) for i in range(len(self.settings.competitors)))
        matchups = self.settings.matchups(event=config.code)
        self._matchups = {m.id: m for m in matchups}
        self._playoff = Playoff(attrs.evolve(config, specific=PlayoffSettings(matchups)))

    # -- scheduling (the playoff's) -------------------------------------------

    def player_checks(self) -> list[PlayerCheck]:
        return with_referee_checks(
            [
                PlayerCheck(self.config.players[code], self.settings.settings)
                for code in self.settings.competitors
            ]
        )

    def next_job(self) -> GameJob | None:
        return self._playoff.next_job()

    def job_abandoned(self, job: GameJob) -> None:
        self._playoff.job_abandoned(job)

    def is_complete(self) -> bool:
        return self._playoff.is_complete()

    # -- results --------------------------------------------------------------

    def record_result(self, result: GameResult, engines: Mapping[str, str]) -> bool:
        pairing, _, number = result.game_id.rpartition("_")
        matchup = self._matchups.get(pairing)
        if matchup is None or not number.isdigit():
            raise StateError(
                f"game {result.game_id} is not a game of this all-play-all"
                f" ({len(self.settings.competitors)} competitors);"
                " competitors may be added at the end of the list, not removed"
            )
        if {result.black, result.white} != {matchup.player_1, matchup.player_2}:
            raise StateError(
                f"game {result.game_id} was played by {result.black} and {result.white},"
                f" but competitors {pairing.replace('v', ' and ')} are now"
                f" {matchup.player_1} and {matchup.player_2}:"
                " competitors may only be added at the end of the list"
            )
        return self._playoff.record_result(result, engines)

    def record_void(self, game_id: str, pairing: str, *, live: bool) -> bool:
        return self._playoff.record_void(game_id, pairing, live=live)

    # -- state ------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        settings = self.settings
        return {
            "competitors": list(settings.competitors),
            "rounds": settings.rounds,
            "board_size": settings.settings.board_size,
            "komi": settings.settings.komi,
            "playoff": self._playoff.to_state(),
        }

    def load_state(self, state: Mapping[str, Any]) -> None:
        try:
            competitors = [str(code) for code in state["competitors"]]
            rounds = state["rounds"]
            board_size = state["board_size"]
            komi = state["komi"]
            playoff_state = state["playoff"]
        except (KeyError, TypeError) as exc:
            raise StateError(f"the all-play-all state is malformed: {exc!r}") from exc
        self._check_changes(competitors, rounds, board_size, komi)
        self._playoff.load_state(playoff_state)

    def _check_changes(
        self, competitors: list[str], rounds: object, board_size: object, komi: object
    ) -> None:
        """Refuse control-file changes that would change the meaning of earlier results."""
        now = self.settings
        if list(now.competitors[: len(competitors)]) != competitors:
            raise StateError(
                f"competitors were {', '.join(competitors)} in earlier runs; new competitors"
                " may be added at the end of the list, but none removed or reordered"
            )
        if rounds is not None:
            if not isinstance(rounds, int):
                raise StateError(f"the all-play-all state has a bad rounds value {rounds!r}")
            if now.rounds is not None and now.rounds < rounds:
                raise StateError(
                    f"rounds was {rounds} in earlier runs and may be increased, not decreased"
                    f" to {now.rounds} (use `arena stop` to stop early)"
                )
        elif now.rounds is not None:
            raise StateError(
                f"rounds was unset (unlimited) in earlier runs and may not be limited to"
                f" {now.rounds} now (use `arena stop` to stop)"
            )
        for name, before, after in (
            ("board_size", board_size, now.settings.board_size),
            ("komi", komi, now.settings.komi),
        ):
            if before != after:
                raise StateError(
                    f"{name} was {before} in earlier runs, not {after}; results at different"
                    " settings cannot be mixed (start a new competition, or `arena reset`)"
                )

    # -- snapshot ---------------------------------------------------------------

    def take_history_notes(self) -> list[HistoryNote]:
        return []

    def snapshot(self) -> AllPlayAllSnapshot:
        inner: PlayoffSnapshot = self._playoff.snapshot()
        competitors = self.settings.competitors
        index = {code: i for i, code in enumerate(competitors)}
        grid: list[list[GridCell | None]] = [[None] * len(competitors) for _ in competitors]
        results: dict[tuple[str, str], WDL] = {}
        for matchup in inner.matchups:
            tally = matchup.tally
            p1, p2 = matchup.player_1, matchup.player_2
            if p1 not in index or p2 not in index:
                continue
            wins_1, wins_2 = tally.players[p1].wins, tally.players[p2].wins
            if wins_1 + wins_2 > 0:
                i, j = index[p1], index[p2]
                grid[i][j] = GridCell(wins_1, wins_2)
                grid[j][i] = GridCell(wins_2, wins_1)
            if matchup.stats is not None:
                results[(p1, p2)] = matchup.stats.pairing.wdl
        ratings = bradley_terry(competitors, results, elo_anchor=self.settings.anchor)
        return AllPlayAllSnapshot(
            code=inner.code,
            description=inner.description,
            competitors=competitors,
            letters=self._letters,
            settings=self.settings.settings,
            rounds=self.settings.rounds,
            matchups=inner.matchups,
            grid=tuple(tuple(row) for row in grid),
            ratings=ratings,
            engines=inner.engines,
            in_progress=inner.in_progress,
            complete=inner.complete,
        )
