"""A control file once run: its namespace, the line of each name, and the settings asked for.

The loader (:mod:`arena.competitions.loader`) runs the file; each competition
type's parser reads settings from a :class:`ControlFile` and reports a bad
one with :meth:`ControlFile.where` (file, line and setting).  Every name a
parser asks about is remembered: together they are the settings this
competition type knows, so a setting added to any parser is known without a
list to keep up to date, and :meth:`ControlFile.misspelt_setting` can point
at a name the file defines that is one or two letters away from one of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.control.settings import Where
from arena.errors import ControlFileError


@attrs.frozen
class DefinedName:
    """A top-level name the control file defines: where, and whether the file reads it."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    name: str
    line: int | None
    read: bool


class ControlFile:
    """The executed namespace of a control file, with the line of each setting."""

    def __init__(
        self,
        path: Path,
        namespace: Mapping[str, Any],
        lines: Mapping[str, int],
        defined: Mapping[str, DefinedName] | None = None,
    ) -> None:
        self.path = path
        self.namespace = namespace
        self.lines = lines
        self.defined: Mapping[str, DefinedName] = defined or {}
        self.asked: set[str] = set()

    @property
    def directory(self) -> Path:
        return self.path.parent

    def where(self, setting: str) -> Where:
        self.asked.add(setting)
        return Where(self.path, setting, self.lines.get(setting))

    def has(self, setting: str) -> bool:
        self.asked.add(setting)
        return setting in self.namespace and self.namespace[setting] is not None

    def get(self, setting: str, default: Any = None) -> Any:
        self.asked.add(setting)
        value = self.namespace.get(setting)
        return default if value is None else value

    def misspelt_setting(self) -> ControlFileError | None:
        """The error for the first name that looks like a misspelt setting, if any.

        Such a name is defined by the file, never read by it (a helper
        variable or function is read where it is used), not a setting any
        parser asked for, and close to one that is.  Names starting with
        ``_`` are the file's own.
        """
        known = sorted(self.asked)
        suspects = sorted(
            (d for d in self.defined.values() if not d.read and not d.name.startswith("_")),
            key=lambda d: (d.line is None, d.line or 0, d.name),
        )
        for suspect in suspects:
            if suspect.name in self.asked:
                continue
            meant = closest_setting(suspect.name, known)
            if meant is not None:
                return ControlFileError(
                    f"unknown setting {suspect.name!r} (did you mean {meant!r}?)",
                    path=self.path,
                    line=suspect.line,
                )
        return None


def closest_setting(name: str, known: list[str]) -> str | None:
    """The known setting ``name`` is probably a misspelling of, or None.

    Close means at most one edit (insertion, deletion, substitution or swap
    of neighbours) for names of up to five letters, two for longer ones.
    """
    best: tuple[int, str] | None = None
    for setting in known:
        limit = 1 if len(setting) <= 5 else 2
        distance = edit_distance(name.lower(), setting, limit + 1)
        if distance == 0 and name != setting:
            distance = 1  # differs in case only
        if distance <= limit and (best is None or distance < best[0]):
            best = (distance, setting)
    return None if best is None else best[1]


def edit_distance(a: str, b: str, cap: int) -> int:
    """Optimal string alignment distance of ``a`` and ``b``, or ``cap`` when that or more."""
    if abs(len(a) - len(b)) >= cap:
        return cap
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, char_b in enumerate(b, 1):
            cost = 0 if char_a == char_b else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) >= cap:
            return cap
        previous2, previous = previous, current
    return min(previous[-1], cap)
