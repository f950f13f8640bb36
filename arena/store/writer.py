"""Recording off the event loop: finished games made durable in a thread, with group commit.

The ringmaster hands each finished game to :meth:`RecordWriter.submit` as a
self-contained :class:`Commit` and goes on at once: its journal entry, how to
build its SGF bytes, how to build the competition's state that covers it, and
what to do once it is durable.  The writer calls nothing else: one writer
task takes everything waiting and hands the blocking work to a worker thread:

1. each game's SGF file: written to a temporary file, fsynced, renamed into
   place; then each directory written to is fsynced once;
2. the batch's journal entries: one append, one fsync;
3. ``X.status``: replaced atomically (temporary file, fsync, rename), with
   the state built by the batch's last commit, as the batch is taken (no
   checkpoint between): it covers exactly the batch's games and every
   earlier one, and a batch of many games encodes it once.

Games that finish while a batch is being written share the next fsyncs.  Only
when its batch is durable is a game announced (its commit's ``on_durable``, on
the trio thread), so what is reported as finished survives a SIGKILL or a
power loss; a game killed before that is simply replayed by the next run.

Two stores: :class:`DiskStore` (the competition's files; ``durable=False``
skips every fsync, for users who do not care about power loss) and
:class:`MemoryStore` (nothing on disk: the library API without a record
directory).  CPU work (building the SGF, encoding JSON) stays on the trio
thread, so the thread holds the GIL only between system calls; and it is
done at moments when no other task can run, one SGF at a time (waiting
``IDLE_WAIT_SECONDS`` at most per batch), so that recording the games that
just ended does not hold up the moves of the games still playing: when many
games end at once, building their records in one go would stall the loop for
milliseconds, which a clock would charge to the engines waiting on it.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Protocol

import attrs
import trio

from arena import fields_eq, fields_hash, fields_repr
from arena.errors import RunError
from arena.store.files import CompetitionFiles, fsync_directory
from arena.store.journal import JournalEntry, LoadedState, StateStore

IDLE_WAIT_SECONDS = 0.05

_IdleWait = Callable[[], Awaitable[None]]
_idle_wait: _IdleWait | None = None


def _import_idle_wait() -> _IdleWait:
    module = importlib.import_module("trio.testing")
    wait: _IdleWait = module.wait_all_tasks_blocked
    return wait


async def until_idle(deadline: float) -> None:
    """Wait until no other task can run, or until ``deadline`` (trio's clock).

    trio's public ``trio.testing.wait_all_tasks_blocked``, imported on first use
    and then in a worker thread: ``trio.testing`` imports pytest (about 70 ms),
    which a run that records nothing never pays, and which must not hold up the
    loop while games play.
    """
    global _idle_wait
    if _idle_wait is None:
        if "trio.testing" in sys.modules:
            _idle_wait = _import_idle_wait()
        else:
            _idle_wait = await trio.to_thread.run_sync(_import_idle_wait)
    with trio.move_on_at(deadline):
        await _idle_wait()


@attrs.frozen
class Commit:
    """One finished game to make durable: everything its batch needs from it."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    entry: JournalEntry | None  # None: nothing to journal (a void game of the library API)
    # The SGF file and what builds its bytes (on the trio thread), if one is kept.
    record: tuple[Path, Callable[[], bytes]] | None
    # Called on the trio thread once durable (the game is announced).
    on_durable: Callable[[], None] = attrs.field(eq=False)
    # What builds the competition's state (encoded) as it stands when called: the
    # state after this game and every game submitted before it; None when the
    # store keeps no state.  The writer calls the batch's last one as it takes it.
    status: Callable[[], bytes] | None = attrs.field(default=None, eq=False)


class Store(Protocol):
    """Where a run's records, journal and status go."""

    def open(self) -> LoadedState:
        """What is already recorded (call while holding the run lock, if any)."""
        ...

    def commit(
        self,
        records: Sequence[tuple[Path, bytes]],
        entries: Sequence[JournalEntry],
        status: bytes | None,
    ) -> None:
        """Make a batch durable (blocking: called in a worker thread)."""
        ...

    @property
    def wants_status(self) -> bool:
        """Whether :meth:`commit` needs the competition's state."""
        ...

    def close(self) -> None: ...


def write_files(records: Sequence[tuple[Path, bytes]], *, durable: bool) -> None:
    """Replace each file atomically; with ``durable``, fsync each file, then each directory once."""
    directories: set[Path] = set()
    made: set[Path] = set()
    for path, data in records:
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        except FileNotFoundError:
            if path.parent in made:
                raise
            path.parent.mkdir(parents=True, exist_ok=True)  # made on first use
            made.add(path.parent)
            directories.add(path.parent.parent)
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        directories.add(path.parent)
    if durable:
        for directory in sorted(directories, key=lambda p: len(p.parts), reverse=True):
            fsync_directory(directory)


@attrs.define
class DiskStore:
    """The competition's files: ``X.games/``, ``X.void/``, ``X.journal``, ``X.status``."""

    __repr__ = fields_repr
    __eq__ = fields_eq

    files: CompetitionFiles
    competition_type: str
    durable: bool = True
    _state: StateStore = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self._state = StateStore(self.files, self.competition_type, durable=self.durable)

    def open(self) -> LoadedState:
        return self._state.open()

    @property
    def wants_status(self) -> bool:
        return True

    def commit(
        self,
        records: Sequence[tuple[Path, bytes]],
        entries: Sequence[JournalEntry],
        status: bytes | None,
    ) -> None:
        write_files(records, durable=self.durable)
        self._state.append_many(entries)
        if status is not None:
            self._state.write_status_json(status)

    def close(self) -> None:
        self._state.close()


@attrs.define
class MemoryStore:
    """Nothing on disk: records and entries are kept in memory (the library API)."""

    __repr__ = fields_repr
    __eq__ = fields_eq

    records: dict[Path, bytes] = attrs.Factory(dict)
    entries: list[JournalEntry] = attrs.Factory(list)

    def open(self) -> LoadedState:
        return LoadedState(None, tuple(self.entries))

    @property
    def wants_status(self) -> bool:
        return False

    def commit(
        self,
        records: Sequence[tuple[Path, bytes]],
        entries: Sequence[JournalEntry],
        status: bytes | None,
    ) -> None:
        self.records.update(records)
        self.entries.extend(entries)

    def close(self) -> None:
        pass


@attrs.define
class RecordWriter:
    """The writer task and its queue (see module docstring).

    Run :meth:`run` in a nursery; :meth:`close` lets it finish what is queued
    and return.  A failed write raises :class:`RunError`.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq

    store: Store
    batches: int = 0  # how many commits (for tests and benchmarks)
    _queue: list[Commit] = attrs.Factory(list)
    _wakeup: trio.Event = attrs.Factory(trio.Event)
    _closed: bool = False

    def submit(self, commit: Commit) -> None:
        if self._closed:
            raise RuntimeError("the record writer is closed")
        self._queue.append(commit)
        self._wakeup.set()

    def close(self) -> None:
        self._closed = True
        self._wakeup.set()

    @property
    def pending(self) -> int:
        return len(self._queue)

    async def run(self) -> None:
        while True:
            if not self._queue:
                if self._closed:
                    return
                await self._wakeup.wait()
                self._wakeup = trio.Event()
                continue
            deadline = trio.current_time() + IDLE_WAIT_SECONDS
            await until_idle(deadline)
            # The state is built with the batch taken, no checkpoint between: it
            # covers exactly the batch's games and every earlier one.
            batch, self._queue = self._queue, []
            entries = [commit.entry for commit in batch if commit.entry is not None]
            build_status = batch[-1].status
            status = None
            if entries and build_status is not None and self.store.wants_status:
                status = build_status()
            records = []
            for commit in batch:
                if commit.record is not None:
                    path, build = commit.record
                    await until_idle(deadline)
                    records.append((path, build()))
            try:
                await trio.to_thread.run_sync(self.store.commit, records, entries, status)
            except OSError as exc:
                raise RunError(f"cannot record finished games: {exc}") from exc
            self.batches += 1
            deadline = trio.current_time() + IDLE_WAIT_SECONDS
            for commit in batch:
                await until_idle(deadline)
                commit.on_durable()
