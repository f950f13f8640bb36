"""gtp.server: the engine side of GTP-SGF-RULES.md §7.1, in memory, over pipes and on a pty.

In memory, a controller writes bytes to :meth:`GtpServer.serve` through trio's
testing streams and checks the exact bytes that come back.  As a process, a tiny
engine built on :func:`run_stdio` is driven over real pipes and a real terminal.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import subprocess
import sys
import termios
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import attrs
import pytest
import trio
import trio.testing

from gtp.protocol import MAX_COMMAND_LINE_BYTES, Response, ResponseReader
from gtp.server import RAW_RESPONSE_DONE, GtpFailure, GtpServer
from gtp.vertex import format_vertex, parse_vertex

GUARD_S = 30.0  # only against hangs; nothing here measures time


def make_server() -> GtpServer:
    server = GtpServer("test", "1.0")
    server.register("echo", lambda args: " ".join(args))

    @server.command("fail")
    def fail(args: tuple[str, ...]) -> str:
        raise GtpFailure("it failed")

    @server.command("number")
    def number(args: tuple[str, ...]) -> str:
        return str(int(args[0]))  # ValueError for a non-number

    @server.command("vertex")
    def vertex(args: tuple[str, ...]) -> str:
        return format_vertex(parse_vertex(args[0], 19), 19)  # VertexError when bad

    @server.command("crash")
    def crash(args: tuple[str, ...]) -> str:
        return str(1 // 0)

    @server.command("multiline")
    def multiline(args: tuple[str, ...]) -> str:
        return "first\n\nthird"

    @server.command("async_echo")
    async def async_echo(args: tuple[str, ...]) -> str:
        await trio.sleep(0)
        return " ".join(args)

    return server


@attrs.define
class Controller:
    """The controller's end of an in-memory connection to a serving GtpServer."""

    server: GtpServer
    to_server: trio.abc.SendStream
    from_server: trio.abc.ReceiveStream
    finished: trio.Event
    reader: ResponseReader = attrs.Factory(ResponseReader)

    async def send(self, data: bytes) -> None:
        await self.to_server.send_all(data)

    async def close_input(self) -> None:
        await self.to_server.aclose()

    async def response(self) -> Response:
        while (response := self.reader.next_response()) is None:
            data = await self.from_server.receive_some()
            assert data, "the server closed its output instead of answering"
            self.reader.feed(bytes(data))
        return response

    async def output_until_eof(self) -> bytes:
        output = b""
        while data := await self.from_server.receive_some():
            output += data
        return output


@asynccontextmanager
async def serving(
    server: GtpServer | None = None, *, lockstep: bool = False
) -> AsyncIterator[Controller]:
    """Serve over one-way in-memory streams; the output closes when serve() returns."""
    server = server or make_server()
    pair = (
        trio.testing.lockstep_stream_one_way_pair
        if lockstep
        else trio.testing.memory_stream_one_way_pair
    )
    to_server, server_input = pair()
    server_output, from_server = pair()
    finished = trio.Event()

    async def run() -> None:
        await server.serve(server_input, server_output)
        finished.set()
        await server_output.aclose()

    with trio.fail_after(GUARD_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run)
            yield Controller(server, to_server, from_server, finished)
            nursery.cancel_scope.cancel()


async def converse(data: bytes, *, chunk: int | None = None, close: bool = True) -> bytes:
    """Send ``data`` (in chunks if asked), then EOF; all the server wrote."""
    async with serving() as controller:
        if chunk is None:
            await controller.send(data)
        else:
            for start in range(0, len(data), chunk):
                await controller.send(data[start : start + chunk])
                await trio.sleep(0)
        if close:
            await controller.close_input()
        output = await controller.output_until_eof()
        assert controller.finished.is_set()
        return output


LIST = b"protocol_version\nname\nversion\nknown_command\nlist_commands\nquit\n"
LIST += b"echo\nfail\nnumber\nvertex\ncrash\nmultiline\nasync_echo"
LONG = MAX_COMMAND_LINE_BYTES + 10

