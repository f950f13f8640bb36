"""Playouts in worker processes: leaf batching with virtual loss (tree parallelism).

Owns the worker processes of one engine and the loop that keeps them busy.
The main process keeps the whole tree: it walks down to a leaf
(:meth:`Search.descend`, which counts the visits at once, so the next walk
sees them as losses and spreads out), collects ``batch`` leaves, and sends a
worker just the moves from the root to each of them.  The worker, which holds
a copy of the root position, replays the moves, plays the position out and
sends back Black's result and the AMAF record; the main process backs them up
(:meth:`Search.backup`).  When a leaf is due for expansion the worker also
lists its moves and their position priors (the costly part of expanding), so
the main process only builds the nodes.  Each worker has up to two batches in flight, so it
never waits for the main process and the main process descends while the
workers play out.

With ``share`` (the engine's default) the main process plays out too: when a
batch is ready and every worker still holds two, it plays the next leaves out
itself until a worker has room, and a flush plays the unsent partial batch
here.  So one worker and the main process keep two cores busy, with the tree
work done by the process that would otherwise wait; without it, the main
process only keeps the tree and needs a core of its own for that.

Without sharing and with one worker the order of everything is fixed, so a
seeded search is deterministic (the tests use that); otherwise results come
back in whatever order the processes finish.

Workers are fresh interpreters (``python -m engines.mcts.parallel``, never a
fork of a process that may run threads, and never a re-run of the caller's
main script) talking length-prefixed ``marshal`` frames over their stdin and
stdout.  They stop on :meth:`close`, at the end of their input, or with the
engine's process group.  If a worker dies, :class:`WorkerError` says so and the
leaves it held are played out in this process, so no visit is left pending.
"""

from __future__ import annotations

import json
import marshal
import os
import random
import select
import struct
import subprocess
import sys
from collections import deque
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Final

import attrs

from engines.mcts.config import SearchConfig
from engines.mcts.fastboard import NATIVE, FastBoard
from engines.mcts.policy import FastRandom, black_result, new_playout
from engines.mcts.priors import list_moves

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


def _worker_main(settings: str, seed: int) -> None:
    """A worker: hold the root position, play out the leaves it is sent (stdin/stdout)."""
    config = SearchConfig(**json.loads(settings))
    rave = config.rave != "off"
    source = random.Random(seed)
    rnd: Callable[[], float] = FastRandom(source) if NATIVE else source.random
    playout = new_playout(config.policy)
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
        for moves, expand in message[1]:
            board = root.copy()
            for move in moves:
                board.play_known(move)
            listed: list[int] | None = None
            stats = None
            if expand:
                candidates, stats = list_moves(board, config)
                listed = list(candidates)
            amaf = bytearray(cells) if rave else None
            result = black_result(board, playout, rnd, komi, amaf, config.mercy)
            out.append((result, bytes(amaf) if amaf is not None else None, listed, stats))
        try:
            _write_frame(fd_out, marshal.dumps(out))
        except OSError:
            return


