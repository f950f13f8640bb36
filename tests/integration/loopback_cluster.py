"""A real Dask cluster on 127.0.0.1 for tests and benchmarks: scheduler and workers as subprocesses.

Each process runs in its own session and is stopped by :meth:`LoopbackCluster.stop`
(SIGTERM to its group, SIGKILL after a grace period), also when a test fails.
Ports are chosen by the scheduler (``--port 0``) unless a restart asks for the
old one.  Workers run without a nanny, so killing a worker kills the process
that plays the games.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

START_TIMEOUT = 60.0
STOP_GRACE = 10.0


class LoopbackCluster:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.scheduler: subprocess.Popen[bytes] | None = None
        self.workers: dict[str, subprocess.Popen[bytes]] = {}
        self.address = ""
        self._starts = 0

    def _spawn(self, name: str, argv: list[str]) -> subprocess.Popen[bytes]:
        self._starts += 1
        log = open(self.directory / f"{name}.{self._starts}.log", "wb")  # noqa: SIM115
        with log:
            return subprocess.Popen(
                [sys.executable, "-m", *argv],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                cwd=self.directory,
            )

    def log(self, name: str) -> str:
        logs = sorted(self.directory.glob(f"{name}.*.log"), key=lambda p: p.stat().st_mtime)
        return logs[-1].read_text(errors="replace") if logs else ""

    def start_scheduler(self, port: int = 0) -> str:
        """Start the scheduler (on ``port``, or one it picks); its address."""
        info = self.directory / "scheduler.json"
        info.unlink(missing_ok=True)
        self.scheduler = self._spawn(
            "scheduler",
            [
                "distributed.cli.dask_scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-dashboard",
                "--scheduler-file",
                str(info),
            ],
        )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.scheduler.poll() is not None:
                raise RuntimeError(f"the scheduler exited:\n{self.log('scheduler')}")
            with contextlib.suppress(OSError, ValueError, KeyError):
                self.address = str(json.loads(info.read_text())["address"])
                return self.address
            time.sleep(0.05)
        raise RuntimeError("the scheduler did not start")

    @property
    def port(self) -> int:
        return int(self.address.rsplit(":", 1)[1])

    def start_worker(self, name: str, *, resources: str | None = None, threads: int = 1) -> None:
        argv = [
            "distributed.cli.dask_worker",
            self.address,
            "--name",
            name,
            "--nworkers",
            "1",
            "--nthreads",
            str(threads),
            "--no-nanny",
            "--no-dashboard",
            "--host",
            "127.0.0.1",
            "--local-directory",
            str(self.directory / "scratch"),
        ]
        if resources:
            argv += ["--resources", resources]
        self.workers[name] = self._spawn(name, argv)

    def wait_for_workers(self, *names: str) -> None:
        """Until each named worker has registered with the scheduler."""
        deadline = time.monotonic() + START_TIMEOUT
        left = set(names or self.workers)
        while left and time.monotonic() < deadline:
            for name in list(left):
                if self.workers[name].poll() is not None:
                    raise RuntimeError(f"worker {name} exited:\n{self.log(name)}")
                if "Registered to:" in self.log(name):
                    left.discard(name)
            time.sleep(0.05)
        if left:
            raise RuntimeError(f"workers {sorted(left)} did not register")

    def start(self, *names: str, resources: dict[str, str] | None = None) -> str:
        """The scheduler and the named workers, registered; the scheduler's address."""
        self.start_scheduler()
        for name in names:
            self.start_worker(name, resources=(resources or {}).get(name))
        self.wait_for_workers(*names)
        return self.address

    def kill_worker(self, name: str) -> None:
        _kill(self.workers.pop(name), signal.SIGKILL)

    def kill_scheduler(self) -> None:
        if self.scheduler is not None:
            _kill(self.scheduler, signal.SIGKILL)
            self.scheduler = None

    def stop(self) -> None:
        """Workers first (a worker closing while its scheduler goes away can hang), then
        the scheduler; SIGTERM to each process group, SIGKILL after the grace period."""
        workers = list(self.workers.values())
        self.workers.clear()
        _stop_all(workers)
        if self.scheduler is not None:
            _stop_all([self.scheduler])
            self.scheduler = None

    def __enter__(self) -> LoopbackCluster:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def _stop_all(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        _signal_group(process, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE
    for process in processes:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _kill(process, signal.SIGKILL)


def _signal_group(process: subprocess.Popen[bytes], signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signum)


def _kill(process: subprocess.Popen[bytes], signum: int) -> None:
    _signal_group(process, signum)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=STOP_GRACE)
