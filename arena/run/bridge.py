"""An asyncio event loop in a thread of its own, driven from trio: the bridge to Dask's client.

``distributed``'s client is asyncio code; the arena is trio code.  Rather than
block a thread per call, :meth:`LoopThread.call` hands a coroutine to the loop
(``asyncio.run_coroutine_threadsafe``) and waits on a trio event that the
coroutine's completion sets through the trio token: a game waiting for its
Dask task costs no thread.  Cancelling the trio side cancels the coroutine.
Callbacks from the loop back into trio go through the same token
(``TrioToken.run_sync_soon``).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any, Final, TypeVar

import trio

JOIN_TIMEOUT: Final = 5.0

T = TypeVar("T")


class LoopThread:
    """An asyncio loop in a daemon thread (see module docstring)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name="arena-asyncio", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
            # Stopped: what is still running (a client's background tasks) is cancelled
            # and waited for, so nothing is left to complain when it is collected.
            pending = asyncio.all_tasks(self.loop)
            for task in pending:
                task.cancel()
            self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        finally:
            self.loop.close()

    async def call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the loop and wait for it here; cancelling this cancels it."""
        token = trio.lowlevel.current_trio_token()
        done = trio.Event()
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)

        def wake(_: object) -> None:
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(done.set)

        future.add_done_callback(wake)
        try:
            await done.wait()
        finally:
            if not future.done():
                future.cancel()
        return future.result()

    def stop(self) -> None:
        with contextlib.suppress(RuntimeError):  # already closed
            self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(JOIN_TIMEOUT)
