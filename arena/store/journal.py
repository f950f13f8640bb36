"""The journal (``X.journal``, the truth) and the status snapshot (``X.status``).

Durability rules (GTP-SGF-RULES.md §4.2):

* each finished (or void) game is appended to ``X.journal`` as one JSON line,
  fsynced, *after* its SGF is on disk; the journal is the truth and only grows;
* ``X.status`` is a JSON snapshot of the competition's aggregates plus how much
  of the journal they include.  Rewriting it costs the same whatever the number
  of games, so recording a result does not slow down as a competition grows.
  Its directory is not fsynced after the rename: if a power loss undoes the
  rename, the previous snapshot is read and the journal entries after it are
  re-applied, so that wait buys nothing;
* on load, journal entries past the snapshot are handed back to be re-applied
  (a torn last line from a killed run is dropped); games that were in progress
  have no entry and are simply played again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.errors import StateError
from arena.results import GameResult
from arena.store.files import CompetitionFiles, atomic_write

STATUS_FORMAT: Final = "gtp-arena-status"
STATUS_VERSION: Final = 1


# ---------------------------------------------------------------------------
# Journal entries


@attrs.frozen
class ResultEntry:
    """A finished game that counts, with what we learnt about its engines."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    result: GameResult
    engines: Mapping[str, str] = attrs.field(factory=dict)  # player code -> description

    def to_json(self) -> dict[str, Any]:
        return {"kind": "result", "result": self.result.to_json(), "engines": dict(self.engines)}


@attrs.frozen
class VoidEntry:
    """A game abandoned by a software failure: it does not count and is replayed."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

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

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

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

    __repr__ = fields_repr
    __eq__ = fields_eq

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
        self.append_many([entry])

    def append_many(self, entries: Sequence[JournalEntry]) -> None:
        """Add entries to the journal with one write and (when durable) one fsync."""
        if not entries:
            return
        if self._journal_fd is None:
            self._journal_fd = os.open(
                self.files.journal, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644
            )
        data = b"".join(journal_line(entry) for entry in entries)
        view = memoryview(data)
        while view:
            written = os.write(self._journal_fd, view)
            view = view[written:]
        if self.durable:
            os.fsync(self._journal_fd)
        self._journal_bytes += len(data)
        self._journal_records += len(entries)

    def write_status(self, competition: Mapping[str, Any]) -> None:
        """Atomically replace X.status with a snapshot covering the whole journal."""
        self.write_status_json(encode_json(competition))

    def write_status_json(self, competition: bytes) -> None:
        """:meth:`write_status` with the competition's state already encoded as JSON."""
        import datetime  # with the first status written, not at the start (~1.5 ms)

        header = {
            "format": STATUS_FORMAT,
            "version": STATUS_VERSION,
            "competition_type": self.competition_type,
            "written": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "journal": {"records": self._journal_records, "bytes": self._journal_bytes},
        }
        # {"format":...,"journal":{...},"competition":<state>}
        data = encode_json(header)[:-1] + b',"competition":' + competition + b"}\n"
        # No directory fsync: see the module docstring.
        atomic_write(self.files.status, data, durable=self.durable, sync_directory=False)

    def record(self, entry: JournalEntry, competition: Mapping[str, Any]) -> None:
        """Journal one entry, then rewrite the status (the SGF must already be on disk)."""
        self.append(entry)
        self.write_status(competition)


def encode_json(value: object) -> bytes:
    """Compact UTF-8 JSON, as the state files hold it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def journal_line(entry: JournalEntry) -> bytes:
    return encode_json(entry.to_json()) + b"\n"


def iter_journal(files: CompetitionFiles) -> Iterator[JournalEntry]:
    """Every readable entry of the journal, oldest first (for tools and tests)."""
    try:
        data = files.journal.read_bytes()
    except FileNotFoundError:
        return
    entries, _, _ = _scan_journal(data)
    yield from entries


def last_journal_entries(
    files: CompetitionFiles, count: int, tail_bytes: int = 256 * 1024
) -> list[JournalEntry]:
    """Up to ``count`` of the newest readable entries, oldest first (reads only the tail).

    Safe while a run appends: a partial last line and unreadable lines are skipped.
    """
    try:
        with open(files.journal, "rb") as journal:
            size = os.fstat(journal.fileno()).st_size
            start = max(0, size - tail_bytes)
            journal.seek(start)
            data = journal.read()
    except FileNotFoundError:
        return []
    lines = data.split(b"\n")[:-1]  # the last piece is empty or a line being written
    if start > 0 and lines:
        lines = lines[1:]  # the first piece may be the end of a line cut by the seek
    entries: list[JournalEntry] = []
    for line in reversed(lines):
        if len(entries) == count:
            break
        try:
            entries.append(entry_from_json(json.loads(line)))
        except (ValueError, KeyError, TypeError):
            continue
    entries.reverse()
    return entries
