"""gtp.connection: the controller's session state, without processes or streams.

Bytes in, responses out: ids, owed answers, the early-output check, id
matching, the caps, the broken state, pipelining, and that none of it depends
on how the engine's output is split into chunks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gtp.connection import Connection
from gtp.errors import EngineFault, EngineGone, EngineTimeout, GtpError, ProtocolError
from gtp.protocol import MAX_ID, Command, Response, format_command


def receive_all(connection: Connection, data: bytes) -> list[Response]:
    """Every answer completed by ``data``."""
    responses: list[Response] = []
    response = connection.receive(data)
    while response is not None:
        responses.append(response)
        response = connection.next_response()
    return responses


# --------------------------------------------------------------------------
# Sending


def test_each_command_gets_the_next_id() -> None:
    connection = Connection("e")
    assert connection.last_id == 0
    assert connection.send("name") == b"1 name\n"
    assert connection.receive(b"=1 e\n\n") == Response(True, 1, "e")
    assert connection.send("play", ("b", "D4")) == b"2 play b D4\n"
    assert connection.awaiting == (Command(2, "play", ("b", "D4")),)
    assert connection.waiting_for == Command(2, "play", ("b", "D4"))
    assert connection.busy
    assert connection.last_id == 2


def test_ids_wrap_at_the_largest_id() -> None:
    connection = Connection()
    connection._next_id = MAX_ID - 1
    assert connection.send("a") == f"{MAX_ID} a\n".encode()
    assert connection.receive(f"={MAX_ID}\n\n".encode()) == Response(True, MAX_ID, "")
    assert connection.send("b") == b"1 b\n"


@pytest.mark.parametrize("bad", ["two words", "line\nbreak", "", "#comment", "tab\there"])
def test_a_word_gtp_cannot_carry_changes_nothing(bad: str) -> None:
    connection = Connection()
    with pytest.raises(ValueError):
        connection.send("play", ("b", bad))
    with pytest.raises(ValueError):
        connection.send_many([("name",), ("play", "b", bad)])
    with pytest.raises(ValueError):
        connection.send_many([()])
    with pytest.raises(TypeError, match="not a string"):
        connection.send_many(["name"])
    assert not connection.busy
    assert connection.usable
    assert connection.send("name") == b"1 name\n"


def test_send_many_is_one_piece_with_consecutive_ids() -> None:
    connection = Connection()
    connection.send("name")
    connection.receive(b"=1 x\n\n")
    line = connection.send_many(
        [("play", "b", "D4"), ("time_left", "w", "30", "0"), ("genmove", "w")]
    )
    assert line == b"2 play b D4\n3 time_left w 30 0\n4 genmove w\n"
    assert [command.id for command in connection.awaiting] == [2, 3, 4]
    assert connection.send_many([]) == b""
    assert connection.last_id == 4


# --------------------------------------------------------------------------
# Answers: a table of what the engine writes to one command (``3 genmove b``)


@pytest.mark.parametrize(
    ("written", "strict", "expected"),
    [
        (b"=3 D4\n\n", False, Response(True, 3, "D4")),
        (b"= D4\n\n", False, Response(True, None, "D4")),
        (b"=D4\n\n", False, "malformed response"),
        (b"=3\n\n", True, Response(True, 3, "")),
        (b"=3 \n\n", True, Response(True, 3, "")),
        (b"=3 D4\r\n\r\n", True, Response(True, 3, "D4")),
        (b"=3\tD4 \n\n", True, Response(True, 3, "D4")),
        (b"\n\n=3 D4\n\n", True, Response(True, 3, "D4")),
        (b"=3 a\n b\nc \n\n", True, Response(True, 3, "a\n b\nc")),
        (b"=3\nboard\n\n", True, Response(True, 3, "board")),
        (b"?3 illegal move\n\n", True, Response(False, 3, "illegal move")),
        (b"? illegal move\n\n", False, Response(False, None, "illegal move")),
        (b"= D4\n\n", True, "response to 'genmove b' has no id (expected 3)"),
        (b"=2 D4\n\n", False, "response id 2 does not match command id 3 ('genmove b')"),
        (b"=4 D4\n\n", True, "response id 4 does not match command id 3 ('genmove b')"),
        (b"Coming right up\n", False, "isn't speaking GTP: response starts with 'C'"),
        (b"# thinking\n=3 D4\n\n", False, "starts with '#'"),
        (b"! panic\n", False, "starts with '!'"),
        (b"GTP> ", False, "'GTP> '"),
    ],
)
def test_one_answer(written: bytes, strict: bool, expected: Response | str) -> None:
    connection = Connection("e", strict_ids=strict)
    connection._next_id = 2
    connection.send("genmove", ("b",))
    if isinstance(expected, Response):
        assert receive_all(connection, written) == [expected]
        assert connection.usable
        assert not connection.busy
        return
    with pytest.raises(ProtocolError) as caught:
        receive_all(connection, written)
    assert expected in str(caught.value)
    assert str(caught.value).startswith("engine 'e': ")
    assert connection.broken_by is caught.value
    assert not connection.usable


def test_a_failure_answer_leaves_the_connection_usable() -> None:
    connection = Connection()
    connection.send("play", ("b", "D4"))
    assert connection.receive(b"?1 illegal move\n\n") == Response(False, 1, "illegal move")
    assert connection.usable
    assert connection.send("name") == b"2 name\n"
    assert connection.receive(b"=2 e\n\n") == Response(True, 2, "e")


def test_an_answer_in_pieces_comes_whole_with_the_last_piece() -> None:
    connection = Connection()
    connection.send("genmove", ("b",))
    for piece in (b"=", b"1 ", b"D4", b"\n"):
        assert connection.receive(piece) is None
        assert connection.pending
    assert connection.receive(b"\n") == Response(True, 1, "D4")
    assert not connection.pending


def test_gmp_is_refused() -> None:
    connection = Connection("e")
    connection.send("name")
    with pytest.raises(ProtocolError, match="speaking GMP"):
        connection.receive(b"\x01\x02\x03\x04")
    assert not connection.usable


# --------------------------------------------------------------------------
# Output before its command


def test_a_second_answer_to_one_command_is_early_for_the_next() -> None:
    connection = Connection("e")
    connection.send("name")
    assert connection.receive(b"=1 e\n\n=1 e\n\n") == Response(True, 1, "e")
    assert connection.next_response() is None  # nothing is owed
    with pytest.raises(ProtocolError) as caught:
        connection.send("version")
    assert str(caught.value) == "engine 'e': sent a response before 'version' was sent"
    assert connection.broken_by is caught.value


@pytest.mark.parametrize("early", [b"=5 x\n\n", b"= x\n", b"stray\n", b"x"])
def test_output_with_no_command_owed_is_a_protocol_error_at_the_next_send(early: bytes) -> None:
    connection = Connection("e")
    assert connection.receive(early) is None
    with pytest.raises(ProtocolError, match="before 'name' was sent"):
        connection.send("name")
    assert not connection.usable


@pytest.mark.parametrize("blank", [b"\n", b"\n\n  \n", b"  \n"])
def test_blank_lines_between_answers_are_not_early(blank: bytes) -> None:
    connection = Connection()
    connection.send("name")
    assert connection.receive(b"=1 e\n\n" + blank) == Response(True, 1, "e")
    assert connection.send("version") == b"2 version\n"
    assert connection.receive(b"=2 1\n\n") == Response(True, 2, "1")


def test_early_output_in_a_pipeline_too() -> None:
    connection = Connection()
    connection.receive(b"=9 x\n\n")
    with pytest.raises(ProtocolError, match="a response before 'play b D4' was sent"):
        connection.send_many([("play", "b", "D4"), ("genmove", "w")])


# --------------------------------------------------------------------------
# Caps


@pytest.mark.parametrize(
    ("written", "message"),
    [
        (b"=1 " + b"x" * 200 + b"\n\n", "response line exceeds 100 bytes"),
        (b"=1 " + b"x" * 200, "response line exceeds 100 bytes"),
        (b"=1 " + b"xxxx\n" * 300 + b"\n", "response exceeds 1000 bytes"),
        (b" " * 200, "response line exceeds 100 bytes"),
    ],
)
def test_oversize_answers_break_the_connection(written: bytes, message: str) -> None:
    connection = Connection("e", max_line_bytes=100, max_response_bytes=1000)
    connection.send("showboard")
    with pytest.raises(ProtocolError, match=message):
        for start in range(0, len(written), 7):
            connection.receive(written[start : start + 7])
    assert not connection.usable


def test_answers_within_the_caps_are_fine() -> None:
    connection = Connection(max_line_bytes=100, max_response_bytes=1000)
    connection.send("showboard")
    board = b"=1 " + b"x" * 90 + b"\n" + b"y" * 100 + b"\n\n"
    assert receive_all(connection, board) == [Response(True, 1, "x" * 90 + "\n" + "y" * 100)]


# --------------------------------------------------------------------------
# Broken


@pytest.mark.parametrize(
    "fault",
    [
        EngineTimeout("genmove b", 5.0, engine="e"),
        EngineGone("closed its output", engine="e", returncode=3),
        ProtocolError("garbage", engine="e"),
    ],
)
def test_after_a_fault_every_send_raises(fault: EngineFault) -> None:
    connection = Connection("e")
    connection.send("genmove", ("b",))
    assert connection.fail(fault) is fault
    assert connection.broken_by is fault
    assert not connection.busy
    assert not connection.usable
    assert connection.receive(b"=1 D4\n\n") is None  # a late answer is ignored
    with pytest.raises(EngineGone) as caught:
        connection.send("name")
    assert caught.value.message == f"unusable after an earlier error: {fault.message}"
    expected_code = fault.returncode if isinstance(fault, EngineGone) else None
    assert caught.value.returncode == expected_code
    with pytest.raises(EngineGone, match="unusable after an earlier error"):
        connection.send_many([("name",)])
    connection.fail(EngineGone("again", engine="e"))
    assert connection.broken_by is fault  # the first fault is kept


def test_closed() -> None:
    connection = Connection("e")
    connection.close()
    assert connection.closed
    assert not connection.usable
    assert connection.broken_by is None
    with pytest.raises(EngineGone, match="connection already closed"):
        connection.send("name")


def test_a_protocol_error_with_nothing_owed_breaks_it_too() -> None:
    connection = Connection("e")
    with pytest.raises(ProtocolError, match="GMP"):
        connection.receive(b"\x01")
    assert not connection.usable


# --------------------------------------------------------------------------
# Pipelining


def test_pipelined_answers_come_in_order_from_one_chunk() -> None:
    connection = Connection()
    connection.send_many([("play", "b", "D4"), ("genmove", "w")])
    assert receive_all(connection, b"=1\n\n=2 Q16\n\n") == [
        Response(True, 1, ""),
        Response(True, 2, "Q16"),
    ]
    assert not connection.busy


def test_a_refused_command_in_a_pipeline_keeps_the_rest_in_step() -> None:
    connection = Connection()
    connection.send_many([("play", "b", "D4"), ("genmove", "w")])
    assert connection.receive(b"?1 illegal move\n\n") == Response(False, 1, "illegal move")
    assert connection.busy
    assert connection.receive(b"=2 Q16\n\n") == Response(True, 2, "Q16")
    assert connection.usable
    assert connection.send("name") == b"3 name\n"


def test_pipelined_answers_out_of_order_are_a_protocol_error() -> None:
    connection = Connection("e")
    connection.send_many([("play", "b", "D4"), ("genmove", "w")])
    with pytest.raises(ProtocolError, match="response id 2 does not match command id 1"):
        receive_all(connection, b"=2 Q16\n\n=1\n\n")


def test_pipelined_commands_without_ids_in_the_answers_match_in_order() -> None:
    connection = Connection()
    connection.send_many([("play", "b", "D4"), ("genmove", "w")])
    assert receive_all(connection, b"=\n\n= Q16\n\n") == [
        Response(True, None, ""),
        Response(True, None, "Q16"),
    ]


def test_a_fault_mid_pipeline_forgets_every_owed_answer() -> None:
    connection = Connection("e")
    connection.send_many([("play", "b", "D4"), ("genmove", "w")])
    assert connection.receive(b"=1\n\n") == Response(True, 1, "")
    assert connection.waiting_for == Command(2, "genmove", ("w",))
    with pytest.raises(ProtocolError, match=r"\(while running 'genmove w'\)"):
        connection.receive(b"garbage\n")
    assert connection.awaiting == ()


# --------------------------------------------------------------------------
# Chunking never matters

_ANSWERS = st.lists(
    st.tuples(
        st.booleans(),
        st.booleans(),  # with the id
        st.lists(
            st.text(
                alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")),
                max_size=12,
            ).map(str.strip),
            min_size=1,
            max_size=3,
        ),
    ),
    min_size=1,
    max_size=5,
)


def _written(answers: list[tuple[bool, bool, list[str]]]) -> tuple[bytes, list[Response]]:
    data = b""
    expected: list[Response] = []
    for number, (ok, with_id, lines) in enumerate(answers, start=1):
        lines = [line if line else "." for line in lines]  # a blank line would end it
        text = "\n".join(lines)
        status = ("=" if ok else "?") + (str(number) if with_id else "")
        data += f"{status} {text}\n\n".encode()
        expected.append(Response(ok, number if with_id else None, text))
    return data, expected


@given(answers=_ANSWERS, data=st.data())
def test_pipelined_answers_do_not_depend_on_the_chunks(
    answers: list[tuple[bool, bool, list[str]]], data: st.DataObject
) -> None:
    written, expected = _written(answers)
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(written) - 1)), max_size=8)))
    pieces = [written[a:b] for a, b in zip([0, *cuts], [*cuts, len(written)], strict=True)]
    connection = Connection()
    connection.send_many([("c", str(number)) for number in range(len(answers))])
    got: list[Response] = []
    for piece in pieces:
        got += receive_all(connection, piece)
    assert got == expected
    assert not connection.busy
    assert connection.usable


@given(data=st.data())
def test_an_answer_split_anywhere_is_the_same_answer(data: st.DataObject) -> None:
    written = b"\n=7 first line\n  second\tline \r\n\n"
    cut = data.draw(st.integers(0, len(written)))
    connection = Connection()
    connection._next_id = 6
    connection.send("showboard")
    got = receive_all(connection, written[:cut]) + receive_all(connection, written[cut:])
    assert got == [Response(True, 7, "first line\n  second line")]


@given(cut=st.integers(0, 40), junk=st.sampled_from([b"oops\n", b"=9 x\n\n", b"! panic\n"]))
def test_a_wrong_answer_is_refused_however_it_is_cut(cut: int, junk: bytes) -> None:
    written = b"=1 ok\n\n" + junk
    connection = Connection("e")
    connection.send_many([("a",), ("b",)])
    with pytest.raises(GtpError):
        receive_all(connection, written[:cut])
        receive_all(connection, written[cut:])
    assert not connection.usable


# --------------------------------------------------------------------------
# The fast paths give what the general paths give

_WORDS = st.one_of(
    st.sampled_from(["play", "genmove", "b", "w", "D4", "pass", "", "a b", "x#y", "\t", "é"]),
    st.text(max_size=4),
)


def _outcome(call: Callable[[], object]) -> object:
    """What calling ``call`` gives: its value, or its exception's type and message."""
    try:
        return call()
    except (TypeError, ValueError) as exc:
        return type(exc), str(exc)


