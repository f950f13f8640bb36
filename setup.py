"""Build hook for the sample engine's compiled core; the rest is in pyproject.toml.

``pip install -e .`` (or a wheel build) compiles the hot modules of
``engines/mcts`` named in :data:`engines.mcts.core.COMPILED` with mypyc into
extension modules beside the ``.py`` files, and writes the digest of the
sources compiled to ``engines/mcts/_core.sha256``, which the engine checks
before it uses them.  Every failure (mypyc missing or rejecting the code, no C
compiler) is reported and skipped: the install succeeds, and the engine runs
the same ``.py`` files (see :mod:`engines.mcts.core`).  ``ARENA_MCTS_PURE=1``
at install time skips the compilation.

Where the C compiler is GCC the build is profile-guided: the extensions are
first built instrumented (``-fprofile-generate``), a short search in a
separate process (:data:`TRAINING`: the default configuration on the empty
board and in a middle game, and brief runs of the other playout policies,
selections and the graph, about ten seconds) records which branches are
taken, and they are built again from those counts (``-fprofile-use``).  The
same code and the same trees; about 6% more simulations a second on this
project's 2-core machine (2026-11-29).  Any failure there falls back to the
plain build; ``ARENA_MCTS_NO_PGO=1`` skips it.  ``-fno-semantic-interposition``
lets the compiler inline the small tactics functions the playout calls
across modules (they live in one shared library).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
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
NO_PGO_ENV = "ARENA_MCTS_NO_PGO"
# Every GCC build: calls between the modules of the one shared library may be inlined.
COMMON_FLAGS = ["-fno-semantic-interposition"]
PROFILE_GENERATE = ["-fprofile-generate", "-fprofile-update=single"]
PROFILE_USE = [
    "-fprofile-use",
    "-fprofile-correction",
    "-Wno-missing-profile",
    "-Wno-error=coverage-mismatch",
]
# The profile's workload: what the engine spends its time on, by simulation
# counts (not time) so that every build trains alike.
TRAINING = """
import sys
from engines.mcts.fastboard import NATIVE, FastBoard
from engines.mcts.search import Search, SearchConfig

if not NATIVE:
    sys.exit("the compiled core was not loaded")
board = FastBoard(9)
search = Search(SearchConfig(), 1)
for _ in range(24):  # a middle game, the engine's own moves
    search.set_position(board, 7.5)
    search.simulate(150)
    board.play(search.decide(allow_resign=False).move)
for position in (FastBoard(9), board):
    search = Search(SearchConfig(), 2)
    search.set_position(position, 7.5)
    search.simulate(12000)
others = (
    SearchConfig(policy="light", rave="off", priors="none"),
    SearchConfig(policy="ladders"),
    SearchConfig(policy="strict"),
    SearchConfig(policy="lgrf"),
    SearchConfig(selection="puct"),
    SearchConfig(rave="k"),
    SearchConfig(structure="graph"),
)
for config in others:
    for position in (FastBoard(9), board):
        search = Search(config, 3)
        search.set_position(position, 7.5)
        search.simulate(1500)
"""


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
            self.build_core(core, made)
        if self.extensions and all(path.is_file() for path in made):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(self.core_digest + "\n")
            say(f"compiled core built ({core.TOOL}): {', '.join(core.COMPILED)}")
        else:
            target.unlink(missing_ok=True)
            say("compiled core not built: the engine runs pure Python")

    def build_core(self, core: ModuleType, made: list[Path]) -> None:
        """Build the extensions, profile-guided where the compiler is GCC (see the module doc)."""
        base = [(list(e.extra_compile_args), list(e.extra_link_args)) for e in self.extensions]

        not_gcc = self.not_gcc()  # GCC's flags only for GCC (clang's may differ)
        common = COMMON_FLAGS if not_gcc is None else []

        def flags(compile_flags: list[str], link_flags: list[str]) -> None:
            for ext, (compile_args, link_args) in zip(self.extensions, base, strict=True):
                ext.extra_compile_args = compile_args + common + compile_flags
                ext.extra_link_args = link_args + link_flags

        compiler = self.compiler  # run() replaces the name with the compiler it made

        def build() -> None:
            self.compiler = compiler
            self.force = True
            super(BuildCore, self).run()

        skip = os.environ.get(NO_PGO_ENV, "") not in ("", "0")
        reason = f"{NO_PGO_ENV} is set" if skip else not_gcc
        if reason is None:
            inplace, self.inplace = self.inplace, False
            try:
                for stale in Path(self.build_temp).rglob("*.gcda"):
                    stale.unlink()
                flags(PROFILE_GENERATE, ["-fprofile-generate"])
                build()
                self.train(core, made)
                flags(PROFILE_USE, [])
                for path in made:
                    path.unlink(missing_ok=True)
                self.inplace = inplace
                build()
                say("profile-guided build (gcc -fprofile-use)")
                return
            except Exception as error:  # any failure: the plain build
                reason = f"failed ({error})"
            finally:
                self.inplace = inplace
        say(f"profile-guided build skipped: {reason}")
        flags([], [])
        for path in made:
            path.unlink(missing_ok=True)
        build()

    def not_gcc(self) -> str | None:
        """Why the C compiler is not GCC (None: it is)."""
        from setuptools._distutils.ccompiler import new_compiler
        from setuptools._distutils.sysconfig import customize_compiler

        made_compiler = new_compiler(compiler=self.compiler)
        customize_compiler(made_compiler)
        program = getattr(made_compiler, "compiler_so", ["cc"])[0]
        try:
            version = subprocess.run(
                [program, "--version"], capture_output=True, text=True, timeout=30
            ).stdout
        except (OSError, subprocess.SubprocessError) as error:
            return f"cannot ask the compiler ({error})"
        if "Free Software Foundation" not in version:
            return f"the compiler ({program}) is not GCC"
        return None

    def train(self, core: ModuleType, made: list[Path]) -> None:
        """Run :data:`TRAINING` against the instrumented extensions (in a scratch copy)."""
        with tempfile.TemporaryDirectory() as scratch:
            for package in ("engines", "gtp"):
                shutil.copytree(
                    ROOT / package,
                    Path(scratch, package),
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__", core.DIGEST_FILE),
                )
            folder = Path(scratch, "engines", "mcts")
            group = Path(self.build_lib, self.get_ext_filename(f"{GROUP}__mypyc"))
            for path in [*made, group]:
                shutil.copy2(path, folder / path.name)
            (folder / core.DIGEST_FILE).write_text(self.core_digest + "\n")
            env = {k: v for k, v in os.environ.items() if k != core.PURE_ENV}
            # the scratch copy first; the rest as the build has it (pip's build
            # environment, where the core's runtime, librt, may be the only one)
            env["PYTHONPATH"] = os.pathsep.join(
                [scratch, *filter(None, [os.environ.get("PYTHONPATH")])]
            )
            result = subprocess.run(
                [sys.executable, "-c", TRAINING],
                cwd=scratch,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            if result.returncode:
                last = (result.stderr.strip().splitlines() or ["no output"])[-1]
                raise RuntimeError(f"the training run failed: {last}")
        if not any(Path(self.build_temp).rglob("*.gcda")):
            raise RuntimeError("the training run left no profile")


def main() -> None:
    options: dict[str, Any] = {
        "ext_modules": [PLACEHOLDER],
        "cmdclass": {"build_ext": BuildCore},
    }
    setup(**options)


main()
