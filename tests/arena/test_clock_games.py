"""Games under a clock, with real engine processes that think by it or overrun it on purpose."""

from __future__ import annotations

import re

import attrs
import pytest
import trio
from sgfmill import sgf

from arena.control.settings import GameSettings, PlayerConfig
from arena.control.timecontrol import TimeControl
from arena.results import EndReason, GameJob, GameRecord
from arena.run.engines import EngineProvider, check_player
from arena.run.game import Game
from arena.run.match import play_game
from arena.run.sink import QUIET, GameSink, LiveGame
from arena.store.sgf import build_sgf
from gtp.vertex import Colour, Move

from .fakes import clocked_player
from .sinks import Recorded

B, W = Colour.BLACK, Colour.WHITE
MARGIN = 0.05


def job(
    black: PlayerConfig,
    white: PlayerConfig,
    control: TimeControl | None,
    *,
    size: int = 9,
    move_limit: int = 1000,
) -> GameJob:
    settings = GameSettings(
        board_size=size,
        komi=7.5,
        scorer="internal",
        move_limit=move_limit,
        time_control=control,
        time_margin=MARGIN,
    )
    return GameJob("0_0", "0", 0, black, white, settings)


async def play_once(job: GameJob, sink: GameSink = QUIET) -> GameRecord:
    async with trio.open_nursery() as nursery:
        provider = EngineProvider(nursery, stderr="discard")
        record = await play_game(job, provider, sink)
        await provider.close_all()
    return record


async def play(job: GameJob, tries: int = 6) -> GameRecord:
    """The game as a run counts it: replayed while the machine stalls its clock.

    On a busy machine a move may overrun because the arena or the engine
    waited for a CPU; such a game is void (arena.run.stalls) and a run plays
    it again.  Only a stall explains a void here, and the stall must cover the
    whole overrun of the move it names.
    """
    for _ in range(tries):
        record = await play_once(job)
        if record.stall is None:
            return record
        assert record.void_reason is not None and record.void_reason.startswith("clock stalled")
    raise AssertionError(f"the machine stalled the clock in {tries} games in a row")


def sgf_of(record: GameRecord) -> sgf.Sgf_game:
    return sgf.Sgf_game.from_bytes(build_sgf(record))


def waited_and_allowed(reason: str) -> tuple[float, float]:
    """From ``... no answer in 0.160s; its clock allowed 0.100s + ...`` (or ``took 0.160s``).

    The arena stops waiting once the clock and the margin are gone ("no
    answer"); on a busy machine the answer may have come in the moment the
    arena was looking elsewhere, and then it was read, late ("took").
    """
    match = re.search(r"(?:no answer in|took) ([\d.]+)s; its clock allowed ([\d.]+)s", reason)
    assert match is not None, reason
    return float(match.group(1)), float(match.group(2))


BYOYOMI = TimeControl("byoyomi", 0.0, 0.1, periods=1)


@pytest.mark.parametrize("loser", [B, W])
async def test_an_overrun_by_margin_plus_10ms_at_move_k_loses_on_time_at_move_k(
    loser: Colour,
) -> None:
    late = f"--sleep=3:{0.1 + MARGIN + 0.01}"  # its third genmove
    args = {B: ["--share=0.3"], W: ["--share=0.3"]}
    args[loser].append(late)
    record = await play(job(clocked_player("a", *args[B]), clocked_player("b", *args[W]), BYOYOMI))
    result = record.result
    assert result is not None
    assert result.end is EndReason.TIME and result.winner is loser.opponent
    move = 5 if loser is B else 6  # the third genmove of Black, or of White
    assert len(record.moves) == move - 1
    who = "a (black)" if loser is B else "b (white)"
    # The arena stops waiting once the clock and the margin are gone, not before.
    assert result.reason.startswith(f"{who} lost on time at move {move}: "), result.reason
    assert "its clock allowed 0.100s + margin 0.05s (byo-yomi 0s + 1x0.1s)" in result.reason
    waited, _ = waited_and_allowed(result.reason)
    assert waited >= 0.1 + MARGIN
    root = sgf_of(record).get_root()
    assert root.get("RE") == ("W+T" if loser is B else "B+T")


