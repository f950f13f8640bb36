"""A referee engine scores games and adjudicates one-sided ones; its faults void the game."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from sgfmill import sgf

from arena.api import engine, play_match
from arena.competitions.playoff import Playoff
from arena.control.settings import Adjudication, GameSettings, PlayerConfig
from arena.errors import ControlFileError
from arena.reports.playoff import playoff_report
from arena.results import EndReason, GameJob, GameRecord
from arena.run.engines import EngineProvider
from arena.run.match import play_game
from arena.store.sgf import build_sgf
from gtp.vertex import Colour

from .fakes import fake_command, fake_player
from .helpers import playoff_config, result

B, W = Colour.BLACK, Colour.WHITE
BLACK_MOVES = "--moves=D4,E4,F4,G4,H4"
WHITE_MOVES = "--moves=D6,E6,F6,G6,H6"


def job(
    referee: PlayerConfig | None,
    *,
    black: tuple[str, ...] = (BLACK_MOVES, "--score=B+1"),
    white: tuple[str, ...] = (WHITE_MOVES, "--score=B+1"),
    **settings: object,
) -> GameJob:
    values: dict[str, object] = {"board_size": 9, "komi": 7.5, "scorer": "referee"}
    values.update(settings)
    if referee is not None:
        values.update(referee=referee.code, referee_player=referee)
    return GameJob(
        game_id="0_0",
        pairing="0",
        game_number=0,
        black=fake_player("a", *black),
        white=fake_player("b", *white),
        settings=GameSettings(**values),  # type: ignore[arg-type]
    )


async def play(job: GameJob) -> GameRecord:
    async with trio.open_nursery() as nursery:
        provider = EngineProvider(nursery, stderr="discard")
        record = await play_game(job, provider)
        await provider.close_all()
    return record


def last_comment(record: GameRecord) -> str:
    game = sgf.Sgf_game.from_bytes(build_sgf(record))
    return game.get_last_node().get("C")


async def test_the_referee_scores_and_the_record_says_so() -> None:
    judge = fake_player("ref", "--name=Judge", "--score=W+12.5", "--dead=D4 E4")
    record = await play(job(judge))
    result = record.result
    assert result is not None, record.void_reason
    assert (result.winner, result.end, result.margin) == (W, EndReason.SCORE, 12.5)
    game = sgf.Sgf_game.from_bytes(build_sgf(record))
    assert game.get_root().get("RE") == "W+12.5"
    assert "scored by the referee ref" in game.get_root().get("RU")
    comment = last_comment(record)
    assert "scored by the referee ref (Judge:1.0): W+12.5" in comment
    assert "dead stones according to the referee ref (Judge:1.0): D4 E4" in comment
    assert "final_score from" not in comment  # the players were not asked


@pytest.mark.parametrize(
    ("black_score", "expected"),
    [
        pytest.param("B+1", ("B+1", "final_score from black: B+1"), id="players-agree"),
        pytest.param("W+3", ("W+12.5", "scored by the referee ref"), id="players-disagree"),
    ],
)
async def test_referee_if_disagree(black_score: str, expected: tuple[str, str]) -> None:
    judge = fake_player("ref", "--score=W+12.5")
    record = await play(
        job(
            judge,
            black=(BLACK_MOVES, f"--score={black_score}"),
            scorer="referee_if_disagree",
        )
    )
    assert record.result is not None, record.void_reason
    assert record.result.sgf_result == expected[0]
    assert expected[1] in last_comment(record)


async def test_move_limit_is_scored_by_the_referee() -> None:
    judge = fake_player("ref", "--score=B+4")
    record = await play(job(judge, move_limit=4))
    assert record.result is not None, record.void_reason
    assert (record.result.end, record.result.sgf_result, record.result.moves) == (
        EndReason.SCORE,
        "B+4",
        4,
    )
    assert "at the move limit (4)" in record.result.reason


@pytest.mark.parametrize(
    ("args", "settings", "reason"),
    [
        pytest.param(("--crash-on=final_score",), {}, "the referee ref", id="crash"),
        pytest.param(("--score=resign",), {}, "answered final_score", id="not-a-score"),
        pytest.param(
            ("--fail=final_score:cannot score",), {}, "rejected 'final_score'", id="failure"
        ),
        pytest.param(
            ("--crash-on=play",),
            {"adjudicate": Adjudication(30, after=2)},
            "ref",
            id="adjudicating",
        ),
    ],
)
async def test_a_referee_fault_voids_the_game(
    args: tuple[str, ...], settings: dict[str, object], reason: str
) -> None:
    record = await play(job(fake_player("ref", *args), **settings))
    assert record.result is None
    assert record.void_reason is not None and reason in record.void_reason
    assert "referee" in record.void_reason


@pytest.mark.parametrize("command", ["final_score", "final_status_list"])
async def test_a_hanging_referee_voids_the_game(command: str) -> None:
    judge = PlayerConfig(
        "ref",
        fake_player("ref", "--score=B+1", "--dead=", f"--hang-on={command}").command,
        command_timeout=0.5,
    )
    record = await play(job(judge))
    assert record.result is None
    assert f"the referee ref (fake:1.0) did not answer '{command}" in str(record.void_reason)
    assert "within 0.5s" in str(record.void_reason)


async def test_a_referee_setup_failure_voids_the_game() -> None:
    judge = PlayerConfig(
        "ref",
        fake_player("ref", "--score=B+1", "--fail=komi:x").command,
        command_timeout=0.5,
    )
    # komi fails: the referee's setup is supervised like a player's.
    record = await play(job(judge))
    assert record.result is None and "rejected 'komi 7.5'" in str(record.void_reason)


async def test_a_one_sided_game_is_adjudicated() -> None:
    judge = fake_player("ref", "--score=B+40")
    adjudicate = Adjudication(margin=30, moves=3, after=2)
    record = await play(job(judge, scorer="players", adjudicate=adjudicate))
    result = record.result
    assert result is not None, record.void_reason
    assert (result.winner, result.end, result.moves) == (B, EndReason.ADJUDICATED, 4)
    assert result.sgf_result == "B+"
    assert "adjudicated by the referee ref" in last_comment(record)
    assert "a beat b B+ (adjudicated by the referee ref" in result.describe()


async def test_a_lead_below_the_margin_is_not_adjudicated() -> None:
    judge = fake_player("ref", "--score=B+20")
    adjudicate = Adjudication(margin=30, moves=1, after=0)
    record = await play(job(judge, adjudicate=adjudicate))
    assert record.result is not None and record.result.end is EndReason.SCORE


def test_control_file_settings(tmp_path: Path) -> None:
    config = playoff_config(
        tmp_path,
        "Matchup('a', 'b', adjudicate=Adjudication(25, moves=2, after=30, every=2))",
        "referee = 'c'\nscorer = 'referee_if_disagree'\n",
    )
    settings = config.playoff.matchups[0].settings
    assert settings.referee_player is not None and settings.referee_player.code == "c"
    assert settings.adjudicate == Adjudication(25, 2, 30, 2)
    assert settings.scorer == "referee_if_disagree"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("scorer = 'referee'\n", "needs a referee"),
        ("adjudicate = Adjudication(30)\n", "needs a referee"),
        ("referee = 'zz'\nscorer = 'referee'\n", "referee 'zz' is not a player code"),
        ("referee = 'c'\nadjudicate = Adjudication(0)\n", "margin must be positive"),
        ("referee = 'c'\nadjudicate = Adjudication(5, moves=0)\n", "moves must be at least 1"),
        ("referee = 'c'\nadjudicate = 30\n", "expected Adjudication"),
    ],
)
def test_bad_referee_settings(tmp_path: Path, extra: str, message: str) -> None:
    with pytest.raises(ControlFileError, match=message):
        playoff_config(tmp_path, "Matchup('a', 'b')", extra)


def test_the_report_counts_adjudicated_games_apart(tmp_path: Path) -> None:
    playoff = Playoff(playoff_config(tmp_path, "Matchup('a', 'b')"))
    for game in (
        result("0_0", "a", "b", W, EndReason.ADJUDICATED),
        result("0_1", "a", "b", W, EndReason.ADJUDICATED),
        result("0_2", "a", "b", B, EndReason.TIME),
    ):
        playoff.record_result(game, {})
    text = playoff_report(playoff.snapshot())
    assert (
        "    wins                  timeouts adjudicated\n"
        "a      1 33.33%   (black)        0           2\n"
        "b      2 66.67%   (white)        1           0\n"
    ) in text
    assert result("0_0", "a", "b", W, EndReason.ADJUDICATED).sgf_result == "W+"


async def test_the_library_takes_the_referee_engine_itself() -> None:
    judge = engine(fake_command("--score=B+40"), code="judge")
    result = await play_match(
        fake_command("--moves=D4,E4,F4,G4"),
        fake_command("--moves=D6,E6,F6,G6"),
        games=2,
        referee=judge,
        scorer="referee",
        adjudicate=Adjudication(30, moves=2, after=1),
    )
    assert [(r.end, r.moves, r.sgf_result) for r in result.results] == [
        (EndReason.ADJUDICATED, 2, "B+"),
        (EndReason.ADJUDICATED, 2, "B+"),
    ]


def test_the_referee_engine_is_checked_before_the_run(tmp_path: Path) -> None:
    config = playoff_config(
        tmp_path,
        "Matchup('a', 'b'), Matchup('a', 'c', scorer='players')",
        "referee = 'c'\nscorer = 'referee'\n",
    )
    checks = Playoff(config).player_checks()
    assert [(check.player.code, check.referee) for check in checks] == [
        ("a", False),
        ("b", False),
        ("c", False),
        ("c", True),
    ]
    assert checks[-1].required_commands == {"final_score"}
    assert not checks[-1].clocked
