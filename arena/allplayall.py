"""All-play-all tournaments (pure): every pair of competitors plays, with a grid and ratings.

Owns the ``allplayall`` control-file settings (``competitors``, ``rounds``,
``elo_anchor`` and the game settings), the :class:`AllPlayAll` competition,
its snapshot and its report.

An all-play-all runs as a playoff with one alternating matchup per pair of
competitors, as Gomill describes it: competitors get letters A, B, C... in the
order listed (AA, AB... after Z); the matchup of competitors *i* < *j* has id
``AvB``, its player_1 is the earlier competitor (Black in even-numbered games)
and its ``number_of_games`` is ``rounds``.  So scheduling (the pairing with the
fewest games goes next), game ids (``AvB_0``, padded to the width of the last
game number), void handling, tallies and pair statistics are the playoff's
(:mod:`arena.playoff`).  This module adds the rules for changing the control
file between runs (competitors may be added at the end and ``rounds``
increased; anything else that would change earlier results' meaning is
refused), the results grid, and Bradley–Terry ratings for every competitor.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import attrs

from arena.competition import PlayerCheck, register_competition_class
from arena.control import CompetitionConfig, ControlFile, MatchupConfig, PlayoffSettings
from arena.matchstats import format_elo, format_elo_interval
from arena.playoff import MatchupSnapshot, Playoff, PlayoffSnapshot
from arena.ratings import Ratings, bradley_terry
from arena.reports import (
    _Column,
    _Heading,
    _render_table,
    describe_players,
    format_float,
    matchup_summary,
)
from arena.results import GameJob, GameResult
from arena.settings import (
    GAME_SETTINGS,
    GameSettings,
    as_identifier,
    as_int,
    build_game_settings,
    describe_value,
    interpret_game_setting,
)
from arena.state import StateError
from arena.stats import WDL

ALLPLAYALL_GAME_SETTINGS: Final = tuple(
    name
    for name in GAME_SETTINGS
    if name not in ("handicap", "handicap_style", "internal_scorer_handicap_compensation")
)
_NOT_FOR_ALLPLAYALL: Final = {
    "handicap": "all-play-all games have no handicap",
    "handicap_style": "all-play-all games have no handicap",
    "matchups": "an all-play-all plays every pair of competitors; matchups are for playoffs",
}


def competitor_letter(index: int) -> str:
    """A, B, ... Z, AA, AB, ... (the spreadsheet column names) for competitor ``index``."""
    if index < 0:
        raise ValueError(f"competitor index must not be negative, not {index}")
    letters = ""
    index += 1
    while index:
        index, remainder = divmod(index - 1, 26)
        letters = chr(ord("A") + remainder) + letters
    return letters


def matchup_id(first: int, second: int) -> str:
    """``AvB`` for competitors ``first`` < ``second``."""
    return f"{competitor_letter(first)}v{competitor_letter(second)}"


# ---------------------------------------------------------------------------
# Control file


@attrs.frozen
class AllPlayAllSettings:
    """The all-play-all part of a control file."""

    competitors: tuple[str, ...]
    settings: GameSettings
    rounds: int | None = None  # None: play on until stopped
    elo_anchor: str | None = None  # rated 0; default the first competitor

    @property
    def anchor(self) -> str:
        return self.elo_anchor or self.competitors[0]

    def matchups(self, event: str) -> tuple[MatchupConfig, ...]:
        """One alternating matchup per pair of competitors, AvB, AvC, ... BvC, ..."""
        matchups = []
        for i, first in enumerate(self.competitors):
            for j in range(i + 1, len(self.competitors)):
                second = self.competitors[j]
                matchups.append(
                    MatchupConfig(
                        id=matchup_id(i, j),
                        name=f"{matchup_id(i, j)}: {first} v {second}",
                        player_1=first,
                        player_2=second,
                        settings=self.settings,
                        alternating=True,
                        number_of_games=self.rounds,
                        event=event,
                    )
                )
        return tuple(matchups)


def parse_allplayall(control: ControlFile) -> AllPlayAllSettings:
    """Read ``competitors``, ``rounds``, ``elo_anchor`` and the game settings."""
    for name, why in _NOT_FOR_ALLPLAYALL.items():
        if control.has(name):
            raise control.where(name).error(f"not used in an all-play-all ({why})")
    where = control.where("competitors")
    if not control.has("competitors"):
        raise where.error("not set (a list of player codes)")
    listed = control.get("competitors")
    if not isinstance(listed, (list, tuple)):
        raise where.error(f"expected a list of player codes, not {describe_value(listed)}")
    players = control.get("players")
    known = set(players) if isinstance(players, dict) else set()
    competitors: list[str] = []
    for item in listed:
        code = as_identifier(item, where)
        if code not in known:
            raise where.error(f"unknown player {code!r}")
        if code in competitors:
            raise where.error(f"player {code!r} is listed more than once")
        competitors.append(code)
    if len(competitors) < 2:
        raise where.error("an all-play-all needs at least two competitors")
    rounds = None
    if control.has("rounds"):
        rounds = as_int(control.get("rounds"), control.where("rounds"))
        if rounds < 0:
            raise control.where("rounds").error(f"must not be negative, not {rounds}")
    anchor = None
    if control.has("elo_anchor"):
        anchor = as_identifier(control.get("elo_anchor"), control.where("elo_anchor"))
        if anchor not in competitors:
            raise control.where("elo_anchor").error(f"{anchor!r} is not one of the competitors")
    values: dict[str, object] = {}
    for name in ALLPLAYALL_GAME_SETTINGS:
        if control.has(name):
            values[name] = interpret_game_setting(name, control.get(name), control.where(name))
    for name in ("board_size", "komi"):
        if name not in values:
            raise control.where(name).error("not set (required for an all-play-all)")
    settings = build_game_settings(values, control.where("board_size"))
    return AllPlayAllSettings(tuple(competitors), settings, rounds, anchor)


def allplayall_settings(config: CompetitionConfig) -> AllPlayAllSettings:
    if not isinstance(config.specific, AllPlayAllSettings):
        raise TypeError(f"{config.competition_type} competition is not an all-play-all")
    return config.specific


# ---------------------------------------------------------------------------
# Snapshot and report


@attrs.frozen
class GridCell:
    """Row player's results against the column player (a jigo is half a win each)."""

    wins: float
    losses: float

    def __str__(self) -> str:
        return f"{format_float(self.wins)}-{format_float(self.losses)}"


