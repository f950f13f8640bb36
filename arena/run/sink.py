"""Where one game reports while it is played: :class:`GameSink`, one typed object per game.

A game is played by :func:`arena.run.match.play_game`, here or on a cluster
worker, and tells one sink what happens: it started (and where), a move was
played, an engine wrote a line on its stderr, a line of GTP traffic went by.
The ringmaster's sink turns these into events (:mod:`arena.events`) and the
game's GTP log; a cluster worker's sends them back to the ringmaster, whose
executor hands them to the ringmaster's sink.  Every method of the base
class does nothing: a sink overrides what it listens to, and says with
``wants_moves`` and ``wants_traffic`` whether the game should report those
(a move costs nothing more when nobody watches).  Methods are called on the
trio thread, from the game's task: they must be quick and never block.
"""

from __future__ import annotations

from typing import Protocol

from arena.clock import PlayerClock
from gtp.board import Board
from gtp.vertex import Colour, Move


class LiveGame(Protocol):
    """What a sink may read of a game played here when it reports a move (nothing is
    copied for it: the sink reads only for the moves it passes on)."""

    def clock(self, colour: Colour) -> PlayerClock | None:
        """``colour``'s clock after the move (None: the player has no time control)."""
        ...

    @property
    def board(self) -> Board:
        """The board after the move."""
        ...


class GameSink:
    """One game's reports (see module docstring); the base class listens to nothing."""

    wants_moves: bool = False  # call move_played (else it is never called)
    wants_traffic: bool = False  # call traffic_line with every GTP line

    def started(self, worker: str | None) -> None:
        """The game has started; ``worker``: the cluster worker playing it (None: here)."""

    def move_played(
        self, colour: Colour, move: Move, moves_played: int, game: LiveGame | None = None
    ) -> None:
        """A move was played (opening moves too); ``game``: the game itself, when played
        here, to read its clocks and board from (only when this report is wanted)."""

    def stderr_line(self, player: str, line: str) -> None:
        """A line ``player``'s engine wrote on its stderr (when its stderr is logged)."""

    def traffic_line(self, line: str) -> None:
        """A line of GTP traffic, labelled with the engine it went to or came from."""


QUIET = GameSink()
"""A sink that listens to nothing (a game nobody watches)."""
