"""SGF game records (FF[4]) written with sgfmill, atomically.

The root node carries FF GM CA AP SZ KM, HA and AB for handicap stones, RE
(omitted for a void game), DT GN EV RU PB PW, TM and OT for a clocked game, and
a comment describing the game, its clocks and opening, and both engines
(``gomill-describe_engine`` text when they have it).  Each move is one node,
with the engine's ``gomill-explain_last_move`` text as its comment and, under
a clock, the time left (BL/WL) and in overtime the periods or stones left
(OB/OW); an opening's moves are ordinary moves, the last one commented as the
end of the opening.  Passes are written ``[]`` on every board size.  The last
node's comment holds how the game ended, the scorers' answers and any late
errors.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import TYPE_CHECKING, Final

from arena.control.timecontrol import format_seconds
from arena.results import GameJob, GameRecord, PlayedMove
from arena.store.files import CompetitionFiles, atomic_write
from gtp.vertex import Colour

if TYPE_CHECKING:
    from sgfmill import sgf, sgf_properties

APPLICATION_NAME: Final = "gtp-arena"
# pyproject.toml's version (tests/arena/test_records.py checks they agree): a constant,
# not importlib.metadata, which costs every run ~5-10 ms of CPU at start (email.*, ...).
APPLICATION_VERSION: Final = "0.1.0"


def application_version() -> str:
    """The arena's version, as the SGF records' ``AP`` and the HTML report give it."""
    return APPLICATION_VERSION


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _root_comment(record: GameRecord) -> str:
    job = record.job
    lines = []
    if job.event:
        lines.append(f"Event: {job.event}")
    lines.append(f"Game id {job.game_id}")
    if record.date:
        lines.append(f"Date {record.date}")
    result = record.result
    if result is not None:
        lines.append(f"Result {result.describe()}")
        if result.reason:
            lines.append(f"Ended: {result.reason}")
        cpu = []
        for colour in (Colour.BLACK, Colour.WHITE):
            seconds = result.cpu(colour)
            shown = "?" if seconds is None else f"{seconds:.2f}s"
            cpu.append(f"{colour.gtp_name} {shown}")
        lines.append("CPU time: " + ", ".join(cpu))
    else:
        lines.append(f"Void game: {record.void_reason}")
    lines.append(f"Rules: {job.settings.rules_description()}")
    lines.extend(_clock_lines(job))
    if job.opening is not None:
        lines.append(f"Opening: {job.opening.name} ({len(job.opening.moves)} moves)")
    for label, player, description in (
        ("Black", job.black, record.descriptions[0]),
        ("White", job.white, record.descriptions[1]),
    ):
        text = description.strip() or " ".join(player.command)
        lines.append(f"{label} {player.code} {text}")
    return "\n".join(lines)


def _clock_lines(job: GameJob) -> list[str]:
    black, white = job.time_control(Colour.BLACK), job.time_control(Colour.WHITE)
    if black is None and white is None:
        return []
    margin = f" (margin {format_seconds(job.settings.time_margin)}s)"
    if black == white:
        assert black is not None
        return [f"Time: {black.describe()}{margin}"]
    shown = [
        f"{colour} {'no clock' if control is None else control.describe()}"
        for colour, control in (("black", black), ("white", white))
    ]
    return [f"Time: {', '.join(shown)}{margin}"]


def _set_time_control(root: sgf.Tree_node, job: GameJob) -> None:
    """TM (the main time) and OT; with time odds, OT names each player's control."""
    black, white = job.time_control(Colour.BLACK), job.time_control(Colour.WHITE)
    if black is None and white is None:
        return
    if black == white:
        assert black is not None
        root.set("TM", black.main_time)
        if black.sgf_overtime is not None:
            root.set("OT", black.sgf_overtime)
        return
    parts = []
    for letter, control in (("B", black), ("W", white)):
        if control is None:
            parts.append(f"{letter}: none")
        else:
            overtime = control.sgf_overtime
            main = f"{format_seconds(control.main_time)}s"
            parts.append(f"{letter}: {main} + {overtime}" if overtime else f"{letter}: {main}")
    root.set("OT", "; ".join(parts))


