"""The ``playoff`` control-file settings: ``matchups`` of ``Matchup(...)`` and their defaults.

Each ``Matchup`` names two players and may override the game settings,
``alternating``, ``number_of_games``, an ``id``, a ``name`` and an ``sprt``
stopping rule; top-level settings give the defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from arena.control.config import MatchupConfig, PlayoffSettings
from arena.control.namespace import ControlFile
from arena.control.openings import OpeningBook, check_book, parse_openings
from arena.control.settings import (
    GAME_SETTINGS,
    ConfigToken,
    Where,
    as_bool,
    as_float,
    as_identifier,
    as_int,
    as_str,
    build_game_settings,
    describe_value,
    interpret_game_setting,
)
from arena.stats.elo import SPRT

MATCHUP_ARGUMENTS: Final = (
    "id",
    "name",
    "alternating",
    "number_of_games",
    "sprt",
    "openings",
    *GAME_SETTINGS,
)


def _interpret_matchup_setting(name: str, value: object, where: Where) -> object:
    if name == "alternating":
        return as_bool(value, where)
    if name == "number_of_games":
        if value is None:
            return None
        count = as_int(value, where)
        if count < 0:
            raise where.error(f"must not be negative, not {count}")
        return count
    if name == "sprt":
        return sprt_from_control(value, where)
    return interpret_game_setting(name, value, where)


def parse_playoff(control: ControlFile) -> PlayoffSettings:
    defaults: dict[str, object] = {}
    for name in ("alternating", "number_of_games", *GAME_SETTINGS):
        if control.has(name):
            defaults[name] = _interpret_matchup_setting(
                name, control.get(name), control.where(name)
            )
    if control.has("openings"):
        defaults["openings"] = parse_openings(
            control.get("openings"), control.where("openings"), control.directory
        )
    where = control.where("matchups")
    tokens = control.get("matchups")
    if not isinstance(tokens, (list, tuple)) or not tokens:
        raise where.error("expected a non-empty list of Matchup(...)")
    players = control.get("players")
    player_codes = set(players) if isinstance(players, dict) else set()
    matchups: list[MatchupConfig] = []
    seen: set[str] = set()
    for index, token in enumerate(tokens):
        if not isinstance(token, ConfigToken) or token.kind != "Matchup":
            raise where.error(f"item {index}: expected Matchup(...), not {describe_value(token)}")
        label = token.kwargs.get("id", index)
        item = Where(where.path, f"matchup {label}", token.line or where.line)
        matchup = _parse_matchup(
            token, index, defaults, player_codes, item, control.path.stem, control.directory
        )
        if matchup.id in seen:
            raise item.error(f"duplicate matchup id {matchup.id!r}")
        seen.add(matchup.id)
        matchups.append(matchup)
    return PlayoffSettings(tuple(matchups))


def _parse_matchup(
    token: ConfigToken,
    index: int,
    defaults: Mapping[str, object],
    player_codes: set[str],
    where: Where,
    code: str,
    directory: Path,
) -> MatchupConfig:
    if len(token.args) != 2:
        raise where.error("Matchup needs two player codes")
    for name in token.kwargs:
        if name not in MATCHUP_ARGUMENTS:
            raise where.error(f"unknown Matchup argument {name!r}")
    player_1, player_2 = (as_str(arg, where) for arg in token.args)
    for player in (player_1, player_2):
        if player not in player_codes:
            raise where.error(f"unknown player {player!r}")
    if player_1 == player_2:
        raise where.error("a matchup needs two different players")
    values = dict(defaults)
    for name, value in token.kwargs.items():
        if name in ("id", "name"):
            continue
        if name == "openings":
            values[name] = parse_openings(value, where.child(": openings"), directory)
            continue
        if value is None and name in ("handicap", "number_of_games"):
            values[name] = None
            continue
        values[name] = _interpret_matchup_setting(name, value, where.child(f": {name}"))
    matchup_id = str(index)
    if token.kwargs.get("id") is not None:
        matchup_id = as_identifier(token.kwargs["id"], where.child(": id"))
    name = f"{player_1} v {player_2}"
    event = code
    if token.kwargs.get("name") is not None:
        name = " ".join(as_str(token.kwargs["name"], where.child(": name")).split())
        event = f"{code} ({name})"
    openings = values.pop("openings", None)
    assert openings is None or isinstance(openings, OpeningBook)
    alternating = bool(values.pop("alternating", False))
    if openings is not None:
        # Each opening is played twice, colours swapped: the matchup alternates.
        if token.kwargs.get("alternating") is False:
            raise where.error(
                "openings are played in colour-swapped pairs:"
                " alternating=False cannot be combined with openings"
            )
        alternating = True
    number_of_games = values.pop("number_of_games", None)
    assert number_of_games is None or isinstance(number_of_games, int)
    sprt = values.pop("sprt", None)
    assert sprt is None or isinstance(sprt, SPRT)
    if sprt is not None and sprt.model == "pentanomial" and not alternating:
        raise where.error(
            "SPRT model 'pentanomial' counts colour-swapped pairs:"
            " it needs alternating=True (or openings)"
        )
    settings = build_game_settings(values, where)
    if openings is not None:
        check_book(openings, settings, where.child(": openings"))
    return MatchupConfig(
        id=matchup_id,
        name=name,
        player_1=player_1,
        player_2=player_2,
        settings=settings,
        alternating=alternating,
        number_of_games=number_of_games,
        event=event,
        sprt=sprt,
        openings=openings,
    )


def sprt_from_control(value: object, where: Where) -> SPRT | None:
    """A matchup's ``sprt=SPRT(elo0, elo1, alpha, beta, model=...)`` setting, checked."""
    if value is None:
        return None
    if not isinstance(value, ConfigToken) or value.kind != "SPRT":
        raise where.error(f"expected SPRT(elo0, elo1, alpha, beta), not {describe_value(value)}")
    arguments = [as_float(arg, where) for arg in value.args]
    keywords: dict[str, Any] = {
        name: as_float(arg, where.child(f".{name}"))
        for name, arg in value.kwargs.items()
        if name != "model"
    }
    if "model" in value.kwargs:
        model = value.kwargs["model"]
        if model is not None and not isinstance(model, str):
            raise where.error(
                f"SPRT model must be 'trinomial' or 'pentanomial', not {describe_value(model)}"
            )
        keywords["model"] = model
    try:
        return SPRT(*arguments, **keywords)
    except TypeError:
        raise where.error("SPRT takes elo0, elo1 and optionally alpha, beta and model") from None
    except ValueError as exc:
        raise where.error(str(exc)) from None
