"""The words: every human-readable line the arena writes about a run, in one place.

Pure functions of the events (:mod:`arena.events`): what ``X.log`` says
(:func:`log_line`), what ``X.hist`` says (:func:`history_lines`) and what a
run prints on stdout and stderr when it is not drawing the dashboard
(:class:`PlainWording`).  Nothing reads these lines back: ``arena watch``
follows ``X.events``, so the wording may change freely.
"""

from __future__ import annotations

from typing import assert_never

from arena.events import (
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
from arena.results import ArenaLatency, GameResult

ENDED_STATES = frozenset({RunState.FINISHED, RunState.STOPPED, RunState.HALTED})


def result_text(result: GameResult) -> str:
    """``a beat b B+3.5`` (see :meth:`GameResult.describe`)."""
    return result.describe()


def void_text(event: GameFinished) -> str:
    return event.void_reason or "unknown failure"


def latency_text(latency: ArenaLatency | None) -> str:
    """`` (arena latency 0.05 ms mean, 1.20 ms max)``: the arena's own delay between commands."""
    if latency is None:
        return ""
    return (
        f" (arena latency {1000 * latency.mean:.2f} ms mean, {1000 * latency.longest:.2f} ms max)"
    )


def log_line(event: Event) -> str | None:
    """The line ``X.log`` gets for ``event`` (without its timestamp), or None."""
    match event:
        case RunStateChanged():
            if event.state is RunState.RUNNING:
                return f"run started (parallel {event.parallel or 1})"
            if event.state is RunState.STOPPING:
                return event.message or "stopping"
            if event.state in ENDED_STATES:
                return f"run finished: {event.message}"
            return None
        case GameStarted():
            where = f" on {event.worker}" if event.worker else ""
            return f"starting game {event.game_id}: {event.black} (b) vs {event.white} (w){where}"
        case GameFinished():
            latency = latency_text(event.latency)
            if event.result is None:
                return f"void game {event.game_id}: {void_text(event)}{latency}"
            ignored = "" if event.counted else " (a result for this game was already counted)"
            return f"finished game {event.game_id}: {result_text(event.result)}{ignored}{latency}"
        case EngineStderr():
            return f"{event.game_id} {event.player} stderr: {event.line}"
        case RunWarning():
            return f"warning: {event.text}"
        case WorkersChanged():
            return workers_text(event)
        case MovePlayed() | TreeDump() | SnapshotTaken() | KeyPressed():
            return None
        case _:
            assert_never(event)


def workers_text(event: WorkersChanged) -> str:
    return f"cluster: {event.workers} worker(s) connected, {event.threads} thread(s)"


def history_lines(event: Event) -> list[str]:
    """The lines ``X.hist`` gets for ``event``: each counted result, and tuners' tree dumps."""
    if isinstance(event, GameFinished) and event.result is not None and event.counted:
        return [f"{event.game_id:>7} {result_text(event.result)}"]
    if isinstance(event, TreeDump):
        return list(event.lines)
    return []


def finished_line(event: GameFinished) -> str:
    """One line per finished game on stdout (also ``arena watch``'s plain output)."""
    if event.result is not None:
        return f"game {event.game_id}: {result_text(event.result)}"
    return f"game {event.game_id}: void ({void_text(event)})"


class PlainWording:
    """What a run prints without the dashboard: stdout lines and stderr lines.

    Keeps count of the games in progress, for the stopping line: a game
    leaves them when it is announced or when its slot starts another game
    (it is over then, its record on its way to the disk).
    """

    def __init__(self, code: str) -> None:
        self.code = code
        self._running: set[str] = set()
        self._slots: dict[int, str] = {}

    def lines(self, event: Event) -> tuple[list[str], list[str]]:
        """(stdout lines, stderr lines) for ``event``."""
        match event:
            case GameStarted():
                if event.slot >= 0:
                    self._running.discard(self._slots.get(event.slot, ""))
                    self._slots[event.slot] = event.game_id
                self._running.add(event.game_id)
                return [], []
            case GameFinished():
                self._running.discard(event.game_id)
                if event.result is None:
                    reason = void_text(event)
                    return [], [
                        f"arena: game {event.game_id} is void and will be replayed: {reason}"
                    ]
                if not event.counted:
                    return [], []
                return [finished_line(event)], []
            case RunWarning():
                return [], [f"arena: warning: {event.text}"]
            case WorkersChanged():
                return [workers_text(event)], []
            case RunStateChanged():
                return self._state_lines(event), []
            case MovePlayed() | EngineStderr() | TreeDump() | SnapshotTaken() | KeyPressed():
                return [], []
            case _:
                assert_never(event)

    def _state_lines(self, event: RunStateChanged) -> list[str]:
        if event.state is RunState.RUNNING:
            slots = event.parallel or 1
            return [
                f"running {self.code} with {slots} slot(s)"
                " (Ctrl-X or `arena stop` to stop after the games in progress)"
            ]
        if event.state is RunState.STOPPING:
            if self._running:
                return [f"{event.message}: waiting for {len(self._running)} game(s) in progress"]
            return []
        if event.state in ENDED_STATES and event.message:
            return [event.message]
        return []
