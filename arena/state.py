"""The competition's files on disk: paths, the run lock, the journal and the status.

Durability rules (GTP-SGF-RULES.md §4.2):

* every file we replace is written to a temporary file, fsynced, renamed over
  the old one, and the directory is fsynced (:func:`atomic_write`; the status
  is the one exception, see below);
* each finished (or void) game is appended to ``X.journal`` as one JSON line,
  fsynced, *after* its SGF is on disk; the journal is the truth and only grows;
* ``X.status`` is a JSON snapshot of the competition's aggregates plus how much
  of the journal they include.  Rewriting it costs the same whatever the number
  of games, so recording a result does not slow down as a competition grows.
  Its directory is not fsynced after the rename: if a power loss undoes the
  rename, the previous snapshot is read and the journal entries after it are
  re-applied, so that wait (several ms on a busy disk, per game) buys nothing;
* on load, journal entries past the snapshot are handed back to be re-applied
  (a torn last line from a killed run is dropped); games that were in progress
  have no entry and are simply played again;
* ``X.lock`` is held with ``flock`` for the whole of a run, so a second run or a
  reset is refused while one is live; the kernel drops the lock if we die.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import os
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

import attrs

from arena.results import GameResult

STATUS_FORMAT: Final = "gtp-arena-status"
STATUS_VERSION: Final = 1


class StateError(Exception):
    """The state on disk cannot be used with this control file."""


class CompetitionLocked(StateError):
    """Another run of this competition holds the lock."""


# ---------------------------------------------------------------------------
# Paths


@attrs.frozen
class CompetitionFiles:
    """Where each of a competition's files lives (Gomill's names, plus journal and lock)."""

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
    def report(self) -> Path:
        return self._file("report")

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
            self.report,
            self.cmd,
            self.games_dir,
            self.void_dir,
            self.gtplogs_dir,
        ]


# ---------------------------------------------------------------------------
# Atomic files


def _fsync_directory(directory: Path) -> None:
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
        _fsync_directory(path.parent)


# ---------------------------------------------------------------------------
# The run lock


@attrs.define
class RunLock:
    """An exclusive ``flock`` on ``X.lock`` for the life of a run (or a reset)."""

    path: Path
    _fd: int | None = None

    def acquire(self) -> None:
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
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
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


# ---------------------------------------------------------------------------
# Journal entries


@attrs.frozen
class ResultEntry:
    """A finished game that counts, with what we learnt about its engines."""

    result: GameResult
    engines: Mapping[str, str] = attrs.field(factory=dict)  # player code -> description

    def to_json(self) -> dict[str, Any]:
        return {"kind": "result", "result": self.result.to_json(), "engines": dict(self.engines)}


@attrs.frozen
class VoidEntry:
    """A game abandoned by a software failure: it does not count and is replayed."""

    game_id: str
    pairing: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "void",
            "game_id": self.game_id,
            "pairing": self.pairing,
            "reason": self.reason,
        }


JournalEntry = ResultEntry | VoidEntry


def entry_from_json(data: object) -> JournalEntry:
    """Decode one journal line's JSON; raises ValueError when it is not an entry."""
    if not isinstance(data, dict):
        raise ValueError("journal entry is not an object")
    kind = data.get("kind")
    if kind == "result":
        engines = data.get("engines") or {}
        if not isinstance(engines, dict):
            raise ValueError("engines is not an object")
        return ResultEntry(
            GameResult.from_json(data["result"]), {str(k): str(v) for k, v in engines.items()}
        )
    if kind == "void":
        return VoidEntry(str(data["game_id"]), str(data["pairing"]), str(data.get("reason", "")))
    raise ValueError(f"unknown journal entry kind {kind!r}")


# ---------------------------------------------------------------------------
# Status and journal together


@attrs.frozen
class LoadedState:
    """What is on disk: the last snapshot (None if none) and the entries after it."""

    competition: Mapping[str, Any] | None
    pending: tuple[JournalEntry, ...]
    warnings: tuple[str, ...] = ()


def _read_status(files: CompetitionFiles, competition_type: str) -> dict[str, Any] | None:
    try:
        raw = files.status.read_bytes()
    except FileNotFoundError:
        return None
    try:
        status = json.loads(raw)
    except ValueError as exc:
        raise StateError(f"{files.status.name} is not valid JSON: {exc}") from exc
    if not isinstance(status, dict) or status.get("format") != STATUS_FORMAT:
        raise StateError(f"{files.status.name} is not a gtp-arena status file")
    if status.get("version") != STATUS_VERSION:
        raise StateError(
            f"{files.status.name} has format version {status.get('version')!r};"
            f" this arena reads version {STATUS_VERSION}"
        )
    if status.get("competition_type") != competition_type:
        raise StateError(
            f"{files.status.name} is for a {status.get('competition_type')!r} competition,"
            f" not {competition_type!r}"
        )
    return status


