"""SGF game records: properties, escaping, passes as [], comments, void records."""

from __future__ import annotations

import datetime
import importlib.metadata
import math
import tomllib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from sgfmill import sgf, sgf_grammar

from arena.control.settings import GameSettings, PlayerConfig
from arena.control.timecontrol import format_seconds
from arena.results import EndReason, GameJob, GameRecord, GameResult, PlayedMove
from arena.store.files import CompetitionFiles
from arena.store.sgf import (
    APPLICATION_VERSION,
    _one_line,
    _root_comment,
    _set_time_control,
    application_version,
    build_sgf,
    write_game_record,
)
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


# -- build_sgf's serialiser, pinned byte for byte against sgfmill's -------------


def sgfmill_build_sgf(record: GameRecord) -> bytes:
    """build_sgf as it was before its own serialiser: sgfmill's, the reference."""
    job = record.job
    settings = job.settings
    game = sgf.Sgf_game(settings.board_size, encoding="UTF-8")
    root = game.get_root()
    root.set("AP", ("gtp-arena", APPLICATION_VERSION))
    root.set("KM", settings.komi)
    if record.handicap_stones:
        root.set("HA", len(record.handicap_stones))
        root.set_setup_stones(record.handicap_stones, [])
    if record.result is not None:
        root.set("RE", record.result.sgf_result)
    date = record.date[:10] if record.date else datetime.date.today().isoformat()
    root.set("DT", date)
    root.set("GN", job.game_id)
    if job.event:
        root.set("EV", _one_line(job.event))
    root.set("RU", settings.rules_description())
    black_name = _one_line(record.player_names[0]) or job.black.code
    white_name = _one_line(record.player_names[1]) or job.white.code
    root.set("PB", black_name)
    root.set("PW", white_name)
    _set_time_control(root, job)
    root.set("C", _root_comment(record))
    # The moves go straight into sgfmill's serialiser as raw property maps:
    # building a Tree_node per move (validation, parent links, then walking
    # the tree again to serialise it) was most of the cost of a record.  Move
    # values need no escaping; comments go through sgfmill's presenter.
    presenter = game.get_property_presenter()
    sequence: list[dict[str, list[bytes]]] = [root.get_raw_property_map()]
    top = settings.board_size - 1
    for played in record.moves:
        prop = "B" if played.colour is Colour.BLACK else "W"
        point = played.move.point
        if point is None:
            value = b""  # a pass is [] whatever the board size
        else:
            row, col = point  # SGF: column letter, then row letter counted from the top
            value = bytes((97 + col, 97 + top - row))
        properties = {prop: [value]}
        if played.time_left is not None:
            left = format_seconds(math.floor(played.time_left * 1000) / 1000).encode()
            properties[f"{prop}L"] = [left]
            if played.overtime_left:
                properties[f"O{prop}"] = [str(played.overtime_left).encode()]
        comment = played.comment.strip()
        if comment:
            properties["C"] = presenter.serialise("C", comment)
        sequence.append(properties)
    final = [note for note in record.notes if note.strip()]
    ending = record.result.reason if record.result is not None else record.void_reason
    if ending and record.moves:
        final.insert(0, ending)
    if final:
        if not record.moves:
            root.add_comment_text("\n".join(final))
        else:
            last = sequence[-1]
            text = "\n\n".join(final)
            if "C" in last:  # as sgfmill's add_comment_text does
                text = presenter.interpret("C", last["C"]) + "\n\n" + text
            last["C"] = presenter.serialise("C", text)
    tree = sgf_grammar.Coarse_game_tree()
    tree.sequence = sequence
    data: bytes = sgf_grammar.serialise_game_tree(tree)
    return data


played_moves = st.builds(
    PlayedMove,
    st.sampled_from([B, W]),
    st.one_of(st.just(PASS), st.builds(Move, st.tuples(st.integers(0, 8), st.integers(0, 8)))),
    st.sampled_from(["", " ", "why ] not \\", "a\nb", "x" * 100]),
    st.none(),
    st.one_of(st.none(), st.floats(0, 10_000, allow_nan=False)),
    st.integers(0, 25),
)


@settings(max_examples=300, deadline=None)
@given(
    moves=st.lists(played_moves, max_size=40),
    notes=st.lists(st.sampled_from(["", "late error: x", "a]b\nc"]), max_size=2),
    void=st.booleans(),
    handicap=st.sampled_from([None, 2, 5]),
)
def test_build_sgf_writes_what_sgfmill_writes(
    moves: list[PlayedMove], notes: list[str], void: bool, handicap: int | None
) -> None:
    values: dict[str, object] = {
        "moves": tuple(moves),
        "notes": tuple(notes),
        "job": job(9, handicap),
    }
    if handicap:
        values["handicap_stones"] = ((2, 2), (6, 6))
    if void:
        values["result"] = None
        values["void_reason"] = "engine died"
    one = record(9, **values)
    assert build_sgf(one) == sgfmill_build_sgf(one)


def test_build_sgf_writes_what_sgfmill_writes_on_every_size_and_long_games() -> None:
    for size in (2, 9, 13, 19, 25):
        points = [(row, col) for row in range(size) for col in range(size)]
        moves = tuple(
            PlayedMove(
                B if n % 2 == 0 else W, PASS if n % 7 == 3 else Move(points[n % len(points)])
            )
            for n in range(300)
        )
        one = record(size, job=job(size), moves=moves)
        assert build_sgf(one) == sgfmill_build_sgf(one)
