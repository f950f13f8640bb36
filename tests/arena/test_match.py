"""One game between real (fake) engine processes: every fault path becomes a result."""

from __future__ import annotations

import attrs
import pytest
import trio
from sgfmill import sgf

from arena.control.settings import GameSettings, PlayerConfig
from arena.results import EndReason, GameJob, GameRecord
from arena.run.engines import STDERR_LOG_CAP, EngineProvider
from arena.run.match import play_game
from arena.run.sink import QUIET, GameSink
from arena.store.sgf import build_sgf
from gtp.vertex import Colour
from tests.fakes import assert_group_gone

from .fakes import fake_player
from .sinks import Recorded

B, W = Colour.BLACK, Colour.WHITE
BLACK_MOVES = "--moves=D4,E4,F4,G4,H4"
WHITE_MOVES = "--moves=D6,E6,F6,G6,H6"


def job(black: PlayerConfig, white: PlayerConfig, **settings: object) -> GameJob:
    values: dict[str, object] = {"board_size": 9, "komi": 7.5}
    values.update(settings)
    return GameJob(
        game_id="0_0",
        pairing="0",
        game_number=0,
        black=black,
        white=white,
        settings=GameSettings(**values),  # type: ignore[arg-type]
    )


async def play(job: GameJob, sink: GameSink = QUIET, crash_result: str = "void") -> GameRecord:
    async with trio.open_nursery() as nursery:
        provider = EngineProvider(nursery, stderr="log")
        record = await play_game(job, provider, sink, crash_result=crash_result)
        await provider.close_all()
    return record


# (black args, white args, black settings, game settings, crash_result) -> (sgf, end, reason part)
CASES = [
    pytest.param(
        [BLACK_MOVES],
        [WHITE_MOVES, "--crash-at=2"],
        {},
        {},
        "forfeit",
        ("B+F", EndReason.FORFEIT, "exited with status 3"),
        id="crash-as-forfeit",
    ),
    pytest.param(
        [BLACK_MOVES, "--hang-at=2"],
        [WHITE_MOVES],
        {"move_timeout": 0.5},
        {},
        "void",
        ("W+T", EndReason.TIME, "a (black) did not answer 'genmove b' within 0.5s"),
        id="hang-loses-on-time",
    ),
    pytest.param(
        [BLACK_MOVES],
        ["--moves=D6,D4"],
        {},
        {},
        "void",
        ("B+F", EndReason.FORFEIT, "white attempted move to occupied point D4"),
        id="occupied",
    ),
    pytest.param(
        ["--moves=D6,C5,D4,A1,E5"],
        ["--moves=E6,D5,F5,E4,D5"],
        {},
        {},
        "void",
        ("B+F", EndReason.FORFEIT, "white attempted move to ko-forbidden point D5"),
        id="ko",
    ),
    pytest.param(
        [BLACK_MOVES, "--answer-at=3:Z99"],
        [WHITE_MOVES],
        {},
        {},
        "void",
        ("W+F", EndReason.FORFEIT, "black attempted ill-formed move 'Z99'"),
        id="ill-formed",
    ),
    pytest.param(
        [BLACK_MOVES, "--answer-at=2:%$# no move here"],
        [WHITE_MOVES],
        {},
        {},
        "void",
        ("W+F", EndReason.FORFEIT, "black attempted ill-formed move '%$# no move here'"),
        id="garbage-answer",
    ),
    pytest.param(
        [BLACK_MOVES, "--fail=genmove:cannot generate move"],
        [WHITE_MOVES],
        {},
        {},
        "void",
        ("W+F", EndReason.FORFEIT, "a (black) failed 'genmove b': cannot generate move"),
        id="genmove-failure",
    ),
    pytest.param(
        [BLACK_MOVES],
        [WHITE_MOVES, "--reject-play-at=2:illegal move"],
        {},
        {},
        "void",
        ("W+F", EndReason.FORFEIT, "white rejected black's move as illegal"),
        id="opponent-says-illegal",
    ),
    pytest.param(
        [BLACK_MOVES],
        [WHITE_MOVES, "--reject-play-at=2:out of memory"],
        {},
        {},
        "void",
        ("B+F", EndReason.FORFEIT, "white failed to play black's move: 'out of memory'"),
        id="opponent-play-failure",
    ),
    pytest.param(
        [BLACK_MOVES, "--resign-at=3"],
        [WHITE_MOVES],
        {},
        {},
        "void",
        ("W+R", EndReason.RESIGN, "black resigned"),
        id="resign",
    ),
    pytest.param(
        [BLACK_MOVES],
        [WHITE_MOVES],
        {},
        {"move_limit": 7},
        "void",
        ("Void", EndReason.MOVE_LIMIT, "hit move limit (7)"),
        id="move-limit",
    ),
    pytest.param(
        [BLACK_MOVES, "--claim-at=3"],
        [WHITE_MOVES],
        {"allow_claim": True},
        {},
        "void",
        ("B+", EndReason.CLAIM, "black claims a win"),
        id="claim",
    ),
    pytest.param(
        [BLACK_MOVES, "--claim-at=3"],
        [WHITE_MOVES],
        {},
        {},
        "void",
        ("W+F", EndReason.FORFEIT, "black attempted ill-formed move 'claim'"),
        id="claim-not-allowed",
    ),
    pytest.param(
        [BLACK_MOVES],
        [WHITE_MOVES],
        {},
        {"scorer": "internal"},
        "void",
        ("W+7.5", EndReason.SCORE, ""),
        id="internal-score",
    ),
    pytest.param(
        [BLACK_MOVES, "--score=B+3"],
        [WHITE_MOVES, "--score=B+3"],
        {},
        {},
        "void",
        ("B+3", EndReason.SCORE, ""),
        id="players-agree",
    ),
    pytest.param(
        [BLACK_MOVES, "--score=B+3"],
        [WHITE_MOVES, "--score=W+1"],
        {},
        {},
        "void",
        ("?", EndReason.UNKNOWN, "players disagreed about the winner"),
        id="players-disagree",
    ),
    pytest.param(
        [BLACK_MOVES, "--score=B+3"],
        [WHITE_MOVES, "--score=W+1"],
        {"is_reliable_scorer": False},
        {},
        "void",
        ("W+1", EndReason.SCORE, ""),
        id="unreliable-scorer-not-asked",
    ),
    pytest.param(
        [BLACK_MOVES],
        [WHITE_MOVES],
        {},
        {},
        "void",
        ("?", EndReason.UNKNOWN, "no score reported"),
        id="nobody-scores",
    ),
]


