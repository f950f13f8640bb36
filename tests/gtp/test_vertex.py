"""Table tests for gtp.vertex: colours, strict vertex parsing and canonical formatting."""

from __future__ import annotations

import pytest

from gtp.errors import VertexError
from gtp.vertex import (
    COLUMN_LETTERS,
    PASS,
    RESIGN,
    Colour,
    Move,
    check_board_size,
    format_vertex,
    move_table,
    parse_colour_and_vertex,
    parse_move_answer,
    parse_stone_list,
    parse_vertex,
    vertex_words,
)


@pytest.mark.parametrize("size", range(2, 26))
def test_every_point_round_trips(size: int) -> None:
    seen = set()
    for row in range(size):
        for col in range(size):
            text = format_vertex((row, col), size)
            assert text == text.upper()
            assert parse_vertex(text, size) == (row, col)
            assert parse_vertex(text.lower(), size) == (row, col)
            seen.add(text)
    assert len(seen) == size * size
    assert not any(text.startswith("I") for text in seen)


@pytest.mark.parametrize(
    ("text", "size", "point"),
    [
        ("A1", 19, (0, 0)),
        ("T1", 19, (0, 18)),
        ("A19", 19, (18, 0)),
        ("T19", 19, (18, 18)),
        ("J10", 19, (9, 8)),
        ("H8", 19, (7, 7)),
        ("d4", 19, (3, 3)),
        ("q16", 19, (15, 15)),
        ("Z25", 25, (24, 24)),
        ("z25", 25, (24, 24)),
        ("B2", 2, (1, 1)),
    ],
)
def test_known_vertices(text: str, size: int, point: tuple[int, int]) -> None:
    assert parse_vertex(text, size) == point
    assert format_vertex(point, size) == text.upper()


@pytest.mark.parametrize("text", ["pass", "PASS", "Pass", "pAsS"])
def test_pass_in_any_case(text: str) -> None:
    assert parse_vertex(text, 19) is None
    assert format_vertex(None, 19) == "pass"


@pytest.mark.parametrize(
    "text",
    [
        "I5",  # no column I
        "i5",
        "D04",  # leading zero (GNU Go accepts it, we don't)
        "D4x",
        "D4 ",
        " D4",
        "Z99",
        "A0",
        "T20",
        "U1",  # column 20 on a 19x19 board
        "",
        "D",
        "4",
        "44",
        "DD",
        "D-4",
        "D+4",
        "D1.5",
        "D١",  # a non-ASCII digit
        "D²",
        "resign",
        "passs",
        "A100",
    ],
)
def test_bad_vertices_are_rejected(text: str) -> None:
    with pytest.raises(VertexError):
        parse_vertex(text, 19)


@pytest.mark.parametrize(
    ("text", "size"),
    [("C1", 2), ("A3", 2), ("J9", 8), ("K1", 9), ("A10", 9), ("Z1", 24)],
)
def test_points_off_smaller_boards(text: str, size: int) -> None:
    with pytest.raises(VertexError, match="off"):
        parse_vertex(text, size)


@pytest.mark.parametrize("point", [(19, 0), (0, 19), (-1, 0), (0, -1)])
def test_format_rejects_off_board_points(point: tuple[int, int]) -> None:
    with pytest.raises(VertexError):
        format_vertex(point, 19)


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("resign", RESIGN),
        ("RESIGN", RESIGN),
        ("Resign", RESIGN),
        (" resign\n", RESIGN),
        ("pass", PASS),
        ("PASS", PASS),
        ("d4", Move((3, 3))),
        ("Q16", Move((15, 15))),
    ],
)
def test_parse_move_answer(text: str, move: Move) -> None:
    assert parse_move_answer(text, 19) == move


@pytest.mark.parametrize("text", ["", "resignation", "D4 D5", "Z99", "I5", "PASSS", "claim"])
def test_parse_move_answer_rejects_ill_formed_moves(text: str) -> None:
    with pytest.raises(VertexError):
        parse_move_answer(text, 19)


