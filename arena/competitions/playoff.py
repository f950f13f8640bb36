"""The playoff competition: repeated games of explicit matchups (pure, no I/O).

Scheduling follows Gomill: the matchup with the fewest games (finished plus in
progress) goes next, ties in definition order; within a matchup the lowest game
number not yet finished or in progress is played, so games lost to a stop or a
crash are replayed with the same id.  Colours swap on odd game numbers when the
matchup alternates (always, with openings: each pair of games shares one).

The state kept per matchup is a tally (wins by player and colour, forfeits,
time losses, unknown and move-limit results, jigos, CPU sums, time per move,
void games) plus which game numbers are finished, stored as "all below k" and
the few finished above k, so ``X.status`` stays the same size however many
games are played.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from arena import fields_eq, fields_repr
from arena.competitions.base import PlayerCheck, with_referee_checks
from arena.competitions.jobs import make_job, second_of_pair
from arena.competitions.matchstats import (
    MatchupStats,
    PairCounter,
    SprtOutcome,
    check_sprt,
    matchup_stats,
    matchup_wdl,
    player_score,
)
from arena.competitions.snapshots import (
    HistoryNote,
    MatchupCounts,
    MatchupSnapshot,
    PlayerCounts,
    PlayoffSnapshot,
)
from arena.control.config import CompetitionConfig, MatchupConfig
from arena.errors import StateError
from arena.results import EndReason, GameJob, GameResult
from arena.stats.elo import WDL
from gtp.vertex import Colour


@attrs.define
class PlayerTally:
    """One player's record within a matchup (wins count a jigo as half)."""

    __repr__ = fields_repr
    __eq__ = fields_eq

    wins: float = 0.0
    black_games: int = 0
    white_games: int = 0
    black_wins: float = 0.0
    white_wins: float = 0.0
    forfeits: int = 0  # games lost by forfeit
    time_losses: int = 0  # games lost on time
    adjudicated: int = 0  # games lost by adjudication (the referee engine's verdict)
    cpu_total: float = 0.0
    cpu_games: int = 0
    time_moves: int = 0  # genmoves timed
    time_total: float = 0.0  # seconds over those genmoves
    time_max: float = 0.0  # the longest of them

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlayerTally:
        fields = {f.name for f in attrs.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in fields})

    def counts(self) -> PlayerCounts:
        return PlayerCounts(**attrs.asdict(self))


