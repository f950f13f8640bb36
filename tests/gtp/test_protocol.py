"""gtp.protocol: the spec's preprocessing, ids and framing on both sides, as tables and fuzz."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gtp.errors import ProtocolError
from gtp.protocol import (
    MAX_ID,
    BadCommandLine,
    Command,
    CommandReader,
    Response,
    ResponseReader,
    format_command,
    format_response,
)


def short_id(value: object) -> str | None:
    """Readable test ids for long byte strings."""
    if isinstance(value, bytes | str):
        text = repr(value)
        return text if len(text) <= 40 else f"{text[:30]}...({len(value)})"
    return None


def read_commands(data: bytes, max_line_bytes: int | None = None) -> list[Command | BadCommandLine]:
    reader = CommandReader() if max_line_bytes is None else CommandReader(max_line_bytes)
    return reader.feed(data) + reader.close()


def read_responses(data: bytes, **caps: int) -> list[Response]:
    reader = ResponseReader(**caps)
    reader.feed(data)
    responses = []
    while (response := reader.next_response()) is not None:
        responses.append(response)
    return responses


# --------------------------------------------------------------------------
# Engine side: preprocessing (§3.1) and ids (§2.5, §3.2.1)

NAME = Command(None, "name")

COMMAND_LINES = [
    # (input, items): empty, blank and comment lines get no item at all
    (b"\n", []),
    (b" \t \t\n", []),
    (b"\n\n\n", []),
    (b"# comment only\n", []),
    (b"   # indented comment\n", []),
    (b"#\n", []),
    (b"\x01\x02\x1b\n", []),
    (b"name # trailing comment\n", [NAME]),
    (b"name#glued comment\n", [NAME]),
    (b"\tlist_commands\t\n", [Command(None, "list_commands")]),
    (b"play\tb\t\tD4\n", [Command(None, "play", ("b", "D4"))]),
    (b"name\r\n", [NAME]),
    (b"boardsize 9\r\n", [Command(None, "boardsize", ("9",))]),
    (b"na\x00m\x7fe\n", [NAME]),
    (b"  name   \n", [NAME]),
    (b"name", [NAME]),  # the last line still counts without its newline
    (b"name\nversion\n", [NAME, Command(None, "version")]),
    (b"NAME\n", [Command(None, "NAME")]),  # case is kept: names are case-sensitive
    # ids
    (b"42 name\n", [Command(42, "name")]),
    (b"0 name\n", [Command(0, "name")]),
    (b"007 name\n", [Command(7, "name")]),
    (b"42\tplay b D4\n", [Command(42, "play", ("b", "D4"))]),
    (b"-5 name\n", [NAME]),  # a negative id is never echoed
    (b"2147483647 name\n", [Command(MAX_ID, "name")]),
    (b"2147483648 name\n", [Command(MAX_ID, "name")]),
    (b"99999999999999999999 name\n", [Command(MAX_ID, "name")]),
    (b"1" * 5000 + b" name\n", [Command(MAX_ID, "name")]),
    (b"12abc\n", [Command(None, "12abc")]),
    (b"- name\n", [Command(None, "-", ("name",))]),
    # an id alone is a non-empty line: it is answered (with a failure)
    (b"7\n", [BadCommandLine(7, "no command name")]),
    (b"7 # just an id\n", [BadCommandLine(7, "no command name")]),
    (b"-5\n", [BadCommandLine(None, "no command name")]),
    # binary junk is one (unknown) command, never an exception
    (b"\xff\xfe\n", [Command(None, "\ufffd\ufffd")]),
]


@pytest.mark.parametrize(("data", "expected"), COMMAND_LINES, ids=short_id)
def test_command_reader_preprocesses_lines(
    data: bytes, expected: list[Command | BadCommandLine]
) -> None:
    assert read_commands(data) == expected


OVERLONG = [
    (b"x" * 100 + b"\n", [BadCommandLine(None, "command line too long")]),
    (b"5 " + b"x" * 100 + b"\n", [BadCommandLine(5, "command line too long")]),
    (b"-5 " + b"x" * 100 + b"\n", [BadCommandLine(None, "command line too long")]),
    (b"x" * 100, [BadCommandLine(None, "command line too long")]),  # ended by EOF
    (b"# " + b"x" * 100 + b"\n", []),  # a long comment is still a comment
    (b" " * 100 + b"\n", []),
    (b"\t\r" * 100 + b"\n", []),
    (b" " * 100 + b"name\n", [BadCommandLine(None, "command line too long")]),
    (b"x" * 20 + b"\n", [Command(None, "x" * 20)]),  # exactly at the limit
    (b"x" * 21 + b"\n", [BadCommandLine(None, "command line too long")]),
    (b"x" * 100 + b"\nname\n", [BadCommandLine(None, "command line too long"), NAME]),
]


@pytest.mark.parametrize(("data", "expected"), OVERLONG, ids=short_id)
@pytest.mark.parametrize("chunk", [1, 7, 1000])
def test_over_long_lines_get_one_item_however_they_arrive(
    data: bytes, expected: list[Command | BadCommandLine], chunk: int
) -> None:
    reader = CommandReader(max_line_bytes=20)
    items = []
    for start in range(0, len(data), chunk):
        items += reader.feed(data[start : start + chunk])
    assert items + reader.close() == expected


def test_over_long_line_is_not_buffered_whole() -> None:
    reader = CommandReader(max_line_bytes=1000)
    for _ in range(1000):
        assert reader.feed(b"y" * 1000) == []
    assert len(reader._buffer) <= 1000
    assert reader.feed(b"\nname\n") == [BadCommandLine(None, "command line too long"), NAME]


# --------------------------------------------------------------------------
# Engine side: response formatting


FORMATTED = [
    # (ok, text, id, bytes)
    (True, "", None, b"=\n\n"),
    (True, "", 7, b"=7\n\n"),
    (True, "D4", 7, b"=7 D4\n\n"),
    (True, "GNU Go", None, b"= GNU Go\n\n"),
    (False, "unknown command", 42, b"?42 unknown command\n\n"),
    (False, "illegal move", None, b"? illegal move\n\n"),
    (True, "a\nb", None, b"= a\nb\n\n"),
    (True, "a\n\nb", None, b"= a\n.\nb\n\n"),  # a blank line would end the response
    (True, "a\n   \nb", 3, b"=3 a\n.\nb\n\n"),
    (True, "line\n", None, b"= line\n\n"),
    (True, "line\n\n\n", None, b"= line\n\n"),
    (True, "\n  A B\n1 . .", None, b"=\n  A B\n1 . .\n\n"),  # a diagram keeps its columns
    (True, "a\tb\r", None, b"= a b\n\n"),  # spaces only on output, no CR
]


@pytest.mark.parametrize(("ok", "text", "command_id", "expected"), FORMATTED, ids=short_id)
def test_format_response(ok: bool, text: str, command_id: int | None, expected: bytes) -> None:
    assert format_response(ok, text, command_id) == expected


@given(
    ok=st.booleans(),
    text=st.text(st.characters(codec="utf-8", exclude_categories=["Cs"])),
    command_id=st.none() | st.integers(0, MAX_ID),
)
def test_formatted_responses_read_back_as_one_response(
    ok: bool, text: str, command_id: int | None
) -> None:
    data = format_response(ok, text, command_id)
    assert data.endswith(b"\n\n")
    assert b"\n\n" not in data[:-2]
    [response] = read_responses(data)
    assert (response.ok, response.id) == (ok, command_id)

    # Only blank lines, control characters and edge spaces may change.
    def words(value: str) -> list[str]:
        value = value.replace("\t", " ")
        return "".join(c for c in value if c.isprintable() or c == "\n").split()

    assert [w for w in words(response.text) if w != "."] == [w for w in words(text) if w != "."]


# --------------------------------------------------------------------------
# Controller side


def test_format_command() -> None:
    assert format_command("play", ("b", "D4"), 12) == b"12 play b D4\n"
    assert format_command("name") == b"name\n"
    for bad in ("two words", "new\nline", "tab\t", "", "hash#", "bell\x07"):
        with pytest.raises(ValueError, match="well-formed"):
            format_command("komi", (bad,))


RESPONSES = [
    (b"= \n\n", [Response(True, None, "")]),
    (b"=\n\n", [Response(True, None, "")]),
    (b"=7 D4\n\n", [Response(True, 7, "D4")]),
    (b"=7\n\n", [Response(True, 7, "")]),
    (b"=7 \n\n", [Response(True, 7, "")]),
    (b"= pass  \n\n", [Response(True, None, "pass")]),
    (b"?3 illegal move\n\n", [Response(False, 3, "illegal move")]),
    (b"? \n\n", [Response(False, None, "")]),
    (b"= a\nb\nc\n\n", [Response(True, None, "a\nb\nc")]),
    (b"=\n  A B\n1 . .\n\n", [Response(True, None, "  A B\n1 . .")]),
    (b"= D4\r\n\r\n", [Response(True, None, "D4")]),
    (b"= a\tb\n\n", [Response(True, None, "a b")]),
    (b"\n\n= a\n\n  \n\n= b\n\n", [Response(True, None, "a"), Response(True, None, "b")]),
    (b"=1 x\n\n=2 y\n\n", [Response(True, 1, "x"), Response(True, 2, "y")]),
    (b"=" + b"9" * 5000 + b" x\n\n", [Response(True, MAX_ID, "x")]),
    # incomplete: nothing yet
    (b"= D", []),
    (b"= D4\n", []),
    (b"   ", []),
    (b"\n\n", []),
]


@pytest.mark.parametrize(("data", "expected"), RESPONSES, ids=short_id)
def test_response_reader(data: bytes, expected: list[Response]) -> None:
    assert read_responses(data) == expected


@pytest.mark.parametrize(
    ("data", "message"),
    ids=short_id,
    argvalues=[
        (b"# thinking...\n\n", "isn't speaking GTP"),  # controllers don't strip comments
        (b"! panic\n\n", "isn't speaking GTP"),
        (b"C3\n\n", "isn't speaking GTP"),  # no status character
        (b"Usage: foo [options]\n", "isn't speaking GTP"),
        (b"GTP> ", "isn't speaking GTP"),
        (b"  = D4\n\n", "isn't speaking GTP"),
        (b"\x01\x02GMP", "GMP"),
        (b"=abc\n\n", "malformed"),
        (b"=7D4\n\n", "malformed"),
    ],
)
def test_response_reader_refuses_what_is_not_gtp(data: bytes, message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        read_responses(data)


def test_response_reader_pending() -> None:
    reader = ResponseReader()
    reader.feed(b"\n\n")
    assert reader.next_response() is None
    assert not reader.pending
    reader.feed(b"= D")
    assert reader.next_response() is None
    assert reader.pending
    reader.feed(b"4\n\n")
    assert reader.next_response() == Response(True, None, "D4")
    assert not reader.pending


CAP_CASES = [
    # (data, max_line, max_response, error or None)
    (b"= " + b"x" * 200 + b"\n\n", 100, 10_000, "line exceeds"),
    (b"= a\n" + b"x" * 200 + b"\nb\n\n", 100, 10_000, "line exceeds"),  # a middle line
    (b"= " + b"x" * 98 + b"\n\n", 100, 10_000, None),  # '= ' + 98 is exactly the cap
    (b"= " + b"x\n" * 1000 + b"\n", 100, 1000, "response exceeds"),
    (b"=1 ok\n\n= " + b"x\n" * 1000 + b"\n", 100, 1000, "response exceeds"),
    (b"= " + b"x\n" * 400 + b"\n", 100, 1000, None),
    (b" " * 200, 100, 10_000, "line exceeds"),  # a flood of spaces without a newline
]


@pytest.mark.parametrize(("data", "max_line", "max_response", "error"), CAP_CASES, ids=short_id)
@pytest.mark.parametrize("chunk", [1, 13, 100_000])
def test_response_caps_apply_however_bytes_arrive(
    data: bytes, max_line: int, max_response: int, error: str | None, chunk: int
) -> None:
    reader = ResponseReader(max_line_bytes=max_line, max_response_bytes=max_response)

    def run() -> None:
        for start in range(0, len(data), chunk):
            reader.feed(data[start : start + chunk])
            while reader.next_response() is not None:
                pass

    if error is None:
        run()
    else:
        with pytest.raises(ProtocolError, match=error):
            run()


def test_response_cap_is_checked_by_feed_alone() -> None:
    reader = ResponseReader(max_line_bytes=100, max_response_bytes=1000)
    reader.feed(b"= x\n")
    with pytest.raises(ProtocolError, match="response exceeds"):
        for _ in range(1000):
            reader.feed(b"x\n")


# --------------------------------------------------------------------------
# Fuzzing both readers with arbitrary bytes in arbitrary chunks

# Bytes that matter to the parsers, mixed with anything at all.
_INTERESTING = st.sampled_from(
    [
        b"\n",
        b"\n\n",
        b" ",
        b"\t",
        b"\r",
        b"#",
        b"=",
        b"?",
        b"-",
        b"7",
        b"42 ",
        b"name",
        b"\x00",
        b"\x01",
        b"\x7f",
        b"\xff",
        b"= D4\n\n",
        b"?1 no\n\n",
        b"x" * 40,
    ]
)
_DATA = st.lists(_INTERESTING | st.binary(max_size=12), max_size=40).map(b"".join)


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def expected_command_count(data: bytes) -> int:
    """Lines that are non-empty after §3.1 preprocessing, computed independently."""
    count = 0
    for line in data.split(b"\n"):
        kept = bytes(b for b in line if b == 9 or 32 <= b < 127 or b >= 128)
        kept = kept.split(b"#", 1)[0]
        if kept.replace(b" ", b"").replace(b"\t", b""):
            count += 1
    return count


@given(
    data=_DATA,
    cuts=st.lists(st.integers(0, 10_000), max_size=10),
    max_line=st.sampled_from([16, 64, 64 * 1024]),
)
def test_command_reader_fuzz(data: bytes, cuts: list[int], max_line: int) -> None:
    whole = CommandReader(max_line_bytes=max_line)
    expected = whole.feed(data) + whole.close()
    assert len(expected) == expected_command_count(data)
    chunked = CommandReader(max_line_bytes=max_line)
    items = []
    for piece in _split(data, cuts):
        items += chunked.feed(piece)
    assert items + chunked.close() == expected


@given(
    data=_DATA,
    cuts=st.lists(st.integers(0, 10_000), max_size=10),
    caps=st.sampled_from([(16, 64), (64, 1024), (1 << 20, 1 << 23)]),
)
def test_response_reader_fuzz(data: bytes, cuts: list[int], caps: tuple[int, int]) -> None:
    reader = ResponseReader(max_line_bytes=caps[0], max_response_bytes=caps[1])
    try:
        for piece in _split(data, cuts):
            reader.feed(piece)
            while (response := reader.next_response()) is not None:
                assert isinstance(response.text, str)
    except ProtocolError:
        pass


def _responses_by(reader: ResponseReader, pieces: list[bytes], fast: bool) -> list[object]:
    """What reading ``pieces`` gives: the responses, then the error's message if any."""
    got: list[object] = []
    try:
        for piece in pieces:
            if fast:
                response = reader.receive(piece)
                if response is not None:
                    got.append(response)
            else:
                reader.feed(piece)
            while (response := reader.next_response()) is not None:
                got.append(response)
    except ProtocolError as exc:
        got.append(exc.message)
    return got


