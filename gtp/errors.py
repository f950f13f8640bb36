"""The exception tree for everything that can go wrong when talking GTP.

Engine faults are typed exceptions inside ``gtp``; callers such as the arena turn
them into game results.  The tree::

    GtpError
    +-- EngineFault          the channel is lost: the game cannot go on
    |   +-- ProtocolError
    |   +-- EngineTimeout
    |   +-- EngineGone
    +-- CommandFailed        a ``?`` answer; the engine stays usable
    +-- EngineStartError     could not start, or failed the startup check
  Every error knows which engine it is about so that the
one-line message a user sees names it.
"""

from __future__ import annotations


class GtpError(Exception):
    """Base class of every GTP-level fault."""

    def __init__(self, message: str, *, engine: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.engine = engine

    def __str__(self) -> str:
        if self.engine:
            return f"engine {self.engine!r}: {self.message}"
        return self.message


class EngineFault(GtpError):
    """Base class of the faults that end a game: the engine cannot go on.

    A timeout, a vanished engine and protocol garbage all leave the channel
    unusable, so callers can write ``except EngineFault`` where they would
    otherwise spell out the tuple.  Outside it: :class:`CommandFailed` (a
    ``?`` answer; the engine stays usable and the caller decides what the
    refusal means) and :class:`EngineStartError` (the engine never got to
    play; runs handle it apart from games).
    """


class ProtocolError(EngineFault):
    """The peer sent something that is not GTP (garbage, desync, flood)."""


class CommandFailed(GtpError):
    """The engine answered a command with a failure response (``?``)."""

    def __init__(self, command: str, failure: str, *, engine: str | None = None) -> None:
        super().__init__(f"{command!r} failed: {failure}", engine=engine)
        self.command = command
        self.failure = failure


class EngineTimeout(EngineFault):
    """A command (or the engine's start or exit) overran its deadline."""

    def __init__(self, command: str, timeout: float, *, engine: str | None = None) -> None:
        super().__init__(f"no response to {command!r} within {timeout:g}s", engine=engine)
        self.command = command
        self.timeout = timeout


class EngineGone(EngineFault):
    """The engine process exited, or closed its pipes, while we needed it."""

    def __init__(
        self, message: str, *, engine: str | None = None, returncode: int | None = None
    ) -> None:
        super().__init__(message, engine=engine)
        self.returncode = returncode


class EngineStartError(GtpError):
    """The engine could not be started or failed its startup check."""


class VertexError(ValueError):
    """A vertex, colour or move string that is not valid GTP for this board."""