@attrs.define
class MatchupTally:
    """Aggregates of one matchup's counted results."""

    __repr__ = fields_repr
    __eq__ = fields_eq

    player_1: str
    player_2: str
    games: int = 0
    jigos: int = 0
    unknown: int = 0  # could not be scored, or the scorers disagreed
    move_limit: int = 0  # stopped at move_limit (SGF RE[Void])
    void_games: int = 0  # software failures, replayed (not counted in games)
    players: dict[str, PlayerTally] = attrs.Factory(dict)

    def __attrs_post_init__(self) -> None:
        for code in (self.player_1, self.player_2):
            self.players.setdefault(code, PlayerTally())

    def add(self, result: GameResult) -> None:
        self.games += 1
        black = self.players[result.black]
        white = self.players[result.white]
        black.black_games += 1
        white.white_games += 1
        for tally, cpu, times in (
            (black, result.cpu_black, result.times_black),
            (white, result.cpu_white, result.times_white),
        ):
            if cpu is not None:
                tally.cpu_total += cpu
                tally.cpu_games += 1
            if times is not None:
                tally.time_moves += times.moves
                tally.time_total += times.total
                tally.time_max = max(tally.time_max, times.longest)
        if result.is_jigo:
            self.jigos += 1
            black.wins += 0.5
            black.black_wins += 0.5
            white.wins += 0.5
            white.white_wins += 0.5
        elif result.winner is Colour.BLACK:
            black.wins += 1
            black.black_wins += 1
        elif result.winner is Colour.WHITE:
            white.wins += 1
            white.white_wins += 1
        elif result.end is EndReason.MOVE_LIMIT:
            self.move_limit += 1
        else:
            self.unknown += 1
        loser = result.losing_player
        if loser is not None:
            if result.end is EndReason.FORFEIT:
                self.players[loser].forfeits += 1
            elif result.end is EndReason.TIME:
                self.players[loser].time_losses += 1
            elif result.end is EndReason.ADJUDICATED:
                self.players[loser].adjudicated += 1

    def counts(self) -> MatchupCounts:
        """A frozen copy for snapshots."""
        return MatchupCounts(
            player_1=self.player_1,
            player_2=self.player_2,
            games=self.games,
            jigos=self.jigos,
            unknown=self.unknown,
            move_limit=self.move_limit,
            void_games=self.void_games,
            players={code: tally.counts() for code, tally in self.players.items()},
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "player_1": self.player_1,
            "player_2": self.player_2,
            "games": self.games,
            "jigos": self.jigos,
            "unknown": self.unknown,
            "move_limit": self.move_limit,
            "void_games": self.void_games,
            "players": {code: tally.to_json() for code, tally in self.players.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchupTally:
        return cls(
            player_1=str(data["player_1"]),
            player_2=str(data["player_2"]),
            games=int(data["games"]),
            jigos=int(data["jigos"]),
            unknown=int(data["unknown"]),
            move_limit=int(data["move_limit"]),
            void_games=int(data["void_games"]),
            players={str(k): PlayerTally.from_json(v) for k, v in data["players"].items()},
        )


@attrs.define
class GameNumbers:
    """Which game numbers of a matchup (or a tuner) are finished or in progress."""

    __repr__ = fields_repr
    __eq__ = fields_eq

    finished_below: int = 0  # every number below this is finished
    finished_above: set[int] = attrs.Factory(set)
    issued: set[int] = attrs.Factory(set)

    def is_finished(self, number: int) -> bool:
        return number < self.finished_below or number in self.finished_above

    def finish(self, number: int) -> None:
        self.issued.discard(number)
        self.finished_above.add(number)
        while self.finished_below in self.finished_above:
            self.finished_above.remove(self.finished_below)
            self.finished_below += 1

    def next_free(self) -> int:
        number = self.finished_below
        while number in self.finished_above or number in self.issued:
            number += 1
        return number


class Playoff:
    """A playoff tournament (implements :class:`arena.competitions.base.Competition`)."""

    competition_type = "playoff"

    def __init__(self, config: CompetitionConfig) -> None:
        self.config = config
        self._matchups: dict[str, MatchupConfig] = {m.id: m for m in config.playoff.matchups}
        self._tallies: dict[str, MatchupTally] = {
            m.id: MatchupTally(m.player_1, m.player_2) for m in config.playoff.matchups
        }
        self._numbers: dict[str, GameNumbers] = {
            m.id: GameNumbers() for m in config.playoff.matchups
        }
        self._engines: dict[str, str] = {}
        self._pairs: dict[str, PairCounter] = {}
        self._sprt: dict[str, SprtOutcome] = {}  # matchups whose SPRT has decided (they stop)
        # Void handling within this run (Gomill's rule): a matchup that has not
        # finished a game yet, or whose previous game was void, halts the run.
        self._working: set[str] = set()
        self._probation: set[str] = set()

    # ------------------------------------------------------------------
    # Scheduling

    def player_checks(self) -> list[PlayerCheck]:
        checks: dict[str, PlayerCheck] = {}
        for matchup in self.config.playoff.matchups:
            if matchup.number_of_games == 0:
                continue
            for code in (matchup.player_1, matchup.player_2):
                check = PlayerCheck(self.config.players[code], matchup.settings)
                # One check per player: with the settings that need the most of it.
                if code not in checks or (
                    check.required_commands and not checks[code].required_commands
                ):
                    checks[code] = check
        return with_referee_checks([checks[code] for code in sorted(checks)])

    def _available(self, matchup: MatchupConfig) -> int | None:
        number = self._numbers[matchup.id].next_free()
        limit = matchup.number_of_games
        if limit is not None and number >= limit:
            return None
        if matchup.sprt is not None and matchup.id in self._sprt:
            return None
        return number

    def next_job(self) -> GameJob | None:
        best: tuple[int, MatchupConfig, int] | None = None
        for matchup in self.config.playoff.matchups:
            number = self._available(matchup)
            if number is None:
                continue
            numbers = self._numbers[matchup.id]
            load = self._tallies[matchup.id].games + len(numbers.issued)
            if best is None or load < best[0]:
                best = (load, matchup, number)
        if best is None:
            return None
        _, matchup, number = best
        self._numbers[matchup.id].issued.add(number)
        return self._job(matchup, number)

    def _job(self, matchup: MatchupConfig, number: int) -> GameJob:
        players = self.config.players
        return make_job(
            game_id=matchup.game_id(number),
            pairing=matchup.id,
            game_number=number,
            first=players[matchup.player_1],
            second=players[matchup.player_2],
            settings=matchup.settings,
            event=matchup.event,
            swap_colours=matchup.alternating and second_of_pair(number),
            openings=matchup.openings,
        )

    def job_abandoned(self, job: GameJob) -> None:
        numbers = self._numbers.get(job.pairing)
        if numbers is not None:
            numbers.issued.discard(job.game_number)

    def is_complete(self) -> bool:
        for matchup in self.config.playoff.matchups:
            if self._available(matchup) is not None:
                return False
            if self._numbers[matchup.id].issued:
                return False
        return True

    # ------------------------------------------------------------------
    # Results

    def _split_game_id(self, game_id: str) -> tuple[str, int]:
        matchup_id, _, number_text = game_id.rpartition("_")
        if not matchup_id or not number_text.isdigit():
            raise ValueError(f"not a playoff game id: {game_id!r}")
        return matchup_id, int(number_text)

    def record_result(self, result: GameResult, engines: Mapping[str, str]) -> bool:
        matchup_id, number = self._split_game_id(result.game_id)
        tally = self._tallies.get(matchup_id)
        if tally is None:
            # A matchup gone from the control file: keep its results as a ghost.
            tally = MatchupTally(result.black, result.white)
            self._tallies[matchup_id] = tally
        if {result.black, result.white} != {tally.player_1, tally.player_2}:
            raise StateError(
                f"result for game {result.game_id} has players {result.black}, {result.white};"
                f" matchup {matchup_id} is {tally.player_1} v {tally.player_2}"
            )
        numbers = self._numbers.setdefault(matchup_id, GameNumbers())
        if numbers.is_finished(number):
            numbers.issued.discard(number)
            return False
        numbers.finish(number)
        tally.add(result)
        self._count_pair_and_sprt(matchup_id, number, result)
        self._engines.update(engines)
        self._working.add(matchup_id)
        self._probation.discard(matchup_id)
        return True

    def _count_pair_and_sprt(self, matchup_id: str, number: int, result: GameResult) -> None:
        player_1 = self._tallies[matchup_id].player_1
        pairs = self._pairs.setdefault(matchup_id, PairCounter())
        pairs.add(number, result.black == player_1, player_score(result, player_1))
        matchup = self._matchups.get(matchup_id)
        if matchup is None or matchup.sprt is None or matchup_id in self._sprt:
            return
        outcome = check_sprt(
            matchup.sprt,
            self._wdl(matchup_id),
            pairs.pentanomial(),
            alternating=matchup.alternating,
        )
        if outcome is not None:
            self._sprt[matchup_id] = outcome

    def _wdl(self, matchup_id: str) -> WDL:
        tally = self._tallies[matchup_id]
        wins_1, wins_2 = (tally.players[p].wins for p in (tally.player_1, tally.player_2))
        return matchup_wdl(wins_1, wins_2, tally.jigos, tally.unknown + tally.move_limit)

    def _stats(self, matchup_id: str) -> MatchupStats:
        tally = self._tallies[matchup_id]
        matchup = self._matchups.get(matchup_id)
        return matchup_stats(
            tally.player_1,
            tally.player_2,
            self._wdl(matchup_id),
            self._pairs.get(matchup_id, PairCounter()).pentanomial(),
            sprt=None if matchup is None else matchup.sprt,
            alternating=matchup is not None and matchup.alternating,
            outcome=self._sprt.get(matchup_id),
        )

    def record_void(self, game_id: str, pairing: str, *, live: bool) -> bool:
        tally = self._tallies.get(pairing)
        if tally is not None:
            tally.void_games += 1
        if not live:
            return False
        try:
            _, number = self._split_game_id(game_id)
        except ValueError:
            number = -1
        numbers = self._numbers.get(pairing)
        if numbers is not None:
            numbers.issued.discard(number)
        if pairing not in self._working or pairing in self._probation:
            return True
        self._probation.add(pairing)
        return False

    # ------------------------------------------------------------------
    # State

    def to_state(self) -> dict[str, Any]:
        return {
            "matchups": {
                matchup_id: {
                    "tally": tally.to_json(),
                    "finished_below": self._numbers[matchup_id].finished_below,
                    "finished_above": sorted(self._numbers[matchup_id].finished_above),
                }
                for matchup_id, tally in self._tallies.items()
            },
            "engines": dict(self._engines),
            "pairs": {key: pairs.to_json() for key, pairs in self._pairs.items()},
            "sprt": {key: outcome.to_json() for key, outcome in self._sprt.items()},
        }

    def load_state(self, state: Mapping[str, Any]) -> None:
        try:
            matchups = state["matchups"]
            engines = state.get("engines", {})
            tallies: dict[str, MatchupTally] = {}
            numbers: dict[str, GameNumbers] = {}
            for matchup_id, data in matchups.items():
                tallies[matchup_id] = MatchupTally.from_json(data["tally"])
                numbers[matchup_id] = GameNumbers(
                    int(data["finished_below"]), {int(n) for n in data["finished_above"]}
                )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StateError(f"the playoff state is malformed: {exc!r}") from exc
        for matchup in self.config.playoff.matchups:
            tally = tallies.get(matchup.id)
            if tally is None or tally.games == 0:
                continue
            if {tally.player_1, tally.player_2} != {matchup.player_1, matchup.player_2}:
                raise StateError(
                    f"existing results for matchup {matchup.id} are inconsistent with the"
                    f" control file: results are for {tally.player_1} v {tally.player_2},"
                    f" the control file says {matchup.player_1} v {matchup.player_2}"
                )
        for matchup in self.config.playoff.matchups:
            tally = tallies.get(matchup.id)
            if tally is not None and tally.games == 0:
                tally = MatchupTally(
                    matchup.player_1, matchup.player_2, void_games=tally.void_games
                )
            tallies[matchup.id] = tally or MatchupTally(matchup.player_1, matchup.player_2)
            numbers.setdefault(matchup.id, GameNumbers())
        self._tallies = tallies
        self._numbers = numbers
        self._engines = {str(k): str(v) for k, v in engines.items()}
        try:
            self._pairs = {k: PairCounter.from_json(v) for k, v in state.get("pairs", {}).items()}
            self._sprt = {k: SprtOutcome.from_json(v) for k, v in state.get("sprt", {}).items()}
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StateError(f"the playoff state is malformed: {exc!r}") from exc

    def take_history_notes(self) -> list[HistoryNote]:
        return []

    # ------------------------------------------------------------------
    # Snapshot

    def snapshot(self) -> PlayoffSnapshot:
        in_progress: list[str] = []
        matchups: list[MatchupSnapshot] = []
        seen: set[str] = set()
        for matchup in self.config.playoff.matchups:
            running = tuple(matchup.game_id(n) for n in sorted(self._numbers[matchup.id].issued))
            in_progress.extend(running)
            seen.add(matchup.id)
            matchups.append(
                MatchupSnapshot(
                    id=matchup.id,
                    name=matchup.name,
                    player_1=matchup.player_1,
                    player_2=matchup.player_2,
                    settings=matchup.settings,
                    number_of_games=matchup.number_of_games,
                    tally=self._tallies[matchup.id].counts(),
                    in_progress=running,
                    stats=self._stats(matchup.id),
                )
            )
        for matchup_id, tally in self._tallies.items():
            if matchup_id in seen or tally.games == 0:
                continue
            matchups.append(
                MatchupSnapshot(
                    id=matchup_id,
                    name=f"{tally.player_1} v {tally.player_2}",
                    player_1=tally.player_1,
                    player_2=tally.player_2,
                    settings=None,
                    number_of_games=None,
                    tally=tally.counts(),
                    stats=self._stats(matchup_id),
                )
            )
        return PlayoffSnapshot(
            code=self.config.code,
            description=self.config.description,
            matchups=tuple(matchups),
            engines=tuple(sorted(self._engines.items())),
            in_progress=tuple(in_progress),
            complete=self.is_complete(),
        )
