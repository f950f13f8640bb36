"""Subscriber: a run's plain lines on stdout and stderr, when the dashboard is not drawn.

One line when the run starts, one per finished game, one when it stops; void
games and warnings go to stderr.  With ``quiet``, only the stderr lines.
The words are :class:`arena.output.wording.PlainWording`'s.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import IO

import attrs

from arena import fields_eq, fields_repr
from arena.events import Event
from arena.output.wording import PlainWording

_OUTPUT_CLOSED = "standard output was closed: the run goes on without printing"


@attrs.define
class PlainLines:
    __repr__ = fields_repr
    __eq__ = fields_eq

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
            try:
                for line in out_lines:
                    out.write(line + "\n")
                out.flush()
            except BrokenPipeError:
                self._output_closed(out)
        if err_lines:
            self._to_stderr(err_lines)

    def _output_closed(self, out: IO[str]) -> None:
        """Whoever read the lines went away (``| head``, a parent process that died):
        the run goes on, its results and X.log unaffected, and prints no more lines
        (a long competition is not lost with a pager)."""
        self.quiet = True
        with contextlib.suppress(OSError, ValueError):
            # What is still buffered for the closed pipe goes nowhere, at exit too.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, out.fileno())
            os.close(devnull)
        self._to_stderr([f"arena: {_OUTPUT_CLOSED} ({self.code}.log has its lines)"])

    def _to_stderr(self, lines: list[str]) -> None:
        err = self.err or sys.stderr
        with contextlib.suppress(BrokenPipeError):
            for line in lines:
                err.write(line + "\n")
            err.flush()
