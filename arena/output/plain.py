"""Subscriber: a run's plain lines on stdout and stderr, when the dashboard is not drawn.

One line when the run starts, one per finished game, one when it stops; void
games and warnings go to stderr.  With ``quiet``, only the stderr lines.
The words are :class:`arena.output.wording.PlainWording`'s.
"""

from __future__ import annotations

import sys
from typing import IO

import attrs

from arena import fields_repr
from arena.events import Event
from arena.output.wording import PlainWording


@attrs.define
class PlainLines:
    __repr__ = fields_repr

    code: str
    quiet: bool = False
    out: IO[str] | None = None  # default: sys.stdout at the time of writing
    err: IO[str] | None = None  # default: sys.stderr
    _wording: PlainWording = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self._wording = PlainWording(self.code)

    def __call__(self, event: Event) -> None:
        out_lines, err_lines = self._wording.lines(event)
        if out_lines and not self.quiet:
            out = self.out or sys.stdout
            for line in out_lines:
                out.write(line + "\n")
            out.flush()
        if err_lines:
            err = self.err or sys.stderr
            for line in err_lines:
                err.write(line + "\n")
            err.flush()
