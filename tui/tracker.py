"""The dashboard's memory of a run: arena events folded into a frozen :class:`DashboardView`.

:class:`RunTracker` is fed the ringmaster's events (:mod:`arena.events`) by the
live display, or events rebuilt from the competition's files by ``arena
watch`` (:mod:`tui.watch`), and answers :meth:`RunTracker.view` at any moment.
It keeps the games in progress, the last results (seeded from the journal
when a run resumes, :meth:`RunTracker.add_past_results`), each game's latest
clocks and board (from the move events that carry them), which game's board
is shown (the keys of :meth:`RunTracker.step_board`, as
:class:`arena.events.KeyPressed` events), the counters and the last
engine warnings, and the latest competition snapshot (turned into a view by
:mod:`tui.views` only when a frame is drawn, so a game result costs little).

Games per second are measured from the competition's own count of games
done, between the moment the run started (or the watcher attached) and now;
once the run has ended, over the whole run (its results between the start and
the end, as the events tell them, also to a watcher that came later);
the ETA divides what is left (of the competition, or of ``--max-games``) by
that rate.  Results that come without a snapshot (the ringmaster skips
snapshots that would cost too much) count as done until the next snapshot.
Times are ``time.monotonic`` seconds unless a clock is given.

What is shown is so:

* A slot plays one game at a time, so a game that starts in a slot ends the
  game that was in it.  That game is over but not yet announced (its
  :class:`GameFinished` comes once its record is durable, after a group
  commit that can take a while on a busy machine, by which time the slot has
  started its next game): it leaves the games in progress at once and its
  result shows when it comes.
* A run that ended with the competition incomplete (``--max-games``) is shown
  as stopped: "finished" means the competition is complete.  A watcher that
  finds no run going on (:meth:`RunTracker.no_run`) says the same of a run
  that vanished without its last event.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable, Sequence
from typing import Final, assert_never

import attrs

from arena import fields_repr
from arena.competitions.snapshots import CompetitionSnapshot
from arena.events import (
    BoardPicture,
    ClockFace,
    EngineStderr,
    Event,
    GameFinished,
    GameStarted,
    KeyPressed,
    MovePlayed,
    RunState,
    RunStateChanged,
    RunWarning,
    SnapshotTaken,
    TreeDump,
    WorkersChanged,
)
from arena.results import EndReason, GameResult
from arena.store.journal import JournalEntry, ResultEntry
from gtp.vertex import Colour, Move
from tui.views import CompetitionDetail, CompetitionView, Counts, competition_view

RECENT_RESULTS: Final = 8
NO_RUN: Final = "not running"
NO_RUN_VANISHED: Final = "the run ended without saying so (killed?)"
INCOMPLETE: Final = "the competition is not complete"
_ENDED: Final = frozenset({RunState.FINISHED, RunState.STOPPED, RunState.HALTED})
WARNING_LINES: Final = 5

KEY_HELP_RUN: Final = "Ctrl-X stop after the games in progress · Ctrl-C stop now"
KEY_HELP_NO_KEYS: Final = (
    "stdin is not a terminal: `arena stop X.ctl` stops after the games in progress"
)
KEY_HELP_WATCH: Final = "watching (read-only) · q or Ctrl-C: stop watching, the run goes on"
# Keys that step through the games in progress, showing the board of the one selected;
# stepping on from the last (or back from the first) hides the board.
NEXT_BOARD_KEYS: Final = frozenset({b"n", b"N", b"\t"})
PREVIOUS_BOARD_KEYS: Final = frozenset({b"p", b"P"})
BOARD_KEYS_HINT: Final = "n/Tab: next game's board · p: previous"

_HOW: Final = {
    EndReason.SCORE: "score",
    EndReason.RESIGN: "resign",
    EndReason.FORFEIT: "forfeit",
    EndReason.TIME: "time",
    EndReason.CLAIM: "claim",
    EndReason.MOVE_LIMIT: "move limit",
    EndReason.UNKNOWN: "unknown",
    EndReason.ADJUDICATED: "adjudicated",
}


@attrs.frozen
class GameView:
    """A game in progress."""

    __repr__ = fields_repr

    game_id: str
    black: str
    white: str
    moves: int | None  # None when not known (watching, before the game's first move line)
    elapsed: float  # seconds since it started
    slot: int | None  # None when not known (watching)
    worker: str | None = None  # the cluster worker playing it (None: played here)
    black_clock: ClockFace | None = None  # after the latest move known; None: no clock
    white_clock: ClockFace | None = None


@attrs.frozen
class PositionView:
    """The selected game's board: the latest known position, its last move, both clocks."""

    __repr__ = fields_repr

    game_id: str
    black: str
    white: str
    number: int  # the game's place among the games in progress, from 1
    of: int  # how many games are in progress
    picture: BoardPicture | None  # None: not known yet (no move with a board so far)
    moves: int | None  # the move number of the picture
    last_move: Move | None
    last_colour: Colour | None
    black_clock: ClockFace | None = None
    white_clock: ClockFace | None = None