def _reference_lines(commands: list[tuple[str, ...]], first_id: int) -> bytes:
    """The lines as format_command makes them, one by one (the general path)."""
    lines = []
    for number, words in enumerate(commands, start=first_id):
        if not words:
            raise ValueError("a command needs a name")
        lines.append(format_command(words[0], tuple(words[1:]), number))
    return b"".join(lines)


@given(
    commands=st.lists(st.lists(_WORDS, max_size=3).map(tuple), min_size=1, max_size=4),
    as_lists=st.booleans(),
)
def test_known_commands_give_the_lines_and_errors_format_command_gives(
    commands: list[tuple[str, ...]], as_lists: bool
) -> None:
    expected = _outcome(lambda: _reference_lines(commands, 1))
    batch: list[Sequence[str]] = [list(words) for words in commands] if as_lists else commands
    for _ in range(2):  # the second time from the known commands, when they are known
        connection = Connection()
        assert _outcome(partial(connection.send_many, batch)) == expected
        if isinstance(expected, bytes):
            sent = [(command.name, command.args) for command in connection.awaiting]
            assert sent == [(words[0], tuple(words[1:])) for words in commands]
        else:
            assert not connection.busy and connection.last_id == 0  # nothing changed


def test_a_string_is_not_a_command_even_when_known() -> None:
    Connection().send_many([("genmove", "b")])
    with pytest.raises(TypeError, match="not a string"):
        Connection().send_many(["genmove"])