@attrs.frozen
class AllPlayAllSnapshot:
    """A frozen picture of an all-play-all for show/report and the live display.

    ``grid[i][j]`` is competitor *i*'s record against *j* over games with a
    known result (None on the diagonal and before any such game).  Each
    matchup carries its own figures (``MatchupSnapshot.stats``); ``ratings``
    are the Bradley–Terry ratings of all competitors.
    """

    code: str
    description: str | None
    competitors: tuple[str, ...]
    letters: tuple[str, ...]
    settings: GameSettings
    rounds: int | None
    matchups: tuple[MatchupSnapshot, ...]
    grid: tuple[tuple[GridCell | None, ...], ...]
    ratings: Ratings
    engines: tuple[tuple[str, str], ...]
    in_progress: tuple[str, ...]
    complete: bool

    @property
    def games_played(self) -> int:
        return sum(m.tally.games for m in self.matchups)

    def report(self) -> str:
        return allplayall_report(self)


def results_grid(snapshot: AllPlayAllSnapshot) -> list[str]:
    """Gomill's grid: one row per competitor, ``wins-losses`` against each column."""
    cells = [[("" if cell is None else str(cell)) for cell in row] for row in snapshot.grid]
    labels = [
        f"{letter} {code}"
        for letter, code in zip(snapshot.letters, snapshot.competitors, strict=True)
    ]
    label_width = max(len(label) for label in labels)
    widths = [
        max(3, len(letter), *(len(row[j]) for row in cells))
        for j, letter in enumerate(snapshot.letters)
    ]
    header = " " * label_width + "".join(
        " " + letter.center(width) for letter, width in zip(snapshot.letters, widths, strict=True)
    )
    lines = [header.rstrip()]
    for label, row in zip(labels, cells, strict=True):
        text = label.ljust(label_width) + "".join(
            " " + cell.rjust(width) for cell, width in zip(row, widths, strict=True)
        )
        lines.append(text.rstrip())
    return lines


