"""gtp.process: starting engines, their process groups, stderr, and the shutdown path.

Real processes and the real clock; every test that starts something checks that
nothing of the engine's process group is left afterwards.
"""

from __future__ import annotations

import os
import signal
import stat
import sys
from pathlib import Path

import attrs
import pytest
import trio

from gtp.errors import EngineStartError
from gtp.process import EngineProcess, ExitStatus, ProcessOptions, ShutdownTimings, open_process
from gtp.spawn import split_command
from tests.fakes import assert_group_gone, fake_command

FAST = ShutdownTimings(quit_timeout=0.5, exit_grace=0.5, term_grace=0.5, kill_wait=3.0)
PATIENT = ShutdownTimings(quit_timeout=60.0, exit_grace=60.0, term_grace=60.0, kill_wait=60.0)
PY = sys.executable


async def read_all(process: EngineProcess) -> bytes:
    chunks = []
    while chunk := await process.stdout.receive_some():
        chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize(
    ("wait_status", "description", "exitcode"),
    [
        (0, "exited with status 0", 0),
        (3 << 8, "exited with status 3", 3),
        (signal.SIGSEGV, "killed by signal SIGSEGV", -signal.SIGSEGV),
        (signal.SIGSEGV | 0x80, "killed by signal SIGSEGV (core dumped)", -signal.SIGSEGV),
        (signal.SIGKILL, "killed by signal SIGKILL", -signal.SIGKILL),
    ],
)
def test_exit_status_descriptions(wait_status: int, description: str, exitcode: int) -> None:
    status = ExitStatus.from_wait_status(wait_status)
    assert status.description == description
    assert status.exitcode == exitcode


