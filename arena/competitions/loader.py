"""Load and validate Gomill-style control files into frozen configuration.

A control file is Python source run in a namespace that provides ``Player``
(and each competition type's own names, such as ``Matchup`` for playoffs).
``competition_type`` must be its first statement.  Variables and functions
of the user's own are allowed and ignored, but a name the file defines and
never reads that is one or two letters from a known setting (``move_limt``) is
an error saying which setting it probably means.  Every setting we know is
checked (see :mod:`arena.control.settings`), and a bad one raises
:class:`arena.errors.ControlFileError` whose message is one line naming the
file, the line where we can tell, and the setting.

This module owns running the file and the settings common to every type;
the competition type (:mod:`arena.competitions.registry`) reads the rest.
"""

from __future__ import annotations

import ast
import builtins
import os
import traceback
from pathlib import Path
from typing import Any, Final

from arena.competitions.registry import COMPETITION_TYPES
from arena.control.config import CompetitionConfig
from arena.control.namespace import ControlFile, DefinedName
from arena.control.settings import (
    PlayerConfig,
    Where,
    as_affinity,
    as_bool,
    as_choice,
    as_cluster_address,
    as_identifier,
    as_str,
    describe_value,
    parse_player,
    token_factory,
    with_referee_players,
)
from arena.control.timecontrol import TIME_CONTROL_NAMES
from arena.errors import ControlFileError

# Names every competition type's control file may use.
COMMON_TOKENS: Final = (*TIME_CONTROL_NAMES, "Openings", "Adjudication")


# ---------------------------------------------------------------------------
# The loader


def _top_level_lines(tree: ast.Module) -> dict[str, int]:
    """The line where each top-level name is last bound (also inside if/for/with/try)."""
    lines: dict[str, int] = {}

    def names(target: ast.expr) -> list[str]:
        if isinstance(target, ast.Name):
            return [target.id]
        if isinstance(target, (ast.Tuple, ast.List)):
            return [n for element in target.elts for n in names(element)]
        if isinstance(target, ast.Starred):
            return names(target.value)
        return []

    def visit(statements: list[ast.stmt]) -> None:
        for statement in statements:
            bound: list[str] = []
            if isinstance(statement, ast.Assign):
                bound = [n for target in statement.targets for n in names(target)]
            elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
                bound = names(statement.target)
            elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound = [statement.name]
            elif isinstance(statement, (ast.Import, ast.ImportFrom)):
                bound = [(a.asname or a.name).split(".")[0] for a in statement.names]
            elif isinstance(statement, (ast.For, ast.AsyncFor)):
                bound = names(statement.target)
            for name in bound:
                lines[name] = statement.lineno
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and not isinstance(
                    statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
                ):
                    visit(inner)
            for handler in getattr(statement, "handlers", ()):
                visit(handler.body)

    visit(tree.body)
    return lines


def _defined_names(
    tree: ast.Module, lines: dict[str, int], namespace: dict[str, Any], given: set[str]
) -> dict[str, DefinedName]:
    """The names the file itself defined, and whether it reads each anywhere."""
    read = {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store)
    }
    read.update(
        node.target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name)
    )
    return {
        name: DefinedName(name, lines.get(name), name in read)
        for name in namespace
        if name not in given and not name.startswith("__")
    }


def _competition_type(tree: ast.Module, path: Path) -> str:
    first = tree.body[0] if tree.body else None
    if (
        not isinstance(first, ast.Assign)
        or len(first.targets) != 1
        or not isinstance(first.targets[0], ast.Name)
        or first.targets[0].id != "competition_type"
    ):
        line = first.lineno if first is not None else None
        raise ControlFileError(
            "must be set first in the control file",
            path=path,
            line=line,
            setting="competition_type",
        )
    where = Where(path, "competition_type", first.lineno)
    if not isinstance(first.value, ast.Constant) or not isinstance(first.value.value, str):
        raise where.error("expected a string such as 'playoff'")
    name = first.value.value
    if name not in COMPETITION_TYPES:
        known = ", ".join(repr(k) for k in sorted(COMPETITION_TYPES))
        raise where.error(f"unknown competition type {name!r} (known: {known})")
    return name


def _error_line(exc: BaseException, filename: str) -> int | None:
    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == filename:
            line = lineno
    if line is None and isinstance(exc, SyntaxError) and exc.filename == filename:
        line = exc.lineno
    return line


