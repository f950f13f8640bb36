"""SGF game records: properties, escaping, passes as [], comments, void records."""

from __future__ import annotations

import importlib.metadata
import tomllib
from pathlib import Path

from sgfmill import sgf

from arena.control.settings import GameSettings, PlayerConfig
from arena.results import EndReason, GameJob, GameRecord, GameResult, PlayedMove
from arena.store.files import CompetitionFiles
from arena.store.sgf import application_version, build_sgf, write_game_record
from gtp.vertex import PASS, Colour, Move

B, W = Colour.BLACK, Colour.WHITE


def job(size: int = 9, handicap: int | None = None) -> GameJob:
    return GameJob(
        game_id="0_07",
        pairing="0",
        game_number=7,
        black=PlayerConfig("eng-b", ("engb", "--x")),
        white=PlayerConfig("eng-w", ("engw",)),
        settings=GameSettings(board_size=size, komi=0.5, handicap=handicap),
        event="comp (test)",
    )


def record(size: int = 9, **overrides: object) -> GameRecord:
    values: dict[str, object] = {
        "job": job(size),
        "result": GameResult(
            "0_07", "eng-b", "eng-w", W, EndReason.RESIGN, moves=3, cpu_black=1.25
        ),
        "moves": (
            PlayedMove(B, Move((3, 3)), "I like\nthis ] move \\ here"),
            PlayedMove(W, PASS),
            PlayedMove(B, PASS, ""),
        ),
        "player_names": ("Eng]ine:1.0", "Other\nName"),
        "descriptions": ("Engine B, seed 4", ""),
        "notes": ("final message",),
        "date": "2024-05-06 07:08:09",
    }
    values.update(overrides)
    return GameRecord(**values)  # type: ignore[arg-type]


def test_root_properties_and_moves_round_trip() -> None:
    data = build_sgf(record())
    game = sgf.Sgf_game.from_bytes(data)
    root = game.get_root()
    assert root.get("FF") == 4 and root.get("GM") == 1 and root.get("CA") == "UTF-8"
    assert root.get("AP")[0] == "gtp-arena"
    assert game.get_size() == 9 and game.get_komi() == 0.5
    assert root.get("RE") == "W+R" and root.get("DT") == "2024-05-06"
    assert root.get("GN") == "0_07" and root.get("EV") == "comp (test)"
    assert root.get("RU") == "simple ko, suicide allowed, scored by the players"
    assert root.get("PB") == "Eng]ine:1.0" and root.get("PW") == "Other Name"
    comment = root.get("C")
    for expected in (
        "Game id 0_07",
        "Result eng-w beat eng-b W+R",
        "CPU time: black 1.25s, white ?",
        "Black eng-b Engine B, seed 4",
        "White eng-w engw",  # no description: the command line
    ):
        assert expected in comment
    moves = [node.get_move() for node in game.get_main_sequence()[1:]]
    assert moves == [("b", (3, 3)), ("w", None), ("b", None)]
    nodes = game.get_main_sequence()
    assert nodes[1].get("C") == "I like\nthis ] move \\ here"
    assert "final message" in nodes[-1].get("C")
    assert b"W[]" in data and b"B[]" in data and b"[tt]" not in data


def test_passes_are_empty_on_big_boards_too() -> None:
    data = build_sgf(record(size=25, moves=(PlayedMove(B, PASS),)))
    assert b";B[]" in data


def test_handicap_stones_are_setup_in_the_root() -> None:
    with_handicap = record(
        job=job(handicap=2), handicap_stones=((2, 2), (6, 6)), moves=(PlayedMove(W, Move((4, 4))),)
    )
    game = sgf.Sgf_game.from_bytes(build_sgf(with_handicap))
    assert game.get_handicap() == 2
    black, white, _ = game.get_root().get_setup_stones()
    assert black == {(2, 2), (6, 6)} and not white


def test_game_with_no_moves_keeps_the_ending_in_the_root() -> None:
    data = build_sgf(record(moves=(), notes=("late error: engine died",)))
    game = sgf.Sgf_game.from_bytes(data)
    assert len(game.get_main_sequence()) == 1
    assert "late error: engine died" in game.get_root().get("C")


def test_files_go_to_games_or_void(tmp_path: Path) -> None:
    files = CompetitionFiles(tmp_path, "comp")
    assert write_game_record(files, record()) == tmp_path / "comp.games" / "0_07.sgf"
    void = record(result=None, void_reason="black engine crashed")
    path = write_game_record(files, void)
    assert path == tmp_path / "comp.void" / "0_07.sgf"
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    assert not game.get_root().has_property("RE")
    assert "Void game: black engine crashed" in game.get_root().get("C")
    assert write_game_record(files, record(result=None, void_reason="x", moves=())) is None


def test_the_version_in_records_is_the_project_s() -> None:
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    version = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]
    assert application_version() == version
    assert importlib.metadata.version("gtp-arena") == version  # the installed one too
