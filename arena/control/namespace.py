"""A control file once run: its namespace, with the line where each setting was assigned.

The loader (:mod:`arena.control.loader`) runs the file; each competition
type's parser reads settings from a :class:`ControlFile` and reports a bad
one with :meth:`ControlFile.where` (file, line and setting).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.control.settings import Where


class ControlFile:
    """The executed namespace of a control file, with the line of each setting."""

    def __init__(self, path: Path, namespace: Mapping[str, Any], lines: Mapping[str, int]) -> None:
        self.path = path
        self.namespace = namespace
        self.lines = lines

    @property
    def directory(self) -> Path:
        return self.path.parent

    def where(self, setting: str) -> Where:
        return Where(self.path, setting, self.lines.get(setting))

    def has(self, setting: str) -> bool:
        return setting in self.namespace and self.namespace[setting] is not None

    def get(self, setting: str, default: Any = None) -> Any:
        value = self.namespace.get(setting)
        return default if value is None else value
