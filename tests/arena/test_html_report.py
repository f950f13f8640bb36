"""The HTML report without a browser: the series, the pages, the command.

Competitions here are built on disk through the real store (results drawn
from a seeded random stream, recorded by the competition and journalled), so
the page is made from the same files a run leaves.  The browser test
(tests/integration/test_html_report_browser.py) opens pages of real runs.
"""

from __future__ import annotations

import html.parser
import math
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from arena.competitions.loader import load_control_file
from arena.competitions.registry import make_competition
from arena.competitions.snapshots import AllPlayAllSnapshot
from arena.errors import ControlFileError
from arena.reports import plots
from arena.reports.history import load_history
from arena.reports.series import (
    ColourRecord,
    EloSeries,
    by_pairing,
    checkpoints,
    colour_records,
    elo_series,
    player_records,
    ratings_series,
)
from arena.reports.svg import style
from arena.results import EndReason, GameResult, MoveTimes
from arena.stats.elo import WDL, elo_estimate
from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, StateStore, read_state
from arena.store.restore import load_competition
from arena_cli.main import main
from gtp.vertex import Colour

from .fakes import fake_command

# ---------------------------------------------------------------------------
# Each player's losses and time per move, from the journal


def test_player_records_count_forfeits_and_time_losses_apart_and_time_every_move() -> None:
    b_wins, w_wins = Colour.BLACK, Colour.WHITE
    results = [
        # a (black) loses on time; the journal has both players' genmoves.
        GameResult(
            "0_0", "a", "b", w_wins, EndReason.TIME, moves=10,
            times_black=MoveTimes(5, 2.5, 1.5), times_white=MoveTimes(5, 0.5, 0.2),
        ),
        # b (black) loses by forfeit.
        GameResult(
            "0_1", "b", "a", w_wins, EndReason.FORFEIT, moves=3,
            times_black=MoveTimes(2, 0.2, 0.15), times_white=MoveTimes(1, 0.1, 0.1),
        ),
        # A result journalled without times, and a jigo: games, but no time and no loss.
        GameResult("0_2", "a", "b", b_wins, EndReason.RESIGN, moves=4),
        GameResult(
            "0_3", "a", "c", None, EndReason.SCORE, margin=0, moves=2,
            times_black=MoveTimes(1, 0.3, 0.3), times_white=MoveTimes(0, 0.0, 0.0),
        ),
    ]  # fmt: skip
    records = {r.label: r for r in player_records(results)}
    assert list(records) == ["a", "b", "c"]
    a, b, c = records["a"], records["b"], records["c"]
    assert (a.games, a.forfeits, a.time_losses) == (4, 0, 1)
    assert (b.games, b.forfeits, b.time_losses) == (3, 1, 0)
    assert (a.moves, a.longest) == (7, 1.5) and a.total == pytest.approx(2.9)
    assert a.game_means == pytest.approx((0.5, 0.1, 0.3))
    assert a.mean == pytest.approx(2.9 / 7)
    assert (b.moves, b.mean) == (7, pytest.approx(0.7 / 7))
    assert (c.games, c.moves, c.mean, c.game_means) == (1, 0, None, ())
    # A tuner's candidates as one row.
    grouped = player_records(results, lambda code: code if code == "a" else "others")
    assert [(r.label, r.games, r.forfeits, r.moves) for r in grouped] == [
        ("a", 4, 0, 7),
        ("others", 4, 1, 7),
    ]


def test_checkpoints_are_spread_and_end_at_the_total() -> None:
    assert checkpoints(0, 10) == []
    assert checkpoints(5, 10) == [1, 2, 3, 4, 5]
    assert checkpoints(1000, 4) == [250, 500, 750, 1000]
    assert len(checkpoints(20_000, 150)) == 150


# ---------------------------------------------------------------------------
# Competitions on disk


def _times(rng: random.Random, moves: int) -> MoveTimes:
    seconds = [rng.uniform(0.05, 0.5) for _ in range(moves)]
    return MoveTimes(moves, sum(seconds), max(seconds, default=0.0))