def ratings_table(snapshot: AllPlayAllSnapshot) -> list[str]:
    """Each competitor's Bradley–Terry rating relative to the anchor, with its interval."""
    ratings = snapshot.ratings
    confidence = f"{100 * ratings.confidence:g}%"
    labels, games, points, elos = [], [], [], []
    for letter, rating in zip(snapshot.letters, ratings.players, strict=True):
        labels.append(f"{letter} {rating.player}")
        games.append(str(rating.games))
        points.append(format_float(rating.points))
        if rating.elo is None:
            elos.append("?")
        elif rating.player == ratings.anchor:
            elos.append(format_elo(0.0))
        else:
            elos.append(format_elo_interval(rating.elo))
    columns = [
        _Column(labels, align="left", right_padding=3),
        _Column(games, right_padding=2),
        _Column(points, right_padding=2),
        _Column(elos, align="left"),
    ]
    headings = [_Heading(""), _Heading("games"), _Heading("points"), _Heading("Elo")]
    title = (
        f"ratings (Bradley-Terry, {ratings.anchor} = 0, {confidence} intervals;"
        " a jigo is half a point)"
    )
    return [title, *_render_table(columns, headings, len(labels))]


def allplayall_report(snapshot: AllPlayAllSnapshot) -> str:
    """Header, grid, ratings, then every pairing in the playoff layout, then the players."""
    blocks: list[str] = [f"allplayall: {snapshot.code}"]
    if snapshot.description:
        blocks.append(snapshot.description)
    rounds = "unlimited" if snapshot.rounds is None else str(snapshot.rounds)
    blocks.append(
        f"{snapshot.settings.describe()}   rounds: {rounds}   games played: {snapshot.games_played}"
    )
    blocks.append("\n".join(results_grid(snapshot)))
    blocks.append("\n".join(ratings_table(snapshot)))
    for matchup in snapshot.matchups:
        blocks.append("\n".join(matchup_summary(matchup)))
    blocks.append("\n".join(describe_players(snapshot.competitors, dict(snapshot.engines))))
    return "\n\n".join(blocks) + "\n"


# ---------------------------------------------------------------------------
# The competition


