"""Playouts in worker processes: leaf batching with virtual loss (tree parallelism).

Owns the worker processes of one engine and the loop that keeps them busy.
The main process keeps the whole tree: it walks down to a leaf
(:meth:`Search.descend`, which counts the visits at once, so the next walk
sees them as losses and spreads out), collects ``batch`` leaves, and sends a
worker just the moves from the root to each of them.  The worker, which holds
a copy of the root position, replays the moves, plays the position out and
sends back Black's result and the AMAF record; the main process backs them up
(:meth:`Search.backup`).  Each worker has up to two batches in flight, so it
never waits for the main process and the main process descends while the
workers play out.

With one worker the order of everything is fixed, so a seeded search is
deterministic (the tests use that); with more, results come back in whatever
order the workers finish.

Workers are fresh interpreters (``python -m engines.mcts.parallel``, never a
fork of a process that may run threads, and never a re-run of the caller's
main script) talking length-prefixed ``marshal`` frames over their stdin and
stdout.  They stop on :meth:`close`, at the end of their input, or with the
engine's process group.  If a worker dies, :class:`WorkerError` says so and the
leaves it held are played out in this process, so no visit is left pending.
"""

from __future__ import annotations

import marshal
import os
import random
import select
import struct
import subprocess
import sys
from collections import deque
from typing import IO, TYPE_CHECKING, Final

from engines.mcts.fastboard import PASS, FastBoard, score_terminal
from engines.mcts.policy import PLAYOUTS

if TYPE_CHECKING:
    from engines.mcts.search import Leaf, Search

IN_FLIGHT: Final = 2  # batches a worker may hold at once
_ROOT: Final = 0
_BATCH: Final = 1


_HEADER: Final = struct.Struct("<I")


class WorkerError(RuntimeError):
    """A playout worker died or broke its pipe."""


def _read_exact(fd: int, size: int) -> bytes:
    chunks = []
    while size:
        chunk = os.read(fd, size)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _read_frame(fd: int) -> bytes:
    (size,) = _HEADER.unpack(_read_exact(fd, _HEADER.size))
    return _read_exact(fd, size)


def _write_frame(fd: int, data: bytes) -> None:
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _worker_main(policy: str, rave: bool, seed: int) -> None:
    """A worker: hold the root position, play out the leaves it is sent (stdin/stdout)."""
    rnd = random.Random(seed).random
    playout = PLAYOUTS[policy]
    root = FastBoard(9)
    komi = 7.5
    fd_in = sys.stdin.fileno()
    fd_out = sys.stdout.fileno()
    while True:
        try:
            data = _read_frame(fd_in)
        except (EOFError, OSError):
            return
        message = marshal.loads(data)
        if message[0] == _ROOT:
            _, size, black, white, to_move, ko, ko_colour, passes, last, komi = message
            root = FastBoard(size)
            root.setup(black, white)
            root.to_move, root.ko, root.ko_colour = to_move, ko, ko_colour
            root.passes, root.last_move = passes, last
            continue
        out = []
        cells = root.geo.cells
        for moves in message[1]:
            board = root.copy()
            for move in moves:
                if move == PASS:
                    board.play(PASS)
                else:
                    board._place(move, board.to_move)
            amaf = bytearray(cells) if rave else None
            if board.passes < 2:
                playout(board, rnd, 0, amaf)
            margin = score_terminal(board) - komi
            result = 1.0 if margin > 0 else 0.0 if margin < 0 else 0.5
            out.append((result, bytes(amaf) if amaf is not None else None))
        try:
            _write_frame(fd_out, marshal.dumps(out))
        except OSError:
            return


