"""``arena run`` assembled: the run loop, the run's files, and the dashboard or plain lines.

The ringmaster only emits events; :func:`arena.api.run_competition` runs it on
the competition's files and records the run beside them (``X.log``,
``X.hist``, ``X.events``, ``X.report``); this module adds what the user
sees, one of three outputs:

* ``--quiet``: nothing but errors (:class:`arena.output.plain.PlainLines`, quiet);
* stdout is not a terminal (a pipe, a file, a dumb terminal): one plain line
  per finished game (:class:`arena.output.plain.PlainLines`);
* otherwise the live dashboard (:func:`tui.live.show_run`), which shows a
  resumed run's last results at once, and the board keys when stdin is the
  terminal in the foreground.
"""

from __future__ import annotations

import os
import sys
from functools import partial
from typing import TYPE_CHECKING

from arena.api import run_competition
from arena.control.config import CompetitionConfig
from arena.events import EventBus
from arena.output.plain import PlainLines
from arena.run.ringmaster import RunOptions, RunSummary

if TYPE_CHECKING:
    from rich.console import Console

    from arena.run.executor import Executor


def _plain_for_sure(quiet: bool, console: Console | None) -> bool:
    """No dashboard, known without rich: ``--quiet``, or the default console's stdout is
    not a terminal and no variable (``TTY_COMPATIBLE``, ``FORCE_COLOR``) tells rich it is.
    Those runs do not import rich and the dashboard (30-50 ms of CPU at start).  In doubt
    :func:`tui.live.uses_dashboard` decides, as it does for a given console."""
    if quiet:
        return True
    if console is not None or "TTY_COMPATIBLE" in os.environ or "FORCE_COLOR" in os.environ:
        return False
    try:
        return not sys.stdout.isatty()
    except (AttributeError, ValueError):  # no stdout, or a closed one: rich says no too
        return True


async def run_with_display(
    config: CompetitionConfig,
    options: RunOptions,
    *,
    quiet: bool = False,
    console: Console | None = None,
    executor: Executor | None = None,
) -> RunSummary:
    """Run the competition with the dashboard, plain lines, or quietly (module docstring)."""
    events = EventBus()
    run = partial(run_competition, config, options, events=events, executor=executor)
    if _plain_for_sure(quiet, console):
        events.subscribe(PlainLines(config.code, quiet=quiet))
        return await run()
    # The dashboard's modules, imported only when it may be shown.
    from rich.console import Console

    from arena.keys import stdin_is_foreground_terminal
    from arena.store.files import CompetitionFiles
    from arena.store.journal import last_journal_entries
    from tui.live import show_run, uses_dashboard
    from tui.tracker import KEY_HELP_NO_KEYS, KEY_HELP_RUN, RECENT_RESULTS, RunTracker

    console = console or Console()
    if not uses_dashboard(console, quiet=quiet):
        events.subscribe(PlainLines(config.code, quiet=quiet))
        return await run()
    keys = options.keyboard and stdin_is_foreground_terminal()
    tracker = RunTracker(
        config.code,
        max_games=options.max_games,
        key_help=KEY_HELP_RUN if keys else KEY_HELP_NO_KEYS,
        board_keys=keys,
    )
    # A resumed run shows the last results at once, not after its first game.
    files = CompetitionFiles.for_control_file(config.control_path)
    tracker.add_past_results(last_journal_entries(files, RECENT_RESULTS))
    return await show_run(events, run, tracker, console)