def _scan_journal(data: bytes) -> tuple[list[JournalEntry], int, list[str]]:
    """Decode complete lines; returns entries, bytes used and warnings (torn tail)."""
    entries: list[JournalEntry] = []
    warnings: list[str] = []
    used = 0
    while used < len(data):
        newline = data.find(b"\n", used)
        if newline < 0:
            warnings.append("dropped an incomplete last journal line")
            break
        line = data[used:newline]
        try:
            entries.append(entry_from_json(json.loads(line)))
        except (ValueError, KeyError, TypeError):
            warnings.append("dropped an unreadable journal line and what followed it")
            break
        used = newline + 1
    return entries, used, warnings


def read_state(files: CompetitionFiles, competition_type: str) -> LoadedState:
    """Read the state without changing anything (safe while a run is live)."""
    state, _, _ = _load(files, competition_type)
    return state


def _load(files: CompetitionFiles, competition_type: str) -> tuple[LoadedState, int, int]:
    status = _read_status(files, competition_type)
    offset = 0
    records = 0
    competition = None
    if status is not None:
        journal = status.get("journal") or {}
        offset = int(journal.get("bytes", 0))
        records = int(journal.get("records", 0))
        competition = status.get("competition")
        if not isinstance(competition, dict):
            raise StateError(f"{files.status.name} has no competition state")
    try:
        with open(files.journal, "rb") as journal_file:
            journal_file.seek(offset)
            data = journal_file.read()
            size = offset + len(data)
    except FileNotFoundError:
        data, size = b"", 0
    warnings: list[str] = []
    if size < offset:
        warnings.append("the journal is shorter than the status says; using the status alone")
        offset = size
        data = b""
    entries, used, scan_warnings = _scan_journal(data)
    warnings.extend(scan_warnings)
    return (
        LoadedState(competition, tuple(entries), tuple(warnings)),
        offset + used,
        records + len(entries),
    )


@attrs.define
class StateStore:
    """Appends journal entries and rewrites the status for a live run.

    Open it only while holding the run lock: opening trims a torn journal tail.
    """

    files: CompetitionFiles
    competition_type: str
    durable: bool = True
    _journal_fd: int | None = None
    _journal_bytes: int = 0
    _journal_records: int = 0

    def open(self) -> LoadedState:
        """Load what is on disk and get ready to append (the journal is created lazily)."""
        state, used, records = _load(self.files, self.competition_type)
        try:
            size = self.files.journal.stat().st_size
        except FileNotFoundError:
            size = 0
        if size > used:
            os.truncate(self.files.journal, used)  # drop the torn tail: next entry starts a line
        self._journal_bytes = used
        self._journal_records = records
        return state

    def close(self) -> None:
        if self._journal_fd is not None:
            fd, self._journal_fd = self._journal_fd, None
            os.close(fd)

    @property
    def journal_records(self) -> int:
        return self._journal_records

    def append(self, entry: JournalEntry) -> None:
        """Add one entry to the journal and make it durable."""
        if self._journal_fd is None:
            self._journal_fd = os.open(
                self.files.journal, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644
            )
        line = json.dumps(entry.to_json(), separators=(",", ":"), ensure_ascii=False) + "\n"
        data = line.encode("utf-8")
        view = memoryview(data)
        while view:
            written = os.write(self._journal_fd, view)
            view = view[written:]
        if self.durable:
            os.fsync(self._journal_fd)
        self._journal_bytes += len(data)
        self._journal_records += 1

    def write_status(self, competition: Mapping[str, Any]) -> None:
        """Atomically replace X.status with a snapshot covering the whole journal."""
        status = {
            "format": STATUS_FORMAT,
            "version": STATUS_VERSION,
            "competition_type": self.competition_type,
            "written": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "journal": {"records": self._journal_records, "bytes": self._journal_bytes},
            "competition": competition,
        }
        data = json.dumps(status, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        # No directory fsync: see the module docstring.
        atomic_write(self.files.status, data + b"\n", durable=self.durable, sync_directory=False)

    def record(self, entry: JournalEntry, competition: Mapping[str, Any]) -> None:
        """Journal one entry, then rewrite the status (the SGF must already be on disk)."""
        self.append(entry)
        self.write_status(competition)


def reset(files: CompetitionFiles) -> list[Path]:
    """Delete every output file of the competition; refuses while a run holds the lock."""
    removed: list[Path] = []
    with RunLock(files.lock):
        for path in files.outputs():
            if path.is_dir():
                shutil.rmtree(path)
                removed.append(path)
            elif path.exists():
                path.unlink()
                removed.append(path)
        for stray in files.directory.glob(f".{files.code}.*.tmp"):
            stray.unlink()
    with contextlib.suppress(OSError):
        files.lock.unlink()
    return removed


def iter_journal(files: CompetitionFiles) -> Iterator[JournalEntry]:
    """Every readable entry of the journal, oldest first (for tools and tests)."""
    try:
        data = files.journal.read_bytes()
    except FileNotFoundError:
        return
    entries, _, _ = _scan_journal(data)
    yield from entries
