"""The Monte Carlo tuner competition (``mc_tuner``): scheduling, results, state, snapshot.

Owns :class:`McTuner`, which implements :class:`arena.competitions.base.Competition`
on top of the bandit in :mod:`arena.tuning.tuner_tree`, with the settings read by
:mod:`arena.control.tuner`, its snapshot in :mod:`arena.competitions.snapshots`.

Games: ids are game numbers (``0``, ``1``...; zero-padded to the width of
``number_of_games`` when it is set); a game abandoned by a stop or void is
replayed under the same number, possibly by another candidate.  A
candidate's player code is ``#`` plus its coordinates (``#0,1``, and
``#0,1:2,2`` in the second generation), so game records say which candidate
played, and a result replayed from the journal finds its candidate again.
With an opening suite, games 2k and 2k+1 are one candidate's colour-swapped
pair from the same opening (candidate_colour in the first); the candidate of
a pair not yet finished is kept in the state.
The SGF event names the formatted engine parameters.  A game the candidate
does not win (including an unknown result) counts as a visit without a win.

Changing the control file between runs: the ``Parameter`` codes, splits and
scales, the opponent, the candidate colour, the board size, komi and handicap
must stay as they were (the run is refused otherwise); the exploration
coefficient, ``selection_rule``, ``max_depth``, ``initial_visits`` and
``initial_wins`` (they apply to candidates created from then on),
``make_candidate``, ``number_of_games`` and every reporting setting
(including ``format``) may change.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import attrs

from arena.competitions.base import PlayerCheck, with_referee_checks
from arena.competitions.jobs import PairChoices
from arena.competitions.playoff import GameNumbers
from arena.competitions.snapshots import HistoryNote
from arena.competitions.tuner_common import (
    TunerBookkeeping,
    VoidGames,
    candidate_colour_in,
    candidate_job,
    check_opponent,
    refuse_changed,
    refuse_changed_parameters,
)
from arena.competitions.tuner_snapshots import (
    ParameterInfo,
    RunningGame,
    TreeNote,
    TunerCandidate,
    TunerSnapshot,
)
from arena.control.config import CompetitionConfig
from arena.control.settings import PlayerConfig, Where
from arena.control.tuner import candidate_player, tuner_settings
from arena.errors import StateError
from arena.results import GameJob, GameResult
from arena.stats.elo import wilson_interval
from arena.tuning.tuner_scales import ExplicitScale, LinearScale, LogScale, ParameterSpec
from arena.tuning.tuner_tree import Node, TunerTree
from arena.tuning.tuner_tree import Path as TreePath


@attrs.frozen
class _Running:
    path: TreePath
    number: int


class McTuner(TunerBookkeeping):
    """A Monte Carlo tuning event (implements :class:`arena.competitions.base.Competition`).

    ``seed`` fixes the tie-breaking random choices (default: a fresh one,
    saved in the state so a resumed run goes on with the same stream).
    ``virtual_loss=False`` chooses as Gomill did, ignoring games in flight
    (for comparisons only).
    """

    competition_type = "mc_tuner"

    def __init__(
        self, config: CompetitionConfig, *, seed: int | None = None, virtual_loss: bool = True
    ) -> None:
        self.config = config
        self.settings = tuner_settings(config)
        self.space = self.settings.space
        self._tree = self._new_tree(virtual_loss)
        self._numbers = GameNumbers()
        self._running: dict[str, _Running] = {}
        self._players: dict[TreePath, PlayerConfig] = {}
        self._described: dict[TreePath, tuple[str, ...]] = {}
        self._engines: dict[str, str] = {}
        self._candidate_engine: str | None = None
        self._voids = VoidGames()
        self._seed = random.SystemRandom().randrange(2**62) if seed is None else seed
        self._draws = 0
        self._history: list[HistoryNote] = []
        self._fixed = self._fixed_settings()
        self._pairs = PairChoices()  # with openings: each pair's candidate (player code)

    def _new_tree(self, virtual_loss: bool) -> TunerTree:
        settings = self.settings
        return TunerTree.new(
            self.space,
            exploration_coefficient=settings.exploration_coefficient,
            initial_visits=settings.initial_visits,
            initial_wins=settings.initial_wins,
            max_depth=settings.max_depth,
            virtual_loss=virtual_loss,
            rule=settings.selection_rule,
        )

    # -- candidates -------------------------------------------------------------

    def candidate(self, path: TreePath) -> PlayerConfig:
        player = self._players.get(path)
        if player is None:
            where = Where(self.config.control_path, "make_candidate")
            player = candidate_player(self.settings, path, where, self.config.directory)
            self._players[path] = player
        return player

    def describe(self, path: TreePath) -> tuple[str, ...]:
        """The formatted engine parameters of the candidate at ``path``."""
        described = self._described.get(path)
        if described is None:
            described = self.settings.formatted(self.settings.engine_parameters(path))
            self._described[path] = described
        return described

    def _tie_breaker(self, n: int) -> int:
        # A stream that survives restarts: (seed, draw number) -> choice.
        choice = random.Random(self._seed * 1_000_003 + self._draws).randrange(n)
        self._draws += 1
        return choice

    # -- scheduling -------------------------------------------------------------

    def player_checks(self) -> list[PlayerCheck]:
        """The opponent and one sample candidate (the first-generation one nearest the centre)."""
        settings = self.settings
        middle = self.space.index([split // 2 for split in self.space.splits])
        return with_referee_checks(
            [
                PlayerCheck(self.config.players[settings.opponent], settings.settings),
                PlayerCheck(self.candidate((middle,)), settings.settings),
            ]
        )

    def _game_id(self, number: int) -> str:
        limit = self.settings.number_of_games
        if limit is None or limit <= 0:
            return str(number)
        return f"{number:0{len(str(limit - 1))}d}"

    def next_job(self) -> GameJob | None:
        limit = self.settings.number_of_games
        if limit is not None and self._tree.root.games + len(self._running) >= limit:
            return None
        number = self._numbers.next_free()
        paired = self.settings.openings is not None
        chosen = self._pairs.choice(number) if paired else None
        if chosen is not None:
            path = self.space.parse_player_code(chosen)
        else:
            path = self._tree.choose(self._tie_breaker)
            if paired:
                self._pairs.choose(number, self.space.player_code(path))
        candidate = self.candidate(path)
        self._tree.start_game(path)
        self._numbers.issued.add(number)
        game_id = self._game_id(number)
        self._running[game_id] = _Running(path, number)
        return candidate_job(
            game_id=game_id,
            game_number=number,
            candidate=candidate,
            opponent=self.config.players[self.settings.opponent],
            candidate_colour=self.settings.candidate_colour,
            settings=self.settings.settings,
            event=f"{self.config.code} {self.space.label(path)} {'; '.join(self.describe(path))}",
            openings=self.settings.openings,
        )

    def _release(self, game_id: str) -> None:
        running = self._running.pop(game_id, None)
        if running is not None:
            self._tree.cancel_game(running.path)
            numbers = self._numbers
            numbers.issued.discard(running.number)
            partner = running.number ^ 1
            self._pairs.released(
                running.number,
                partner_busy=numbers.is_finished(partner) or partner in numbers.issued,
            )

    def job_abandoned(self, job: GameJob) -> None:
        self._release(job.game_id)

    def is_complete(self) -> bool:
        limit = self.settings.number_of_games
        return limit is not None and self._tree.root.games >= limit and not self._running

    # -- results ----------------------------------------------------------------

    def record_result(self, result: GameResult, engines: Mapping[str, str]) -> bool:
        try:
            number = int(result.game_id)
        except ValueError:
            raise StateError(f"{result.game_id!r} is not a game of this tuner") from None
        if self._numbers.is_finished(number):
            self._release(result.game_id)
            return False
        colour = self.settings.candidate_colour
        if self.settings.openings is not None:  # the candidate plays both colours
            colour = candidate_colour_in(result, self.settings.opponent)
        code = result.player(colour)
        check_opponent(result, colour, self.settings.opponent)
        running = self._running.pop(result.game_id, None)
        if running is not None and self.candidate(running.path).code == code:
            path = running.path
        else:
            try:
                path = self.space.parse_player_code(code)
            except ValueError:
                raise StateError(
                    f"game {result.game_id}: {code!r} is not a candidate of this tuner's"
                    f" parameters (splits {list(self.space.splits)})"
                ) from None
        if running is not None:
            self._numbers.issued.discard(running.number)
            if running.path != path:  # cannot happen unless the game record is wrong
                self._tree.cancel_game(running.path)
                running = None
        self._tree.record(path, result.winning_player == code, was_pending=running is not None)
        self._numbers.finish(number)
        if self.settings.openings is not None:
            partner_finished = self._numbers.is_finished(number ^ 1)
            if not partner_finished:
                self._pairs.choose(number, code)  # the partner is this candidate's too
            self._pairs.finished(number, partner_finished=partner_finished)
        for player, description in engines.items():
            if player == self.settings.opponent:
                self._engines[player] = description
            elif player == code:
                self._candidate_engine = description
        self._voids.counted()
        period = self.settings.log_tree_to_history_period
        games = self._tree.root.games
        if period is not None and games % period == 0:
            self._history.append(TreeNote(games, tuple(self._dump_candidates())))
        return True

    # -- state ------------------------------------------------------------------

    def _fixed_settings(self) -> dict[str, Any]:
        settings = self.settings
        game = settings.settings
        return {
            "parameters": [p.fingerprint() for p in settings.parameters],
            "opponent": settings.opponent,
            "candidate_colour": settings.candidate_colour.value,
            "board_size": game.board_size,
            "komi": game.komi,
            "handicap": game.handicap,
        }

    def to_state(self) -> dict[str, Any]:
        return {
            "fixed": self._fixed,
            "tree": self._tree.root.to_json(),
            "finished_below": self._numbers.finished_below,
            "finished_above": sorted(self._numbers.finished_above),
            "void_games": self._voids.count,
            "engines": dict(self._engines),
            "candidate_engine": self._candidate_engine,
            "rng": {"seed": self._seed, "draws": self._draws},
            "pairs": self._pairs.to_json(),
        }

    def load_state(self, state: Mapping[str, Any]) -> None:
        try:
            fixed = state["fixed"]
            if not isinstance(fixed, dict):
                raise TypeError("fixed settings are not an object")
            self._check_changes(fixed)
            root = Node.from_json(state["tree"], self.space.branching)
            numbers = GameNumbers(
                int(state["finished_below"]), {int(n) for n in state["finished_above"]}
            )
            void_games = int(state["void_games"])
            engines = {str(k): str(v) for k, v in state["engines"].items()}
            candidate_engine = state.get("candidate_engine")
            seed, draws = int(state["rng"]["seed"]), int(state["rng"]["draws"])
            pairs = PairChoices.from_json(state.get("pairs", {}))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StateError(f"the tuner state is malformed: {exc!r}") from exc
        self._tree.root = root
        self._numbers = numbers
        self._running.clear()
        self._voids.count = void_games
        self._engines = engines
        self._candidate_engine = None if candidate_engine is None else str(candidate_engine)
        self._seed, self._draws = seed, draws
        self._pairs = pairs

    def _check_changes(self, before: Mapping[str, Any]) -> None:
        """Refuse a control file whose parameters or fixed settings differ from earlier runs."""
        now = self._fixed
        refuse_changed_parameters(
            before.get("parameters"),
            now["parameters"],
            ("split", "scale"),
            "results for other candidates cannot be mixed",
        )
        refuse_changed(
            before, now, ("opponent", "candidate_colour", "board_size", "komi", "handicap")
        )

    # -- snapshot ---------------------------------------------------------------

    def _candidate(
        self, path: TreePath, node: Node, parent: Node, best: TreePath
    ) -> TunerCandidate:
        interval = wilson_interval(node.won, node.games)
        return TunerCandidate(
            code=self.space.player_code(path),
            label=self.space.label(path),
            level=len(path),
            parameters=self.describe(path),
            wins=node.wins,
            visits=node.visits,
            games=node.games,
            games_won=node.won,
            in_progress=node.pending,
            win_rate=node.win_rate,
            ucb=self._tree.value(node, parent),
            interval=interval,
            best=best[: len(path)] == path and self._tree.root.games > 0,
            expanded=node.children is not None,
        )

    def _all_candidates(self, max_level: int | None = None) -> list[TunerCandidate]:
        best = self._tree.best_path()
        candidates: list[TunerCandidate] = []
        for path, node in self._tree.walk():
            if max_level is not None and len(path) > max_level:
                continue
            parent = self._tree.node(path[:-1])
            candidates.append(self._candidate(path, node, parent, best))
        return candidates

    def _dump_candidates(self) -> list[TunerCandidate]:
        return self._all_candidates(max_level=2)

    def snapshot(self) -> TunerSnapshot:
        settings = self.settings
        tree = self._tree
        candidates = self._all_candidates()
        depth = max((c.level for c in candidates), default=1)
        levels: list[tuple[TunerCandidate, ...]] = []
        for level in range(1, max(depth, settings.max_depth) + 1):
            at_level = [c for c in candidates if c.level == level]
            at_level.sort(key=lambda c: -c.visits)  # stable: tree order among equals
            levels.append(tuple(at_level[: settings.shown_at_level(level)]))
        best: TunerCandidate | None = None
        if tree.root.games:
            best_path = tree.best_path()
            best = self._candidate(
                best_path, tree.node(best_path), tree.node(best_path[:-1]), best_path
            )
        running = tuple(
            RunningGame(
                game_id,
                self.space.player_code(item.path),
                self.space.label(item.path),
                self.describe(item.path),
            )
            for game_id, item in sorted(self._running.items(), key=lambda kv: kv[1].number)
        )
        return TunerSnapshot(
            code=self.config.code,
            description=self.config.description,
            settings=settings.settings,
            opponent=settings.opponent,
            candidate_colour=settings.candidate_colour,
            parameters=tuple(
                ParameterInfo(p.code, _describe_scale(p), p.split) for p in settings.parameters
            ),
            max_depth=settings.max_depth,
            exploration_coefficient=settings.exploration_coefficient,
            initial_visits=settings.initial_visits,
            initial_wins=settings.initial_wins,
            number_of_games=settings.number_of_games,
            games_played=tree.root.games,
            void_games=self._voids.count,
            candidate_count=len(candidates),
            levels=tuple(levels),
            best=best,
            in_progress=running,
            running_to_show=settings.number_of_running_simulations_to_show,
            engines=tuple(sorted(self._engines.items())),
            candidate_engine=self._candidate_engine,
            complete=self.is_complete(),
            selection_rule=settings.selection_rule,
        )


def _describe_scale(parameter: ParameterSpec) -> str:
    scale = parameter.scale
    if isinstance(scale, (LinearScale, LogScale, ExplicitScale)):
        return scale.describe()
    return getattr(scale, "__name__", type(scale).__name__)