def test_moves() -> None:
    assert PASS.is_pass and not PASS.is_resign
    assert RESIGN.is_resign and not RESIGN.is_pass
    assert not Move((3, 3)).is_pass
    assert [m.to_gtp(19) for m in (PASS, RESIGN, Move((3, 3)))] == ["pass", "resign", "D4"]


@pytest.mark.parametrize(
    ("text", "colour"),
    [
        ("b", Colour.BLACK),
        ("B", Colour.BLACK),
        ("black", Colour.BLACK),
        ("BLACK", Colour.BLACK),
        ("Black", Colour.BLACK),
        ("w", Colour.WHITE),
        ("W", Colour.WHITE),
        ("white", Colour.WHITE),
        ("WhItE", Colour.WHITE),
    ],
)
def test_colour_parse(text: str, colour: Colour) -> None:
    assert Colour.parse(text) is colour


@pytest.mark.parametrize("text", ["", "red", "bl", "blackk", "x", "o", "0", "empty"])
def test_colour_parse_rejects(text: str) -> None:
    with pytest.raises(VertexError):
        Colour.parse(text)


def test_colour_properties() -> None:
    assert Colour.BLACK.opponent is Colour.WHITE
    assert Colour.WHITE.opponent is Colour.BLACK
    assert (Colour.BLACK.gtp_name, Colour.WHITE.gtp_name) == ("black", "white")
    assert (Colour.BLACK.letter, Colour.WHITE.letter) == ("B", "W")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("b", "d4"), (Colour.BLACK, (3, 3))),
        (("W", "PASS"), (Colour.WHITE, None)),
        (["white", "T19"], (Colour.WHITE, (18, 18))),
    ],
)
def test_parse_colour_and_vertex(
    args: tuple[str, ...], expected: tuple[Colour, tuple[int, int] | None]
) -> None:
    assert parse_colour_and_vertex(args, 19) == expected


@pytest.mark.parametrize(
    "args",
    [(), ("b",), ("d4",), ("b", "d4", "extra"), ("red", "d4"), ("b", "resign"), ("b", "I5")],
)
def test_parse_colour_and_vertex_rejects(args: tuple[str, ...]) -> None:
    with pytest.raises(VertexError):
        parse_colour_and_vertex(args, 19)


@pytest.mark.parametrize(
    ("size", "ok"), [(1, False), (2, True), (19, True), (25, True), (26, False), (0, False)]
)
def test_board_size_limits(size: int, ok: bool) -> None:
    if ok:
        check_board_size(size)
    else:
        with pytest.raises(VertexError):
            check_board_size(size)


def test_column_letters() -> None:
    assert len(COLUMN_LETTERS) == 25
    assert "I" not in COLUMN_LETTERS
    assert COLUMN_LETTERS[:19] == "ABCDEFGHJKLMNOPQRST"


def test_parse_stone_list() -> None:
    assert parse_stone_list(["D4", "q16", "K10"], 19) == [(3, 3), (15, 15), (9, 9)]
    assert parse_stone_list([], 19) == []
    for words, message in (
        (["D4", "pass"], "pass is not a stone"),
        (["D4", "d4"], "repeated vertex: 'd4'"),
        (["D4", "I5"], "invalid vertex"),
        (["D4", "Z99"], "off the 19x19 board"),
    ):
        with pytest.raises(VertexError, match=message):
            parse_stone_list(words, 19)


@pytest.mark.parametrize("size", [2, 9, 19, 25])
def test_move_table_is_what_parsing_makes_of_its_words(size: int) -> None:
    table = move_table(size)
    assert len(table) == 2 * size * size + 2
    for word, move in table.items():
        assert parse_move_answer(word, size) == move
    assert table["pass"] is table["PASS"] is PASS
    # Mixed case, resign and junk are left to the parser.
    for word in ("Pass", "resign", " D4", "D04", "I1", "A0", format_vertex((size, 0), size + 1)):
        assert word not in table


@pytest.mark.parametrize("size", [2, 9, 25])
def test_vertex_words_are_the_canonical_spellings(size: int) -> None:
    words = vertex_words(size)
    assert len(words) == size * size
    for point, word in words.items():
        assert word == format_vertex(point, size)
