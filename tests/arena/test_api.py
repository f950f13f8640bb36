"""The library API and the pytest plugin engine authors enable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import attrs
import pytest
from sgfmill import sgf

from arena.api import MatchResult, engine, play_match
from arena.results import EndReason, GameResult
from arena.store.files import CompetitionFiles
from arena.store.journal import iter_journal
from gtp.errors import EngineStartError
from gtp.vertex import Colour

from .fakes import fake_command

pytest_plugins = ["pytester"]


async def test_play_match_returns_structured_results(tmp_path: Path) -> None:
    first = engine(fake_command("--moves=D4,E4"), code="first")
    second = engine(fake_command("--moves=D6,E6"), code="second", move_timeout=5)
    result = await play_match(first, second, games=3, komi=0.5, record_dir=tmp_path)
    assert [r.game_id for r in result.results] == ["match_0", "match_1", "match_2"]
    assert [(r.black, r.white, r.sgf_result) for r in result.results] == [
        ("first", "second", "W+0.5"),
        ("second", "first", "W+0.5"),
        ("first", "second", "W+0.5"),
    ]
    assert (result.wins("first"), result.wins("second")) == (1, 2)
    assert f"{result.wins('first')} of {result.games}" == "1 of 3"  # not "1.0 of 3"
    assert sorted(p.name for p in (tmp_path / "match.games").iterdir()) == [
        "match_0.sgf",
        "match_1.sgf",
        "match_2.sgf",
    ]
    assert result.halted is None and result.void_games == ()


async def test_commands_as_strings_or_lists() -> None:
    result = await play_match(
        " ".join(fake_command("--moves=D4")),
        list(fake_command("--resign-at=1")),
        games=1,
        alternating=False,
        check=False,
    )
    assert [(r.black, r.white, r.sgf_result) for r in result.results] == [
        ("player_1", "player_2", "B+R")
    ]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"board_size": 1}, "board_size: must be between 2 and 25"),
        ({"handicap": 12}, "too large for fixed handicap"),
        ({"colour": "b"}, "unknown game setting 'colour'"),
    ],
)
async def test_bad_settings_raise_value_error(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        await play_match(fake_command(), fake_command(), **options)  # type: ignore[arg-type]


def test_engine_rejects_bad_player_settings() -> None:
    with pytest.raises(ValueError, match="move_timeout"):
        engine("x", move_timeout=-1)


async def test_an_engine_that_cannot_start_raises() -> None:
    with pytest.raises(EngineStartError, match="cannot start"):
        await play_match("/no/such/engine", fake_command(), games=1)


async def test_an_engine_that_fails_its_check_is_named_with_its_command() -> None:
    with pytest.raises(EngineStartError) as info:
        await play_match(engine(["cat"], code="mine"), fake_command(), games=1)
    assert str(info.value).startswith("engine 'mine': failed the startup check: ")
    assert str(info.value).endswith(" (command: cat)")


async def test_repeated_crashes_halt_the_match() -> None:
    result = await play_match(fake_command("--crash-at=1"), fake_command(), games=3)
    assert result.results == () and result.halted is not None
    assert result.void_games[0][0] == "match_0"


def test_the_pytest_plugin_gives_engine_authors_fixtures(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntrio_mode = true\n")
    pytester.makepyfile(
        test_engine=f"""
        FAKE = {list(fake_command("--moves=D4,E4"))!r}

        async def test_match(arena_play_match, arena_engine, arena_random_player, arena_record_dir):
            mine = arena_engine(FAKE, code="mine", move_timeout=10)
            result = await arena_play_match(mine, arena_random_player, games=2, board_size=7)
            assert result.games == 2
            assert {{r.black for r in result.results}} == {{"mine", "random"}}
            assert len(list((arena_record_dir / "match.games").iterdir())) == 2
        """
    )
    outcome = pytester.runpytest_subprocess("-p", "arena.pytest_plugin", "-q")
    outcome.assert_outcomes(passed=1)


README = Path(__file__).resolve().parents[2] / "README.md"


def readme_pytest_example() -> dict[str, str]:
    """The README's conftest.py and test file, exactly as written there."""
    text = README.read_text()
    start = text.index("```python\n# conftest.py\n") + len("```python\n")
    block = text[start : text.index("```", start)]
    conftest, test_file = block.split("# test_my_engine.py\n")
    return {"conftest.py": conftest, "test_my_engine.py": test_file}


