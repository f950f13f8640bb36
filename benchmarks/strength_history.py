"""The strength results file over time: earlier rows kept, superseded ones marked.

``benchmarks/engine_strength.py`` rebuilds its rows from the competitions on
disk, but the competitions of earlier sessions (played with earlier engine
code) are not kept in the repository.  This module merges the rows measured
now into the ones the results file already holds:

* a row is identified by (config, sims, GNU Go level, referee, engine commit);
* a row measured now replaces the earlier row with the same identity;
* an earlier row of the same (config, sims, level, referee) played with other
  engine code is kept, with ``superseded_by`` naming the commit of the row that
  replaced it (set once: a row superseded before keeps its successor).

Rows without a ``referee`` were scored by GNU Go (``"gnugo"``).

Rows from before engine commits were recorded carry ``engine_commit: null``.
Pure functions on JSON-like dicts, plus one ``git`` call for the commit.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any


def current_commit(root: Path) -> str | None:
    """The short commit hash of the checkout at ``root`` (None outside git)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short=7", "HEAD"],
            capture_output=True, text=True, timeout=10, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None


def _identity(row: dict[str, Any]) -> tuple[object, ...]:
    return (*_setting(row), row.get("engine_commit"))


def _setting(row: dict[str, Any]) -> tuple[object, ...]:
    referee = row.get("referee") or "gnugo"
    return (row.get("config"), row.get("sims"), row.get("level"), referee)


def merge_rows(
    earlier: Iterable[dict[str, Any]], current: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Earlier rows (not replaced by a current one) then the current rows; see the docstring."""
    now = {_identity(row) for row in current}
    newest = {_setting(row): row.get("engine_commit") for row in current}
    merged: list[dict[str, Any]] = []
    for row in earlier:
        if not isinstance(row, dict) or _identity(row) in now:
            continue
        kept = dict(row)
        if _setting(row) in newest and not kept.get("superseded_by"):
            kept["superseded_by"] = newest[_setting(row)]  # a row already superseded keeps
        merged.append(kept)  # the commit that replaced it: the chain of commits stays
    merged.extend(dict(row, superseded_by=None) for row in current)
    return merged
