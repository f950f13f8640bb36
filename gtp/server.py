"""The engine side of GTP: a command registry and an async serve loop over any trio stream.

:class:`GtpServer` owns the required administrative commands (``protocol_version``,
``name``, ``version``, ``known_command``, ``list_commands``, ``quit``), dispatches
every other command to a registered handler and turns every outcome into exactly
one response, in order: the handler's result; ``?`` for :class:`GtpFailure` and
argument errors (``ValueError``, which includes ``VertexError``); ``?`` with a
one-line message (traceback to stderr) for a handler bug.  Parsing and
formatting live in :mod:`gtp.protocol`; this module only moves bytes.

The rule, as GNU Go keeps it: every command received before ``quit`` or the end
of input is answered, in order and with full effort (``echo 'genmove b' |
engine`` thinks and plays a real move), and then the session ends.  Neither
``quit`` nor the end of input cuts a running command short.  Promptness on
shutdown is the controller's to ask for: when the engine's output is closed
(a write fails with EPIPE, or, on standard output, the reading end is seen to
close, which is watched all the time) the serve loop stops at once,
cancelling any handler at work; a termination signal ends the process
(Python's default action).

A handler returns a string, or an awaitable of one.  Input is read by one task
all the time, so that an open-ended command (live analysis runs "until the
next line") can poll :attr:`GtpServer.input_pending` and
:attr:`GtpServer.input_ended` to know when to finish; commands with a result
of their own (``genmove``) must not look at them.  :func:`run_stdio` is the
entry point for engines run as programs.
"""

from __future__ import annotations

import contextlib
import errno
import inspect
import os
import select
import sys
import traceback
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Final, Protocol, TypeVar, runtime_checkable

import attrs
import trio

from gtp.protocol import (
    BadCommandLine,
    Command,
    CommandReader,
    format_response,
    is_well_formed_word,
)

Handler = Callable[[tuple[str, ...]], "str | Awaitable[str]"]
"""A command handler: the argument words in, the result text (or an awaitable of it) out."""
_AnyHandler = TypeVar("_AnyHandler", bound=Handler)

RECEIVE_BYTES: Final = 65536
EXIT_INTERRUPTED: Final = 130
# Where epoll is missing, how often standard output is checked for a closed
# reading end.
OUTPUT_POLL_SECONDS: Final = 0.25