def fresh_project(pytester: pytest.Pytester, engine_script: str | None) -> None:
    """A project with only the README's two files (no pytest.ini) and the author's engine."""
    for name, text in readme_pytest_example().items():
        (pytester.path / name).write_text(text)
    if engine_script is not None:
        engine_path = pytester.path / "my-engine"
        engine_path.write_text(engine_script)
        engine_path.chmod(0o755)
    assert sorted(p.name for p in pytester.path.iterdir()) == sorted(
        ["conftest.py", "test_my_engine.py"] + ([] if engine_script is None else ["my-engine"])
    )


def test_the_readme_pytest_example_runs_verbatim_in_a_fresh_project(
    pytester: pytest.Pytester,
) -> None:
    # The author's engine: here the sample engine, which beats the random player.
    engine_script = f"#!/bin/sh\nexec {sys.executable} -m engines.mcts --playouts 40 --seed 1\n"
    fresh_project(pytester, engine_script)
    outcome = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    outcome.assert_outcomes(passed=1)


def test_a_missing_engine_fails_the_test_with_one_line(pytester: pytest.Pytester) -> None:
    fresh_project(pytester, None)
    outcome = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    outcome.assert_outcomes(failed=1)
    lines = outcome.outlines
    header = next(i for i, line in enumerate(lines) if "test_my_engine_beats_random" in line)
    summary = next(i for i, line in enumerate(lines) if "short test summary info" in line)
    command = f"{pytester.path / 'my-engine'} --gtp"
    assert lines[header + 1 : summary] == [
        f"engine 'mine': cannot start '{command}': No such file or directory"
    ]
    assert "ExceptionGroup" not in outcome.stdout.str()


def _record_summary(path: Path) -> tuple[object, ...]:
    """What a game record says, leaving out when it was played."""
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    root = game.get_root()
    properties = {name: root.get_raw(name) for name in root.properties() if name not in ("DT", "C")}
    comment = [
        line
        for line in root.get("C").splitlines()
        if not line.startswith(("Date ", "CPU time: "))  # when, and how long it took
    ]
    moves = [node.get_move() for node in game.get_main_sequence()[1:]]
    return properties, comment, moves


