"""Load the machine's cores with busy processes while a command runs, then stop them.

Usage::

    python benchmarks/load.py [--procs 4] [--max-seconds 3600] -- COMMAND [ARG ...]

starts ``--procs`` processes that spin on the CPU, runs COMMAND, stops the
spinners and exits with COMMAND's status.  Each spinner also stops by itself
after ``--max-seconds`` and as soon as the process that started it is gone
(it checks its parent about ten times a second), so a killed run never leaves
load behind.  It prints the command's wall time and the load average before
and after, so a figure measured under load can say what the load was.

Other benchmarks use :func:`cpu_hog` (a context manager) for the same load
inside their own run, for example ``clock_stress.py --loaded``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator

# The spinner: burn the CPU, look up now and then whether to stop.
SPINNER = """
import os, sys, time
parent, stop = os.getppid(), time.monotonic() + float(sys.argv[1])
while time.monotonic() < stop and os.getppid() == parent:
    for _ in range(200_000):
        pass
"""


@contextlib.contextmanager
def cpu_hog(procs: int = 4, max_seconds: float = 3600.0) -> Iterator[list[int]]:
    """``procs`` busy processes for the length of the ``with`` block (their pids)."""
    spinners = [
        subprocess.Popen(
            [sys.executable, "-c", SPINNER, str(max_seconds)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        for _ in range(procs)
    ]
    try:
        yield [spinner.pid for spinner in spinners]
    finally:
        for spinner in spinners:
            spinner.kill()
        for spinner in spinners:
            spinner.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--procs", type=int, default=4, help="busy processes (default 4)")
    parser.add_argument(
        "--max-seconds", type=float, default=3600.0, help="each spinner's own time limit"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARG ...]")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (put it after --)")
    before = os.getloadavg()[0]
    started = time.perf_counter()
    with cpu_hog(args.procs, args.max_seconds):
        try:
            status = subprocess.call(command)
        except FileNotFoundError:
            print(f"load.py: no such command: {command[0]}", file=sys.stderr)
            return 127
    wall = time.perf_counter() - started
    print(
        f"load.py: {' '.join(command)}: exit {status} after {wall:.1f} s beside"
        f" {args.procs} busy processes on {len(os.sched_getaffinity(0))} cores"
        f" (load average {before:.1f} before, {os.getloadavg()[0]:.1f} after)",
        file=sys.stderr,
    )
    return status


if __name__ == "__main__":
    sys.exit(main())