_ANSWER_LIKE = st.lists(
    st.sampled_from(
        [
            *(b"=1 D4\n\n", b"= \n\n", b"=\n\n", b"?2 illegal\n\n", b"=3 a\nb\n\n"),
            *(b"=4 x\r\n\r\n", b"=5 \t\x00tab\n\n", b"\n", b"=6 " + b"y" * 40 + b"\n\n"),
            *(b"junk\n", b"="),
        ]
    ),
    max_size=8,
).map(b"".join)


@given(
    data=st.one_of(_DATA, _ANSWER_LIKE),
    cuts=st.lists(st.integers(0, 10_000), max_size=10),
    caps=st.sampled_from([(16, 64), (64, 1024), (1 << 20, 1 << 23)]),
)
def test_receive_is_feed_then_next_response(
    data: bytes, cuts: list[int], caps: tuple[int, int]
) -> None:
    pieces = [b"=0 first\n\n", *_split(data, cuts)]  # the fast path starts after the first data
    plain = _responses_by(ResponseReader(*caps), pieces, fast=False)
    assert _responses_by(ResponseReader(*caps), pieces, fast=True) == plain


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"=7 D4\n\n", Response(True, 7, "D4")),
        (b"?7 illegal move\n\n", Response(False, 7, "illegal move")),
        (b"=\n\n", Response(True, None, "")),
        (b"=7 a\n b\n\n", Response(True, 7, "a\n b")),
        (b"=7\tD4\x07\n\n", Response(True, 7, "D4")),
        (b"=7 D4\n", None),  # not yet whole
        (b"=", None),
    ],
)
def test_receive_one_whole_response(data: bytes, expected: Response | None) -> None:
    reader = ResponseReader()
    assert reader.receive(b"= first\n\n") == Response(True, None, "first")
    assert reader.receive(data) == expected
    assert reader.pending is (expected is None)
