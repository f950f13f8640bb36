"""arena.store.writer: records built and announced when no game waits, never held back long."""

from __future__ import annotations

from pathlib import Path

import trio

from arena.store.writer import IDLE_WAIT_SECONDS, Commit, MemoryStore, RecordWriter

BUSY_STEPS = 200


async def busy(progress: list[int], steps: int | None) -> None:
    """A task that can always run (like games whose engines answer at once)."""
    done = 0
    while steps is None or done < steps:
        await trio.sleep(0)
        done += 1
        progress[0] = done


def commit(name: str, seen: list[tuple[str, int]], progress: list[int]) -> Commit:
    def build() -> bytes:
        seen.append((f"build {name}", progress[0]))
        return b"(;FF[4])"

    def announce(last: bool) -> None:
        seen.append((f"announce {name}", progress[0]))

    return Commit(None, (Path(f"{name}.sgf"), build), announce)


async def test_records_are_built_and_announced_once_no_other_task_can_run() -> None:
    store = MemoryStore()
    writer = RecordWriter(store, lambda wants_status: None)
    seen: list[tuple[str, int]] = []
    progress = [0]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.run)
        nursery.start_soon(busy, progress, BUSY_STEPS)
        writer.submit(commit("a", seen, progress))
        writer.submit(commit("b", seen, progress))
        writer.close()
    # Nothing was done while the busy task could still run.
    assert [what for what, _ in seen] == ["build a", "build b", "announce a", "announce b"]
    assert all(at == BUSY_STEPS for _, at in seen), seen
    assert sorted(store.records) == [Path("a.sgf"), Path("b.sgf")]


async def test_a_loop_that_is_never_idle_delays_a_record_briefly_not_forever() -> None:
    store = MemoryStore()
    writer = RecordWriter(store, lambda wants_status: None)
    seen: list[tuple[str, int]] = []
    progress = [0]
    with trio.fail_after(20):  # only there so that a broken writer fails instead of hanging
        async with trio.open_nursery() as nursery:
            nursery.start_soon(busy, progress, None)
            async with trio.open_nursery() as writing:
                writing.start_soon(writer.run)
                started = trio.current_time()
                writer.submit(commit("a", seen, progress))
                writer.close()
            waited = trio.current_time() - started
            nursery.cancel_scope.cancel()
    assert [what for what, _ in seen] == ["build a", "announce a"]
    assert waited >= IDLE_WAIT_SECONDS  # it did wait for a quiet moment...
    assert waited < 10 * IDLE_WAIT_SECONDS + 1  # ...but not for long
