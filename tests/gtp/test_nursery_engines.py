"""Engines whose tasks live in the caller's nursery: start_process and start_engine.

The same guarantees as the context managers: every engine is stopped (quit
first when the channel is healthy), its group killed and the leader reaped,
whether it is closed or its nursery is cancelled.  Real processes, real clock.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import attrs
import pytest
import trio
import trio.testing

from gtp.launch import start_engine
from gtp.process import ShutdownTimings, open_process, start_process
from tests.fakes import assert_group_gone, fake_command

FAST = ShutdownTimings(quit_timeout=0.5, exit_grace=0.5, term_grace=0.5, kill_wait=3.0)
# Each step of the shutdown an engine is expected to pass gets all the time it
# could want (a loaded machine may take seconds to run a small process); a test
# shortens only the waits its engine must sit out in full.
PATIENT = ShutdownTimings(quit_timeout=60.0, exit_grace=60.0, term_grace=60.0, kill_wait=60.0)
GUARD = 20.0  # seconds; only a hang in the code under test gets near it


async def test_a_cancelled_nursery_stops_its_engine() -> None:
    timings = attrs.evolve(PATIENT, exit_grace=0.5)  # sleep ignores EOF, not SIGTERM
    with trio.fail_after(GUARD), trio.move_on_after(0.3) as scope:
        async with trio.open_nursery() as nursery:
            process = start_process(nursery, ["sleep", "1000"], name="sleeper", timings=timings)
            await trio.sleep_forever()
    assert scope.cancelled_caught
    status = process.exit_status
    assert status is not None and status.signal == signal.SIGTERM
    await assert_group_gone(process.pgid)


async def test_aclose_stops_the_engine_and_lets_the_nursery_finish() -> None:
    reaped: list[int] = []
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            process = start_process(
                nursery, ["cat"], name="cat", timings=PATIENT, on_reaped=lambda: reaped.append(1)
            )
            status = await process.aclose()
            assert await process.aclose() is status  # a second close changes nothing
    assert status is not None and status.returncode == 0  # left on EOF, no signal needed
    assert reaped == [1]
    await assert_group_gone(process.pgid)


def our_children() -> set[int]:
    """Pids of this process's children, zombies included."""
    children = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    text = stat.read().decode("ascii", "replace")
            except OSError:
                continue
            if int(text[text.rindex(")") + 2 :].split()[1]) == os.getpid():
                children.add(int(entry))
    return children


async def test_an_engine_for_a_closed_nursery_is_not_left_running() -> None:
    async with trio.open_nursery() as nursery:
        pass
    before = our_children()
    with pytest.raises(RuntimeError):
        start_process(nursery, ["sleep", "1000"], name="late")
    assert our_children() <= before  # killed and reaped at once


async def test_close_engine_sends_quit_and_can_be_awaited_by_several_tasks() -> None:
    lines: list[str] = []
    statuses = []
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            client = start_engine(
                nursery, fake_command("hang"), name="e", timings=PATIENT, log=lines.append
            )
            assert await client.command("name") == "fake"

            async def close() -> None:
                statuses.append(await client.close_engine())

            async with trio.open_nursery() as closers:
                closers.start_soon(close)
                closers.start_soon(close)
    assert lines[-2:] == [">> 2 quit", "<< =2"]  # sent once, and acknowledged
    assert statuses[0] is statuses[1]
    assert statuses[0] is not None and statuses[0].returncode == 0
    assert client.process is not None
    await assert_group_gone(client.process.pgid)


async def test_a_cancelled_nursery_quits_an_idle_engine_and_kills_a_busy_one() -> None:
    idle_log: list[str] = []
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            idle = start_engine(
                nursery, fake_command("hang"), name="idle", timings=PATIENT, log=idle_log.append
            )
            busy = start_engine(nursery, fake_command("hang"), name="busy", timings=PATIENT)
            assert await idle.command("name") == "fake"
            nursery.start_soon(busy.command, "genmove", "b")  # never answered
            await trio.testing.wait_all_tasks_blocked()  # it was sent and is awaited
            nursery.cancel_scope.cancel()
    assert ">> 2 quit" in idle_log
    assert idle.process is not None and busy.process is not None
    idle_status, busy_status = idle.process.exit_status, busy.process.exit_status
    assert idle_status is not None and idle_status.returncode == 0
    assert busy_status is not None and busy_status.signal == signal.SIGTERM
    await assert_group_gone(idle.process.pgid)
    await assert_group_gone(busy.process.pgid)


# What the child gets: the same as from subprocess.Popen(close_fds=True,
# start_new_session=True, restore_signals=True), however it is started.


async def output_of(command: list[str], **kwargs: object) -> str:
    async with open_process(command, name="probe", timings=FAST, **kwargs) as process:  # type: ignore[arg-type]
        chunks = []
        while chunk := await process.stdout.receive_some():
            chunks.append(chunk)
    return b"".join(chunks).decode()


async def test_an_inheritable_descriptor_of_ours_is_not_passed_on() -> None:
    read_end, write_end = os.pipe()
    os.set_inheritable(write_end, True)
    try:
        listing = await output_of(["ls", "/proc/self/fd"])
    finally:
        os.close(read_end)
        os.close(write_end)
    descriptors = {int(word) for word in listing.split()}
    assert {0, 1, 2} <= descriptors
    assert write_end not in descriptors
    assert len(descriptors) <= 4  # 0, 1, 2 and the listing's own


async def test_the_engine_does_not_inherit_our_ignored_sigpipe() -> None:
    assert signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN  # Python's own setting
    status = await output_of(["grep", "SigIgn", "/proc/self/status"])
    ignored = int(status.split()[1], 16)
    assert not ignored & (1 << (signal.SIGPIPE - 1))


async def test_a_bare_program_name_is_looked_up_on_the_engine_path(tmp_path: Path) -> None:
    script = tmp_path / "my-engine"
    script.write_text(f"#!{sys.executable}\nimport os; print(os.environ['PATH'])\n")
    script.chmod(0o755)
    path = f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}"
    assert (await output_of(["my-engine"], env={"PATH": path})).strip() == path
