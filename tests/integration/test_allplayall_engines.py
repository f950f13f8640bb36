"""A real all-play-all: the sample engine at two strengths and the random engine, 7x7.

The games are played by real engine processes through the ``arena`` command,
then the grid, the report, the ratings and the export are checked against the
SGF files read back from disk with sgfmill.
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

from sgfmill import sgf

from arena.competitions.matchstats import format_elo, format_elo_interval
from arena.stats.ratings import bradley_terry, tally_pairings
from arena.store.files import CompetitionFiles

COMPETITORS = ["mcts-weak", "mcts-strong", "random"]


def control_file(directory: Path, competitors: list[str]) -> Path:
    ctl = directory / "tri.ctl"
    mcts = [sys.executable, "-m", "engines.mcts", "--seed", "7", "--playouts"]
    ctl.write_text(
        "competition_type = 'allplayall'\n"
        "players = {\n"
        f"  'mcts-weak': Player({[*mcts, '20']!r}, allow_claim=True,"
        " sgf_player_name_from_gtp=False, move_timeout=60),\n"
        f"  'mcts-strong': Player({[*mcts, '120']!r}, allow_claim=True,"
        " sgf_player_name_from_gtp=False, move_timeout=60),\n"
        f"  'random': Player({[sys.executable, '-m', 'engines.random', '--seed', '3']!r},"
        " sgf_player_name_from_gtp=False, move_timeout=10),\n"
        f"  'random2': Player({[sys.executable, '-m', 'engines.random']!r}),\n"
        "}\n"
        "board_size = 7\nkomi = 7.5\nscorer = 'internal'\nmove_limit = 200\nrounds = 2\n"
        f"competitors = {competitors!r}\n"
    )
    return ctl


def arena(*words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["arena", *words], capture_output=True, text=True, check=False)


def sgf_results(files: CompetitionFiles) -> dict[str, tuple[str, str, str]]:
    """game id -> (black code, white code, RE) from the SGF files on disk."""
    games = {}
    for path in sorted(files.games_dir.glob("*.sgf")):
        root = sgf.Sgf_game.from_bytes(path.read_bytes()).get_root()
        assert root.get("GN") == path.stem
        assert root.get("SZ") == 7
        games[path.stem] = (root.get("PB"), root.get("PW"), root.get("RE"))
    return games


def score(black: str, white: str, re: str, player: str) -> float | None:
    if re == "0":
        return 0.5
    if re[:2] not in ("B+", "W+"):
        return None
    winner = black if re[0] == "B" else white
    return 1.0 if winner == player else 0.0


def test_three_player_allplayall_agrees_with_its_sgf_files(tmp_path: Path) -> None:
    ctl = control_file(tmp_path, COMPETITORS)
    run = arena("run", str(ctl), "--parallel", "2")
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "competition complete"
    files = CompetitionFiles.for_control_file(ctl)
    games = sgf_results(files)

    # Ids and colours: AvB_0 has A black, AvB_1 has B black, and so on.
    letters = dict(zip("ABC", COMPETITORS, strict=True))
    expected_ids = {f"{x}v{y}_{n}" for x, y in ("AB", "AC", "BC") for n in (0, 1)}
    assert set(games) == expected_ids
    for game_id, (black, white, _) in games.items():
        first, second = letters[game_id[0]], letters[game_id[2]]
        assert (black, white) == ((first, second) if game_id.endswith("_0") else (second, first))

    # What the SGF files say.
    cells: dict[tuple[str, str], float] = defaultdict(float)
    points: dict[str, float] = defaultdict(float)
    played: Counter[str] = Counter()
    scored = []
    for black, white, re in games.values():
        for player, opponent in ((black, white), (white, black)):
            value = score(black, white, re, player)
            if value is not None:
                cells[player, opponent] += value
                points[player] += value
                played[player] += 1
        scored.append((black, white, score(black, white, re, black)))

    shown = arena("show", str(ctl))
    assert shown.returncode == 0, shown.stderr
    report = files.report.read_text()
    assert shown.stdout == report  # the run's final report is what show prints
    lines = report.splitlines()

    # The grid: each row is the row player's wins-losses against each other competitor.
    grid_top = lines.index("allplayall: tri") + 4
    assert lines[grid_top].split() == ["A", "B", "C"]
    for row, (letter, code) in enumerate(letters.items()):
        words = lines[grid_top + 1 + row].split()
        assert words[:2] == [letter, code]
        expected = [
            f"{cells[code, other]:g}-{cells[other, code]:g}"
            for other in COMPETITORS
            if other != code and (cells[code, other] + cells[other, code]) > 0
        ]
        assert words[2:] == expected

    # The ratings: games and points per player, and the Bradley-Terry fit of the SGF results.
    ratings = bradley_terry(COMPETITORS, tally_pairings(scored))
    title = lines.index(
        "ratings (Bradley-Terry, mcts-weak = 0, 95% intervals; a jigo is half a point)"
    )
    for row, (letter, code) in enumerate(letters.items()):
        line = lines[title + 2 + row]
        words = line.split()
        assert words[:4] == [letter, code, str(played[code]), f"{points[code]:g}"]
        elo = ratings[code].elo
        assert elo is not None
        shown_elo = format_elo(0.0) if code == "mcts-weak" else format_elo_interval(elo)
        assert line.endswith(shown_elo)
    by_points = sorted(COMPETITORS, key=lambda code: points[code])
    by_rating = sorted(COMPETITORS, key=lambda code: ratings[code].elo.value)  # type: ignore[union-attr]
    assert [points[c] for c in by_points] == [points[c] for c in by_rating]

    # Every pairing's section, with its figures.
    for x, y in ("AB", "AC", "BC"):
        assert f"{x}v{y}: {letters[x]} v {letters[y]} (2/2 games)" in report
        assert f"{letters[x]} v {letters[y]}: Elo " in report

    # The export has the same games, colours and results.
    exported = arena("export", str(ctl))
    assert exported.returncode == 0, exported.stderr
    rows = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert {r["game_id"]: (r["black"], r["white"], r["result"]) for r in rows} == games
    assert all(float(r["cpu_black"]) >= 0 for r in rows if r["cpu_black"])

    # Between runs: a competitor may be added at the end, not inserted elsewhere.
    control_file(tmp_path, [*COMPETITORS, "random2"])
    grown = arena("show", str(ctl))
    assert grown.returncode == 0, grown.stderr
    assert "AvD: mcts-weak v random2 (0/2 games)" in grown.stdout
    assert "D random2" in grown.stdout
    control_file(tmp_path, ["random2", *COMPETITORS])
    refused = arena("run", str(ctl))
    assert refused.returncode == 1
    assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
    assert "competitors were mcts-weak, mcts-strong, random in earlier runs" in refused.stderr