@pytest.mark.parametrize(
    ("black_args", "white_args", "black_settings", "settings", "crash_result", "expected"), CASES
)
async def test_fault_paths_become_results(
    black_args: list[str],
    white_args: list[str],
    black_settings: dict[str, object],
    settings: dict[str, object],
    crash_result: str,
    expected: tuple[str, EndReason, str],
) -> None:
    black = fake_player("a", *black_args, **black_settings)
    white = fake_player("b", *white_args)
    record = await play(job(black, white, **settings), crash_result=crash_result)
    assert record.result is not None, record.void_reason
    sgf_result, end, reason = expected
    assert (record.result.sgf_result, record.result.end) == (sgf_result, end)
    assert reason in record.result.reason


@pytest.mark.parametrize(
    ("black_args", "white_args", "reason"),
    [
        ([BLACK_MOVES], [WHITE_MOVES, "--crash-at=2"], "b (white): exited with status 3"),
        ([BLACK_MOVES, "--garbage-at=2"], [WHITE_MOVES], "isn't speaking GTP"),
        (
            [BLACK_MOVES, "--fail=boardsize:unacceptable size"],
            [WHITE_MOVES],
            "rejected 'boardsize 9'",
        ),
        ([BLACK_MOVES], [WHITE_MOVES, "--fail=komi:no"], "b (white) rejected 'komi 7.5': no"),
    ],
)
async def test_crashes_protocol_errors_and_setup_failures_void_the_game(
    black_args: list[str], white_args: list[str], reason: str
) -> None:
    record = await play(job(fake_player("a", *black_args), fake_player("b", *white_args)))
    assert record.result is None
    assert record.void_reason is not None and reason in record.void_reason


