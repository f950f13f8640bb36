"""Which core runs the engine's hot path: compiled by mypyc, or pure Python.

The hot modules (:data:`COMPILED`: the board, the shape tables, the tactics,
the playout policies, the tree, the priors and the search) are ordinary,
``mypy --strict`` clean Python, and they are the one source.  The build
(``setup.py``, run by ``pip install -e .``) compiles them with mypyc into
extension modules placed beside the ``.py`` files, which Python's import
system prefers, and records a digest of the sources it compiled
(:data:`DIGEST_FILE`).  Where it cannot (no C compiler, no mypyc), the
install goes on without them and the same ``.py`` files run.

:func:`select`, called when the package is imported (before any of those
modules), decides which runs and makes the choice stick for the process:

* ``ARENA_MCTS_PURE`` set to anything but ``""`` or ``"0"`` forces the
  ``.py`` files even where the compiled modules are present;
* otherwise the compiled modules are used when every one of them is there
  and the recorded digest matches the sources (a source edited since the
  build would otherwise be shadowed by stale compiled code: the ``.py``
  files run instead until ``pip install -e .`` builds again).

The pure path is forced with a finder put first on :data:`sys.meta_path`
that loads the hot modules from their ``.py`` files; worker processes inherit
the environment and choose alike.  This module imports nothing of the
engine, so that ``setup.py`` can read :data:`COMPILED` from it.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Final

#: The modules the build compiles, in the order their sources are digested.
COMPILED: Final = ("fastboard", "patterns", "tactics", "policy", "tree", "priors", "search")
#: The environment variable that forces the pure-Python core.
PURE_ENV: Final = "ARENA_MCTS_PURE"
#: Written beside the compiled modules by the build: the digest of the sources compiled.
DIGEST_FILE: Final = "_core.sha256"
#: The tool that compiles the core.
TOOL: Final = "mypyc"

PACKAGE: Final = "engines.mcts"
HERE: Final = Path(__file__).resolve().parent


def source_digest(folder: Path) -> str:
    """SHA-256 over the sources of :data:`COMPILED` in ``folder`` (names and contents)."""
    digest = hashlib.sha256()
    for name in COMPILED:
        digest.update(name.encode() + b"\0")
        digest.update((folder / f"{name}.py").read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def forced_pure() -> bool:
    """True if the environment asks for the pure-Python core."""
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def _compiled_present(folder: Path) -> str:
    """Why the compiled core cannot run from ``folder`` ("" if it can)."""
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    missing = [
        name
        for name in COMPILED
        if not any((folder / f"{name}{suffix}").is_file() for suffix in suffixes)
    ]
    if missing:
        return "not built" if len(missing) == len(COMPILED) else f"not built: {missing[0]}"
    try:
        recorded = (folder / DIGEST_FILE).read_text().strip()
    except OSError:
        return f"no {DIGEST_FILE} from the build"
    if recorded != source_digest(folder):
        return "stale: the sources changed since the build (pip install -e . rebuilds it)"
    return ""


class _SourceFinder:
    """A meta path finder that loads the hot modules from their ``.py`` files."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != PACKAGE or name not in COMPILED:
            return None
        return importlib.util.spec_from_file_location(fullname, self.folder / f"{name}.py")


_choice: tuple[str, str] | None = None


def select() -> tuple[str, str]:
    """Decide the core for this process (once): ``(core, why)``, core ``mypyc`` or ``pure``."""
    global _choice
    if _choice is not None:
        return _choice
    why = f"{PURE_ENV} is set" if forced_pure() else _compiled_present(HERE)
    if why:
        sys.meta_path.insert(0, _SourceFinder(HERE))
        _choice = ("pure", why)
    else:
        _choice = (TOOL, "")
    return _choice


def core_name() -> str:
    """``mypyc`` or ``pure``: the core this process runs (see :func:`select`)."""
    return select()[0]


def describe() -> str:
    """One line for ``--help``: which core runs, and why not the compiled one."""
    core, why = select()
    if core == TOOL:
        return f"core: compiled ({TOOL}); {PURE_ENV}=1 forces the pure-Python core"
    return f"core: pure Python ({why})"