async def test_play_match_records_exactly_what_arena_run_records(tmp_path: Path) -> None:
    first = (sys.executable, "-m", "engines.random", "--seed", "3")
    second = (sys.executable, "-m", "engines.random", "--seed", "4")
    by_run, by_api = tmp_path / "run", tmp_path / "api"
    by_run.mkdir()
    (by_run / "match.ctl").write_text(
        "competition_type = 'playoff'\n"
        f"players = {{'first': Player({list(first)!r}), 'second': Player({list(second)!r})}}\n"
        "board_size = 7\nkomi = 7.5\nscorer = 'internal'\nmove_limit = 200\n"
        "matchups = [Matchup('first', 'second', id='match', alternating=True,"
        " number_of_games=3)]\n"
    )
    done = subprocess.run(
        ["arena", "run", str(by_run / "match.ctl"), "-q"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    result = await play_match(
        engine(first, code="first"),
        engine(second, code="second"),
        games=3,
        board_size=7,
        move_limit=200,
        record_dir=by_api,
    )
    assert [r.sgf_result for r in result.results]  # the games were played
    run_records = sorted((by_run / "match.games").iterdir())
    api_records = sorted((by_api / "match.games").iterdir())
    assert (
        [p.name for p in run_records]
        == [p.name for p in api_records]
        == [
            "match_0.sgf",
            "match_1.sgf",
            "match_2.sgf",
        ]
    )
    for ours, theirs in zip(run_records, api_records, strict=True):
        assert _record_summary(ours) == _record_summary(theirs)
    run_results = [e.to_json() for e in iter_journal(CompetitionFiles(by_run, "match"))]
    api_results = [e.to_json() for e in iter_journal(CompetitionFiles(by_api, "match"))]
    for entries in (run_results, api_results):
        for entry in entries:
            entry["result"]["cpu_black"] = entry["result"]["cpu_white"] = None
            # How long the moves took is measured, so it differs; how many were timed does not.
            for key in ("times_black", "times_white"):
                entry["result"][key] = entry["result"][key]["moves"]
    assert sorted(run_results, key=str) == sorted(api_results, key=str)


async def test_a_second_match_in_the_same_directory_gets_its_own_files(tmp_path: Path) -> None:
    first = engine(fake_command("--moves=D4,E4"), code="first")
    second = engine(fake_command("--moves=D6,E6"), code="second")
    await play_match(first, second, games=1, record_dir=tmp_path)
    again = await play_match(first, second, games=2, record_dir=tmp_path)
    assert again.games == 2  # not "already complete"
    assert len(list((tmp_path / "match.games").iterdir())) == 1
    assert len(list((tmp_path / "match-2.games").iterdir())) == 2


def test_wins_are_whole_numbers_unless_a_jigo_counts_half() -> None:
    def game(n: int, winner: Colour | None) -> GameResult:
        return GameResult(f"match_{n}", "a", "b", winner, EndReason.SCORE, 0.5, 10)

    result = MatchResult("a", "b", tuple(game(n, Colour.BLACK) for n in range(4)), (), ())
    assert repr(result.wins("a")) == "4" and repr(result.wins("b")) == "0"
    with_jigo = attrs.evolve(result, results=(*result.results, game(4, None)))
    assert repr(with_jigo.wins("a")) == "4.5"


async def test_play_match_with_openings_and_a_clock(tmp_path: Path) -> None:
    from arena.control.timecontrol import TimeControl

    book = tmp_path / "openings"
    book.mkdir()
    (book / "a.sgf").write_text("(;FF[4]SZ[9];B[aa];W[ii])")
    (book / "b.sgf").write_text("(;FF[4]SZ[9];B[ia];W[ai])")
    first = engine(fake_command("--moves=D4,E4"), code="first")
    second = engine(fake_command("--moves=D6,E6"), code="second")
    result = await play_match(
        first,
        second,
        games=4,
        record_dir=tmp_path,
        openings=book,
        time_control=TimeControl("byoyomi", 5, 1, periods=2),
    )
    assert len(result.results) == 4
    records = sorted((tmp_path / "match.games").iterdir())
    openings = []
    for path in records:
        root = sgf.Sgf_game.from_bytes(path.read_bytes()).get_root()
        assert root.get("OT") and root.get("TM") == 5
        main = sgf.Sgf_game.from_bytes(path.read_bytes()).get_main_sequence()
        openings.append(main[1].get_move())
    # Each opening twice, the players' colours swapped.
    assert openings == [("b", (8, 0)), ("b", (8, 0)), ("b", (8, 8)), ("b", (8, 8))]
    blacks = [game.black for game in result.results]
    assert blacks[0] != blacks[1] and blacks[2] != blacks[3]


async def test_play_match_refuses_openings_without_alternating(tmp_path: Path) -> None:
    (tmp_path / "a.sgf").write_text("(;FF[4]SZ[9];B[aa])")
    with pytest.raises(ValueError, match="colour-swapped pairs"):
        await play_match("x", "y", games=2, openings=tmp_path / "a.sgf", alternating=False)