@pytest.mark.parametrize(
    "white_args",
    [
        ["--fail=boardsize:unacceptable size"],
        ["--fail=clear_board:no"],
        ["--fail=komi:no"],
        ["--fail=boardsize:a", "--fail=komi:b"],
        ["--crash-on=clear_board"],
        ["--crash-on=komi"],
    ],
)
async def test_setup_in_one_write_fails_as_one_command_at_a_time(white_args: list[str]) -> None:
    """The setup commands go in one write, with or without a command timeout: a refusal or a crash
    voids the game with the same reason as when they go one at a time."""
    reasons = []
    for limits in ({}, {"command_timeout": None}):
        black = fake_player("a", BLACK_MOVES, **limits)
        white = fake_player("b", WHITE_MOVES, *white_args, **limits)
        sink = Recorded(traffic=True)
        record = await play(job(black, white), sink)
        assert record.result is None
        reasons.append(record.void_reason)
        sent = [line.split(" >> ")[1] for line in sink.traffic if line.startswith("a (black) >> ")]
        setup = ["boardsize 9", "clear_board", "komi 7.5"]
        assert [line.split(" ", 1)[1] for line in sent[-3:]] == setup
    assert reasons[0] == reasons[1]


async def test_setup_goes_in_one_write_with_or_without_a_command_timeout() -> None:
    sink = Recorded(traffic=True)
    black = fake_player("a", BLACK_MOVES, command_timeout=None)
    record = await play(job(black, fake_player("b", WHITE_MOVES)), sink)
    assert record.result is not None, record.void_reason

    def lines(label: str) -> list[str]:
        # "a (black) >> 4 boardsize 9" -> ">> boardsize 9" (ids dropped)
        words = [
            line.split(" ", 2)[2].split(" ") for line in sink.traffic if line.startswith(label)
        ]
        return [" ".join([w[0], *w[2:]]) if w[0] == ">>" else " ".join(w) for w in words]

    for label in ("a (black)", "b (white)"):  # white has the default command timeout
        sent = lines(label)
        setup = sent.index(">> boardsize 9")
        assert sent[setup : setup + 3] == [">> boardsize 9", ">> clear_board", ">> komi 7.5"]


async def test_a_missing_engine_voids_the_game() -> None:
    missing = PlayerConfig("gone", ("/nonexistent/engine",))
    record = await play(job(fake_player("a", BLACK_MOVES), missing))
    assert record.result is None
    assert "No such file or directory" in (record.void_reason or "")


async def test_moves_comments_names_descriptions_and_cpu_reach_the_record() -> None:
    black = fake_player(
        "a", BLACK_MOVES, "--explain", "--describe=Fake A, seed 7", "--cpu-time=1.5", "--name=FakeA"
    )
    white = fake_player("b", WHITE_MOVES, "--version=")
    record = await play(job(black, white, scorer="internal"))
    assert record.result is not None
    assert [m.move.to_gtp(9) for m in record.moves[:4]] == ["D4", "D6", "E4", "E6"]
    assert record.moves[0].comment == "thinking about move 1"
    assert record.moves[1].comment == ""
    assert record.player_names == ("FakeA:1.0", "fake")
    assert record.descriptions == ("Fake A, seed 7", "fake")
    assert record.result.cpu_black == 1.5
    assert record.result.cpu_white is not None  # from the process's rusage
    assert record.result.moves == len(record.moves) == 12  # 5 + 5 moves, then two passes


async def test_an_engine_name_of_two_lines_gives_its_first_line_to_the_record() -> None:
    black = fake_player("a", BLACK_MOVES, "--name=First line\nsecond line", "--version=1.0\nbeta")
    record = await play(job(black, fake_player("b", WHITE_MOVES), scorer="internal"))
    assert record.player_names == ("First line:1.0", "fake:1.0")
    root = sgf.Sgf_game.from_bytes(build_sgf(record)).get_root()
    assert root.get("PB") == "First line:1.0"


async def test_sgf_player_names_can_be_the_player_codes() -> None:
    black = fake_player("a", BLACK_MOVES, sgf_player_name_from_gtp=False)
    record = await play(job(black, fake_player("b", WHITE_MOVES), scorer="internal"))
    assert record.player_names == ("a", "fake:1.0")


