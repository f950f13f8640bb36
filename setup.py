"""Build hook for the sample engine's compiled core; the rest is in pyproject.toml.

``pip install -e .`` (or a wheel build) compiles the hot modules of
``engines/mcts`` named in :data:`engines.mcts.core.COMPILED` with mypyc into
extension modules beside the ``.py`` files, and writes the digest of the
sources compiled to ``engines/mcts/_core.sha256``, which the engine checks
before it uses them.  Every failure (mypyc missing or rejecting the code, no C
compiler) is reported and skipped: the install succeeds, and the engine runs
the same ``.py`` files (see :mod:`engines.mcts.core`).  ``ARENA_MCTS_PURE=1``
at install time skips the compilation.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
# The shared library of the compiled modules, inside the package (the editable
# install's finder only knows the project's packages, not top-level modules).
GROUP = "engines.mcts._core"
PLACEHOLDER = Extension(f"{GROUP}__placeholder", sources=[])


def load_core() -> ModuleType:
    """``engines/mcts/core.py`` on its own (it imports nothing of the project)."""
    spec = importlib.util.spec_from_file_location("_arena_mcts_core", ROOT / "engines/mcts/core.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def say(message: str) -> None:
    print(f"gtp-arena build: {message}", file=sys.stderr, flush=True)


def mypyc_extensions(core: ModuleType) -> list[Extension]:
    """The compiled core's extensions, or none (with the reason on stderr)."""
    if core.forced_pure():
        say(f"{core.PURE_ENV} is set: the engine's core stays pure Python")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as error:
        say(f"no mypyc ({error}): the engine's core stays pure Python")
        return []
    paths = [f"engines/mcts/{name}.py" for name in core.COMPILED]
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        extensions: list[Extension] = mypycify(paths, group_name=GROUP, opt_level="3")
    except (Exception, SystemExit) as error:  # mypy's errors end in SystemExit
        say(f"mypyc failed ({error!r}): the engine's core stays pure Python")
        return []
    finally:
        os.chdir(cwd)
    for extension in extensions:
        extension.optional = True  # no C compiler: a warning, not a failed install
    return extensions


class BuildCore(build_ext):  # type: ignore[misc]
    """build_ext that generates the mypyc extensions when (and only when) it runs."""

    core_digest = ""

    def finalize_options(self) -> None:
        extensions = self.distribution.ext_modules
        if extensions == [PLACEHOLDER]:
            core = load_core()
            # the digest of the sources as mypyc reads them, recorded once the build succeeds
            self.core_digest = core.source_digest(ROOT / "engines" / "mcts")
            extensions[:] = mypyc_extensions(core)
        super().finalize_options()

    def run(self) -> None:
        core = load_core()
        names = [f"engines.mcts.{name}" for name in core.COMPILED]
        # what this build makes (in build_lib: the in-place copies may be older ones)
        made = [Path(self.build_lib, self.get_ext_filename(name)) for name in names]
        for path in made:
            path.unlink(missing_ok=True)
        target = Path(self.get_ext_fullpath(names[0])).parent / core.DIGEST_FILE
        if self.inplace:
            # Unlinked, not overwritten: an engine running the old ones keeps its mapping.
            target.unlink(missing_ok=True)
            for extension in self.extensions:
                Path(self.get_ext_fullpath(extension.name)).unlink(missing_ok=True)
        if self.extensions:
            super().run()
        if self.extensions and all(path.is_file() for path in made):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(self.core_digest + "\n")
            say(f"compiled core built ({core.TOOL}): {', '.join(core.COMPILED)}")
        else:
            target.unlink(missing_ok=True)
            say("compiled core not built: the engine runs pure Python")


def main() -> None:
    options: dict[str, Any] = {
        "ext_modules": [PLACEHOLDER],
        "cmdclass": {"build_ext": BuildCore},
    }
    setup(**options)


main()
