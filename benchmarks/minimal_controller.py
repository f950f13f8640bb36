"""The least a controller can do: the reference the latency benchmarks measure the arena against.

One ``selectors`` loop in this process drives two engine subprocesses per
slot over pipes: non-blocking reads, one write per command, no trio, no
referee, no records.  What each slot sends is a script (a generator): it
yields ``(engine, command line, timed?)`` with engine 0 or 1 of its slot, and
is sent back ``(answer, seconds)``: the answer's text without ``=``, and for a
timed command the seconds from just before the write to the read of the
answer's last line (0.0 otherwise).  The slot ends when its script does; its
engines' stdin is then closed.  Every engine is started, and has answered
``protocol_version`` (as the arena asks at its startup check), before the
first slot's script begins, so no slot plays while another's engines are
still starting.

Whatever latency this loop shows on a loaded machine is the machine's and the
engines': ``benchmarks/harness_latency.py`` and ``benchmarks/clock_stress.py``
run it in the same process as the arena, over the same engines and commands.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import time
from collections.abc import Callable, Generator

Step = tuple[int, str, bool]
Script = Generator[Step, tuple[str, float], None]


def drive(
    argv: list[str],
    scripts: list[Script],
    environment: Callable[[int], dict[str, str]] | None = None,
) -> None:
    """Run each slot's script against its own two engines (``argv``) until every script ends.

    ``environment(slot)``, when given, adds to each engine's environment.
    """
    selector = selectors.DefaultSelector()
    processes: list[subprocess.Popen[bytes]] = []
    engines: list[list[tuple[int, int]]] = []
    timed_at = [0.0] * len(scripts)
    buffers = [bytearray() for _ in scripts]

    def send(slot: int, step: Step) -> None:
        engine, line, timed = step
        timed_at[slot] = time.perf_counter() if timed else 0.0
        os.write(engines[slot][engine][0], line.encode() + b"\n")

    for slot in range(len(scripts)):
        env = {**os.environ, **environment(slot)} if environment else None
        pair = []
        for _ in range(2):
            process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, env=env
            )
            processes.append(process)
            assert process.stdin is not None and process.stdout is not None
            os.set_blocking(process.stdout.fileno(), False)
            pair.append((process.stdin.fileno(), process.stdout.fileno()))
            selector.register(process.stdout.fileno(), selectors.EVENT_READ, slot)
        engines.append(pair)
    for pair in engines:
        for write_fd, _ in pair:
            os.write(write_fd, b"protocol_version\n")
    for pair in engines:
        for _, read_fd in pair:
            answer = b""
            while not answer.endswith(b"\n\n"):
                try:
                    data = os.read(read_fd, 65536)
                except BlockingIOError:
                    time.sleep(0.001)
                    continue
                if not data:
                    raise RuntimeError("an engine exited at its first command")
                answer += data
    running = 0
    for slot, script in enumerate(scripts):
        try:
            send(slot, next(script))
            running += 1
        except StopIteration:
            pass
    while running:
        for key, _ in selector.select():
            slot = key.data
            data = os.read(key.fd, 65536)
            received = time.perf_counter()
            if not data:  # the engine has gone (after quit)
                selector.unregister(key.fd)
                continue
            buffer = buffers[slot]
            buffer += data
            if b"\n\n" not in buffer:
                continue
            answer = bytes(buffer).split(b"\n\n", 1)[0].decode().lstrip("=").strip()
            buffer.clear()
            seconds = received - timed_at[slot] if timed_at[slot] else 0.0
            try:
                send(slot, scripts[slot].send((answer, seconds)))
            except StopIteration:
                running -= 1
    for process in processes:
        assert process.stdin is not None
        process.stdin.close()
        process.wait()