@pytest.mark.parametrize(
    ("style", "white_args", "stones"),
    [("fixed", [], 3), ("free", [], 3)],
)
async def test_handicap_stones_are_placed(style: str, white_args: list[str], stones: int) -> None:
    game = job(
        fake_player("a", "--moves=A1"),
        fake_player("b", "--moves=J9", *white_args),
        handicap=stones,
        handicap_style=style,
        scorer="internal",
        komi=0.5,
    )
    record = await play(game)
    assert record.result is not None
    assert len(record.handicap_stones) == stones
    assert record.moves[0].colour is W  # White moves first after handicap


async def test_a_wrong_fixed_handicap_answer_voids_the_game() -> None:
    # An engine that answers fixed_handicap with other points
    white = fake_player("b", "--fail=fixed_handicap:invalid handicap")
    record = await play(job(fake_player("a"), white, handicap=2))
    assert record.result is None
    assert "rejected 'fixed_handicap 2'" in (record.void_reason or "")


async def test_huge_stderr_does_not_disturb_the_game_and_the_log_is_bounded() -> None:
    sink = Recorded()
    quiet = await play(
        job(fake_player("a", BLACK_MOVES), fake_player("b", WHITE_MOVES), scorer="internal")
    )
    noisy = await play(
        job(
            fake_player("a", BLACK_MOVES, "--stderr-per-move=1000000"),
            fake_player("b", WHITE_MOVES),
            scorer="internal",
        ),
        sink,
    )
    lines = [line for _, line in sink.stderr]
    assert noisy.result is not None and quiet.result is not None
    unmeasured = {"cpu_black": None, "cpu_white": None, "times_black": None, "times_white": None}
    assert attrs.evolve(noisy.result, **unmeasured) == attrs.evolve(quiet.result, **unmeasured)
    assert sum(len(line) + 1 for line in lines) <= STDERR_LOG_CAP
    assert any("bytes of stderr from a not logged" in note for note in noisy.notes)


async def test_gtp_traffic_is_logged_from_the_first_command() -> None:
    sink = Recorded(traffic=True)
    await play(
        job(fake_player("a", BLACK_MOVES), fake_player("b", WHITE_MOVES, "--resign-at=1")), sink
    )
    lines = sink.traffic
    assert lines[0] == "a (black) >> 1 list_commands"
    assert "a (black) >> 7 genmove b" in lines
    assert "b (white) << =8 resign" in lines


async def test_engines_are_reused_between_games_when_asked(tmp_path: object) -> None:
    from pathlib import Path

    env_file = Path(str(tmp_path)) / "env"
    black = fake_player("a", BLACK_MOVES, f"--env-file={env_file}")
    white = fake_player("b", WHITE_MOVES, f"--env-file={env_file}")
    async with trio.open_nursery() as nursery:
        provider = EngineProvider(nursery, reuse=True, slot=1)
        records = [
            await play_game(job(black, white, scorer="internal"), provider) for _ in range(3)
        ]
        await provider.close_all()
    assert [r.result.sgf_result for r in records if r.result] == ["W+7.5"] * 3
    # Two engine processes for three games, started with the first game's id and the slot.
    lines = [" ".join(line.split()[:2]) for line in env_file.read_text().splitlines()]
    assert lines == ["0_0 1", "0_0 1"]
    assert all(r.result and r.result.cpu_black is not None for r in records)


async def test_later_engines_of_a_player_are_only_asked_for_their_description() -> None:
    black = fake_player("a", BLACK_MOVES, "--name=FakeA", "--describe=Fake A, seed 7")
    white = fake_player("b", WHITE_MOVES, "--version=2.5")
    logs = [Recorded(traffic=True), Recorded(traffic=True)]
    async with trio.open_nursery() as nursery:
        provider = EngineProvider(nursery, stderr="log")  # new engines for every game
        records = [
            await play_game(job(black, white, scorer="internal"), provider, log) for log in logs
        ]
        await provider.close_all()
    for record in records:
        assert record.result is not None
        assert record.player_names == ("FakeA:1.0", "fake:2.5")
        assert record.descriptions == ("Fake A, seed 7", "fake:2.5")

    def sent(log: Recorded) -> list[str]:
        return [line for line in log.traffic if " >> " in line][:4]

    assert sent(logs[0]) == [
        "a (black) >> 1 list_commands",
        "a (black) >> 2 name",
        "a (black) >> 3 version",
        "a (black) >> 4 gomill-describe_engine",
    ]
    # The second game's engines are new processes: only the description is asked again.
    assert sent(logs[1]) == [
        "a (black) >> 1 gomill-describe_engine",
        "a (black) >> 2 boardsize 9",
        "a (black) >> 3 clear_board",
        "a (black) >> 4 komi 7.5",
    ]


