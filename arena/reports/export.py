"""``arena export X.ctl --format csv|json``: one row per counted game, for analysis elsewhere.

Rows come from the journal (``X.journal``), the record of every game that
counted, in the order the games finished; a game id appears once (the first
result journalled for it, as the competition counts it).  Void games are not
rows: they do not count and are replayed.  Columns: the game id, the matchup
(the game id without its number), both players by colour, the winner's code,
the SGF result, how the game ended, the score margin, the number of moves,
each side's CPU seconds and the reason text.  Unknown values are empty in CSV
and null in JSON.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import IO, Any, Final, Literal

from arena.errors import StateError
from arena.results import GameResult
from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, iter_journal

ExportFormat = Literal["csv", "json"]
EXPORT_FORMATS: Final = ("csv", "json")
COLUMNS: Final = (
    "game_id",
    "matchup",
    "black",
    "white",
    "winner",
    "result",
    "end",
    "margin",
    "moves",
    "cpu_black",
    "cpu_white",
    "reason",
)


class ExportError(StateError):
    """The export could not be written (a StateError, so the CLI prints one line)."""


def game_row(result: GameResult) -> dict[str, Any]:
    """The export row of one counted game (None where a value is unknown)."""
    matchup, _, _ = result.game_id.rpartition("_")
    return {
        "game_id": result.game_id,
        "matchup": matchup,
        "black": result.black,
        "white": result.white,
        "winner": result.winning_player,
        "result": result.sgf_result,
        "end": result.end.value,
        "margin": result.margin,
        "moves": result.moves,
        "cpu_black": result.cpu_black,
        "cpu_white": result.cpu_white,
        "reason": result.reason,
    }


def counted_results(files: CompetitionFiles) -> Iterator[GameResult]:
    """Each counted game's result from the journal, once per game id, in finishing order."""
    seen: set[str] = set()
    for entry in iter_journal(files):
        if isinstance(entry, ResultEntry) and entry.result.game_id not in seen:
            seen.add(entry.result.game_id)
            yield entry.result


def export_games(files: CompetitionFiles, export_format: ExportFormat, out: IO[str]) -> int:
    """Write every counted game to ``out``; returns the number of rows."""
    rows = [game_row(result) for result in counted_results(files)]
    if export_format == "csv":
        import csv  # only for `arena export` (the CLI imports this module for every command)

        writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: "" if v is None else v for k, v in row.items()} for row in rows)
    elif export_format == "json":
        json.dump(rows, out, indent=1, ensure_ascii=False)
        out.write("\n")
    else:
        raise ValueError(f"unknown export format {export_format!r}")
    return len(rows)


def export_command(files: CompetitionFiles, export_format: ExportFormat, output: str | None) -> int:
    """The ``export`` action: write to ``output`` (stdout when None or ``-``); row count."""
    if output is None or output == "-":
        return export_games(files, export_format, sys.stdout)
    try:
        with open(output, "w", encoding="utf-8", newline="") as stream:
            return export_games(files, export_format, stream)
    except OSError as exc:
        raise ExportError(f"cannot write {output}: {exc.strerror}") from None
