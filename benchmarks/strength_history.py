"""The strength results file over time: earlier rows kept, superseded ones marked.

``benchmarks/engine_strength.py`` rebuilds its rows from the competitions on
disk, but the competitions of earlier sessions (played with earlier engine
code) are not kept in the repository.  This module merges the rows measured
now into the ones the results file already holds:

* a row is identified by (config, sims, GNU Go level, referee, engine commit);
* a row measured now replaces the earlier row with the same identity;
* an earlier row of the same (config, sims, level, referee) played with other
  engine code is kept, with ``superseded_by`` naming the commit of the row that
  replaced it (set once: a row superseded before keeps its successor);
* a row measured now with engine code older than the newest earlier row of its
  setting (a resumed run from a frozen worktree, merged late) does not
  supersede that row: it is the one marked, superseded by it.  "Older" is
  git's ancestry (``older``); rows whose commits git cannot order are taken
  as measured in merge order.

Rows without a ``referee`` were scored by GNU Go (``"gnugo"``).

Rows from before engine commits were recorded carry ``engine_commit: null``.
Pure functions on JSON-like dicts, plus ``git`` calls for the commit and its ancestry.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any


def current_commit(root: Path) -> str | None:
    """The short commit hash of the checkout at ``root`` (None outside git)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short=7", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None


def git_older(root: Path) -> Callable[[str | None, str | None], bool]:
    """``older(a, b)``: commit ``a`` is a strict ancestor of ``b`` in the checkout at ``root``."""

    def older(a: str | None, b: str | None) -> bool:
        if not a or not b or a == b:
            return False
        try:
            done = subprocess.run(
                ["git", "-C", str(root), "merge-base", "--is-ancestor", a, b],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return False
        return done.returncode == 0

    return older


def _never_older(a: str | None, b: str | None) -> bool:
    return False


def _identity(row: dict[str, Any]) -> tuple[object, ...]:
    return (*_setting(row), row.get("engine_commit"))


def _setting(row: dict[str, Any]) -> tuple[object, ...]:
    referee = row.get("referee") or "gnugo"
    return (row.get("config"), row.get("sims"), row.get("level"), referee)


def merge_rows(
    earlier: Iterable[dict[str, Any]],
    current: Sequence[dict[str, Any]],
    older: Callable[[str | None, str | None], bool] = _never_older,
) -> list[dict[str, Any]]:
    """Earlier rows (not replaced by a current one) then the current rows; see the docstring."""
    now = {_identity(row) for row in current}
    newest = {_setting(row): row.get("engine_commit") for row in current}
    kept_rows = [
        dict(row) for row in earlier if isinstance(row, dict) and _identity(row) not in now
    ]
    standing = {
        _setting(row): row.get("engine_commit") for row in kept_rows if not row.get("superseded_by")
    }
    late = {
        setting
        for setting, commit in newest.items()
        if setting in standing and older(commit, standing[setting])
    }
    for kept in kept_rows:
        setting = _setting(kept)
        # a row already superseded keeps the commit that replaced it: the chain stays
        if setting in newest and setting not in late and not kept.get("superseded_by"):
            kept["superseded_by"] = newest[setting]
    return kept_rows + [
        dict(row, superseded_by=standing[_setting(row)] if _setting(row) in late else None)
        for row in current
    ]
