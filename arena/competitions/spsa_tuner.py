"""The SPSA tuner competition (``spsa_tuner``): iterations, results, state, snapshot.

Owns :class:`SpsaTuner`, which implements :class:`arena.competitions.base.Competition`
with the arithmetic of :mod:`arena.tuning.spsa` and the settings read
by :mod:`arena.control.spsa_tuner`; its snapshot is
:class:`arena.competitions.snapshots.SpsaTunerSnapshot`.

Iteration ``k`` (1 to ``number_of_iterations``) is two games, ids
``<k>_0`` and ``<k>_1`` (``k`` zero-padded), between the candidates
``#<k>+`` (``theta + c_k*delta``) and ``#<k>-`` (``theta - c_k*delta``):
the plus side is Black in game 0 and White in game 1.  The perturbation is
fixed when the iteration's first game is issued, from ``theta`` as it is
then; theta is updated when both games are counted.  Slots take the games
of the next iterations meanwhile, so several iterations are in flight at
once (as fishtest's workers do), each perturbing the theta of its own
start.  A game without a winner counts half a point.  Theta goes to the
history file every twentieth of the run.

State: theta, the iterations counted, the open iterations with their
perturbation (so a game replayed after a stop plays the same two
candidates), and a trajectory of theta thinned to at most 256 points.
Should ``X.status`` lag the journal (a kill between the two writes), a
journalled game of an iteration the status does not know re-creates it
from the same signs and the theta at hand.

Changing the control file between runs: the ``Parameter`` codes, starts,
bounds, ``c_end`` and ``r_end``, ``number_of_iterations``, ``A``, ``alpha``,
``gamma``, the board size, komi and handicap must stay as they were (the
schedule depends on all of them; the run is refused otherwise);
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
    candidate_score,
    refuse_changed,
    refuse_changed_parameters,
    tuner_job,
)
from arena.competitions.tuner_snapshots import (
    SpsaParameterState,
    SpsaRunningGame,
    SpsaTunerSnapshot,
    ThetaNote,
)
from arena.control.config import CompetitionConfig
from arena.control.settings import PlayerConfig, Where
from arena.control.spsa_tuner import spsa_candidate_player, spsa_settings
from arena.errors import StateError
from arena.results import GameJob, GameResult
from arena.tuning.spsa import (
    Vector,
    pair_result,
    perturbation,
    perturbed,
    update,
)
from gtp.vertex import Colour

GAME_ID: Final = re.compile(r"(\d+)_([01])")
TRAJECTORY_POINTS: Final = 256


@attrs.define
class _Iteration:
    """An iteration with a game not yet counted."""

    k: int
    delta: tuple[int, ...]
    plus: Vector
    minus: Vector
    scores: dict[int, float] = attrs.Factory(dict)  # game index -> the plus side's points
    issued: set[int] = attrs.Factory(set)  # games in flight (not saved)

    def to_json(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "delta": list(self.delta),
            "plus": list(self.plus),
            "minus": list(self.minus),
            "scores": {str(j): s for j, s in sorted(self.scores.items())},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], dimension: int) -> _Iteration:
        delta = tuple(int(d) for d in data["delta"])
        plus = tuple(float(v) for v in data["plus"])
        minus = tuple(float(v) for v in data["minus"])
        if not len(delta) == len(plus) == len(minus) == dimension:
            raise ValueError("an iteration of another number of parameters")
        if any(d not in (-1, 1) for d in delta):
            raise ValueError(f"bad signs {delta!r}")
        scores = {int(j): float(s) for j, s in data["scores"].items()}
        if any(j not in (0, 1) for j in scores):
            raise ValueError(f"bad game numbers {sorted(scores)!r}")
        return cls(int(data["k"]), delta, plus, minus, scores)


@attrs.define
class Trajectory:
    """Theta after every ``stride``-th iteration, thinned so it never passes 256 points."""

    points: list[tuple[int, Vector]]
    stride: int = 1

    def add(self, done: int, theta: Vector) -> None:
        if done % self.stride:
            return
        self.points.append((done, theta))
        if len(self.points) > TRAJECTORY_POINTS:
            self.stride *= 2
            self.points = [(n, t) for n, t in self.points if n % self.stride == 0]


class SpsaTuner(TunerBookkeeping):
    """An SPSA tuning event (implements :class:`arena.competitions.base.Competition`).

    ``seed`` fixes the perturbation signs of every iteration (default: a
    fresh one, saved in the state).
    """

    competition_type = "spsa_tuner"

    def __init__(self, config: CompetitionConfig, *, seed: int | None = None) -> None:
        self.config = config
        self.settings = spsa_settings(config)
        self._seed = random.SystemRandom().randrange(2**62) if seed is None else seed
        self._theta: Vector = self.settings.start
        self._numbers = GameNumbers()  # iteration k is number k - 1
        self._open: dict[int, _Iteration] = {}
        self._players: dict[str, PlayerConfig] = {}
        self._done = 0
        self._games = 0
        self._plus_points = 0.0
        self._voids = VoidGames()
        self._candidate_engine: str | None = None
        self._trajectory = Trajectory([(0, self._theta)])
        self._history: list[HistoryNote] = []
        self._fixed = self._fixed_settings()

    @property
    def theta(self) -> Vector:
        return self._theta

    @property
    def _iterations(self) -> int:
        return self.settings.schedule.iterations

    # -- iterations -------------------------------------------------------------

    def _game_id(self, k: int, game: int) -> str:
        return f"{k:0{len(str(self._iterations))}d}_{game}"

    def _open_iteration(self, k: int) -> _Iteration:
        settings = self.settings
        delta = perturbation(self._seed, k, len(settings.parameters))
        plus, minus = perturbed(self._theta, delta, k, settings.axes, settings.schedule)
        iteration = _Iteration(k, delta, plus, minus)
        self._open[k] = iteration
        self._numbers.issued.add(k - 1)
        return iteration

    def _player(self, code: str, theta: Vector) -> PlayerConfig:
        player = self._players.get(code)
        if player is None:
            where = Where(self.config.control_path, "make_candidate")
            directory = self.config.directory
            player = spsa_candidate_player(self.settings, theta, code, where, directory)
            self._players[code] = player
        return player

    # -- scheduling -------------------------------------------------------------

    def player_checks(self) -> list[PlayerCheck]:
        """A candidate at the current theta (there is no other player)."""
        where = Where(self.config.control_path, "make_candidate")
        player = spsa_candidate_player(
            self.settings, self._theta, "candidate", where, self.config.directory
        )
        return with_referee_checks([PlayerCheck(player, self.settings.settings)])

    def next_job(self) -> GameJob | None:
        chosen: tuple[_Iteration, int] | None = None
        for k in sorted(self._open):
            iteration = self._open[k]
            free = [j for j in (0, 1) if j not in iteration.scores and j not in iteration.issued]
            if free:
                chosen = (iteration, free[0])
                break
        if chosen is None:
            k = self._numbers.next_free() + 1
            if k > self._iterations:
                return None
            chosen = (self._open_iteration(k), 0)
        iteration, game = chosen
        iteration.issued.add(game)
        k = iteration.k
        plus = self._player(f"#{k}+", iteration.plus)
        minus = self._player(f"#{k}-", iteration.minus)
        black, white = (plus, minus) if game == 0 else (minus, plus)
        described = "; ".join(self.settings.describe(iteration.plus))
        openings = self.settings.openings
        return tuner_job(
            game_id=self._game_id(k, game),
            pairing=f"#{k}",
            game_number=game,
            black=black,
            white=white,
            settings=self.settings.settings,
            event=f"{self.config.code} iteration {k} plus {described}",
            opening=None if openings is None else openings.for_pair(k - 1),  # iterations from 1
        )

    def _release(self, game_id: str) -> None:
        match = GAME_ID.fullmatch(game_id)
        if match is not None:
            iteration = self._open.get(int(match.group(1)))
            if iteration is not None:
                iteration.issued.discard(int(match.group(2)))

    def job_abandoned(self, job: GameJob) -> None:
        self._release(job.game_id)

    def is_complete(self) -> bool:
        return self._done >= self._iterations and not self._open

    # -- results ----------------------------------------------------------------

    def record_result(self, result: GameResult, engines: Mapping[str, str]) -> bool:
        match = GAME_ID.fullmatch(result.game_id)
        if match is None:
            raise StateError(f"{result.game_id!r} is not a game of this SPSA tuner")
        k, game = int(match.group(1)), int(match.group(2))
        if not 1 <= k <= self._iterations:
            raise StateError(
                f"game {result.game_id} is from iteration {k}, but this tuner has"
                f" {self._iterations} iterations (start a new competition, or `arena reset`)"
            )
        if self._numbers.is_finished(k - 1):
            return False
        iteration = self._open.get(k)
        if iteration is None:  # the status lags the journal: the same signs, theta at hand
            iteration = self._open_iteration(k)
        if game in iteration.scores:
            iteration.issued.discard(game)
            return False
        plus_code = f"#{k}+"
        plus_colour = Colour.BLACK if game == 0 else Colour.WHITE
        if (
            result.player(plus_colour) != plus_code
            or result.player(plus_colour.opponent) != f"#{k}-"
        ):
            raise StateError(
                f"game {result.game_id} was {result.black} v {result.white}, not the"
                f" iteration's {plus_code} and #{k}- (start a new competition, or `arena reset`)"
            )
        iteration.issued.discard(game)
        points = candidate_score(result, plus_code)
        iteration.scores[game] = points
        self._games += 1
        self._plus_points += points
        if engines:
            self._candidate_engine = engines.get(plus_code) or next(iter(engines.values()))
        self._voids.counted()
        if len(iteration.scores) == 2:
            self._finish(iteration)
        return True

    def _finish(self, iteration: _Iteration) -> None:
        settings = self.settings
        result = pair_result([iteration.scores[0], iteration.scores[1]])
        self._theta = update(
            self._theta, iteration.delta, iteration.k, result, settings.axes, settings.schedule
        )
        del self._open[iteration.k]
        self._numbers.finish(iteration.k - 1)
        for sign in "+-":
            self._players.pop(f"#{iteration.k}{sign}", None)
        self._done += 1
        self._trajectory.add(self._done, self._theta)
        if self._done % max(1, self._iterations // 20) == 0 or self._done == self._iterations:
            self._history.append(ThetaNote(self._done, settings.describe(self._theta)))

    # -- state ------------------------------------------------------------------

    def _fixed_settings(self) -> dict[str, Any]:
        settings = self.settings
        schedule = settings.schedule
        game = settings.settings
        return {
            "parameters": [p.fingerprint() for p in settings.parameters],
            "number_of_iterations": schedule.iterations,
            "A": schedule.a_constant,
            "alpha": schedule.alpha,
            "gamma": schedule.gamma,
            "board_size": game.board_size,
            "komi": game.komi,
            "handicap": game.handicap,
        }

    def to_state(self) -> dict[str, Any]:
        return {
            "fixed": self._fixed,
            "seed": self._seed,
            "theta": list(self._theta),
            "finished_below": self._numbers.finished_below,
            "finished_above": sorted(self._numbers.finished_above),
            "open": [self._open[k].to_json() for k in sorted(self._open)],
            "iterations_done": self._done,
            "games": self._games,
            "plus_points": self._plus_points,
            "void_games": self._voids.count,
            "candidate_engine": self._candidate_engine,
            "trajectory": {
                "stride": self._trajectory.stride,
                "points": [[n, list(t)] for n, t in self._trajectory.points],
            },
        }

    def load_state(self, state: Mapping[str, Any]) -> None:
        dimension = len(self.settings.parameters)
        try:
            fixed = state["fixed"]
            if not isinstance(fixed, dict):
                raise TypeError("fixed settings are not an object")
            self._check_changes(fixed)
            theta = tuple(float(v) for v in state["theta"])
            if len(theta) != dimension:
                raise ValueError(f"theta has {len(theta)} values, expected {dimension}")
            numbers = GameNumbers(
                int(state["finished_below"]), {int(n) for n in state["finished_above"]}
            )
            opened = [_Iteration.from_json(item, dimension) for item in state["open"]]
            points = [
                (int(n), tuple(float(v) for v in t)) for n, t in state["trajectory"]["points"]
            ]
            trajectory = Trajectory(points, int(state["trajectory"]["stride"]))
            done, games = int(state["iterations_done"]), int(state["games"])
            plus_points = float(state["plus_points"])
            void_games = int(state["void_games"])
            seed = int(state["seed"])
            engine = state.get("candidate_engine")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StateError(f"the tuner state is malformed: {exc!r}") from exc
        self._seed, self._theta = seed, theta
        self._numbers = numbers
        self._open = {iteration.k: iteration for iteration in opened}
        numbers.issued.update(k - 1 for k in self._open)
        self._players.clear()
        self._trajectory = trajectory
        self._done, self._games, self._plus_points = done, games, plus_points
        self._voids.count = void_games
        self._candidate_engine = None if engine is None else str(engine)

    def _check_changes(self, before: Mapping[str, Any]) -> None:
        now = self._fixed
        refuse_changed_parameters(
            before.get("parameters"),
            now["parameters"],
            ("start", "min", "max", "c_end", "r_end"),
            "theta was tuned under the old ones",
        )
        refuse_changed(
            before,
            now,
            ("number_of_iterations", "A", "alpha", "gamma", "board_size", "komi", "handicap"),
        )

    # -- snapshot ---------------------------------------------------------------

    def snapshot(self) -> SpsaTunerSnapshot:
        settings = self.settings
        schedule = settings.schedule
        points = list(self._trajectory.points)
        if points[-1][0] != self._done:
            points.append((self._done, self._theta))
        k_next = min(self._done + 1, self._iterations)
        parameters = tuple(
            SpsaParameterState(
                code=p.code,
                start=p.start,
                minimum=p.axis.minimum,
                maximum=p.axis.maximum,
                c_end=p.axis.c_end,
                r_end=p.axis.r_end,
                value=self._theta[i],
                formatted=p.describe(self._theta[i]),
                c_now=schedule.c(p.axis, k_next),
                r_now=schedule.r(p.axis, k_next),
                trajectory=tuple(theta[i] for _, theta in points),
            )
            for i, p in enumerate(settings.parameters)
        )
        running = tuple(
            SpsaRunningGame(self._game_id(k, game), k, Colour.BLACK if game == 0 else Colour.WHITE)
            for k in sorted(self._open)
            for game in sorted(self._open[k].issued)
        )
        return SpsaTunerSnapshot(
            code=self.config.code,
            description=self.config.description,
            settings=settings.settings,
            parameters=parameters,
            number_of_iterations=self._iterations,
            a_constant=schedule.a_constant,
            alpha=schedule.alpha,
            gamma=schedule.gamma,
            iterations_done=self._done,
            games_played=self._games,
            plus_score=self._plus_points,
            void_games=self._voids.count,
            trajectory_iterations=tuple(n for n, _ in points),
            in_progress=running,
            candidate_engine=self._candidate_engine,
            complete=self.is_complete(),
        )