CONVERSATIONS = [
    # (what the controller sends, what the engine must write back)
    ("E1 empty line", b"\n", b""),
    ("E2 blank line", b" \t \t\n", b""),
    ("E3 comment line", b"# comment only\n", b""),
    ("E4 trailing comment", b"name # trailing comment\n", b"= test\n\n"),
    ("E7 tabs", b"\tlist_commands\t\n", b"= " + LIST + b"\n\n"),
    ("E9 id", b"42 name\n", b"=42 test\n\n"),
    ("E10 unknown with id", b"42 frobnicate\n", b"?42 unknown command\n\n"),
    ("E11 case-sensitive", b"NAME\n", b"? unknown command\n\n"),
    ("E12 negative id", b"-5 name\n", b"= test\n\n"),
    ("huge id", b"99999999999 name\n", b"=2147483647 test\n\n"),
    ("id alone", b"7\n", b"?7 no command name\n\n"),
    ("CRLF", b"name\r\n", b"= test\n\n"),
    ("control characters", b"na\x00m\x1be\n", b"= test\n\n"),
    ("binary junk", b"\xff\xfe\x01\n", b"? unknown command\n\n"),
    ("protocol_version", b"protocol_version\n", b"= 2\n\n"),
    ("version", b"version\n", b"= 1.0\n\n"),
    ("known_command", b"known_command echo\n", b"= true\n\n"),
    ("known_command unknown", b"known_command frobnicate\n", b"= false\n\n"),
    ("known_command case", b"known_command ECHO\n", b"= false\n\n"),
    ("args", b"3 echo a\tb  c\n", b"=3 a b c\n\n"),
    ("in order", b"1 name\n2 version\n\n3 echo x\n", b"=1 test\n\n=2 1.0\n\n=3 x\n\n"),
    ("last line without newline", b"name", b"= test\n\n"),
    ("GtpFailure", b"5 fail\n", b"?5 it failed\n\n"),
    ("ValueError", b"number x\n", b"? invalid literal for int() with base 10: 'x'\n\n"),
    ("VertexError", b"vertex I5\n", b"? invalid vertex: 'I5'\n\n"),
    ("blank line in a result", b"multiline\n", b"= first\n.\nthird\n\n"),
    ("async handler", b"8 async_echo hi\n", b"=8 hi\n\n"),
    ("async then sync", b"async_echo a\necho b\n", b"= a\n\n= b\n\n"),
    ("quit", b"quit\n", b"=\n\n"),
    ("quit with id", b"9 quit\n", b"=9\n\n"),
    ("nothing after quit", b"quit\nname\n", b"=\n\n"),
    ("over-long line", b"x" * LONG + b"\nname\n", b"? command line too long\n\n= test\n\n"),
    ("over-long with id", b"6 " + b"x" * LONG + b"\n", b"?6 command line too long\n\n"),
    ("over-long comment", b"#" * LONG + b"\nname\n", b"= test\n\n"),
]


@pytest.mark.parametrize(
    ("sent", "expected"), [c[1:] for c in CONVERSATIONS], ids=[c[0] for c in CONVERSATIONS]
)
async def test_conversation(sent: bytes, expected: bytes) -> None:
    assert await converse(sent) == expected


@pytest.mark.parametrize("chunk", [1, 5])
async def test_bytes_may_arrive_in_any_pieces(chunk: int) -> None:
    script = b"1 name\n# c\n\n-3 version\r\n4 async_echo z\n5 echo a b\n"
    expected = b"=1 test\n\n= 1.0\n\n=4 z\n\n=5 a b\n\n"
    assert await converse(script, chunk=chunk) == expected


async def test_over_long_line_in_pieces_is_answered_once() -> None:
    script = b"5 " + b"y" * LONG + b"\nname\n"
    assert await converse(script, chunk=4099) == b"?5 command line too long\n\n= test\n\n"


async def test_quit_ends_serving_without_eof() -> None:
    async with serving() as controller:
        await controller.send(b"quit\n")
        assert await controller.output_until_eof() == b"=\n\n"
        assert controller.finished.is_set()


async def test_handler_bug_is_a_one_line_failure(capsys: pytest.CaptureFixture[str]) -> None:
    output = await converse(b"4 crash\nname\n")
    failure = b"?4 internal error: ZeroDivisionError: integer division or modulo by zero\n\n"
    assert output == failure + b"= test\n\n"
    stderr = capsys.readouterr().err
    assert "Traceback" in stderr
    assert "ZeroDivisionError" in stderr


