"""CPU pinning of game slots (``affinity``): each slot's engines run on cores of their own."""

from __future__ import annotations

import contextlib
import os
import shlex
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

from arena.api import run_competition
from arena.competitions.base import PlayerCheck
from arena.errors import ControlFileError
from arena.events import Event, EventBus, RunWarning
from arena.run.affinity import AffinityError, slot_cores
from arena.run.executor import LocalExecutor, Slot
from arena.run.ringmaster import RunError, RunOptions
from arena_cli.main import main
from gtp.errors import EngineStartError

from .fakes import fake_command
from .test_cli import one_line_error, write_ctl
from .test_ringmaster import MOVES_B, run, write_competition


def usable() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def need_two_cores() -> list[int]:
    if not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs at least 2 usable cores")
    return usable()


def cpus_by_engine(cpus_file: Path) -> dict[tuple[str, str], set[str]]:
    """(slot, pid) -> the CPU lists the engine reported at its genmoves."""
    seen: dict[tuple[str, str], set[str]] = defaultdict(set)
    for line in cpus_file.read_text().splitlines():
        slot, pid, cpus = line.split()
        seen[(slot, pid)].add(cpus)
    return seen


@pytest.mark.parametrize(
    ("parallel", "per_slot", "cores", "expected"),
    [
        (2, 1, [0, 1], ({0}, {1})),
        (1, 2, [0, 1], ({0, 1},)),
        (2, 2, [7, 3, 5, 1], ({1, 3}, {5, 7})),  # in order, whatever the order given
        (1, 1, [4, 6], ({4},)),
    ],
)
def test_each_slot_gets_cores_of_its_own(
    parallel: int, per_slot: int, cores: list[int], expected: tuple[set[int], ...]
) -> None:
    assert slot_cores(parallel, per_slot, cores) == tuple(frozenset(c) for c in expected)


def test_too_many_slots_for_the_cores_is_one_line_naming_the_numbers() -> None:
    with pytest.raises(AffinityError) as caught:
        slot_cores(3, 1, [0, 1])
    assert str(caught.value) == (
        "affinity = 1 core per game slot with --parallel 3 needs 3 cores,"
        " but only 2 are usable here"
    )
    with pytest.raises(AffinityError, match=r"affinity = 2 cores .* --parallel 2 needs 4"):
        slot_cores(2, 2, [0, 1, 2])


@pytest.mark.parametrize(("text", "expected"), [("True", 1), ("2", 2), ("False", 0), ("None", 0)])
def test_the_affinity_setting(tmp_path: Path, text: str, expected: int) -> None:
    config = write_competition(tmp_path, extra=f"affinity = {text}\n")
    assert config.affinity == expected


@pytest.mark.parametrize("text", ["'yes'", "-1", "1.5"])
def test_a_bad_affinity_setting_names_it(tmp_path: Path, text: str) -> None:
    with pytest.raises(ControlFileError, match="affinity"):
        write_competition(tmp_path, extra=f"affinity = {text}\n")


async def test_without_affinity_engines_may_use_every_core(tmp_path: Path) -> None:
    cpus_file = tmp_path / "cpus"
    config = write_competition(tmp_path, [f"--cpus-file={cpus_file}"], games=2)
    await run(config, parallel=2)
    every = ",".join(map(str, usable()))
    assert {c for cpus in cpus_by_engine(cpus_file).values() for c in cpus} == {every}


async def test_each_slots_engines_run_on_the_slots_core(tmp_path: Path) -> None:
    cores = need_two_cores()
    cpus_file = tmp_path / "cpus"
    # Player a is started through a shell that forks it (the ``; :`` stops sh from
    # exec'ing it): a process the engine command starts inherits the slot's core.
    engine = shlex.join(fake_command(MOVES_B, f"--cpus-file={cpus_file}"))
    config = write_competition(
        tmp_path,
        white=[f"--cpus-file={cpus_file}"],
        games=6,
        extra="affinity = True\n",
        black_command=("/bin/sh", "-c", f"{engine}; :"),
    )
    summary, _ = await run(config, parallel=2)
    assert summary.games_recorded == 6
    seen = cpus_by_engine(cpus_file)
    assert {slot for slot, _ in seen} == {"0", "1"}
    for (slot, _), cpus in seen.items():
        assert cpus == {str(cores[int(slot)])}
    assert len(seen) == 12  # two engines per game, none reused


async def test_reused_engines_stay_on_their_slots_core(tmp_path: Path) -> None:
    cores = need_two_cores()
    cpus_file = tmp_path / "cpus"
    config = write_competition(
        tmp_path,
        [f"--cpus-file={cpus_file}"],
        [f"--cpus-file={cpus_file}"],
        games=6,
        extra="reuse_engines = True\naffinity = False\n",
    )
    summary, _ = await run(config, parallel=2, affinity=1)  # --affinity beats the file
    assert summary.games_recorded == 6
    seen = cpus_by_engine(cpus_file)
    engines_per_slot: dict[str, int] = defaultdict(int)
    for (slot, _), cpus in seen.items():
        engines_per_slot[slot] += 1
        assert cpus == {str(cores[int(slot)])}
    assert engines_per_slot == {"0": 2, "1": 2}  # one engine of each player per slot, reused


async def test_more_slots_than_cores_stops_the_run_before_any_game(tmp_path: Path) -> None:
    cpus_file = tmp_path / "cpus"
    config = write_competition(tmp_path, [f"--cpus-file={cpus_file}"], extra="affinity = 1\n")
    slots = len(usable()) + 1
    with pytest.raises(RunError, match=f"affinity = 1 core per game slot with --parallel {slots}"):
        await run(config, parallel=slots)
    assert not cpus_file.exists()


def test_the_command_line_says_it_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    control = write_ctl(tmp_path)
    slots = len(usable()) + 1
    assert main(["run", str(control), "-q", "--parallel", str(slots), "--affinity"]) != 0
    assert one_line_error(capsys) == (
        f"arena: affinity = 1 core per game slot with --parallel {slots} needs {slots} cores,"
        f" but only {slots - 1} {'is' if slots == 2 else 'are'} usable here"
    )


@attrs.frozen
class ElsewhereExecutor:
    """Plays here but is not the local executor, as a Dask cluster is not."""

    local: LocalExecutor = attrs.Factory(LocalExecutor)

    def slot(self, slot: int) -> contextlib.AbstractAsyncContextManager[Slot]:
        return self.local.slot(slot)

    async def check_players(self, checks: list[PlayerCheck]) -> list[tuple[str, EngineStartError]]:
        return await self.local.check_players(checks)

    async def emit_events(self, emit: Callable[[Event], None]) -> None:
        return None


async def test_affinity_is_ignored_with_a_warning_when_games_are_played_elsewhere(
    tmp_path: Path,
) -> None:
    config = write_competition(tmp_path, games=2, extra="affinity = 4\n")
    events: list[Event] = []
    bus = EventBus()
    bus.subscribe(events.append)
    options = RunOptions(parallel=2, keyboard=False, handle_signals=False)
    summary = await run_competition(config, options, events=bus, executor=ElsewhereExecutor())
    assert summary.games_recorded == 2  # 2 slots of 4 cores would not fit here: not checked
    assert [e.text for e in events if isinstance(e, RunWarning)] == [
        "affinity = 4 is ignored: the games are played elsewhere (a Dask cluster),"
        " not in slots of this machine"
    ]
