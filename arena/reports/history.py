"""What the HTML report reads from disk besides the snapshot: the counted games, in order.

The snapshot (:mod:`arena.competitions.snapshots`) holds a competition's totals;
the plots also need the order in which games finished (Elo against games
played, a tuner's trajectory), each game's length and how it ended, and the
time each player took per move, all of which the journal (``X.journal``)
keeps: every result carries, for each player, the genmoves timed, their total
and the longest, as the clock charged them (:class:`arena.results.MoveTimes`).
So the report reads no game record, and works the same with
``record_games = False``.
"""

from __future__ import annotations

import attrs

from arena.reports.export import counted_results
from arena.results import GameResult
from arena.store.files import CompetitionFiles


@attrs.frozen
class GameHistory:
    """Every counted game, in finishing order."""

    results: tuple[GameResult, ...]


def load_history(files: CompetitionFiles) -> GameHistory:
    """The counted games from the journal."""
    return GameHistory(tuple(counted_results(files)))
