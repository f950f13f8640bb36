"""A guard process that stops the engines if the arena dies without stopping them.

The ringmaster starts this file as a script (``python -S -I .../watchdog.py``: no
site, no package import) once per run, with its first engine, in its own session, and
tells it (one line per event on its stdin) which engine process groups exist: ``+PGID``
when an engine starts, ``-PGID`` once it is reaped.  When its stdin reaches end of file -- the arena
exited, however it died, even by SIGKILL -- the watchdog sends SIGTERM to every group
still registered, waits a moment, then SIGKILL, and exits.  Well-behaved engines exit
on the EOF of their own stdin anyway; this catches those that do not.

:class:`Watchdog` is the arena's side.  The guard's own process imports nothing but
``contextlib``, ``os``, ``signal``, ``sys`` and ``time`` (not even ``typing``, 5 ms of
CPU): it starts for about a third of the CPU of ``python -m arena.run.watchdog`` (site,
the ``arena`` package).  ``subprocess`` is imported where the arena's side uses it, in
the arena's process, which has it loaded already.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing in the guard
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Iterable
    from typing import Final

GRACE_SECONDS: Final = 2.0


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _signal_groups(groups: set[int], signum: int) -> None:
    for pgid in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signum)


def guard(stream: Iterable[bytes] | None = None) -> int:
    """Read registrations until EOF, then stop what is left."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the arena's business
    source = sys.stdin.buffer if stream is None else stream
    groups: set[int] = set()
    for raw in source:
        line = raw.strip()
        if len(line) < 2 or not line[1:].isdigit():
            continue
        pgid = int(line[1:])
        if line[:1] == b"+":
            groups.add(pgid)
        elif line[:1] == b"-":
            groups.discard(pgid)
    groups = {pgid for pgid in groups if _group_alive(pgid)}
    if not groups:
        return 0
    _signal_groups(groups, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_SECONDS
    while groups and time.monotonic() < deadline:
        time.sleep(0.05)
        groups = {pgid for pgid in groups if _group_alive(pgid)}
    _signal_groups(groups, signal.SIGKILL)
    return 0


class Watchdog:
    """The arena's handle on its guard process (see module docstring).

    :meth:`start` arms it; the guard process itself starts with the first engine
    registered (:meth:`engine_started`), so a run that starts no engine (``-g 0``, a
    competition already complete, a failed check before any engine) never pays for
    it (a Python start, ~15 ms of CPU).  The guard is there when the first engine is
    registered, as it was when started with the run: every engine is guarded as before.
    """

    def __init__(self) -> None:
        import _thread  # built in; kept out of the guard's imports all the same

        self._process: subprocess.Popen[bytes] | None = None
        self._fd: int | None = None
        self._armed = False
        # Threads of a Dask worker share one guard (arena.run.remote).
        self._lock = _thread.allocate_lock()

    def start(self) -> None:
        """Arm the guard: its process starts with the first engine registered."""
        self._armed = True

    def _launch(self) -> None:
        import subprocess  # loaded already in the arena's process; kept out of the guard's

        process = subprocess.Popen(
            [sys.executable, "-S", "-I", os.path.abspath(__file__)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
        assert process.stdin is not None
        self._process = process
        self._fd = process.stdin.fileno()

    def _send(self, line: bytes) -> None:
        if self._fd is None:
            return
        try:
            os.write(self._fd, line)
        except OSError:
            self._fd = None  # the guard is gone; engines still get EOF

    def engine_started(self, pgid: int) -> None:
        if self._armed:
            with self._lock:
                if self._armed:
                    self._armed = False
                    self._launch()
        self._send(b"+%d\n" % pgid)

    def engine_stopped(self, pgid: int) -> None:
        self._send(b"-%d\n" % pgid)

    def watch(self, pgid: int, running: bool) -> None:
        if running:
            self.engine_started(pgid)
        else:
            self.engine_stopped(pgid)

    def stop(self) -> None:
        """Close the guard's input (all engines are stopped by now) and reap it."""
        import subprocess

        self._armed = False
        process, self._process = self._process, None
        self._fd = None
        if process is None:
            return
        assert process.stdin is not None
        with contextlib.suppress(OSError):
            process.stdin.close()
        try:
            process.wait(timeout=GRACE_SECONDS + 3)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


if __name__ == "__main__":
    sys.exit(guard())
