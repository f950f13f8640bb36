"""The competition's files on disk: where each lives, atomic replacement, the run lock, reset.

* every file we replace is written to a temporary file, fsynced, renamed over
  the old one, and the directory is fsynced (:func:`atomic_write`);
* ``X.lock`` is held with ``flock`` for the whole of a run, so a second run or a
  reset is refused while one is live; the kernel drops the lock if we die, and
  the next run takes a stale lock file over.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from pathlib import Path

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.errors import StateError


class CompetitionLocked(StateError):
    """Another run of this competition holds the lock."""


# ---------------------------------------------------------------------------
# Paths


@attrs.frozen
class CompetitionFiles:
    """Where each of a competition's files lives (Gomill's names, plus journal and lock)."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    directory: Path
    code: str

    @classmethod
    def for_control_file(cls, path: str | os.PathLike[str]) -> CompetitionFiles:
        control = Path(os.path.abspath(path))
        return cls(control.parent, control.stem)

    def _file(self, suffix: str) -> Path:
        return self.directory / f"{self.code}.{suffix}"

    @property
    def status(self) -> Path:
        return self._file("status")

    @property
    def journal(self) -> Path:
        return self._file("journal")

    @property
    def log(self) -> Path:
        return self._file("log")

    @property
    def hist(self) -> Path:
        return self._file("hist")

    @property
    def events(self) -> Path:
        return self._file("events")

    @property
    def report(self) -> Path:
        return self._file("report")

    @property
    def html_report(self) -> Path:
        return self._file("html")

    @property
    def cmd(self) -> Path:
        return self._file("cmd")

    @property
    def lock(self) -> Path:
        return self._file("lock")

    @property
    def games_dir(self) -> Path:
        return self._file("games")

    @property
    def void_dir(self) -> Path:
        return self._file("void")

    @property
    def gtplogs_dir(self) -> Path:
        return self._file("gtplogs")

    def sgf_path(self, game_id: str) -> Path:
        return self.games_dir / f"{game_id}.sgf"

    def void_sgf_path(self, game_id: str) -> Path:
        return self.void_dir / f"{game_id}.sgf"

    def outputs(self) -> list[Path]:
        """Every file and directory ``reset`` deletes (not the lock)."""
        return [
            self.status,
            self.journal,
            self.log,
            self.hist,
            self.events,
            self.report,
            self.html_report,
            self.cmd,
            self.games_dir,
            self.void_dir,
            self.gtplogs_dir,
        ]


# ---------------------------------------------------------------------------
# Atomic files


def fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(
    path: Path, data: bytes, *, durable: bool = True, sync_directory: bool = True
) -> None:
    """Replace ``path`` with ``data`` so that a reader sees the old or the new file, never a mix.

    ``durable``: the data is fsynced before the rename and, with
    ``sync_directory``, the directory after it (so that the rename itself
    survives a power loss).
    """
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
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
    if durable and sync_directory:
        fsync_directory(path.parent)


# ---------------------------------------------------------------------------
# The run lock


@attrs.define
class RunLock:
    """An exclusive ``flock`` on ``X.lock`` for the life of a run (or a reset).

    The file is removed when the lock is released (while still held, so no
    one can be waiting on it); a process that wins the ``flock`` on a file
    that has meanwhile been removed or replaced tries again on the new one.
    A lock file left by a killed run holds no ``flock`` and is simply taken over.
    """

    __repr__ = fields_repr
    __eq__ = fields_eq

    path: Path
    _fd: int | None = None

    def acquire(self) -> None:
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                try:
                    holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
                finally:
                    os.close(fd)
                who = f" (pid {holder})" if holder.isdigit() else ""
                raise CompetitionLocked(
                    f"competition {self.path.stem!r} is already running{who}"
                ) from None
            try:
                current = os.stat(self.path).st_ino
            except FileNotFoundError:
                current = None
            if current == os.fstat(fd).st_ino:
                break
            os.close(fd)  # released and removed while we opened it: use the new file
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            os.close(fd)  # closing drops the flock

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def is_running(files: CompetitionFiles) -> bool:
    """True while some process holds the competition's run lock."""
    if not files.lock.exists():
        return False
    lock = RunLock(files.lock)
    try:
        lock.acquire()
    except CompetitionLocked:
        return True
    lock.release()
    return False


def existing_outputs(files: CompetitionFiles) -> list[Path]:
    """Every file ``reset`` would delete now, those in its directories included."""
    found: list[Path] = []
    for path in files.outputs():
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if not p.is_dir()))
        elif path.exists():
            found.append(path)
    return found


def reset(files: CompetitionFiles) -> list[Path]:
    """Delete every output file of the competition; refuses while a run holds the lock.

    Returns every file deleted, those in the deleted directories included.
    """
    removed: list[Path] = []
    with RunLock(files.lock):
        removed = existing_outputs(files)
        for path in files.outputs():
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
        for stray in files.directory.glob(f".{files.code}.*.tmp"):
            stray.unlink()
    with contextlib.suppress(OSError):
        files.lock.unlink()
    return removed
