"""The controller side of GTP: an async client over any pair of trio streams.

Moves the bytes of one engine's conversation: one exchange at a time (a
command, or a pipelined batch of them in one write: :meth:`GtpClient.commands`),
each with its own deadline (the write included), the result returned or the
failure raised as a typed :mod:`gtp.errors` exception naming the engine.  The
conversation's state (ids, the answers owed, the echoed id checked, output
that came early, broken or not) is a sans-I/O :class:`gtp.connection.Connection`.
A client that hit a timeout, a protocol error or the end of the engine's
output is unusable from then on: the channel cannot be trusted and the engine
is killed when the client is closed.

Starting an engine process and attaching a client to it is
:mod:`gtp.launch`'s job; :meth:`GtpClient.close_engine` stops it (``quit``,
then the bounded shutdown path of ``gtp.process``) and
:meth:`GtpClient.check_startup` verifies that a program speaks GTP.
Byte-level parsing is ``gtp.protocol``'s job, the session's rules ``gtp.connection``'s.

Pipes get a lean path (plain non-blocking ``os.write``/``os.read``, and a
watchdog task instead of a cancel scope per command, see
:meth:`GtpClient.run_watchdog`); other streams use ``send_all``/``receive_some``
under ``trio.move_on_after``.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import Final, NoReturn, Protocol

import attrs
import trio

from gtp.connection import Connection, describe
from gtp.errors import (
    CommandFailed,
    EngineFault,
    EngineGone,
    EngineStartError,
    EngineTimeout,
    GtpError,
)
from gtp.process import (
    DEFAULT_TIMINGS,
    EngineProcess,
    ExitStatus,
)
from gtp.protocol import MAX_RESPONSE_BYTES, MAX_RESPONSE_LINE_BYTES, Response

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
        # Installed from a running task: as if the loop had just woken (the
        # first wait's ``deaf`` then counts from here, not from time zero).
        now = time.perf_counter()
        self.woke_at = now
        self.wait_began = now
        self.deaf = 0.0
        self.timeout = 0.0
        self.users = 0  # clients that read it and are not closed yet

    def before_io_wait(self, timeout: float) -> None:
        now = time.perf_counter()
        self.deaf = now - self.woke_at
        self.wait_began = now
        self.timeout = timeout

    def after_io_wait(self, timeout: float) -> None:
        self.woke_at = time.perf_counter()


_IO_CLOCKS: trio.lowlevel.RunVar[_IoClock | None] = trio.lowlevel.RunVar(
    "gtp_io_clock", default=None
)


def _io_clock() -> _IoClock:
    """This trio run's I/O clock, for one more client (installed on first use).

    The client gives it back with :func:`_release_io_clock` when it is
    closed; the instrument leaves the run with the last one, so a library
    caller's run is left as it was found.
    """
    clock = _IO_CLOCKS.get()
    if clock is None:
        clock = _IoClock()
        trio.lowlevel.add_instrument(clock)
        _IO_CLOCKS.set(clock)
    clock.users += 1
    return clock


def _release_io_clock(clock: _IoClock) -> None:
    clock.users -= 1
    if clock.users > 0:
        return
    # KeyError: removed already; RuntimeError: outside the run it was installed in.
    with suppress(KeyError, RuntimeError):
        trio.lowlevel.remove_instrument(clock)
        if _IO_CLOCKS.get() is clock:
            _IO_CLOCKS.set(None)


@attrs.frozen
class EngineInfo:
    """What an engine says about itself at the startup check."""

    name: str
    version: str
    protocol_version: str | None  # None when the engine failed the command


Answer = str | CommandFailed | EngineFault
"""One command's outcome in :meth:`GtpClient.commands`: its result text, or its
``?`` answer, or (only after a command of the batch was refused) the fault
that cut the batch short."""


# on_setattr=NO_OP: the converter on ``_log`` would otherwise make attrs
# generate a __setattr__ that runs converters and validators on every
# assignment, and a command assigns the client's state about six times.
@attrs.define(eq=False, on_setattr=attrs.setters.NO_OP)
class GtpClient:
    """Sends GTP commands to one engine and reads its responses.

    ``receive``/``send`` are any trio streams (the process's stdout/stdin, or an
    in-memory pair in tests).  ``process`` is only used to report the exit
    status when the engine goes away.  The conversation's state (ids, owed
    answers, broken or not) is a sans-I/O :class:`~gtp.connection.Connection`;
    this class moves the bytes.  ``timed=False``: no clock is read per
    command (``sent_at``, ``written_at``, ``received_at`` and ``hearing``
    stay as they are), for callers that charge no clock.  ``hears=False``
    (or :meth:`hear`): a timed client over pipes leaves the run loop's I/O
    clock alone (an instrument: a cost on every pass of the loop), so its
    ``received_at`` is when the answer was read and ``hearing`` stays at
    zeros; what a caller wants whose clock charges nothing.
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
    timed: bool = attrs.field(default=True, kw_only=True)
    # Read the run loop's I/O clock (see _IoClock and hear()).
    hears: bool = attrs.field(default=True, kw_only=True)
    _connection: Connection = attrs.field(init=False)
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
    # This trio run's _IoClock, looked up on the first exchange over pipes.
    _io: _IoClock | None = attrs.field(init=False, default=None)
    # A batch's limits, one per answer (commands(limits=...); None: one timeout
    # for the whole batch), and the cancel scope that enforces its time limit
    # where no watchdog runs.
    _limits: Sequence[float | None] | None = attrs.field(init=False, default=None)
    _batch_scope: trio.CancelScope | None = attrs.field(init=False, default=None)
    # time.perf_counter just before the last command line was written, and
    # when the arena learned its response's last part was there (the read
    # that completed it, or on the pipe path, when the run loop's wait for
    # I/O that woke the reader returned: see _IoClock): what a clock charges.
    # (Taken before the write: a writer preempted by the engine it woke would
    # otherwise start the clock after the engine had answered.)  For a batch
    # (commands()): before its one write, and when the last command's
    # answer was there.
    sent_at: float = attrs.field(init=False, default=0.0)
    received_at: float = attrs.field(init=False, default=0.0)
    # When the last command line (a batch: all of it) was written: a writer
    # preempted between sent_at and the write held the command back from
    # the engine.
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

    @_connection.default
    def _make_connection(self) -> Connection:
        return Connection(
            self.name,
            strict_ids=self.strict_ids,
            max_line_bytes=self.max_line_bytes,
            max_response_bytes=self.max_response_bytes,
        )

    def hear(self, on: bool) -> None:
        """Whether to read the run loop's I/O clock from now on (see ``hears``).

        Off, the client lets go of the clock (it leaves the run with its last
        user); on, the clock is installed at once (from a running task), so
        that the next wait for I/O is measured whole.
        """
        self.hears = on
        if not on:
            io_clock, self._io = self._io, None
            if io_clock is not None:
                _release_io_clock(io_clock)
        elif self._io is None and self.timed and self._fd_streams:
            self._io = _io_clock()

    @property
    def connection(self) -> Connection:
        """The conversation's state (read it; the client alone sends and receives)."""
        return self._connection

    @property
    def usable(self) -> bool:
        """False after a timeout, protocol error or EOF, and once closed."""
        return self._connection.usable

    @property
    def broken_by(self) -> GtpError | None:
        """The error that made the client unusable, if any."""
        return self._connection.broken_by

    async def command(self, name: str, *args: str, timeout: float | None = None) -> str:
        """Run one command and return its result text.

        Raises CommandFailed (``?`` answer; the client stays usable),
        EngineTimeout, EngineGone or ProtocolError (the client is unusable
        afterwards), ValueError for an argument GTP cannot carry.
        """
        connection = self._connection
        if connection.busy:
            await self._refuse_busy(name, args)
        # Raises for an unusable client, a word GTP cannot carry, and output
        # that came before this command (the connection is broken then).
        line = connection.send(name, args)
        if timeout is None:
            timeout = self.default_timeout
        if self._log is not None:
            self._log(">> " + line[:-1].decode())
        # The exchange is awaited straight from here (no wrapper coroutine):
        # every layer of coroutines costs again on each resumption.
        exchange = self._exchange_fds if self._fd_streams else self._exchange_streams
        response: Response | None = None
        try:
            if timeout is None:
                response = await exchange(line, [])
            elif self._watchdog_scope is not None and self._fd_streams:
                # Under the watchdog (see run_watchdog): record the deadline only
                # (_arm_watchdog, inlined: this is the hot path).
                deadline = self._now() + timeout
                self._deadline = deadline
                self._timed_out = False
                if deadline < self._watchdog_deadline:
                    # Wake the watchdog earlier than planned.
                    self._watchdog_scope.deadline = self._watchdog_deadline = deadline
                try:
                    response = await exchange(line, [])
                except _Overran:
                    pass  # response stays None: a timeout
                finally:
                    self._deadline = math.inf
            else:
                with trio.move_on_after(timeout):
                    response = await exchange(line, [])
            if response is None:
                assert timeout is not None
                raise EngineTimeout(describe(name, args), timeout, engine=self.name)
        except EngineFault as exc:
            connection.fail(exc)
            raise
        except BaseException:
            self._interrupted()
            raise
        if not response.ok:
            raise CommandFailed(describe(name, args), response.text, engine=self.name)
        return response.text

    async def commands(
        self,
        *commands: Sequence[str],
        timeout: float | None = None,
        limits: Sequence[float | None] | None = None,
    ) -> list[Answer]:
        """Run several commands in one write (pipelined); one answer for each, in order.

        Each command is its words: the name, then the arguments, as in
        ``commands(("play", "b", "D4"), ("genmove", "w"))``.  All lines go
        out in one write and the answers are read with as few waits as the
        engine allows; ``timeout`` bounds the whole batch.  Each answer is
        the result text, or the CommandFailed of a ``?`` answer (returned,
        not raised: a refused command does not stop the engine from
        answering the ones after it, and their answers are still read, so
        the channel stays in step).

        A fault (EngineTimeout, EngineGone, ProtocolError) raises, as in
        :meth:`command`, and the client is unusable afterwards; except after
        a refusal: then the refusal is what decides the caller's next step,
        and the fault takes the place of every answer it cut off (the client
        is unusable all the same).  ValueError for a word GTP cannot carry
        (nothing is sent).

        The timing attributes describe the batch: ``sent_at`` and
        ``written_at`` its one write, ``received_at`` and ``hearing`` the
        last command's answer.  A clock charging the last command (a
        ``genmove`` after its opponent's ``play``) charges from the write.

        ``limits`` (one for each command, in place of ``timeout``) gives each
        answer its own time limit, counted from the answer before it (the
        first from the write), as if the commands had been sent one at a
        time; None: no limit for that answer.  So ``play`` keeps its command
        timeout when the ``genmove`` after it has none.
        """
        connection = self._connection
        if connection.busy and commands:
            await self._refuse_busy(commands[0][0], tuple(commands[0][1:]))
        if limits is not None:
            if len(limits) != len(commands):
                raise ValueError(f"{len(limits)} limits for {len(commands)} commands")
            if timeout is not None:
                raise ValueError("give either timeout or limits, not both")
        line = connection.send_many(commands)
        if not line:
            return []
        if limits is None:
            first = self.default_timeout if timeout is None else timeout  # for the whole batch
        elif limits.count(None) != len(limits):
            first = limits[0]  # re-armed as each answer comes (_answered)
        else:
            first, limits = None, None
        if self._log is not None:
            for one in line[:-1].decode().split("\n"):
                self._log(">> " + one)
        exchange = self._exchange_fds if self._fd_streams else self._exchange_streams
        answers: list[Response] = []
        response: Response | None = None
        self._limits = limits
        try:
            if first is None and limits is None:
                response = await exchange(line, answers)
            elif self._watchdog_scope is not None and self._fd_streams:
                self._arm_limit(first)
                try:
                    response = await exchange(line, answers)
                except _Overran:
                    pass
                finally:
                    self._deadline = math.inf
            else:
                with trio.CancelScope() as scope:
                    self._batch_scope = scope
                    self._arm_limit(first)
                    response = await exchange(line, answers)
            if response is None:
                owed = connection.waiting_for
                limit = first if limits is None else limits[len(answers)]
                assert owed is not None and limit is not None
                raise EngineTimeout(describe(owed.name, owed.args), limit, engine=self.name)
        except EngineFault as exc:
            connection.fail(exc)
            if all(answer.ok for answer in answers):
                raise
            results = self._answers(commands, answers)
            results += [exc] * (len(commands) - len(answers))
            return results
        except BaseException:
            self._interrupted()
            raise
        finally:
            self._limits = None
            self._batch_scope = None
        return self._answers(commands, answers)

    def _arm_limit(self, limit: float | None) -> None:
        """The time limit of the answer owed next in a batch (None: none)."""
        scope = self._batch_scope
        if scope is not None:
            scope.deadline = math.inf if limit is None else trio.current_time() + limit
        elif limit is None:
            self._deadline = math.inf
        else:
            self._arm_watchdog(limit)

    def _answers(
        self, commands: tuple[Sequence[str], ...], answers: list[Response]
    ) -> list[Answer]:
        results: list[Answer] = []
        for words, answer in zip(commands, answers, strict=False):
            if answer.ok:
                results.append(answer.text)
            else:
                command = describe(words[0], tuple(words[1:]))
                results.append(CommandFailed(command, answer.text, engine=self.name))
        return results

    async def _refuse_busy(self, name: str, args: Sequence[str]) -> NoReturn:
        """A command while another one's answer is owed."""
        if self._engine_closed is not None:
            # close_engine's quit is in progress: the supervisor stopping the
            # engine because everything is being cancelled (a stop at once), and
            # this task not at a checkpoint yet.  Let the cancellation through.
            await trio.lowlevel.checkpoint_if_cancelled()
            raise EngineGone(
                f"closed while {describe(name, args)!r} was to be sent", engine=self.name
            )
        raise trio.BusyResourceError(f"engine {self.name!r}: another command is in progress")

    def _arm_watchdog(self, timeout: float) -> None:
        """Under the watchdog (see run_watchdog): record the deadline only."""
        deadline = self._now() + timeout
        self._deadline = deadline
        self._timed_out = False
        if deadline < self._watchdog_deadline:
            # Wake the watchdog earlier than planned.
            assert self._watchdog_scope is not None
            self._watchdog_scope.deadline = self._watchdog_deadline = deadline

    def _interrupted(self) -> None:
        """Cancelled or interrupted mid-command: the channel is out of step."""
        connection = self._connection
        owed = connection.waiting_for
        if owed is not None:
            during = describe(owed.name, owed.args)
            connection.fail(EngineGone(f"interrupted while running {during!r}", engine=self.name))

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
        connection = self._connection
        try:
            while not self._watchdog_stopped:
                deadline = self._deadline
                if connection.busy and deadline <= self._now():
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

    def _answered(self, count: int) -> None:
        """``count`` answers of a batch with a limit for each came: arm the next one's."""
        assert self._limits is not None
        self._arm_limit(self._limits[count])

    async def _exchange_streams(self, line: bytes, answers: list[Response]) -> Response:
        """The general path, for any trio streams; the (last) answer.

        Every answer goes to ``answers`` as it comes (see :meth:`_answered`).
        """
        timed = self.timed
        if timed:
            self.sent_at = time.perf_counter()
        try:
            await self._send.send_all(line)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            raise await self._gone(writing=True) from None
        if timed:
            self.written_at = time.perf_counter()
        receive_some = self._receive.receive_some
        connection = self._connection
        while True:
            try:
                data: bytes | bytearray = await receive_some(RECEIVE_CHUNK)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                data = b""
            if not data:
                raise await self._gone(writing=False)
            received = time.perf_counter() if timed else 0.0
            if type(data) is not bytes:
                data = bytes(data)
            if self._log is not None:
                self._log_received(data)
            had = len(answers)
            if connection.receive_all(data, answers):
                if timed:
                    self.received_at = received
                    self.hearing = _HEARD_AT_ONCE
                return answers[-1]
            if len(answers) > had and self._limits is not None:
                self._answered(len(answers))

    async def _exchange_fds(self, line: bytes, answers: list[Response]) -> Response:
        """The fast path for pipes: plain non-blocking os.write/os.read; the (last) answer.

        Every answer goes to ``answers`` as it comes (see :meth:`_answered`).

        FdStream's send_all and receive_some each add a scheduler round trip
        (a checkpoint) on top of the one spent waiting for the answer; this
        path yields only while it has to wait, and checks for cancellation
        on entry.  The client's busy check replaces the streams' conflict
        detectors.
        """
        await trio.lowlevel.checkpoint_if_cancelled()
        send, receive = self._send, self._receive
        assert isinstance(send, trio.lowlevel.FdStream)
        assert isinstance(receive, trio.lowlevel.FdStream)
        send_fd = send.fileno()  # -1 once closed: os.write then fails with EBADF
        timed = self.timed
        clock = time.perf_counter
        if timed:
            self.sent_at = clock()
        try:
            sent = os.write(send_fd, line)
        except BlockingIOError:
            sent = 0  # the pipe is full
        except OSError:
            raise await self._gone(writing=True) from None
        if sent < len(line):
            await self._send_rest(send_fd, line, sent)
        if timed:
            self.written_at = clock()
        receive_fd = receive.fileno()
        connection = self._connection
        read = os.read
        wait_readable = trio.lowlevel.wait_readable
        io_clock = self._io
        if io_clock is None and timed and self.hears:
            io_clock = self._io = _io_clock()
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
                    raise await self._gone(writing=False) from None
                if io_clock is not None:
                    woke = io_clock.woke_at
                    waited = woke - io_clock.wait_began
                    hearing = (io_clock.deaf, waited, max(0.0, waited - io_clock.timeout))
                continue
            except OSError:
                data = b""
            if not data:
                raise await self._gone(writing=False)
            if timed:
                received = clock()
                if self.sent_at < woke < received:
                    received = woke
                woke = 0.0
            if self._log is not None:
                self._log_received(data)
            had = len(answers)
            if connection.receive_all(data, answers):
                if timed:
                    self.received_at = received
                    self.hearing = hearing
                return answers[-1]
            if len(answers) > had and self._limits is not None:
                self._answered(len(answers))

    async def _send_rest(self, send_fd: int, line: bytes, sent: int) -> None:
        """The rest of a command line that did not fit in the pipe at once."""
        while sent < len(line):
            if self._timed_out:
                raise _Overran
            try:
                await trio.lowlevel.wait_writable(send_fd)
            except trio.ClosedResourceError:
                if self._timed_out:
                    raise _Overran from None
                raise await self._gone(writing=True) from None
            try:
                sent += os.write(send_fd, line[sent:])
            except BlockingIOError:
                pass
            except OSError:
                raise await self._gone(writing=True) from None

    async def _gone(self, *, writing: bool) -> EngineGone:
        connection = self._connection
        owed = connection.waiting_for
        command = "" if owed is None else describe(owed.name, owed.args)
        during = f"while running {command!r}"
        if connection.pending:
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
        except (CommandFailed, EngineFault) as exc:
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
        if self.usable and not self._connection.busy:
            try:
                await self.command("quit", timeout=quit_timeout)
                acknowledged = True
            except GtpError:
                pass
        self._connection.close()
        self.stop_watchdog()
        io_clock, self._io = self._io, None
        if io_clock is not None:
            _release_io_clock(io_clock)
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
