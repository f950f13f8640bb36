"""gtp.client: commands, ids, errors and engine faults (GTP-SGF-RULES.md §7.2).

In-memory engines for the conversation rules; real fake engines (tests/fakes)
and the real clock for everything a misbehaving process can do.  After every
test with a process, nothing of its process group may be left.
"""

from __future__ import annotations

import io
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import attrs
import pytest
import trio
import trio.testing

from gtp.client import EngineInfo, GtpClient
from gtp.errors import (
    CommandFailed,
    EngineGone,
    EngineStartError,
    EngineTimeout,
    GtpError,
    ProtocolError,
)
from gtp.launch import EngineOptions, _engine_options, open_engine, startup_check
from gtp.process import ProcessOptions, ShutdownTimings, open_process
from gtp.protocol import Command, CommandReader, format_response
from tests.fakes import assert_group_gone, fake_command

FAST = ShutdownTimings(quit_timeout=0.5, exit_grace=0.5, term_grace=0.5, kill_wait=3.0)
# For fake engines: each step of the shutdown the engine is expected to pass gets
# all the time it could want (a loaded machine may take seconds to run a small
# Python process); a test shortens only the waits its engine must sit out in full.
PATIENT = ShutdownTimings(quit_timeout=60.0, exit_grace=60.0, term_grace=60.0, kill_wait=60.0)
# The same for a startup check that is not about the check's timeout.
PATIENT_STARTUP = 60.0
HANG_GUARD = 20  # seconds; only there so that a broken timeout fails instead of hanging

Answer = Callable[[Command], bytes]


# --------------------------------------------------------------------------
# In-memory engines


def well_behaved(command: Command) -> bytes:
    if command.name == "fail":
        return format_response(False, "cannot do that", command.id)
    if command.name == "multi":
        return format_response(True, "first\nsecond\nthird", command.id)
    return format_response(True, " ".join((command.name, *command.args)), command.id)


@asynccontextmanager
async def in_memory(answer: Answer = well_behaved, **kwargs: object) -> AsyncIterator[GtpClient]:
    to_engine, engine_input = trio.testing.memory_stream_one_way_pair()
    engine_output, from_engine = trio.testing.memory_stream_one_way_pair()

    async def engine() -> None:
        reader = CommandReader()
        while data := await engine_input.receive_some():
            for item in reader.feed(bytes(data)):
                assert isinstance(item, Command)
                await engine_output.send_all(answer(item))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(engine)
        yield GtpClient(from_engine, to_engine, name="mem", **kwargs)  # type: ignore[arg-type]
        nursery.cancel_scope.cancel()


async def test_results_come_back_for_fresh_increasing_ids() -> None:
    sent: list[str] = []

    def recording(command: Command) -> bytes:
        sent.append(f"{command.id} {command.name}")
        return well_behaved(command)

    async with in_memory(recording) as client:
        assert await client.command("play", "b", "D4") == "play b D4"
        assert await client.command("multi") == "first\nsecond\nthird"
        assert await client.command("name") == "name"
    assert sent == ["1 play", "2 multi", "3 name"]


async def test_failure_response_raises_and_the_client_stays_usable() -> None:
    async with in_memory() as client:
        with pytest.raises(CommandFailed) as caught:
            await client.command("fail", "now")
        assert caught.value.failure == "cannot do that"
        assert caught.value.command == "fail now"
        assert "engine 'mem'" in str(caught.value)
        assert client.usable
        assert await client.command("name") == "name"


async def test_argument_that_gtp_cannot_carry_is_refused_before_sending() -> None:
    async with in_memory() as client:
        for bad in ("two words", "line\nbreak", "", "#comment"):
            with pytest.raises(ValueError):
                await client.command("play", "b", bad)
        assert await client.command("name") == "name"


async def test_one_command_at_a_time() -> None:
    async with in_memory() as client:
        results: list[str] = []
        errors: list[BaseException] = []

        async def run(name: str) -> None:
            try:
                results.append(await client.command(name))
            except trio.BusyResourceError as exc:
                errors.append(exc)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(run, "first")
            nursery.start_soon(run, "second")
        # Whichever started first was answered; the other was refused.
        assert len(results) == 1 and results[0] in ("first", "second")
        assert len(errors) == 1
        assert client.usable


