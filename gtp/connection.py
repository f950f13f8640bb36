"""The controller's side of one GTP session, sans I/O.

A :class:`Connection` holds everything a controller must remember about its
conversation with one engine, and nothing about how the bytes travel (h11's
``Connection`` is the model): the command ids, the commands whose answers are
still owed (several at once when commands are pipelined), the check that an
answer or any output never comes before its command was sent, the echoed id
matched against the command's (``strict_ids``: an answer without an id is an
error too), the caps on a response's line and size, and the broken state:
after a protocol error, or a fault its I/O layer reports with :meth:`fail`
(timeout, end of output, interruption), the channel cannot be trusted and
every later :meth:`send` raises.  A ``?`` answer is an answer like any other
and leaves the connection usable.

It never reads or writes::

    connection = Connection("gnugo")
    line = connection.send("genmove", ("b",))  # the bytes to write
    ...  # write them; then, for each chunk read:
    response = connection.receive(chunk)  # a Response, or None: more bytes needed

Pipelining: :meth:`send_many` gives one write for several commands; their
answers come back in order, from :meth:`receive` and then
:meth:`next_response` for answers that arrived in the same chunk.
``gtp.client`` moves the bytes between a connection and an engine's pipes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gtp.errors import EngineFault, EngineGone, ProtocolError
from gtp.protocol import (
    MAX_ID,
    MAX_RESPONSE_BYTES,
    MAX_RESPONSE_LINE_BYTES,
    Command,
    Response,
    ResponseReader,
    format_command,
)

_Awaited = tuple[int, str, tuple[str, ...]]  # id, name, args of a command sent


class Connection:
    """The state of one controller-to-engine GTP conversation; bytes in, responses out.

    ``engine`` names the engine in the errors raised.  Every method either
    returns or raises at once: nothing here waits.
    """

    __slots__ = ("_awaiting", "_closed", "_next_id", "_reader", "broken_by", "engine", "strict_ids")

    def __init__(
        self,
        engine: str | None = None,
        *,
        strict_ids: bool = False,
        max_line_bytes: int = MAX_RESPONSE_LINE_BYTES,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self.engine = engine
        self.strict_ids = strict_ids
        self._reader = ResponseReader(max_line_bytes, max_response_bytes)
        self._next_id = 0
        # The commands sent whose answers are owed, oldest first.
        self._awaiting: list[_Awaited] = []
        self._closed = False
        #: The fault that made the connection unusable (None while it is usable).
        self.broken_by: EngineFault | None = None

    # -- state -----------------------------------------------------------------

    @property
    def usable(self) -> bool:
        """False once broken (see :attr:`broken_by`) or closed."""
        return self.broken_by is None and not self._closed

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def busy(self) -> bool:
        """True while an answer is owed."""
        return bool(self._awaiting)

    @property
    def awaiting(self) -> tuple[Command, ...]:
        """The commands whose answers are owed, oldest first."""
        return tuple(Command(*sent) for sent in self._awaiting)

    @property
    def waiting_for(self) -> Command | None:
        """The oldest command whose answer is owed, if any."""
        return Command(*self._awaiting[0]) if self._awaiting else None

    @property
    def pending(self) -> bool:
        """True when part of a response has arrived (non-blank bytes are buffered)."""
        return self._reader.pending

    @property
    def last_id(self) -> int:
        """The id of the latest command sent (0 before the first)."""
        return self._next_id

    # -- sending ---------------------------------------------------------------

    def send(self, name: str, args: tuple[str, ...] = ()) -> bytes:
        """The line for one command (a fresh id), to be written whole.

        Raises ValueError for a word GTP cannot carry (nothing changes then),
        EngineGone when the connection is unusable, and ProtocolError when
        the engine has written anything since its last owed answer (the
        connection is broken then).
        """
        if self.broken_by is not None or self._closed:
            raise self.unusable_error()
        command_id = self._next_id + 1
        if command_id > MAX_ID:
            command_id = 1
        line = format_command(name, args, command_id)
        self._next_id = command_id
        if not self._awaiting and self._reader.pending:
            self._nothing_early(name, args)
        self._awaiting.append((command_id, name, args))
        return line

    def send_many(self, commands: Iterable[Sequence[str]]) -> bytes:
        """The lines of several commands (each: its name, then its arguments), in one piece.

        Their answers come back in order.  Every word is checked before
        anything changes (ValueError); otherwise as :meth:`send`.
        """
        if self.broken_by is not None or self._closed:
            raise self.unusable_error()
        lines: list[bytes] = []
        sent: list[_Awaited] = []
        command_id = self._next_id
        known = _KNOWN_COMMANDS
        for words in commands:
            command_id = command_id + 1 if command_id < MAX_ID else 1
            # The usual commands (play, genmove) come again and again: their
            # words are checked and their text made once (see _known_command).
            known_command = known.get(words) if type(words) is tuple else None
            if known_command is None:
                known_command = _known_command(words)
            text, name, args = known_command
            lines.append(b"%d %b" % (command_id, text))
            sent.append((command_id, name, args))
        if not sent:
            return b""
        self._next_id = command_id
        if not self._awaiting and self._reader.pending:
            self._nothing_early(sent[0][1], sent[0][2])
        self._awaiting += sent
        return b"".join(lines)

    def _nothing_early(self, name: str, args: tuple[str, ...]) -> None:
        """No answer was owed, yet the engine wrote something: a ProtocolError."""
        try:
            early = self._reader.next_response()
        except ProtocolError:
            early = None  # not even a response
        what = "a response" if early is not None else "output"
        message = f"sent {what} before {describe(name, args)!r} was sent"
        raise self.fail(ProtocolError(message, engine=self.engine))

    # -- receiving -------------------------------------------------------------

    def receive(self, data: bytes) -> Response | None:
        """Take a chunk the engine wrote; the next owed answer if it is complete now.

        Further answers that came in the same chunk: :meth:`next_response`.
        Raises ProtocolError (the connection is broken then) for anything
        that is not a well-formed answer to the oldest owed command: garbage,
        a flood past the caps, a wrong id (a missing one with ``strict_ids``).
        Bytes that come when no answer is owed are kept: the next
        :meth:`send` finds them.  The end of the engine's output is the I/O
        layer's to report (:meth:`fail`).
        """
        awaiting = self._awaiting
        if not awaiting:
            if self.broken_by is None and not self._closed:
                try:
                    self._reader.feed(data)
                except ProtocolError as exc:
                    raise self.fail(ProtocolError(exc.message, engine=self.engine)) from None
            return None
        try:
            response = self._reader.receive(data)
        except ProtocolError as exc:
            _, name, args = awaiting[0]
            raise self._broken_protocol(exc, name, args) from None
        return None if response is None else self._settle(response)

    def receive_all(self, data: bytes, answers: list[Response]) -> bool:
        """:meth:`receive`, then :meth:`next_response` while answers come: all in ``answers``.

        True once no answer is owed any more (the last one is
        ``answers[-1]``).  Raises as :meth:`receive`; the answers taken
        before the error stay in ``answers``.  One call a chunk, for a
        client collecting a batch's answers.
        """
        awaiting = self._awaiting
        if not awaiting:
            self.receive(data)
            return False
        reader = self._reader
        try:
            response = reader.receive(data)
        except ProtocolError as exc:
            _, name, args = awaiting[0]
            raise self._broken_protocol(exc, name, args) from None
        while response is not None:
            # _settle, inlined
            command_id, name, args = awaiting.pop(0)
            if response.id != command_id:
                self._check_id(response, command_id, name, args)
            answers.append(response)
            if not awaiting:
                return True
            try:
                response = reader.next_response()
            except ProtocolError as exc:
                _, name, args = awaiting[0]
                raise self._broken_protocol(exc, name, args) from None
        return False

    def next_response(self) -> Response | None:
        """The next owed answer if it is buffered complete already, else None."""
        awaiting = self._awaiting
        if not awaiting:
            return None
        try:
            response = self._reader.next_response()
        except ProtocolError as exc:
            _, name, args = awaiting[0]
            raise self._broken_protocol(exc, name, args) from None
        return None if response is None else self._settle(response)

    def _settle(self, response: Response) -> Response:
        """The answer the first owed command was waiting for: it is owed no longer."""
        command_id, name, args = self._awaiting.pop(0)
        if response.id != command_id:
            self._check_id(response, command_id, name, args)
        return response

    def _check_id(
        self, response: Response, command_id: int, name: str, args: tuple[str, ...]
    ) -> None:
        if response.id is None:
            if not self.strict_ids:
                return
            message = f"response to {describe(name, args)!r} has no id (expected {command_id})"
        else:
            message = (
                f"response id {response.id} does not match command id {command_id}"
                f" ({describe(name, args)!r})"
            )
        raise self.fail(ProtocolError(message, engine=self.engine))

    # -- faults and the end ----------------------------------------------------

    def fail(self, error: EngineFault) -> EngineFault:
        """The I/O layer's fault (timeout, end of output, interruption): broken from now on.

        Returns ``error``, for ``raise connection.fail(...)``.  The first
        fault is the one kept in :attr:`broken_by`.
        """
        if self.broken_by is None:
            self.broken_by = error
        self._awaiting.clear()
        return error

    def close(self) -> None:
        """No more commands (the streams are being closed)."""
        self._closed = True

    def unusable_error(self) -> EngineGone:
        """What a command on an unusable connection raises."""
        cause = self.broken_by
        if cause is not None:
            returncode = cause.returncode if isinstance(cause, EngineGone) else None
            return EngineGone(
                f"unusable after an earlier error: {cause.message}",
                engine=self.engine,
                returncode=returncode,
            )
        return EngineGone("connection already closed", engine=self.engine)

    def _broken_protocol(
        self, error: ProtocolError, name: str, args: tuple[str, ...]
    ) -> ProtocolError:
        """``error`` from gtp.protocol, which names no command or engine: named, and broken."""
        message = error.message
        if self.engine is not None:
            # gtp.protocol's messages say "engine ..." without naming it.
            message = message.removeprefix("engine ")
        named = ProtocolError(
            f"{message} (while running {describe(name, args)!r})", engine=self.engine
        )
        self.fail(named)
        return named


# A command's words (a tuple) -> its line without the id, its name, its arguments.
_KNOWN_COMMANDS: dict[tuple[str, ...], tuple[bytes, str, tuple[str, ...]]] = {}
_KNOWN_COMMANDS_MAX = 4096  # every play on 25x25 for both colours, and then some


def _known_command(words: Sequence[str]) -> tuple[bytes, str, tuple[str, ...]]:
    """A command's line without the id (its words checked), name and arguments.

    Raises as :meth:`Connection.send_many` documents.  Remembered when the
    words are a tuple of ``str``: the same words give the same line.
    """
    if isinstance(words, str):
        raise TypeError(f"a command is a sequence of words, not a string: {words!r}")
    if not words:
        raise ValueError("a command needs a name")
    name, args = words[0], tuple(words[1:])
    known = (format_command(name, args), name, args)
    if type(words) is tuple and all(type(word) is str for word in words):
        if len(_KNOWN_COMMANDS) >= _KNOWN_COMMANDS_MAX:
            _KNOWN_COMMANDS.clear()
        _KNOWN_COMMANDS[words] = known
    return known


def describe(name: str, args: Sequence[str]) -> str:
    """A command as messages quote it: ``genmove b``."""
    return " ".join((name, *args)) if args else name
