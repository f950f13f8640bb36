"""The shape of the code: every module imports alone, no import circles, pure cores stay pure."""

from __future__ import annotations

import ast
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("arena", "arena_cli", "tui", "gtp", "engines")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(*packages: str) -> list[str]:
    return sorted(
        module_name(path)
        for package in packages
        for path in (ROOT / package).rglob("*.py")
        if "__pycache__" not in path.parts
    )


def test_every_module_imports_on_its_own() -> None:
    def try_import(name: str) -> tuple[str, str]:
        done = subprocess.run(
            [sys.executable, "-c", f"import {name}"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        return name, (done.stderr.strip().splitlines() or [""])[-1] if done.returncode else ""

    names = [name for name in modules(*PACKAGES) if not name.endswith("__main__")]
    with ThreadPoolExecutor(8) as pool:
        failures = {name: error for name, error in pool.map(try_import, names) if error}
    assert failures == {}


def _top_level_imports(path: Path, package: str) -> tuple[set[str], list[int]]:
    """The ``package`` modules a file imports at module level; lines of imports in functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    late: list[int] = []
    current = module_name(path)

    def names(node: ast.Import | ast.ImportFrom) -> list[str]:
        if isinstance(node, ast.Import):
            return [alias.name for alias in node.names]
        if node.level:  # relative: resolve against this module's package
            base = current.split(".")[: -node.level]
            return [".".join([*base, node.module or ""])]
        assert node.module is not None
        return [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]

    # `if TYPE_CHECKING:` imports name types for annotations: edges of the graph as
    # module-level imports are (a circle through them is still a circle), not late.
    for_types = {
        id(node)
        for block in tree.body
        if isinstance(block, ast.If)
        and isinstance(block.test, ast.Name)
        and block.test.id == "TYPE_CHECKING"
        for node in block.body
    }
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        ours = [n for n in names(node) if n == package or n.startswith(package + ".")]
        if not ours:
            continue
        if node.col_offset == 0 or id(node) in for_types:
            found.update(ours)
        else:
            late.append(node.lineno)
    return found, late


def test_no_import_circle_and_no_late_import_in_arena() -> None:
    known = set(modules("arena"))
    graph: dict[str, set[str]] = {}
    late: dict[str, list[int]] = {}
    for name in known:
        path = ROOT / (name.replace(".", "/") + ".py")
        if not path.exists():
            path = ROOT / name.replace(".", "/") / "__init__.py"
        imported, lines = _top_level_imports(path, "arena")
        graph[name] = {n for n in imported if n in known and n != name}
        if lines:
            late[name] = lines
    assert late == {}, "imports inside functions (to dodge a circle?)"
    # Depth-first search for a back edge.
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                circle = [*stack[stack.index(target) :], target]
                pytest.fail("import circle: " + " -> ".join(circle))
            if target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)


PURE = [
    *modules("arena/competitions"),
    *modules("arena/control"),
    *modules("arena/stats"),
    "arena.reports.text",
    "arena.reports.series",
    "arena.reports.html_parts",
    "arena.results",
]


@pytest.mark.parametrize("name", PURE)
def test_pure_cores_import_no_trio_and_no_disk_code(name: str) -> None:
    code = (
        f"import sys, {name}\n"
        "bad = sorted(m for m in sys.modules if m == 'trio' or m.startswith("
        "('trio.', 'arena.store', 'arena.run', 'arena.output')))\n"
        "print(' '.join(bad))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == ""