def _play(
    ctl: Path, games: int, strength: dict[str, float], seed: int = 1, *, timed: bool = False
) -> CompetitionFiles:
    """Record ``games`` seeded results into the competition's store (journal and status).

    ``timed``: each result carries both players' move times, as a run journals
    them, and some games are lost on time or by forfeit.
    """
    config = load_control_file(ctl)
    files = CompetitionFiles.for_control_file(ctl)
    competition = make_competition(config)
    store = StateStore(files, config.competition_type, durable=False)
    store.open()
    rng = random.Random(seed)
    for _ in range(games):
        job = competition.next_job()
        assert job is not None
        black, white = job.black.code, job.white.code
        edge = strength.get(black, 0.0) - strength.get(white, 0.0)
        winner = Colour.BLACK if rng.random() < 1 / (1 + 10 ** (-edge / 400)) else Colour.WHITE
        end = EndReason.RESIGN if rng.random() < 0.5 else EndReason.SCORE
        moves = rng.randint(20, 80)
        times: tuple[MoveTimes | None, MoveTimes | None] = (None, None)
        if timed:
            end = rng.choice([end, end, EndReason.TIME, EndReason.FORFEIT])
            times = (_times(rng, (moves + 1) // 2), _times(rng, moves // 2))
        result = GameResult(
            job.game_id,
            black,
            white,
            winner,
            end,
            margin=3.5 if end is EndReason.SCORE else None,
            moves=moves,
            times_black=times[0],
            times_white=times[1],
        )
        competition.record_result(result, {})
        store.append(ResultEntry(result, {}))
    store.write_status(competition.to_state())
    store.close()
    return files


def playoff_ctl(directory: Path, extra: str = "") -> Path:
    path = directory / "duel.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        "players = {'strong': Player('x'), 'weak': Player('y'), 'other': Player('z')}\n"
        "board_size = 9\nkomi = 7.5\n" + extra + "matchups = [\n"
        "  Matchup('strong', 'weak', alternating=True, number_of_games=40),\n"
        "  Matchup('weak', 'other', alternating=True, id='w_o', number_of_games=20),\n"
        "]\n"
    )
    return path


def allplayall_ctl(directory: Path, competitors: int = 4) -> Path:
    codes = [f"p{i}" for i in range(competitors)]
    path = directory / "league.ctl"
    path.write_text(
        "competition_type = 'allplayall'\n"
        f"players = {{{', '.join(f'{c!r}: Player({c!r})' for c in codes)}}}\n"
        f"board_size = 9\nkomi = 7.5\nrounds = 10\ncompetitors = {codes!r}\n"
    )
    return path


TUNER_PARAMETERS = (
    "Parameter('playouts', scale=LOG(10, 1000, integer=True), split=3, format='p: %d')",
    "Parameter('c', scale=LINEAR(0.2, 1.4), split=4, format='c: %.2f')",
    "Parameter('k', scale=LOG(1, 100), split=2)",
)


def tuner_ctl(directory: Path, parameters: int = 2, max_depth: int = 1) -> Path:
    codes = ["playouts", "c", "k"][:parameters]
    path = directory / "tune.ctl"
    path.write_text(
        "competition_type = 'mc_tuner'\n"
        f"def make_candidate({', '.join(codes)}):\n"
        f"    return Player(['engine', {', '.join(f'str({c})' for c in codes)}])\n"
        "players = {'fixed': Player('fixed')}\n"
        f"parameters = [{', '.join(TUNER_PARAMETERS[:parameters])}]\n"
        "board_size = 9\nkomi = 7.5\nopponent = 'fixed'\ncandidate_colour = 'w'\n"
        "number_of_games = 100\nexploration_coefficient = 0.5\n"
        f"initial_visits = 2\ninitial_wins = 1\nmax_depth = {max_depth}\n"
    )
    return path


def load_snapshot(ctl: Path) -> AllPlayAllSnapshot:
    config = load_control_file(ctl)
    files = CompetitionFiles.for_control_file(ctl)
    snapshot = load_competition(config, read_state(files, config.competition_type)).snapshot()
    assert isinstance(snapshot, AllPlayAllSnapshot)
    return snapshot


class _Ids(html.parser.HTMLParser):
    """Every element id, every figure id, and what the page would fetch."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.figures: list[str] = []
        self.fetches: list[str] = []
        self.tags: Counter[str] = Counter()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        values = dict(attrs)
        if values.get("id"):
            self.ids.append(str(values["id"]))
            if tag == "figure":
                self.figures.append(str(values["id"]))
        for name in ("src", "href", "xlink:href"):
            value = values.get(name)
            if value and not value.startswith(("#", "data:")):
                self.fetches.append(value)


def parse(page: str) -> _Ids:
    parser = _Ids()
    parser.feed(page)
    return parser


def report(ctl: Path) -> tuple[str, _Ids]:
    assert main(["report", str(ctl), "--html", "-q"]) == 0
    page = CompetitionFiles.for_control_file(ctl).html_report.read_text(encoding="utf-8")
    return page, parse(page)


def test_playoff_page_has_each_matchups_plots_and_is_self_contained(tmp_path: Path) -> None:
    ctl = playoff_ctl(tmp_path)
    _play(ctl, 60, {"strong": 200.0})
    page, found = report(ctl)
    assert found.figures == [
        f"fig-{kind}-{matchup}" for matchup in ("0", "w_o") for kind in ("elo", "colour", "length")
    ]
    assert found.tags["svg"] == 6
    # One document: no id twice (each figure's SVG ids carry its prefix).
    assert [i for i, n in Counter(found.ids).items() if n > 1] == []
    assert found.fetches == [] and found.tags["script"] == 0 and found.tags["link"] == 0
    assert not re.search(r"url\((?!#)", page)
    assert "Elo: strong against weak" in page and "Wins by colour" in page
    assert "<title>duel (playoff)</title>" in page


def test_elo_series_ends_at_the_matchups_figure(tmp_path: Path) -> None:
    ctl = playoff_ctl(tmp_path)
    files = _play(ctl, 60, {"strong": 200.0})
    config = load_control_file(ctl)
    competition = make_competition(config)
    history = load_history(files)
    for result in history.results:
        competition.record_result(result, {})
    snapshot = competition.snapshot()
    grouped = by_pairing(history.results)
    for matchup in snapshot.matchups:
        series = elo_series(grouped[matchup.id], matchup.player_1, matchup.player_2)
        assert matchup.stats is not None
        assert series.games[-1] == matchup.tally.games
        assert series.elo[-1] == matchup.stats.pairing.elo
    records = {r.label: r for r in colour_records(snapshot.matchups, ["strong", "weak"])}
    strong = snapshot.matchups[0].tally.players["strong"]
    assert (records["strong"].black_wins, records["strong"].black_games) == (
        strong.black_wins,
        strong.black_games,
    )
    assert records["all games"].black_games == 60


def test_allplayall_ratings_series_ends_at_the_snapshots_ratings(tmp_path: Path) -> None:
    ctl = allplayall_ctl(tmp_path)
    files = _play(ctl, 48, {"p1": 100.0, "p2": 250.0, "p3": -100.0})
    config = load_control_file(ctl)
    competition = make_competition(config)
    results = load_history(files).results
    for result in results:
        competition.record_result(result, {})
    snapshot = competition.snapshot()
    series = ratings_series(results, snapshot.competitors, snapshot.ratings.anchor)
    assert series.games[-1] == 48
    for final, expected in zip(series.ratings[-1].players, snapshot.ratings.players, strict=True):
        assert final.player == expected.player and final.games == expected.games
        assert final.elo is not None and expected.elo is not None
        assert final.elo.value == pytest.approx(expected.elo.value, abs=1e-6)
        assert final.elo.margin == pytest.approx(expected.elo.margin, abs=1e-6)


def test_allplayall_page(tmp_path: Path) -> None:
    ctl = allplayall_ctl(tmp_path)
    _play(ctl, 48, {"p1": 100.0, "p2": 250.0, "p3": -100.0})
    page, found = report(ctl)
    pairings = [f"fig-elo-{a}v{b}" for a, b in ("AB", "AC", "AD", "BC", "BD", "CD")]
    assert found.figures == [
        "fig-ratings",
        "fig-ratings-history",
        "fig-colour",
        "fig-length",
        *pairings,
    ]
    assert [i for i, n in Counter(found.ids).items() if n > 1] == []
    # The grid: strongest first (p2), each cell coloured by the row player's score.
    grid = page[page.index('<table class="grid">') : page.index("</table>")]
    rows = [code for _, code in re.findall(r'<td class="name">(\w+)\s+(p\d)</td>', grid)]
    ratings = load_snapshot(ctl).ratings
    by_strength = sorted(ratings.players, key=lambda r: -r.elo.value if r.elo else 0.0)
    assert rows == [rating.player for rating in by_strength]
    assert grid.count("background: rgb(") == 12


def test_large_allplayall_draws_the_whole_field_not_every_pairing(tmp_path: Path) -> None:
    ctl = allplayall_ctl(tmp_path, competitors=6)  # 15 pairings
    _play(ctl, 60, {})
    page, found = report(ctl)
    assert found.figures == ["fig-ratings", "fig-ratings-history", "fig-colour", "fig-length"]
    assert "15 pairings have games" in page


def test_tuner_page_places_every_candidate(tmp_path: Path) -> None:
    ctl = tuner_ctl(tmp_path)
    files = _play(ctl, 40, {})
    page, found = report(ctl)
    assert found.figures == [
        "fig-candidates",
        "fig-parameter-playouts",
        "fig-parameter-c",
        "fig-length",
    ]
    played = {r.white for r in load_history(files).results}
    assert len(played) > 1
    # The axes carry the engine values as the control file formats them, named once.
    candidates = page[page.index('id="fig-candidates"') : page.index('id="fig-parameter-')]
    texts = set(re.findall(r"<text[^>]*>([^<]*)</text>", candidates))
    assert {"22", "100", "464", "0.35", "0.65", "0.95", "1.25", "playouts", "c"} <= texts
    assert not any(text.startswith(("p: ", "c: ")) for text in texts)


@pytest.mark.parametrize(
    ("parameters", "plots"),
    [
        (1, ["fig-candidates", "fig-length"]),  # a row: no marginals, it is one
        (3, ["fig-candidates", "fig-parameter-playouts", "fig-parameter-c", "fig-parameter-k"]),
    ],
)
def test_tuner_page_with_one_or_three_parameters(
    tmp_path: Path, parameters: int, plots: list[str]
) -> None:
    ctl = tuner_ctl(tmp_path, parameters, max_depth=2)
    _play(ctl, 60, {})
    page, found = report(ctl)
    assert [f for f in found.figures if f != "fig-length" or parameters == 1] == plots
    candidates = page[page.index('id="fig-candidates"') :]
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", candidates[: candidates.index("</svg>")])
    # Every axis is named and labelled with the engine values, one line per parameter.
    assert {"22", "100", "464"} <= set(texts)
    if parameters == 3:
        assert {"playouts", "c", "k", "0.35", "1.25", "3.162", "31.62"} <= set(texts)


def test_before_the_first_game_every_page_says_so(tmp_path: Path) -> None:
    for ctl in (playoff_ctl(tmp_path), allplayall_ctl(tmp_path), tuner_ctl(tmp_path)):
        page, found = report(ctl)
        assert found.figures == []
        assert "No games played yet." in page
        assert "0 games played" in page or "0/100 games played" in page


def _figure_texts(page: str, figure_id: str) -> list[str]:
    figure = page[page.index(f'id="{figure_id}"') :]
    return re.findall(r"<text[^>]*>([^<]*)</text>", figure[: figure.index("</figure>")])


def test_time_per_move_and_losses_come_from_the_journal(tmp_path: Path) -> None:
    untimed, timed = tmp_path / "untimed", tmp_path / "timed"
    untimed.mkdir()
    timed.mkdir()
    ctl = playoff_ctl(untimed)
    _play(ctl, 60, {"strong": 200.0})
    page, found = report(ctl)
    assert not any(f.startswith("fig-time") for f in found.figures)  # nothing was timed
    ctl = playoff_ctl(timed)
    files = _play(ctl, 60, {"strong": 200.0}, timed=True)
    assert not files.games_dir.exists()  # no game record to read: the journal has it all
    page, found = report(ctl)
    assert {"fig-time-0", "fig-time-w_o"} <= set(found.figures)
    results = load_history(files).results
    for matchup, figure in (("0_", "fig-time-0"), ("w_o_", "fig-time-w_o")):
        games = [r for r in results if r.game_id.startswith(matchup)]
        texts = _figure_texts(page, figure)
        for record in player_records(games):
            assert record.mean is not None
            line = (
                f"mean {1000 * record.mean:.0f} ms, longest {1000 * record.longest:.0f} ms;"
                f" {record.moves} moves in {len(games)} games"
            )
            assert line in texts, (line, texts)
    # The players' table: losses by forfeit and on time apart, and time per move.
    players = page[page.index('id="players"') :]
    for record in player_records(results):
        assert record.forfeits and record.time_losses  # the seeded games have both
        assert record.mean is not None
        row = (
            f'<td class="name">{record.label}</td><td>{record.games}</td>'
            f"<td>{record.forfeits}</td><td>{record.time_losses}</td>"
            f"<td>{record.mean:.3f}</td><td>{record.longest:.3f}</td>"
        )
        assert row in players
    # Each matchup's own table has them too.
    assert "<th>lost on time</th>" in page and "<th>s/move</th>" in page


# ---------------------------------------------------------------------------
# The command and the setting


def test_report_html_writes_both_and_says_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ctl = playoff_ctl(tmp_path)
    files = _play(ctl, 10, {})
    assert main(["report", str(ctl), "--html"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"wrote {files.report}",
        f"wrote {files.html_report}",
    ]
    elsewhere = tmp_path / "page.html"
    assert main(["report", str(ctl), "--html", "-o", str(elsewhere), "-q"]) == 0
    assert elsewhere.read_text().startswith("<!DOCTYPE html>")
    assert main(["reset", str(ctl), "-q"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["duel.ctl", "page.html"]


def test_html_report_setting_must_be_a_boolean(tmp_path: Path) -> None:
    with pytest.raises(ControlFileError, match="html_report"):
        load_control_file(playoff_ctl(tmp_path, "html_report = 'yes'\n"))
    assert load_control_file(playoff_ctl(tmp_path, "html_report = True\n")).html_report
    assert not load_control_file(playoff_ctl(tmp_path)).html_report


def test_a_run_with_html_report_writes_the_page(tmp_path: Path) -> None:
    ctl = tmp_path / "fakes.ctl"
    black, white = fake_command("--moves=D4,E4"), fake_command("--moves=D6,E6")
    ctl.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{'a': Player({list(black)!r}), 'b': Player({list(white)!r})}}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\nhtml_report = True\n"
        "matchups = [Matchup('a', 'b', number_of_games=2)]\n"
    )
    assert main(["run", str(ctl), "-q"]) == 0
    _, found = parse_file(CompetitionFiles.for_control_file(ctl).html_report)
    # Every genmove is timed, with or without a clock.
    assert found.figures == ["fig-elo-0", "fig-colour-0", "fig-length-0", "fig-time-0"]


def parse_file(path: Path) -> tuple[str, _Ids]:
    page = path.read_text(encoding="utf-8")
    return page, parse(page)


WITHOUT_MATPLOTLIB = (
    "import sys; sys.modules['matplotlib'] = None\n"  # import matplotlib now fails
    "from arena_cli.main import main; sys.exit(main(sys.argv[1:]))\n"
)


def test_without_matplotlib_one_line_names_the_install_command(tmp_path: Path) -> None:
    ctl = playoff_ctl(tmp_path)
    files = _play(ctl, 4, {})
    with_setting = playoff_ctl(tmp_path, "html_report = True\n")
    for words in (["report", str(ctl), "--html"], ["run", str(with_setting)]):
        done = subprocess.run(
            [sys.executable, "-c", WITHOUT_MATPLOTLIB, *words],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 1
        assert done.stderr == (
            "arena: the HTML report needs matplotlib: pip install 'gtp-arena[report]'\n"
        )
        assert not files.html_report.exists()
    # The run stopped before playing: the four games recorded above are all there are.
    assert len(load_history(files).results) == 4


# ---------------------------------------------------------------------------
# The plots' axes, read back from the figures


def _drawn(figure: Figure) -> Figure:
    """The figure laid out by the Agg renderer, so its pieces have extents."""
    FigureCanvasAgg(figure).draw()
    return figure


def _elo_after(*scores: tuple[int, int]) -> EloSeries:
    """Elo of ``a`` after each (wins, losses)."""
    return EloSeries(
        "a",
        "b",
        tuple(w + lost for w, lost in scores),
        tuple(elo_estimate(WDL(w, lost, 0, 0), 0.95) for w, lost in scores),
    )


@pytest.mark.parametrize(("wins", "losses", "side"), [(0, 1, -1), (1, 0, 1)])
def test_an_unbounded_elo_is_an_arrow_at_the_edge_of_a_range_the_finite_bounds_choose(
    wins: int, losses: int, side: int
) -> None:
    series = _elo_after(*[(wins * n, losses * n) for n in (1, 2, 3)])
    assert all(e.value == side * math.inf for e in series.elo)  # no finite Elo at all
    finite = [v for e in series.elo for v in (e.lower, e.upper) if math.isfinite(v)]
    with style():
        figure = _drawn(plots.draw_elo(series))
        svg = plots.elo_figure(series, "elo")
    (axes,) = figure.axes
    bottom, top = axes.get_ylim()
    # The finite bounds keep their scale, with room past them for the arrows: the
    # finite values fill most of the axis and none sits on the unbounded edge.
    assert bottom < min(finite) and max(finite) < top
    assert (max(finite) - min(finite)) / (top - bottom) > 0.4
    edge = bottom if side < 0 else top
    assert min(abs(v - edge) for v in finite) >= 100
    # One arrow marker per game at that edge, named in the legend and the note.
    (arrows,) = [line for line in axes.get_lines() if "unbounded" in line.get_label()]
    assert arrows.get_marker() == ("v" if side < 0 else "^")
    assert list(arrows.get_ydata()) == [edge] * 3
    assert f"Elo {'−' if side < 0 else '+'}∞ (unbounded)" in svg
    assert f"{'lower' if side < 0 else 'upper'} bound unbounded" in svg
    assert "Elo unbounded, arrows at the edge" in svg


def test_a_finite_elo_has_no_headroom_and_no_arrow() -> None:
    series = _elo_after((30, 20), (50, 40), (90, 60))
    with style():
        figure = plots.draw_elo(series)
    (axes,) = figure.axes
    assert axes.get_ylim() == plots.elo_range(series)
    shown = [v for e in series.elo for v in (e.value, e.lower, e.upper)]
    assert all(math.isfinite(v) for v in shown)
    assert not [line for line in axes.get_lines() if "unbounded" in line.get_label()]


def test_the_wins_by_colour_legend_overlaps_no_bar_label() -> None:
    # Every game won: each count sits at the top of the plot, where the legend used to be.
    records = [ColourRecord(code, 4.0, 4, 4.0, 4) for code in ("a", "b", "c")]
    records.append(ColourRecord("all games", 12.0, 12, 0.0, 12))
    with style():
        figure = _drawn(plots.draw_colours(records, "Wins by colour"))
    (axes,) = figure.axes
    legend = axes.get_legend()
    assert legend is not None
    box = legend.get_window_extent()
    texts = [t for t in axes.texts if t.get_text()] + [axes.title]
    assert len([t for t in texts if "/" in t.get_text()]) == 8  # the counts over the bars
    for text in texts:
        assert not box.overlaps(text.get_window_extent()), text.get_text()
    # Outside the axes, above them: no bar or error bar can reach it.
    assert box.y0 >= axes.get_window_extent().y1


def test_a_one_game_infinity_at_the_start_marks_the_edge_without_rescaling() -> None:
    later = [(12, 8), (18, 12), (24, 16), (30, 20), (36, 24), (42, 28)]
    series = _elo_after((1, 0), *later)
    assert series.elo[0].value == math.inf
    with style():
        figure = plots.draw_elo(series)
    (axes,) = figure.axes
    # The finite values and later bounds alone set the range: no headroom for a passing infinity.
    finite = [e.value for e in series.elo[1:]] + [
        v for e in series.elo[1:] for v in (e.lower, e.upper)
    ]
    assert all(math.isfinite(v) for v in finite)
    assert axes.get_ylim() == plots._finite_range(finite)
    (arrow,) = [line for line in axes.get_lines() if "unbounded" in line.get_label()]
    assert list(arrow.get_xdata()) == [1] and list(arrow.get_ydata()) == [axes.get_ylim()[1]]