async def test_a_handler_must_return_a_string(capsys: pytest.CaptureFixture[str]) -> None:
    server = make_server()
    server.register("none", lambda args: None)  # type: ignore[arg-type,return-value]
    async with serving(server) as controller:
        await controller.send(b"none\nname\n")
        assert await controller.response() == Response(
            False, None, "internal error: TypeError: handler returned NoneType, not str"
        )
        assert await controller.response() == Response(True, None, "test")
    assert "TypeError" in capsys.readouterr().err


async def test_lockstep_streams_one_command_at_a_time() -> None:
    async with serving(lockstep=True) as controller:
        for command, answer in [(b"1 name\n", "test"), (b"2 async_echo x\n", "x")]:
            await controller.send(command)
            assert (await controller.response()).text == answer
        await controller.send(b"3 version\n4 echo y\n")
        assert await controller.response() == Response(True, 3, "1.0")
        assert await controller.response() == Response(True, 4, "y")
        await controller.send(b"quit\n")
        assert await controller.response() == Response(True, None, "")
        await controller.finished.wait()


def test_registry() -> None:
    server = GtpServer("reg")
    assert server.known_commands() == [
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "quit",
    ]

    def handler(args: tuple[str, ...]) -> str:
        return "x"

    assert server.command("extra")(handler) is handler
    assert server.known_commands()[-1] == "extra"
    for bad in ("two words", "", "tab\tname", "new\nline"):
        with pytest.raises(ValueError, match="command name"):
            server.register(bad, handler)


# --------------------------------------------------------------------------
# Long handlers: input_pending, input_ended; every command answered in full


@attrs.define
class Probe:
    """Records what a long handler saw."""

    started: trio.Event = attrs.Factory(trio.Event)
    input_pending_at_start: bool | None = None
    cancelled: bool = False


def server_with_waiter(probe: Probe, until: Callable[[GtpServer], bool]) -> GtpServer:
    server = make_server()

    @server.command("wait")
    async def wait(args: tuple[str, ...]) -> str:
        probe.input_pending_at_start = server.input_pending
        probe.started.set()
        try:
            while not until(server):
                await trio.sleep(0.05)
        except trio.Cancelled:
            probe.cancelled = True
            raise
        return "stopped early"

    return server


@pytest.mark.parametrize(
    ("further", "expected"),
    [
        (b"name\n", b"= stopped early\n\n= test\n\n"),
        (b"\n", b"= stopped early\n\n"),  # an empty line stops live analysis too
        (b"  \n", b"= stopped early\n\n"),
        (b"# interrupt\n", b"= stopped early\n\n"),
    ],
)
async def test_input_pending_when_another_line_arrives(further: bytes, expected: bytes) -> None:
    probe = Probe()
    server = server_with_waiter(probe, lambda server: server.input_pending)
    async with serving(server) as controller:
        await controller.send(b"wait\n")
        await probe.started.wait()
        await controller.send(further)
        await controller.send(b"quit\n")
        assert await controller.output_until_eof() == expected + b"=\n\n"
    assert probe.input_pending_at_start is False


async def test_part_of_a_line_is_not_pending_input() -> None:
    probe = Probe()
    server = server_with_waiter(probe, lambda server: server.input_pending)
    async with serving(server) as controller:
        await controller.send(b"wait\n")
        await probe.started.wait()
        await controller.send(b"nam")
        # Let the server read it: every task idle for a while (the handler
        # polls every 50 ms, so this happens between two polls).
        await trio.testing.wait_all_tasks_blocked(cushion=0.01)
        assert not server.input_pending
        assert not controller.finished.is_set()
        await controller.send(b"e\nquit\n")
        assert await controller.output_until_eof() == b"= stopped early\n\n= test\n\n=\n\n"


async def test_input_pending_for_lines_that_came_with_the_command() -> None:
    probe = Probe()
    server = server_with_waiter(probe, lambda server: server.input_pending)
    async with serving(server) as controller:
        await controller.send(b"wait\n\nquit\n")
        assert await controller.output_until_eof() == b"= stopped early\n\n=\n\n"
    assert probe.input_pending_at_start is True


