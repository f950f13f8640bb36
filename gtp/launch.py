"""Starting engines: a GTP client attached to a new engine process.

:func:`open_engine` starts an engine process (:mod:`gtp.process`) and yields a
:class:`~gtp.client.GtpClient` for it; leaving the block sends ``quit`` and
runs the bounded shutdown path, even on cancellation.  :func:`start_engine`
does the same without a block, its tasks in a nursery the caller owns, for
callers that start and stop engines often
(:meth:`~gtp.client.GtpClient.close_engine` stops it).  :func:`startup_check`
verifies that a program speaks GTP before any game.  With a traffic log, the
engine's stderr lines go to the log too (prefixed ``!!``).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Final, Unpack

import attrs
import trio

from gtp.client import EngineInfo, GtpClient, TextSink, TrafficLog, traffic_log
from gtp.process import (
    ProcessOptions,
    ProcessOverrides,
    ReapedCallback,
    SpawnedChild,
    StderrLineCallback,
    start_process,
)
from gtp.protocol import MAX_RESPONSE_BYTES, MAX_RESPONSE_LINE_BYTES


@attrs.frozen(kw_only=True)
class EngineOptions(ProcessOptions):
    """How to start an engine and talk to it, as one value.

    The process's options (:class:`gtp.process.ProcessOptions`: ``cwd``,
    ``env``, ``stderr``, ``on_stderr_line``, ``stderr_tail_bytes``,
    ``timings``) and the client's (see :class:`~gtp.client.GtpClient`).
    The functions here take it as ``options``, and any of its fields as
    keywords, which override the value's.
    """

    log: TrafficLog | TextSink | None = None  # traffic, and with it the stderr lines
    strict_ids: bool = False
    default_timeout: float | None = None
    max_line_bytes: int = MAX_RESPONSE_LINE_BYTES
    max_response_bytes: int = MAX_RESPONSE_BYTES
    timed: bool = True
    hears: bool = True


DEFAULT_ENGINE_OPTIONS: Final = EngineOptions()


class EngineOverrides(ProcessOverrides, total=False):
    """:class:`EngineOptions`' fields, as keyword arguments."""

    log: TrafficLog | TextSink | None
    strict_ids: bool
    default_timeout: float | None
    max_line_bytes: int
    max_response_bytes: int
    timed: bool
    hears: bool


def start_engine(
    nursery: trio.Nursery,
    command: str | Sequence[str | os.PathLike[str]],
    *,
    name: str,
    options: ProcessOptions = DEFAULT_ENGINE_OPTIONS,
    on_reaped: ReapedCallback | None = None,
    child: SpawnedChild | None = None,
    **overrides: Unpack[EngineOverrides],
) -> GtpClient:
    """Start an engine and return a client for it; its tasks run in ``nursery``.

    :func:`open_engine` without the block (see :func:`gtp.process.start_process`):
    stop the engine with :meth:`GtpClient.close_engine`.  If ``nursery`` is
    cancelled first, the engine is stopped the same way by its supervisor.
    ``options``: an :class:`EngineOptions` (a plain ProcessOptions gets the
    client's defaults).  Raises EngineStartError when the program cannot be
    started.
    """
    engine_options = _engine_options(options, overrides)
    log_fn = traffic_log(engine_options.log)
    process = start_process(
        nursery,
        command,
        name=name,
        options=engine_options,
        on_stderr_line=_stderr_sink(engine_options.on_stderr_line, log_fn),
        on_reaped=on_reaped,
        child=child,
    )
    client = GtpClient(
        process.stdout,
        process.stdin,
        name=name,
        process=process,
        log=log_fn,
        strict_ids=engine_options.strict_ids,
        default_timeout=engine_options.default_timeout,
        max_line_bytes=engine_options.max_line_bytes,
        max_response_bytes=engine_options.max_response_bytes,
        timed=engine_options.timed,
        hears=engine_options.hears,
    )
    # No checkpoint since start_process: the supervisor has not run yet.
    process.close_on_cancel = client.close_engine
    nursery.start_soon(client.run_watchdog)
    return client


@asynccontextmanager
async def open_engine(
    command: str | Sequence[str | os.PathLike[str]],
    *,
    name: str,
    options: ProcessOptions = DEFAULT_ENGINE_OPTIONS,
    **overrides: Unpack[EngineOverrides],
) -> AsyncIterator[GtpClient]:
    """Start an engine and yield a client for it; always stop it on exit.

    ``options`` as for :func:`start_engine`.  On leaving the block (normally,
    by an exception or by cancellation): ``quit`` if the channel is healthy
    (``timings.quit_timeout``), then the process shutdown path (exit grace
    only after an acknowledged quit -> SIGTERM to the group -> grace ->
    SIGKILL -> reap).  Raises EngineStartError when the program cannot be
    started.
    """
    engine_options = _engine_options(options, overrides)
    start_error: BaseException | None = None
    body_error: BaseException | None = None
    async with trio.open_nursery() as nursery:
        try:
            client = start_engine(nursery, command, name=name, options=engine_options)
        except BaseException as exc:
            # Raised below, outside the nursery (no ExceptionGroup around it).
            start_error = exc
        else:
            try:
                yield client
            except BaseException as exc:
                body_error = exc
            finally:
                await client.close_engine()
    if start_error is not None:
        raise start_error
    if body_error is not None:
        raise body_error


async def startup_check(
    command: str | Sequence[str | os.PathLike[str]],
    *,
    name: str,
    timeout: float = 10.0,
    board_size: int | None = None,
    komi: float | None = None,
    options: ProcessOptions = DEFAULT_ENGINE_OPTIONS,
    **overrides: Unpack[EngineOverrides],
) -> EngineInfo:
    """Start the engine, check that it speaks GTP, quit it; EngineStartError if not."""
    async with open_engine(
        command, name=name, options=_engine_options(options, overrides)
    ) as client:
        return await client.check_startup(timeout, board_size=board_size, komi=komi)


def _engine_options(options: ProcessOptions, overrides: EngineOverrides) -> EngineOptions:
    """``options`` as EngineOptions (the client's defaults added), ``overrides`` applied."""
    if not isinstance(options, EngineOptions):
        options = EngineOptions(**attrs.asdict(options, recurse=False))
    if overrides:
        options = attrs.evolve(options, **overrides)
    return options


def _stderr_sink(
    on_stderr_line: StderrLineCallback | None, log: TrafficLog | None
) -> StderrLineCallback | None:
    if log is None:
        return on_stderr_line
    if on_stderr_line is None:

        def log_only(line: str) -> None:
            log("!! " + line)

        return log_only
    user_callback = on_stderr_line

    def both(line: str) -> None:
        log("!! " + line)
        user_callback(line)

    return both
