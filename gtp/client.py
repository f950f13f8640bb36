"""The controller side of GTP: an async client over any pair of trio streams.

Owns the conversation with one engine: one command at a time, each with a
fresh id and its own deadline (the write included), the echoed id checked, the
result returned or the failure raised as a typed :mod:`gtp.errors` exception
naming the engine.  A client that hit a timeout, a protocol error or the end
of the engine's output is unusable from then on: the channel cannot be trusted
and the engine is killed when the client is closed.

Starting an engine process and attaching a client to it is
:mod:`gtp.launch`'s job; :meth:`GtpClient.close_engine` stops it (``quit``,
then the bounded shutdown path of ``gtp.process``) and
:meth:`GtpClient.check_startup` verifies that a program speaks GTP.
Byte-level parsing is ``gtp.protocol``'s job.

Pipes get a lean path (plain non-blocking ``os.write``/``os.read``, and a
watchdog task instead of a cancel scope per command, see
:meth:`GtpClient.run_watchdog`); other streams use ``send_all``/``receive_some``
under ``trio.move_on_after``.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from contextlib import suppress
from typing import Final, Protocol

import attrs
import trio

from gtp.errors import (
    CommandFailed,
    EngineGone,
    EngineStartError,
    EngineTimeout,
    GtpError,
    ProtocolError,
)
from gtp.process import (
    DEFAULT_TIMINGS,
    EngineProcess,
    ExitStatus,
)
from gtp.protocol import (
    MAX_RESPONSE_BYTES,
    MAX_RESPONSE_LINE_BYTES,
    Response,
    ResponseReader,
    format_command,
)

RECEIVE_CHUNK: Final = 64 * 1024
EXIT_STATUS_WAIT: Final = 0.5  # after EOF, how long to wait for the exit status
_LOG_PARTIAL_LIMIT: Final = 64 * 1024


class _Overran(Exception):
    """Internal: the watchdog found the command past its deadline."""


TrafficLog = Callable[[str], None]
"""Gets every line of traffic: ``>> `` sent, ``<< `` received, ``!! `` stderr."""


class TextSink(Protocol):
    """Anything with ``write(str)``, such as an open text file."""

    def write(self, text: str, /) -> object: ...


def traffic_log(target: TrafficLog | TextSink | None) -> TrafficLog | None:
    """A log callback from a callback, a text file (one line per write) or None."""
    if target is None or callable(target):
        return target
    write = target.write

    def log_to_file(line: str) -> None:
        write(line + "\n")

    return log_to_file


_HEARD_AT_ONCE: Final = (0.0, 0.0, 0.0)


class _IoClock(trio.abc.Instrument):
    """When the run loop's latest wait for I/O began and returned.

    A task woken by that wait (an engine's answer became readable) is told
    the moment the loop found the data there, not the later moment it got
    its turn after the other tasks woken with it: the time the arena spends
    on other games is not charged to an engine's clock.

    It also tells how long the arena may have been deaf to that answer: the
    loop ran tasks for ``deaf`` seconds before the wait began (an answer that
    came meanwhile waited for the wait), and the wait returned ``overslept``
    seconds after its own timeout (the process did not get a CPU in time).
    A clock uses them to tell a stalled arena from a slow engine.
    """

    def __init__(self) -> None:
        self.woke_at = 0.0
        self.wait_began = 0.0
        self.deaf = 0.0
        self.timeout = 0.0

    def before_io_wait(self, timeout: float) -> None:
        now = time.perf_counter()
        self.deaf = now - self.woke_at
        self.wait_began = now
        self.timeout = timeout

    def after_io_wait(self, timeout: float) -> None:
        self.woke_at = time.perf_counter()


_IO_CLOCKS: trio.lowlevel.RunVar[_IoClock] = trio.lowlevel.RunVar("gtp_io_clock")


def _io_clock() -> _IoClock:
    """This trio run's I/O clock (installed on first use)."""
    try:
        return _IO_CLOCKS.get()
    except LookupError:
        clock = _IoClock()
        trio.lowlevel.add_instrument(clock)
        _IO_CLOCKS.set(clock)
        return clock


@attrs.frozen
class EngineInfo:
    """What an engine says about itself at the startup check."""

    name: str
    version: str
    protocol_version: str | None  # None when the engine failed the command


# on_setattr=NO_OP: the converter on ``_log`` would otherwise make attrs
# generate a __setattr__ that runs converters and validators on every
# assignment, and a command assigns the client's state about six times.
@attrs.define(eq=False, on_setattr=attrs.setters.NO_OP)
class GtpClient:
    """Sends GTP commands to one engine and reads its responses.

    ``receive``/``send`` are any trio streams (the process's stdout/stdin, or an
    in-memory pair in tests).  ``process`` is only used to report the exit
    status when the engine goes away.
    """

    _receive: trio.abc.ReceiveStream
    _send: trio.abc.SendStream
    name: str
    process: EngineProcess | None = None
    _log: TrafficLog | None = attrs.field(default=None, converter=traffic_log)
    strict_ids: bool = False
    default_timeout: float | None = None
    max_line_bytes: int = MAX_RESPONSE_LINE_BYTES
    max_response_bytes: int = MAX_RESPONSE_BYTES
    _reader: ResponseReader = attrs.field(init=False)
    _next_id: int = attrs.field(init=False, default=0)
    _busy: bool = attrs.field(init=False, default=False)
    _closed: bool = attrs.field(init=False, default=False)
    _broken: GtpError | None = attrs.field(init=False, default=None)
    _log_partial: bytes = attrs.field(init=False, default=b"")
    _fd_streams: bool = attrs.field(init=False)
    # The watchdog (see run_watchdog): deadline of the command in progress.
    _deadline: float = attrs.field(init=False, default=math.inf)
    _timed_out: bool = attrs.field(init=False, default=False)
    _watchdog_scope: trio.CancelScope | None = attrs.field(init=False, default=None)
    _watchdog_deadline: float = attrs.field(init=False, default=math.inf)  # the scope's
    # trio's clock, read directly (trio.current_time() is three calls deep).
    _now: Callable[[], float] = attrs.field(init=False, default=time.perf_counter)
    _watchdog_stopped: bool = attrs.field(init=False, default=False)
    _engine_closed: trio.Event | None = attrs.field(init=False, default=None)
    # time.perf_counter just before the last command line was written, and
    # when the arena learned its response's last part was there (the read
    # that completed it, or on the pipe path, when the run loop's wait for
    # I/O that woke the reader returned: see _IoClock): what a clock charges.
    # (Taken before the write: a writer preempted by the engine it woke would
    # otherwise start the clock after the engine had answered.)
    sent_at: float = attrs.field(init=False, default=0.0)
    received_at: float = attrs.field(init=False, default=0.0)
    # When the last command line was all written: a writer preempted between
    # sent_at and the write held the command back from the engine.
    written_at: float = attrs.field(init=False, default=0.0)
    # How the last response was heard (pipe path): (deaf, waited, overslept)
    # of the run loop's wait that brought it (see _IoClock), zeros when it
    # was read without waiting.  What a clock needs to tell an arena stall.
    hearing: tuple[float, float, float] = attrs.field(init=False, default=(0.0, 0.0, 0.0))

    @_fd_streams.default
    def _both_pipes(self) -> bool:
        return isinstance(self._receive, trio.lowlevel.FdStream) and isinstance(
            self._send, trio.lowlevel.FdStream
        )

    @_reader.default
    def _make_reader(self) -> ResponseReader:
        return ResponseReader(self.max_line_bytes, self.max_response_bytes)

    @property
    def usable(self) -> bool:
        """False after a timeout, protocol error or EOF, and once closed."""
        return self._broken is None and not self._closed

    @property
    def broken_by(self) -> GtpError | None:
        """The error that made the client unusable, if any."""
        return self._broken

    async def command(self, name: str, *args: str, timeout: float | None = None) -> str:
        """Run one command and return its result text.

        Raises CommandFailed (``?`` answer; the client stays usable),
        EngineTimeout, EngineGone or ProtocolError (the client is unusable
        afterwards), ValueError for an argument GTP cannot carry.
        """
        if self._broken is not None or self._closed:
            raise self._unusable_error()
        if self._busy:
            if self._engine_closed is not None:
                # close_engine's quit is in progress: the supervisor stopping the
                # engine because everything is being cancelled (a stop at once), and
                # this task not at a checkpoint yet.  Let the cancellation through.
                await trio.lowlevel.checkpoint_if_cancelled()
                raise EngineGone(
                    f"closed while {_describe(name, args)!r} was to be sent", engine=self.name
                )
            raise trio.BusyResourceError(f"engine {self.name!r}: another command is in progress")
        command_id = self._next_id + 1
        line = format_command(name, args, command_id)
        self._next_id = command_id
        if timeout is None:
            timeout = self.default_timeout
        # The exchange is awaited straight from here (no wrapper coroutine):
        # every layer of coroutines costs again on each resumption.
        exchange = self._exchange_fds if self._fd_streams else self._exchange_streams
        self._busy = True
        response: Response | None = None
        try:
            reader = self._reader
            if reader.pending:
                early = reader.next_response()
                what = "a response" if early is not None else "output"
                raise ProtocolError(f"sent {what} before {_describe(name, args)!r} was sent")
            if self._log is not None:
                self._log(">> " + line[:-1].decode())
            if timeout is None:
                response = await exchange(line, name, args)
            elif self._watchdog_scope is not None and self._fd_streams:
                # Under the watchdog (see run_watchdog): record the deadline only.
                deadline = self._now() + timeout
                self._deadline = deadline
                self._timed_out = False
                if deadline < self._watchdog_deadline:
                    # Wake the watchdog earlier than planned.
                    self._watchdog_scope.deadline = self._watchdog_deadline = deadline
                try:
                    response = await exchange(line, name, args)
                except _Overran:
                    pass  # response stays None: a timeout
                finally:
                    self._deadline = math.inf
            else:
                with trio.move_on_after(timeout):
                    response = await exchange(line, name, args)
            if response is None:
                assert timeout is not None
                raise EngineTimeout(_describe(name, args), timeout, engine=self.name)
            if response.id != command_id:
                self._check_id(response, command_id, name, args)
        except ProtocolError as exc:
            if exc.engine is None:
                # gtp.protocol's messages say "engine ..." without naming it.
                message = exc.message.removeprefix("engine ")
                named = ProtocolError(
                    f"{message} (while running {_describe(name, args)!r})", engine=self.name
                )
                self._broken = named
                raise named from None
            self._broken = exc
            raise
        except GtpError as exc:
            self._broken = exc
            raise
        except BaseException:
            # Cancelled or interrupted mid-command: the channel is out of step.
            self._broken = EngineGone(
                f"interrupted while running {_describe(name, args)!r}", engine=self.name
            )
            raise
        finally:
            self._busy = False
        if not response.ok:
            raise CommandFailed(_describe(name, args), response.text, engine=self.name)
        return response.text

    async def run_watchdog(self) -> None:
        """Enforce command timeouts for a pipe-based client without a scope per command.

        Entering a trio cancel scope costs about as much as the rest of a
        command's Python work.  While this task runs (``open_engine`` starts
        it), a command only records its deadline; the watchdog sleeps until
        the earliest deadline that may matter and, when a command overruns,
        wakes it by ``trio.lowlevel.notify_closing`` on the pipes.  Runs,
        shielded so that the shutdown's ``quit`` keeps its timeout, until
        :meth:`stop_watchdog`.
        """
        if not self._fd_streams:
            return
        send, receive = self._send, self._receive
        assert isinstance(send, trio.lowlevel.FdStream)
        assert isinstance(receive, trio.lowlevel.FdStream)
        self._now = trio.lowlevel.current_clock().current_time
        try:
            while not self._watchdog_stopped:
                deadline = self._deadline
                if self._busy and deadline <= self._now():
                    if not self._timed_out:
                        self._timed_out = True
                        for fd in (send.fileno(), receive.fileno()):
                            if fd >= 0:
                                trio.lowlevel.notify_closing(fd)
                    deadline = math.inf  # until the next command sets one
                # Shielded (the shutdown's quit keeps its timeout while the
                # surrounding scope is cancelled); one scope per wake-up.
                with trio.CancelScope(deadline=deadline, shield=True) as scope:
                    self._watchdog_scope = scope
                    self._watchdog_deadline = deadline
                    await trio.sleep_forever()
        finally:
            self._watchdog_scope = None
            self._watchdog_deadline = math.inf

    def stop_watchdog(self) -> None:
        """Let :meth:`run_watchdog` return; commands then use a cancel scope each."""
        self._watchdog_stopped = True
        if self._watchdog_scope is not None:
            self._watchdog_scope.cancel()

    async def _exchange_streams(self, line: bytes, name: str, args: tuple[str, ...]) -> Response:
        """The general path, for any trio streams."""
        self.sent_at = time.perf_counter()
        try:
            await self._send.send_all(line)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            raise await self._gone(name, args, writing=True) from None
        self.written_at = time.perf_counter()
        receive_some = self._receive.receive_some
        reader = self._reader
        while True:
            try:
                data: bytes | bytearray = await receive_some(RECEIVE_CHUNK)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                data = b""
            if not data:
                raise await self._gone(name, args, writing=False)
            received = time.perf_counter()
            if type(data) is not bytes:
                data = bytes(data)
            if self._log is not None:
                self._log_received(data)
            reader.feed(data)
            response = reader.next_response()
            if response is not None:
                self.received_at = received
                self.hearing = _HEARD_AT_ONCE
                return response

    async def _exchange_fds(self, line: bytes, name: str, args: tuple[str, ...]) -> Response:
        """The fast path for pipes: plain non-blocking os.write/os.read.

        FdStream's send_all and receive_some each add a scheduler round trip
        (a checkpoint) on top of the one spent waiting for the answer; this
        path yields only while it has to wait, and checks for cancellation
        on entry.  The busy flag in :meth:`command` replaces the streams'
        conflict detectors.
        """
        await trio.lowlevel.checkpoint_if_cancelled()
        send, receive = self._send, self._receive
        assert isinstance(send, trio.lowlevel.FdStream)
        assert isinstance(receive, trio.lowlevel.FdStream)
        send_fd = send.fileno()  # -1 once closed: os.write then fails with EBADF
        clock = time.perf_counter
        self.sent_at = clock()
        try:
            sent = os.write(send_fd, line)
        except BlockingIOError:
            sent = 0  # the pipe is full
        except OSError:
            raise await self._gone(name, args, writing=True) from None
        if sent < len(line):
            await self._send_rest(send_fd, line, sent, name, args)
        self.written_at = clock()
        receive_fd = receive.fileno()
        reader = self._reader
        read = os.read
        wait_readable = trio.lowlevel.wait_readable
        io_clock = _io_clock()
        woke = 0.0  # when the wait that preceded this read ended (0: no wait)
        hearing = _HEARD_AT_ONCE
        while True:
            # Read before waiting: on a busy machine the engine has often
            # answered by now (about one time in five here), and then the
            # scheduler round trip of a wait is saved.
            try:
                data = read(receive_fd, RECEIVE_CHUNK)
            except BlockingIOError:
                if self._timed_out:
                    raise _Overran from None
                try:
                    await wait_readable(receive_fd)
                except trio.ClosedResourceError:
                    if self._timed_out:
                        raise _Overran from None
                    raise await self._gone(name, args, writing=False) from None
                woke = io_clock.woke_at
                waited = woke - io_clock.wait_began
                hearing = (io_clock.deaf, waited, max(0.0, waited - io_clock.timeout))
                continue
            except OSError:
                data = b""
            received = clock()
            if self.sent_at < woke < received:
                received = woke
            woke = 0.0
            if not data:
                raise await self._gone(name, args, writing=False)
            if self._log is not None:
                self._log_received(data)
            reader.feed(data)
            response = reader.next_response()
            if response is not None:
                self.received_at = received
                self.hearing = hearing
                return response

    async def _send_rest(
        self, send_fd: int, line: bytes, sent: int, name: str, args: tuple[str, ...]
    ) -> None:
        """The rest of a command line that did not fit in the pipe at once."""
        while sent < len(line):
            if self._timed_out:
                raise _Overran
            try:
                await trio.lowlevel.wait_writable(send_fd)
            except trio.ClosedResourceError:
                if self._timed_out:
                    raise _Overran from None
                raise await self._gone(name, args, writing=True) from None
            try:
                sent += os.write(send_fd, line[sent:])
            except BlockingIOError:
                pass
            except OSError:
                raise await self._gone(name, args, writing=True) from None

    def _check_id(
        self, response: Response, command_id: int, name: str, args: tuple[str, ...]
    ) -> None:
        if response.id is None:
            if self.strict_ids:
                raise ProtocolError(
                    f"response to {_describe(name, args)!r} has no id (expected {command_id})",
                    engine=self.name,
                )
            return
        raise ProtocolError(
            f"response id {response.id} does not match command id {command_id}"
            f" ({_describe(name, args)!r})",
            engine=self.name,
        )

    async def _gone(self, name: str, args: tuple[str, ...], *, writing: bool) -> EngineGone:
        during = f"while running {_describe(name, args)!r}"
        if self._reader.pending:
            during += " (in the middle of its response)"
        process = self.process
        if process is None:
            what = "stopped reading" if writing else "closed the connection"
            return EngineGone(f"{what} {during}", engine=self.name)
        with trio.CancelScope(shield=True):
            status = await process.wait_for_exit(EXIT_STATUS_WAIT)
        if status is None:
            what = "stopped reading its input" if writing else "closed its output"
            return EngineGone(f"{what} {during}", engine=self.name)
        return EngineGone(
            f"{status.description} {during}", engine=self.name, returncode=status.exitcode
        )

    def _unusable_error(self) -> EngineGone:
        if self._broken is not None:
            cause = self._broken
            returncode = cause.returncode if isinstance(cause, EngineGone) else None
            return EngineGone(
                f"unusable after an earlier error: {cause.message}",
                engine=self.name,
                returncode=returncode,
            )
        return EngineGone("connection already closed", engine=self.name)

    def _log_received(self, data: bytes) -> None:
        log = self._log
        assert log is not None
        lines = (self._log_partial + data).split(b"\n")
        partial = lines.pop()
        if len(partial) > _LOG_PARTIAL_LIMIT:
            lines.append(partial)
            partial = b""
        self._log_partial = partial
        for raw in lines:
            if raw.strip():
                log("<< " + raw.decode("utf-8", "replace").rstrip("\r"))

    # -- conveniences ----------------------------------------------------------

    async def known_command(self, command_name: str, *, timeout: float | None = None) -> bool:
        """True only when the engine answers exactly ``true``."""
        try:
            return await self.command("known_command", command_name, timeout=timeout) == "true"
        except CommandFailed:
            return False

    async def list_commands(self, *, timeout: float | None = None) -> list[str]:
        text = await self.command("list_commands", timeout=timeout)
        return [line.strip() for line in text.split("\n") if line.strip()]

    async def check_startup(
        self,
        timeout: float = 10.0,
        *,
        board_size: int | None = None,
        komi: float | None = None,
    ) -> EngineInfo:
        """Check that the engine speaks GTP v2; all of it within ``timeout`` s.

        Sends ``protocol_version`` (``2`` and ``2.0`` accepted, a failure
        response tolerated), ``name`` and ``version``; with ``board_size`` also
        ``boardsize`` and ``clear_board``, with ``komi`` also ``komi``.  Any
        fault is raised as EngineStartError (the cause chained).
        """
        deadline = trio.current_time() + timeout

        def left() -> float:
            return max(0.0, deadline - trio.current_time())

        try:
            try:
                protocol_version: str | None = await self.command(
                    "protocol_version", timeout=left()
                )
            except CommandFailed:
                protocol_version = None
            if protocol_version is not None and protocol_version not in ("2", "2.0"):
                raise EngineStartError(
                    f"doesn't speak GTP version 2: protocol_version answered {protocol_version!r}",
                    engine=self.name,
                )
            engine_name = await self._answer_or_empty("name", left())
            version = await self._answer_or_empty("version", left())
            if board_size is not None:
                await self.command("boardsize", str(board_size), timeout=left())
                await self.command("clear_board", timeout=left())
            if komi is not None:
                await self.command("komi", repr(float(komi)), timeout=left())
        except (CommandFailed, EngineTimeout, EngineGone, ProtocolError) as exc:
            message = f"failed the startup check: {exc.message}"
            raise EngineStartError(message, engine=self.name) from exc
        return EngineInfo(engine_name, version, protocol_version)

    async def _answer_or_empty(self, command_name: str, timeout: float) -> str:
        try:
            return await self.command(command_name, timeout=timeout)
        except CommandFailed:
            return ""

    async def aclose(self, quit_timeout: float = 5.0) -> bool:
        """Send ``quit`` (if the channel is healthy) and close both streams.

        Returns True when the engine acknowledged ``quit``.  Shielded from
        cancellation and bounded by ``quit_timeout``.
        """
        acknowledged = False
        with trio.CancelScope(shield=True):
            acknowledged = await self._quit_and_close(quit_timeout)
        return acknowledged

    async def _quit_and_close(self, quit_timeout: float) -> bool:
        # aclose() without its shield, for close_engine (shielded already).
        acknowledged = False
        if self.usable and not self._busy:
            try:
                await self.command("quit", timeout=quit_timeout)
                acknowledged = True
            except GtpError:
                pass
        self._closed = True
        self.stop_watchdog()
        for stream in (self._send, self._receive):
            with suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                if isinstance(stream, trio.lowlevel.FdStream):
                    stream.close()  # aclose() would add a checkpoint (a scheduler pass)
                else:
                    await stream.aclose()
        return acknowledged

    async def close_engine(self) -> ExitStatus | None:
        """Stop the engine of a client from :func:`start_engine` or :func:`open_engine`.

        ``quit`` if the channel is healthy (``timings.quit_timeout``), then the
        process shutdown path (exit grace only after an acknowledged quit ->
        SIGTERM to the group -> grace -> SIGKILL -> reap), then every pipe
        closed.  Shielded and bounded; safe to call more than once, from
        several tasks.  Returns the exit status (None if unknown).
        """
        process = self.process
        with trio.CancelScope(shield=True):
            if self._engine_closed is not None:
                await self._engine_closed.wait()
            else:
                self._engine_closed = done = trio.Event()
                try:
                    timings = process.timings if process is not None else DEFAULT_TIMINGS
                    acknowledged = await self._quit_and_close(timings.quit_timeout)
                    if process is not None:
                        # The unshielded form: this scope shields it already.
                        await process._aclose(timings.exit_grace if acknowledged else 0.0)
                finally:
                    self.stop_watchdog()
                    done.set()
        return None if process is None else process.exit_status


def _describe(name: str, args: tuple[str, ...]) -> str:
    return " ".join((name, *args)) if args else name