def load_control_file(path: str | os.PathLike[str]) -> CompetitionConfig:
    """Read, run and validate a control file.  Raises :class:`ControlFileError`."""
    control_path = Path(os.path.abspath(path))
    shown = Path(path)
    try:
        source = control_path.read_bytes()
    except OSError as exc:
        raise ControlFileError(f"cannot read the control file: {exc.strerror}", path=shown) from exc
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ControlFileError("the control file is not UTF-8 text", path=shown) from exc
    filename = str(control_path)
    try:
        tree = ast.parse(text, filename=filename)
    except SyntaxError as exc:
        raise ControlFileError(f"syntax error: {exc.msg}", path=shown, line=exc.lineno) from exc
    type_name = _competition_type(tree, shown)
    competition_type = COMPETITION_TYPES[type_name]
    namespace: dict[str, Any] = {"__name__": "__control_file__", "__file__": filename}
    namespace["Player"] = token_factory("Player", filename)
    for name in COMMON_TOKENS:
        namespace[name] = token_factory(name, filename)
    for name, kind in competition_type.namespace.items():
        namespace[name] = token_factory(kind, filename)
    namespace.update(competition_type.objects)
    given = set(namespace)
    try:
        exec(compile(tree, filename, "exec"), namespace)
    except Exception as exc:
        raise ControlFileError(
            f"error while running the control file: {type(exc).__name__}: {exc}"
            + _did_you_mean(exc, namespace),
            path=shown,
            line=_error_line(exc, filename),
        ) from exc
    lines = _top_level_lines(tree)
    control = ControlFile(shown, namespace, lines, _defined_names(tree, lines, namespace, given))
    try:
        players: dict[str, PlayerConfig] = {}
        if competition_type.players_required or control.has("players"):
            players = parse_players(control)
        specific = with_referee_players(
            competition_type.parse(control), players, control.where("referee")
        )
        config = _parse_common(control, control_path, type_name, players, specific)
    except ControlFileError:
        # A misspelt setting is the likelier cause ("komi: not set" after `komy = 7.5`).
        misspelt = control.misspelt_setting()
        if misspelt is not None:
            raise misspelt from None
        raise
    misspelt = control.misspelt_setting()
    if misspelt is not None:
        raise misspelt
    return config


def _did_you_mean(exc: Exception, namespace: dict[str, Any]) -> str:
    """For a misspelt name (``ByoYomy(...)``), the names it may have meant."""
    if not isinstance(exc, NameError) or exc.name is None:
        return ""
    known = [name for name in namespace if not name.startswith("__")]
    known += [name for name in dir(builtins) if not name.startswith("_")]
    import difflib  # only for a misspelt name (~1 ms of CPU to import)

    close = difflib.get_close_matches(exc.name, known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _parse_common(
    control: ControlFile,
    control_path: Path,
    type_name: str,
    players: dict[str, PlayerConfig],
    specific: object,
) -> CompetitionConfig:
    values: dict[str, Any] = {}
    description = control.get("description")
    if description is not None:
        values["description"] = as_str(description, control.where("description")).strip()
    for name in (
        "record_games",
        "skip_player_checks",
        "stderr_to_log",
        "reuse_engines",
        "html_report",
    ):
        if control.has(name):
            values[name] = as_bool(control.get(name), control.where(name))
    if control.has("crash_result"):
        values["crash_result"] = as_choice(
            control.get("crash_result"), ("void", "forfeit"), control.where("crash_result")
        )
    if control.has("affinity"):
        values["affinity"] = as_affinity(control.get("affinity"), control.where("affinity"))
    if control.get("cluster") is not None:
        values["cluster"] = as_cluster_address(control.get("cluster"), control.where("cluster"))
    return CompetitionConfig(
        control_path=control_path,
        competition_type=type_name,
        players=players,
        specific=specific,
        **values,
    )


def parse_players(control: ControlFile) -> dict[str, PlayerConfig]:
    where = control.where("players")
    if not control.has("players"):
        raise where.error("not set (a dictionary of player code -> Player(...))")
    players = control.get("players")
    if not isinstance(players, dict):
        raise where.error(f"expected a dictionary of Player(...), not {describe_value(players)}")
    result = {}
    for code, token in players.items():
        item = where.child(f"[{code!r}]")
        as_identifier(code, item)
        result[code] = parse_player(code, token, item, control.directory)
    return result
