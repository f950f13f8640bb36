"""Whether the machine, not the engine, made a move late: the clock's doubt.

A clock charges a move from just before ``genmove`` is written to the moment
the arena's run loop found the answer (:class:`gtp.client.GtpClient` keeps
both).  On a machine with more work than cores, part of that time may be
nobody's fault but the machine's:

* the arena held the command back: it lost the CPU between starting the clock
  and writing ``genmove`` (``written_at - sent_at``);
* the arena was deaf to the answer: its run loop was running other tasks when
  the answer came (``deaf``, the time the loop ran tasks before the wait that
  brought the answer), or its process waited for a CPU after the answer woke
  it (at least the wait's ``overslept`` past its own timeout; at most the
  whole wait, and no more than the arena's thread spent runnable without a
  CPU during the move);
* the engine's process was runnable but had no CPU (Linux keeps that time per
  thread in ``/proc/PID/schedstat``: its second field, in nanoseconds).

The sum is the move's doubt.  A move over its clock by no more than its doubt
is not a loss on time that can be pinned on the engine: the game is made void
and replayed, with a warning that names the stall.  A move over by more than
its doubt lost on time, loaded machine or not.  Where ``/proc`` is missing the
engine's share is taken as nothing and only what the run loop saw counts.

Pure apart from reading ``/proc`` (no trio): the game (:mod:`arena.run.game`)
takes the readings, the ringmaster counts the voids and stops a run whose
games keep being voided this way.
"""

from __future__ import annotations

import contextlib
import os
from typing import Final

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.clock import EPSILON, Charge

# A run stops once this many games were voided for stalls, and they are more
# than STALL_VOID_SHARE of the games it finished.
STALL_VOID_LIMIT: Final = 8
STALL_VOID_SHARE: Final = 0.2


class RunQueueProbe:
    """How long one thread has been runnable without a CPU, from its schedstat file.

    Keeps the file open and rereads it with ``pread`` (about 2 µs).  ``waited``
    is None where the file cannot be read (another kernel, a process gone).
    """

    __slots__ = ("_fd",)

    def __init__(self, path: str) -> None:
        try:
            self._fd: int | None = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self._fd = None

    @classmethod
    def for_process(cls, pid: int) -> RunQueueProbe:
        """The main thread of process ``pid`` (the one that answers GTP)."""
        return cls(f"/proc/{pid}/schedstat")

    @classmethod
    def for_this_thread(cls) -> RunQueueProbe:
        return cls("/proc/thread-self/schedstat")

    def waited(self) -> float | None:
        """Seconds spent runnable without a CPU so far."""
        fd = self._fd
        if fd is None:
            return None
        try:
            return int(os.pread(fd, 128, 0).split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return None

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


def waited_since(probe: RunQueueProbe | None, before: float | None) -> float | None:
    """What ``probe`` waited since its reading ``before`` (None when either is unknown)."""
    if probe is None or before is None:
        return None
    now = probe.waited()
    return None if now is None else max(0.0, now - before)


@attrs.frozen
class Doubt:
    """Seconds of one move's charged time that may be the machine's, not the engine's."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    arena: float  # the arena deaf to the answer
    engine: float  # the engine waiting for a CPU

    @property
    def total(self) -> float:
        return self.arena + self.engine


def answered_doubt(
    hearing: tuple[float, float, float],
    arena_waited: float | None,
    engine_waited: float | None,
    write_lag: float = 0.0,
) -> Doubt:
    """The doubt of a move whose answer came (``hearing``: see GtpClient.hearing).

    ``write_lag``: from the clock's start to the command's write.
    """
    deaf, waited, overslept = hearing
    late = overslept
    if arena_waited is not None:
        late = max(late, min(waited, arena_waited))
    return Doubt(max(0.0, write_lag) + deaf + late, engine_waited or 0.0)


def beyond_doubt(charge: Charge, doubt: Doubt) -> bool:
    """The move overran its clock by more than the machine can explain."""
    return charge.elapsed - doubt.total > charge.allowed + charge.margin + EPSILON


def stall_reason(who: str, move_number: int, charge: Charge, doubt: Doubt) -> str:
    """Why a game was made void: the move, its time and the stall that may explain it."""
    took = f"{charge.elapsed:.3f}s"
    return (
        f"clock stalled: {who} took {took} at move {move_number} against"
        f" {charge.allowed:.3f}s + margin {charge.margin:g}s, but for up to"
        f" {1000 * doubt.total:.0f} ms of it the machine, not the engine, was the cause"
        f" (arena deaf {1000 * doubt.arena:.0f} ms, engine waiting for a CPU"
        f" {1000 * doubt.engine:.0f} ms): too many games at once for the cores?"
    )


def usable_cores() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def oversubscription_warning(parallel: int, cores: int, engines_per_game: int = 2) -> str | None:
    """The warning for a clocked run with more engines thinking at once than cores."""
    engines = parallel * engines_per_game
    if engines <= cores:
        return None
    return (
        f"clocked games on a busy machine: {parallel} games at once run up to {engines}"
        f" engines on {cores} usable core{'s' if cores != 1 else ''}; engines waiting for"
        f" a CPU lose time, and games the machine stalls are voided and replayed"
        f" (lower --parallel to {max(1, cores // engines_per_game)} for clocks that hold)"
    )


def stall_stop_message(stalled: int, finished: int, longest: float, parallel: int) -> str | None:
    """The halt message once stalls void too many games (None: go on)."""
    if stalled < STALL_VOID_LIMIT or stalled <= STALL_VOID_SHARE * finished:
        return None
    return (
        f"halting competition: {stalled} of {finished} games were voided because the machine"
        f" stalled their clocks (longest {1000 * longest:.0f} ms); lower --parallel"
        f" (now {parallel}) or the machine's other load"
    )
