"""A minimal raw-mode key reader for the terminal: Ctrl-X asks for a graceful stop.

Only used when stdin is a terminal.  The terminal is put in cbreak mode (keys
arrive one at a time, Ctrl-C still interrupts) and restored on exit; a worker
thread polls stdin so that the reader stops promptly when the run ends.  The
live dashboard (a later issue) shares this reader.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
from collections.abc import Callable, Iterator
from typing import Final

import trio

CTRL_X: Final = b"\x18"
_POLL_SECONDS: Final = 0.25


def stdin_is_terminal() -> bool:
    try:
        return os.isatty(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):
        return False


def stdin_is_foreground_terminal() -> bool:
    """stdin is a terminal and we are its foreground job (``arena run ... &`` is not).

    A background job that changes the terminal's mode or reads it is stopped
    by the kernel (SIGTTOU, SIGTTIN), so keys are only read in the foreground.
    """
    if not stdin_is_terminal():
        return False
    try:
        return os.tcgetpgrp(sys.stdin.fileno()) == os.getpgrp()
    except OSError:
        return False


@contextlib.contextmanager
def cbreak_mode(fd: int) -> Iterator[None]:
    """Keys one at a time, no echo; the previous mode is restored on exit."""
    import termios
    import tty

    try:
        saved = termios.tcgetattr(fd)
    except termios.error:
        yield
        return
    try:
        tty.setcbreak(fd)
        yield
    finally:
        with contextlib.suppress(termios.error):
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _read_key(fd: int) -> bytes | None:
    ready, _, _ = select.select([fd], [], [], _POLL_SECONDS)
    if not ready:
        return None
    return os.read(fd, 1)


async def watch_keys(on_key: Callable[[bytes], None]) -> None:
    """Call ``on_key`` for every key typed until cancelled (a no-op without a terminal)."""
    if not stdin_is_foreground_terminal():
        return
    fd = sys.stdin.fileno()
    with cbreak_mode(fd):
        while True:
            key = await trio.to_thread.run_sync(_read_key, fd, abandon_on_cancel=True)
            if key == b"":
                return  # end of input
            if key is not None:
                on_key(key)
