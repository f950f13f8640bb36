"""State on disk: atomic status, the journal and its torn tail, the run lock, reset."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.competitions.playoff import Playoff
from arena.errors import StateError
from arena.store.files import (
    CompetitionFiles,
    CompetitionLocked,
    RunLock,
    atomic_write,
    is_running,
    reset,
)
from arena.store.journal import (
    ResultEntry,
    StateStore,
    VoidEntry,
    iter_journal,
    last_journal_entries,
    read_state,
)
from gtp.vertex import Colour

from .helpers import playoff_config, result


def files_for(tmp_path: Path) -> CompetitionFiles:
    return CompetitionFiles.for_control_file(tmp_path / "comp.ctl")


def test_gomill_file_names(tmp_path: Path) -> None:
    files = files_for(tmp_path)
    names = [p.name for p in files.outputs()]
    assert names == [
        "comp.status",
        "comp.journal",
        "comp.log",
        "comp.hist",
        "comp.events",
        "comp.report",
        "comp.html",
        "comp.cmd",
        "comp.games",
        "comp.void",
        "comp.gtplogs",
    ]
    assert files.sgf_path("0_1") == tmp_path / "comp.games" / "0_1.sgf"
    assert files.void_sgf_path("0_1") == tmp_path / "comp.void" / "0_1.sgf"


def test_atomic_write_replaces_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "x.status"
    atomic_write(target, b"one")
    atomic_write(target, b"two")
    assert target.read_bytes() == b"two"
    assert os.listdir(tmp_path) == ["x.status"]


def record_games(tmp_path: Path, game_ids: list[str]) -> tuple[Playoff, StateStore]:
    config = playoff_config(tmp_path, "Matchup('a', 'b', number_of_games=10)")
    playoff = Playoff(config)
    store = StateStore(files_for(tmp_path), "playoff")
    loaded = store.open()
    assert loaded.competition is None and loaded.pending == ()
    for game_id in game_ids:
        game = result(game_id, "a", "b", Colour.BLACK)
        playoff.record_result(game, {"a": "A"})
        store.record(ResultEntry(game, {"a": "A"}), playoff.to_state())
    return playoff, store


def test_status_is_json_and_resume_restores_the_competition(tmp_path: Path) -> None:
    playoff, store = record_games(tmp_path, ["0_0", "0_1"])
    store.record(VoidEntry("0_2", "0", "engine crashed"), playoff.to_state())
    store.close()
    status = json.loads(files_for(tmp_path).status.read_text())
    assert status["format"] == "gtp-arena-status" and status["journal"]["records"] == 3
    assert [type(e).__name__ for e in iter_journal(files_for(tmp_path))] == [
        "ResultEntry",
        "ResultEntry",
        "VoidEntry",
    ]
    loaded = read_state(files_for(tmp_path), "playoff")
    assert loaded.pending == ()
    assert loaded.competition is not None
    resumed = Playoff(playoff.config)
    resumed.load_state(loaded.competition)
    assert resumed.snapshot().matchups[0].tally.games == 2


def test_entries_after_the_snapshot_are_handed_back(tmp_path: Path) -> None:
    _, store = record_games(tmp_path, ["0_0"])
    # Killed between journal append and status rewrite:
    late = result("0_1", "a", "b", Colour.WHITE)
    store.append(ResultEntry(late, {}))
    store.close()
    loaded = StateStore(files_for(tmp_path), "playoff").open()
    assert loaded.pending == (ResultEntry(late, {}),)


def test_missing_status_rebuilds_from_the_whole_journal(tmp_path: Path) -> None:
    _, store = record_games(tmp_path, ["0_0", "0_1", "0_2"])
    store.close()
    files_for(tmp_path).status.unlink()
    loaded = read_state(files_for(tmp_path), "playoff")
    assert loaded.competition is None
    assert [e.result.game_id for e in loaded.pending if isinstance(e, ResultEntry)] == [
        "0_0",
        "0_1",
        "0_2",
    ]


@pytest.mark.parametrize("tail", [b'{"kind":"result","res', b"garbage\n"])
def test_a_torn_journal_tail_is_dropped_and_trimmed(tmp_path: Path, tail: bytes) -> None:
    playoff, store = record_games(tmp_path, ["0_0"])
    store.close()
    files = files_for(tmp_path)
    good_size = files.journal.stat().st_size
    with open(files.journal, "ab") as journal:
        journal.write(tail)
    read_only = read_state(files, "playoff")
    assert read_only.pending == () and read_only.warnings
    assert files.journal.stat().st_size == good_size + len(tail)  # readers change nothing
    store = StateStore(files, "playoff")
    store.open()
    assert files.journal.stat().st_size == good_size
    game = result("0_1", "a", "b", Colour.BLACK)
    store.record(ResultEntry(game, {}), playoff.to_state())
    store.close()
    assert [e.result.game_id for e in iter_journal(files) if isinstance(e, ResultEntry)] == [
        "0_0",
        "0_1",
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not json", "not valid JSON"),
        (b'{"format": "pickle"}', "not a gtp-arena status file"),
        (b'{"format": "gtp-arena-status", "version": 99}', "format version 99"),
        (
            b'{"format": "gtp-arena-status", "version": 1, "competition_type": "mc_tuner"}',
            "is for a 'mc_tuner' competition",
        ),
    ],
)
def test_unusable_status_is_a_state_error(tmp_path: Path, content: bytes, message: str) -> None:
    files_for(tmp_path).status.write_bytes(content)
    with pytest.raises(StateError, match=message):
        read_state(files_for(tmp_path), "playoff")


def test_the_lock_refuses_a_second_holder_even_in_another_process(tmp_path: Path) -> None:
    files = files_for(tmp_path)
    assert not is_running(files)
    with RunLock(files.lock):
        assert is_running(files)
        with pytest.raises(CompetitionLocked, match=rf"already running \(pid {os.getpid()}\)"):
            RunLock(files.lock).acquire()
        code = (
            "import sys\n"
            "from arena.store.files import RunLock, CompetitionLocked\n"
            "try:\n"
            f"    RunLock(__import__('pathlib').Path({str(files.lock)!r})).acquire()\n"
            "except CompetitionLocked:\n"
            "    sys.exit(3)\n"
        )
        assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 3
        with pytest.raises(CompetitionLocked):
            reset(files)
    assert not is_running(files)


def test_reset_removes_every_output(tmp_path: Path) -> None:
    _, store = record_games(tmp_path, ["0_0"])
    store.close()
    files = files_for(tmp_path)
    files.games_dir.mkdir()
    (files.games_dir / "0_0.sgf").write_text("(;)")
    files.log.write_text("log")
    (tmp_path / "comp.ctl").write_text("keep me")
    removed = reset(files)
    # Every file deleted, those in the records directory too (what reset counts).
    assert {p.name for p in removed} == {"comp.status", "comp.journal", "0_0.sgf", "comp.log"}
    assert sorted(os.listdir(tmp_path)) == ["comp.ctl"]


def test_the_last_journal_entries_come_from_its_tail(tmp_path: Path) -> None:
    playoff, store = record_games(tmp_path, [f"0_{n}" for n in range(6)])
    store.record(VoidEntry("0_6", "0", "engine crashed"), playoff.to_state())
    store.close()
    files = files_for(tmp_path)
    with files.journal.open("ab") as journal:
        journal.write(b'{"kind": "result", "res')  # a line being written
    newest = ["0_4", "0_5", "0_6"]
    assert [_entry_id(e) for e in last_journal_entries(files, 3)] == newest
    # Read from the middle of a line: that line is left out, not misread.
    *_, result_5, void_6, torn = files.journal.read_bytes().split(b"\n")
    cut = len(torn) + len(void_6) + 1 + len(result_5) + 1 + 10  # into 0_4's line
    tail = last_journal_entries(files, 10, tail_bytes=cut)
    assert [_entry_id(e) for e in tail] == ["0_5", "0_6"]
    assert last_journal_entries(files_for(tmp_path / "nothing"), 3) == []


def _entry_id(entry: ResultEntry | VoidEntry) -> str:
    return entry.result.game_id if isinstance(entry, ResultEntry) else entry.game_id