class WorkerPool:
    """``workers`` playout processes serving one :class:`Search` (its ``evaluator``)."""

    def __init__(self, workers: int, *, policy: str, rave: bool, seed: int, batch: int = 8) -> None:
        if workers < 1 or batch < 1:
            raise ValueError("a worker pool needs at least one worker and a batch of one")
        self.batch = batch
        self._procs: list[subprocess.Popen[bytes]] = []
        for i in range(workers):
            worker_seed = (seed * 7919 + 104729 * (i + 1)) % 2**31
            command = [sys.executable, "-m", "engines.mcts.parallel", policy, str(int(rave)),
                       str(worker_seed)]
            self._procs.append(
                subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            )

    @property
    def workers(self) -> int:
        return len(self._procs)

    def _send(self, worker: int, data: bytes) -> None:
        stdin = self._procs[worker].stdin
        assert stdin is not None
        try:
            _write_frame(stdin.fileno(), data)
        except OSError as exc:
            raise WorkerError(f"playout worker {worker} is gone ({exc})") from None

    def _receive(self, worker: int) -> bytes:
        stdout = self._procs[worker].stdout
        assert stdout is not None
        try:
            return _read_frame(stdout.fileno())
        except (EOFError, OSError):
            raise WorkerError(f"playout worker {worker} is gone") from None

    def set_root(self, board: FastBoard, komi: float) -> None:
        color = board.color
        points = board.geo.points
        message = (
            _ROOT,
            board.size,
            [p for p in points if color[p] == 1],
            [p for p in points if color[p] == 2],
            board.to_move,
            board.ko,
            board.ko_colour,
            board.passes,
            board.last_move,
            komi,
        )
        data = marshal.dumps(message)
        for worker in range(self.workers):
            self._send(worker, data)

    def run(self, search: Search, count: int) -> int:
        """Run ``count`` simulations of ``search``; every leaf sent out is backed up."""
        flights: list[deque[list[Leaf]]] = [deque() for _ in self._procs]
        progress = [0, 0]  # issued, done
        try:
            while progress[1] < count:
                for worker, queue in enumerate(flights):
                    while len(queue) < IN_FLIGHT and progress[0] < count:
                        leaves = self._issue(search, worker, count, progress)
                        if leaves:
                            queue.append(leaves)
                busy = {self._fileno(w): w for w, queue in enumerate(flights) if queue}
                if not busy:
                    continue
                ready, _, _ = select.select(list(busy), [], [])
                for fd in ready:
                    worker = busy[fd]
                    results = marshal.loads(self._receive(worker))
                    leaves = flights[worker].popleft()
                    for leaf, (result, amaf) in zip(leaves, results, strict=True):
                        search.backup(leaf, result, bytearray(amaf) if amaf is not None else None)
                    progress[1] += len(leaves)
        except WorkerError:
            # play the stranded leaves here, so that no virtual loss stays behind
            for queue in flights:
                for leaves in queue:
                    for leaf in leaves:
                        assert leaf.board is not None
                        result, amaf = search.evaluate(leaf.board)
                        search.backup(leaf, result, amaf)
            raise
        return progress[1]

    def _issue(self, search: Search, worker: int, count: int, progress: list[int]) -> list[Leaf]:
        """Descend to up to ``batch`` leaves and send the ones needing a playout to ``worker``."""
        graph = search.config.structure == "graph"
        leaves: list[Leaf] = []
        jobs: list[list[int]] = []
        while len(leaves) < self.batch and progress[0] < count:
            progress[0] += 1
            leaf = search.descend()
            board = leaf.board
            if board is None:
                search.backup(leaf, -1.0, None)
                progress[1] += 1
                continue
            if board.passes >= 2:  # the game is over: nothing to play out
                result, amaf = search.evaluate(board)
                search.backup(leaf, result, amaf)
                progress[1] += 1
                continue
            leaves.append(leaf)
            if graph:
                jobs.append([edge.move for edge in leaf.edges])
            else:
                jobs.append([node.move for node in leaf.path[1:]])
        if leaves:
            try:
                self._send(worker, marshal.dumps((_BATCH, jobs)))
            except WorkerError:
                for leaf in leaves:
                    assert leaf.board is not None
                    result, amaf = search.evaluate(leaf.board)
                    search.backup(leaf, result, amaf)
                progress[1] += len(leaves)
                raise
        return leaves

    def _fileno(self, worker: int) -> int:
        stdout = self._procs[worker].stdout
        assert stdout is not None
        return stdout.fileno()

    def close(self) -> None:
        """Stop the workers (end of input, then a kill after a second)."""
        for proc in self._procs:
            streams: list[IO[bytes] | None] = [proc.stdin, proc.stdout]
            for stream in streams:
                if stream is not None:
                    stream.close()
        for proc in self._procs:
            try:
                proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._procs.clear()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":
    _worker_main(sys.argv[1], sys.argv[2] == "1", int(sys.argv[3]))
