"""Time per move in the HTML report of a real run under a byo-yomi clock.

Engines that think a share of what their clock allows (benchmarks/
clocked_engine.py) play through ``arena run``: most of their moves are made
in overtime, where the record's BL/WL show the period's time left (full again
after each move), not what the move took.  The page's figures must be what
the clock charged for every move, main time and overtime alike; checked
against each engine's own measure of its thinking, which it writes into the
record's move comments (``think_ns=N``) and which the arena's charge exceeds
only by the pipe's latency.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from sgfmill import sgf

from arena.reports.history import load_history
from arena.reports.series import player_records
from arena.results import GameResult
from arena.store.files import CompetitionFiles
from tests.report_runs import arena, clocked_control

LATENCY = 0.03  # seconds the arena's charge may exceed the engine's own figure, on average


def engine_thinks(files: CompetitionFiles, results: Sequence[GameResult]) -> dict[str, list[float]]:
    """Each player's own think times (seconds), move by move, from the records' comments."""
    thinks: dict[str, list[float]] = defaultdict(list)
    overtime = 0
    for result in results:
        game = sgf.Sgf_game.from_bytes(files.sgf_path(result.game_id).read_bytes())
        players = {"b": result.black, "w": result.white}
        for node in game.get_main_sequence()[1:]:
            colour, _ = node.get_move()
            if colour is None:
                continue
            found = re.search(r"think_ns=(\d+)", node.get("C") if node.has_property("C") else "")
            if found is None:
                continue  # the move that lost on time: no answer, no comment
            thinks[players[colour]].append(int(found.group(1)) / 1e9)
            overtime += node.has_property("OB" if colour == "b" else "OW")
    total = sum(len(v) for v in thinks.values())
    assert overtime > total / 2, "most moves should be made in overtime"
    return thinks


def test_time_per_move_is_what_the_clock_charged_in_overtime_too(tmp_path: Path) -> None:
    ctl = clocked_control(tmp_path, games=4)
    run = arena("run", str(ctl), "-j", "2", "-q")
    assert run.returncode == 0, run.stderr
    report = arena("report", str(ctl), "--html", "-q")
    assert report.returncode == 0, report.stderr
    files = CompetitionFiles.for_control_file(ctl)
    page = files.html_report.read_text(encoding="utf-8")
    results = load_history(files).results
    thinks = engine_thinks(files, results)
    for matchup in ("0", "1"):
        games = [r for r in results if r.game_id.startswith(f"{matchup}_")]
        figure = page[page.index(f'id="fig-time-{matchup}"') :]
        texts = re.findall(r"<text[^>]*>([^<]*)</text>", figure[: figure.index("</figure>")])
        rows = [t for t in texts if t.startswith("mean ")]
        assert len(rows) == 2, texts
        for record in player_records(games):
            match = [t for t in rows if f"{record.moves} moves in {len(games)} games" in t]
            assert record.mean is not None and len(match) >= 1, (record, rows)
            assert f"mean {1000 * record.mean:.0f} ms" in " ".join(match)
    # Over the whole run: every answered move counted, at what the engine took plus latency.
    for record in player_records(results):
        own = thinks[record.label]
        assert record.moves == len(own)
        assert record.mean is not None
        engine_mean = sum(own) / len(own)
        assert engine_mean <= record.mean <= engine_mean + LATENCY, (record, engine_mean)
        # Each think is 30% of what the clock allowed: 0.3 * 2 * 0.2 s in overtime.
        assert 0.11 <= engine_mean <= 0.25
    # Losses on time are their own column, apart from forfeits.
    players = page[page.index('id="players"') :]
    assert '<td class="name">late</td><td>2</td><td>0</td><td>2</td>' in players
    assert '<td class="name">a</td><td>6</td><td>0</td><td>0</td>' in players
