"""CPU pinning of game slots (the ``affinity`` setting, ``arena run --affinity``).

Pure: which cores each game slot's engines may run on, chosen from the cores
this process may use, and the one-line error when there are too few.  The
engines are pinned where they are spawned (:mod:`arena.run.engines`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from arena.errors import RunError

SlotCores = tuple[frozenset[int], ...]
"""Slot number -> the cores its engines run on."""


class AffinityError(RunError):
    """More cores asked for than this machine lets us use; one line for the user."""


def available_cores() -> tuple[int, ...]:
    """The cores this process may run on, in order (empty where the OS cannot say)."""
    try:
        return tuple(sorted(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return ()


def pinning_supported() -> bool:
    return hasattr(os, "sched_setaffinity")


def slot_cores(parallel: int, per_slot: int, cores: Iterable[int]) -> SlotCores:
    """``per_slot`` cores of ``cores`` for each of ``parallel`` slots, none shared.

    Slot 0 gets the lowest cores, slot 1 the next ones, and so on; an
    :class:`AffinityError` when the slots need more cores than there are.
    """
    usable = sorted(cores)
    needed = parallel * per_slot
    if needed > len(usable):
        raise AffinityError(
            f"affinity = {per_slot} core{'s' if per_slot != 1 else ''} per game slot"
            f" with --parallel {parallel} needs {needed} cores, but only {len(usable)}"
            f" {'is' if len(usable) == 1 else 'are'} usable here"
        )
    return tuple(
        frozenset(usable[slot * per_slot : (slot + 1) * per_slot]) for slot in range(parallel)
    )