async def test_cancelling_the_engines_nursery_stops_the_engines_kept_for_reuse() -> None:
    groups: list[tuple[int, bool]] = []
    black = fake_player("a", BLACK_MOVES)
    white = fake_player("b", WHITE_MOVES)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            provider = EngineProvider(
                nursery, reuse=True, watch=lambda pgid, running: groups.append((pgid, running))
            )
            record = await play_game(job(black, white, scorer="internal"), provider)
            nursery.cancel_scope.cancel()  # both engines are idle, kept for a next game
    assert record.result is not None
    started = [pgid for pgid, running in groups if running]
    assert len(started) == 2
    # The watchdog is told when each group is gone, and nothing of them is left.
    assert sorted(pgid for pgid, running in groups if not running) == sorted(started)
    for pgid in started:
        await assert_group_gone(pgid)


@pytest.mark.parametrize(
    "limits",
    [{"move_timeout": 30}, {"command_timeout": None}],
    ids=["genmove-limited", "no-limits"],
)
@pytest.mark.parametrize(
    ("failure", "expected"),
    [
        ("illegal move", ("W+F", "white rejected black's move as illegal")),
        ("out of memory", ("B+F", "white failed to play black's move: 'out of memory'")),
    ],
)
async def test_a_play_refused_in_one_write_with_the_genmove_ends_the_game_as_alone(
    failure: str, expected: tuple[str, str], limits: dict[str, object]
) -> None:
    """With a time limit on genmove, or no limit on either command, a move's play goes
    with the next genmove in one write."""
    black = fake_player("a", BLACK_MOVES, **limits)
    white = fake_player("b", WHITE_MOVES, f"--reject-play-at=2:{failure}", **limits)
    sink = Recorded(traffic=True)
    record = await play(job(black, white), sink)
    assert record.result is not None, record.void_reason
    sgf_result, reason = expected
    assert record.result.sgf_result == sgf_result
    assert reason in record.result.reason
    white_lines = [line.split(" ", 2)[2] for line in sink.traffic if line.startswith("b (white)")]
    plays = [
        n for n, line in enumerate(white_lines) if line.startswith(">> ") and " play b " in line
    ]
    assert len(plays) == 2
    for n in plays:  # both sent before the play's answer came
        assert white_lines[n + 1].startswith(">> ") and " genmove w" in white_lines[n + 1]


async def test_a_play_goes_with_a_genmove_without_a_limit_and_keeps_its_own() -> None:
    """The play and an unlimited genmove share a write; the play keeps its command timeout."""
    sink = Recorded(traffic=True)
    record = await play(job(fake_player("a", BLACK_MOVES), fake_player("b", WHITE_MOVES)), sink)
    assert record.result is not None, record.void_reason
    white_lines = [line.split(" ", 2)[2] for line in sink.traffic if line.startswith("b (white)")]
    plays = [
        n for n, line in enumerate(white_lines) if line.startswith(">> ") and " play b " in line
    ]
    assert plays
    for n in plays:  # both written before the play's answer is read
        assert white_lines[n + 1].startswith(">> ") and " genmove w" in white_lines[n + 1]


async def test_a_hung_play_before_an_unlimited_genmove_times_out_on_the_command_timeout() -> None:
    # 2 s: the engine's setup answers have the same limit, and must not miss it under load
    black = fake_player("a", BLACK_MOVES, "--hang-on=play", command_timeout=2.0)
    with trio.fail_after(60):
        record = await play(job(black, fake_player("b", WHITE_MOVES)))
    assert record.result is not None
    assert (record.result.sgf_result, record.result.end) == ("W+T", EndReason.TIME)
    assert "did not answer 'play w" in record.result.reason
    assert "within 2s" in record.result.reason