class GtpFailure(Exception):
    """Raise in a handler to answer ``?`` with this message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _RawResponse(str):
    """Type of :data:`RAW_RESPONSE_DONE`; compared by identity, never by value."""

    __slots__ = ()


RAW_RESPONSE_DONE: Final = _RawResponse("")
"""Return this from a handler that wrote its whole response with :meth:`GtpServer.send_raw`."""

_BROKEN_STREAM_ERRORS: Final = (trio.BrokenResourceError, trio.ClosedResourceError)


@runtime_checkable
class WatchedOutput(Protocol):
    """A send stream that can tell when its reader has gone (:class:`GtpServer` watches it)."""

    async def wait_reader_gone(self) -> None:
        """Return once nobody can read what is sent any more; may never return."""


@attrs.define
class GtpServer:
    """An engine's GTP front end: register handlers, then :meth:`serve`."""

    name: str
    version: str = ""
    _handlers: dict[str, Handler] = attrs.field(init=False, factory=dict)
    # Commands for the worker: (command, its line index, the handler's awaitable
    # if the reader already started it).
    _pending: deque[tuple[Command | BadCommandLine, int, Awaitable[str] | None]] = attrs.field(
        init=False, factory=deque
    )
    _wakeup: trio.lowlevel.ParkingLot = attrs.field(init=False, factory=trio.lowlevel.ParkingLot)
    _lines_received: int = attrs.field(init=False, default=0)
    _current: Command | None = attrs.field(init=False, default=None)
    _current_line: int = attrs.field(init=False, default=0)
    _eof: bool = attrs.field(init=False, default=False)
    _send_stream: trio.abc.SendStream | None = attrs.field(init=False, default=None)
    _output_closed: bool = attrs.field(init=False, default=False)
    _worker_busy: bool = attrs.field(init=False, default=False)
    _stop_scope: trio.CancelScope | None = attrs.field(init=False, default=None)

    def __attrs_post_init__(self) -> None:
        self.register("protocol_version", lambda args: "2")
        self.register("name", lambda args: self.name)
        self.register("version", lambda args: self.version)
        self.register("known_command", self._known_command)
        self.register("list_commands", lambda args: "\n".join(self._handlers))
        self.register("quit", lambda args: "")

    # ------------------------------------------------------------------ registry

    def register(self, command_name: str, handler: Handler) -> None:
        """Add (or replace) the handler of a command; names are case-sensitive."""
        if not is_well_formed_word(command_name):
            raise ValueError(f"not a usable GTP command name: {command_name!r}")
        self._handlers[command_name] = handler

    def command(self, command_name: str) -> Callable[[_AnyHandler], _AnyHandler]:
        """Decorator form of :meth:`register`; returns the function unchanged."""

        def decorate(handler: _AnyHandler) -> _AnyHandler:
            self.register(command_name, handler)
            return handler

        return decorate

    def known_commands(self) -> list[str]:
        """Every registered command, in registration order."""
        return list(self._handlers)

    def _known_command(self, args: tuple[str, ...]) -> str:
        if len(args) != 1:
            raise GtpFailure("expected one command name")
        return "true" if args[0] in self._handlers else "false"

    # ------------------------------------------------------ state for handlers

    @property
    def input_ended(self) -> bool:
        """True once the end of input has arrived (commands read before it are still answered)."""
        return self._eof

    @property
    def input_pending(self) -> bool:
        """True once another line (even an empty one) arrived after the current command."""
        if self._current is None:
            return bool(self._pending)
        return self._lines_received > self._current_line + 1

    @property
    def current_command(self) -> Command | None:
        """The command being handled (its ``id`` goes after ``=`` in a raw response)."""
        return self._current

    async def send_raw(self, data: bytes) -> None:
        """Write bytes as they are, for a handler that streams its own response.

        The handler writes the status line (``=`` and the id of
        :attr:`current_command`), its lines and the closing blank line, then
        returns :data:`RAW_RESPONSE_DONE`.  Raises ``trio.BrokenResourceError``
        when the output is closed; the serve loop then ends quietly.
        """
        stream = self._send_stream
        if stream is None:
            raise RuntimeError("send_raw() called while the server is not serving")
        if self._output_closed or not await self._write(stream, data):
            raise trio.BrokenResourceError("GTP output is closed")

    # ---------------------------------------------------------------- serving

    async def serve(
        self, receive_stream: trio.abc.ReceiveStream, send_stream: trio.abc.SendStream
    ) -> None:
        """Answer commands from ``receive_stream`` until ``quit``, end of input or closed output."""
        self._reset(send_stream)
        async with trio.open_nursery() as nursery:
            self._stop_scope = nursery.cancel_scope
            nursery.start_soon(self._work, send_stream)
            if isinstance(send_stream, WatchedOutput):
                nursery.start_soon(self._watch_output, send_stream)
            try:
                await self._read(receive_stream, send_stream)
            finally:
                nursery.cancel_scope.cancel()

    async def serve_stdio(self) -> None:
        """:meth:`serve` over the process's standard input and output."""
        try:
            receive_stream = _FdInput(0)
        except OSError:
            return  # no stdin at all: nothing to answer
        try:
            send_stream = _FdOutput(1)
        except OSError:
            receive_stream.close()
            return
        try:
            await self.serve(receive_stream, send_stream)
        finally:
            send_stream.close()
            receive_stream.close()

    def _reset(self, send_stream: trio.abc.SendStream) -> None:
        self._pending.clear()
        self._lines_received = 0
        self._current = None
        self._current_line = 0
        self._eof = False
        self._send_stream = send_stream
        self._output_closed = False
        self._worker_busy = False

    # The reader task (the one that called serve) reads all input.  While the
    # worker is idle it answers each command itself, so that a synchronous
    # handler costs one pass of the event loop.  A handler that returns an
    # awaitable, and every command that arrives while one runs, goes to the
    # worker task; the reader keeps reading meanwhile, which is what makes
    # input_pending and input_ended work.

    async def _read(
        self, receive_stream: trio.abc.ReceiveStream, send_stream: trio.abc.SendStream
    ) -> None:
        reader = CommandReader()
        chunks = 0
        while True:
            try:
                data = await receive_stream.receive_some(RECEIVE_BYTES)
            except _BROKEN_STREAM_ERRORS:
                data = b""  # a broken or closed input is the end of input
            if not data:
                items = self._number(reader.close())
                self._eof = True
                if await self._dispatch(items, send_stream) or not self._worker_busy:
                    return
                self._wakeup.unpark_all()
                await trio.sleep_forever()  # the worker stops the serve loop when done
            if await self._dispatch(self._accept(reader, bytes(data)), send_stream):
                return
            chunks += 1
            if chunks % 64 == 0:
                # Streams that skip checkpoints when data is ready must not
                # starve other tasks under a flood of input.
                await trio.lowlevel.checkpoint()

    def _accept(
        self, reader: CommandReader, data: bytes
    ) -> list[tuple[Command | BadCommandLine, int]]:
        # Feed line by line so that each command knows which line it came from;
        # input_pending compares line counts, so that an empty line counts too.
        if data.find(b"\n") == len(data) - 1:  # the common case: one whole line
            items = [(item, self._lines_received) for item in reader.feed(data)]
            self._lines_received += 1
            return items
        items = []
        start = 0
        while True:
            newline = data.find(b"\n", start)
            if newline < 0:
                if start < len(data):
                    reader.feed(data[start:])
                break
            for item in reader.feed(data[start : newline + 1]):
                items.append((item, self._lines_received))
            self._lines_received += 1
            start = newline + 1
        return items

    def _number(
        self, items: list[Command | BadCommandLine]
    ) -> list[tuple[Command | BadCommandLine, int]]:
        numbered = [(item, self._lines_received) for item in items]
        self._lines_received += len(items)
        return numbered

    async def _dispatch(
        self,
        items: list[tuple[Command | BadCommandLine, int]],
        send_stream: trio.abc.SendStream,
    ) -> bool:
        """Answer or queue newly read commands; True when serving is over."""
        pending = self._pending
        for item, line in items:
            if self._worker_busy:
                pending.append((item, line, None))
                continue
            outcome = self._start(item, line)
            if isinstance(outcome, bytes):
                if not await self._write(send_stream, outcome):
                    return True
            elif outcome is not None:
                assert isinstance(item, Command)
                pending.append((item, line, outcome))
                self._worker_busy = True
                self._wakeup.unpark_all()
                continue
            if self._output_closed or _is_quit(item):
                return True
        return False

    async def _work(self, send_stream: trio.abc.SendStream) -> None:
        pending = self._pending
        while True:
            if not pending:
                self._worker_busy = False
                if self._eof:
                    self._stop()
                    return
                await self._wakeup.park()
                continue
            item, line, started = pending.popleft()
            outcome = self._start(item, line) if started is None else started
            if not isinstance(outcome, bytes) and outcome is not None:
                assert isinstance(item, Command)
                outcome = await self._finish(item, line, outcome)
            if self._output_closed or (
                outcome is not None and not await self._write(send_stream, outcome)
            ):
                self._stop()
                return
            if _is_quit(item):
                self._stop()
                return

    def _stop(self) -> None:
        if self._stop_scope is not None:
            self._stop_scope.cancel()

    async def _watch_output(self, send_stream: WatchedOutput) -> None:
        # Nobody will read the answer: stop now rather than after the search.
        await send_stream.wait_reader_gone()
        self._output_closed = True
        self._stop()

    def _start(self, item: Command | BadCommandLine, line: int) -> bytes | Awaitable[str] | None:
        """Run a handler up to its first await: response bytes, an awaitable, or None.

        None means the handler wrote its own response (or the output closed).
        """
        if isinstance(item, BadCommandLine):
            return format_response(False, item.message, item.id)
        handler = self._handlers.get(item.name)
        if handler is None:
            return format_response(False, "unknown command", item.id)
        self._current = item
        self._current_line = line
        try:
            result = handler(item.args)
            if type(result) is str:
                return format_response(True, result, item.id)
            if inspect.isawaitable(result):
                return result
            return self._success(item, result)
        except Exception as exc:
            return self._failure(item, exc)
        finally:
            self._current = None

    async def _finish(self, command: Command, line: int, awaitable: Awaitable[str]) -> bytes | None:
        self._current = command
        self._current_line = line
        try:
            return self._success(command, await awaitable)
        except Exception as exc:
            return self._failure(command, exc)
        finally:
            self._current = None

    def _success(self, command: Command, result: object) -> bytes | None:
        if result is RAW_RESPONSE_DONE:
            return None
        if not isinstance(result, str):
            raise TypeError(f"handler returned {type(result).__name__}, not str")
        return format_response(True, result, command.id)

    def _failure(self, command: Command, exc: Exception) -> bytes | None:
        if isinstance(exc, GtpFailure):
            return format_response(False, exc.message, command.id)
        if isinstance(exc, ValueError):
            return format_response(False, str(exc), command.id)
        if self._output_closed:
            return None  # send_raw() found the output closed: nothing to report
        _report_bug(command, exc)
        message = " ".join(f"internal error: {type(exc).__name__}: {exc}".split())
        return format_response(False, message, command.id)

    async def _write(self, stream: trio.abc.SendStream, data: bytes) -> bool:
        try:
            await stream.send_all(data)
        except _BROKEN_STREAM_ERRORS:
            self._output_closed = True
            return False
        except OSError as exc:
            if exc.errno not in (errno.EPIPE, errno.ECONNRESET, errno.EIO):
                raise
            self._output_closed = True
            return False
        return True


