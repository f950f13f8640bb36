"""Events are the ringmaster's only output: a subscriber sees a whole real run, in order."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest

from arena.api import run_competition
from arena.events import (
    EngineStderr,
    Event,
    EventBus,
    GameFinished,
    GameStarted,
    MovePlayed,
    RunState,
    RunStateChanged,
    RunWarning,
    SnapshotTaken,
    TreeDump,
    event_from_json,
    event_to_json,
)
from arena.results import ArenaLatency, EndReason, GameResult, MoveTimes
from arena.run.ringmaster import RunOptions
from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, iter_journal
from gtp.vertex import PASS, RESIGN, Colour, Move

from .test_ringmaster import write_competition


async def test_a_subscriber_sees_every_event_of_a_real_run_in_order(tmp_path: Path) -> None:
    config = write_competition(tmp_path, ["--stderr-per-move=200"], games=4)
    files = CompetitionFiles.for_control_file(config.control_path)
    seen: list[Event] = []
    durable_when_announced: list[bool] = []

    def subscriber(event: Event) -> None:
        seen.append(event)
        if isinstance(event, GameFinished):
            # Announced only once durable: its SGF and journal entry are on disk.
            journal = [e.result.game_id for e in iter_journal(files) if isinstance(e, ResultEntry)]
            durable_when_announced.append(
                event.game_id in journal and files.sgf_path(event.game_id).exists()
            )

    bus = EventBus()
    bus.subscribe(subscriber, moves=True)
    options = RunOptions(parallel=2, keyboard=False, handle_signals=False)
    summary = await run_competition(config, options, events=bus)
    assert summary.games_recorded == 4

    assert isinstance(seen[0], SnapshotTaken) and seen[0].snapshot.games_played == 0
    states = [(e.state, e.parallel) for e in seen if isinstance(e, RunStateChanged)]
    assert states == [
        (RunState.CHECKING, None),
        (RunState.RUNNING, 2),
        (RunState.FINISHED, None),
    ]
    assert isinstance(seen[-1], RunStateChanged) and seen[-1].message == "competition complete"
    running_at = next(
        i for i, e in enumerate(seen) if isinstance(e, RunStateChanged) and e.parallel
    )
    assert any(isinstance(e, EngineStderr) for e in seen)

    def where(kind: type, game: str) -> list[int]:
        return [i for i, e in enumerate(seen) if isinstance(e, kind) and e.game_id == game]

    for game in ["0_0", "0_1", "0_2", "0_3"]:
        started, ended = where(GameStarted, game), where(GameFinished, game)
        assert len(started) == 1 and len(ended) == 1
        assert running_at < started[0] < ended[0] < len(seen) - 1
        assert all(started[0] < i < ended[0] for i in where(EngineStderr, game))
        moves = [seen[i].moves_played for i in where(MovePlayed, game)]  # type: ignore[union-attr]
        assert moves and moves == sorted(set(moves)) and moves[0] == 1
    finished = [e for e in seen if isinstance(e, GameFinished)]
    assert durable_when_announced == [True] * 4
    assert all(e.record is not None and e.record.result == e.result for e in finished)
    assert finished[-1].snapshot is not None and finished[-1].snapshot.games_played == 4
    assert all(e.sgf_path == str(files.sgf_path(e.game_id)) for e in finished)
    # X.events holds the same run, readable back as events, with a few of its moves.
    written = [event_from_json(json.loads(line)) for line in files.events.read_text().splitlines()]
    expected = [
        e for e in seen if event_to_json(e) is not None and not isinstance(e, SnapshotTaken)
    ]

    def without_moves(events: list[Event]) -> list[Event]:
        return [e for e in events if not isinstance(e, MovePlayed)]

    # X.events starts after the startup checks.
    assert without_moves(written) == without_moves(expected[1:])
    assert all(e in seen for e in written if isinstance(e, MovePlayed))


RESULT = GameResult("g_1", "a", "b", Colour.WHITE, EndReason.SCORE, 3.5, 120, 1.5, None, "")

ROUND_TRIPS = {
    "running": RunStateChanged(RunState.RUNNING, parallel=4),
    "stopping": RunStateChanged(RunState.STOPPING, "stop requested (Ctrl-X)"),
    "halted": RunStateChanged(RunState.HALTED, "too many void games"),
    "started": GameStarted("g_1", "a", "b", 3),
    "started elsewhere": GameStarted("g_1", "a", "b", 3, "tcp://10.0.0.2:4001"),
    "finished": GameFinished("g_1", "a", "b", RESULT, sgf_path="/x/g_1.sgf"),
    "void": GameFinished("g_2", "b", "a", None, "engine 'a' died"),
    "duplicate": GameFinished("g_1", "a", "b", RESULT, counted=False),
    "clocked": GameFinished(
        "g_3",
        "a",
        "b",
        attrs.evolve(RESULT, times_black=MoveTimes(60, 5.5, 0.25), times_white=MoveTimes(60, 4.0)),
        latency=ArenaLatency(240, 0.012, 0.0031),
    ),
    "stderr": EngineStderr("g_1", "a", "warning: hash full", warning=True),
    "warning": RunWarning("dropped an incomplete last journal line"),
    "tree": TreeDump(("tree after 10 games:", "(0,0) ...")),
    "move": MovePlayed("g_1", Colour.WHITE, Move((2, 6)), 41),
    "pass": MovePlayed("g_1", Colour.BLACK, PASS, 42),
    "resign": MovePlayed("g_1", Colour.WHITE, RESIGN, 43),
}


@pytest.mark.parametrize("event", ROUND_TRIPS.values(), ids=ROUND_TRIPS.keys())
def test_events_round_trip_through_x_events(event: Event) -> None:
    data = event_to_json(event)
    assert data is not None
    assert event_from_json(json.loads(json.dumps(data))) == event


@pytest.mark.parametrize(
    "line",
    [
        "[]",
        '{"event": "nonsense"}',
        '{"event": "game_started", "game_id": 3}',
        '{"event": "run", "state": "dancing"}',
        '{"event": "move", "game_id": "g", "colour": "b", "move": [1], "moves": 3}',
        '{"event": "move", "game_id": "g", "colour": "red", "move": "pass", "moves": 3}',
    ],
)
def test_unreadable_events_raise_value_error(line: str) -> None:
    with pytest.raises(ValueError):
        event_from_json(json.loads(line))
