"""The packages can be read bottom-up: each imports only those below it in one order.

``LAYERS`` is that order, lowest first; the README's "What is inside" shows it.
Every import counts, those inside functions too (a late import is still a
dependency), and so does a ``"package.module:name"`` string of ours (the registry's
competition types name their modules so, imported on first use).  A package that is
not in the list fails the test until it is given its place.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOP = ("gtp", "engines", "arena", "tui", "arena_cli")

# Lowest first.  A unit is a top-level package, or a sub-package / module of arena.
LAYERS: tuple[str, ...] = (
    "gtp",  # the protocol both sides, the rules board, engine processes
    "engines",  # the engines we ship (they speak GTP, know nothing of the arena)
    "arena.errors",
    "arena.stats",  # Elo, LOS, SPRT, ratings (pure)
    "arena.tuning",  # the tuners' maths (pure)
    "arena.control",  # control files, settings, time controls, openings
    "arena.results",  # jobs and results, the vocabulary of a game
    "arena.clock",  # a game clock's arithmetic (pure)
    "arena.competitions",  # the competitions (pure), their snapshots, registry and loader
    "arena.store",  # state, journal, SGF, the writer thread
    "arena.reports",  # the words and pictures of a competition
    "arena.events",  # what a run emits
    "arena.keys",  # the terminal's keys
    "arena.output",  # events into X.log, X.hist, X.events, plain lines
    "tui",  # the live dashboard: draws events, starts nothing
    "arena.run",  # the run loop and one game: emits events, prints nothing
    "arena.api",  # play_match and engine for library use
    "arena.pytest_plugin",
    "arena_cli",  # the arena command: assembles a run
)


def unit_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] not in TOP:
        return None
    if parts[0] == "arena":
        return "arena" if len(parts) == 1 else f"arena.{parts[1]}"
    return parts[0]


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, module) for every import in the file, at any depth."""
    current = module_name(path, root)
    is_package = path.name == "__init__.py"
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = current.split(".")
                if not is_package:
                    base = base[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                assert node.module is not None
                module = node.module
            found.append((node.lineno, module))
            # ``from arena import run`` imports the sub-package arena.run.
            found.extend((node.lineno, f"{module}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            module, colon, name = node.value.partition(":")
            if colon and name.isidentifier() and module.partition(".")[0] in TOP:
                found.append((node.lineno, module))  # a reference loaded by importlib
    return found


def upward_imports(root: Path, layers: tuple[str, ...]) -> list[str]:
    """Every import that goes against ``layers`` (or from/to a unit not in it)."""
    rank = {unit: i for i, unit in enumerate(layers)}
    problems: list[str] = []
    for top in TOP:
        for path in sorted((root / top).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            here = module_name(path, root)
            unit = unit_of(here)
            if unit == "arena":  # arena/__init__.py: imports nothing of ours
                unit_rank = -1
            elif unit not in rank:
                problems.append(f"{here}: its package {unit} has no place in LAYERS")
                continue
            else:
                unit_rank = rank[unit]
            seen: set[tuple[int, str]] = set()
            for line, module in imported_modules(path, root):
                target = unit_of(module)
                if target is None or target == unit or target == "arena":
                    continue
                if target not in rank or (line, target) in seen:
                    continue  # ``from arena import name``: a name, not a module
                seen.add((line, target))
                if rank[target] > unit_rank:
                    problems.append(f"{here}:{line} imports {module} ({target} is above {unit})")
    return sorted(problems)


def test_every_import_goes_down_the_layers() -> None:
    assert upward_imports(ROOT, LAYERS) == []


def test_every_unit_is_placed_once() -> None:
    assert len(set(LAYERS)) == len(LAYERS)
    units = {unit_of(module_name(p, ROOT)) for top in TOP for p in (ROOT / top).rglob("*.py")}
    units.discard("arena")
    assert units == set(LAYERS)


def test_readme_shows_the_order() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    order = text.split("Import order", 1)[1].split("\n\n", 2)[1]
    shown = [word.strip("`") for word in order.split(" < ")]
    assert shown == list(LAYERS)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for top in TOP:
        (root / top).mkdir(exist_ok=True)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from arena.run.game import Game\n", "arena.store.x:1 imports arena.run.game"),
        ("def late():\n    import tui.live\n", "arena.store.x:2 imports tui.live"),
        ("from arena import run\n", "arena.store.x:1 imports arena.run"),
        ("from ..run import game\n", "arena.store.x:1 imports arena.run"),
        ("TYPES = {'x': 'arena.run.game:Game'}\n", "arena.store.x:1 imports arena.run.game"),
    ],
)
def test_the_check_catches_an_upward_import(tmp_path: Path, source: str, expected: str) -> None:
    _write(
        tmp_path,
        {
            "arena/__init__.py": "",
            "arena/store/__init__.py": "",
            "arena/store/x.py": source,
            "arena/run/__init__.py": "",
            "arena/run/game.py": "from arena.store import x\n",
            "tui/__init__.py": "",
            "tui/live.py": "",
        },
    )
    found = upward_imports(tmp_path, ("gtp", "engines", "arena.store", "arena.run", "tui"))
    assert len(found) == 1 and found[0].startswith(expected)


def test_the_check_names_a_package_with_no_place(tmp_path: Path) -> None:
    _write(tmp_path, {"arena/__init__.py": "", "arena/newthing/__init__.py": ""})
    found = upward_imports(tmp_path, ("gtp", "engines"))
    assert found == ["arena.newthing: its package arena.newthing has no place in LAYERS"]
