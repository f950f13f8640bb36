"""Engine subprocess supervision: start, watch, drain stderr, and always stop.

Owns the life of one engine process and its process group:

* start from an argv list or a shell-like string (``shlex`` rules, ``~``
  expanded), with a working directory and extra environment variables, in a
  new session so that the engine and everything it spawns share one process
  group whose id is the engine's pid (the spawn itself: :mod:`gtp.spawn`);
* a supervisor task that notices the exit of the group leader (via a pidfd, or
  a ``waitid(WNOWAIT)`` thread where pidfds are missing), kills whatever is
  left in the group while the leader is still an unreaped zombie (so the group
  id cannot have been reused), then reaps it with ``wait4`` to get the exit
  status and the CPU time; if its nursery is cancelled first, it runs the
  shutdown path itself, so that no engine outlives its nursery;
* a stderr pump that keeps the last N bytes and/or hands lines to a callback,
  so a chatty engine can never block on a full pipe;
* the bounded shutdown path: wait for exit -> SIGTERM to the group -> wait ->
  SIGKILL to the group -> reap, shielded from cancellation.

:func:`open_process` is the context manager; :func:`start_process` starts an
engine whose tasks live in a nursery the caller owns (no task or nursery of
its own: cheaper when engines come and go every few milliseconds), to be
stopped with :meth:`EngineProcess.aclose`.

The GTP conversation itself (``quit`` first) belongs to ``gtp.client``.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Final, TypedDict, Unpack

import attrs
import trio

from gtp.spawn import StderrMode as StderrMode  # re-exported: part of this API
from gtp.spawn import spawn_child, split_command

DEFAULT_STDERR_TAIL_BYTES: Final = 64 * 1024
_STDERR_CHUNK: Final = 64 * 1024
_STDERR_DRAIN_WAIT: Final = 0.5  # after the group is gone, time to collect the last stderr

StderrLineCallback = Callable[[str], None]
ReapedCallback = Callable[[], None]
"""Called once, synchronously, right after the engine's leader has been reaped."""
CloseHook = Callable[[], Awaitable[object]]


@attrs.frozen
class ShutdownTimings:
    """How long each step of the shutdown path may take, in seconds."""

    quit_timeout: float = 5.0  # the client's wait for the answer to ``quit``
    exit_grace: float = 5.0  # wait for a voluntary exit after ``quit`` was answered
    term_grace: float = 5.0  # wait after SIGTERM before SIGKILL
    kill_wait: float = 5.0  # wait after SIGKILL for the kernel to finish the job


DEFAULT_TIMINGS: Final = ShutdownTimings()


@attrs.frozen(kw_only=True)
class ProcessOptions:
    """How to start an engine process, as one value (see :func:`open_process`).

    ``gtp.launch``'s :class:`~gtp.launch.EngineOptions` adds the client's
    options to these.  The functions that take ``options`` also take any of
    its fields as keywords, which override the value's.
    """

    cwd: str | os.PathLike[str] | None = None
    env: Mapping[str, str] | None = None  # added to this process's environment
    stderr: StderrMode = "keep"
    on_stderr_line: StderrLineCallback | None = None
    stderr_tail_bytes: int = DEFAULT_STDERR_TAIL_BYTES
    timings: ShutdownTimings = DEFAULT_TIMINGS


DEFAULT_PROCESS_OPTIONS: Final = ProcessOptions()


class ProcessOverrides(TypedDict, total=False):
    """:class:`ProcessOptions`' fields, as keyword arguments."""

    cwd: str | os.PathLike[str] | None
    env: Mapping[str, str] | None
    stderr: StderrMode
    on_stderr_line: StderrLineCallback | None
    stderr_tail_bytes: int
    timings: ShutdownTimings