def _is_quit(item: Command | BadCommandLine) -> bool:
    return isinstance(item, Command) and item.name == "quit"


def _report_bug(command: Command, exc: Exception) -> None:
    try:
        print(f"GTP command {command.name!r} failed with an exception:", file=sys.stderr)
        traceback.print_exception(exc, file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # stderr is gone; the failure response is all we can give


# ------------------------------------------------------------------- stdio


class _FdInput(trio.abc.ReceiveStream):
    """Standard input for :meth:`GtpServer.serve_stdio`.

    Unlike ``trio.lowlevel.FdStream`` it reads at once when data is there (no
    extra pass of the event loop per command), and it leaves a terminal in
    blocking mode: non-blocking mode belongs to the whole open file
    description, so on a terminal the shell and stderr would see it too.  On a
    terminal it waits for readability and then reads, which does not block.
    Pipes, sockets and files are made non-blocking and restored on close.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._tty = os.isatty(fd)
        self._was_blocking = os.get_blocking(fd)
        if not self._tty:
            os.set_blocking(fd, False)

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        size = RECEIVE_BYTES if max_bytes is None else max_bytes
        fd = self._fd
        if self._tty:
            await trio.lowlevel.wait_readable(fd)
        while True:
            try:
                return os.read(fd, size)
            except BlockingIOError:
                await trio.lowlevel.wait_readable(fd)
            except OSError as exc:
                if exc.errno == errno.EIO:
                    return b""  # the terminal hung up
                raise trio.BrokenResourceError(str(exc)) from exc

    def close(self) -> None:
        """Put the descriptor back in the blocking mode it had; it stays open."""
        with contextlib.suppress(OSError):
            os.set_blocking(self._fd, self._was_blocking)

    async def aclose(self) -> None:
        self.close()
        await trio.lowlevel.checkpoint()


class _FdOutput(trio.abc.SendStream):
    """Standard output for :meth:`GtpServer.serve_stdio`; see :class:`_FdInput`."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._was_blocking = os.get_blocking(fd)
        if not os.isatty(fd):
            os.set_blocking(fd, False)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._fd, view)
            except BlockingIOError:
                await trio.lowlevel.wait_writable(self._fd)
                continue
            except OSError as exc:
                raise trio.BrokenResourceError(str(exc)) from exc
            view = view[written:]

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.wait_writable(self._fd)

    async def wait_reader_gone(self) -> None:
        """Return when the reading end of the pipe (or the terminal) has gone away.

        An epoll set holding only this descriptor, with no events asked for,
        still reports the error and hang-up conditions, and the set's own
        descriptor is readable exactly then; trio waits on that.  A regular
        file never goes away (epoll refuses it): wait forever.
        """
        fd = self._fd
        if not hasattr(select, "epoll"):
            poller = select.poll()
            poller.register(fd, 0)
            while not poller.poll(0):
                await trio.sleep(OUTPUT_POLL_SECONDS)
            return
        with select.epoll() as watcher:
            try:
                watcher.register(fd, 0)
            except OSError:
                await trio.sleep_forever()
            while not watcher.poll(0):
                await trio.lowlevel.wait_readable(watcher.fileno())

    def close(self) -> None:
        """Put the descriptor back in the blocking mode it had; it stays open."""
        with contextlib.suppress(OSError):
            os.set_blocking(self._fd, self._was_blocking)

    async def aclose(self) -> None:
        self.close()
        await trio.lowlevel.checkpoint()


def _is_keyboard_interrupt(exc: BaseException) -> bool:
    if isinstance(exc, KeyboardInterrupt):
        return True
    if isinstance(exc, BaseExceptionGroup):
        return all(_is_keyboard_interrupt(inner) for inner in exc.exceptions)
    return False


def run_stdio(server: GtpServer) -> int:
    """Serve GTP on stdin/stdout; the exit status (0, or 130 after Ctrl-C)."""
    try:
        trio.run(server.serve_stdio)
    except BaseException as exc:
        if _is_keyboard_interrupt(exc):
            return EXIT_INTERRUPTED
        raise
    return 0