@pytest.mark.parametrize(
    "control",
    [
        pytest.param(TimeControl("byoyomi", 0.0, 0.01, periods=1), id="byoyomi"),
        pytest.param(TimeControl("fischer", 0.05, increment=0.01), id="fischer"),
        pytest.param(TimeControl("canadian", 0.05, 0.05, stones=4), id="canadian"),
    ],
)
async def test_always_using_90_percent_of_the_allowance_never_loses(control: TimeControl) -> None:
    record = await play(
        job(clocked_player("a"), clocked_player("b"), control, size=19, move_limit=200)
    )
    result = record.result
    assert result is not None
    assert (result.end, result.moves) == (EndReason.MOVE_LIMIT, 200), result.reason
    for colour in (B, W):
        times = result.times(colour)
        assert times is not None and times.moves == 100
    # Every move under the clock has what was left on it, as the SGF shows it.
    assert all(m.time_left is not None for m in record.moves)
    nodes = sgf_of(record).get_main_sequence()[1:]
    assert all(node.has_property("BL") or node.has_property("WL") for node in nodes)


@pytest.mark.parametrize("flag", ["--deaf", "--refuse"])
async def test_an_engine_that_ignores_every_time_command_is_still_clocked(flag: str) -> None:
    per_move = TimeControl("per_move", period_time=0.1)
    record = await play(
        job(
            clocked_player("a", flag, "--think=0.01", "--sleep=4:0.3"),
            clocked_player("b"),
            per_move,
        )
    )
    result = record.result
    assert result is not None
    assert (result.end, result.winner) == (EndReason.TIME, W)
    assert result.reason.startswith("a (black) lost on time at move 7: "), result.reason
    assert waited_and_allowed(result.reason) >= (0.1 + MARGIN, 0.1)
    # Until then each of its moves was charged and the clock shown.
    black_moves = [m for m in record.moves if m.colour is B]
    assert len(black_moves) == 3
    assert all(m.seconds is not None and m.time_left == 0.1 for m in black_moves)
    refused = [n for n in record.notes if "refused" in n]
    assert bool(refused) == (flag == "--refuse")
    unlisted = [n for n in record.notes if "does not list" in n]
    if flag == "--deaf":  # noted as refusals are
        assert unlisted == [
            "a (black) does not list a time settings command or time_left"
            " (its clock runs all the same)"
        ]
    else:
        assert unlisted == []


@pytest.mark.parametrize("loser", [B, W])
async def test_sleeping_past_the_whole_main_time_loses_with_the_reason(loser: Colour) -> None:
    absolute = TimeControl("absolute", 0.5)
    args = {B: ["--think=0.01", "--share=0.02"], W: ["--think=0.01", "--share=0.02"]}
    args[loser].append("--sleep=6:0.8")
    record = await play(job(clocked_player("a", *args[B]), clocked_player("b", *args[W]), absolute))
    result = record.result
    assert result is not None
    assert (result.end, result.winner) == (EndReason.TIME, loser.opponent)
    move = 11 if loser is B else 12
    who = "a (black)" if loser is B else "b (white)"
    reason = result.reason
    assert reason.startswith(f"{who} lost on time at move {move}: "), reason
    assert "+ margin 0.05s (absolute 0.5s)" in reason
    waited, allowed = waited_and_allowed(reason)
    # What its five earlier moves left of the main time, to the millisecond.
    spent = sum(m.seconds or 0.0 for m in record.moves if m.colour is loser)
    assert allowed == pytest.approx(0.5 - spent, abs=0.0011)
    assert waited >= allowed + MARGIN
    game = sgf_of(record)
    root = game.get_root()
    assert root.get("RE") == ("W+T" if loser is B else "B+T")
    assert root.get("TM") == 0.5
    last = game.get_main_sequence()[-1]
    assert reason in last.get("C")


async def test_the_clock_is_told_to_the_engine_and_recorded() -> None:
    canadian = TimeControl("canadian", 0.2, 0.3, stones=2)
    record = await play(
        job(clocked_player("a", "--share=0.1"), clocked_player("b", "--share=0.1"), canadian)
    )
    assert record.result is not None and record.result.end is EndReason.SCORE
    game = sgf_of(record)
    root = game.get_root()
    assert (root.get("TM"), root.get("OT")) == (0.2, "2/0.3 canadian")
    assert "Time: canadian 0.2s + 0.3s per 2 stones (margin 0.05s)" in root.get("C")
    moves = game.get_main_sequence()[1:]
    # Main time, then Canadian periods: stones left counted down in OB/OW.
    first = moves[0]
    assert first.get("BL") < 0.2 and not first.has_property("OB")
    overtime = [n.get("OB") for n in moves if n.has_property("OB")]
    assert overtime and set(overtime) <= {1, 2}
    assert record.latency is not None and record.latency.commands > len(record.moves)