@attrs.frozen
class ExitStatus:
    """How the engine process ended, as reported by ``wait4``."""

    returncode: int | None  # exit code for a normal exit
    signal: int | None  # signal number when killed by a signal
    cpu_time: float | None = None  # user + system seconds of the reaped child
    core_dumped: bool = False

    @classmethod
    def from_wait_status(cls, status: int, cpu_time: float | None = None) -> ExitStatus:
        if os.WIFSIGNALED(status):
            return cls(None, os.WTERMSIG(status), cpu_time, os.WCOREDUMP(status))
        if os.WIFEXITED(status):
            return cls(os.WEXITSTATUS(status), None, cpu_time)
        return cls(None, None, cpu_time)

    @property
    def exitcode(self) -> int | None:
        """``subprocess`` style: the exit code, or minus the signal number."""
        if self.signal is not None:
            return -self.signal
        return self.returncode

    @property
    def description(self) -> str:
        """``exited with status 3`` / ``killed by signal SIGSEGV (core dumped)``."""
        if self.signal is not None:
            try:
                signame = signal.Signals(self.signal).name
            except ValueError:
                signame = str(self.signal)
            core = " (core dumped)" if self.core_dumped else ""
            return f"killed by signal {signame}{core}"
        if self.returncode is not None:
            return f"exited with status {self.returncode}"
        return "exited (status unknown)"


