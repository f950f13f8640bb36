"""What the HTML report reads from disk besides the snapshot: the games in order, and move times.

The snapshot (:mod:`arena.competitions.snapshots`) holds a competition's totals;
the plots also need the order in which games finished (Elo against games
played) and each game's length, which the journal (``X.journal``) keeps, and
the time each move took, which only the game records hold once they carry
clocks (SGF ``BL``/``WL``, the time left after each move).

:func:`load_history` reads both.  Records are scanned with a small SGF
tokenizer rather than parsed with sgfmill: a competition of 20,000 games has
20,000 records, and all the report needs from each is its ``TM`` and the
``BL``/``WL`` values in move order.  A record with no ``BL``/``WL`` (no clock,
or written before clocks existed) contributes nothing.

Whether there are clocks at all is told from a few dozen records spread over
the competition (:func:`has_clocks`), so a competition without them costs
that many reads, not one per game.  With clocks, at most :data:`MOST_TIMED`
records are read, evenly spread over the competition (a distribution of
move times needs no more; the page says when it is drawn from a sample).  A
record without overtime is read by a few regular expressions over its clock
values; one with ``OB``/``OW`` node by node.

The time a move took is the drop in that side's time left since its previous
move (from ``TM`` for its first move).  A move whose node carries ``OB``/``OW``
(overtime periods or stones), and a move after which the time left went up
(a new period, an increment), is left out: the time left alone does not tell
how long such a move took.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Final

import attrs

from arena.reports.export import counted_results
from arena.reports.series import MoveTimes
from arena.results import GameResult
from arena.store.files import CompetitionFiles


@attrs.frozen
class GameHistory:
    """Every counted game in finishing order, and move times of the games whose record has them."""

    results: tuple[GameResult, ...]
    move_times: Mapping[str, MoveTimes] = attrs.field(factory=dict)  # game id -> times
    # When move times were read from an evenly spread sample of the records: of how many.
    sampled_from: int | None = None

    @property
    def has_times(self) -> bool:
        return any(times.black or times.white for times in self.move_times.values())


# One SGF token: a node start, or a property with its values (brackets may hold
# escaped ``]`` and any text, so a ``;`` inside a comment is not a node).
_TOKEN: Final = re.compile(rb";|([A-Z]{1,2})\s*((?:\[(?:[^\]\\]|\\.)*\]\s*)+)", re.DOTALL)
_VALUE: Final = re.compile(rb"\[((?:[^\]\\]|\\.)*)\]", re.DOTALL)
_CLOCK_PROPERTIES: Final = (b"BL[", b"WL[")
_BLACK_LEFT: Final = re.compile(rb"BL\s*\[([^\]]*)\]")
_WHITE_LEFT: Final = re.compile(rb"WL\s*\[([^\]]*)\]")
_BLACK_MOVE: Final = re.compile(rb";\s*B\s*\[")
_WHITE_MOVE: Final = re.compile(rb";\s*W\s*\[")
PROBES: Final = 64  # records sampled to tell whether a competition has clocks at all
# Records read for the time per move: a distribution needs no more, and each costs a file.
MOST_TIMED: Final = 5000


def _number(values: bytes) -> float | None:
    match = _VALUE.match(values)
    if match is None:
        return None
    try:
        return float(match.group(1))
    except ValueError:
        return None


def _nodes(data: bytes) -> Iterator[dict[bytes, bytes]]:
    """Each node's properties (first value bytes of each), in file order."""
    node: dict[bytes, bytes] | None = None
    for match in _TOKEN.finditer(data):
        name = match.group(1)
        if name is None:
            if node is not None:
                yield node
            node = {}
        elif node is not None:
            node[name] = match.group(2)
    if node is not None:
        yield node


def move_times_from_sgf(data: bytes) -> MoveTimes | None:
    """The time each move took from one record's ``BL``/``WL``; None when it has no clock."""
    if not any(name in data for name in _CLOCK_PROPERTIES):
        return None
    if b"OB[" not in data and b"OW[" not in data:
        quick = _times_from_clock_values(data)
        if quick is not None:
            return quick if quick.black or quick.white else None
    return _times_from_nodes(data)


