"""The GTP client's own CPU for one move's exchange, with no engine and no wait.

Where does a 9x9 move's CPU go (issue 31)?  ``gomill_side_by_side.py`` gives the
arena's whole cost per move (about 50 µs here); this isolates one layer of it,
``gtp.client`` with its sans-I/O ``gtp.connection``: the ``play`` + ``genmove``
batch a game sends once a move (``GtpClient.commands`` with the limits a game
gives it, under the watchdog, over pipes), answered by ``=ID\\n\\n=ID C3\\n\\n``
written into the client's pipe beforehand, so the answer is always there when
the client reads (no trio wait, no engine, no scheduler in the figure).  The
floor beside it does the same system calls with nothing around them: the answer
written, the command written, the answer read, by bare ``os.write``/``os.read``.

The difference is the client's Python per move: the batch's ids, the
early-output check, the command bytes, the deadline kept for the watchdog,
the two answers parsed and checked against their ids, the results.  Each
figure is the least of ``--repeats`` timed loops of ``--batches`` (CPU time of
this process; the least is what the code costs when nothing else interferes).

    python benchmarks/gtp_client_cost.py [--batches 20000] [--repeats 5]

The last line is ``RESULT {json}`` with ``client_us_per_batch``,
``floor_us_per_batch``, ``client_python_us`` (their difference) and ``loadavg``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
from collections.abc import Awaitable, Callable

import trio
import trio.testing

from gtp.client import GtpClient

PLAY = ("play", "w", "C3")
GENMOVE = ("genmove", "b")
LIMITS = (30.0, None)  # what a game gives a play before an untimed genmove
DRAIN_EVERY = 500  # command batches between emptyings of the command pipe


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def drain(fd: int) -> None:
    try:
        while os.read(fd, 65536):
            pass
    except BlockingIOError:
        pass


async def least_cost(
    batch: Callable[[], Awaitable[object]], commands_fd: int, batches: int, repeats: int
) -> float:
    """The least CPU per batch (µs) over ``repeats`` loops of ``batches``."""
    best = float("inf")
    for _ in range(repeats):
        start = cpu_seconds()
        for number in range(batches):
            await batch()
            if number % DRAIN_EVERY == 0:
                drain(commands_fd)
        best = min(best, (cpu_seconds() - start) / batches * 1e6)
    drain(commands_fd)
    return best


async def measure(batches: int, repeats: int) -> tuple[float, float]:
    commands_read, commands_write = os.pipe()
    answers_read, answers_write = os.pipe()
    os.set_blocking(commands_read, False)
    client = GtpClient(
        trio.lowlevel.FdStream(answers_read),
        trio.lowlevel.FdStream(commands_write),
        "bench",
        hears=False,
    )

    async def client_batch() -> None:
        first_id = client.connection.last_id + 1  # the ids the batch will get
        os.write(answers_write, b"=%d\n\n=%d C3\n\n" % (first_id, first_id + 1))
        answers = await client.commands(PLAY, GENMOVE, limits=LIMITS)
        assert answers[1] == "C3", answers

    # The floor: the same bytes through the same system calls, and a checkpoint.
    line = b"1 play w C3\n2 genmove b\n"
    send_fd, receive_fd = os.dup(commands_write), os.dup(answers_read)
    os.set_blocking(receive_fd, False)

    async def floor_batch() -> None:
        os.write(answers_write, b"=1\n\n=2 C3\n\n")
        await trio.lowlevel.checkpoint_if_cancelled()
        os.write(send_fd, line)
        data = os.read(receive_fd, 65536)
        assert data.endswith(b" C3\n\n"), data

    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run_watchdog)  # shielded: stopped below, whatever happens
        try:
            # The watchdog waiting: commands only note their deadlines (the game's way).
            await trio.testing.wait_all_tasks_blocked()
            await least_cost(client_batch, commands_read, 1000, 1)  # warm up
            floor = await least_cost(floor_batch, commands_read, batches, repeats)
            cost = await least_cost(client_batch, commands_read, batches, repeats)
        finally:
            client.stop_watchdog()
    for fd in (send_fd, receive_fd, commands_read, answers_write):
        os.close(fd)
    await client.aclose(quit_timeout=0.0)
    return cost, floor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    cost, floor = trio.run(measure, options.batches, options.repeats)
    print(f"client (GtpClient.commands, play + genmove): {cost:6.2f} µs per batch")
    print(f"floor (the same system calls alone):         {floor:6.2f} µs per batch")
    print(f"the client's Python:                         {cost - floor:6.2f} µs per batch")
    result = {
        "client_us_per_batch": round(cost, 2),
        "floor_us_per_batch": round(floor, 2),
        "client_python_us": round(cost - floor, 2),
        "loadavg": [round(value, 2) for value in os.getloadavg()],
    }
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