def test_split_command(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert split_command("gnugo --mode gtp") == ["gnugo", "--mode", "gtp"]
    assert split_command("'my engine' --name 'a b'") == ["my engine", "--name", "a b"]
    assert split_command("~/bin/engine --book ~/book") == [
        f"{tmp_path}/bin/engine",
        "--book",
        f"{tmp_path}/book",
    ]
    # A list is taken as it is: no splitting, no expansion.
    assert split_command(["~/x y", "z"]) == ["~/x y", "z"]


@pytest.mark.parametrize("command", ["", "   ", "engine 'unclosed", []])
def test_split_command_rejects_unusable_commands(command: str | list[str]) -> None:
    with pytest.raises(EngineStartError):
        split_command(command)


async def test_missing_binary_is_a_one_line_start_error() -> None:
    with pytest.raises(EngineStartError) as caught:
        async with open_process("/no/such/engine --mode gtp", name="ghost"):
            pass  # pragma: no cover
    message = str(caught.value)
    assert "\n" not in message
    assert "'ghost'" in message
    assert "/no/such/engine --mode gtp" in message
    assert "No such file" in message


async def test_file_without_execute_permission_is_a_start_error(tmp_path: Path) -> None:
    script = tmp_path / "engine.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(stat.S_IRUSR | stat.S_IWUSR)
    with pytest.raises(EngineStartError, match="Permission denied") as caught:
        async with open_process([script], name="noexec"):
            pass  # pragma: no cover
    assert str(script) in str(caught.value)


async def test_missing_working_directory_is_a_start_error(tmp_path: Path) -> None:
    with pytest.raises(EngineStartError, match="working directory"):
        async with open_process([PY, "-c", "pass"], name="e", cwd=tmp_path / "nope"):
            pass  # pragma: no cover


async def test_tilde_is_expanded_in_a_command_string(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    script = tmp_path / "engine.sh"
    script.write_text("#!/bin/sh\necho started\n")
    script.chmod(0o755)
    monkeypatch.setenv("HOME", str(tmp_path))
    async with open_process("~/engine.sh", name="home", timings=FAST) as process:
        assert await read_all(process) == b"started\n"
    await assert_group_gone(process.pgid)


async def test_cwd_and_extra_environment(tmp_path: Path) -> None:
    code = (
        "import os; print(os.getcwd()); print(os.environ['GTP_ARENA_TEST']);"
        " print('PATH' in os.environ)"
    )
    async with open_process(
        [PY, "-c", code], name="env", cwd=tmp_path, env={"GTP_ARENA_TEST": "42"}, timings=FAST
    ) as process:
        output = (await read_all(process)).decode().split("\n")
    assert output[:3] == [str(tmp_path), "42", "True"]  # merged over our environment


async def test_the_options_value_and_keywords_over_it(tmp_path: Path) -> None:
    code = "import os; print(os.getcwd()); print(os.environ['GTP_ARENA_TEST'])"
    options = ProcessOptions(cwd="/", env={"GTP_ARENA_TEST": "1"}, timings=FAST)
    async with open_process([PY, "-c", code], name="env", options=options, cwd=tmp_path) as process:
        assert process.timings == FAST
        output = (await read_all(process)).decode().split("\n")
    assert output[:2] == [str(tmp_path), "1"]


async def test_engine_leads_its_own_process_group() -> None:
    async with open_process(fake_command("hang"), name="e", timings=FAST) as process:
        assert os.getpgid(process.pid) == process.pid == process.pgid
        assert process.pgid != os.getpgrp()
        assert process.exit_status is None
    await assert_group_gone(process.pgid)


async def test_stderr_tail_is_bounded_and_lines_reach_the_callback() -> None:
    lines: list[str] = []
    code = (
        "import sys\n"
        "for i in range(5000): sys.stderr.write(f'line {i} ' + 'x' * 50 + '\\n')\n"
        "sys.stderr.write('no newline at the end')\n"
    )
    async with open_process(
        [PY, "-c", code],
        name="chatty",
        on_stderr_line=lines.append,
        stderr_tail_bytes=1000,
        timings=FAST,
    ) as process:
        await process.wait()
    assert len(process.stderr_tail) == 1000
    assert process.stderr_tail.endswith(b"line 4999 " + b"x" * 50 + b"\nno newline at the end")
    assert len(lines) == 5001
    assert lines[0] == "line 0 " + "x" * 50
    assert lines[-1] == "no newline at the end"


async def test_discarded_stderr_is_neither_kept_nor_reported() -> None:
    lines: list[str] = []
    code = "import sys; sys.stderr.write('noise\\n' * 1000)"
    async with open_process(
        [PY, "-c", code], name="quiet", stderr="discard", on_stderr_line=lines.append, timings=FAST
    ) as process:
        status = await process.wait()
    assert status.returncode == 0
    assert process.stderr_tail == b""
    assert lines == []


@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd", "waitid-thread"])
async def test_group_is_killed_when_the_leader_exits_by_itself(
    pidfd: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not pidfd:
        monkeypatch.delattr(os, "pidfd_open", raising=False)
    # The shell leaves a background sleeper behind in its group and exits.
    async with open_process(
        ["sh", "-c", "sleep 1000 & exit 7"], name="leaver", timings=FAST
    ) as process:
        status = await process.wait()
        assert status.description == "exited with status 7"
        # Killed as soon as the leader's exit was noticed, before any shutdown.
        await assert_group_gone(process.pgid)


async def answer(process: EngineProcess, command: bytes) -> bytes:
    """Send a GTP command over the bare pipes; the engine's answer."""
    await process.stdin.send_all(command + b"\n")
    data = b""
    while not data.endswith(b"\n\n"):
        chunk = await process.stdout.receive_some()
        assert chunk, f"no answer to {command!r}: {data!r}"
        data += chunk
    return data


# Each step the engine is expected to pass gets all the time it could want
# (a loaded machine may take seconds to run a small process); only the waits it
# must sit out in full, because the engine ignores that step, are short.
@pytest.mark.parametrize(
    ("command", "timings", "signal_name", "returncode"),
    [
        # Leaves on EOF: closing its stdin is enough.
        (["cat"], PATIENT, None, 0),
        # Ignores EOF, dies of SIGTERM.
        (["sleep", "1000"], attrs.evolve(PATIENT, exit_grace=0.5), "SIGTERM", None),
        # Ignores EOF and SIGTERM: SIGKILL after the grace period.
        (
            fake_command("ignore_term"),
            attrs.evolve(PATIENT, exit_grace=0.5, term_grace=0.5),
            "SIGKILL",
            None,
        ),
    ],
    ids=["eof", "sigterm", "sigkill"],
)
async def test_shutdown_escalates_only_as_far_as_needed(
    command: list[str], timings: ShutdownTimings, signal_name: str | None, returncode: int | None
) -> None:
    async with open_process(command, name="stubborn", timings=timings) as process:
        if command[0] == PY:
            # The fake answers only once it has set SIGTERM aside.
            assert await answer(process, b"1 protocol_version") == b"=1 2\n\n"
    status = process.exit_status
    assert status is not None
    assert status.returncode == returncode
    assert status.signal == (None if signal_name is None else signal.Signals[signal_name])
    await assert_group_gone(process.pgid)


async def test_shutdown_runs_when_the_surrounding_scope_is_cancelled() -> None:
    timings = attrs.evolve(PATIENT, exit_grace=0.5)  # sleep ignores EOF, not SIGTERM
    with trio.move_on_after(0.3) as scope:
        async with open_process(["sleep", "1000"], name="sleeper", timings=timings) as process:
            await trio.sleep_forever()
    assert scope.cancelled_caught
    status = process.exit_status
    assert status is not None and status.signal == signal.SIGTERM
    await assert_group_gone(process.pgid)


async def test_exceptions_from_the_body_pass_through_unwrapped() -> None:
    with pytest.raises(KeyError):
        async with open_process(["sleep", "1000"], name="sleeper", timings=FAST) as process:
            raise KeyError("mine")
    await assert_group_gone(process.pgid)


async def test_cpu_time_of_the_reaped_child_is_reported() -> None:
    code = "import time\nend = time.process_time() + 0.2\nwhile time.process_time() < end: pass"
    async with open_process([PY, "-c", code], name="busy", timings=FAST) as process:
        status = await process.wait()
    assert status.cpu_time is not None and status.cpu_time >= 0.2
