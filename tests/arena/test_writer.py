"""arena.store.writer: records built and announced when no game waits, never held back long.

On trio's MockClock: the busy task stands for games whose engines answer at
once, and each of its steps takes a fixed slice of (virtual) time, so what the
writer does is told in busy steps and clock readings that do not depend on how
fast, or how loaded, the machine is.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing

from arena.store.journal import VoidEntry
from arena.store.writer import IDLE_WAIT_SECONDS, Commit, MemoryStore, RecordWriter

BUSY_STEPS = 200
# A busy step's share of the clock: all 200 take half the writer's wait for a quiet moment.
STEP_SECONDS = IDLE_WAIT_SECONDS / (2 * BUSY_STEPS)
# How late, in busy steps, the writer may act after its deadline: a deadline is
# noticed at the scheduler's next pass, and trio shuffles the tasks of a pass.
LATE_STEPS = 3


async def busy(
    clock: trio.testing.MockClock,
    progress: list[int],
    steps: int | None,
    on_step: list[object] | None = None,
) -> None:
    """A task that can always run, each step taking ``STEP_SECONDS`` of the clock."""
    done = 0
    while steps is None or done < steps:
        await trio.sleep(0)
        clock.jump(STEP_SECONDS)
        done += 1
        progress[0] = done
        for callback in on_step or ():
            assert callable(callback)
            callback()


def commit(name: str, seen: list[tuple[str, int, float]], progress: list[int]) -> Commit:
    def build() -> bytes:
        seen.append((f"build {name}", progress[0], trio.current_time()))
        return b"(;FF[4])"

    def announce() -> None:
        seen.append((f"announce {name}", progress[0], trio.current_time()))

    return Commit(None, (Path(f"{name}.sgf"), build), announce)


async def test_records_are_built_and_announced_once_no_other_task_can_run(
    autojump_clock: trio.testing.MockClock,
) -> None:
    store = MemoryStore()
    writer = RecordWriter(store)
    seen: list[tuple[str, int, float]] = []
    progress = [0]
    started = trio.current_time()
    # No deadline of ours: while the writer's thread works, the autojump clock
    # would jump to it.  A writer that slept to its own deadline instead of
    # waiting for a quiet moment gets there by autojump, and fails below.
    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.run)
        nursery.start_soon(busy, autojump_clock, progress, BUSY_STEPS)
        writer.submit(commit("a", seen, progress))
        writer.submit(commit("b", seen, progress))
        writer.close()
    # Nothing was done while the busy task could still run...
    assert [what for what, _, _ in seen] == ["build a", "build b", "announce a", "announce b"]
    assert all(at == BUSY_STEPS for _, at, _ in seen), seen
    # ...and everything as soon as it could not: not at the writer's deadline,
    # which was half its wait later.
    busy_ended = started + BUSY_STEPS * STEP_SECONDS
    assert busy_ended < started + IDLE_WAIT_SECONDS
    assert all(when == pytest.approx(busy_ended) for _, _, when in seen), (busy_ended, seen)
    assert sorted(store.records) == [Path("a.sgf"), Path("b.sgf")]


async def test_a_loop_that_is_never_idle_delays_a_record_briefly_not_forever(
    autojump_clock: trio.testing.MockClock,
) -> None:
    store = MemoryStore()
    writer = RecordWriter(store)
    seen: list[tuple[str, int, float]] = []
    progress = [0]
    durable_seen: list[float] = []  # when the busy task first saw the batch written

    def note_durable() -> None:
        if writer.batches and not durable_seen:
            durable_seen.append(trio.current_time())

    # Virtual time, which the busy task moves on: a writer that waits for an idle
    # moment without a deadline fails here instead of hanging.
    with trio.fail_after(1000 * IDLE_WAIT_SECONDS):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(busy, autojump_clock, progress, None, [note_durable])
            async with trio.open_nursery() as writing:
                writing.start_soon(writer.run)
                started = trio.current_time()
                writer.submit(commit("a", seen, progress))
                writer.close()
            nursery.cancel_scope.cancel()
    assert [what for what, _, _ in seen] == ["build a", "announce a"]
    (_, _, built), (_, _, announced) = seen
    late = LATE_STEPS * STEP_SECONDS
    # It waited for a quiet moment until its deadline, and not longer...
    assert started + IDLE_WAIT_SECONDS <= built <= started + IDLE_WAIT_SECONDS + late
    # ...and again, once the batch was durable, before announcing it.  (How long
    # the thread took is real time, so it is measured from when the busy task saw
    # the batch written, at most a step after the writer did.)
    assert len(durable_seen) == 1
    written = durable_seen[0]
    assert written - late <= announced - IDLE_WAIT_SECONDS <= written + late


async def test_a_batch_writes_the_state_its_last_commit_builds_once() -> None:
    """Each commit brings what builds the state; a batch builds it once, from its last."""

    class StatusStore(MemoryStore):
        statuses: list[bytes | None]

        @property
        def wants_status(self) -> bool:
            return True

        def commit(self, records: object, entries: object, status: bytes | None) -> None:
            self.statuses.append(status)

    store = StatusStore()
    store.statuses = []
    built: list[str] = []
    announced: list[str] = []

    first_batch_done = trio.Event()

    def game(name: str) -> Commit:
        def status() -> bytes:
            built.append(name)
            return name.encode()

        def announce() -> None:
            announced.append(name)
            if name == "b":
                first_batch_done.set()

        return Commit(VoidEntry(name, "a v b", "crash"), None, announce, status)

    writer = RecordWriter(store)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.run)
        writer.submit(game("a"))
        writer.submit(game("b"))
        await first_batch_done.wait()
        writer.submit(game("c"))
        writer.close()
    assert (built, store.statuses, announced) == (["b", "c"], [b"b", b"c"], ["a", "b", "c"])
    assert writer.batches == 2
