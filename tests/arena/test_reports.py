"""Reports in Gomill's layout, with our extra counts."""

from __future__ import annotations

from pathlib import Path

from arena.competitions.playoff import Playoff
from arena.reports.playoff import playoff_report
from arena.results import EndReason
from gtp.vertex import Colour

from .helpers import playoff_config, result

B, W = Colour.BLACK, Colour.WHITE


def test_alternating_matchup_matches_gomills_layout(tmp_path: Path) -> None:
    config = playoff_config(
        tmp_path,
        "Matchup('a', 'b', alternating=True, number_of_games=5)",
        extra="description = '''\n  Testing a v b\n'''\n",
    )
    playoff = Playoff(config)
    games = [
        ("0_0", "a", "b", B, (1.0, 1.0)),
        ("0_1", "b", "a", B, (1.5, 1.5)),
        ("0_2", "a", "b", W, (1.2, 1.7)),
        ("0_3", "b", "a", W, (1.4, 1.3)),
        ("0_4", "a", "b", W, (1.05, 1.45)),
    ]
    for game_id, black, white, winner, cpu in games:
        playoff.record_result(result(game_id, black, white, winner, cpu=cpu), {"a": "Engine A:1"})
    assert playoff_report(playoff.snapshot()) == (
        "playoff: comp\n"
        "\n"
        "Testing a v b\n"
        "\n"
        "a v b (5/5 games)\n"
        "board size: 9   komi: 7.5\n"
        "    wins              black        white      avg cpu\n"
        "a      2 40.00%       1 33.33%     1 50.00%      1.21\n"
        "b      3 60.00%       1 50.00%     2 66.67%      1.41\n"
        "                      2 40.00%     3 60.00%\n"
        # 2-3: score 0.4, sd 0.49, 0.4 + 1.96 * 0.49 / sqrt(5) = 0.829 -> +275 Elo;
        # LOS = Phi(-1 / sqrt(5)); pairs (0_0, 0_1) and (0_2, 0_3) are 1-1 each.
        "a v b: Elo -70 (-inf to +275), LOS 32.7%, score 40.0% (11.8% to 76.9%)\n"
        "colour-swapped pairs 0-0-2-0-0 (2 pairs): Elo 0 ± 301 (-301 to +301)\n"
        "\n"
        "player a: Engine A:1\n"
        "player b: (no description yet)\n"
    )


def test_fixed_colours_forfeits_timeouts_and_unknowns(tmp_path: Path) -> None:
    playoff = Playoff(playoff_config(tmp_path, "Matchup('a', 'b', handicap=2)"))
    games = [
        result("0_0", "a", "b", W, EndReason.FORFEIT),
        result("0_1", "a", "b", W, EndReason.TIME),
        result("0_2", "a", "b", B, EndReason.FORFEIT),
        result("0_3", "a", "b", None, EndReason.UNKNOWN),
        result("0_4", "a", "b", None, EndReason.MOVE_LIMIT),
    ]
    for game in games:
        playoff.record_result(game, {})
    playoff.record_void("0_5", "0", live=False)
    text = playoff_report(playoff.snapshot())
    assert (
        "a v b (5 games)\n"
        "unknown results: 2 40.00% (1 at the move limit, SGF Void)\n"
        "void games (replayed): 1\n"
        "board size: 9   handicap: 2 (fixed)   komi: 7.5\n"
        "    wins                  forfeits timeouts\n"
        "a      1 20.00%   (black)        1        1\n"
        "b      2 40.00%   (white)        1        0\n"
    ) in text


def test_a_matchup_without_games_shows_no_table(tmp_path: Path) -> None:
    playoff = Playoff(playoff_config(tmp_path, "Matchup('a', 'b', number_of_games=4)"))
    text = playoff_report(playoff.snapshot())
    assert "a v b (0/4 games)\nboard size: 9   komi: 7.5\n\nplayer a" in text
