"""The arena's own errors that end a command with one line for the user.

Pure (no trio, no disk), so that every layer can raise them and the command
line can catch them without importing the run loop:

* :class:`ControlFileError`: a control file that cannot be used (one line
  naming the file, the line and the setting);
* :class:`StateError`: the state on disk does not fit the control file;
* :class:`RunError`: a run could not start or had to stop.
"""

from __future__ import annotations

import os


class ControlFileError(Exception):
    """A control file that cannot be used; ``str()`` is one line for the user."""

    def __init__(
        self,
        message: str,
        *,
        path: str | os.PathLike[str] | None = None,
        line: int | None = None,
        setting: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = None if path is None else str(path)
        self.line = line
        self.setting = setting

    def __str__(self) -> str:
        where = self.path or "control file"
        if self.line is not None:
            where += f":{self.line}"
        text = " ".join(self.message.split())  # one line, whatever the cause said
        if self.setting:
            return f"{where}: {self.setting}: {text}"
        return f"{where}: {text}"


class StateError(Exception):
    """The state on disk cannot be used with this control file."""


class RunError(Exception):
    """A run could not start or had to stop (one line for the user)."""


def lone_exception(error: BaseException) -> BaseException:
    """The single exception inside nested one-member exception groups, else the group.

    A trio nursery wraps what a task raised in an exception group; a command
    that failed for one reason reports that reason in one line.
    """
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error