async def test_a_command_while_the_engine_is_being_closed_lets_a_stop_through(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A stop at once cancels every task: the supervisor's quit may come first, while
    the game's task, not at a checkpoint yet, sends its next command.  That command
    must end in the cancellation (the game abandoned, to be replayed), not in
    BusyResourceError (a traceback), nor in a fault that would void the game."""
    quit_seen = trio.Event()

    def slow_quit(command: Command) -> bytes:
        if command.name == "quit":
            quit_seen.set()
            return b""  # never answered: close_engine waits out its quit timeout
        return well_behaved(command)

    async with in_memory(slow_quit) as client, trio.open_nursery() as nursery:
        nursery.start_soon(client.close_engine)
        await quit_seen.wait()
        with trio.CancelScope() as stop:
            stop.cancel()
            await client.command("boardsize", "9")
        assert stop.cancelled_caught
        # Not cancelled: the engine is being closed, and the command says so.
        with pytest.raises(EngineGone, match="closed while 'boardsize 9' was to be sent"):
            await client.command("boardsize", "9")
        nursery.cancel_scope.cancel()


async def test_traffic_log_sees_every_line_from_the_first_command() -> None:
    lines: list[str] = []
    async with in_memory(log=lines.append) as client:
        await client.command("protocol_version")
        await client.command("multi")
    assert lines == [
        ">> 1 protocol_version",
        "<< =1 protocol_version",
        ">> 2 multi",
        "<< =2 first",
        "<< second",
        "<< third",
    ]


async def test_traffic_log_can_be_a_text_file() -> None:
    log_file = io.StringIO()
    async with in_memory(log=log_file) as client:
        await client.command("name")
    assert log_file.getvalue() == ">> 1 name\n<< =1 name\n"


async def test_missing_id_accepted_unless_strict() -> None:
    def no_id(command: Command) -> bytes:
        return format_response(True, "D4")

    async with in_memory(no_id) as client:
        assert await client.command("genmove", "b") == "D4"
    async with in_memory(no_id, strict_ids=True) as client:
        with pytest.raises(ProtocolError, match="no id"):
            await client.command("genmove", "b")
        assert not client.usable


async def test_unsolicited_second_response_is_a_protocol_error() -> None:
    def twice(command: Command) -> bytes:
        return well_behaved(command) * 2

    async with in_memory(twice) as client:
        assert await client.command("name") == "name"
        await trio.testing.wait_all_tasks_blocked()  # the second answer is there
        with pytest.raises(ProtocolError, match="before 'version' was sent"):
            await client.command("version")


async def test_in_memory_timeout_makes_the_client_unusable() -> None:
    async def never() -> None:
        await trio.sleep_forever()

    to_engine, _engine_input = trio.testing.memory_stream_one_way_pair()
    _engine_output, from_engine = trio.testing.memory_stream_one_way_pair()
    client = GtpClient(from_engine, to_engine, name="mute")
    with pytest.raises(EngineTimeout) as caught:
        await client.command("genmove", "b", timeout=0.2)
    assert str(caught.value) == "engine 'mute': no response to 'genmove b' within 0.2s"
    with pytest.raises(EngineGone, match="unusable after an earlier error"):
        await client.command("name")
    assert not await client.aclose()  # no quit on a broken channel


# --------------------------------------------------------------------------
# Pipelined commands (in memory)


def refusing_play(command: Command) -> bytes:
    if command.name == "play" and command.args[1:] == ("A1",):
        return format_response(False, "illegal move", command.id)
    return well_behaved(command)


async def test_commands_go_in_one_write_and_answer_in_order() -> None:
    writes: list[bytes] = []

    async with in_memory() as client:
        send_all = client._send.send_all

        async def recording(data: bytes) -> None:
            writes.append(bytes(data))
            await send_all(data)

        client._send.send_all = recording  # type: ignore[method-assign]
        answers = await client.commands(("play", "b", "D4"), ("genmove", "w"))
        assert answers == ["play b D4", "genmove w"]
        assert writes == [b"1 play b D4\n2 genmove w\n"]
        assert await client.command("name") == "name"  # ids go on: 3
        assert writes[-1] == b"3 name\n"
        assert await client.commands() == []
        assert client.usable


async def test_a_refused_play_in_a_pipeline_is_returned_and_the_genmove_answer_read() -> None:
    async with in_memory(refusing_play) as client:
        answers = await client.commands(("play", "b", "A1"), ("genmove", "w"))
        assert isinstance(answers[0], CommandFailed)
        assert answers[0].command == "play b A1"
        assert answers[0].failure == "illegal move"
        assert str(answers[0]) == "engine 'mem': 'play b A1' failed: illegal move"
        assert answers[1] == "genmove w"  # consumed: the channel is in step
        assert client.usable
        assert await client.command("name") == "name"


async def test_pipelined_traffic_is_logged_line_by_line() -> None:
    lines: list[str] = []
    async with in_memory(log=lines.append) as client:
        await client.commands(("play", "b", "D4"), ("genmove", "w"))
    assert lines == [">> 1 play b D4", ">> 2 genmove w", "<< =1 play b D4", "<< =2 genmove w"]


async def test_a_fault_in_a_pipeline_raises_like_a_command(
    autojump_clock: trio.testing.MockClock,
) -> None:
    def mute_genmove(command: Command) -> bytes:
        return b"" if command.name == "genmove" else well_behaved(command)

    async with in_memory(mute_genmove) as client:
        with pytest.raises(EngineTimeout) as caught:
            await client.commands(("play", "b", "D4"), ("genmove", "w"), timeout=5)
        assert str(caught.value) == "engine 'mem': no response to 'genmove w' within 5s"
        assert client.broken_by is caught.value
        with pytest.raises(EngineGone, match="unusable after an earlier error"):
            await client.commands(("name",))


async def test_after_a_refusal_a_fault_is_returned_in_place_of_the_answers_it_cut_off(
    autojump_clock: trio.testing.MockClock,
) -> None:
    muted: list[str] = []

    def refuse_then_mute(command: Command) -> bytes:
        if command.name == "genmove" or muted:
            muted.append(command.name)
            return b""  # hung from then on
        return refusing_play(command)

    async with in_memory(refuse_then_mute) as client:
        answers = await client.commands(("play", "b", "A1"), ("genmove", "w"), ("name",), timeout=5)
        refused, cut_off, also_cut_off = answers
        assert isinstance(refused, CommandFailed)
        assert isinstance(cut_off, EngineTimeout)
        assert cut_off is also_cut_off
        assert cut_off.command == "genmove w"
        assert not client.usable
        assert client.broken_by is cut_off


async def test_a_wrong_id_in_a_pipeline_is_a_protocol_error() -> None:
    def wrong_id(command: Command) -> bytes:
        return format_response(True, "x", (command.id or 0) + 1)

    async with in_memory(wrong_id) as client:
        with pytest.raises(ProtocolError, match="response id 2 does not match command id 1"):
            await client.commands(("play", "b", "D4"), ("genmove", "w"))
        assert not client.usable


async def test_a_pipeline_with_a_bad_word_sends_nothing() -> None:
    async with in_memory() as client:
        with pytest.raises(ValueError):
            await client.commands(("play", "b", "D4"), ("genmove", "two words"))
        assert await client.command("name") == "name"


async def test_the_batch_times_are_its_write_and_its_last_answer(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with in_memory() as client:
        assert client.timed
        await client.commands(("play", "b", "D4"), ("genmove", "w"))
        assert 0 < client.sent_at <= client.written_at <= client.received_at
        assert client.hearing == (0.0, 0.0, 0.0)


async def test_untimed_clients_read_no_clock() -> None:
    async with in_memory(timed=False) as client:
        assert await client.command("name") == "name"
        await client.commands(("play", "b", "D4"), ("genmove", "w"))
        assert (client.sent_at, client.written_at, client.received_at) == (0.0, 0.0, 0.0)


# --------------------------------------------------------------------------
# Real fake engines


@asynccontextmanager
async def engine(
    command: list[str], *, name: str = "fake", timings: ShutdownTimings = PATIENT, **kwargs: object
) -> AsyncIterator[GtpClient]:
    """open_engine with patient shutdown timings; afterwards the group must be gone."""
    pgid: int | None = None
    try:
        async with open_engine(command, name=name, timings=timings, **kwargs) as client:  # type: ignore[arg-type]
            assert client.process is not None
            pgid = client.process.pgid
            yield client
    finally:
        if pgid is not None:
            await assert_group_gone(pgid)


def exit_signal(client: GtpClient) -> signal.Signals | None:
    assert client.process is not None
    status = client.process.exit_status
    assert status is not None
    return None if status.signal is None else signal.Signals(status.signal)


# C1
@pytest.mark.parametrize("make_command", ["missing", "not executable"])
async def test_c1_engine_that_cannot_run_fails_to_start(make_command: str, tmp_path: Path) -> None:
    if make_command == "missing":
        command = "/no/such/dir/engine --mode gtp"
    else:
        script = tmp_path / "engine"
        script.write_text("#!/bin/sh\n")
        command = f"{script} --mode gtp"
    with pytest.raises(EngineStartError) as caught:
        await startup_check(command, name="broken")
    message = str(caught.value)
    assert message.startswith("engine 'broken': cannot start ")
    assert command in message
    assert "\n" not in message


# C2, C3, C4, C39 and the startup check as a whole.  Only the silent engine's
# check is about the timeout: the others get so long that however slowly the
# fake starts, what fails the check is what it says.
@pytest.mark.parametrize(
    ("command", "timeout", "message"),
    [
        (fake_command("banner"), PATIENT_STARTUP, "'Usage: foo [options]'"),  # C2
        (fake_command("misbehave", "protocol_version", "gmp"), PATIENT_STARTUP, "GMP"),  # C3
        (  # C4
            fake_command("misbehave", "protocol_version", "prompt"),
            PATIENT_STARTUP,
            "'GTP> '",
        ),
        (  # C39
            fake_command("misbehave", "protocol_version", "answer:1"),
            PATIENT_STARTUP,
            "answered '1'",
        ),
        (
            fake_command("misbehave", "protocol_version", "answer:two"),
            PATIENT_STARTUP,
            "answered 'two'",
        ),
        (
            fake_command("hang", "protocol_version"),
            1.0,
            "no response to 'protocol_version' within ",
        ),
        (
            fake_command("misbehave", "boardsize", "fail:unacceptable size"),
            PATIENT_STARTUP,
            "'boardsize 9'",
        ),
        (fake_command("crash", "exit3", "name"), PATIENT_STARTUP, "exited with status 3"),
    ],
)
async def test_startup_check_rejects_engines_that_do_not_speak_gtp(
    command: list[str], timeout: float, message: str
) -> None:
    with trio.fail_after(timeout + HANG_GUARD):
        async with engine(command, name="odd") as client:
            with pytest.raises(EngineStartError) as caught:
                await client.check_startup(timeout, board_size=9, komi=7.5)
    text = str(caught.value)
    assert text.startswith("engine 'odd': ")
    assert message in text
    assert "\n" not in text


@pytest.mark.parametrize(
    ("command", "protocol_version"),
    [
        (fake_command("misbehave", "protocol_version", "answer:2"), "2"),
        (fake_command("misbehave", "protocol_version", "answer:2.0"), "2.0"),  # C39
        (fake_command("misbehave", "protocol_version", "fail:unknown command"), None),  # C39
    ],
)
async def test_startup_check_accepts_gtp_version_2(
    command: list[str], protocol_version: str | None
) -> None:
    async with engine(command) as client:
        info = await client.check_startup(PATIENT_STARTUP, board_size=19, komi=6.5)
    assert info == EngineInfo("fake", "1.0", protocol_version)
    assert exit_signal(client) is None  # it quit when asked


# C5, C6, C7, C14, the prompt, the flood, and C28 (stdout closed, process alive)
@pytest.mark.parametrize(
    ("mode", "error", "message"),
    [
        ("garbage", ProtocolError, "starts with 'C'"),  # C5
        ("comment", ProtocolError, "starts with '#'"),  # C6
        ("wrong_id", ProtocolError, "response id 3 does not match command id 2"),  # C7
        ("panic", ProtocolError, "starts with '!'"),  # C14
        ("prompt", ProtocolError, "'GTP> '"),
        ("flood", ProtocolError, "exceeds"),
        ("close_stdout", EngineGone, "closed its output while running 'genmove b'"),  # C28
    ],
)
async def test_broken_answers_make_the_client_unusable_and_the_engine_is_killed(
    mode: str, error: type[GtpError], message: str
) -> None:
    with trio.fail_after(HANG_GUARD):
        async with engine(fake_command("misbehave", "genmove", mode), name="bad") as client:
            assert await client.command("name") == "fake"
            with pytest.raises(error) as caught:
                await client.command("genmove", "b", timeout=10)
            assert message in str(caught.value)
            assert str(caught.value).startswith("engine 'bad': ")
            assert not client.usable
            with pytest.raises(EngineGone):
                await client.command("name")
    # No quit on a broken channel: the still running engine was terminated.
    assert exit_signal(client) is signal.SIGTERM


# C8, C13
@pytest.mark.parametrize(
    ("mode", "strict_ids", "result"),
    [
        ("space", False, ""),  # C13 "= \n\n"
        ("bare", False, ""),  # C13 "=\n\n"
        ("no_id", False, "D4"),  # C8, lenient
        ("answer:D4", True, "D4"),
    ],
)
async def test_well_formed_answers_are_accepted(mode: str, strict_ids: bool, result: str) -> None:
    async with engine(fake_command("misbehave", "genmove", mode), strict_ids=strict_ids) as client:
        assert await client.command("genmove", "b") == result
        assert client.usable


async def test_c8_missing_id_is_an_error_in_strict_mode() -> None:
    async with engine(fake_command("misbehave", "genmove", "no_id"), strict_ids=True) as client:
        with pytest.raises(ProtocolError, match="has no id"):
            await client.command("genmove", "b")


# C40
@pytest.mark.parametrize(("answer", "known"), [("true", True), ("yes", False), ("false", False)])
async def test_c40_only_true_means_known(answer: str, known: bool) -> None:
    command = fake_command("misbehave", "known_command", f"answer:{answer}")
    async with engine(command) as client:
        assert await client.known_command("genmove") is known


# C27, C30 and the crash mid-command
@pytest.mark.parametrize(
    ("mode", "message", "returncode"),
    [
        ("exit3", "exited with status 3 while running 'genmove b'", 3),
        ("segv", "killed by signal SIGSEGV", -signal.SIGSEGV),  # C27
        ("partial", "exited with status 0 while running 'genmove b' (in the middle of", 0),  # C30
    ],
)
async def test_engine_dying_mid_command(mode: str, message: str, returncode: int) -> None:
    async with engine(fake_command("crash", mode), name="fragile") as client:
        await client.command("boardsize", "9")
        with pytest.raises(EngineGone) as caught:
            await client.command("genmove", "b")
        assert message in str(caught.value)
        assert "engine 'fragile'" in str(caught.value)
        assert caught.value.returncode == returncode
        assert client.process is not None and client.process.exit_status is not None
        assert client.process.exit_status.exitcode == returncode


# C29
async def test_c29_writing_to_an_exited_engine() -> None:
    async with engine([sys.executable, "-c", "pass"], name="gone") as client:
        assert client.process is not None
        await client.process.wait()
        with pytest.raises(EngineGone, match="exited with status 0 while running 'name'"):
            await client.command("name")


# C31 and the hang
async def test_c31_hang_times_out_and_the_group_is_killed() -> None:
    with trio.fail_after(HANG_GUARD):
        async with engine(fake_command("hang"), name="sleepy") as client:
            # A long deadline first: the short one after it must still be kept.
            assert await client.command("name", timeout=60) == "fake"
            with pytest.raises(EngineTimeout) as caught:
                await client.command("genmove", "b", timeout=0.5)
            assert str(caught.value) == "engine 'sleepy': no response to 'genmove b' within 0.5s"
            with pytest.raises(EngineGone):
                await client.command("name")
    assert exit_signal(client) is signal.SIGTERM


async def test_pipelined_commands_over_pipes() -> None:
    with trio.fail_after(HANG_GUARD):
        async with engine(fake_command("misbehave", "genmove", "answer:D4")) as client:
            assert await client.commands(("play", "b", "C3"), ("genmove", "w")) == ["", "D4"]
            many = await client.commands(*[("echo", str(n)) for n in range(50)], ("genmove", "b"))
            assert many == [*(str(n) for n in range(50)), "D4"]
            assert client.sent_at <= client.written_at <= client.received_at
            assert client.usable


async def test_pipelined_refusal_then_a_hang_over_pipes() -> None:
    with trio.fail_after(HANG_GUARD):
        async with engine(fake_command("hang"), name="sleepy") as client:
            # The engine answers once before the timed batch: its start on a busy
            # machine must not eat the batch's time (the refusal must be heard).
            assert await client.command("name") == "fake"
            answers = await client.commands(("fail_me",), ("genmove", "b"), timeout=2)
            assert isinstance(answers[0], CommandFailed)
            assert isinstance(answers[1], EngineTimeout)
            assert str(answers[1]) == "engine 'sleepy': no response to 'genmove b' within 2s"
            assert not client.usable
    assert exit_signal(client) is signal.SIGTERM


async def test_untimed_client_over_pipes() -> None:
    with trio.fail_after(HANG_GUARD):
        async with engine(fake_command("hang")) as client:
            client.timed = False
            assert await client.command("name") == "fake"
            assert await client.commands(("play", "b", "C3"), ("name",)) == ["", "fake"]
            assert client.received_at == 0.0
            with pytest.raises(EngineTimeout):
                await client.command("genmove", "b", timeout=0.3)


async def test_errors_leave_open_engine_as_they_are() -> None:
    pgid = None
    with trio.fail_after(HANG_GUARD), pytest.raises(EngineTimeout):
        async with open_engine(fake_command("hang"), name="e", timings=FAST) as client:
            assert client.process is not None
            pgid = client.process.pgid
            await client.command("genmove", "b", timeout=0.3)
    assert pgid is not None
    await assert_group_gone(pgid)


async def test_client_over_process_pipes_without_the_watchdog() -> None:
    # GtpClient built by hand over open_process: timeouts use a cancel scope.
    with trio.fail_after(HANG_GUARD):
        async with open_process(fake_command("hang"), name="manual", timings=FAST) as process:
            client = GtpClient(process.stdout, process.stdin, name="manual", process=process)
            assert await client.command("name", timeout=60) == "fake"
            with pytest.raises(EngineTimeout, match="'manual': no response to 'genmove b'"):
                await client.command("genmove", "b", timeout=0.3)
    await assert_group_gone(process.pgid)


# C32
async def test_c32_no_answer_to_quit() -> None:
    timings = attrs.evolve(PATIENT, quit_timeout=0.5)  # the wait it sits out
    with trio.fail_after(HANG_GUARD):
        async with engine(fake_command("hang", "quit"), timings=timings) as client:
            assert await client.command("name") == "fake"
    assert exit_signal(client) is signal.SIGTERM


# C34
async def test_c34_sigterm_ignored_means_sigkill_after_the_grace_period() -> None:
    timings = attrs.evolve(PATIENT, exit_grace=0.5, term_grace=0.5)  # the waits it sits out
    with trio.fail_after(HANG_GUARD):
        async with engine(fake_command("ignore_term"), timings=timings) as client:
            # Answered only once the fake has set SIGTERM aside.
            assert await client.command("name") == "fake"
    assert exit_signal(client) is signal.SIGKILL


async def test_engine_that_never_reads_its_input_times_out_on_a_large_write() -> None:
    with trio.fail_after(HANG_GUARD):
        async with engine(fake_command("no_read")) as client:
            with pytest.raises(EngineTimeout):
                await client.command("play", "x" * 1_000_000, timeout=0.5)
    assert exit_signal(client) is signal.SIGTERM


async def test_100_megabytes_of_stderr_while_answering() -> None:
    async with engine(fake_command("stderr_flood", "1"), stderr_tail_bytes=4096) as client:
        for i in range(100):
            assert await client.command("echo", str(i), timeout=10) == str(i)
        assert client.process is not None
        process = client.process
    assert len(process.stderr_tail) == 4096
    assert process.stderr_tail.endswith(b"x\nend of flood 99\n")


async def test_grandchild_is_killed_after_a_normal_quit() -> None:
    # The engine answers quit and exits, leaving its sleeper in the group.
    async with engine(fake_command("grandchild")) as client:
        assert await client.command("name") == "fake"
    assert exit_signal(client) is None


async def test_grandchild_is_killed_when_the_engine_dies() -> None:
    # The sleeper holds the engine's stdout: EOF only comes once it is killed too.
    with trio.fail_after(HANG_GUARD):
        async with engine(fake_command("grandchild")) as client:
            with pytest.raises(EngineGone, match="exited with status 0 while running 'die'"):
                await client.command("die", timeout=10)


async def test_cancelling_the_surrounding_scope_mid_command_kills_the_engine() -> None:
    with trio.fail_after(HANG_GUARD), trio.move_on_after(0.5) as scope:
        async with engine(fake_command("hang")) as client:
            await client.command("genmove", "b")
    assert scope.cancelled_caught
    assert exit_signal(client) is signal.SIGTERM


async def test_traffic_log_includes_stderr() -> None:
    lines: list[str] = []
    async with engine(fake_command("hang"), log=lines.append) as client:
        await client.command("echo_err", "hello")
    assert ">> 1 echo_err hello" in lines
    assert "<< =1 hello" in lines
    assert "!! hello" in lines
    assert lines.index(">> 2 quit") == lines.index("<< =1 hello") + 1
    assert "<< =2" in lines


# --------------------------------------------------------------------------
# GNU Go and our random engine


@pytest.mark.gnugo
async def test_gnugo_passes_the_startup_check(gnugo: str) -> None:
    info = await startup_check([gnugo, "--mode", "gtp"], name="gnugo", board_size=9, komi=7.5)
    assert info.name == "GNU Go"
    assert info.protocol_version == "2"


@pytest.mark.gnugo
async def test_whole_game_between_gnugo_and_random(gnugo: str) -> None:
    from gtp.board import Board
    from gtp.vertex import Colour, parse_move_answer

    size = 9
    board = Board(size)
    async with (
        engine([gnugo, "--mode", "gtp", "--level", "0"], name="gnugo") as black,
        engine([sys.executable, "-m", "engines.random", "--seed", "7"], name="random") as white,
    ):
        players = {Colour.BLACK: black, Colour.WHITE: white}
        for player in players.values():
            await player.check_startup(10, board_size=size, komi=7.5)
        colour = Colour.BLACK
        passes = 0
        while passes < 2:
            assert board.moves_played < 400
            answer = await players[colour].command("genmove", colour.gtp_name, timeout=30)
            move = parse_move_answer(answer, size)
            assert not move.is_resign
            board.play(colour, move.point)  # raises IllegalMove for an illegal answer
            passes = passes + 1 if move.is_pass else 0
            await players[colour.opponent].command(
                "play", colour.gtp_name, move.to_gtp(size), timeout=10
            )
            colour = colour.opponent
    assert board.moves_played >= 20


# The clock's charge: what a genmove costs the engine, not the arena's other work.
# The engine answers with when it wrote (time.perf_counter is CLOCK_MONOTONIC,
# the same clock in every process).
ANSWER_AFTER_30_MS = [
    sys.executable,
    "-c",
    "import sys, time\n"
    "for line in sys.stdin:\n"
    "    time.sleep(0.03)\n"
    "    quitting = line.split()[0] == 'quit'\n"
    "    print('=' if quitting else f'= {time.perf_counter()!r}', end='\\n\\n', flush=True)\n",
]


async def test_time_the_loop_spends_on_other_tasks_after_the_answer_came_is_not_charged() -> None:
    """The answer arrives while another task blocks the loop; a third task, due
    meanwhile, blocks it again in the same batch as the client's wake-up, before
    or after it (trio shuffles a batch).  What the client charges ends when the
    loop found the answer there (after the first block), never after the second
    block began.

    On a loaded machine the plan often fails (the engine answers late, or both
    blocks fall due in one batch); such rounds are told by what was measured and
    not counted.  Rounds go on until four went as planned, two of them with the
    client's task run after the second block (the case a client that charged
    until its task ran would get wrong)."""
    blocks: dict[float, tuple[float, float]] = {}  # due after -> (began, ended)

    async def block_the_loop(after: float) -> None:
        await trio.sleep(after)
        began = time.perf_counter()
        time.sleep(0.1)
        blocks[after] = (began, time.perf_counter())

    checked = client_last = rounds = 0
    with trio.fail_after(HANG_GUARD * 3):
        async with engine(ANSWER_AFTER_30_MS, name="slow") as client:
            while checked < 4 or client_last < 2:
                rounds += 1
                assert rounds <= 40, f"40 rounds: {checked} as planned, {client_last} client last"
                blocks.clear()
                set_at = time.perf_counter()
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(block_the_loop, 0.01)  # 10..110 ms: the answer comes
                    nursery.start_soon(block_the_loop, 0.05)  # due at 50 ms, runs at 110
                    written = float(await client.command("name"))
                    returned = time.perf_counter()
                (first_began, first_ended), (second_began, second_ended) = (
                    blocks[0.01],
                    blocks[0.05],
                )
                # As planned: the first block began before the second was due (so
                # not in one batch with it) and the answer came while it ran.
                if first_began < set_at + 0.05 and written < first_ended:
                    checked += 1
                    client_last += returned >= second_ended
                    assert first_ended <= second_began
                    assert written <= client.received_at <= second_began


# --------------------------------------------------------------------------
# Launch options: one frozen value, keywords override it


def test_engine_options_are_one_value_that_keywords_override() -> None:
    base = EngineOptions(timings=FAST, strict_ids=True, cwd="/tmp")
    assert _engine_options(base, {}) is base
    changed = _engine_options(base, {"strict_ids": False, "stderr_tail_bytes": 10})
    assert changed == attrs.evolve(base, strict_ids=False, stderr_tail_bytes=10)
    # A plain ProcessOptions gets the client's defaults.
    plain = ProcessOptions(cwd="/tmp", timings=FAST)
    assert _engine_options(plain, {}) == EngineOptions(cwd="/tmp", timings=FAST)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        base.strict_ids = False  # type: ignore[misc]


async def test_open_engine_takes_the_options_value() -> None:
    lines: list[str] = []
    options = EngineOptions(timings=PATIENT, log=lines.append, strict_ids=True, timed=False)
    with trio.fail_after(HANG_GUARD):
        async with open_engine(fake_command("hang"), name="opt", options=options) as client:
            assert client.strict_ids
            assert not client.timed
            assert await client.command("name") == "fake"
    assert ">> 1 name" in lines


async def test_the_io_clock_instrument_leaves_the_run_with_the_last_client() -> None:
    with trio.fail_after(HANG_GUARD):
        async with engine(fake_command("hang")) as one:
            await one.command("name")
            clock = one._io
            assert clock is not None
            async with engine(fake_command("hang")) as two:
                await two.command("name")
                assert two._io is clock
                assert clock.users == 2
            assert clock.users == 1
            assert await one.command("name") == "fake"  # still read
        assert clock.users == 0
    with pytest.raises(KeyError):
        trio.lowlevel.remove_instrument(clock)  # not installed any more
    async with engine(fake_command("hang")) as three:
        await three.command("name")
        assert three._io is not None and three._io is not clock  # a new one


# -- a batch with a time limit for each answer (commands(limits=...)) ---------------


@asynccontextmanager
async def slow_memory_engine(delays: dict[str, float]) -> AsyncIterator[GtpClient]:
    """An in-memory engine that answers each command after ``delays[name]`` seconds
    (none: at once; negative: never), one at a time, as a real engine reads its input."""
    to_engine, engine_input = trio.testing.memory_stream_one_way_pair()
    engine_output, from_engine = trio.testing.memory_stream_one_way_pair()

    async def engine() -> None:
        reader = CommandReader()
        while data := await engine_input.receive_some():
            for item in reader.feed(bytes(data)):
                assert isinstance(item, Command)
                delay = delays.get(item.name, 0.0)
                if delay < 0:
                    await trio.sleep_forever()
                await trio.sleep(delay)
                await engine_output.send_all(format_response(True, item.name, item.id))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(engine)
        yield GtpClient(from_engine, to_engine, "mem")
        nursery.cancel_scope.cancel()


async def test_a_genmove_with_no_limit_after_a_limited_play_may_take_its_time(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with slow_memory_engine({"genmove": 1000.0}) as client:
        answers = await client.commands(("play", "b", "D4"), ("genmove", "w"), limits=(5, None))
        assert answers == ["play", "genmove"]
        assert client.usable


async def test_a_hung_play_times_out_on_its_own_limit_though_the_genmove_has_none(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with slow_memory_engine({"play": -1}) as client:
        started = trio.current_time()
        with pytest.raises(EngineTimeout) as caught:
            await client.commands(("play", "b", "D4"), ("genmove", "w"), limits=(5, None))
        assert str(caught.value) == "engine 'mem': no response to 'play b D4' within 5s"
        assert trio.current_time() - started == pytest.approx(5)
        assert not client.usable


async def test_each_limit_counts_from_the_answer_before(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # play takes 4 s of its 5; genmove then has 3 s of its own (7 s after the write in all)
    async with slow_memory_engine({"play": 4.0, "genmove": 2.5}) as client:
        assert await client.commands(("play", "b", "D4"), ("genmove", "w"), limits=(5, 3)) == [
            "play",
            "genmove",
        ]
    async with slow_memory_engine({"play": 4.0, "genmove": 3.5}) as client:
        with pytest.raises(EngineTimeout, match="no response to 'genmove w' within 3s"):
            await client.commands(("play", "b", "D4"), ("genmove", "w"), limits=(5, 3))


async def test_limits_are_one_for_each_command_and_not_beside_a_timeout() -> None:
    async with slow_memory_engine({}) as client:
        with pytest.raises(ValueError, match="1 limits for 2 commands"):
            await client.commands(("play", "b", "D4"), ("genmove", "w"), limits=(5,))
        with pytest.raises(ValueError, match="either timeout or limits"):
            await client.commands(("name",), timeout=5, limits=(5,))
        assert client.usable  # nothing was sent
        assert await client.commands(("name",), limits=(None,)) == ["name"]


async def test_limits_over_pipes_under_the_watchdog() -> None:
    with trio.fail_after(HANG_GUARD):
        async with engine(fake_command("misbehave", "genmove", "answer:D4")) as client:
            answers = await client.commands(("play", "b", "C3"), ("genmove", "w"), limits=(5, None))
            assert answers == ["", "D4"]
        async with engine(fake_command("hang"), name="sleepy") as client:
            with pytest.raises(EngineTimeout) as caught:
                await client.commands(("name",), ("genmove", "b"), limits=(60, 0.5))
            assert str(caught.value) == "engine 'sleepy': no response to 'genmove b' within 0.5s"
    assert exit_signal(client) is signal.SIGTERM


async def test_a_client_that_does_not_hear_leaves_the_run_loop_alone() -> None:
    with trio.fail_after(HANG_GUARD):
        async with engine(fake_command("hang"), hears=False) as client:
            assert await client.command("name") == "fake"
            assert client._io is None  # no instrument in the run
            assert client.hearing == (0.0, 0.0, 0.0)
            assert 0 < client.sent_at <= client.written_at <= client.received_at
            client.hear(True)  # installed at once, before the next wait
            clock = client._io
            assert clock is not None and clock.users == 1
            assert await client.command("name") == "fake"
            assert client._io is clock
            client.hear(False)
            assert client._io is None and clock.users == 0
            with pytest.raises(KeyError):
                trio.lowlevel.remove_instrument(clock)  # gone from the run
            assert await client.command("name") == "fake"
            assert client._io is None
