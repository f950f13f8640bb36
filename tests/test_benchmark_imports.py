"""Every benchmark's imports of our packages resolve (a moved name breaks no script unseen).

The benchmarks are run by hand, not by the suite; this reads each one's
``from <our package> import name`` lines, late ones included, and checks them.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = ("arena", "arena_cli", "gtp", "engines", "tui")


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def our_imports(path: Path) -> list[tuple[int, str, str]]:
    """(line, module, name): ``from module import name``, and ``module.name`` after ``import``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name.split(".")[0] in OURS and alias.asname is None
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            owner = _dotted(node.value)
            if owner in modules:
                found.append((node.lineno, owner, node.attr))
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and not node.level
            and node.module.split(".")[0] in OURS
        ):
            found.extend((node.lineno, node.module, alias.name) for alias in node.names)
    return found


@pytest.mark.parametrize(
    "path", sorted((ROOT / "benchmarks").glob("*.py")), ids=lambda path: path.name
)
def test_the_benchmark_imports_what_exists(path: Path) -> None:
    missing = []
    for line, module, name in our_imports(path):
        imported = importlib.import_module(module)
        if not hasattr(imported, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                missing.append(f"{path.name}:{line} {module}.{name}")
    assert missing == []