@attrs.define(eq=False)
class EngineProcess:
    """A running engine: its pipes, its group, its exit status once known.

    Create it with :func:`open_process` or :func:`start_process`; its
    supervisor and stderr tasks live in that context manager's (or the
    caller's) nursery.
    """

    name: str
    argv: tuple[str, ...]
    stdin: trio.lowlevel.FdStream
    stdout: trio.lowlevel.FdStream
    timings: ShutdownTimings
    _pid: int
    _popen: subprocess.Popen[bytes] | None  # only when started through subprocess
    _stderr: trio.lowlevel.FdStream | None
    _on_stderr_line: StderrLineCallback | None
    _stderr_tail_bytes: int
    _pidfd: int | None = None
    _on_reaped: ReapedCallback | None = None
    # What the supervisor runs, before aclose(), when its nursery is cancelled
    # before the engine was closed: gtp.client puts its close path (``quit``
    # first) here.
    close_on_cancel: CloseHook | None = attrs.field(default=None, kw_only=True)
    _status: ExitStatus | None = None
    _gave_up: bool = False  # the pidfd was closed without a reap (see _close_all)
    # One task at a time waits on the pidfd (trio allows one waiter per fd);
    # the others wait for this event, set when that waiter is done or leaves.
    _exit_waiter: bool = False
    _exit_changed: trio.Event = attrs.field(factory=trio.Event)
    _closing: bool = False
    _closed: trio.Event = attrs.field(factory=trio.Event)
    _stderr_done: trio.Event = attrs.field(factory=trio.Event)
    _stderr_tail: bytearray = attrs.field(factory=bytearray)
    _stderr_partial: bytearray = attrs.field(factory=bytearray)
    # Shielded: the shutdown path relies on the pump while the surrounding
    # scope is being cancelled.  _close_all cancels it when it is done.
    _pump_scope: trio.CancelScope = attrs.field(factory=lambda: trio.CancelScope(shield=True))

    @property
    def pid(self) -> int:
        return self._pid

    @property
    def pgid(self) -> int:
        """The engine's process group (it leads a new session, so it is its pid)."""
        return self._pid

    @property
    def exit_status(self) -> ExitStatus | None:
        """None while the process runs (or is not yet reaped)."""
        return self._status

    @property
    def stderr_tail(self) -> bytes:
        """The last bytes the engine wrote to stderr (empty unless stderr='keep')."""
        return bytes(self._stderr_tail)

    def stderr_text(self) -> str:
        return self._stderr_tail.decode("utf-8", "replace")

    def describe(self) -> str:
        """The command line, for messages."""
        return shlex.join(self.argv)

    async def wait(self) -> ExitStatus:
        """Wait until the engine has exited and been reaped."""
        await self._wait_exit()
        while self._status is None:  # only if even SIGKILL did not end it in time
            await self._exit_changed.wait()
        return self._status

    async def wait_for_exit(self, timeout: float) -> ExitStatus | None:
        """The exit status if the engine is gone within ``timeout`` s, else None."""
        if self._status is None:
            with trio.move_on_after(timeout):
                await self._wait_exit()
        return self._status

    def signal_group(self, signum: int) -> None:
        """Send a signal to every process in the engine's group.

        Only while the leader is unreaped: then its pid, and so the group id,
        cannot belong to anyone else.
        """
        if self._status is None:
            _killpg(self.pgid, signum)

    async def shutdown(
        self,
        *,
        exit_grace: float | None = None,
        term_grace: float | None = None,
        kill_wait: float | None = None,
    ) -> ExitStatus | None:
        """Stop the engine and its group for good; bounded and cancel-proof.

        Closes the engine's stdin, waits ``exit_grace`` for it to leave, then
        SIGTERM to the group, ``term_grace``, SIGKILL to the group and a last
        wait for the reap.  Returns the exit status (None only if even SIGKILL
        did not end it within ``kill_wait``).  Safe to call more than once.
        """
        with trio.CancelScope(shield=True):
            await self._shutdown(exit_grace, term_grace, kill_wait)
        return self._status

    async def _shutdown(
        self, exit_grace: float | None, term_grace: float | None, kill_wait: float | None
    ) -> ExitStatus | None:
        # Not shielded itself: for callers that are (a scope costs as much as
        # a good part of the rest, and engines stop every few milliseconds).
        timings = self.timings
        _close_quietly(self.stdin)
        if await self.wait_for_exit(_or(exit_grace, timings.exit_grace)) is not None:
            return self._status
        self.signal_group(signal.SIGTERM)
        if await self.wait_for_exit(_or(term_grace, timings.term_grace)) is not None:
            return self._status
        self.signal_group(signal.SIGKILL)
        await self.wait_for_exit(_or(kill_wait, timings.kill_wait))
        return self._status

    async def aclose(self, *, exit_grace: float | None = None) -> ExitStatus | None:
        """Everything :func:`open_process` does on leaving its block; bounded and cancel-proof.

        :meth:`shutdown` (unless the engine is gone already; ``exit_grace`` is
        passed on), a short wait for the last of its stderr, then every pipe
        closed and the supervisor and pump told to finish.  Safe to call more
        than once, from several tasks.
        """
        with trio.CancelScope(shield=True):
            await self._aclose(exit_grace)
        return self._status

    async def _aclose(self, exit_grace: float | None) -> ExitStatus | None:
        # aclose() without its shield, for gtp.client's close path (shielded already).
        if self._closing:
            await self._closed.wait()
            return self._status
        self._closing = True
        try:
            if self._status is None:
                await self._shutdown(exit_grace, None, None)
            if self._stderr is not None and not self._stderr_done.is_set():
                with trio.move_on_after(_STDERR_DRAIN_WAIT):
                    await self._stderr_done.wait()
        finally:
            self._close_all()
            self.signal_group(signal.SIGKILL)  # only if it somehow was not reaped
            self._closed.set()
        return self._status

    # -- tasks -------------------------------------------------------------

    def _start_tasks(self, nursery: trio.Nursery) -> None:
        """The supervisor and the stderr pump, in ``nursery``; kills the engine if that fails."""
        try:
            nursery.start_soon(self._supervise)
            if self._stderr is not None:
                nursery.start_soon(self._pump_stderr)
        except BaseException:
            self._abandon()
            raise

    async def _supervise(self) -> None:
        """Reap the leader when it exits; live until the engine is closed.

        If the nursery is cancelled before that, this task closes the engine
        itself (with the owner's close path when one was registered).
        """
        try:
            await self._wait_exit()
            await self._closed.wait()
        except trio.Cancelled:
            with trio.CancelScope(shield=True):
                close = self.close_on_cancel
                if close is not None:
                    await close()
                await self._aclose(None)
            raise

    async def _wait_exit(self) -> None:
        """Until the leader has been reaped (or the pidfd was given up)."""
        while self._status is None and not self._gave_up:
            if self._exit_waiter:
                await self._exit_changed.wait()
                continue
            self._exit_waiter = True
            try:
                if self._pidfd is not None:
                    try:
                        await trio.lowlevel.wait_readable(self._pidfd)
                    except trio.ClosedResourceError:
                        return  # _close_all gave up on this process
                else:
                    await trio.to_thread.run_sync(
                        _wait_without_reaping, self.pid, abandon_on_cancel=True
                    )
                self._reap()
            finally:
                self._exit_waiter = False
                changed, self._exit_changed = self._exit_changed, trio.Event()
                changed.set()

    def _reap(self) -> None:
        # The leader is a zombie now: clean out the rest of its group first.
        _killpg(self.pgid, signal.SIGKILL)
        try:
            _, wait_status, rusage = os.wait4(self.pid, 0)
        except ChildProcessError:
            status = ExitStatus(None, None)
            returncode = 0
        else:
            status = ExitStatus.from_wait_status(wait_status, rusage.ru_utime + rusage.ru_stime)
            returncode = os.waitstatus_to_exitcode(wait_status)
        if self._popen is not None:
            self._popen.returncode = returncode  # so that subprocess does not reap it again
        if self._pidfd is not None:
            trio.lowlevel.notify_closing(self._pidfd)  # trio forgets its registration
            os.close(self._pidfd)
            self._pidfd = None
        self._status = status
        if self._on_reaped is not None:
            self._on_reaped()

    def _abandon(self) -> None:
        """Kill and reap at once, without trio: the engine could not be supervised."""
        _killpg(self.pgid, signal.SIGKILL)
        with suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        if self._popen is not None:
            self._popen.returncode = -signal.SIGKILL
        self._status = ExitStatus(None, signal.SIGKILL)
        self._closing = True
        self._close_all()
        self._closed.set()

    async def _pump_stderr(self) -> None:
        stream = self._stderr
        assert stream is not None
        with self._pump_scope:
            try:
                while True:
                    try:
                        data = await stream.receive_some(_STDERR_CHUNK)
                    except (trio.BrokenResourceError, trio.ClosedResourceError):
                        break
                    if not data:
                        break
                    self._keep_stderr(data)
            finally:
                self._flush_partial_line()
                self._stderr_done.set()

    def _keep_stderr(self, data: bytes) -> None:
        cap = self._stderr_tail_bytes
        if cap > 0:
            tail = self._stderr_tail
            if len(data) >= cap:
                tail[:] = data[-cap:]
            else:
                tail += data
                if len(tail) > cap:
                    del tail[: len(tail) - cap]
        callback = self._on_stderr_line
        if callback is None:
            return
        partial = self._stderr_partial
        partial += data
        start = 0
        while True:
            newline = partial.find(b"\n", start)
            if newline < 0:
                break
            callback(_decode_line(partial[start:newline]))
            start = newline + 1
        del partial[:start]
        # A line without an end must not grow without bound.
        limit = max(cap, DEFAULT_STDERR_TAIL_BYTES)
        if len(partial) > limit:
            callback(_decode_line(partial[:limit]))
            del partial[:limit]

    def _flush_partial_line(self) -> None:
        if self._on_stderr_line is not None and self._stderr_partial:
            self._on_stderr_line(_decode_line(self._stderr_partial))
            self._stderr_partial.clear()

    def _close_all(self) -> None:
        self._pump_scope.cancel()
        _close_quietly(self.stdin)
        _close_quietly(self.stdout)
        if self._stderr is not None:
            _close_quietly(self._stderr)
        if self._pidfd is not None:
            # Only if even SIGKILL did not end it in time: give up on the reap.
            self._gave_up = True
            trio.lowlevel.notify_closing(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None


@asynccontextmanager
async def open_process(
    command: str | Sequence[str | os.PathLike[str]],
    *,
    name: str,
    options: ProcessOptions = DEFAULT_PROCESS_OPTIONS,
    **overrides: Unpack[ProcessOverrides],
) -> AsyncIterator[EngineProcess]:
    """Start an engine in its own process group; stop it (and the group) on exit.

    ``options`` (and any of its fields given as keywords): working directory,
    extra environment, stderr handling, shutdown timings.  Raises
    :class:`EngineStartError` when the program cannot be run.  On leaving
    the block, even by cancellation, :meth:`EngineProcess.shutdown` runs with
    the timings; after it nothing of the group is left and the leader is reaped.
    """
    if overrides:
        options = attrs.evolve(options, **overrides)
    argv = split_command(command)
    proc = _spawn(argv, None, name=name, options=options)
    body_error: BaseException | None = None
    try:
        async with trio.open_nursery() as nursery:
            # start_soon, not start: no checkpoint before the try below, so a
            # cancellation cannot slip in between spawning and supervising.
            proc._start_tasks(nursery)
            try:
                yield proc
            except BaseException as exc:
                # Re-raised below, outside the nursery, so callers see the
                # exception itself rather than an ExceptionGroup around it.
                body_error = exc
            finally:
                await proc.aclose()
    finally:
        if not proc._closed.is_set():  # only if the nursery itself failed
            proc._close_all()
            proc.signal_group(signal.SIGKILL)
    if body_error is not None:
        raise body_error


def start_process(
    nursery: trio.Nursery,
    command: str | Sequence[str | os.PathLike[str]],
    *,
    name: str,
    options: ProcessOptions = DEFAULT_PROCESS_OPTIONS,
    on_reaped: ReapedCallback | None = None,
    child: SpawnedChild | None = None,
    **overrides: Unpack[ProcessOverrides],
) -> EngineProcess:
    """Start an engine whose supervisor and stderr pump run in ``nursery``.

    The same engine as :func:`open_process` gives, with the same options
    and guarantees, but with no block around it: stop it with
    :meth:`EngineProcess.aclose`.  If ``nursery`` is cancelled first, the
    supervisor stops the engine itself; either way the nursery's tasks for
    it end once it is closed.  Raises :class:`EngineStartError` when the
    program cannot be run (and RuntimeError, with nothing left running, when
    ``nursery`` is closed).  ``on_reaped`` is called right after the leader
    is reaped; ``child``: a child already spawned (:func:`spawn_off_the_loop`).
    """
    if overrides:
        options = attrs.evolve(options, **overrides)
    argv = split_command(command)
    proc = _spawn(argv, child, name=name, options=options, on_reaped=on_reaped)
    proc._start_tasks(nursery)
    return proc


SpawnedChild = tuple[int, subprocess.Popen[bytes] | None, int, int, int | None]
"""A started child: pid, the Popen if one was needed, the parent's stdin, stdout, stderr ends."""


async def spawn_off_the_loop(
    command: str | Sequence[str | os.PathLike[str]],
    *,
    name: str,
    options: ProcessOptions = DEFAULT_PROCESS_OPTIONS,
    **overrides: Unpack[ProcessOverrides],
) -> SpawnedChild:
    """Start a child in a worker thread, for :func:`start_process` (``child=``) to take over.

    ``posix_spawn`` suspends its caller until the child has called ``exec``,
    and on a machine whose cores are busy the child may wait tens of
    milliseconds for a CPU first: in the run loop's thread that would stall
    every game's clock.  Not cancellable once begun (the child would be
    orphaned): pass the result to ``start_process`` before the next checkpoint.
    Of the options, the spawn uses ``cwd``, ``env`` and ``stderr``.
    """
    if overrides:
        options = attrs.evolve(options, **overrides)
    argv = split_command(command)
    return await trio.to_thread.run_sync(
        spawn_child, argv, name, options.cwd, options.env, options.stderr
    )


def _spawn(
    argv: list[str],
    child: SpawnedChild | None,
    *,
    name: str,
    options: ProcessOptions,
    on_reaped: ReapedCallback | None = None,
) -> EngineProcess:
    if child is None:
        child = spawn_child(argv, name, options.cwd, options.env, options.stderr)
    pid, popen, stdin_w, stdout_r, stderr_r = child
    try:
        pidfd: int | None = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    return EngineProcess(
        name=name,
        argv=tuple(argv),
        stdin=trio.lowlevel.FdStream(stdin_w),
        stdout=trio.lowlevel.FdStream(stdout_r),
        timings=options.timings,
        pid=pid,
        popen=popen,
        stderr=trio.lowlevel.FdStream(stderr_r) if stderr_r is not None else None,
        on_stderr_line=options.on_stderr_line,
        stderr_tail_bytes=options.stderr_tail_bytes,
        pidfd=pidfd,
        on_reaped=on_reaped,
    )


def _wait_without_reaping(pid: int) -> None:
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)


def _decode_line(raw: bytes | bytearray) -> str:
    return raw.decode("utf-8", "replace").rstrip("\r")


def _close_quietly(stream: trio.lowlevel.FdStream) -> None:
    with suppress(OSError):
        stream.close()


def _killpg(pgid: int, signum: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def _or(value: float | None, default: float) -> float:
    return default if value is None else value
