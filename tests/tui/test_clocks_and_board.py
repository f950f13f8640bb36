"""Clocks and the selected game's board: the events that carry them, the dashboard, `watch`."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from arena.api import run_competition
from arena.clock import PlayerClock
from arena.competitions.loader import load_control_file
from arena.control.timecontrol import TimeControl
from arena.events import (
    BoardPicture,
    ClockFace,
    Event,
    EventBus,
    GameStarted,
    KeyPressed,
    MovePlayed,
    RunState,
    RunStateChanged,
    board_picture,
    clock_face,
    event_from_json,
    event_to_json,
)
from arena.keys import CTRL_X
from arena.output.files import RunFiles
from arena.run.ringmaster import Ringmaster, RunOptions
from arena.store.files import CompetitionFiles
from gtp.board import Board
from gtp.vertex import Colour, Move, parse_vertex
from tui.board_view import format_clock
from tui.tracker import RunTracker
from tui.watch import CompetitionFollower

from .builders import FakeClock, playoff, screen, tracker_for
from .test_terminal import Tmux, shell, terminal_environment, wait_for_file
from .test_watch import paced_config, write_events

B, W = Colour.BLACK, Colour.WHITE
PACED = str(Path(__file__).with_name("paced_engine.py"))


def board_after(size: int, moves: list[tuple[Colour, str]]) -> Board:
    board = Board(size)
    for colour, vertex in moves:
        board.play(colour, parse_vertex(vertex, size))
    return board


# Black's B1 and A2 take white's A1; white's E5 is the top right corner.
CAPTURE = [(W, "A1"), (B, "B1"), (W, "E5"), (B, "A2")]


def test_the_board_picture_is_row_by_row_from_the_top_with_captures() -> None:
    picture = board_picture(board_after(5, CAPTURE))
    assert picture.points == (
        "....O"  # 5
        "....."  # 4
        "....."  # 3
        "X...."  # 2
        ".X..."  # 1: A1 was captured
    )
    assert picture.captures == (1, 0)
    assert picture.at(0, 1) == "X" and picture.at(4, 4) == "O"
    with pytest.raises(ValueError, match="not a 5x5 board"):
        BoardPicture(5, "...")


@pytest.mark.parametrize(
    ("control", "spent", "face", "shown", "wide"),
    [
        (TimeControl("absolute", main_time=300), 28.0, ClockFace(272.0), "4:32", "4:32"),
        (TimeControl("fischer", main_time=10, increment=2), 5.0, ClockFace(7.0), "0:07.0", None),
        (
            TimeControl("byoyomi", main_time=5, period_time=10, periods=3),
            12.0,  # 5 s of main time, then 7 s of the first period: a new period starts
            ClockFace(10.0, 3, "periods"),
            "0:10×3",
            "0:10 (3 periods)",
        ),
        (
            TimeControl("canadian", main_time=0, period_time=130, stones=12),
            0.0,
            ClockFace(130.0, 12, "stones"),
            "2:10/12",
            "2:10 (12 stones)",
        ),
        (TimeControl("per_move", period_time=0.5), 0.0, ClockFace(0.5), "0:00.5", None),
        (TimeControl("absolute", main_time=4000), 0.0, ClockFace(4000.0), "1:06:40", None),
    ],
)
def test_clock_faces_and_how_they_read(
    control: TimeControl, spent: float, face: ClockFace, shown: str, wide: str | None
) -> None:
    clock = PlayerClock(control, margin=0.05)
    if spent:
        clock.charge(spent)
    assert clock_face(clock) == face
    assert format_clock(face) == shown
    assert format_clock(face, wide=True) == (wide or shown)


def test_a_move_event_with_clocks_and_board_goes_through_json() -> None:
    event = MovePlayed(
        "0_3",
        B,
        Move(parse_vertex("A2", 5)),
        4,
        ClockFace(12.5),
        ClockFace(8.25, 2, "periods"),
        board_picture(board_after(5, CAPTURE)),
    )
    data = event_to_json(event)
    assert data is not None
    assert data["clock_b"] == [12.5, 0, ""] and data["clock_w"] == [8.25, 2, "periods"]
    assert data["board"]["captures"] == [1, 0]
    assert event_from_json(json.loads(json.dumps(data))) == event
    big = board_picture(board_after(19, [(B, "A1"), (W, "T19"), (B, "K10"), (W, "S1")]))
    packed = big.to_json()
    assert len(packed["stones"]) == 100  # 361 points, five a byte, base64
    assert BoardPicture.from_json(json.loads(json.dumps(packed))) == big
    with pytest.raises(ValueError, match="not a packed board"):
        BoardPicture.from_json({"size": 19, "stones": "AAAA"})
    bare = MovePlayed("0_3", B, Move(parse_vertex("A2", 5)), 4)
    assert set(event_to_json(bare) or {}) == {"event", "game_id", "colour", "move", "moves"}
    assert event_to_json(KeyPressed(b"n")) is None


# -- the tracker and the keys ---------------------------------------------------


def test_keys_step_through_the_games_boards_and_off(tmp_path: Path) -> None:
    tracker = tracker_for(playoff(tmp_path), in_progress=3)
    games = [g.game_id for g in tracker.view().in_progress]
    assert tracker.view().position is None
    shown = []
    for key in (b"n", b"\t", b"n", b"n", b"p", b"p"):
        assert tracker.handle(KeyPressed(key)) is True  # drawn at once
        position = tracker.view().position
        shown.append(None if position is None else position.game_id)
    assert shown == [games[0], games[1], games[2], None, games[2], games[1]]
    assert tracker.handle(KeyPressed(b"z")) is False
    # The game shown ends: the board of the first game in progress is shown instead.
    tracker.game_ended(games[1])
    position = tracker.view().position
    assert position is not None and position.game_id == games[0] and position.of == 2


def clocked_tracker(directory: Path, size: int) -> tuple[RunTracker, str]:
    """Three games in progress; the second has clocks and a board, and is selected."""
    tracker = tracker_for(playoff(directory, players=4), in_progress=3, clock=FakeClock())
    tracker.board_keys = True
    game = tracker.view().in_progress[1].game_id
    # Black's D1 takes white's C1.
    moves = [(B, "C2"), (W, "C1"), (B, "B1"), (W, "G7"), (B, "D1")]
    board = board_after(size, moves)
    tracker.handle(
        MovePlayed(
            game,
            B,
            Move(parse_vertex("D1", size)),
            len(moves),
            ClockFace(272.0),
            ClockFace(8.4, 3, "periods"),
            board_picture(board),
        )
    )
    tracker.handle(KeyPressed(b"n"))
    tracker.handle(KeyPressed(b"n"))
    return tracker, game


def test_the_dashboard_at_80x24_shows_both_clocks_and_a_19x19_board(tmp_path: Path) -> None:
    tracker, game = clocked_tracker(tmp_path, 19)
    lines = screen(tracker.view(), 80, 24)
    text = "\n".join(lines)
    assert len(lines) <= 24 and max(len(line) for line in lines) <= 80
    assert lines[0].startswith("playoff league")
    board_rows = [line for line in lines if line[:2].strip().isdigit() and line[2] == " "]
    assert [int(line[:2]) for line in board_rows] == list(range(19, 0, -1))
    # Row 1 after black's D1, which captured white's C1 (the last move between brackets):
    assert board_rows[-1][:42].rstrip() == " 1 . X .(X). . . . . . . . . . . . . . ."
    assert board_rows[-2][:42].rstrip() == " 2 . . X . . . . . . . . . . . . . . . ."
    assert board_rows[-7][:42].rstrip() == " 7 . . . . . . O . . . . . . . . . . . ."
    assert "   A B C D E F G H J K L M N O P Q R S T" in text
    assert f"game {game} (2 of 3)" in text
    assert "move 5, last B D1" in text
    assert "clock 4:32" in text and "clock 0:08.4 (3 periods)" in text
    assert "captures 1" in text and "captures 0" in text
    assert "Ctrl-X stop after the games in progress" in lines[-1]


def test_the_dashboard_at_120x40_shows_the_board_and_the_games_with_clocks(
    tmp_path: Path,
) -> None:
    tracker, game = clocked_tracker(tmp_path, 9)
    lines = screen(tracker.view(), 120, 40)
    text = "\n".join(lines)
    assert len(lines) <= 40 and max(len(line) for line in lines) <= 120
    assert " 1 . X .(X). . . . ." in text
    assert "   A B C D E F G H J" in text
    assert "X black player02" in text and "O white player03" in text
    heading = next(line for line in lines if line.lstrip().startswith("game "))
    assert heading.split()[:5] == ["game", "black", "white", "move", "time"]
    assert "B clock" in heading and "W clock" in heading
    row = next(line for line in lines if line.startswith(game) and "player" in line)
    assert "4:32" in row and "0:08.4×3" in row
    others = [line for line in lines if line.startswith("0_") and line != row]
    assert others and all(" - " in f"{line} " for line in others)  # no clocks known
    assert "In progress: 3 game(s) · n/Tab: a game's board" in text
    assert "player00 v player01" in text  # the competition still has room


@pytest.mark.parametrize("size", [9, 19])
def test_a_board_fits_every_screen_and_keeps_the_last_move(tmp_path: Path, size: int) -> None:
    tracker, _ = clocked_tracker(tmp_path, size)
    view = tracker.view()
    for width in range(20, 130, 9):
        for height in range(6, 45, 3):
            lines = screen(view, width, height)
            assert len(lines) <= height and max(len(line) for line in lines) <= width
    if size == 9:
        return
    # 19x19 at 50x16: the panel goes above the board, which keeps the rows by the last move.
    lines = screen(view, 50, 16)
    assert lines[2].startswith("game 1_00 (2 of 3)")
    assert any(line.startswith(" 1 . X .(X).") for line in lines)


def test_without_a_selection_the_dashboard_draws_no_board(tmp_path: Path) -> None:
    tracker, _ = clocked_tracker(tmp_path, 9)
    for _ in range(2):
        tracker.handle(KeyPressed(b"n"))  # past the last game: hidden
    text = "\n".join(screen(tracker.view(), 80, 24))
    assert "(X)" not in text and "0:08.4×3" in text


# -- the run and `arena watch` ----------------------------------------------------


def clocked_config(directory: Path, games: int) -> Path:
    players = ", ".join(
        f"{code!r}: Player({[sys.executable, PACED, '--delay', '0.02', '--seed', str(seed)]!r})"
        for seed, code in enumerate(("alpha", "beta"), 1)
    )
    path = directory / "clocked.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{{players}}}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        "time_control = ByoYomi(main=30, period=5, periods=3)\n"
        f"matchups = [Matchup('alpha', 'beta', alternating=True, number_of_games={games})]\n"
    )
    return path


async def test_a_runs_move_events_carry_clocks_and_boards(tmp_path: Path) -> None:
    config = load_control_file(clocked_config(tmp_path, games=1))
    seen: list[Event] = []
    events = EventBus()
    events.subscribe(seen.append, moves=True)
    await run_competition(config, RunOptions(keyboard=False, handle_signals=False), events=events)
    moves = [e for e in seen if isinstance(e, MovePlayed)]
    assert moves
    for event in moves:
        for face in (event.black_clock, event.white_clock):
            assert face is not None and face.count == 0 and 0 < face.seconds <= 30
    with_boards = [e for e in moves if e.board is not None]
    assert with_boards and len(with_boards) <= len(moves)
    for event in with_boards:
        assert event.board is not None and event.board.size == 9
        stones = sum(event.board.points.count(c) for c in "XO")
        assert 0 < stones <= event.moves_played
        if event.move.point is not None:  # the move just played is on the board
            row, col = event.move.point
            assert event.board.at(row, col) == ("X" if event.colour is B else "O")
    # X.events has the clocks and only moves that carry the board.
    files = CompetitionFiles.for_control_file(config.control_path)
    lines = [json.loads(line) for line in files.events.read_text().splitlines()]
    for data in lines:
        if data["event"] == "move":
            assert "clock_b" in data and "clock_w" in data and "board" in data


def test_the_ringmaster_passes_keys_other_than_ctrl_x_on(tmp_path: Path) -> None:
    config = load_control_file(clocked_config(tmp_path, games=1))
    seen: list[Event] = []
    events = EventBus()
    events.subscribe(seen.append)
    ringmaster = Ringmaster(config, RunOptions(keyboard=False), events)
    ringmaster._on_key(b"n")
    ringmaster._on_key(CTRL_X)
    assert seen == [
        KeyPressed(b"n"),
        RunStateChanged(RunState.STOPPING, "stop requested (Ctrl-X)"),
    ]


def test_x_events_waits_for_a_move_with_its_board(tmp_path: Path) -> None:
    files = CompetitionFiles.for_control_file(tmp_path / "x.ctl")
    clock = FakeClock(0.0)
    run_files = RunFiles(files, clock=clock)
    run_files(GameStarted("0_0", "a", "b", 0))
    picture = board_picture(Board(5))
    for tick in range(1, 61):  # a move event every 50 ms, a board at ticks 2, 7, 12...
        clock.now = tick / 20
        board = picture if tick % 5 == 2 else None
        run_files(MovePlayed("0_0", B, Move((0, 0)), tick, ClockFace(10.0), None, board))
    run_files.close()
    lines = [json.loads(line) for line in files.events.read_text().splitlines()]
    written = [(d["moves"], "board" in d) for d in lines if d["event"] == "move"]
    # Due at 1 s (tick 20), written at the next board (tick 22); due again at tick 42.
    assert written == [(22, True), (42, True)]


def test_watch_shows_the_clocks_and_board_from_x_events(tmp_path: Path) -> None:
    config = paced_config(tmp_path, games=10)
    board = board_after(9, [(B, "E5"), (W, "C3"), (B, "G7")])
    write_events(
        CompetitionFiles.for_control_file(config.control_path).events,
        [
            RunStateChanged(RunState.RUNNING, parallel=2),
            GameStarted("0_0", "alpha", "beta", 0),
            GameStarted("0_1", "beta", "alpha", 1),
            MovePlayed(
                "0_1",
                B,
                Move(parse_vertex("G7", 9)),
                3,
                ClockFace(95.0),
                ClockFace(3.5, 2, "stones"),
                board_picture(board),
            ),
        ],
    )
    tracker = RunTracker("watched", watching=True, board_keys=True)
    CompetitionFollower(config, tracker).poll()
    lines = screen(tracker.view(), 80, 24)
    row = next(line for line in lines if line.startswith("0_1"))
    assert "1:35" in row and "0:03.5/2" in row
    tracker.handle(KeyPressed(b"n"))
    tracker.handle(KeyPressed(b"n"))
    text = "\n".join(screen(tracker.view(), 80, 24))
    assert " 7 . . . . . .(X). ." in text and " 3 . . O . . . . . ." in text
    assert "clock 1:35" in text and "clock 0:03.5 (2 stones)" in text
    assert "game 0_1 (2 of 2)" in text and "move 3, last B G7" in text


@pytest.mark.slow
def test_keys_show_a_board_in_a_real_terminal_run_and_watch(tmp_path: Path) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    control = clocked_config(tmp_path, games=40)
    arena = f"{shlex.quote(sys.executable)} -m arena_cli"
    run_status, watch_status = tmp_path / "run.status", tmp_path / "watch.status"
    tmux = Tmux(f"arena-test-{uuid.uuid4().hex[:8]}")
    try:
        subprocess.run(
            [
                "tmux", "-L", tmux.socket, "new-session", "-d", "-s", "clk", "-x", "80",
                "-y", "24", "-c", str(tmp_path),
                shell(f"{arena} run {shlex.quote(str(control))} -j 2", run_status),
            ],
            check=True, env=terminal_environment(), timeout=10,
        )  # fmt: skip
        screen = tmux.wait_for(
            "clk:0", lambda s: "B clock" in s and "W clock" in s, "the clock columns"
        )
        assert "n/Tab: a game's board" in screen
        tmux("send-keys", "-t", "clk:0", "n")
        screen = tmux.wait_for(
            "clk:0",
            lambda s: "(1 of 2)" in s and "A B C D E F G H J" in s,
            "the first game's board",
        )
        assert "  clock " in screen and "  captures " in screen
        last = next(line for line in screen.splitlines() if "move " in line and "last " in line)
        assert "pass" in last or "(X)" in screen or "(O)" in screen  # the last move marked
        tmux("new-window", "-t", "clk:1", shell(f"{arena} watch {shlex.quote(str(control))}",
                                                  watch_status))  # fmt: skip
        tmux.wait_for("clk:1", lambda s: "B clock" in s, "the watcher's clocks")
        tmux("send-keys", "-t", "clk:1", "n")
        tmux.wait_for(
            "clk:1", lambda s: "A B C D E F G H J" in s and "  clock " in s, "the watcher's board"
        )
        tmux("send-keys", "-t", "clk:0", "C-x")
        assert wait_for_file(run_status) == "0"
        assert wait_for_file(watch_status) == "0"
    finally:
        subprocess.run(["tmux", "-L", tmux.socket, "kill-server"], capture_output=True, timeout=10)
