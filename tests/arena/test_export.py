"""``arena export``: one row per counted game from the journal, as CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from arena.reports.export import COLUMNS
from arena.results import EndReason, GameResult
from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, StateStore, VoidEntry
from arena_cli.main import main
from gtp.vertex import Colour

GAMES = [
    GameResult("AvB_0", "a", "b", Colour.BLACK, EndReason.SCORE, 3.5, 81, 1.25, 0.5),
    GameResult("AvC_0", "a", "c", Colour.WHITE, EndReason.RESIGN, None, 40, 2.0, None),
    GameResult("AvB_1", "b", "a", None, EndReason.SCORE, None, 120, None, None),  # jigo
    GameResult("BvC_0", "b", "c", None, EndReason.MOVE_LIMIT, None, 300, 3.0, 3.5),
    GameResult("AvC_1", "c", "a", Colour.BLACK, EndReason.FORFEIT, None, 7, reason="illegal move"),
]


def competition(tmp_path: Path) -> Path:
    ctl = tmp_path / "exp.ctl"
    ctl.write_text(
        "competition_type = 'allplayall'\n"
        "players = {'a': Player('x'), 'b': Player('y'), 'c': Player('z')}\n"
        "board_size = 9\nkomi = 7.5\ncompetitors = ['a', 'b', 'c']\n"
    )
    store = StateStore(CompetitionFiles.for_control_file(ctl), "allplayall", durable=False)
    store.open()
    store.append(ResultEntry(GAMES[0], {"a": "engine a"}))
    store.append(VoidEntry("BvC_0", "BvC", "engine crashed"))
    for game in GAMES[1:]:
        store.append(ResultEntry(game))
    duplicate = GameResult("AvB_0", "a", "b", Colour.WHITE, EndReason.RESIGN)
    store.append(ResultEntry(duplicate))  # a game id counts once: the first result
    store.close()
    return ctl


def test_csv_has_one_row_per_counted_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ctl = competition(tmp_path)
    assert main(["export", str(ctl)]) == 0
    out = capsys.readouterr().out
    rows = list(csv.DictReader(io.StringIO(out)))
    assert out.splitlines()[0] == ",".join(COLUMNS)
    assert [
        (r["game_id"], r["matchup"], r["black"], r["white"], r["winner"], r["result"], r["end"])
        for r in rows
    ] == [
        ("AvB_0", "AvB", "a", "b", "a", "B+3.5", "score"),
        ("AvC_0", "AvC", "a", "c", "c", "W+R", "resign"),
        ("AvB_1", "AvB", "b", "a", "", "0", "score"),
        ("BvC_0", "BvC", "b", "c", "", "Void", "move_limit"),
        ("AvC_1", "AvC", "c", "a", "c", "B+F", "forfeit"),
    ]
    first, second = rows[0], rows[1]
    assert (first["margin"], first["moves"], first["cpu_black"], first["cpu_white"]) == (
        "3.5",
        "81",
        "1.25",
        "0.5",
    )
    assert (second["margin"], second["cpu_white"]) == ("", "")
    assert rows[4]["reason"] == "illegal move"


def test_json_keeps_numbers_and_nulls(tmp_path: Path) -> None:
    ctl = competition(tmp_path)
    output = tmp_path / "games.json"
    assert main([str(ctl), "export", "--format", "json", "-o", str(output), "-q"]) == 0
    rows = json.loads(output.read_text())
    assert [row["game_id"] for row in rows] == [g.game_id for g in GAMES]
    assert all(list(row) == list(COLUMNS) for row in rows)
    assert rows[0]["margin"] == 3.5 and rows[0]["moves"] == 81 and rows[0]["cpu_black"] == 1.25
    assert rows[1]["margin"] is None and rows[1]["cpu_white"] is None
    assert rows[2]["winner"] is None and rows[2]["result"] == "0"


def test_no_games_yet_gives_only_the_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ctl = tmp_path / "empty.ctl"
    ctl.write_text(
        "competition_type = 'playoff'\nplayers = {'a': Player('x'), 'b': Player('y')}\n"
        "board_size = 9\nkomi = 7.5\nmatchups = [Matchup('a', 'b')]\n"
    )
    assert main(["export", str(ctl), "--format", "csv"]) == 0
    assert capsys.readouterr().out == ",".join(COLUMNS) + "\n"
    assert main(["export", str(ctl), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_unwritable_output_and_bad_format_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ctl = competition(tmp_path)
    assert main(["export", str(ctl), "-o", str(tmp_path / "no" / "such" / "dir.csv")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("arena: cannot write ") and err.count("\n") == 1
    with pytest.raises(SystemExit) as info:
        main(["export", str(ctl), "--format", "xml"])
    assert info.value.code == 2
    assert "invalid choice: 'xml'" in capsys.readouterr().err