@attrs.frozen
class ResultView:
    """A finished game: ``how`` is score, jigo, resign, forfeit, time, claim, void..."""

    __repr__ = fields_repr

    game_id: str
    text: str
    how: str


@attrs.frozen
class DashboardView:
    """Everything one frame of the dashboard shows."""

    __repr__ = fields_repr

    code: str
    kind: str
    description: str | None
    board: str | None
    state: RunState
    message: str
    games_done: int
    games_total: int | None
    rate: float | None  # games per second in this run
    eta: float | None  # seconds until the run is over
    in_progress: tuple[GameView, ...]
    recent: tuple[ResultView, ...]  # newest first
    counts: Counts
    warnings: tuple[str, ...]  # newest last
    detail: CompetitionDetail | None
    key_help: str = KEY_HELP_RUN
    watching: bool = False
    workers: WorkersChanged | None = None  # the cluster's size (None: games played here)
    position: PositionView | None = None  # the board shown (a key selects a game)
    board_keys: bool = False  # the keys that show boards work (shown in the games' title)


def how_it_ended(result: GameResult) -> str:
    return "jigo" if result.is_jigo else _HOW[result.end]


def _result_view(game_id: str, result: GameResult | None, void_reason: str | None) -> ResultView:
    if result is None:
        return ResultView(game_id, f"void: {void_reason or 'unknown failure'}", "void")
    return ResultView(game_id, result.describe(), how_it_ended(result))


@attrs.define
class _LiveGame:
    __repr__ = fields_repr

    black: str
    white: str
    slot: int | None
    started: float
    moves: int | None
    worker: str | None = None
    black_clock: ClockFace | None = None
    white_clock: ClockFace | None = None
    board: BoardPicture | None = None
    board_moves: int | None = None  # the move number, move and colour of the board
    board_move: Move | None = None
    board_colour: Colour | None = None


