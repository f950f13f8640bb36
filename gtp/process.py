"""Engine subprocess supervision: start, watch, drain stderr, and always stop.

Owns the life of one engine process and its process group:

* start from an argv list or a shell-like string (``shlex`` rules, ``~``
  expanded), with a working directory and extra environment variables, in a
  new session so that the engine and everything it spawns share one process
  group whose id is the engine's pid;
* a watcher task that notices the exit of the group leader (via a pidfd, or a
  ``waitid(WNOWAIT)`` thread where pidfds are missing), kills whatever is left
  in the group while the leader is still an unreaped zombie (so the group id
  cannot have been reused), then reaps it with ``wait4`` to get the exit status
  and the CPU time;
* a stderr pump that keeps the last N bytes and/or hands lines to a callback,
  so a chatty engine can never block on a full pipe;
* the bounded shutdown path: wait for exit -> SIGTERM to the group -> wait ->
  SIGKILL to the group -> reap, shielded from cancellation.

The GTP conversation itself (``quit`` first) belongs to ``gtp.client``.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Final, Literal

import attrs
import trio

from gtp.errors import EngineStartError

DEFAULT_STDERR_TAIL_BYTES: Final = 64 * 1024
_STDERR_CHUNK: Final = 64 * 1024
_STDERR_DRAIN_WAIT: Final = 0.5  # after the group is gone, time to collect the last stderr

StderrMode = Literal["keep", "discard", "inherit"]
"""``keep``: drained into a bounded tail (and the line callback, if any);
``discard``: sent to /dev/null; ``inherit``: our own stderr (debugging)."""

StderrLineCallback = Callable[[str], None]


@attrs.frozen
class ShutdownTimings:
    """How long each step of the shutdown path may take, in seconds."""

    quit_timeout: float = 5.0  # the client's wait for the answer to ``quit``
    exit_grace: float = 5.0  # wait for a voluntary exit after ``quit`` was answered
    term_grace: float = 5.0  # wait after SIGTERM before SIGKILL
    kill_wait: float = 5.0  # wait after SIGKILL for the kernel to finish the job


DEFAULT_TIMINGS: Final = ShutdownTimings()


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


def split_command(command: str | Sequence[str | os.PathLike[str]]) -> list[str]:
    """The argv for a command given as a list or as a shell-like string.

    In the string form, words are split with ``shlex`` rules and a word that
    starts with ``~`` is expanded as a shell would; a list is taken as is.
    """
    if isinstance(command, str):
        try:
            words = shlex.split(command)
        except ValueError as exc:
            raise EngineStartError(f"cannot parse command {command!r}: {exc}") from None
        argv = [os.path.expanduser(w) if w.startswith("~") else w for w in words]
    else:
        argv = [os.fspath(word) for word in command]
    if not argv or not argv[0]:
        raise EngineStartError(f"empty command {command!r}")
    return argv


@attrs.define(eq=False)
class EngineProcess:
    """A running engine: its pipes, its group, its exit status once known.

    Create it with :func:`open_process`; the watcher and stderr tasks live in
    that context manager's nursery.
    """

    name: str
    argv: tuple[str, ...]
    stdin: trio.lowlevel.FdStream
    stdout: trio.lowlevel.FdStream
    timings: ShutdownTimings
    _popen: subprocess.Popen[bytes]
    _stderr: trio.lowlevel.FdStream | None
    _on_stderr_line: StderrLineCallback | None
    _stderr_tail_bytes: int
    _pidfd: int | None = None
    _status: ExitStatus | None = None
    _exited: trio.Event = attrs.field(factory=trio.Event)
    _stderr_done: trio.Event = attrs.field(factory=trio.Event)
    _stderr_tail: bytearray = attrs.field(factory=bytearray)
    _stderr_partial: bytearray = attrs.field(factory=bytearray)
    # Shielded: the shutdown path relies on these tasks while the surrounding
    # scope is being cancelled.  open_process cancels them when it is done.
    _watch_scope: trio.CancelScope = attrs.field(factory=lambda: trio.CancelScope(shield=True))
    _pump_scope: trio.CancelScope = attrs.field(factory=lambda: trio.CancelScope(shield=True))

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def pgid(self) -> int:
        """The engine's process group (it leads a new session, so it is its pid)."""
        return self._popen.pid

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
        await self._exited.wait()
        assert self._status is not None
        return self._status

    async def wait_for_exit(self, timeout: float) -> ExitStatus | None:
        """The exit status if the engine is gone within ``timeout`` s, else None."""
        if self._status is None:
            with trio.move_on_after(timeout):
                await self._exited.wait()
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
        timings = self.timings
        with trio.CancelScope(shield=True):
            _close_quietly(self.stdin)
            if await self.wait_for_exit(_or(exit_grace, timings.exit_grace)) is not None:
                return self._status
            self.signal_group(signal.SIGTERM)
            if await self.wait_for_exit(_or(term_grace, timings.term_grace)) is not None:
                return self._status
            self.signal_group(signal.SIGKILL)
            await self.wait_for_exit(_or(kill_wait, timings.kill_wait))
        return self._status

    # -- tasks run by open_process ------------------------------------------

    async def _watch(self) -> None:
        with self._watch_scope:
            if self._pidfd is not None:
                try:
                    await trio.lowlevel.wait_readable(self._pidfd)
                except trio.ClosedResourceError:
                    return  # open_process gave up on this process
            else:
                await trio.to_thread.run_sync(
                    _wait_without_reaping, self.pid, abandon_on_cancel=True
                )
            self._reap()

    def _reap(self) -> None:
        # The leader is a zombie now: clean out the rest of its group first.
        _killpg(self.pgid, signal.SIGKILL)
        try:
            _, wait_status, rusage = os.wait4(self.pid, 0)
        except ChildProcessError:
            status = ExitStatus(None, None)
            self._popen.returncode = 0
        else:
            status = ExitStatus.from_wait_status(wait_status, rusage.ru_utime + rusage.ru_stime)
            self._popen.returncode = os.waitstatus_to_exitcode(wait_status)
        if self._pidfd is not None:
            trio.lowlevel.notify_closing(self._pidfd)  # trio forgets its registration
            os.close(self._pidfd)
            self._pidfd = None
        self._status = status
        self._exited.set()

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
        self._watch_scope.cancel()
        self._pump_scope.cancel()
        _close_quietly(self.stdin)
        _close_quietly(self.stdout)
        if self._stderr is not None:
            _close_quietly(self._stderr)
        if self._pidfd is not None:
            # Only if even SIGKILL did not end it in time: give up on the reap.
            trio.lowlevel.notify_closing(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None


@asynccontextmanager
async def open_process(
    command: str | Sequence[str | os.PathLike[str]],
    *,
    name: str,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    stderr: StderrMode = "keep",
    on_stderr_line: StderrLineCallback | None = None,
    stderr_tail_bytes: int = DEFAULT_STDERR_TAIL_BYTES,
    timings: ShutdownTimings = DEFAULT_TIMINGS,
) -> AsyncIterator[EngineProcess]:
    """Start an engine in its own process group; stop it (and the group) on exit.

    Raises :class:`EngineStartError` when the program cannot be run.  On leaving
    the block, even by cancellation, :meth:`EngineProcess.shutdown` runs with
    ``timings``; after it nothing of the group is left and the leader is reaped.
    """
    argv = split_command(command)
    proc = _spawn(argv, name=name, cwd=cwd, env=env, stderr=stderr,
                  on_stderr_line=on_stderr_line, stderr_tail_bytes=stderr_tail_bytes,
                  timings=timings)
    body_error: BaseException | None = None
    try:
        async with trio.open_nursery() as nursery:
            # start_soon, not start: no checkpoint before the try below, so a
            # cancellation cannot slip in between spawning and supervising.
            nursery.start_soon(proc._watch)
            if proc._stderr is not None:
                nursery.start_soon(proc._pump_stderr)
            try:
                yield proc
            except BaseException as exc:
                # Re-raised below, outside the nursery, so callers see the
                # exception itself rather than an ExceptionGroup around it.
                body_error = exc
            finally:
                # Both steps are usually done already (gtp.client shuts the
                # engine down itself); skipping them then saves scheduler passes.
                if proc._status is None:
                    await proc.shutdown()
                if proc._stderr is not None and not proc._stderr_done.is_set():
                    with trio.CancelScope(shield=True), trio.move_on_after(_STDERR_DRAIN_WAIT):
                        await proc._stderr_done.wait()
                proc._close_all()
    finally:
        proc._close_all()
        proc.signal_group(signal.SIGKILL)  # only if it somehow was not reaped
    if body_error is not None:
        raise body_error


def _spawn(
    argv: list[str],
    *,
    name: str,
    cwd: str | os.PathLike[str] | None,
    env: Mapping[str, str] | None,
    stderr: StderrMode,
    on_stderr_line: StderrLineCallback | None,
    stderr_tail_bytes: int,
    timings: ShutdownTimings,
) -> EngineProcess:
    if cwd is not None and not os.path.isdir(cwd):
        raise EngineStartError(
            f"cannot start {shlex.join(argv)!r}: "
            f"working directory {os.fspath(cwd)!r} does not exist",
            engine=name,
        )
    full_env = None if env is None else {**os.environ, **env}
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stderr_r: int | None = None
    child_stderr: int | None
    if stderr == "keep":
        stderr_r, child_stderr = os.pipe()
    elif stderr == "discard":
        child_stderr = subprocess.DEVNULL
    else:
        child_stderr = None
    parent_ends = [stdin_w, stdout_r] + ([stderr_r] if stderr_r is not None else [])
    try:
        popen = subprocess.Popen(
            argv,
            stdin=stdin_r,
            stdout=stdout_w,
            stderr=child_stderr,
            cwd=cwd,
            env=full_env,
            start_new_session=True,
            close_fds=True,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        for fd in parent_ends:
            os.close(fd)
        reason = getattr(exc, "strerror", None) or str(exc)
        message = f"cannot start {shlex.join(argv)!r}: {reason}"
        raise EngineStartError(message, engine=name) from None
    finally:
        os.close(stdin_r)
        os.close(stdout_w)
        if child_stderr is not None and child_stderr >= 0:
            os.close(child_stderr)
    try:
        pidfd: int | None = os.pidfd_open(popen.pid)
    except (AttributeError, OSError):
        pidfd = None
    return EngineProcess(
        name=name,
        argv=tuple(argv),
        stdin=trio.lowlevel.FdStream(stdin_w),
        stdout=trio.lowlevel.FdStream(stdout_r),
        timings=timings,
        popen=popen,
        stderr=trio.lowlevel.FdStream(stderr_r) if stderr_r is not None else None,
        on_stderr_line=on_stderr_line,
        stderr_tail_bytes=stderr_tail_bytes,
        pidfd=pidfd,
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