def _times_from_clock_values(data: bytes) -> MoveTimes | None:
    """The quick way for a record without overtime: the root's TM, then BL and WL.

    With no ``OB``/``OW``, each side's ``BL`` (``WL``) values in file order are its
    moves' times left, one per move, as long as every move has one and no text
    quotes one: when the count of values and of moves differ, None (the caller
    reads node by node).
    """
    black = _BLACK_LEFT.findall(data)
    white = _WHITE_LEFT.findall(data)
    if len(black) != len(_BLACK_MOVE.findall(data)) or len(white) != len(_WHITE_MOVE.findall(data)):
        return None
    root = next(_nodes(data), {})  # only the root is tokenized
    main_time = _number(root[b"TM"]) if b"TM" in root else None
    try:
        return MoveTimes(_drops(black, main_time), _drops(white, main_time))
    except ValueError:
        return None


def _drops(texts: Sequence[bytes], start: float | None) -> tuple[float, ...]:
    """How far each time left fell from the one before (from ``start``); rises are left out."""
    values = [float(text) for text in texts]
    before = [start, *values[:-1]]
    return tuple(b - v for b, v in zip(before, values, strict=True) if b is not None and v <= b)


def _times_from_nodes(data: bytes) -> MoveTimes | None:
    """Node by node: any record, overtime periods included."""
    nodes = _nodes(data)
    root = next(nodes, {})
    main_time = _number(root[b"TM"]) if b"TM" in root else None
    left: dict[bytes, float | None] = {b"B": main_time, b"W": main_time}
    times: dict[bytes, list[float]] = {b"B": [], b"W": []}
    for node in nodes:
        colour = b"B" if b"B" in node else b"W" if b"W" in node else None
        if colour is None:
            continue
        value = _number(node[colour + b"L"]) if colour + b"L" in node else None
        if value is None:
            left[colour] = None
            continue
        before = left[colour]
        in_overtime = b"O" + colour in node  # OB/OW: periods or stones left
        if before is not None and value <= before and not in_overtime:
            times[colour].append(before - value)
        left[colour] = value
    if not times[b"B"] and not times[b"W"]:
        return None
    return MoveTimes(tuple(times[b"B"]), tuple(times[b"W"]))


def _record(files: CompetitionFiles, game_id: str) -> bytes | None:
    try:
        return files.sgf_path(game_id).read_bytes()
    except OSError:
        return None  # record_games = False, or a record removed by hand


def evenly(items: Sequence[str], count: int) -> list[str]:
    """At most ``count`` of ``items``, evenly spaced from the first to the last."""
    if len(items) <= count:
        return list(items)
    last = len(items) - 1
    return [items[i] for i in sorted({round(k * last / (count - 1)) for k in range(count)})]


def has_clocks(files: CompetitionFiles, game_ids: Sequence[str], probes: int = PROBES) -> bool:
    """Whether any of ``probes`` records, evenly spaced from first to last, has BL/WL."""
    for game_id in evenly(game_ids, probes):
        data = _record(files, game_id)
        if data is not None and any(name in data for name in _CLOCK_PROPERTIES):
            return True
    return False


def read_move_times(
    files: CompetitionFiles, game_ids: Sequence[str], most: int = MOST_TIMED
) -> dict[str, MoveTimes]:
    """Move times of the listed games (at most ``most``, evenly spread) whose record has a clock.

    Records are opened only if a sample of them has clocks (:func:`has_clocks`),
    so a competition without clocks costs a few dozen reads, not one per game.
    """
    if not has_clocks(files, game_ids):
        return {}
    found: dict[str, MoveTimes] = {}
    for game_id in evenly(game_ids, most):
        data = _record(files, game_id)
        times = None if data is None else move_times_from_sgf(data)
        if times is not None:
            found[game_id] = times
    return found


def load_history(files: CompetitionFiles, *, read_records: bool = True) -> GameHistory:
    """The counted games from the journal and, with ``read_records``, their move times."""
    results = tuple(counted_results(files))
    if not read_records:
        return GameHistory(results)
    game_ids = [result.game_id for result in results]
    times = read_move_times(files, game_ids, MOST_TIMED)
    sampled = len(game_ids) if times and len(game_ids) > MOST_TIMED else None
    return GameHistory(results, times, sampled)
