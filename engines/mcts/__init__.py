"""The sample engine: Monte Carlo tree search in Python, speaking GTP.

Modules, from the bottom up: :mod:`~engines.mcts.fastboard` (the position the
search copies and plays on), :mod:`~engines.mcts.patterns` (3x3 shape tables),
:mod:`~engines.mcts.policy` (playouts), :mod:`~engines.mcts.search` (the tree),
:mod:`~engines.mcts.timecontrol` (clocks and budgets),
:mod:`~engines.mcts.gtp_engine` (game state and GTP handlers) and
``__main__`` (``python -m engines.mcts`` / ``arena-mcts``).  The hot path runs
compiled by mypyc where the install could build it, else as the same Python
(:mod:`~engines.mcts.core`; ``ARENA_MCTS_PURE=1`` forces the latter).
"""

from __future__ import annotations

from engines.mcts import core as _core

_core.select()  # before any module of the hot path is imported