class WorkerPool:
    """``workers`` playout processes serving one :class:`Search` (its ``evaluator``)."""

    def __init__(
        self, workers: int, config: SearchConfig, *, seed: int, batch: int = 8, share: bool = False
    ) -> None:
        if workers < 1 or batch < 1:
            raise ValueError("a worker pool needs at least one worker and a batch of one")
        self.batch = batch
        self.share = share
        self.played_here = 0  # leaves the main process played out itself
        self._root: tuple[FastBoard, float] | None = None
        self._buffer: list[Leaf] = []  # leaves waiting for a full batch
        self._owner: Search | None = None  # the search whose leaves are out
        self._procs: list[subprocess.Popen[bytes]] = []
        settings = json.dumps(
            {
                "policy": config.policy,
                "rave": config.rave,
                "priors": config.priors,
                "prior_visits": config.prior_visits,
                "pass_threshold": config.pass_threshold,
                "prior_weights": attrs.asdict(config.prior_weights),
                "mercy": config.mercy,
            }
        )
        for i in range(workers):
            worker_seed = (seed * 7919 + 104729 * (i + 1)) % 2**31
            command = [sys.executable, "-m", "engines.mcts.parallel", settings, str(worker_seed)]
            self._procs.append(
                subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            )
        self._flights: list[deque[list[Leaf]]] = [deque() for _ in self._procs]

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
        """Give the workers the position the leaves' moves start from."""
        self._root = (board, komi)
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
        """Start ``count`` simulations of ``search``; returns ``count``.

        Leaves go out in full batches and results are taken in only when a
        worker has no room for the next batch, so the workers stay busy across
        calls and the order of everything depends only on the number of
        simulations (deterministic with one worker and no sharing); when
        sharing, a leaf that finds every worker full is played out here.
        :meth:`drain` finishes the simulations still out; the search calls it
        before it reports.
        """
        owner = self._owner
        if owner is not search:  # a pool shared between searches: finish the other's work
            if owner is not None:
                self.drain(owner)
            self._owner = search
        root = self._root
        if root is None or root[0] is not search.root_board or root[1] != search.komi:
            self.set_root(search.root_board, search.komi)
        batch = self.batch
        share = self.share
        for _ in range(count):
            leaf = search.descend()
            board = leaf.board
            if board is None:
                search.backup(leaf, -1.0, None)
            elif board.passes >= 2:  # the game is over: nothing to play out
                self._play_here(search, leaf)
            elif len(self._buffer) < batch:
                self._buffer.append(leaf)
                if len(self._buffer) >= batch and (not share or self._room(search)):
                    self._send_buffer(search)  # without sharing, waits for a worker with room
            elif self._room_for(search, leaf):  # sharing: a full batch was waiting for a worker
                self._send_buffer(search)
                self._buffer.append(leaf)
            else:  # sharing, and every worker is busy: play it out here
                self._play_here(search, leaf)
        return count

    def _room(self, search: Search) -> bool:
        """Whether a worker has room for a batch, after taking in the results already back."""
        if self._free_worker() < 0:
            self._receive_some(search, timeout=0.0)
        return self._free_worker() >= 0

    def _room_for(self, search: Search, leaf: Leaf) -> bool:
        """:meth:`_room`, finishing ``leaf`` here if a worker turns out to be gone."""
        try:
            return self._room(search)
        except WorkerError:
            self._play_here(search, leaf)
            raise

    def _play_here(self, search: Search, leaf: Leaf) -> None:
        """Play ``leaf`` out in this process, listing its moves if it is due for expansion."""
        board = leaf.board
        assert board is not None
        self.played_here += 1
        expansion = list_moves(board, search.config) if leaf.expand is not None else None
        result, amaf = search.evaluate(board)
        search.backup(leaf, result, amaf, expansion)

    def drain(self, search: Search) -> None:
        """Finish every simulation still out (the partial batch included)."""
        if self.share:  # the workers are busy with what they hold: play the rest here
            leaves, self._buffer = self._buffer, []
            for leaf in leaves:
                self._play_here(search, leaf)
        elif self._buffer:
            self._send_buffer(search)
        while any(self._flights):
            self._receive_some(search)

    def _send_buffer(self, search: Search) -> None:
        flights = self._flights
        worker = self._free_worker()
        while worker < 0:
            self._receive_some(search)
            worker = self._free_worker()
        leaves = self._buffer
        self._buffer = []
        graph = search.config.structure == "graph"
        jobs = []
        for leaf in leaves:
            if graph:
                moves = [edge.move for edge in leaf.edges]
            else:
                moves = [node.move for node in leaf.path[1:]]
            jobs.append((moves, leaf.expand is not None))
        flights[worker].append(leaves)
        try:
            self._send(worker, marshal.dumps((_BATCH, jobs)))
        except WorkerError:
            self._rescue(search)
            raise

    def _free_worker(self) -> int:
        """The first worker with room for another batch, or -1."""
        for worker, queue in enumerate(self._flights):
            if len(queue) < IN_FLIGHT:
                return worker
        return -1

    def _receive_some(self, search: Search, timeout: float | None = None) -> None:
        """Wait (up to ``timeout``) for workers' oldest batches and back them up."""
        flights = self._flights
        busy = {self._fileno(w): w for w, queue in enumerate(flights) if queue}
        if not busy:
            return
        ready, _, _ = select.select(sorted(busy), [], [], timeout)
        for fd in ready:
            worker = busy[fd]
            try:
                results = marshal.loads(self._receive(worker))
            except WorkerError:
                self._rescue(search)
                raise
            leaves = flights[worker].popleft()
            for leaf, (result, amaf, listed, stats) in zip(leaves, results, strict=True):
                search.backup(
                    leaf,
                    result,
                    bytearray(amaf) if amaf is not None else None,
                    None if listed is None else (listed, stats),
                )

    def _rescue(self, search: Search) -> None:
        """Play every leaf still out in this process, so no virtual loss stays behind."""
        stranded = [leaf for queue in self._flights for leaves in queue for leaf in leaves]
        stranded.extend(self._buffer)
        self._buffer = []
        for queue in self._flights:
            queue.clear()
        for leaf in stranded:
            self._play_here(search, leaf)

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
    _worker_main(sys.argv[1], int(sys.argv[2]))
