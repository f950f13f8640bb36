"""Creating an engine's process: the argv, its environment and the spawn itself.

The engine starts in a new session (its own process group, whose id is its
pid) with pipes for stdin, stdout and, when kept, stderr; signals Python
ignores are reset to their defaults and no stray descriptor is inherited.
``os.posix_spawn`` does it where it can, at a fraction of the parent's CPU
that ``subprocess.Popen`` costs; Popen does the rest and words every error.
Supervising the process is :mod:`gtp.process`'s job.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
from collections.abc import Mapping, Sequence
from typing import Final, Literal, cast

from gtp.errors import EngineStartError

StderrMode = Literal["keep", "discard", "inherit"]
"""``keep``: drained into a bounded tail (and the line callback, if any);
``discard``: sent to /dev/null; ``inherit``: our own stderr (debugging)."""

# Signals Python ignores that a child should start with at their defaults
# (what ``subprocess.Popen(restore_signals=True)`` resets).
_RESET_SIGNALS: Final = tuple(
    getattr(signal, name) for name in ("SIGPIPE", "SIGXFZ", "SIGXFSZ") if hasattr(signal, name)
)
_FD_DIRECTORY: Final = "/proc/self/fd"


def split_command(command: str | Sequence[str | os.PathLike[str]]) -> list[str]:
    """The argv for a command given as a list or as a shell-like string.

    In the string form, words are split with ``shlex`` rules and a word that
    starts with ``~`` is expanded as a shell would; a list is taken as is.
    """
    if isinstance(command, str):
        try:
            words = shlex.split(command)
        except ValueError as exc:
            raise EngineStartError(f"cannot parse command {command!r}: {exc}") from None
        argv = [os.path.expanduser(w) if w.startswith("~") else w for w in words]
    else:
        argv = [os.fspath(word) for word in command]
    if not argv or not argv[0]:
        raise EngineStartError(f"empty command {command!r}")
    return argv


def spawn_child(
    argv: list[str],
    name: str,
    cwd: str | os.PathLike[str] | None,
    env: Mapping[str, str] | None,
    stderr: StderrMode,
) -> tuple[int, subprocess.Popen[bytes] | None, int, int, int | None]:
    """Start ``argv`` in a new session: (pid, the Popen if one was needed, stdin, stdout, stderr).

    The descriptors returned are the parent's ends of the pipes (stderr None
    unless kept); EngineStartError, naming ``name``, when it cannot start.
    """
    if cwd is not None and not os.path.isdir(cwd):
        raise EngineStartError(
            f"cannot start {shlex.join(argv)!r}: "
            f"working directory {os.fspath(cwd)!r} does not exist",
            engine=name,
        )
    full_env = _child_environment(env)
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stderr_r: int | None = None
    child_stderr: int | None
    if stderr == "keep":
        stderr_r, child_stderr = os.pipe()
    elif stderr == "discard":
        child_stderr = subprocess.DEVNULL
    else:
        child_stderr = None
    parent_ends = [stdin_w, stdout_r] + ([stderr_r] if stderr_r is not None else [])
    popen: subprocess.Popen[bytes] | None = None
    try:
        pid = _posix_spawn(argv, stdin_r, stdout_w, child_stderr, cwd, full_env)
        if pid is None:
            popen = subprocess.Popen(
                argv,
                stdin=stdin_r,
                stdout=stdout_w,
                stderr=child_stderr,
                cwd=cwd,
                env=full_env,
                start_new_session=True,
                close_fds=True,
            )
            pid = popen.pid
    except (OSError, subprocess.SubprocessError) as exc:
        for fd in parent_ends:
            os.close(fd)
        reason = getattr(exc, "strerror", None) or str(exc)
        message = f"cannot start {shlex.join(argv)!r}: {reason}"
        raise EngineStartError(message, engine=name) from None
    finally:
        os.close(stdin_r)
        os.close(stdout_w)
        if child_stderr is not None and child_stderr >= 0:
            os.close(child_stderr)
    return pid, popen, stdin_w, stdout_r, stderr_r


def _child_environment(
    extra: Mapping[str, str] | None,
) -> Mapping[bytes, bytes] | Mapping[str, str] | None:
    """Our environment with ``extra`` over it (None: ours, unchanged).

    Built from the bytes behind ``os.environ`` where CPython has them: going
    through ``os.environ`` decodes every variable (and subprocess encodes them
    all again), a noticeable part of an engine start's cost.
    """
    if extra is None:
        return None
    data = getattr(os.environ, "_data", None)
    if not isinstance(data, dict):
        return {**os.environ, **extra}
    merged: dict[bytes, bytes] = data.copy()
    for key, value in extra.items():
        merged[os.fsencode(key)] = os.fsencode(value)
    return merged


def _posix_spawn(
    argv: list[str],
    stdin: int,
    stdout: int,
    stderr: int | None,
    cwd: str | os.PathLike[str] | None,
    env: Mapping[bytes, bytes] | Mapping[str, str] | None,
) -> int | None:
    """The child's pid, started with ``os.posix_spawn``; None where only subprocess will do.

    It starts the same child as ``subprocess.Popen(start_new_session=True,
    close_fds=True, restore_signals=True)`` at a fraction of the parent's CPU
    (Popen's Python code and its environment encoding cost more than the
    spawn itself).  Left to Popen: a working directory (no chdir action before
    Python 3.13), child ends that are standard descriptors already, a program
    not found on the PATH, and any failure, so that errors read exactly as
    Popen words them.
    """
    if cwd is not None or not hasattr(os, "posix_spawn") or min(stdin, stdout) < 3:
        return None
    if stderr is not None and 0 <= stderr < 3:
        return None
    if env is None:
        data = getattr(os.environ, "_data", None)
        env = data if isinstance(data, dict) else os.environ
    program = argv[0]
    if os.sep not in program:
        found = _find_on_path(program, env)
        if found is None:
            return None
        program = found
    actions: list[tuple[int, ...] | tuple[int, int, str, int, int]] = [
        (os.POSIX_SPAWN_DUP2, stdin, 0),
        (os.POSIX_SPAWN_DUP2, stdout, 1),
    ]
    if stderr == subprocess.DEVNULL:
        actions.append((os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_RDWR, 0))
    elif stderr is not None:
        actions.append((os.POSIX_SPAWN_DUP2, stderr, 2))
    # close_fds: descriptors opened by Python are close-on-exec already; any
    # other one that is inheritable (from a parent shell, say) is closed.
    try:
        names = os.listdir(_FD_DIRECTORY)
    except OSError:
        return None
    for entry in names:
        fd = int(entry)
        if fd > 2:
            try:
                inheritable = os.get_inheritable(fd)
            except OSError:
                continue  # the directory listing's own descriptor, closed by now
            if inheritable:
                actions.append((os.POSIX_SPAWN_CLOSE, fd))
    try:
        return os.posix_spawn(
            program, argv, env, file_actions=actions, setsid=True, setsigdef=_RESET_SIGNALS
        )
    except OSError:
        return None  # Popen tries again and reports the error in its words


def _find_on_path(program: str, env: Mapping[bytes, bytes] | Mapping[str, str]) -> str | None:
    """Where ``execvpe`` would find ``program`` on the child's PATH (None: leave it to Popen)."""
    # get_exec_path reads b"PATH" too (typeshed only admits str keys).
    for directory in os.get_exec_path(cast(Mapping[str, str], env)):
        candidate = os.path.join(directory, program)
        if os.access(candidate, os.X_OK) and os.path.isfile(candidate):
            return candidate
    return None
