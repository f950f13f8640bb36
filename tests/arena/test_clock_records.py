"""What a clocked game leaves behind: SGF time properties, report columns, the log's latency."""

from __future__ import annotations

from pathlib import Path

import attrs
from sgfmill import sgf

from arena.competitions.playoff import Playoff
from arena.control.openings import Opening
from arena.control.settings import GameSettings, PlayerConfig
from arena.control.timecontrol import TimeControl
from arena.events import GameFinished
from arena.output.wording import log_line
from arena.reports.playoff import playoff_report
from arena.results import (
    ArenaLatency,
    EndReason,
    GameJob,
    GameRecord,
    GameResult,
    MoveTimes,
    PlayedMove,
)
from arena.store.sgf import build_sgf
from gtp.vertex import Colour, Move

from .helpers import playoff_config, result

B, W = Colour.BLACK, Colour.WHITE
BYOYOMI = TimeControl("byoyomi", 30, 10, periods=5)


def clocked_record(black_control: TimeControl | None = None) -> GameRecord:
    settings = GameSettings(board_size=9, komi=7.5, time_control=BYOYOMI, time_margin=0.1)
    job = GameJob(
        "0_1",
        "0",
        1,
        PlayerConfig("a", ("a",), time_control=black_control),
        PlayerConfig("b", ("b",)),
        settings,
        opening=Opening("joseki.sgf", ((B, (2, 2)), (W, (6, 6)))),
    )
    moves = (
        PlayedMove(B, Move((2, 2))),
        PlayedMove(W, Move((6, 6)), comment="End of opening joseki.sgf (2 moves)"),
        PlayedMove(B, Move((4, 4)), seconds=12.5, time_left=17.5),
        PlayedMove(W, Move((4, 5)), seconds=31.25, time_left=10.0, overtime_left=5),
        PlayedMove(B, Move((5, 5)), seconds=28.0, time_left=10.0, overtime_left=4),
    )
    outcome = GameResult("0_1", "a", "b", W, EndReason.RESIGN, moves=5)
    return GameRecord(job, outcome, moves=moves, date="2024-05-06 07:08:09")


def test_the_sgf_has_the_time_control_and_what_was_left_after_each_move() -> None:
    game = sgf.Sgf_game.from_bytes(build_sgf(clocked_record()))
    root = game.get_root()
    assert (root.get("TM"), root.get("OT")) == (30, "5x10 byo-yomi")
    comment = root.get("C")
    assert "Time: byo-yomi 30s + 5x10s (margin 0.1s)" in comment
    assert "Opening: joseki.sgf (2 moves)" in comment
    nodes = game.get_main_sequence()[1:]
    # The opening's moves are ordinary moves, its end commented; no clock on them.
    assert [n.get_move() for n in nodes[:2]] == [("b", (2, 2)), ("w", (6, 6))]
    assert nodes[1].get("C") == "End of opening joseki.sgf (2 moves)"
    assert not any(n.has_property(p) for n in nodes[:2] for p in ("BL", "WL"))
    # In main time BL alone; in overtime the period and the periods left.
    assert nodes[2].get("BL") == 17.5 and not nodes[2].has_property("OB")
    assert (nodes[3].get("WL"), nodes[3].get("OW")) == (10, 5)
    assert (nodes[4].get("BL"), nodes[4].get("OB")) == (10, 4)


def test_time_odds_name_each_players_control() -> None:
    odds = clocked_record(TimeControl("per_move", period_time=0.5))
    root = sgf.Sgf_game.from_bytes(build_sgf(odds)).get_root()
    assert not root.has_property("TM")
    assert root.get("OT") == "B: 0s + 0.5 per move; W: 30s + 5x10 byo-yomi"
    assert "Time: black 0.5s per move, white byo-yomi 30s + 5x10s" in root.get("C")


def test_reports_give_time_per_move_apart_from_losses_on_time(tmp_path: Path) -> None:
    playoff = Playoff(playoff_config(tmp_path, "Matchup('a', 'b', number_of_games=3)"))
    games = [
        (result("0_0", "a", "b", W, EndReason.TIME), MoveTimes(20, 4.0, 0.5), MoveTimes(20, 2.0)),
        (result("0_1", "a", "b", B, EndReason.FORFEIT), MoveTimes(10, 3.0, 1.5), None),
        (result("0_2", "a", "b", B), MoveTimes(10, 1.0, 0.1), MoveTimes(10, 12.5, 2.0)),
    ]
    for game, black, white in games:
        playoff.record_result(attrs.evolve(game, times_black=black, times_white=white), {})
    text = playoff_report(playoff.snapshot())
    assert (
        "    wins                  forfeits timeouts s/move  max s\n"
        "a      2 66.67%   (black)        0        1  0.200  1.500\n"
        "b      1 33.33%   (white)        1        0  0.483  2.000\n"
    ) in text


def test_the_log_gives_each_games_arena_latency() -> None:
    event = GameFinished(
        "0_1",
        "a",
        "b",
        GameResult("0_1", "a", "b", W, EndReason.RESIGN),
        latency=ArenaLatency(200, 0.016, 0.0012),
    )
    assert log_line(event) == (
        "finished game 0_1: b beat a W+R (arena latency 0.08 ms mean, 1.20 ms max)"
    )