class AllPlayAll:
    """An all-play-all tournament (implements :class:`arena.competition.Competition`)."""

    competition_type = "allplayall"

    def __init__(self, config: CompetitionConfig) -> None:
        self.config = config
        self.settings = allplayall_settings(config)
        self._letters = tuple(competitor_letter(i) for i in range(len(self.settings.competitors)))
        matchups = self.settings.matchups(event=config.code)
        self._matchups = {m.id: m for m in matchups}
        self._playoff = Playoff(attrs.evolve(config, specific=PlayoffSettings(matchups)))

    # -- scheduling (the playoff's) -------------------------------------------

    def player_checks(self) -> list[PlayerCheck]:
        return [
            PlayerCheck(self.config.players[code], self.settings.settings)
            for code in self.settings.competitors
        ]

    def next_job(self) -> GameJob | None:
        return self._playoff.next_job()

    def job_abandoned(self, job: GameJob) -> None:
        self._playoff.job_abandoned(job)

    def is_complete(self) -> bool:
        return self._playoff.is_complete()

    # -- results --------------------------------------------------------------

    def record_result(self, result: GameResult, engines: Mapping[str, str]) -> bool:
        pairing, _, number = result.game_id.rpartition("_")
        matchup = self._matchups.get(pairing)
        if matchup is None or not number.isdigit():
            raise StateError(
                f"game {result.game_id} is not a game of this all-play-all"
                f" ({len(self.settings.competitors)} competitors);"
                " competitors may be added at the end of the list, not removed"
            )
        if {result.black, result.white} != {matchup.player_1, matchup.player_2}:
            raise StateError(
                f"game {result.game_id} was played by {result.black} and {result.white},"
                f" but competitors {pairing.replace('v', ' and ')} are now"
                f" {matchup.player_1} and {matchup.player_2}:"
                " competitors may only be added at the end of the list"
            )
        return self._playoff.record_result(result, engines)

    def record_void(self, game_id: str, pairing: str, *, live: bool) -> bool:
        return self._playoff.record_void(game_id, pairing, live=live)

    # -- state ------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        settings = self.settings
        return {
            "competitors": list(settings.competitors),
            "rounds": settings.rounds,
            "board_size": settings.settings.board_size,
            "komi": settings.settings.komi,
            "playoff": self._playoff.to_state(),
        }

    def load_state(self, state: Mapping[str, Any]) -> None:
        try:
            competitors = [str(code) for code in state["competitors"]]
            rounds = state["rounds"]
            board_size = state["board_size"]
            komi = state["komi"]
            playoff_state = state["playoff"]
        except (KeyError, TypeError) as exc:
            raise StateError(f"the all-play-all state is malformed: {exc!r}") from exc
        self._check_changes(competitors, rounds, board_size, komi)
        self._playoff.load_state(playoff_state)

    def _check_changes(
        self, competitors: list[str], rounds: object, board_size: object, komi: object
    ) -> None:
        """Refuse control-file changes that would change the meaning of earlier results."""
        now = self.settings
        if list(now.competitors[: len(competitors)]) != competitors:
            raise StateError(
                f"competitors were {', '.join(competitors)} in earlier runs; new competitors"
                " may be added at the end of the list, but none removed or reordered"
            )
        if rounds is not None:
            if not isinstance(rounds, int):
                raise StateError(f"the all-play-all state has a bad rounds value {rounds!r}")
            if now.rounds is not None and now.rounds < rounds:
                raise StateError(
                    f"rounds was {rounds} in earlier runs and may be increased, not decreased"
                    f" to {now.rounds} (use `arena stop` to stop early)"
                )
        elif now.rounds is not None:
            raise StateError(
                f"rounds was unset (unlimited) in earlier runs and may not be limited to"
                f" {now.rounds} now (use `arena stop` to stop)"
            )
        for name, before, after in (
            ("board_size", board_size, now.settings.board_size),
            ("komi", komi, now.settings.komi),
        ):
            if before != after:
                raise StateError(
                    f"{name} was {before} in earlier runs, not {after}; results at different"
                    " settings cannot be mixed (start a new competition, or `arena reset`)"
                )

    # -- snapshot ---------------------------------------------------------------

    def snapshot(self) -> AllPlayAllSnapshot:
        inner: PlayoffSnapshot = self._playoff.snapshot()
        competitors = self.settings.competitors
        index = {code: i for i, code in enumerate(competitors)}
        grid: list[list[GridCell | None]] = [[None] * len(competitors) for _ in competitors]
        results: dict[tuple[str, str], WDL] = {}
        for matchup in inner.matchups:
            tally = matchup.tally
            p1, p2 = matchup.player_1, matchup.player_2
            if p1 not in index or p2 not in index:
                continue
            wins_1, wins_2 = tally.players[p1].wins, tally.players[p2].wins
            if wins_1 + wins_2 > 0:
                i, j = index[p1], index[p2]
                grid[i][j] = GridCell(wins_1, wins_2)
                grid[j][i] = GridCell(wins_2, wins_1)
            if matchup.stats is not None:
                results[(p1, p2)] = matchup.stats.pairing.wdl
        ratings = bradley_terry(competitors, results, elo_anchor=self.settings.anchor)
        return AllPlayAllSnapshot(
            code=inner.code,
            description=inner.description,
            competitors=competitors,
            letters=self._letters,
            settings=self.settings.settings,
            rounds=self.settings.rounds,
            matchups=inner.matchups,
            grid=tuple(tuple(row) for row in grid),
            ratings=ratings,
            engines=inner.engines,
            in_progress=inner.in_progress,
            complete=inner.complete,
        )


register_competition_class("allplayall", AllPlayAll)
