"""The cross-entropy tuner competition (``ce_tuner``): generations, results, state, snapshot.

Owns :class:`CeTuner`, which implements :class:`arena.competitions.base.Competition`
with the arithmetic of :mod:`arena.tuning.cem` and the settings read by
:mod:`arena.control.ce_tuner`; its snapshot is
:class:`arena.competitions.snapshots.CeTunerSnapshot`.

A generation draws ``samples_per_generation`` samples from the current
Gaussian (from a random stream fixed by the seed and the generation number,
so a generation replayed from the journal draws the same samples); sample
``n`` of generation ``g`` is the candidate ``g<g>#<n>`` and plays
``batch_size`` games against the opponent, with ids ``g<g>#<n>r<round>`` as
in Gomill.  Games go to the candidates in turn (the one with fewest games
issued first), so parallel slots play different samples of the generation
at once; the next generation starts once every game of this one is counted
(the update needs them all), so at a generation's end some slots wait.  A
jigo counts half a win; a game with no result (the players' scores
disagreeing or unscored, or stopped at ``move_limit``) counts nothing, as in
Gomill: half a win for each would let every sample of a generation tie.
When a generation is complete the
elite is chosen, the distribution updated, and the generation (candidates by
wins, elite marked ``*``) written to the history file.

Changing the control file between runs: ``samples_per_generation``, the
``Parameter`` codes, initial means and variances and transforms, the
opponent, the candidate colour, the board size, komi and handicap must stay
as they were (the run is refused otherwise); ``batch_size`` may grow but not
shrink; ``number_of_generations``, ``elite_proportion``, ``step_size``,
``make_candidate`` and ``format`` may change.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any, Final

import attrs

from arena.competitions.base import PlayerCheck, with_referee_checks
from arena.competitions.playoff import GameNumbers
from arena.competitions.snapshots import HistoryNote
from arena.competitions.tuner_common import (
    TunerBookkeeping,
    VoidGames,
    candidate_job,
    candidate_score,
    check_opponent,
    refuse_changed,
    refuse_changed_parameters,
)
from arena.competitions.tuner_snapshots import (
    CeCandidate,
    CeDistribution,
    CeGeneration,
    CeParameterInfo,
    CeTunerSnapshot,
    GenerationNote,
    RunningGame,
)
from arena.control.ce_tuner import ce_candidate_player, ce_settings
from arena.control.config import CompetitionConfig
from arena.control.settings import PlayerConfig, Where
from arena.errors import StateError
from arena.results import EndReason, GameJob, GameResult
from arena.tuning.cem import (
    FinishedGeneration,
    Gaussian,
    Sample,
    elite_count,
    finish_generation,
    ranking,
)
from gtp.vertex import Colour

GAME_ID: Final = re.compile(r"g(\d+)#(\d+)r(\d+)")


def candidate_code(generation: int, number: int) -> str:
    return f"g{generation}#{number}"


@attrs.frozen
class _Running:
    number: int  # sample number
    round: int


class CeTuner(TunerBookkeeping):
    """A cross-entropy tuning event (implements :class:`arena.competitions.base.Competition`).

    ``seed`` fixes every generation's samples and the colours chosen with
    ``candidate_colour = 'random'`` (default: a fresh one, saved in the state).
    """

    competition_type = "ce_tuner"

    def __init__(self, config: CompetitionConfig, *, seed: int | None = None) -> None:
        self.config = config
        self.settings = ce_settings(config)
        self._seed = random.SystemRandom().randrange(2**62) if seed is None else seed
        self._generation = 0
        self._distribution = self.settings.initial_distribution
        self._samples: list[Sample] = []
        self._wins: list[float] = []
        self._rounds: list[GameNumbers] = []
        self._finished: list[FinishedGeneration] = []
        self._running: dict[str, _Running] = {}
        self._players: dict[int, PlayerConfig] = {}
        self._games = 0
        self._voids = VoidGames()
        self._engines: dict[str, str] = {}
        self._candidate_engine: str | None = None
        self._history: list[HistoryNote] = []
        self._fixed = self._fixed_settings()
        self._start_generation()

    # -- generations ------------------------------------------------------------

    def _start_generation(self) -> None:
        """Draw the current generation's samples (also past the last generation: a
        generation cut short by lowering ``number_of_generations`` keeps its results)."""
        self._players.clear()
        rng = random.Random(self._seed * 1_000_003 + self._generation)
        count = self.settings.samples_per_generation
        self._samples = self._distribution.samples(count, rng)
        self._wins = [0.0] * count
        self._rounds = [GameNumbers() for _ in range(count)]

    def _generation_complete(self) -> bool:
        batch = self.settings.batch_size
        return all(r.finished_below >= batch for r in self._rounds)

    def _playing(self) -> bool:
        return self._generation < self.settings.number_of_generations

    def _finish_generation(self) -> None:
        settings = self.settings
        outcome = finish_generation(
            self._distribution,
            self._samples,
            self._wins,
            elite_proportion=settings.elite_proportion,
            step_size=settings.step_size,
        )
        best = outcome.order[0]
        elites = [self._samples[n] for n in outcome.elite]
        elite_mean = tuple(sum(axis) / len(elites) for axis in zip(*elites, strict=True))
        self._finished.append(
            FinishedGeneration(
                self._generation,
                self._distribution,
                sum(r.finished_below for r in self._rounds),
                len(outcome.elite),
                best,
                self._samples[best],
                self._wins[best],
                elite_mean,
                tuple(self._samples),
                tuple(self._wins),
            )
        )
        self._history.append(
            GenerationNote(
                self._generation,
                self._distribution_view(self._distribution),
                tuple(self._candidate(n, elite=n in outcome.elite) for n in outcome.order),
            )
        )
        self._distribution = outcome.next_distribution
        self._generation += 1
        self._start_generation()

    # -- candidates -------------------------------------------------------------

    def candidate(self, number: int) -> PlayerConfig:
        player = self._players.get(number)
        if player is None:
            where = Where(self.config.control_path, "make_candidate")
            code = candidate_code(self._generation, number)
            sample = self._samples[number]
            player = ce_candidate_player(self.settings, sample, code, where, self.config.directory)
            self._players[number] = player
        return player

    def _colour(self, number: int, round_: int) -> Colour:
        colour = self.settings.candidate_colour
        if colour is not None:
            return colour
        # The same game always gets the same colour, so a replayed game is the same game;
        # with openings the draw is the pair's (candidate_job swaps its second game).
        game = round_ // 2 if self.settings.openings is not None else round_
        draw = random.Random(f"{self._seed}/{self._generation}/{number}/{game}").random()
        return Colour.BLACK if draw < 0.5 else Colour.WHITE

    # -- scheduling -------------------------------------------------------------

    def player_checks(self) -> list[PlayerCheck]:
        """The opponent and a candidate at the current distribution's mean."""
        settings = self.settings
        where = Where(self.config.control_path, "make_candidate")
        sample = self._distribution.means
        mean = ce_candidate_player(settings, sample, "candidate", where, self.config.directory)
        return with_referee_checks(
            [
                PlayerCheck(self.config.players[settings.opponent], settings.settings),
                PlayerCheck(mean, settings.settings),
            ]
        )

    def next_job(self) -> GameJob | None:
        if not self._playing():
            return None
        batch = self.settings.batch_size
        best: tuple[int, int] | None = None  # (games finished or issued, sample number)
        for number, rounds in enumerate(self._rounds):
            load = rounds.finished_below + len(rounds.finished_above) + len(rounds.issued)
            if rounds.next_free() < batch and (best is None or load < best[0]):
                best = (load, number)
        if best is None:
            return None
        number = best[1]
        rounds = self._rounds[number]
        round_ = rounds.next_free()
        rounds.issued.add(round_)
        code = candidate_code(self._generation, number)
        game_id = f"{code}r{round_}"
        self._running[game_id] = _Running(number, round_)
        described = "; ".join(self.settings.describe(self._samples[number]))
        return candidate_job(
            game_id=game_id,
            game_number=round_,
            candidate=self.candidate(number),
            opponent=self.config.players[self.settings.opponent],
            candidate_colour=self._colour(number, round_),
            settings=self.settings.settings,
            event=f"{self.config.code} {code} {described}",
            openings=self.settings.openings,
        )

    def _release(self, game_id: str) -> None:
        running = self._running.pop(game_id, None)
        if running is not None:
            self._rounds[running.number].issued.discard(running.round)

    def job_abandoned(self, job: GameJob) -> None:
        self._release(job.game_id)

    def is_complete(self) -> bool:
        return not self._playing() and not self._running

    # -- results ----------------------------------------------------------------

    def record_result(self, result: GameResult, engines: Mapping[str, str]) -> bool:
        match = GAME_ID.fullmatch(result.game_id)
        if match is None:
            raise StateError(f"{result.game_id!r} is not a game of this cross-entropy tuner")
        generation, number, round_ = (int(text) for text in match.groups())
        if generation < self._generation:
            self._release(result.game_id)
            return False  # counted when its generation was complete
        batch = self.settings.batch_size
        if generation > self._generation or number >= len(self._rounds) or round_ >= batch:
            raise StateError(
                f"game {result.game_id} is from generation {generation} sample {number}"
                f" round {round_}, but this tuner is at generation {self._generation} with"
                f" {len(self._rounds)} samples of {batch} games (start a new competition,"
                " or `arena reset`)"
            )
        rounds = self._rounds[number]
        if rounds.is_finished(round_):
            self._release(result.game_id)
            return False
        code = candidate_code(generation, number)
        colour = Colour.BLACK if result.black == code else Colour.WHITE
        if result.player(colour) != code:
            raise StateError(f"game {result.game_id} was not played by candidate {code}")
        check_opponent(result, colour, self.settings.opponent)
        self._running.pop(result.game_id, None)
        rounds.finish(round_)
        if result.winner is not None or result.end is EndReason.SCORE:
            self._wins[number] += candidate_score(result, code)  # a win, a loss or a jigo
        self._games += 1
        for player, description in engines.items():
            if player == self.settings.opponent:
                self._engines[player] = description
            elif player == code:
                self._candidate_engine = description
        self._voids.counted()
        if self._generation_complete():
            self._finish_generation()
        return True

    # -- state ------------------------------------------------------------------

    def _fixed_settings(self) -> dict[str, Any]:
        settings = self.settings
        game = settings.settings
        return {
            "parameters": [p.fingerprint() for p in settings.parameters],
            "samples_per_generation": settings.samples_per_generation,
            "opponent": settings.opponent,
            "candidate_colour": settings.colour_text,
            "board_size": game.board_size,
            "komi": game.komi,
            "handicap": game.handicap,
            "batch_size": settings.batch_size,
        }

    def to_state(self) -> dict[str, Any]:
        return {
            "fixed": self._fixed,
            "seed": self._seed,
            "generation": self._generation,
            "distribution": self._distribution.to_json(),
            "wins": list(self._wins),
            "rounds": [[r.finished_below, sorted(r.finished_above)] for r in self._rounds],
            "finished": [f.to_json() for f in self._finished],
            "games": self._games,
            "void_games": self._voids.count,
            "engines": dict(self._engines),
            "candidate_engine": self._candidate_engine,
        }

    def load_state(self, state: Mapping[str, Any]) -> None:
        dimension = len(self.settings.parameters)
        try:
            fixed = state["fixed"]
            if not isinstance(fixed, dict):
                raise TypeError("fixed settings are not an object")
            self._check_changes(fixed)
            seed = int(state["seed"])
            generation = int(state["generation"])
            distribution = Gaussian.from_json(state["distribution"], dimension)
            wins = [float(w) for w in state["wins"]]
            rounds = [GameNumbers(int(b), {int(n) for n in a}) for b, a in state["rounds"]]
            finished = [FinishedGeneration.from_json(f, dimension) for f in state["finished"]]
            games = int(state["games"])
            void_games = int(state["void_games"])
            engines = {str(k): str(v) for k, v in state["engines"].items()}
            candidate_engine = state.get("candidate_engine")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StateError(f"the tuner state is malformed: {exc!r}") from exc
        self._seed, self._generation, self._distribution = seed, generation, distribution
        self._finished = finished
        self._running.clear()
        self._start_generation()  # the same samples: the seed and generation fix them
        if len(wins) != len(self._rounds) or len(rounds) != len(self._rounds):
            raise StateError("the tuner state is malformed: sample counts differ")
        self._wins, self._rounds = wins, rounds
        self._games = games
        self._voids.count = void_games
        self._engines = engines
        self._candidate_engine = None if candidate_engine is None else str(candidate_engine)

    def _check_changes(self, before: Mapping[str, Any]) -> None:
        now = self._fixed
        refuse_changed_parameters(
            before.get("parameters"),
            now["parameters"],
            ("initial_mean", "initial_variance", "transform"),
            "the samples drawn so far came from the old ones",
        )
        old_batch = before.get("batch_size")
        if isinstance(old_batch, int) and now["batch_size"] < old_batch:
            raise StateError(
                f"batch_size was {old_batch} in earlier runs, not {now['batch_size']}; it may"
                " grow between runs but not shrink (start a new competition, or `arena reset`)"
            )
        refuse_changed(
            before,
            now,
            (
                "samples_per_generation",
                "opponent",
                "candidate_colour",
                "board_size",
                "komi",
                "handicap",
            ),
        )

    # -- snapshot ---------------------------------------------------------------

    def _distribution_view(self, distribution: Gaussian) -> CeDistribution:
        return CeDistribution(
            distribution.means,
            distribution.variances,
            self.settings.describe(distribution.means),
        )

    def _candidate(self, number: int, *, elite: bool = False) -> CeCandidate:
        rounds = self._rounds[number]
        sample = self._samples[number]
        return CeCandidate(
            code=candidate_code(self._generation, number),
            number=number,
            sample=sample,
            parameters=self.settings.describe(sample),
            wins=self._wins[number],
            games=rounds.finished_below + len(rounds.finished_above),
            in_progress=len(rounds.issued),
            elite=elite,
        )

    def _generation_view(self, finished: FinishedGeneration) -> CeGeneration:
        describe = self.settings.describe
        best = CeCandidate(
            code=candidate_code(finished.number, finished.best),
            number=finished.best,
            sample=finished.best_sample,
            parameters=describe(finished.best_sample),
            wins=finished.best_wins,
            games=finished.games // self.settings.samples_per_generation,
            in_progress=0,
            elite=True,
        )
        return CeGeneration(
            number=finished.number,
            distribution=self._distribution_view(finished.distribution),
            games=finished.games,
            elite_count=finished.elite_count,
            best=best,
            elite_mean=describe(finished.elite_mean),
            samples=finished.samples,
            wins=finished.wins,
            elite=tuple(ranking(finished.wins)[: finished.elite_count]),
        )

    def snapshot(self) -> CeTunerSnapshot:
        settings = self.settings
        candidates = tuple(self._candidate(n) for n in range(len(self._rounds)))
        if not self._playing() and not any(c.games or c.in_progress for c in candidates):
            candidates = ()  # complete: no generation under way
        running = tuple(
            RunningGame(
                game_id,
                candidate_code(self._generation, item.number),
                candidate_code(self._generation, item.number),
                settings.describe(self._samples[item.number]),
            )
            for game_id, item in sorted(self._running.items())
        )
        return CeTunerSnapshot(
            code=self.config.code,
            description=self.config.description,
            settings=settings.settings,
            opponent=settings.opponent,
            candidate_colour=settings.colour_text,
            parameters=tuple(
                CeParameterInfo(p.code, p.initial_mean, p.initial_variance, p.transform_name)
                for p in settings.parameters
            ),
            number_of_generations=settings.number_of_generations,
            samples_per_generation=settings.samples_per_generation,
            batch_size=settings.batch_size,
            elite_proportion=settings.elite_proportion,
            step_size=settings.step_size,
            elite_count=elite_count(settings.elite_proportion, settings.samples_per_generation),
            generation=self._generation,
            distribution=self._distribution_view(self._distribution),
            candidates=candidates,
            generations=tuple(self._generation_view(f) for f in self._finished),
            games_played=self._games,
            void_games=self._voids.count,
            in_progress=running,
            engines=tuple(sorted(self._engines.items())),
            candidate_engine=self._candidate_engine,
            complete=self.is_complete(),
        )
