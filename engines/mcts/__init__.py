"""The sample engine: Monte Carlo tree search in pure Python, speaking GTP.

Modules, from the bottom up: :mod:`~engines.mcts.fastboard` (the position the
search copies and plays on), :mod:`~engines.mcts.patterns` (3x3 shape tables),
:mod:`~engines.mcts.policy` (playouts), :mod:`~engines.mcts.search` (the tree),
:mod:`~engines.mcts.timecontrol` (clocks and budgets),
:mod:`~engines.mcts.gtp_engine` (game state and GTP handlers) and
``__main__`` (``python -m engines.mcts`` / ``arena-mcts``).
"""

from __future__ import annotations