@attrs.define
class RunTracker:
    """Folds events into the state shown on screen (see module docstring)."""

    __repr__ = fields_repr

    code: str
    clock: Callable[[], float] = time.monotonic
    max_games: int | None = None  # the run's --max-games, for the ETA
    key_help: str = KEY_HELP_RUN
    watching: bool = False
    board_keys: bool = False  # whether keys reach the tracker (KeyPressed events)
    _state: RunState = RunState.CHECKING
    _message: str = ""
    _snapshot: CompetitionSnapshot | None = None
    _view_cache: CompetitionView | None = None
    _snapshot_dirty: bool = False
    _games: dict[str, _LiveGame] = attrs.Factory(dict)
    _slots: dict[int, str] = attrs.Factory(dict)  # slot -> the last game started there
    _recording: set[str] = attrs.Factory(set)  # over, its result not yet announced
    _recent: collections.deque[ResultView] = attrs.Factory(
        lambda: collections.deque(maxlen=RECENT_RESULTS)
    )
    _warnings: collections.deque[str] = attrs.Factory(
        lambda: collections.deque(maxlen=WARNING_LINES)
    )
    _forfeits: int = 0
    _timeouts: int = 0
    _adjudicated: int = 0
    _voids: int = 0
    _engine_errors: int = 0
    _started: int = 0  # games started in this run
    _origin: tuple[float, int] | None = None  # (time, games done) the rate is measured from
    _unsnapshotted: int = 0  # results that came after the latest snapshot
    # The run as a whole: when it started running, results since, when it ended.
    _run_started: float | None = None
    _run_results: int = 0
    _run_ended: float | None = None
    _workers: WorkersChanged | None = None
    _unsaid_end: bool = False  # no_run() ended the run: it did not say how
    _showing_board: bool = False
    _selected: str | None = None  # the game whose board is shown (see _shown_game)

    # -- input ------------------------------------------------------------------

    def handle(self, event: Event, at: float | None = None) -> bool:
        """Take one event; True when it should be on screen at once (a change of state)."""
        match event:
            case MovePlayed():
                game = self._games.get(event.game_id)
                if game is not None:
                    game.moves = event.moves_played
                    if event.black_clock is not None or event.white_clock is not None:
                        game.black_clock, game.white_clock = event.black_clock, event.white_clock
                    if event.board is not None:
                        game.board, game.board_moves = event.board, event.moves_played
                        game.board_move, game.board_colour = event.move, event.colour
                return False
            case KeyPressed():
                return self.step_board(event.key)
            case GameStarted():
                self._game_started(event, self.clock() if at is None else at)
                return False
            case WorkersChanged():
                self._workers = event
                return False
            case GameFinished():
                self._game_finished(event)
                return False
            case EngineStderr():
                if event.warning:
                    self._engine_errors += 1
                    self._warnings.append(f"{event.player} ({event.game_id}): {event.line}")
                return False
            case RunWarning():
                self.add_warning(f"arena: {event.text}")
                return False
            case SnapshotTaken():
                self.set_snapshot(event.snapshot, self.clock() if at is None else at)
                return False
            case TreeDump():
                return False
            case RunStateChanged():
                return self._state_changed(event, self.clock() if at is None else at)
            case _:
                assert_never(event)

    def _state_changed(self, event: RunStateChanged, now: float) -> bool:
        if event.state is RunState.RUNNING and self._state is not RunState.RUNNING:
            self._origin = None
            self._mark_origin(now)
            self._run_started, self._run_results, self._run_ended = now, 0, None
        elif event.state in _ENDED and self._run_ended is None:
            self._run_ended = now
        self._unsaid_end = False
        self._state = event.state
        self._message = event.message
        return True

    def _game_started(self, event: GameStarted, now: float) -> None:
        slot = event.slot if event.slot >= 0 else None
        if slot is not None:
            previous = self._slots.get(slot)
            if previous is not None and self._games.pop(previous, None) is not None:
                self._recording.add(previous)  # over: its slot has moved on
            self._slots[slot] = event.game_id
        moves = None if self.watching else 0  # a watcher knows only what X.events says
        self._games[event.game_id] = _LiveGame(
            event.black, event.white, slot, now, moves, worker=event.worker
        )
        self._started += 1

    def _game_finished(self, event: GameFinished) -> None:
        self._games.pop(event.game_id, None)
        self._recording.discard(event.game_id)
        result = event.result
        if not event.counted:
            return  # a duplicate of a result already counted
        if result is not None:
            self._unsnapshotted += 1
            self._run_results += 1
        if result is None:
            self._voids += 1
        elif result.end is EndReason.FORFEIT:
            self._forfeits += 1
        elif result.end is EndReason.TIME:
            self._timeouts += 1
        elif result.end is EndReason.ADJUDICATED:
            self._adjudicated += 1
        self._recent.appendleft(_result_view(event.game_id, result, event.void_reason))
        if event.snapshot is not None:
            self.set_snapshot(event.snapshot)

    def _ordered_games(self) -> list[str]:
        return [
            game_id for game_id, _ in sorted(self._games.items(), key=lambda item: item[1].started)
        ]

    def _shown_game(self, order: Sequence[str]) -> str | None:
        """The game whose board is shown: the one selected, or if it has ended the first."""
        if not self._showing_board or not order:
            return None
        return self._selected if self._selected in self._games else order[0]

    def step_board(self, key: bytes) -> bool:
        """Show the next (or previous) game's board for a board key; True if the key was one."""
        if key in NEXT_BOARD_KEYS:
            step = 1
        elif key in PREVIOUS_BOARD_KEYS:
            step = -1
        else:
            return False
        order = self._ordered_games()
        shown = self._shown_game(order)
        first = 0 if step > 0 else len(order) - 1  # boards hidden: the first (or last) game
        index = first if shown is None else order.index(shown) + step
        if 0 <= index < len(order):
            self._showing_board, self._selected = True, order[index]
        else:
            self._showing_board, self._selected = False, None
        return True

    def _position(self, order: Sequence[str]) -> PositionView | None:
        shown = self._shown_game(order)
        if shown is None:
            return None
        game = self._games[shown]
        return PositionView(
            shown,
            game.black,
            game.white,
            order.index(shown) + 1,
            len(order),
            game.board,
            game.board_moves,
            game.board_move,
            game.board_colour,
            game.black_clock,
            game.white_clock,
        )

    def add_past_results(self, entries: Sequence[JournalEntry]) -> None:
        """Results of earlier runs (journal entries, oldest first) to show as the recent ones.

        They are not counted again: the competition's snapshot has them.
        """
        for entry in entries:
            if isinstance(entry, ResultEntry):
                view = _result_view(entry.result.game_id, entry.result, None)
            else:
                view = _result_view(entry.game_id, None, entry.reason)
            self._recent.appendleft(view)

    def game_ended(self, game_id: str) -> None:
        """Forget a game in progress without a result (a watcher saw it end in the log)."""
        self._games.pop(game_id, None)

    def forget_games(self) -> None:
        """Forget every game in progress (a watcher saw a new run start)."""
        self._games.clear()
        self._slots.clear()
        self._recording.clear()

    def no_run(self) -> None:
        """No run is going on (a watcher found the run lock free): nothing is in progress.

        A run that ended said how; one that did not (killed, or never
        started) is shown as stopped, or finished if the competition is complete.
        """
        self.forget_games()
        if self._state not in _ENDED:
            ran = self._run_started is not None
            self._state = RunState.STOPPED
            self._message = NO_RUN_VANISHED if ran else NO_RUN
            self._unsaid_end = True

    def add_warning(self, line: str) -> None:
        """A warning from the arena itself (shown with the engines' warnings, not counted)."""
        if line.strip():
            self._warnings.append(line)

    def set_snapshot(self, snapshot: CompetitionSnapshot | None, at: float | None = None) -> None:
        """The competition's latest snapshot (its view is built when a frame is drawn)."""
        self._snapshot = snapshot
        self._snapshot_dirty = True
        self._unsnapshotted = 0
        if self._origin is None:
            self._mark_origin(self.clock() if at is None else at)

    def _mark_origin(self, now: float) -> None:
        view = self.competition()
        if view is not None:
            self._origin = (now, view.games_done)

    # -- output -----------------------------------------------------------------

    @property
    def state(self) -> RunState:
        return self._state

    @property
    def games_in_progress(self) -> int:
        return len(self._games)

    def competition(self) -> CompetitionView | None:
        if self._snapshot_dirty:
            self._view_cache = competition_view(self._snapshot)
            self._snapshot_dirty = False
        return self._view_cache

    def _counts(self, competition: CompetitionView | None) -> Counts:
        if competition is not None and competition.counts is not None:
            return attrs.evolve(competition.counts, engine_errors=self._engine_errors)
        return Counts(
            self._forfeits, self._timeouts, self._voids, self._engine_errors, self._adjudicated
        )

    def _rate(self, done: int, now: float) -> float | None:
        if self._state in _ENDED:
            return self._run_rate()
        if self._origin is None:
            return None
        since, done_then = self._origin
        if done <= done_then or now <= since:
            return None
        return (done - done_then) / (now - since)

    def _run_rate(self) -> float | None:
        """Games per second over the whole run that ended (what ``arena watch`` shows after it)."""
        start, end = self._run_started, self._run_ended
        if start is None or end is None or end <= start or not self._run_results:
            return None
        return self._run_results / (end - start)

    def _remaining(self, competition: CompetitionView | None, done: int) -> int | None:
        unannounced = len(self._games) + len(self._recording)
        if self._state is RunState.STOPPING:
            return unannounced
        if self._state in _ENDED:
            return 0
        left: int | None = None
        if competition is not None and competition.games_total is not None:
            left = max(0, competition.games_total - done)
        if self.max_games is not None:
            in_run = max(0, self.max_games - self._started) + unannounced
            left = in_run if left is None else min(left, in_run)
        return left

    def _shown_state(self, competition: CompetitionView | None, done: int) -> tuple[RunState, str]:
        """The run's state and message as shown: "finished" only for a complete competition."""
        state, message = self._state, self._message
        if competition is None:
            return state, message
        total = competition.games_total
        complete = competition.complete or (total is not None and done >= total)
        if self._unsaid_end and complete:
            return RunState.FINISHED, "competition complete"
        if state is not RunState.FINISHED or complete:
            return state, message
        if self.max_games is not None and self._started >= self.max_games:
            return RunState.STOPPED, f"after --max-games {self.max_games}; {INCOMPLETE}"
        return RunState.STOPPED, f"the run ended; {INCOMPLETE}"

    def view(self) -> DashboardView:
        now = self.clock()
        competition = self.competition()
        done = self._unsnapshotted + (competition.games_done if competition is not None else 0)
        rate = self._rate(done, now)
        remaining = self._remaining(competition, done)
        state, message = self._shown_state(competition, done)
        eta = None
        if remaining == 0:
            eta = 0.0
        elif remaining is not None and rate:
            eta = remaining / rate
        order = self._ordered_games()
        games = tuple(
            GameView(
                game_id,
                g.black,
                g.white,
                g.moves,
                max(0.0, now - g.started),
                g.slot,
                g.worker,
                g.black_clock,
                g.white_clock,
            )
            for game_id in order
            for g in (self._games[game_id],)
        )
        return DashboardView(
            code=competition.code if competition is not None and competition.code else self.code,
            kind=competition.kind if competition is not None else "",
            description=competition.description if competition is not None else None,
            board=competition.board if competition is not None else None,
            state=state,
            message=message,
            games_done=done,
            games_total=competition.games_total if competition is not None else None,
            rate=rate,
            eta=eta,
            in_progress=games,
            recent=tuple(self._recent),
            counts=self._counts(competition),
            warnings=tuple(self._warnings),
            detail=competition.detail if competition is not None else None,
            key_help=self.key_help,
            watching=self.watching,
            workers=self._workers,
            position=self._position(order),
            board_keys=self.board_keys,
        )