_CHUNKS = st.lists(
    st.sampled_from(
        [
            b"=1\n\n",
            b"=2 D4\n\n",
            b"= x\n\n",
            b"?3 illegal move\n\n",
            b"=1 a\nb\n\n",
            b"\n",
            b"=",
            b"2",
            b" E5",
            b"\n\n=3",
            b"=9 wrong id\n\n",
            b"junk\n",
            b"=12345678901234 big\n\n",
            b"=1x\n\n",
            b"\x01",
            b"=" + b"y" * 40 + b"\n\n",
        ]
    ),
    max_size=8,
)


def _state(connection: Connection) -> object:
    broken = connection.broken_by
    return (
        connection.awaiting,
        connection.pending,
        connection.usable,
        None if broken is None else (type(broken), broken.message),
    )


@given(chunks=_CHUNKS, owed=st.integers(0, 3), strict=st.booleans())
def test_receive_all_is_receive_then_next_response(
    chunks: list[bytes], owed: int, strict: bool
) -> None:
    general = Connection("e", strict_ids=strict, max_line_bytes=30, max_response_bytes=35)
    fast = Connection("e", strict_ids=strict, max_line_bytes=30, max_response_bytes=35)
    commands = [("genmove", "b")] * owed
    if commands:
        general.send_many(commands)
        fast.send_many(commands)
    for chunk in chunks:
        got_general: list[Response] = []
        try:
            response = general.receive(chunk)
            while response is not None:
                got_general.append(response)
                response = general.next_response()
            error_general = None
        except GtpError as exc:
            error_general = (type(exc), exc.message)
        got_fast: list[Response] = []
        try:
            done = fast.receive_all(chunk, got_fast)
            error_fast = None
            assert done == (bool(got_fast) and not fast.busy)
        except GtpError as exc:
            error_fast = (type(exc), exc.message)
        assert (got_fast, error_fast) == (got_general, error_general)
        assert _state(fast) == _state(general)
        if error_general is not None:
            break