async def test_quit_waits_for_the_running_handler() -> None:
    # Commands are answered in order, each in full: a quit read while a
    # handler works is answered after it, and then the session ends.
    probe = Probe()
    release = trio.Event()
    server = server_with_waiter(probe, lambda server: release.is_set())
    async with serving(server) as controller:
        await controller.send(b"1 wait\n")
        await probe.started.wait()
        await controller.send(b"2 quit\n3 name\n")
        await trio.testing.wait_all_tasks_blocked(cushion=0.01)
        assert not controller.finished.is_set()
        release.set()
        assert await controller.output_until_eof() == b"=1 stopped early\n\n=2\n\n"
        assert controller.finished.is_set()
    assert not probe.cancelled


async def test_eof_waits_for_the_running_handler_and_those_queued(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # `echo genmove b | engine`: the end of input is no reason to think less.
    probe = Probe()
    release = trio.Event()
    server = server_with_waiter(probe, lambda server: release.is_set())
    async with serving(server) as controller:
        await controller.send(b"5 wait\n6 name\n7 wait\n")
        await probe.started.wait()
        await controller.close_input()
        await trio.sleep(20)  # a long think (the clock jumps); nothing cuts it short
        assert not controller.finished.is_set()
        release.set()
        output = await controller.output_until_eof()
        await controller.finished.wait()
    assert not probe.cancelled
    assert output == b"=5 stopped early\n\n=6 test\n\n=7 stopped early\n\n"


async def test_input_ended_stops_an_open_ended_command() -> None:
    # Live analysis runs "until the next line"; the end of input is its end too.
    probe = Probe()
    server = server_with_waiter(probe, lambda server: server.input_pending or server.input_ended)
    async with serving(server) as controller:
        await controller.send(b"5 wait\n")
        await probe.started.wait()
        assert not server.input_ended
        await controller.close_input()
        assert await controller.output_until_eof() == b"=5 stopped early\n\n"
        await controller.finished.wait()
    assert server.input_ended
    assert probe.input_pending_at_start is False


async def test_eof_when_idle_returns_at_once() -> None:
    assert await converse(b"") == b""


# --------------------------------------------------------------------------
# Streaming responses (lz-analyze style, E44) and closed output


def streaming_server() -> GtpServer:
    server = make_server()

    @server.command("analyze")
    async def analyze(args: tuple[str, ...]) -> str:
        command = server.current_command
        assert command is not None
        await server.send_raw(f"={'' if command.id is None else command.id}\n".encode())
        count = 0
        while not server.input_pending:
            count += 1
            await server.send_raw(f"info {count}\n".encode())
            await trio.sleep(0.001)
        await server.send_raw(b"\n")
        return RAW_RESPONSE_DONE

    return server


async def test_streaming_response_stops_on_a_newline() -> None:
    async with serving(streaming_server()) as controller:
        await controller.send(b"3 analyze\n")
        seen = b""
        while seen.count(b"info") < 3:
            seen += await controller.from_server.receive_some()
        controller.reader.feed(seen)
        await controller.send(b"\n")
        analysis = await controller.response()
        await controller.send(b"4 name\nquit\n")
        assert await controller.response() == Response(True, 4, "test")
        assert await controller.response() == Response(True, None, "")
        assert controller.reader.next_response() is None
    assert (analysis.ok, analysis.id) == (True, 3)
    lines = analysis.text.split("\n")
    assert len(lines) >= 3
    assert lines == [f"info {n}" for n in range(1, len(lines) + 1)]


async def test_closed_output_ends_serving_quietly(capsys: pytest.CaptureFixture[str]) -> None:
    async with serving() as controller:
        await controller.from_server.aclose()
        await controller.send(b"name\n")
        await controller.finished.wait()
    assert capsys.readouterr().err == ""


async def test_closed_output_while_streaming_ends_quietly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    async with serving(streaming_server()) as controller:
        await controller.send(b"analyze\n")
        assert await controller.from_server.receive_some()
        await controller.from_server.aclose()
        await controller.finished.wait()
    assert capsys.readouterr().err == ""


async def test_send_raw_needs_a_serving_server() -> None:
    with pytest.raises(RuntimeError, match="not serving"):
        await make_server().send_raw(b"x")


# --------------------------------------------------------------------------
# A real engine process over pipes and on a terminal

TINY_ENGINE = """
import signal, sys, trio
from gtp.server import GtpServer, run_stdio
# Ctrl-C as in a terminal, whatever this test inherited: a run started in the
# background (nohup, '&' without job control) passes SIGINT on ignored.
signal.signal(signal.SIGINT, signal.default_int_handler)
server = GtpServer("tiny", "2.0")

@server.command("forever")
async def forever(args):
    print("started", file=sys.stderr, flush=True)
    await trio.sleep_forever()
    return ""

@server.command("slow")
async def slow(args):
    print("started", file=sys.stderr, flush=True)
    await trio.sleep(float(args[0]))
    return "done"

@server.command("crash")
def crash(args):
    raise RuntimeError("boom")

@server.command("big")
def big(args):
    return "x" * int(args[0])

sys.exit(run_stdio(server))
"""


def start_engine(**streams: object) -> subprocess.Popen[bytes]:
    options: dict[str, object] = {
        "stdin": subprocess.PIPE,
        "stdout": subprocess.PIPE,
        "stderr": subprocess.PIPE,
    }
    options.update(streams)
    return subprocess.Popen([sys.executable, "-c", TINY_ENGINE], **options)  # type: ignore[call-overload, no-any-return]


def read_until(fd: int, done: Callable[[bytes], bool], strip_cr: bool = False) -> bytes:
    data = b""
    while not done(data):
        ready, _, _ = select.select([fd], [], [], GUARD_S)
        assert ready, f"no answer from the engine; got {data!r}"
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk.replace(b"\r", b"") if strip_cr else chunk
    return data


def finish(engine: subprocess.Popen[bytes]) -> tuple[int, bytes, bytes]:
    """Wait for the exit; (status, the rest of stdout, stderr)."""
    if engine.stdin is not None and engine.stdin.closed:
        engine.stdin = None
    stdout, stderr = engine.communicate(timeout=GUARD_S)
    return engine.returncode, stdout or b"", stderr or b""


def test_pipes_e42_quit_is_answered_before_exit() -> None:
    engine = start_engine()
    assert engine.stdin is not None
    engine.stdin.write(b"1 name\nquit\n")
    engine.stdin.flush()
    assert finish(engine) == (0, b"=1 tiny\n\n=\n\n", b"")


def test_pipes_script_then_eof() -> None:
    engine = start_engine()
    stdout, stderr = engine.communicate(b"name\n42 version\nNAME\n\n# done\n", timeout=GUARD_S)
    assert stdout == b"= tiny\n\n=42 2.0\n\n? unknown command\n\n"
    assert (engine.returncode, stderr) == (0, b"")


def test_pipes_e41_eof_during_a_long_command_answers_it_then_exits() -> None:
    engine = start_engine()
    assert engine.stdin is not None and engine.stderr is not None
    engine.stdin.write(b"slow 1.5\nname\n")
    engine.stdin.flush()
    assert read_until(engine.stderr.fileno(), lambda data: b"started\n" in data) == b"started\n"
    engine.stdin.close()
    assert finish(engine) == (0, b"= done\n\n= tiny\n\n", b"")


def test_pipes_closed_output_during_a_long_command_exits_at_once() -> None:
    engine = start_engine()
    assert engine.stdout is not None and engine.stderr is not None and engine.stdin is not None
    engine.stdin.write(b"forever\n")
    engine.stdin.flush()
    read_until(engine.stderr.fileno(), lambda data: b"started\n" in data)
    engine.stdout.close()  # the controller is gone: nobody will read the answer
    try:
        assert engine.wait(GUARD_S) == 0  # its input is still open
    finally:
        engine.kill()
        status, _, stderr = finish(engine)
    assert (status, stderr) == (0, b"")


def test_pipes_sigterm_during_a_long_command_exits_at_once() -> None:
    engine = start_engine()
    assert engine.stdin is not None and engine.stderr is not None
    engine.stdin.write(b"forever\n")
    engine.stdin.flush()
    read_until(engine.stderr.fileno(), lambda data: b"started\n" in data)
    engine.terminate()
    status, _, stderr = finish(engine)
    assert status == -signal.SIGTERM
    assert b"Traceback" not in stderr


def test_pipes_handler_exception_goes_to_stderr() -> None:
    engine = start_engine()
    stdout, stderr = engine.communicate(b"crash\nname\n", timeout=GUARD_S)
    assert stdout == b"? internal error: RuntimeError: boom\n\n= tiny\n\n"
    assert b"Traceback" in stderr
    assert b"RuntimeError: boom" in stderr
    assert engine.returncode == 0


def test_pipes_large_response_arrives_whole() -> None:
    engine = start_engine()
    stdout, _ = engine.communicate(b"big 1000000\nname\n", timeout=GUARD_S)
    assert stdout == b"= " + b"x" * 1_000_000 + b"\n\n= tiny\n\n"


def test_pipes_closed_stdout_exits_quietly() -> None:
    engine = start_engine()
    assert engine.stdin is not None and engine.stdout is not None
    engine.stdout.close()
    engine.stdin.write(b"name\n")
    engine.stdin.flush()
    status, _, stderr = finish(engine)
    assert (status, stderr) == (0, b"")


@pytest.mark.parametrize("command", [b"name\n", b"forever\n"])
def test_pipes_keyboard_interrupt_exits_130_without_traceback(command: bytes) -> None:
    engine = start_engine()
    assert engine.stdin is not None and engine.stdout is not None and engine.stderr is not None
    engine.stdin.write(b"1 name\n")
    engine.stdin.flush()
    assert read_until(engine.stdout.fileno(), lambda data: data.endswith(b"\n\n")) == b"=1 tiny\n\n"
    if command == b"forever\n":
        engine.stdin.write(command)
        engine.stdin.flush()
        read_until(engine.stderr.fileno(), lambda data: b"started\n" in data)
    engine.send_signal(signal.SIGINT)
    status, _, stderr = finish(engine)
    assert status == 130
    assert b"Traceback" not in stderr


def test_regular_files_as_stdin_and_stdout(tmp_path: Path) -> None:
    script = tmp_path / "script.gtp"
    script.write_bytes(b"1 name\n2 protocol_version\n")
    answers = tmp_path / "answers.txt"
    with script.open("rb") as stdin, answers.open("wb") as stdout:
        engine = start_engine(stdin=stdin, stdout=stdout)
        status, _, stderr = finish(engine)
    assert (status, stderr) == (0, b"")
    assert answers.read_bytes() == b"=1 tiny\n\n=2 2\n\n"


@pytest.fixture
def terminal() -> Iterator[tuple[int, int]]:
    """A pty (master, slave) with echo off; the slave is the engine's terminal."""
    master, slave = os.openpty()
    attributes = termios.tcgetattr(slave)
    attributes[3] &= ~termios.ECHO
    termios.tcsetattr(slave, termios.TCSANOW, attributes)
    yield master, slave
    os.close(master)
    os.close(slave)


def is_non_blocking(fd: int) -> bool:
    return bool(fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_NONBLOCK)


@pytest.mark.parametrize("ending", [b"quit\n", b"\x04"], ids=["quit", "ctrl-d"])
def test_terminal_as_stdin_and_stdout(terminal: tuple[int, int], ending: bytes) -> None:
    master, slave = terminal
    engine = start_engine(stdin=slave, stdout=slave)
    os.write(master, b"7 name\n")
    answer = read_until(master, lambda data: data.endswith(b"\n\n"), strip_cr=True)
    assert answer == b"=7 tiny\n\n"
    # The terminal (shared with the shell in real life) must stay blocking.
    assert not is_non_blocking(slave)
    os.write(master, b"big 5000\n")
    answer = read_until(master, lambda data: data.endswith(b"\n\n"), strip_cr=True)
    assert answer == b"= " + b"x" * 5000 + b"\n\n"
    os.write(master, ending)
    if ending == b"quit\n":
        assert read_until(master, lambda data: data.endswith(b"\n\n"), strip_cr=True) == b"=\n\n"
    status, _, stderr = finish(engine)
    assert (status, stderr) == (0, b"")
    assert not is_non_blocking(slave)