async def test_fischer_is_kept_by_the_arena_for_an_engine_without_kata_time_settings() -> None:
    """GTP's time_settings as an absolute main time, then before each move time_left
    with what the arena's clock shows, the increments added: the engine sees them."""
    fischer = TimeControl("fischer", 0.5, increment=0.1)
    settings = GameSettings(board_size=9, komi=7.5, time_control=fischer)
    plain = clocked_player("a", "--plain-time", "--share=0.2")
    await check_player(plain, settings)  # nothing more is required of it
    sink = Recorded(traffic=True)
    record = await play_once(
        job(plain, clocked_player("b", "--share=0.2"), fischer, move_limit=20), sink
    )
    traffic = sink.traffic
    assert record.result is not None and record.result.end is EndReason.MOVE_LIMIT, record
    sent = [
        " ".join(w for i, w in enumerate(line.split(">> ", 1)[1].split()) if i or not w.isdigit())
        for line in traffic
        if line.startswith("a (black) >> ")
    ]  # without the command ids
    assert "time_settings 0.5 0 0" in sent
    told = [float(line.split()[2]) for line in sent if line.startswith("time_left b ")]
    black = [m for m in record.moves if m.colour is B]
    assert len(told) == len(black) == 10
    assert told[0] == 0.5
    # Before each later move, what the clock showed after the one before (ms, rounded down).
    for before, previous in zip(told[1:], black, strict=False):
        assert previous.time_left is not None
        assert before == pytest.approx(int(previous.time_left * 1000) / 1000, abs=1e-9)
    # Each move's clock: what was left, less the move's time, plus the increment.
    for told_before, move in zip(told, black, strict=True):
        assert move.seconds is not None and move.time_left is not None
        assert move.time_left == pytest.approx(told_before - move.seconds + 0.1, abs=0.0011)


async def test_a_reused_engine_is_told_there_is_no_clock_after_a_clocked_game() -> None:
    sink = Recorded(traffic=True)
    traffic = sink.traffic
    a, b = clocked_player("a", "--share=0.1"), clocked_player("b", "--share=0.1")
    clocked = job(a, b, TimeControl("byoyomi", 5, 1, periods=1), move_limit=6)
    free = attrs.evolve(job(a, b, None, move_limit=6), game_id="0_1", game_number=1)
    async with trio.open_nursery() as nursery:
        provider = EngineProvider(nursery, stderr="discard", reuse=True)
        await play_game(clocked, provider, sink)
        first_game = len(traffic)
        await play_game(free, provider, sink)
        await provider.close_all()
    sent = [line for line in traffic[first_game:] if ">>" in line]
    resets = [line for line in sent if "time_settings 0 1 0" in line]
    assert len(resets) == 2, sent  # once to each engine
    assert not any("time_left" in line for line in sent)


class Hearing(Recorded):
    """Notes, at each move, whether each engine's client reads the run loop's I/O clock."""

    def __init__(self) -> None:
        super().__init__(moves=True)
        self.heard: list[tuple[bool, bool]] = []

    def move_played(
        self, colour: Colour, move: Move, moves_played: int, game: LiveGame | None = None
    ) -> None:
        super().move_played(colour, move, moves_played, game)
        assert isinstance(game, Game)
        clients = [game.sessions[colour].client for colour in (B, W)]
        heard = [client.hears and client._io is not None for client in clients]
        self.heard.append((heard[0], heard[1]))


async def test_only_a_clock_has_its_engines_clients_read_the_io_clock() -> None:
    a, b = clocked_player("a", "--share=0.1"), clocked_player("b", "--share=0.1")
    clocked = job(a, b, TimeControl("byoyomi", 5, 1, periods=1), move_limit=4)
    free = attrs.evolve(job(a, b, None, move_limit=4), game_id="0_1", game_number=1)
    odds = attrs.evolve(
        job(attrs.evolve(a, time_control=TimeControl("absolute", 30)), b, None, move_limit=4),
        game_id="0_2",
        game_number=2,
    )
    sinks = []
    async with trio.open_nursery() as nursery:
        provider = EngineProvider(nursery, stderr="discard", reuse=True)
        for game_job in (free, clocked, free, odds):  # the engines reused throughout
            sinks.append(sink := Hearing())
            await play_game(attrs.evolve(game_job), provider, sink)
        await provider.close_all()
    assert [set(sink.heard) for sink in sinks] == [
        {(False, False)},
        {(True, True)},
        {(False, False)},
        {(True, False)},
    ]