def build_sgf(record: GameRecord) -> bytes:
    """The SGF bytes of one game record."""
    # sgfmill (~3 ms of CPU to import) is loaded with the first record, not at the run's start.
    import datetime

    from sgfmill import sgf, sgf_grammar

    job = record.job
    settings = job.settings
    game = sgf.Sgf_game(settings.board_size, encoding="UTF-8")
    root = game.get_root()
    root.set("AP", (APPLICATION_NAME, application_version()))
    root.set("KM", settings.komi)
    if record.handicap_stones:
        root.set("HA", len(record.handicap_stones))
        root.set_setup_stones(record.handicap_stones, [])
    if record.result is not None:
        root.set("RE", record.result.sgf_result)
    date = record.date[:10] if record.date else datetime.date.today().isoformat()
    root.set("DT", date)
    root.set("GN", job.game_id)
    if job.event:
        root.set("EV", _one_line(job.event))
    root.set("RU", settings.rules_description())
    black_name = _one_line(record.player_names[0]) or job.black.code
    white_name = _one_line(record.player_names[1]) or job.white.code
    root.set("PB", black_name)
    root.set("PW", white_name)
    _set_time_control(root, job)
    root.set("C", _root_comment(record))
    # The moves go straight to the bytes: building a Tree_node per move
    # (validation, parent links, then walking the tree again to serialise
    # it) was most of the cost of a record, and so was sgfmill's serialiser
    # (a sort, an encode and a join per node).  The pieces are exactly those
    # sgf_grammar.serialise_game_tree would make, wrapped by its own
    # block_format (tests/arena/test_records.py pins the bytes).  Move values
    # need no escaping; comments go through sgfmill's presenter.
    presenter = game.get_property_presenter()
    root_properties = root.get_raw_property_map()
    pieces: list[bytes] = [b"(", b";"]
    pieces += _property_pieces(root_properties, root=True)
    move_pieces = _move_pieces(settings.board_size)
    black = Colour.BLACK
    for played in record.moves:
        is_black = played.colour is black
        point = played.move.point
        if played.time_left is None and not played.comment:
            # The usual node: its one property, the move.
            pieces.append(b";")
            pieces.append(move_pieces[point][0 if is_black else 1])
            continue
        pieces.append(b";")
        pieces += _property_pieces(
            _move_properties(played, is_black, settings.board_size, presenter)
        )
    final = [note for note in record.notes if note.strip()]
    ending = record.result.reason if record.result is not None else record.void_reason
    if ending and record.moves:
        final.insert(0, ending)
    if final:
        if not record.moves:
            root.add_comment_text("\n".join(final))
            root_properties = root.get_raw_property_map()
            pieces = [b"(", b";", *_property_pieces(root_properties, root=True)]
        else:
            # The last node's pieces again, with the comment added.
            played = record.moves[-1]
            while pieces[-1] != b";":
                pieces.pop()
            last = _move_properties(played, played.colour is black, settings.board_size, presenter)
            text = "\n\n".join(final)
            if "C" in last:  # as sgfmill's add_comment_text does
                text = presenter.interpret("C", last["C"]) + "\n\n" + text
            last["C"] = presenter.serialise("C", text)
            pieces += _property_pieces(last)
    pieces.append(b")")
    pieces.append(b"\n")
    data: bytes = sgf_grammar.block_format(pieces)
    return data


def _move_properties(
    played: PlayedMove, is_black: bool, size: int, presenter: sgf_properties.Presenter
) -> dict[str, list[bytes]]:
    """A move node's properties: the move, the time left under a clock, the engine's comment."""
    prop = "B" if is_black else "W"
    properties = {prop: [_move_value(played.move.point, size)]}
    if played.time_left is not None:
        left = format_seconds(math.floor(played.time_left * 1000) / 1000).encode()
        properties[f"{prop}L"] = [left]
        if played.overtime_left:
            properties[f"O{prop}"] = [str(played.overtime_left).encode()]
    comment = played.comment.strip()
    if comment:
        properties["C"] = presenter.serialise("C", comment)
    return properties


def _property_pieces(properties: dict[str, list[bytes]], *, root: bool = False) -> list[bytes]:
    """One node's pieces, as sgf_grammar.serialise_game_tree makes them (FF first)."""
    if root:
        order = sorted(properties, key=lambda ident: (-(ident == "FF"), ident))
    else:
        order = sorted(properties)  # no FF in a move node
    return [
        ident.encode("ascii") + b"".join([b"[" + value + b"]" for value in properties[ident]])
        for ident in order
    ]


def _move_value(point: tuple[int, int] | None, size: int) -> bytes:
    """A move's SGF value: column letter, then row letter counted from the top; [] a pass."""
    if point is None:
        return b""  # a pass is [] whatever the board size
    row, col = point
    return bytes((97 + col, 97 + size - 1 - row))


@functools.cache
def _move_pieces(size: int) -> dict[tuple[int, int] | None, tuple[bytes, bytes]]:
    """Every move's piece on a board of ``size``, for black and for white: ``B[dd]``, ``W[dd]``."""
    points: list[tuple[int, int] | None] = [None]
    points += [(row, col) for row in range(size) for col in range(size)]
    pieces = {}
    for point in points:
        value = _move_value(point, size)
        pieces[point] = (b"B[" + value + b"]", b"W[" + value + b"]")
    return pieces


def record_path(files: CompetitionFiles, record: GameRecord) -> Path | None:
    """Where Gomill puts a game's record; a void game's only if a move was played."""
    if record.is_void:
        return files.void_sgf_path(record.job.game_id) if record.moves else None
    return files.sgf_path(record.job.game_id)


def write_game_record(files: CompetitionFiles, record: GameRecord) -> Path | None:
    """Write the record where Gomill puts it; void games only if a move was played.

    Returns the path written, or None when nothing was written.
    """
    if record.is_void:
        if not record.moves:
            return None
        path = files.void_sgf_path(record.job.game_id)
    else:
        path = files.sgf_path(record.job.game_id)
    data = build_sgf(record)
    try:
        atomic_write(path, data)
    except FileNotFoundError:
        # The directory is made on first use rather than checked every time.
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data)
    return path
