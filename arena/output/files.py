"""The run's text files, written by subscribers to its events: ``X.log``, ``X.hist``, ``X.events``.

* ``X.log``: one timestamped line per event worth a line (:func:`arena.output.wording.log_line`):
  runs starting and ending, games starting and finishing, void games, engine
  stderr lines (when ``stderr_to_log``), warnings;
* ``X.hist``: each counted result, and the tuners' tree dumps;
* ``X.events``: one JSON object per event, with its wall-clock ``time``; this
  is what ``arena watch`` follows.  Moves are thinned out: a game's latest
  move goes there at most once every ``MOVE_LINE_SECONDS`` (none in its first
  such interval), with both clocks, and for a game whose events carry its
  board, the first one with the board once that interval is over (the
  ringmaster adds it twice a second), so a watcher can draw it.  A
  watcher needs no more, and the file stays small enough for the tail a
  watcher reads when it attaches to still hold the starts of the games in
  progress.

All three are appended to, line by line, and survive between runs (``arena
reset`` deletes them).  :class:`GtpLogs` opens ``X.gtplogs/<game>.log`` for
``--log-gtp``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Final

import attrs
import trio

from arena import fields_eq, fields_repr
from arena.events import Event, GameFinished, GameStarted, MovePlayed, event_to_json
from arena.output.wording import history_lines, log_line
from arena.store.files import CompetitionFiles

# A game's latest move goes to X.events at most this often (a watcher redraws at 4 Hz).
MOVE_LINE_SECONDS: Final = 1.0


def _open_append(path: Path) -> IO[str]:
    return open(path, "a", encoding="utf-8", buffering=1)


def _stamp() -> str:
    # As datetime.datetime.now().strftime(...), without importing datetime at the start.
    return time.strftime("%Y-%m-%d %H:%M:%S")


@attrs.define
class RunFiles:
    """Subscriber: appends each event to ``X.log``, ``X.hist`` and ``X.events``.

    Subscribe it with ``moves=True``: it keeps one move per game and
    ``MOVE_LINE_SECONDS`` (by ``clock``, the run's trio clock unless given).
    """

    __repr__ = fields_repr
    __eq__ = fields_eq

    files: CompetitionFiles
    clock: Callable[[], float] = trio.current_time
    _log: IO[str] = attrs.field(init=False)
    _hist: IO[str] = attrs.field(init=False)
    _events: IO[str] = attrs.field(init=False)
    _next_move_line: dict[str, float] = attrs.Factory(dict)  # game id -> clock time
    _with_boards: set[str] = attrs.Factory(set)  # games whose events carry boards

    def __attrs_post_init__(self) -> None:
        self._log = _open_append(self.files.log)
        self._hist = _open_append(self.files.hist)
        self._events = _open_append(self.files.events)

    def __call__(self, event: Event) -> None:
        if isinstance(event, MovePlayed):
            if event.board is not None:
                self._with_boards.add(event.game_id)
            elif event.game_id in self._with_boards:
                return  # the next one with its board is a fraction of a second away
            if not self._move_due(event.game_id):
                return
        elif isinstance(event, GameStarted):
            self._next_move_line[event.game_id] = self.clock() + MOVE_LINE_SECONDS
        elif isinstance(event, GameFinished):
            self._next_move_line.pop(event.game_id, None)
            self._with_boards.discard(event.game_id)
        line = log_line(event)
        if line is not None:
            self._log.write(f"{_stamp()} {line}\n")
        for text in history_lines(event):
            self._hist.write(text + "\n")
        data = event_to_json(event)
        if data is not None:
            data["time"] = round(time.time(), 3)
            self._events.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")

    def _move_due(self, game_id: str) -> bool:
        """Whether this game's move goes to X.events now (then the next one a while later)."""
        now = self.clock()
        due = self._next_move_line.get(game_id)
        if due is None:  # its start came before this subscriber: count from now
            self._next_move_line[game_id] = now + MOVE_LINE_SECONDS
            return False
        if now < due:
            return False
        self._next_move_line[game_id] = now + MOVE_LINE_SECONDS
        return True

    def close(self) -> None:
        for file in (self._log, self._hist, self._events):
            file.close()


@attrs.define
class GtpLogs:
    """``--log-gtp``: every command and response of a game in ``X.gtplogs/<game id>.log``."""

    __repr__ = fields_repr
    __eq__ = fields_eq

    files: CompetitionFiles
    _open: dict[str, IO[str]] = attrs.Factory(dict)

    def open(self, game_id: str) -> Callable[[str], None]:
        """Where the game's traffic lines go (until :meth:`close`)."""
        self.files.gtplogs_dir.mkdir(exist_ok=True)
        file = _open_append(self.files.gtplogs_dir / f"{game_id}.log")
        self._open[game_id] = file

        def write(line: str) -> None:
            file.write(line + "\n")

        return write

    def close(self, game_id: str) -> None:
        file = self._open.pop(game_id, None)
        if file is not None:
            file.close()
